/*
 * daemon_msg.c - one fetched message through the daemon: the quick
 * "seen?" test on the raw Message-ID, parse, check, the policy's decision,
 * the reply queued or the decision recorded; and the batches (one
 * transaction per batch, a savepoint per message) that make a message and
 * its checkpoint durable together.  The guarantee these keep is written at
 * the top of daemon.c.
 */
#include "autoconf.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail/context.h"
#include "daemon/daemon_p.h"
#include "config/listpolicy.h"
#include "lib/log.h"
#include "mail/maildate.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "mail/msgid.h"


/* ----------------------------------------------------------- recording */


static void origin_text(const struct job *j, char *out, size_t n)
{
	if (j->o.name)
		snprintf(out, n, "file %s", j->o.name);
	else
		snprintf(out, n, "%s uid %" PRIu32, j->src->f->name, j->o.uid);
}

/* Whether the store can key a message by s. */
static bool key_usable(const char *s)
{
	char *k = s ? msgid_key(s) : NULL;

	free(k);
	return k != NULL;
}

static int seen(struct daemon *d, const char *key, bool *yes, struct err *e)
{
	*yes = false;
	if (!key_usable(key))
		return 0;	/* the caller uses another key */
	return store_seen(d->st, key, yes, e);
}

static bool checked(const struct patch *p)
{
	return p->kind == KIND_PATCH || p->kind == KIND_COVER;
}

static size_t count_checked(const struct decision *rec)
{
	size_t n = 0;

	for (size_t i = 0; i < rec->nparts; i++)
		n += checked(&rec->parts[i]);
	return n;
}

/*
 * A mail with several checked patches (attachments, a pasted mbox) is
 * answered patch by patch: each part's findings under its subject and
 * attachment name, since their line numbers are each part's own.
 */
static int build_parts_reply(struct reply *r, const struct decision *rec, time_t now,
			     struct err *e)
{
	struct reply_series_part *parts = xcalloc(rec->nparts, sizeof(*parts));
	struct findings *views = xcalloc(rec->nparts, sizeof(*views));
	char **titles = xcalloc(rec->nparts, sizeof(*titles));
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < rec->nparts; i++) {
		const struct patch *p = &rec->parts[i];
		struct buf t;

		if (!checked(p))
			continue;
		buf_init(&t, 0);
		buf_addstr(&t, p->subject_body);
		if (p->attachment && *p->attachment)
			buf_printf(&t, " (attachment %s)", p->attachment);
		titles[n] = buf_detach(&t, NULL);
		views[n].v = rec->f.v + rec->first[i];
		views[n].n = rec->first[i + 1] - rec->first[i];
		parts[n].index = (int)n + 1;
		parts[n].subject = titles[n];
		parts[n].findings = &views[n];
		n++;
	}
	rc = reply_build_series(r,
				&(struct reply_series){ .lead = rec->lead, .parts = parts, .n = n,
							.total = REPLY_PARTS },
				&rec->la.rs, now, e);
	for (size_t i = 0; i < n; i++)
		free(titles[i]);
	free(titles);
	free(views);
	free(parts);
	return rc;
}

static int queue_reply(struct daemon *d, const struct job *j, struct err *e)
{
	const struct decision *rec = &j->rec;
	const struct reply_settings *rs = &rec->la.rs;
	struct queued_reply q;
	struct reply r;
	struct err re;
	int rc = 0;

	reply_init(&r);
	if ((count_checked(rec) > 1 ? build_parts_reply(&r, rec, rec->now, &re) :
	     reply_build(&r, rec->lead, &rec->f, rs, rec->now, &re)) < 0) {
		log_message(LOGL_WARNING, rec->key, "no reply: %s", re.msg);
		reply_release(&r);
		return daemon_record_skipped(j, rec->key, rec->kind, "no-reply", e);
	}
	q = (struct queued_reply){ j, rec->key, rec->kind, &r, 0, STORE_QUEUED };
	rc = daemon_queue_row(d, &q, e);
	if (rc == 0 && q.res == STORE_QUEUED) {
		struct policy_settings ps = d->pipeline.ps;
		struct told t = { rec->lead, rec->told_to, rec->now };

		ps.rs = rs;	/* the keys of whom this reply mails */
		policy_note_reply(d->pipeline.pol, &ps, rec->lead, rec->now);
		daemon_told_note(d, &t, &rec->f, rs->min_severity);
		daemon_log_queued(&r, rec->lead, &rec->f);
	}
	if (rc == 0)
		daemon_queue_noted(d, &q);
	reply_release(&r);
	return rc;
}

