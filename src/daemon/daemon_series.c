/*
 * daemon_series.c - what the daemon keeps of every message (its context)
 * and reply_mode = per-series: the parts of a series are held in the store
 * until all of 1..total arrived or series_wait passed, then one reply goes
 * to the lead (the cover letter, else the first patch).
 *
 * A held part is kept as a re-serialized mail (its decoded headers and
 * text, which parse back to the same patch) with its findings as text, so
 * a restart or SIGKILL loses nothing: the pending series is flushed by the
 * next daemon.  The reply is queued with the lead as the outbox parent
 * (UNIQUE), so a series is answered at most once.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mail/context.h"
#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "reply/recipients.h"
#include "rules/rules.h"
#include "daemon/series.h"
#include "mail/msgid.h"

#define CONTEXT_KEEP_S		((long)CONFIG_MAX_REPEAT_AFTER * 24 * 3600) /* context and told rows */
#define CONTEXT_PRUNE_EVERY_S	(24L * 3600)		/* how often they are pruned */
#define SERIES_FLUSH_MAX	16	/* series and held replies flushed per timer round */
#define TURNS_SCAN_MAX		512	/* people with due replies of one kind looked at
					 * per round (the longest waiting) */
#define FINDING_FIELDS		6	/* rule, severity, line, text, message, doc */

static time_t last_prune;

/* ---------------------------------------------------------------- context */

int daemon_context_note(struct daemon *d, const struct decision *rec, struct err *e)
{
	/* A shallow copy: the record's context stays as the mail has it. */
	struct msg_context c = rec->ctx;
	char *id = NULL;
	int rc;

	if (!c.message_id)
		c.message_id = id = msgid_key(rec->key);
	rc = c.message_id ? store_context_put(d->st, &c, e) : 0;
	free(id);
	return rc;
}

void daemon_context_prune(struct daemon *d, time_t now)
{
	struct err e;
	long n = 0;

	if (last_prune && now - last_prune < CONTEXT_PRUNE_EVERY_S)
		return;
	last_prune = now;
	if (store_context_prune(d->st, now - CONTEXT_KEEP_S, &n, &e) < 0)
		log_msg(LOGL_WARNING, "%s", e.msg);
	else if (n)
		log_msg(LOGL_INFO, "pruned the context of %ld messages older than %ld days", n,
			CONTEXT_KEEP_S / (24 * 3600));
}

/* ------------------------------------------------- a held part, as text */

/* The headers but the MIME ones, and the decoded text as 8bit UTF-8:
 * message_parse() reads it back to the same headers and text. */
static int serialize_mail(const struct message *m, struct buf *b)
{
	static const char *const mime[] = { "Content-Type", "Content-Transfer-Encoding",
					    "MIME-Version", "Content-Disposition" };
	int rc = 0;

	for (size_t i = 0; i < m->nheaders && rc == 0; i++) {
		const struct header *h = &m->headers[i];
		const char *raw;
		bool skip = false;

		for (size_t j = 0; j < ARRAY_SIZE(mime); j++)
			skip = skip || !strcasecmp(h->name, mime[j]);
		raw = skip ? NULL : message_header_raw_of(m, h);
		if (raw && !strpbrk(h->name, "\r\n:") && !strpbrk(raw, "\r\n"))
			rc = buf_printf(b, "%s: %s\n", h->name, raw);
	}
	if (rc == 0)
		rc = buf_addstr(b, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
			       "Content-Transfer-Encoding: 8bit\n\n");
	return rc == 0 ? buf_add(b, m->text, m->text_len) : -1;
}

/* '\\', '\n' and the field separator escaped: one finding per line. */
static void put_field(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			buf_addstr(b, "\\\\");
		else if (*s == '\n')
			buf_addstr(b, "\\n");
		else if (*s == '\t')
			buf_addstr(b, "\\t");
		else
			buf_addch(b, *s);
	}
}

static char *findings_text(const struct findings *f)
{
	struct buf b;

	buf_init(&b, STORE_SERIES_RAW_MAX);
	for (size_t i = 0; i < f->n; i++) {
		const struct finding *x = &f->v[i];

		put_field(&b, x->rule);
		buf_printf(&b, "\t%d\t%zu\t", (int)x->severity, x->line);
		put_field(&b, x->text);
		buf_addch(&b, '\t');
		put_field(&b, x->message);
		buf_addch(&b, '\t');
		put_field(&b, x->doc);
		buf_addch(&b, '\n');
	}
	return buf_detach(&b, NULL);
}

