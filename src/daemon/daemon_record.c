/*
 * daemon_record.c - what a decision leaves behind: the message's row, a
 * reply queued with it (its outbox row and envelope, printed in a dry
 * run), the decision hook replay reads, and what a person was told.  The
 * pipeline (daemon_msg.c), Cc mode (daemon_cc.c) and the grouped replies
 * (daemon_series.c) record through these, so none of them calls back
 * into another.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "daemon/daemon_p.h"
#include "lib/ascii.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "mail/context.h"
#include "reply/recipients.h"
#include "rules/rules.h"

/* m's origin, j's (NULL: a message other than the one handled, a Cc-mode
 * lead found elsewhere: the batch's source), and step c's time. */
static void fill_origin(const struct jobctx *c, const struct job *j, struct store_message *m)
{
	const struct source *s = j ? j->src : c->b->src;

	m->source = s->id;
	m->folder = s->f->name;
	m->uid = j ? j->o.uid : 0;
	m->time = c->now;
}

void daemon_hook(struct daemon *d, const struct job *j, struct daemon_decision *dd)
{
	const struct decision *rec = j ? &j->rec : NULL;

	if (rec) {
		dd->f = rec->open ? &rec->f : NULL;
		dd->min = rec->built ? rec->la.pol->min_reply_severity : SEV_OFF;
	}
	if (d->recorder.on_decision)
		d->recorder.on_decision(d->recorder.arg, dd);
}

void daemon_note(const struct job *j, const char *key, enum store_decision dec, const char *why)
{
	struct daemon_decision dd = { key, dec, why, NULL, SEV_OFF, j->ctx->now };

	daemon_hook(j->ctx->d, j, &dd);
}

/* Records m (its key, kind and decision set) for j (NULL: another message)
 * in step c, and tells the hook. */
static int record(struct daemon *d, const struct job *j, const struct jobctx *c,
		  struct store_message *m, struct err *e)
{
	struct daemon_decision dd = { m->msgid, m->decision, m->why, NULL, SEV_OFF, c->now };

	daemon_hook(d, j, &dd);
	fill_origin(c, j, m);
	return store_record_message(d->st, m, NULL, e);
}

int daemon_record(const struct job *j, const char *key, const char *kind,
		  enum store_decision dec, struct err *e)
{
	struct store_message m = { .msgid = key, .kind = kind, .decision = dec };

	return record(j->ctx->d, j, j->ctx, &m, e);
}

int daemon_record_skipped(const struct job *j, const char *key, const char *kind,
			  const char *why, struct err *e)
{
	struct store_message m = { .msgid = key, .kind = kind, .decision = STORE_SKIPPED,
				   .why = why };

	return record(j->ctx->d, j, j->ctx, &m, e);
}

int daemon_record_other(const struct jobctx *c, const char *key, const char *kind,
			const char *why, struct err *e)
{
	struct store_message m = { .msgid = key, .kind = kind, .decision = STORE_SKIPPED,
				   .why = why };

	return record(c->d, NULL, c, &m, e);
}

/* mboxrd: what a dry run prints, so it can be read back (tagbot check -). */
static void print_reply(const struct daemon *d, const struct reply *r, time_t now)
{
	FILE *f = d->o->out ? d->o->out : stdout;
	char date[64];
	const char *p = r->raw, *end = r->raw + r->len;

	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", gmtime(&now));
	fprintf(f, "From %s %s\n", r->envelope_from, date);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *q = p;

		while (q < p + n && *q == '>')
			q++;
		if ((size_t)(p + n - q) >= 5 && !strncmp(q, "From ", 5))
			fputc('>', f);
		fwrite(p, 1, n && p[n - 1] == '\r' ? n - 1 : n, f);
		fputc('\n', f);
		p += n + (nl != NULL);
	}
	fputc('\n', f);
	fflush(f);
}

/* A reply went into the outbox: a dry run prints it, the hook sees it. */
void daemon_reply_queued(struct daemon *d, const char *parent, const struct reply *r,
			 time_t now)
{
	if (d->dry) {
		print_reply(d, r, now);
		d->recorder.printed++;
	}
	if (d->recorder.on_reply)
		d->recorder.on_reply(d->recorder.arg, parent, r);
}