/* The patch the reply is about: the first part that is checked. */
static const struct patch *lead_part(const struct patch *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].kind == KIND_PATCH || p[i].kind == KIND_COVER)
			return &p[i];
	return &p[0];
}

/*
 * Whether the mail's list, which is not enabled, withholds it: a reply or
 * held reply it would get; and a series part's copy that shows no list
 * whatever its verdict, since the series is answered from its list's
 * copies (daemon_series_awaits_list()).
 */
static bool withheld(struct daemon *d, const struct decision *rec)
{
	if (rec->la.pol->enabled)
		return false;
	if (rec->verdict.verdict == POLICY_REPLY || rec->verdict.verdict == POLICY_HOLD)
		return true;
	return !rec->la.id[0] && daemon_series_awaits_list(d, rec);
}

/*
 * j's decision record, built once: the mail's list and its settings, the
 * findings of every checked part (those told before off), whom a reply
 * goes to, the thread context and the policy's verdict.  The reply
 * settings carry the recipients, so the policy and the reply builder do
 * not find them again.
 */
static void build_record(struct daemon *d, struct job *j)
{
	struct decision *rec = &j->rec;
	time_t now = j->ctx->now;

	rec->now = now;
	rec->key = j->key;
	rec->lead = lead_part(j->p, j->np);
	rec->kind = patch_kind_name(rec->lead->kind);
	rec->parts = j->p;
	rec->nparts = j->np < PATCH_MAX_PARTS ? j->np : PATCH_MAX_PARTS;
	/* The mail's list ([list ID], [default]): severities, to, minimum. */
	list_apply(&rec->la, &d->cfg, rec->lead->msg, &d->pipeline.rs, &d->pipeline.ps);
	recipients_find(&rec->who, rec->lead, &rec->la.rs);
	rec->la.rs.who = &rec->who;
	rec->told_to = daemon_told_person(&rec->who);
	msg_context_init(&rec->ctx);
	context_from_patch(rec->lead->msg, rec->lead, now, &rec->ctx);
	findings_init(&rec->f);
	for (size_t i = 0; i < rec->nparts; i++) {
		rec->first[i] = rec->f.n;
		if (checked(&rec->parts[i]))
			rules_run_lookups(&rec->parts[i], &rec->la.rules, &j->res, &rec->f);
	}
	rec->first[rec->nparts] = rec->f.n;
	rec->built = true;
	daemon_log_budgets(rec->key, &rec->f);
	daemon_told_filter(d, rec);
	policy_decide(d->pipeline.pol, &rec->la.ps, rec->lead, &rec->f, now, &rec->verdict);
}

/* decide(): the message is recorded as skipped (why). */
static int skip(struct daemon *d, struct job *j, const char *why, struct err *e)
{
	return daemon_record_skipped(j, j->rec.key, j->rec.kind, why, e);
}

/* What the policy's verdict leaves: a reply, a clean row, a hold, a skip. */
static int carry_out(struct daemon *d, struct job *j, struct err *e)
{
	const struct decision *rec = &j->rec;
	const struct policy_decision *dec = &rec->verdict;

	switch (dec->verdict) {
	case POLICY_REPLY:
		return queue_reply(d, j, e);
	case POLICY_CLEAN:
		log_message(LOGL_DEBUG, rec->key, "clean");
		return daemon_record(j, rec->key, rec->kind, STORE_CLEAN, e);
	case POLICY_HOLD:
		/* kept until the limit has room */
		return daemon_hold_take(d, j, e);
	default:
		log_message(LOGL_DEBUG, rec->key, "skipped: %s%s%s", policy_reason_name(dec->reason),
			    dec->matched ? " " : "", dec->matched ? dec->matched : "");
		return skip(d, j, policy_reason_name(dec->reason), e);
	}
}