/* Strings a read-back finding points at (rule, doc are foreign there). */
struct pool {
	char **v;
	size_t n, alloc;
};

static const char *pool_keep(struct pool *p, char *s)
{
	ARRAY_GROW(p->v, p->alloc, p->n + 1);
	p->v[p->n++] = s;
	return s;
}

static void pool_release(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* Field i of a line, unescaped; malloc'ed. */
static char *get_field(const char *line, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (line[i] == '\\' && i + 1 < n) {
			i++;
			*o++ = line[i] == 'n' ? '\n' : line[i] == 't' ? '\t' : line[i];
		} else {
			*o++ = line[i];
		}
	}
	*o = '\0';
	return out;
}

static void parse_finding(const char *line, size_t n, struct findings *f, struct pool *pool)
{
	char *fld[FINDING_FIELDS] = { 0 };
	size_t k = 0, start = 0;
	struct finding *x;

	for (size_t i = 0; i <= n && k < FINDING_FIELDS; i++) {
		if (i < n && (line[i] != '\t' || (i > start && line[i - 1] == '\\')))
			continue;
		fld[k++] = get_field(line + start, i - start);
		start = i + 1;
	}
	if (k == FINDING_FIELDS) {
		ARRAY_GROW(f->v, f->alloc, f->n + 1);
		x = &f->v[f->n++];
		x->rule = pool_keep(pool, fld[0]);
		x->severity = (enum severity)atoi(fld[1]);
		x->line = (size_t)strtoul(fld[2], NULL, 10);
		x->text = fld[3];
		x->message = fld[4];
		x->doc = pool_keep(pool, fld[5]);
		free(fld[1]);
		free(fld[2]);
		return;
	}
	for (size_t i = 0; i < k; i++)
		free(fld[i]);
}

static void findings_read(const char *s, struct findings *f, struct pool *pool)
{
	while (s && *s) {
		size_t n = strcspn(s, "\n");

		parse_finding(s, n, f, pool);
		s += n;
		s += *s == '\n';
	}
}

/* ------------------------------------------------------------- holding */

/* The message row of a part the series reply (why "series") or a folded
 * held reply ("held") speaks for. */
/* *added (may be NULL): false when the message was recorded already (by
 * another daemon on the state, which decided it meanwhile). */
static int record_held(struct daemon *d, const struct job *j, const char *why, bool *added,
		       struct err *e)
{
	struct store_message m;

	memset(&m, 0, sizeof(m));
	m.msgid = j->rec.key;
	m.source = j->src->id;
	m.folder = j->src->f->name;
	m.uid = j->o.uid;
	m.kind = j->rec.kind;
	m.decision = STORE_SKIPPED;
	m.why = why;
	m.time = j->rec.now;
	return store_record_message(d->st, &m, added, e);
}

static int series_state(struct daemon *d, const char *id, enum store_series_state *state,
			struct store_series *out, struct err *e)
{
	struct store_series s;
	bool found;

	memset(&s, 0, sizeof(s));
	if (store_series_get(d->st, id, &s, &found, e) < 0)
		return -1;
	*state = found ? s.state : STORE_SERIES_DONE;
	if (out)
		*out = s;
	else
		store_series_release(&s);
	return 0;
}

/* A part joined series id: its state, and the wait measured from this part
 * (series_deadline()). */
static int stretch(struct daemon *d, const char *id, time_t now, enum store_series_state *state,
		   struct err *e)
{
	struct store_series s;
	time_t t;
	int rc = series_state(d, id, state, &s, e);

	if (rc < 0 || *state != STORE_SERIES_PENDING) {
		store_series_release(&s);
		return rc;
	}
	t = series_deadline(s.first_time, s.deadline, now, d->cfg.reply.series_wait);
	if (t != s.deadline)
		rc = store_series_set_deadline(d->st, id, t, e);
	store_series_release(&s);
	return rc;
}

/* A series' members as the flush needs them (copies). */
struct member {
	char *msgid;
	int index;
	char *raw;
	size_t len;
	char *findings;
};

struct members {
	struct member *v;
	size_t n, alloc;
};

static void member_add(void *ctx, const struct store_series_member *m)
{
	struct members *ms = ctx;
	struct member *x;

	ARRAY_GROW(ms->v, ms->alloc, ms->n + 1);
	x = &ms->v[ms->n++];
	x->msgid = xstrdup(m->msgid);
	x->index = m->index;
	x->raw = NULL;
	x->len = 0;
	if (m->raw) {
		x->raw = xmalloc(m->len + 1);
		memcpy(x->raw, m->raw, m->len);
		x->raw[m->len] = '\0';
		x->len = m->len;
	}
	x->findings = m->findings ? xstrdup(m->findings) : NULL;
}