/* The envelope: the reply's recipients, plus the bot's own mailbox. */
static void envelope(const struct daemon *d, const struct reply *r, const char **rcpt,
		     size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < r->nrcpt && *n < REPLY_MAX_RCPT; i++)
		rcpt[(*n)++] = r->rcpt[i];
	if (!d->sink.copy_to)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcasecmp(rcpt[i], d->sink.copy_to))
			return;
	rcpt[(*n)++] = d->sink.copy_to;
}

void daemon_outgoing(const struct daemon *d, const struct reply *r, const char *parent,
		     const char **rcpt, struct store_outgoing *out)
{
	memset(out, 0, sizeof(*out));
	out->reply_msgid = r->msgid;
	out->parent_msgid = parent;
	out->envelope_from = r->envelope_from;
	envelope(d, r, rcpt, &out->nrcpt);
	out->rcpt = rcpt;
	out->raw = r->raw;
	out->len = r->len;
}

void daemon_log_queued(const struct reply *r, const struct patch *p, const struct findings *f)
{
	struct buf rules;

	buf_init(&rules, 4096);
	for (size_t i = 0; i < f->n; i++)
		if (!strstr(rules.data, f->v[i].rule))
			buf_printf(&rules, "%s%s", rules.len ? ", " : "", f->v[i].rule);
	log_message(LOGL_INFO, p->message_id, "reply <%s> queued for %s (%s)", r->msgid,
		    r->nrcpt ? r->rcpt[0] : "?", rules.data);
	buf_release(&rules);
}

int daemon_queue_row(struct daemon *d, struct queued_reply *q, struct err *e)
{
	const char *rcpt[REPLY_MAX_RCPT + 1];
	struct store_outgoing out;
	struct store_message m = { .msgid = q->key, .kind = q->kind, .decision = STORE_REPLIED,
				   .reply_msgid = q->r->msgid };

	fill_origin(q->j->ctx, q->j, &m);
	daemon_outgoing(d, q->r, q->key, rcpt, &out);
	out.not_before = q->not_before;
	return store_record_reply(d->st, &m, &out, q->j->ctx->now, &q->res, e);
}

void daemon_queue_noted(struct daemon *d, const struct queued_reply *q)
{
	bool queued = q->res == STORE_QUEUED;

	daemon_note(q->j, q->key, queued ? STORE_REPLIED : STORE_SKIPPED,
		    queued ? NULL : "already-replied");
	if (queued)
		daemon_reply_queued(d, q->key, q->r, q->j->ctx->now);
}

int daemon_queue_built(struct daemon *d, struct queued_reply *q, struct err *e)
{
	if (daemon_queue_row(d, q, e) < 0)
		return -1;
	daemon_queue_noted(d, q);
	return 0;
}

/* --- what a person was told ------------------------------------------------ */

/* A lower-case copy of s (the told table's keys compare that way). */
static char *lowered(const char *s)
{
	char *k = xstrdup(s);

	for (char *c = k; *c; c++)
		*c = (char)ascii_tolower((unsigned char)*c);
	return k;
}

/* Whom a reply goes to, lower case (the told table's key); NULL when
 * nobody. */
char *daemon_told_person(const struct recipients *who)
{
	return who->to.email[0] ? lowered(who->to.email) : NULL;
}

/*
 * Whether the person rec's reply goes to was told x (finding_key() key)
 * within repeat_after days, as of rec->now.  When so, the memory is
 * renewed: the person sent it again knowing it, so the days count
 * from their latest mail that has it, and a series resent every few
 * months is not told again when its first reply grows old.
 */
