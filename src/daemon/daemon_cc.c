/*
 * daemon_cc.c - maintainer Cc mode in the daemon.
 *
 * A mail that reaches the bot directly (its address in To/Cc) and is not
 * itself a patch is a request.  The bot finds the patch it answers (by
 * In-Reply-To, then References, nearest first: in the watched IMAP folder
 * or the Maildir source, then the archive when [lookup] is on), checks it
 * and answers the request's sender in that thread, Cc the author, also when
 * the patch is clean.  Commands
 * (ccmode.h) are taken only from [reply] maintainers, and only when the
 * mail is authenticated for its From domain by the admin's receiving
 * server ([reply] trusted_authserv_id, authres.h): From: alone is forged
 * at will.  A mail with commands from anyone else, or not authenticated,
 * gets nothing.  "quiet" marks the thread: no reply in it from then on, in
 * any mode (the normal path asks daemon_cc_handle too).
 *
 * Never a loop: a request from the bot itself, with Auto-Submitted, with
 * X-Patchwork-Hint: ignore or from ignore_senders is recorded and left.
 * At most one reply per request: the outbox parent is the request's key.
 * A patch that cannot be found is logged, never a finding.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail/authres.h"
#include "reply/ccmode.h"
#include "daemon/daemon_p.h"
#include "config/listpolicy.h"
#include "lib/log.h"
#include "transport/lookup.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "mail/msgid.h"

#define CC_DECISION_MAX		128

/* The patch a request answers, once found. */
struct parent {
	struct buf raw;
	struct message msg;
	struct patch *p;	/* owned; np parts */
	size_t np;
	const struct patch *lead; /* the part checked and named in the reply */
	const char *id;		/* foreign (the request); the Message-ID that found it */
	const char *where;	/* "imap folder", "maildir", "archive" */
};

static void parent_init(struct parent *pa)
{
	memset(pa, 0, sizeof(*pa));
	buf_init(&pa->raw, MESSAGE_MAX_SIZE);
	message_init(&pa->msg);
}

static void parent_clear(struct parent *pa)
{
	if (pa->p)
		patches_free(pa->p, pa->np);
	pa->p = NULL;
	pa->np = 0;
	pa->lead = NULL;
	message_release(&pa->msg);
	message_init(&pa->msg);
}

static void parent_release(struct parent *pa)
{
	parent_clear(pa);
	buf_release(&pa->raw);
}

/* Whether the store can key a message by s. */
static bool key_ok(const char *s)
{
	char *k = s ? msgid_key(s) : NULL;

	free(k);
	return k != NULL;
}

static bool same_id(const char *a, const char *b)
{
	char *ka = a ? msgid_key(a) : NULL, *kb = b ? msgid_key(b) : NULL;
	bool same = ka && kb && !strcmp(ka, kb);

	free(ka);
	free(kb);
	return same;
}

/* ------------------------------------------------------ finding the patch */

/* The archive's copy, when [lookup] is on; it must be the mail asked for. */
static void archive_find(struct daemon *d, const char *id, struct buf *out, bool *found)
{
	struct err e;
	size_t off = 0;
	char *mid;

	if (lookup_message_raw(d->pipeline.lk, id, out, found, &e) < 0) {
		log_message(LOGL_WARNING, id, "looking it up in the archive: %s", e.msg);
		return;
	}
	if (!*found)
		return;
	if (out->len > 5 && !memcmp(out->data, "From ", 5)) {
		const char *nl = memchr(out->data, '\n', out->len);

		off = nl ? (size_t)(nl - out->data) + 1 : out->len;	/* the mbox line */
	}
	mid = msgid_from_raw(out->data + off, out->len - off);
	*found = mid && same_id(mid, id);
	if (!*found)
		log_message(LOGL_WARNING, id, "the archive answered with another message");
	free(mid);
}

/* The raw mail of id: the watched folders and Maildir sources, in the
 * order of the sources, then the archive.  A failure is logged and is "not
 * found", never a finding. */