static void members_release(struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].msgid);
		free(ms->v[i].raw);
		free(ms->v[i].findings);
	}
	free(ms->v);
	memset(ms, 0, sizeof(*ms));
}

/* The first patch answers a message the store never saw: most likely the
 * cover letter, still on its way. */
static int cover_expected(struct daemon *d, const struct members *ms, bool *yes, struct err *e)
{
	struct msg_context c, parent;
	bool found = false;
	int rc = 0;

	*yes = false;
	msg_context_init(&c);
	msg_context_init(&parent);
	for (size_t i = 0; i < ms->n && !found; i++) {
		if (ms->v[i].index != 1)
			continue;
		if (store_context_get(d->st, ms->v[i].msgid, &c, &found, e) < 0)
			rc = -1;
	}
	if (rc == 0 && found && c.in_reply_to) {
		rc = store_context_get(d->st, c.in_reply_to, &parent, &found, e);
		*yes = rc == 0 && !found;
	}
	msg_context_release(&c);
	msg_context_release(&parent);
	return rc;
}

static int is_complete(struct daemon *d, const struct store_series *s, const struct members *ms,
		       bool *yes, struct err *e)
{
	struct series_view v = { .total = s->total };
	bool *bits = xcalloc((size_t)s->total + 1, sizeof(bool));

	for (size_t i = 0; i < ms->n; i++)
		series_view_add(&v, bits, ms->v[i].index);
	free(bits);
	*yes = false;
	if (v.nhave < v.total)
		return 0;
	if (!v.have_cover && cover_expected(d, ms, &v.cover_expected, e) < 0)
		return -1;
	*yes = series_complete(&v);
	return 0;
}

static int flush_one(struct daemon *d, const char *id, time_t now, time_t *full, struct err *e);

/* Whether rec's lead, the checked part of the mail it decides, is a
 * series part. */
static bool series_part(const struct decision *rec)
{
	return context_is_of(&rec->ctx, rec->key) && series_is_part(&rec->ctx);
}

bool daemon_series_awaits_list(struct daemon *d, const struct decision *rec)
{
	return config_answers_per_series(&d->cfg) && series_part(rec);
}

int daemon_series_take(struct daemon *d, const struct job *j, bool *taken, struct err *e)
{
	const struct decision *rec = &j->rec;
	const struct patch *lead = rec->lead;
	const char *key = rec->key;
	enum store_series_state state = STORE_SERIES_DONE;
	struct series_arrival arrival = {
		.c = &rec->ctx, .deadline = rec->now + d->cfg.reply.series_wait,
	};
	struct buf raw;
	char *fdump = NULL, *id = NULL;
	bool hold;
	time_t now = rec->now;
	int rc;

	*taken = false;
	if (!series_part(rec))
		return 0;
	buf_init(&raw, STORE_SERIES_RAW_MAX);
	hold = rec->la.pol->reply_mode == REPLY_PER_SERIES && rec->verdict.verdict != POLICY_SKIP &&
	       lead->msg && serialize_mail(lead->msg, &raw) == 0;
	if (hold)
		fdump = findings_text(&rec->f);
	arrival.state = hold ? STORE_SERIES_PENDING : STORE_SERIES_PASSIVE;
	arrival.raw = hold ? raw.data : NULL;
	arrival.len = raw.len;
	arrival.findings = fdump;
	rc = series_assign(d->st, &arrival, &id, e);
	buf_release(&raw);
	free(fdump);
	if (rc == 0 && hold)
		rc = stretch(d, id, now, &state, e);
	if (rc == 0 && hold && state == STORE_SERIES_PENDING) {
		rc = record_held(d, j, "series", NULL, e);
		*taken = rc == 0;
		if (rc == 0)
			daemon_note(j, key, STORE_SKIPPED, "series");
		log_message(LOGL_DEBUG, key, "held for the reply to series <%s>", id);
		if (rc == 0)
			rc = flush_one(d, id, now, NULL, e);
	}
	free(id);
	return rc;
}