static bool was_told(struct daemon *d, const struct decision *rec, const struct finding *x,
		     const char *key)
{
	time_t span = (time_t)d->cfg.reply.repeat_after * 86400;
	const char *who = rec->told_to, *msgid = rec->lead->message_id;
	struct store_told k = { who, x->rule, key };
	time_t t, now = rec->now;
	bool found;
	struct err e;

	if (store_told_get(d->st, &k, &t, &found, &e) < 0) {
		log_message(LOGL_WARNING, msgid, "%s", e.msg);
		return false;
	}
	if (!found || now - t >= span)
		return false;
	log_message(LOGL_DEBUG, msgid, "%s: told to %s %ld days ago, not again", x->rule, who,
		    (long)((now - t) / 86400));
	if (now > t && store_told_set(d->st, &k, now, &e) < 0)
		log_message(LOGL_WARNING, msgid, "%s", e.msg);
	return true;
}

/* The b4 change-id (its slug) of the work p belongs to; NULL when none. */
static char *work_of(const struct patch *p)
{
	if (p->change_id && *p->change_id)
		return context_change_slug_footer(p->change_id);
	return p->message_id ? context_change_slug_msgid(p->message_id) : NULL;
}

/*
 * The told table's second key of x within one work (a b4 change-id, kept
 * across the versions of a series): what x said (finding_said_key()),
 * after " said ", the work and ": "; a finding_key() never starts with a
 * space.  NULL without a work, for a finding without a quoted line (its
 * key is already what it says) or one told per person.  So a later
 * version that repeats a mistake on a line differing in a word the
 * finding does not name ("Assisted-by: Claude Sonnet 4.6", then "...
 * Claude Opus 4.6" on new patches) is not told it again; another work's
 * line is still its own finding.
 */
static char *said_key(const struct finding *x, const char *work)
{
	char *said;
	struct buf b;

	if (!work || !x->text || !*x->text || rule_told_per_person(x->rule))
		return NULL;
	said = finding_said_key(x);
	buf_init(&b, 0);
	buf_printf(&b, " said %s: %s", work, said);
	free(said);
	return buf_detach(&b, NULL);
}

void daemon_told_filter(struct daemon *d, struct decision *rec)
{
	time_t span = (time_t)d->cfg.reply.repeat_after * 86400;
	const struct patch *to = rec->lead;
	const char *who = rec->told_to;
	struct findings *f = &rec->f;
	char *work;
	struct err e;

	if (!d->st || !span)
		return;
	work = work_of(to);
	for (size_t i = 0; i < f->n; i++) {
		struct finding *x = &f->v[i];
		char *key, *said;

		if (x->severity == SEV_OFF)
			continue;
		if (!who)
			break;
		key = finding_key(x);
		said = said_key(x, work);
		if (was_told(d, rec, x, key)) {
			x->severity = SEV_OFF;
		} else if (said && was_told(d, rec, x, said)) {
			/* the lesson was told: this line is known from now on */
			x->severity = SEV_OFF;
			struct store_told k = { who, x->rule, key };

			if (store_told_set(d->st, &k, rec->now, &e) < 0)
				log_message(LOGL_WARNING, to->message_id, "%s", e.msg);
		}
		free(said);
		free(key);
	}
	free(work);
}

void daemon_told_note(struct daemon *d, const struct told *t, const struct findings *f,
		      enum severity min)
{
	const struct patch *to = t->to;
	const char *who = t->who;
	char *work;
	struct err e;

	if (!d->st || !d->cfg.reply.repeat_after)
		return;
	work = work_of(to);
	for (size_t i = 0; i < f->n; i++) {
		const struct finding *x = &f->v[i];
		struct store_told k = { who, x->rule, NULL };
		char *key, *said;
		int rc;

		if (x->severity == SEV_OFF || x->severity < min)
			continue;
		if (!who)
			break;
		k.what = key = finding_key(x);
		said = said_key(x, work);
		rc = store_told_set(d->st, &k, t->now, &e);
		if (rc == 0 && said) {
			k.what = said;
			rc = store_told_set(d->st, &k, t->now, &e);
		}
		if (rc < 0)
			log_message(LOGL_WARNING, to->message_id, "%s", e.msg);
		free(said);
		free(key);
	}
	free(work);
}

void daemon_log_budgets(const char *key, const struct findings *f)
{
	char why[512];

	for (size_t i = 0; i < f->nbudgets; i++)
		if (rule_budget_describe(&f->budgets[i], why, sizeof(why)))
			log_message(LOGL_WARNING, key, "%s", why);
}