static void fetch_raw(struct daemon *d, const char *id, struct buf *out, bool *found,
		      const char **where)
{
	*found = false;
	for (size_t i = 0; i < d->sources.n && !*found; i++) {
		struct source *s = d->sources.v[i];

		if (s->ops->find_msgid && s->ops->connected(s)) {
			*where = s->ops->place;
			s->ops->find_msgid(s, id, out, found);
		}
	}
	if (!*found && d->pipeline.lk) {
		*where = "archive";
		archive_find(d, id, out, found);
	}
}

static const struct patch *checked_part(const struct patch *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].kind == KIND_PATCH || p[i].kind == KIND_COVER)
			return &p[i];
	return NULL;
}

/* Tries the request's parents nearest first; the first patch or cover
 * letter wins (a reply to a review is a reply to the patch above it). */
static bool find_parent(struct daemon *d, const struct patch *rq, struct parent *pa)
{
	const char *ids[CC_MAX_PARENTS];
	size_t n = ccmode_parent_ids(rq, ids, CC_MAX_PARENTS);

	for (size_t i = 0; i < n; i++) {
		struct err e;
		bool found;

		fetch_raw(d, ids[i], &pa->raw, &found, &pa->where);
		if (!found)
			continue;
		if (message_parse(&pa->msg, pa->raw.data, pa->raw.len, &e) < 0) {
			log_message(LOGL_WARNING, ids[i], "cannot parse it: %s", e.msg);
			continue;
		}
		patch_parse(&pa->msg, &pa->p, &pa->np);
		if ((pa->lead = checked_part(pa->p, pa->np))) {
			pa->id = ids[i];
			return true;
		}
		parent_clear(pa);
	}
	return false;
}

/* ---------------------------------------------------------------- state */

static int thread_quiet(struct daemon *d, const char *root, bool *quiet, struct err *e)
{
	*quiet = false;
	if (!d->st || !root || !*root || !key_ok(root))
		return 0;
	return store_thread_quiet_get(d->st, root, quiet, e);
}

/* The bot answered the patch before: by the normal path, or a request. */
static int answered_before(struct daemon *d, const char *id, bool *yes, struct err *e)
{
	char dec[CC_DECISION_MAX];
	bool found;

	*yes = false;
	if (!d->st || !key_ok(id))
		return 0;
	if (store_message_decision(d->st, id, dec, sizeof(dec), &found, e) < 0)
		return -1;
	*yes = found && (!strcmp(dec, "replied") || !strcmp(dec, "skipped:cc-checked"));
	return 0;
}

/* So the patch, arriving later through the list, is not answered twice
 * (recorded in step c, that of the request's job). */
static int note_parent(const struct jobctx *c, const struct parent *pa, struct err *e)
{
	struct daemon *d = c->d;
	bool known;

	if (!key_ok(pa->lead->message_id))
		return 0;
	if (store_seen(d->st, pa->lead->message_id, &known, e) < 0)
		return -1;
	if (known)
		return 0;
	return daemon_record_other(c, pa->lead->message_id, patch_kind_name(pa->lead->kind),
				   "cc-checked", e);
}

/* -------------------------------------------------------------- answers */

static void check_parent(struct daemon *d, const struct parent *pa,
			 const struct rule_settings *rules, struct findings *f)
{
	struct lookup_results res;

	lookup_results_init(&res);
	/* What the cache knows; a request never waits for a transfer. */
	if (d->pipeline.lk)
		lookup_cached(d->pipeline.lk, pa->p, pa->np, &d->cfg.rules.archives, &res);
	for (size_t i = 0; i < pa->np; i++)
		if (pa->p[i].kind == KIND_PATCH || pa->p[i].kind == KIND_COVER)
			rules_run_lookups(&pa->p[i], rules, &res, f);
	daemon_log_budgets(pa->lead->message_id, f);
	lookup_results_release(&res);
}

struct answer {
	struct reply_cc c;
	struct reply_explain ex[REPLY_MAX_EXPLAIN];
	struct findings f;
	struct parent pa;
	struct list_apply la;	/* the request's list: severities, to, min severity */
	bool checked;
	const char *why;	/* nothing to say about the patch (and so, without
				 * explain answers, no reply): the skip's reason */
};