bool daemon_series_stray(struct daemon *d, const struct decision *rec)
{
	const struct patch *p = rec->lead;
	const struct msg_context *c = &rec->ctx;
	struct msg_context parent;
	bool found = false, stray = false;
	struct err e;

	if (!d->st || !p->in_reply_to || !*p->in_reply_to || p->series.total > 0)
		return false;
	msg_context_init(&parent);
	if (c->in_reply_to && store_context_get(d->st, c->in_reply_to, &parent, &found, &e) < 0)
		log_message(LOGL_WARNING, p->message_id, "%s", e.msg);
	stray = found && series_stray(c, &parent);
	msg_context_release(&parent);
	return stray;
}

/* -------------------------------------------------------------- flushing */

/* What one flush holds: the parts' findings and their strings. */
struct flush {
	struct reply_series_part *parts;
	struct findings *f;
	char **subjects;
	size_t n;
	struct pool pool;
};

static void flush_release(struct flush *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		findings_release(&fl->f[i]);
		free(fl->subjects[i]);
	}
	free(fl->parts);
	free(fl->f);
	free(fl->subjects);
	pool_release(&fl->pool);
}

/* All parts' findings in one list, shallow (for the decision hook). */
static void merge_parts(const struct flush *fl, struct findings *all)
{
	findings_init(all);
	for (size_t i = 0; i < fl->n; i++)
		for (size_t j = 0; j < fl->f[i].n; j++) {
			ARRAY_GROW(all->v, all->alloc, all->n + 1);
			all->v[all->n++] = fl->f[i].v[j];
		}
}

/* The store's queueing of a grouped reply: series or held. */
typedef int group_queue_fn(struct store *st, const char *id, const struct store_outgoing *out,
			   time_t now, enum store_enqueue *res, struct err *e);

/* A kind of grouped reply: its name in the log and its queueing. */
struct group_kind {
	const char *what;		/* "series" or "held" */
	group_queue_fn *queue;
};

static const struct group_kind series_group = { "series", store_series_queue_reply };
static const struct group_kind held_group = { "held", store_held_queue_reply };

/* What a grouped reply (a series, or the patches held for one recipient)
 * is built from: which group it answers and when, its first mail parsed,
 * the list settings that mail's list has, and every part's findings. */
struct grouped {
	const struct group_kind *kind;	/* static */
	const char *id;			/* foreign; the series, or the recipient */
	int total;			/* its parts: the series' n of n/m, the held
					 * patches' count */
	time_t now;			/* the flush's clock */
	time_t *full;			/* foreign, may be NULL: note_full()'s */
	struct message msg;
	struct patch *p;		/* owned; the parts of msg */
	size_t np;
	const struct list_policy *lp;	/* foreign (d->cfg) */
	struct reply_settings rs;
	struct policy_settings ps;	/* the daemon's, with rs: whom the reply
					 * mails and what it tells are its list's */
	struct flush fl;
	struct reply r;			/* to be built */
};

/* g's reply was queued: the decision hook, the rate windows, what the
 * person was told, the log. */
static void note_queued(struct daemon *d, const struct grouped *g)
{
	const struct reply *r = &g->r;
	const struct patch *lp = &g->p[0];
	const struct reply_settings *rs = &g->rs;
	const struct flush *fl = &g->fl;
	struct findings all;
	struct daemon_decision dd = { lp->message_id, STORE_REPLIED, NULL, &all, rs->min_severity,
				      g->now };

	merge_parts(fl, &all);
	daemon_hook(d, NULL, &dd);
	free(all.v);	/* shallow: the findings are fl's */
	policy_note_reply(d->pipeline.pol, &g->ps, lp, g->now);
	if (d->cfg.reply.repeat_after) {
		struct recipients own;
		const struct recipients *who = recipients_of(lp, rs, &own);
		char *to = daemon_told_person(who);
		struct told t = { lp, to, g->now };

		for (size_t i = 0; i < fl->n; i++)
			if (fl->subjects[i])
				daemon_told_note(d, &t, &fl->f[i], rs->min_severity);
		free(to);
		if (who == &own)
			recipients_release(&own);
	}
	log_message(LOGL_INFO, lp->message_id, "%s reply <%s> queued for %s (%zu findings)",
		    g->kind->what, r->msgid, r->nrcpt ? r->rcpt[0] : "?", r->nfindings);
	daemon_reply_queued(d, lp->message_id, r, g->now);
}

/* rs (a copy of the daemon's) with the settings of p's list; its policy. */
static const struct list_policy *list_settings(const struct daemon *d, const struct patch *p,
					       struct reply_settings *rs)
{
	const struct list_policy *lp = config_policy_for(&d->cfg, p->list_id);

	*rs = d->pipeline.rs;
	rs->to = lp->to;
	rs->list_address = lp->address;
	rs->min_severity = lp->min_reply_severity;
	return lp;
}