static int decide_built(struct daemon *d, struct job *j, struct err *e)
{
	const struct decision *rec = &j->rec;
	const char *key = rec->key;
	const struct list_apply *la = &rec->la;
	bool taken = false;
	int rc;

	if (withheld(d, rec)) {
		/* enabled = no: checked and recorded, never answered; a copy
		 * that shows no list waits for one that does */
		const char *why = la->id[0] ? LIST_DISABLED_REASON : LIST_UNKNOWN_REASON;

		log_message(la->id[0] ? LOGL_DEBUG : LOGL_INFO, key, "skipped: %s %s (%zu findings)%s",
			    why, la->id[0] ? la->id : "[default]", rec->verdict.nfindings,
			    la->id[0] ? "" : ": no list shows in this copy; its list's copy is "
			    "decided again");
		return skip(d, j, why, e);
	}
	/* reply_mode = per-series: a series part's reply waits for its series. */
	rc = daemon_series_take(d, j, &taken, e);
	if (rc < 0 || taken)
		return rc;
	if ((rec->verdict.verdict == POLICY_REPLY || rec->verdict.verdict == POLICY_HOLD) &&
	    daemon_series_stray(d, rec)) {
		log_message(LOGL_INFO, key, "skipped: stray: a patch without n/m sent in the thread "
			    "of a series' cover letter (%zu findings)", rec->verdict.nfindings);
		return skip(d, j, STRAY_REASON, e);
	}
	return carry_out(d, j, e);
}

/* j's decision: its record built once, then what it says done; the
 * decision hook sees the findings while it is. */
static int decide(struct daemon *d, struct job *j, struct err *e)
{
	int rc;

	build_record(d, j);
	if (daemon_context_note(d, &j->rec, e) < 0)
		return -1;
	j->rec.open = true;
	rc = decide_built(d, j, e);
	j->rec.open = false;
	return rc;
}

/* A mail that cannot be parsed: logged and recorded, never retried. */
static int unparsable(struct daemon *d, const struct job *j, const char *why, struct err *e)
{
	const char *rawid = j->rawid;
	char where[512];
	char *key = key_usable(rawid) ? xstrdup(rawid) : daemon_synthetic_key(NULL, j->raw, j->len);
	bool known;
	int rc = seen(d, key, &known, e);

	if (rc == 0 && !known) {
		origin_text(j, where, sizeof(where));
		log_message(LOGL_WARNING, rawid, "%s: skipped: %s", where, why);
		rc = daemon_record(j, key, "other", STORE_ERROR, e);
	}
	free(key);
	return rc;
}

/* A message too large to fetch or unreadable: keyed by where it is, so
 * it is logged and recorded once. */
static int unreadable(struct daemon *d, const struct job *j, struct err *e)
{
	char where[512];
	char *key;
	bool known;
	int rc;

	origin_text(j, where, sizeof(where));
	key = daemon_synthetic_key(NULL, where, strlen(where));
	rc = seen(d, key, &known, e);
	if (rc == 0 && !known) {
		log_msg(LOGL_WARNING, "%s: skipped: too large or unreadable", where);
		rc = daemon_record(j, key, "other", STORE_ERROR, e);
	}
	free(key);
	return rc;
}

/*
 * With backfill = no the bot answers only mail from after its start, but
 * after a UIDVALIDITY change it rescans the folder from UID 1.  Mail of
 * that rescan the store never saw, dated more than DAEMON_OLD_SLACK_S
 * (list delays, clock skew) before the first message the bot recorded from
 * the folder, was there before the bot started: recorded, not answered (no
 * flood of replies to the folder's history).  Mail without a usable Date
 * is answered: a patch is never dropped on a guess.  The rescan's extent
 * is kept in memory: a restart in the middle of it answers the rest (the
 * rate limits still apply).
 */
static bool before_start(struct daemon *d, const struct job *j)
{
	struct folder *f = j->src->f;
	struct store_folder where = { j->src->id, f->name };
	const char *date;
	struct err e;
	bool found;
	time_t t;

	if (j->src->c->backfill || !j->o.uid || j->o.uid > f->rescan_until)
		return false;
	if (!f->first_time) {
		if (store_first_time(d->st, &where, &t, &found, &e) < 0 || !found)
			return false;
		f->first_time = t;
	}
	date = message_header(&j->msg, "Date");
	return date && maildate_parse(date, &t) == 0 && t < f->first_time - DAEMON_OLD_SLACK_S;
}