static void log_answer(const char *key, const struct reply *r, const struct answer *a)
{
	log_message(LOGL_INFO, key, "Cc-mode reply <%s> queued for %s (%s, %zu explained)",
		    r->msgid, r->nrcpt ? r->rcpt[0] : "?",
		    !a->checked ? "not checked" : r->nfindings ? "findings" : "clean",
		    a->c.nexplain);
}

static int queue_answer(struct daemon *d, const struct job *j, const char *key,
			struct answer *a, struct err *e)
{
	const char *to = a->c.request->sender.email, *kind = patch_kind_name(a->c.request->kind);
	enum policy_reason why;
	struct queued_reply q;
	struct reply r;
	struct err re;
	time_t now = j->ctx->now, at = 0;
	int rc;

	/* The answer goes to the request's sender: the limits count it there,
	 * as a patch's reply counts for its author.  Over a limit it is held,
	 * not dropped: queued to be sent once the limit has room, its slot
	 * counted at that time. */
	if (policy_rate_check(d->pipeline.pol, &a->la.ps, to, now, &why, &at) == POLICY_HOLD)
		log_message(LOGL_WARNING, key, "Cc mode: reply held back: %s (to %s; sent in %ld s)",
			    policy_reason_name(why), to ? to : "?", (long)(at - now));
	else
		at = 0;
	if (reply_build_cc(&r, &a->c, &a->la.rs, now, &re) < 0) {
		log_message(LOGL_WARNING, key, "no Cc-mode reply: %s", re.msg);
		reply_release(&r);
		return daemon_record_skipped(j, key, kind, "no-reply", e);
	}
	q = (struct queued_reply){ j, key, kind, &r, at, STORE_QUEUED };
	rc = daemon_queue_built(d, &q, e);
	if (rc == 0 && q.res == STORE_QUEUED) {
		policy_note_reply_to(d->pipeline.pol, to, at ? at : now);	/* as a patch's reply */
		log_answer(key, &r, a);
		if (a->checked)
			rc = note_parent(j->ctx, &a->pa, e);
	}
	reply_release(&r);
	return rc;
}

static void add_explains(struct daemon *d, const struct cc_commands *cmds, struct answer *a)
{
	for (size_t i = 0; i < cmds->n && a->c.nexplain < REPLY_MAX_EXPLAIN; i++)
		if (cmds->v[i].kind == CC_EXPLAIN)
			ccmode_explain(cmds->v[i].arg, &a->la.rules, &a->ex[a->c.nexplain++]);
}