/* Queues g's reply to its group, led by its first mail, and notes it
 * when queued. */
static int queue_group(struct daemon *d, const struct grouped *g, struct err *e)
{
	const char *rcpt[REPLY_MAX_RCPT + 1];
	struct store_outgoing out;
	enum store_enqueue res;
	int rc;

	daemon_outgoing(d, &g->r, g->p[0].message_id, rcpt, &out);
	rc = g->kind->queue(d->st, g->id, &out, g->now, &res, e);
	if (rc == 0 && res == STORE_QUEUED)
		note_queued(d, g);
	return rc;
}

static char *subject_of(struct daemon *d, const char *msgid)
{
	struct msg_context c;
	struct err e;
	bool found = false;
	char *s = NULL;

	msg_context_init(&c);
	if (store_context_get(d->st, msgid, &c, &found, &e) == 0 && found) {
		s = c.subject;
		c.subject = NULL;
	}
	msg_context_release(&c);
	return s ? s : xstrdup("");
}

/* One entry per index 0..total: the first member with that index, the
 * cover only when it came, a missing patch as a part without subject. */
static void flush_parts(struct daemon *d, const struct members *ms, int total, struct flush *fl)
{
	size_t max = (size_t)total + 1;

	fl->parts = xcalloc(max, sizeof(*fl->parts));
	fl->f = xcalloc(max, sizeof(*fl->f));
	fl->subjects = xcalloc(max, sizeof(*fl->subjects));
	for (int i = 0; i <= total; i++) {
		const struct member *m = NULL;

		for (size_t j = 0; j < ms->n && !m; j++)
			if (ms->v[j].index == i && ms->v[j].raw)
				m = &ms->v[j];
		if (!m && i == 0)
			continue;
		findings_init(&fl->f[fl->n]);
		fl->parts[fl->n].index = i;
		if (m) {
			fl->subjects[fl->n] = subject_of(d, m->msgid);
			fl->parts[fl->n].subject = fl->subjects[fl->n];
			fl->parts[fl->n].findings = &fl->f[fl->n];
			findings_read(m->findings, &fl->f[fl->n], &fl->pool);
		}
		fl->n++;
	}
}

/* When the global limit holds a reply, *full (may be NULL) is set to the
 * time it has room again: the replies due after it wait till then. */
static void note_full(enum policy_reason why, time_t at, time_t now, time_t *full)
{
	if (full && why == REASON_RATE_GLOBAL)
		*full = at > now ? at : now + 1;
}

/* A series reply over a rate limit is held, not dropped: the series stays
 * pending with its deadline moved to when the limit has room again, and
 * that flush tries again ("every patch that needs one gets it"); the
 * lead's row stays skipped:series until then. */
static int rate_hold(struct daemon *d, const struct grouped *g, const char *key, bool *held,
		     struct err *e)
{
	time_t at, now = g->now;
	enum policy_reason why;

	*held = policy_rate_check_patch(d->pipeline.pol, &g->ps, &g->p[0], now, &why, &at) == POLICY_HOLD;
	if (!*held)
		return 0;
	note_full(why, at, now, g->full);
	log_message(LOGL_WARNING, key, "series <%s>: reply held back: %s (tried again in %ld s)",
		    g->id, policy_reason_name(why), (long)(at - now));
	return store_series_set_deadline(d->st, g->id, at > now ? at : now + 1, e);
}

/* A grouped reply of kind to the group id at now, its g->total parts in
 * ms, from first (a member of ms): first parsed and ms's parts gathered
 * as flush_parts() does.  -1 with pe filled when first does not parse;
 * release g either way. */
static int grouped_open(struct daemon *d, struct grouped *g, const struct member *first,
			const struct members *ms, struct err *pe)
{
	message_init(&g->msg);
	reply_init(&g->r);
	if (message_parse(&g->msg, first->raw, first->len, pe) < 0)
		return -1;
	patch_parse(&g->msg, &g->p, &g->np);
	g->lp = list_settings(d, &g->p[0], &g->rs);
	g->ps = d->pipeline.ps;
	g->ps.rs = &g->rs;
	flush_parts(d, ms, g->total, &g->fl);
	rules_cover_settles(&g->p[0], g->fl.f, g->fl.n);
	return 0;
}

static void grouped_release(struct grouped *g)
{
	reply_release(&g->r);
	flush_release(&g->fl);
	if (g->p)
		patches_free(g->p, g->np);
	message_release(&g->msg);
}