/* One message: everything but store errors is recorded as a decision. */
/*
 * A known mail is done with, unless its row says list-unknown (a copy that
 * showed no list, listpolicy.h): then a copy that shows one is decided
 * afresh, its old row dropped.  msg NULL: not parsed yet, so such a mail is
 * taken as not known until it is.
 */
static int known_for_good(struct daemon *d, const char *key, const struct message *msg,
			  bool *known, struct err *e)
{
	char dec[64];
	bool found, forgot;

	if (!*known)
		return 0;
	if (store_message_decision(d->st, key, dec, sizeof(dec), &found, e) < 0)
		return -1;
	if (!found || strcmp(dec, "skipped:" LIST_UNKNOWN_REASON))
		return 0;
	if (!msg) {
		*known = false;
		return 0;
	}
	if (!message_header_last(msg, "List-Id") && !message_header(msg, "X-Mailing-List"))
		return 0;
	if (store_message_forget(d->st, key, dec, &forgot, e) < 0)
		return -1;
	if (forgot)
		log_message(LOGL_INFO, key, "decided again: this copy shows its list");
	*known = !forgot;
	return 0;
}

int daemon_known(struct daemon *d, const char *id, bool *known, struct err *e)
{
	if (seen(d, id, known, e) < 0)
		return -1;
	return known_for_good(d, id, NULL, known, e);
}

/* Parses j once (msg, p, key); -1 when it cannot be: recorded as an error
 * (*rc the result of recording it). */
static int parse_once(struct daemon *d, struct job *j, int *rc, struct err *e)
{
	struct err pe;

	if (j->parsed)
		return 0;
	if (message_parse(&j->msg, j->raw, j->len, &pe) < 0) {
		*rc = unparsable(d, j, pe.msg, e);
		return -1;
	}
	patch_parse(&j->msg, &j->p, &j->np);
	j->key = key_usable(j->p[0].message_id) ? xstrdup(j->p[0].message_id)
					       : daemon_synthetic_key(&j->msg, NULL, 0);
	j->parsed = true;
	return 0;
}

/* Whether the store has the mail keyed key for good (then noted "seen"). */
static int already(const struct job *j, const char *key, const struct message *msg,
		   bool *known, struct err *e)
{
	struct daemon *d = j->ctx->d;

	if (seen(d, key, known, e) < 0 || known_for_good(d, key, msg, known, e) < 0)
		return -1;
	if (*known)
		daemon_note(j, key, STORE_SKIPPED, "seen");
	return 0;
}

/* One job, from the "seen?" test on its raw Message-ID to its decision; a
 * job resumed after its lookups takes the same path (the store may have
 * learnt of it meanwhile), without parsing again. */
static int handle(struct daemon *d, struct job *j, struct err *e)
{
	bool known = false, done = false;
	int rc = -1;

	if (j->rawid && already(j, j->rawid, NULL, &known, e) < 0)
		return -1;
	if (known)
		return 0;
	if (!j->raw && j->o.unread != UNREAD_ERROR)
		return daemon_unread_take(d, j, e);	/* too large, or not delivered */
	if (!j->raw)
		return unreadable(d, j, e);
	if (parse_once(d, j, &rc, e) < 0)
		return rc;
	if (already(j, j->key, &j->msg, &known, e) < 0)
		return -1;
	if (known)
		return 0;
	if (before_start(d, j)) {
		log_message(LOGL_INFO, j->key, "skipped: dated before the bot started on this folder"
			    " (rescan after a UIDVALIDITY change, backfill = no)");
		return daemon_record_skipped(j, j->key, patch_kind_name(j->p[0].kind),
					     "before-start", e);
	}
	/* Maintainer Cc mode, and threads a maintainer quieted. */
	if ((rc = daemon_cc_handle(d, j, &done, e)) < 0 || done)
		return rc;
	/* A patch whose links need a transfer is decided after the batch. */
	if (!j->resumed && daemon_lookup_gate(d, j) == LOOKUP_WAITS)
		return 0;
	return decide(d, j, e);
}