/* Whether the request's In-Reply-To is the patch found. */
static bool answers_patch(const struct patch *rq, const struct parent *pa)
{
	char *a, *b;
	bool same;

	if (!rq->in_reply_to || !pa->id)
		return false;
	a = msgid_key(rq->in_reply_to);
	b = msgid_key(pa->id);
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* Finds and checks the patch of a's request, or sets a->why. */
static int check_request(struct daemon *d, const char *key, struct answer *a, bool recheck,
			 struct err *e)
{
	const struct patch *rq = a->c.request;
	bool before;

	if (!find_parent(d, rq, &a->pa)) {
		log_message(LOGL_WARNING, key, "Cc mode: the patch it answers (<%s>) was not found",
			    rq->in_reply_to && *rq->in_reply_to ? rq->in_reply_to : "none");
		a->why = "cc-no-parent";
		a->c.note = "The patch this mail answers was not found, so it was not checked.";
		return 0;
	}
	/* A request answering the patch itself is answered, even when the bot
	 * answered the patch before (through the list); one deeper in the
	 * thread (people keep the bot in Cc when they reply to all) only when
	 * the patch was not answered yet, or with recheck. */
	if (!recheck && !answers_patch(rq, &a->pa)) {
		if (answered_before(d, a->pa.lead->message_id, &before, e) < 0)
			return -1;
		if (before) {
			log_message(LOGL_INFO, key, "Cc mode: <%s> was answered before (\"tagbot: "
				    "recheck\" asks again)", a->pa.lead->message_id);
			a->why = "cc-answered-before";
			return 0;
		}
	}
	check_parent(d, &a->pa, &a->la.rules, &a->f);
	a->c.patch = a->pa.lead;
	a->c.findings = &a->f;
	a->checked = true;
	log_message(LOGL_DEBUG, key, "Cc mode: checked <%s> from the %s (%zu findings)",
		    a->pa.lead->message_id, a->pa.where, a->f.n);
	return 0;
}

/* Answers j's request (its first part) with cmds. */
static int answer(struct daemon *d, const struct job *j, const struct cc_commands *cmds,
		  struct err *e)
{
	const struct patch *rq = &j->p[0];
	const char *key = j->key;
	struct answer a;
	int rc = 0;

	memset(&a, 0, sizeof(a));
	findings_init(&a.f);
	parent_init(&a.pa);
	a.c.request = rq;
	a.c.explain = a.ex;
	list_apply(&a.la, &d->cfg, rq->msg, &d->pipeline.rs, &d->pipeline.ps);
	add_explains(d, cmds, &a);
	/* explain alone asks about a rule, not about the patch. */
	if (cmds->recheck || !a.c.nexplain)
		rc = check_request(d, key, &a, cmds->recheck, e);
	if (rc == 0 && a.why && !a.c.nexplain)
		rc = daemon_record_skipped(j, key, patch_kind_name(rq->kind), a.why, e);
	else if (rc == 0)
		rc = queue_answer(d, j, key, &a, e);
	findings_release(&a.f);
	parent_release(&a.pa);
	return rc;
}

/* ------------------------------------------------------------- requests */

/* The policy's reasons not to answer a mail at all (the bot's own, an
 * auto-reply, another bot): NULL when none applies. */
static const char *loop_reason(const struct daemon *d, const struct patch *rq, time_t now)
{
	struct policy_decision dec;

	policy_decide(NULL, &d->pipeline.ps, rq, NULL, now, &dec);
	switch (dec.reason) {
	case REASON_REPLY:
	case REASON_PULL:
	case REASON_NOT_A_PATCH:
	case REASON_RFC:	/* a maintainer asking about an RFC is answered */
		return NULL;
	default:
		return policy_reason_name(dec.reason);
	}
}

static bool is_maintainer(const struct daemon *d, const char *addr)
{
	const struct config_list *m = &d->cfg.reply.maintainers;

	return ccmode_is_maintainer((const char *const *)m->v, m->n, addr);
}

/*
 * Whether rq, from a maintainer's address, is authenticated for its From
 * domain by the topmost Authentication-Results of the trusted server.
 *
 * Every command needs it, not just some: quiet silences a thread for
 * everyone and recheck answers again past the answered-before guard, so
 * both change what the bot does in a thread; explain only answers the
 * From address, but one rule ("commands: an authenticated maintainer") is
 * the one an admin can check, and a maintainer whose server signs loses
 * nothing by it.  A plain request (no command) needs none of this: anyone
 * may ask for a check, and the answer goes to the From address, counted
 * there by the rate limits as any reply is.
 *
 * The From domain is that of rq->sender (patch.c's reading of From:);
 * authres_from_authenticated() takes it as an argument so that a stricter
 * reading of the raw header can be put in its place.
 */
static bool authenticated(struct daemon *d, const char *key, const struct patch *rq)
{
	const char *id = d->cfg.reply.trusted_authserv_id, *from = rq->sender.email;
	const char *at = from ? strrchr(from, '@') : NULL, *domain = at ? at + 1 : NULL;
	enum authres_verdict v = authres_from_authenticated(rq->msg, id, domain);

	if (authres_is_pass(v)) {
		log_message(LOGL_DEBUG, key, "Cc mode: commands from %s authenticated: %s from %s",
			    from, authres_verdict_name(v), id);
		return true;
	}
	if (v == AUTHRES_NO_TRUSTED_ID && !d->pipeline.warned_no_authserv) {
		/* Once a run: every command is refused for the same reason. */
		d->pipeline.warned_no_authserv = true;
		log_msg(LOGL_WARNING, "Cc mode: [reply] trusted_authserv_id is not set: commands "
			"are refused, also from maintainers (set it to the authserv-id of the "
			"receiving server's Authentication-Results)");
	}
	log_message(v == AUTHRES_NO_TRUSTED_ID ? LOGL_DEBUG : LOGL_WARNING, key,
		    "Cc mode: commands from %s not authenticated: no Authentication-Results from "
		    "%s with dkim=pass for %s (%s)", from ? from : "?", id ? id : "(none)",
		    domain && *domain ? domain : "?", authres_verdict_name(v));
	return false;
}

/* A list with enabled = no: checked and recorded, never answered. */
static bool list_enabled(const struct daemon *d, const struct patch *rq)
{
	struct list_apply la;

	list_apply(&la, &d->cfg, rq->msg, &d->pipeline.rs, &d->pipeline.ps);
	return la.pol->enabled;
}

/* j's first part is a request to the bot. */
static int request(struct daemon *d, const struct job *j, struct err *e)
{
	const struct patch *rq = &j->p[0];
	const char *key = j->key;
	const char *kind = patch_kind_name(rq->kind), *why = loop_reason(d, rq, j->ctx->now);
	const char *root = ccmode_thread_root(rq);
	struct cc_commands cmds;
	bool quiet;

	if (why) {
		log_message(LOGL_DEBUG, key, "Cc mode: skipped: %s", why);
		return daemon_record_skipped(j, key, kind, why, e);
	}
	ccmode_parse_commands(rq->msg ? rq->msg->text : NULL, rq->msg ? rq->msg->text_len : 0,
			      &cmds);
	if (!list_enabled(d, rq)) {
		log_message(LOGL_DEBUG, key, "Cc mode: skipped: its list has enabled = no");
		return daemon_record_skipped(j, key, kind, LIST_DISABLED_REASON, e);
	}
	if (cmds.n && !is_maintainer(d, rq->sender.email)) {
		log_message(LOGL_WARNING, key, "Cc mode: commands from %s ignored: not in [reply] "
			    "maintainers", rq->sender.email ? rq->sender.email : "?");
		return daemon_record_skipped(j, key, kind, "cc-not-maintainer", e);
	}
	if (cmds.n && !authenticated(d, key, rq))
		return daemon_record_skipped(j, key, kind, "cc-not-authenticated", e);
	if (thread_quiet(d, root, &quiet, e) < 0)
		return -1;
	if (quiet) {
		log_message(LOGL_INFO, key, "Cc mode: thread <%s> is quiet: not answered", root);
		return daemon_record_skipped(j, key, kind, "quiet", e);
	}
	if (cmds.quiet) {
		if (key_ok(root) &&
		    store_thread_quiet_set(d->st, root, j->ctx->now, e) < 0)
			return -1;
		log_message(LOGL_INFO, key, "Cc mode: %s quieted thread <%s>", rq->sender.email, root);
		return daemon_record_skipped(j, key, kind, "cc-quiet", e);
	}
	return answer(d, j, &cmds, e);
}

/* A patch in a thread a maintainer quieted is recorded, not answered. */
static int quiet_gate(struct daemon *d, const struct job *j, bool *done, struct err *e)
{
	const struct patch *lead = checked_part(j->p, j->np);
	const char *key = j->key;
	const char *root;
	bool quiet;

	if (!lead)
		return 0;
	root = ccmode_thread_root(lead);
	if (thread_quiet(d, root, &quiet, e) < 0)
		return -1;
	if (!quiet)
		return 0;
	*done = true;
	log_message(LOGL_INFO, key, "thread <%s> is quiet: not answered", root);
	return daemon_record_skipped(j, key, patch_kind_name(lead->kind), "quiet", e);
}

int daemon_cc_handle(struct daemon *d, const struct job *j, bool *done, struct err *e)
{
	*done = false;
	if (!j->np)
		return 0;
	if (!ccmode_is_request(&j->p[0], &d->pipeline.ps))
		return quiet_gate(d, j, done, e);
	*done = true;
	return request(d, j, e);
}