/* A series with nothing at or above min in any part is clean: each part
 * the series held is reported so to the decision hook (tagbot replay), as
 * a patch of its own would be.  Their rows stay "skipped: series". */
static void hook_clean(struct daemon *d, const struct members *ms, const struct grouped *g)
{
	for (size_t i = 0; i < g->fl.n; i++)
		for (size_t j = 0; j < g->fl.f[i].n; j++)
			if (g->fl.f[i].v[j].severity >= g->rs.min_severity)
				return;
	for (size_t i = 0; i < ms->n; i++) {
		struct daemon_decision dd = { ms->v[i].msgid, STORE_CLEAN, NULL, NULL,
					      g->rs.min_severity, g->now };

		if (ms->v[i].raw)
			daemon_hook(d, NULL, &dd);
	}
}

/* Builds and queues the series reply g (its group, total and clock set);
 * a series with nothing to say, or whose lead cannot be answered, is only
 * marked done. */
static int flush_build(struct daemon *d, struct grouped *g, const struct member *lead,
		       const struct members *ms, struct err *e)
{
	const char *id = g->id;
	struct err pe;
	bool held = false;
	int rc;

	if (grouped_open(d, g, lead, ms, &pe) < 0) {
		log_message(LOGL_WARNING, lead->msgid, "series <%s>: %s", id, pe.msg);
		rc = store_series_set_state(d->st, id, STORE_SERIES_DONE, e);
		goto out;
	}
	if (!g->lp->enabled ||
	    reply_build_series(&g->r,
			       &(struct reply_series){ .lead = &g->p[0], .parts = g->fl.parts,
						       .n = g->fl.n, .total = g->total },
			       &g->rs, g->now, &pe) < 0) {
		log_message(LOGL_DEBUG, lead->msgid, "series <%s>: no reply: %s", id,
			    g->lp->enabled ? pe.msg : "list not enabled");
		if (g->lp->enabled)
			hook_clean(d, ms, g);
		rc = store_series_set_state(d->st, id, STORE_SERIES_DONE, e);
		goto out;
	}
	rc = rate_hold(d, g, lead->msgid, &held, e);
	if (rc == 0 && !held)
		rc = queue_group(d, g, e);
out:
	grouped_release(g);
	return rc;
}

/* Flushes series id when it is complete or past its deadline; *full as
 * note_full() says. */
static int flush_one(struct daemon *d, const char *id, time_t now, time_t *full, struct err *e)
{
	struct store_series s;
	enum store_series_state state;
	struct members ms = { 0 };
	const struct member *lead = NULL;
	bool complete = false;
	int rc;

	memset(&s, 0, sizeof(s));
	rc = series_state(d, id, &state, &s, e);
	if (rc == 0 && state == STORE_SERIES_PENDING && now < s.deadline) {
		/* counted first: the mails are read once all parts are in */
		int nparts;

		rc = store_series_count(d->st, id, s.total, &nparts, e);
		if (rc == 0 && nparts < s.total)
			goto out;
	}
	if (rc == 0 && state == STORE_SERIES_PENDING)
		rc = store_series_members(d->st, id, member_add, &ms, e);
	if (rc == 0 && state == STORE_SERIES_PENDING && now < s.deadline)
		rc = is_complete(d, &s, &ms, &complete, e);
	if (rc < 0 || state != STORE_SERIES_PENDING || (now < s.deadline && !complete))
		goto out;
	for (size_t i = 0; i < ms.n && !lead; i++)
		if (ms.v[i].raw)
			lead = &ms.v[i];	/* by index: the cover, else the first patch */
	if (!lead) {
		rc = store_series_set_state(d->st, id, STORE_SERIES_DONE, e);
	} else {
		struct grouped g = { .kind = &series_group, .id = id, .total = s.total, .now = now,
				     .full = full };

		rc = flush_build(d, &g, lead, &ms, e);
	}
out:
	members_release(&ms);
	store_series_release(&s);
	return rc;
}

/* ------------------------------------------------- replies a limit held */