/* ------------------------------------------------------------- batches */

static int process(const struct jobctx *c, struct job *j, struct err *e);

static int batch_begin(struct daemon *d, struct err *e)
{
	if (d->pipeline.b.open)
		return 0;
	if (store_begin(d->st, e) < 0)
		return -1;
	d->pipeline.b.open = true;
	return 0;
}

static void batch_forget(struct batch *b)
{
	for (size_t i = 0; i < b->nnames; i++)
		free(b->names[i]);
	b->nnames = b->nuids = b->n = 0;
	b->failed = false;
}

void daemon_batch_release(struct batch *b)
{
	batch_forget(b);
	free(b->names);
	free(b->uids);
	memset(b, 0, sizeof(*b));
}

/* Marks the batch's messages seen, now that their rows are durable. */
static void mark_seen(struct daemon *d)
{
	const struct source_marks m = { d->pipeline.b.uids, d->pipeline.b.nuids, d->pipeline.b.names, d->pipeline.b.nnames };
	struct source *s = d->pipeline.b.src;

	if (s->c->mark_seen && s->ops->mark_seen)
		s->ops->mark_seen(s, &m);
}

/* A shared folder: how far its claim got, in the batch (which it opens
 * when the claim's UIDs held no mail); -1 fails the batch. */
static int claim_in_batch(struct daemon *d, struct err *e)
{
	struct err le;

	if (batch_begin(d, e ? e : &le) == 0 && daemon_claim_done(d, e ? e : &le) == 0)
		return 0;
	if (!e)
		log_msg(LOGL_WARNING, "%s", le.msg);
	d->pipeline.b.failed = true;
	return -1;
}

/* Commits (or, after a store error, rolls back) what the batch holds. */
static int batch_commit(struct daemon *d, struct err *e)
{
	struct folder *f = d->pipeline.b.src->f;
	int rc = 0;

	if (f->claimed && !d->pipeline.b.failed && claim_in_batch(d, e) < 0)
		rc = -1;
	if (d->pipeline.b.open && d->pipeline.b.failed) {
		store_rollback(d->st);
		f->cp = f->cp_committed;
		f->retries_known = false;	/* as the store has them */
	} else if (d->pipeline.b.open) {
		rc = store_commit(d->st, e);
		if (rc == 0) {
			f->cp_committed = f->cp;
			f->cp_committed.last_uid = daemon_hold(d, f->cp.last_uid);
		} else {
			f->cp = f->cp_committed;
			f->retries_known = false;
		}
	}
	daemon_claim_committed(f, rc == 0 && !d->pipeline.b.failed);
	d->pipeline.b.open = false;
	if (rc == 0 && !d->pipeline.b.failed)
		mark_seen(d);
	batch_forget(&d->pipeline.b);
	return rc;
}

int daemon_batch_end(struct daemon *d, struct err *e)
{
	struct err le;
	int rc = batch_commit(d, e);

	if (!d->pipeline.pend.n)
		return rc;
	/* The mails that waited for lookups, decided in a batch of their own,
	 * after the replies of the first (they need no lookup). */
	if (rc == 0 && daemon_drain(d, &le) < 0)
		log_msg(LOGL_WARNING, "sending before the lookups: %s", le.msg);
	if (rc == 0)
		daemon_lookup_resolve(d);
	for (size_t i = 0; rc == 0 && i < d->pipeline.pend.n; i++) {
		struct jobctx c;

		daemon_jobctx(&c, d, d->pipeline.b.src);
		d->pipeline.pend.v[i]->resumed = true;
		rc = process(&c, d->pipeline.pend.v[i], e ? e : &le);
	}
	if (batch_commit(d, rc < 0 ? NULL : e) < 0)
		rc = -1;
	if (rc < 0)
		d->pipeline.b.src->f->cp = d->pipeline.b.src->f->cp_committed;	/* the waiting mails are fetched again */
	daemon_lookup_drop(d);
	return rc;
}