int daemon_hold_take(struct daemon *d, const struct job *j, struct err *e)
{
	const struct decision *rec = &j->rec;
	const char *key = rec->key;
	const struct patch *lead = rec->lead;
	const struct policy_settings *ps = &rec->la.ps;
	const struct recipients *who = &rec->who;
	struct store_held h;
	enum policy_reason why;
	struct buf raw;
	char *fdump = NULL;
	time_t now = rec->now, at = now;
	bool added = false;
	int rc;

	buf_init(&raw, STORE_SERIES_RAW_MAX);
	if (!who->to.email[0] || !lead->msg || serialize_mail(lead->msg, &raw) < 0) {
		/* nobody to answer, or too large to keep: as before, recorded */
		policy_rate_check_patch(d->pipeline.pol, ps, lead, now, &why, NULL);
		log_message(LOGL_WARNING, key, "held back, not answered: %s (%s)",
			    policy_reason_name(why), who->why ? who->why : "too large to keep");
		rc = daemon_record_skipped(j, key, patch_kind_name(lead->kind),
					   policy_reason_name(why), e);
		goto out;
	}
	policy_rate_check_patch(d->pipeline.pol, ps, lead, now, &why, &at);
	fdump = findings_text(&rec->f);
	h = (struct store_held){ key, rec->told_to, now, raw.data, raw.len, fdump };
	/* Recorded first: a patch another daemon on the state recorded since
	 * this one looked (both decided it) is that one's, not held here too. */
	rc = record_held(d, j, "held", &added, e);
	if (rc == 0 && !added)
		log_message(LOGL_DEBUG, key, "decided meanwhile by another daemon: not held");
	if (rc == 0 && added)
		rc = store_held_add(d->st, &h, at > now ? at : now + 1, e);
	if (rc == 0 && added) {
		daemon_note(j, key, STORE_SKIPPED, policy_reason_name(why));	/* replay: "held: why" */
		log_message(LOGL_WARNING, key, "reply held back: %s; it goes to %s with any other "
			    "held for that address in %ld s", policy_reason_name(why), who->to.email,
			    (long)(at > now ? at - now : 1));
	}
out:
	buf_release(&raw);
	free(fdump);
	return rc;
}

static void held_member_add(void *ctx, const struct store_held *h)
{
	struct members *ms = ctx;
	struct store_series_member m = { h->msgid, (int)ms->n + 1, h->time, h->raw, h->len,
					 h->findings };

	member_add(ctx, &m);
}

/* Builds the folded reply g of the held patches ms of a recipient (g->id)
 * from the first one's list settings; sends it when the limits have room,
 * else holds on (g->full as note_full() says). */
static int held_build(struct daemon *d, struct grouped *g, const struct members *ms,
		      struct err *e)
{
	const char *rcpt = g->id;
	time_t at, now = g->now;
	enum policy_reason why;
	struct err pe;
	int rc;

	if (grouped_open(d, g, &ms->v[0], ms, &pe) < 0) {
		log_message(LOGL_WARNING, ms->v[0].msgid, "held replies for %s: %s", rcpt, pe.msg);
		rc = store_held_drop(d->st, rcpt, e);
		goto out;
	}
	if (reply_build_series(&g->r,
			       &(struct reply_series){ .lead = &g->p[0], .parts = g->fl.parts,
						       .n = g->fl.n, .total = REPLY_HELD },
			       &g->rs, now, &pe) < 0) {
		log_message(LOGL_WARNING, ms->v[0].msgid, "held replies for %s: no reply: %s", rcpt,
			    pe.msg);
		rc = store_held_drop(d->st, rcpt, e);
		goto out;
	}
	if (policy_rate_check_patch(d->pipeline.pol, &g->ps, &g->p[0], now, &why, &at) == POLICY_HOLD) {
		log_message(LOGL_INFO, ms->v[0].msgid, "held replies for %s: still %s (tried again "
			    "in %ld s)", rcpt, policy_reason_name(why), (long)(at - now));
		note_full(why, at, now, g->full);
		rc = store_held_set_deadline(d->st, rcpt, at > now ? at : now + 1, e);
		goto out;
	}
	rc = queue_group(d, g, e);
out:
	grouped_release(g);
	return rc;
}

/* The held patches of rcpt, folded into one reply when the limits have
 * room. */
static int held_flush(struct daemon *d, const char *rcpt, time_t now, time_t *full,
		      struct err *e)
{
	struct members ms = { 0 };
	int rc = store_held_members(d->st, rcpt, held_member_add, &ms, e);

	if (rc == 0 && ms.n) {
		struct grouped g = { .kind = &held_group, .id = rcpt, .total = (int)ms.n, .now = now,
				     .full = full };

		rc = held_build(d, &g, &ms, e);
	}
	members_release(&ms);
	return rc;
}

/*
 * The replies that are due -- the patches a limit held for one recipient,
 * a series whose wait ran out or that a limit held -- go out one person a
 * turn, round robin: whoever was answered longest ago (or not in the
 * rate windows' hour) first, then whoever waits longest.  So a flood from
 * many addresses, each of which was answered just now or waits with many
 * series, cannot push one author's reply back by more than one round: a
 * person served goes behind everyone waiting.  Once the global limit holds
 * one, the rest wait (postponed) till it has room.
 */
struct turn {
	char *who;		/* owned: a held recipient, or a series' sender */
	time_t last;		/* policy_last_reply(who) */
	time_t since;		/* the oldest of its replies waits since */
	bool series;
};

struct turns {
	struct turn *v;		/* owned */
	size_t n, alloc;
	struct daemon *d;	/* foreign */
	time_t now;
	bool series;		/* what turn_add() adds */
};

static void turn_add(void *ctx, const struct store_waiting *w)
{
	struct turns *ts = ctx;
	struct turn *t;

	ARRAY_GROW(ts->v, ts->alloc, ts->n + 1);
	t = &ts->v[ts->n++];
	t->who = xstrdup(w->who);
	t->last = policy_last_reply(ts->d->pipeline.pol, w->who, ts->now);
	t->since = w->since;
	t->series = ts->series;
}

static int turn_cmp(const void *pa, const void *pb)
{
	const struct turn *a = pa, *b = pb;

	if (a->last != b->last)
		return a->last < b->last ? -1 : 1;
	if (a->since != b->since)
		return a->since < b->since ? -1 : 1;
	if (a->series != b->series)
		return a->series ? 1 : -1;
	return strcmp(a->who, b->who);
}

/* Whether who had its turn in this round already (its other kind of
 * reply waits for the next, behind the others). */
static bool served(const struct turns *ts, size_t upto, const char *who)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(ts->v[i].who, who))
			return true;
	return false;
}

static int turn_flush(struct daemon *d, const struct turn *t, time_t now, time_t *full,
		      struct err *e)
{
	char *id;
	int rc;

	if (!t->series)
		return held_flush(d, t->who, now, full, e);
	if (store_series_next_due_of(d->st, now, t->who, &id, e) < 0)
		return -1;
	rc = id ? flush_one(d, id, now, full, e) : 0;
	free(id);
	return rc;
}

/* One turn in a transaction of its own: its rate check and the note of
 * the reply it let through are one step for another daemon on the state
 * (store.h's rate windows). */
static int turn_take(struct daemon *d, const struct turn *t, time_t now, time_t *full,
		     struct err *e)
{
	if (store_begin(d->st, e) < 0)
		return -1;
	if (turn_flush(d, t, now, full, e) < 0) {
		store_rollback(d->st);
		return -1;
	}
	return store_commit(d->st, e);
}

static int turns_flush(struct daemon *d, time_t now, struct err *e)
{
	struct turns ts = { .d = d, .now = now };
	time_t full = 0;
	size_t taken = 0;
	int rc;

	rc = store_held_waiting(d->st, now, TURNS_SCAN_MAX, turn_add, &ts, e);
	ts.series = true;
	if (rc == 0)
		rc = store_series_waiting(d->st, now, TURNS_SCAN_MAX, turn_add, &ts, e);
	if (rc == 0 && ts.n > 1)
		qsort(ts.v, ts.n, sizeof(*ts.v), turn_cmp);
	for (size_t i = 0; rc == 0 && i < ts.n && taken < SERIES_FLUSH_MAX && !full; i++) {
		if (served(&ts, i, ts.v[i].who))
			continue;
		rc = turn_take(d, &ts.v[i], now, &full, e);
		taken++;
	}
	if (rc == 0 && full)
		rc = store_held_postpone(d->st, now, full, e);
	if (rc == 0 && full)
		rc = store_series_postpone(d->st, now, full, e);
	for (size_t i = 0; i < ts.n; i++)
		free(ts.v[i].who);
	free(ts.v);
	return rc;
}

int daemon_series_flush(struct daemon *d, time_t now, struct err *e)
{
	daemon_context_prune(d, now);
	return turns_flush(d, now, e);
}

int daemon_series_wait(struct daemon *d, time_t now, int max)
{
	time_t when;
	struct err e;
	bool found;

	time_t held;
	bool have_held;

	if (store_series_next_time(d->st, &when, &found, &e) < 0 ||
	    store_held_next_time(d->st, &held, &have_held, &e) < 0)
		return max;
	if (have_held && (!found || held < when)) {
		when = held;
		found = true;
	}
	if (!found || when - now >= max)
		return max;
	return when - now < 1 ? 1 : (int)(when - now);
}