/* The checkpoint of j's folder, moved to j (inside the batch). */
static int save_checkpoint(struct daemon *d, const struct job *j, struct err *e)
{
	struct folder *f = j->src->f;
	struct store_folder where = { j->src->id, f->name };
	uint32_t uid = j->o.uid;
	struct store_checkpoint cp;

	if (!uid)
		return 0;
	if (f->shared) {	/* the claim moves it at the batch's end */
		daemon_claim_handled(f, uid);
		return 0;
	}
	/* A mail decided after its lookups (daemon_lookup.c) comes late. */
	if (uid > f->cp.last_uid)
		f->cp.last_uid = uid;
	cp = f->cp;
	cp.last_uid = daemon_hold(d, cp.last_uid);
	return store_checkpoint_set(d->st, &where, &cp, e);
}

/* After handle() failed on something about this mail: its savepoint is
 * undone and it is recorded as an error in a new one. */
static int record_failure(struct daemon *d, const struct job *j, const struct err *why,
			  struct err *e)
{
	store_rollback(d->st);
	if (store_begin(d->st, e) < 0)
		return -1;
	return j->raw ? unparsable(d, j, why->msg, e) : unreadable(d, j, e);
}

/*
 * One job inside the batch's transaction, with its checkpoint, in a
 * savepoint of its own: when recording it fails on something about this
 * mail (ERR_FINAL), that is undone and the mail is recorded as an error,
 * so it cannot stop the folder.  Any other store error fails the batch.
 */
static int process_job(struct daemon *d, struct job *j, struct err *e)
{
	struct err me;
	int rc;

	daemon_signals_deliver(&d->sig);
	if (batch_begin(d, e) < 0 || store_begin(d->st, e) < 0) {
		d->pipeline.b.failed = true;
		return -1;
	}
	if (!j->resumed)
		d->pipeline.handled++;
	err_init(&me);
	rc = handle(d, j, &me);
	if (rc < 0 && me.cls == ERR_FINAL)
		rc = record_failure(d, j, &me, e);
	else if (rc < 0)
		*e = me;
	/* Delivered after a fetch that came without it: a retry no more. */
	if (rc == 0 && j->raw && !(j->deferred && !j->resumed))
		rc = daemon_retry_done(d, j, e);
	if (rc == 0)
		rc = save_checkpoint(d, j, e);
	if (rc < 0)
		store_rollback(d->st);	/* the savepoint; the batch follows */
	/* store_commit() undoes the savepoint itself when it fails. */
	if (rc < 0 || store_commit(d->st, e) < 0) {
		d->pipeline.b.failed = true;
		return -1;
	}
	d->pipeline.b.n++;
	if (j->deferred && !j->resumed)
		return 0;	/* seen and checkpoint wait for its decision */
	if (!j->raw && j->o.unread == UNREAD_MISSING)
		return 0;	/* never read: not marked seen */
	if (j->o.uid) {
		ARRAY_GROW(d->pipeline.b.uids, d->pipeline.b.auids, d->pipeline.b.nuids + 1);
		d->pipeline.b.uids[d->pipeline.b.nuids++] = j->o.uid;
	} else if (j->o.name) {
		ARRAY_GROW(d->pipeline.b.names, d->pipeline.b.anames, d->pipeline.b.nnames + 1);
		d->pipeline.b.names[d->pipeline.b.nnames++] = xstrdup(j->o.name);
	}
	return 0;
}

/* process_job() in step c: j->ctx while it is handled. */
static int process(const struct jobctx *c, struct job *j, struct err *e)
{
	int rc;

	j->ctx = c;
	rc = process_job(c->d, j, e);
	j->ctx = NULL;	/* a job that waits is handled again in a later step */
	return rc;
}

int daemon_process_one(struct daemon *d, const struct origin *o, const char *raw, size_t len,
		       struct err *e)
{
	struct source *src = d->pipeline.b.src;
	struct job *j = daemon_job_new(src, o, raw, len);
	struct jobctx c;
	int rc;

	daemon_jobctx(&c, d, src);
	rc = process(&c, j, e);

	if (!j->deferred)	/* else d->pipeline.pend owns it */
		daemon_job_free(j);
	return rc;
}
