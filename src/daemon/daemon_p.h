/*
 * daemon_p.h - the inside of daemon/, private to it: what daemon.c (the
 * loop, signals, reload, status, the offline API), daemon_msg.c (one job:
 * parse, check, decide; batches), daemon_record.c (what a decision leaves
 * in the store: rows, queued replies, what a person was told),
 * daemon_job.c (a job's life), daemon_sink.c (the sink; the sources are
 * drivers: source.h), daemon_lookup.c (deferral), daemon_cc.c and
 * daemon_series.c share.  The
 * job's path calls Cc mode, series and deferral, and they record through
 * daemon_record.c: none of them calls back into daemon_msg.c.  Outside
 * daemon/, daemon.h is the face.
 */
#ifndef TAGBOT_DAEMON_P_H
#define TAGBOT_DAEMON_P_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/buf.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "daemon/deliver.h"
#include "lib/err.h"
#include "transport/imap_source.h"
#include "transport/maildir.h"
#include "transport/nntp_source.h"
#include "reply/policy.h"
#include "reply/reply.h"
#include "daemon/scratch.h"
#include "daemon/source.h"
#include "transport/smtp_sink.h"
#include "store/store.h"
#include "mail/message.h"
#include "mail/msgid.h"
#include "mail/patch.h"
#include "rules/linkfacts.h"
#include "config/listpolicy.h"
#include "mail/context.h"
#include "reply/recipients.h"

#define DAEMON_OLD_SLACK_S	(24 * 3600) /* see before_start() in daemon_msg.c */
#define DAEMON_RATE_WINDOW_S	3600	/* rate events kept: the longest window (an hour) */

/* Set by the handlers; read between messages and after waits. */
extern volatile sig_atomic_t daemon_got_stop, daemon_got_reload;

struct signals {
	sigset_t run_mask;	/* while working: ours blocked */
	sigset_t wait_mask;	/* while sleeping: ours let through */
	sigset_t saved;		/* the caller's mask, restored at the end */
	struct sigaction old[4];
};

/* clock.c: the handlers of SIGTERM, SIGINT and SIGHUP installed (their
 * flags cleared; SIGPIPE ignored) and those signals blocked, the old ones
 * and the mask kept in s; restore puts them back. */
void daemon_signals_install(struct signals *s);
void daemon_signals_restore(struct signals *s);
/* Lets a pending signal run its handler (sets its flag), then blocks again. */
void daemon_signals_deliver(const struct signals *s);
/* Sleeps up to seconds, ended early by a signal. */
void daemon_sleep_for(const struct signals *s, double seconds);

/* Messages handled since the last commit, to mark seen once it is durable. */
struct batch {
	struct source *src;	/* foreign (in d->sources.v): the source whose messages
				 * it holds, from its poll to its commit */
	bool open;		/* the outer transaction is open */
	size_t n;
	uint32_t *uids;		/* owned */
	size_t nuids, auids;
	char **names;		/* owned; Maildir names */
	size_t nnames, anames;
	bool failed;		/* a store error: roll the batch back */
};

struct job;

/* Mails whose links need a transfer (daemon_lookup.c): their jobs, kept
 * until the batch's lookups ran.  Not in the store: fetched again after a
 * crash. */
struct pending {
	struct job **v;		/* owned */
	size_t n, alloc;
	size_t bytes;		/* raw bytes held and an estimate of the parsed */
};

/* Where replies go (daemon_sink.c), and its health. */
struct sink {
	struct maildir out;		/* Maildir sink */
	struct smtp_settings smtp;	/* the SMTP sink; strings foreign (cfg) but: */
	char *password;			/* owned; a secret */
	struct smtp_pool *pool;		/* owned; its connections are kept between replies */
	time_t used;			/* when a reply last came back from it */
	char *copy_to;			/* owned; extra envelope recipient, or NULL */
	/* A fault of the sink (ERR_SETUP): nothing is sent until retry_at,
	 * backing off by step; the store keeps it for `tagbot status`. */
	bool failing;
	unsigned step;
	int failures;			/* tries that failed in a row */
	time_t since, retry_at;
	struct deliver_stats ds;	/* what the drains did */
};

/* The sources (sources.c, source_*.c): each a driver behind source.h. */
struct sources {
	struct source **v;		/* owned, each one; in config_sources() order */
	size_t n;
	struct source_env env;		/* what the sources get of the daemon */
};

/* The job's path (daemon_msg.c and what it calls): the settings a mail is
 * decided by, the batch it is recorded in, the mails waiting for their
 * lookups. */
struct pipeline {
	struct policy *pol;		/* owned */
	struct reply_settings rs;	/* points into cfg */
	struct policy_settings ps;	/* points into cfg */
	struct batch b;
	struct lookup *lk;		/* owned; NULL unless [lookup] enabled */
	struct pending pend;		/* jobs waiting for their lookups */
	size_t handled;			/* messages looked at */
	bool warned_no_authserv;	/* said once that [reply] trusted_authserv_id
					 * is not set (daemon_cc.c) */
};

/* Who is told of what a decision leaves (daemon_record.c): tagbot replay
 * (daemon_offline_*) hooks every decision and reply; a dry run prints the
 * replies. */
struct recorder {
	daemon_decision_fn on_decision;
	daemon_reply_fn on_reply;	/* replay --show-replies */
	void *arg;
	size_t printed;			/* replies a dry run printed */
};

/* The daemon: what every part shares (options, settings, signals, the
 * store, the clock), and each part's own state. */
struct daemon {
	const struct daemon_opts *o;	/* foreign, or &oo */
	struct daemon_opts oo;		/* the offline daemon's */
	struct config cfg;		/* owned; rules and [reply] reloaded on SIGHUP */
	bool dry;
	struct signals sig;
	struct store *st;		/* owned */
	struct scratch scratch;		/* owned; the directory of st when it is a
					 * throw-away store (replay, a dry run) */
	time_t clock;			/* the mail's Date under replay; 0: time(NULL) */
	unsigned backoff_step;		/* after a failure of the store or the sink's drain */

	struct sources sources;
	struct pipeline pipeline;
	struct recorder recorder;
	struct sink sink;
};

/* clock.c: d->clock when set, else the time of day. */
time_t daemon_now(const struct daemon *d);

/*
 * The context of one step of the daemon: a job's handling (daemon_msg.c's
 * process()), with the batch it goes into and where it came from, or a
 * round of the loop.  Its now is taken once, when the step starts, so
 * that everything one mail's handling stamps (its row, its context, what
 * was told, the rate windows) carries one time.
 */
struct jobctx {
	struct daemon *d;	/* foreign */
	struct batch *b;	/* foreign: &d->pipeline.b */
	struct source *src;	/* foreign: the source of the step's mail, or NULL */
	struct folder *f;	/* foreign: src's folder being read, or NULL */
	time_t now;		/* d->clock under replay, else the time of day */
};
/* clock.c: c for a step of d on a mail of src (NULL: none), now. */
void daemon_jobctx(struct jobctx *c, struct daemon *d, struct source *src);
/* clock.c: capped exponential backoff with jitter (half to all of the
 * step): the delay of *step, which it moves on.  DAEMON_BACKOFF_MIN_S to
 * _MAX_S. */
double daemon_backoff_next(unsigned *step);

/*
 * What one mail's decision is made of (daemon_msg.c's decide()), found
 * once: every step after it -- the told memory, the list's withholding,
 * the series, the hold, the reply and its record -- reads these rather
 * than deriving them again, so they cannot disagree.  Owned by the job;
 * daemon_decision_release() (daemon_job.c) frees it with the job.
 */
struct decision {
	bool built;			/* the fields below are set */
	bool open;			/* decide() is on it: the decision hook sees
					 * its findings */
	const char *key;		/* foreign (the job's); the store's key */
	const char *kind;		/* static; the lead's kind (patch_kind_name()) */
	const struct patch *lead;	/* foreign (the job's); the part the reply is about */
	const struct patch *parts;	/* foreign (the job's); the mail's parts */
	size_t nparts;			/* at most PATCH_MAX_PARTS */
	size_t first[PATCH_MAX_PARTS + 1]; /* part i's first finding in f; first[nparts]: f.n */
	struct list_apply la;		/* the mail's list: policy, rule, reply settings;
					 * la.rs.who points to who */
	struct recipients who;		/* owned; whom a reply to lead goes to (la.rs) */
	char *told_to;			/* owned; who's address lower case, the told
					 * memory's key; NULL when nobody is answered */
	struct msg_context ctx;		/* owned; lead's thread context */
	struct findings f;		/* owned; every checked part's, told ones off */
	struct policy_decision verdict;
	time_t now;			/* when it was decided (its step's now) */
};

/*
 * One message on its way through the daemon (daemon_msg.c), from the
 * source's hand-over to its decision.  It is parsed once: when its links
 * need a transfer it waits, job and all, in d->pipeline.pend (daemon_lookup.c) and
 * is decided from where it stopped once the batch's lookups ran.
 */
struct job {
	struct source *src;		/* foreign: the source it came from */
	struct origin o;		/* o.name foreign, or own_name once kept */
	const char *raw;		/* foreign, or own_raw once kept; NULL: too
					 * large or unreadable */
	size_t len;
	char *own_name, *own_raw;	/* owned; the copies a kept job holds */
	char *rawid;			/* owned; the Message-ID read from raw, or NULL */
	bool parsed;			/* msg, p and key are set */
	struct message msg;		/* owned */
	struct patch *p;		/* owned; the parts of msg */
	size_t np;
	char *key;			/* owned; the store's key for it */
	struct lookup_results res;	/* owned; what its links are known to be */
	bool resumed;			/* its lookups ran: res is final */
	bool deferred;			/* it waits in d->pipeline.pend (owned there) */
	struct decision rec;		/* owned; once it is decided */
	const struct jobctx *ctx;	/* foreign: the step handling it (process()) */
};

/* --- daemon_job.c ------------------------------------------------------ */

/* The store's key of a mail without a usable Message-ID (malloc'ed): a
 * hash of msg's From, Subject, Date and text, or of raw when msg is NULL,
 * so that the same content under another file name or UID has the same
 * key. */
char *daemon_synthetic_key(const struct message *msg, const char *raw, size_t len);

/* A job for the message raw (foreign; NULL: too large or unreadable) from
 * o, with its raw Message-ID read. */
struct job *daemon_job_new(struct source *src, const struct origin *o, const char *raw,
			   size_t len);
/* A job that waits (d->pipeline.pend) takes copies of its foreign name and raw. */
void daemon_job_keep(struct job *j);
void daemon_job_free(struct job *j);
/* Frees what rec owns (nothing when it was not built). */
void daemon_decision_release(struct decision *rec);

/* --- daemon_msg.c ------------------------------------------------------ */

/*
 * One message of the batch's source (d->pipeline.b.src) inside the
 * batch's transaction, with its checkpoint (uid), in a savepoint of its
 * own.  raw NULL: a message that could not be read (too large).  -1 only
 * for a store error: the batch is then rolled back by daemon_batch_end().
 */
int daemon_process_one(struct daemon *d, const struct origin *o, const char *raw, size_t len,
		       struct err *e);
/* Commits (or, after a store error, rolls back) the batch; marks its
 * messages seen once their rows are durable.  e may be NULL. */
int daemon_batch_end(struct daemon *d, struct err *e);
void daemon_batch_release(struct batch *b);

/* --- daemon_record.c: what a decision leaves behind --------------------- */

/* One warning for each custom rule that could not check all of message
 * key, after its rules ran into f (rule_budget_describe()). */
void daemon_log_budgets(const char *key, const struct findings *f);
/* The log line of a reply queued for p, naming the rules of f. */
void daemon_log_queued(const struct reply *r, const struct patch *p, const struct findings *f);
/* Tells the decision hook (tagbot replay), when one is set, dd; given j,
 * with the findings and min of j's record while it is decided (else
 * dd's own). */
void daemon_hook(struct daemon *d, const struct job *j, struct daemon_decision *dd);
/* The decision hook: key's decision in j's step, without recording it. */
void daemon_note(const struct job *j, const char *key, enum store_decision dec, const char *why);
/* Records key's decision dec (clean, error: one without a why; and tells
 * the hook), for job j, in its step (j->ctx). */
int daemon_record(const struct job *j, const char *key, const char *kind,
		  enum store_decision dec, struct err *e);
/* The same for key skipped (why). */
int daemon_record_skipped(const struct job *j, const char *key, const char *kind,
			  const char *why, struct err *e);
/* Records key, another message than the one being handled in step c,
 * skipped (why): no origin, no findings for the hook. */
int daemon_record_other(const struct jobctx *c, const char *key, const char *kind,
			const char *why, struct err *e);
/* A built reply to queue for one message, and what queueing it did. */
struct queued_reply {
	const struct job *j;		/* foreign; the message's job */
	const char *key;		/* foreign; the message's key: the reply's parent */
	const char *kind;		/* foreign; the message's kind for its row */
	const struct reply *r;		/* foreign */
	time_t not_before;		/* 0: send it now */
	enum store_enqueue res;		/* set: STORE_ALREADY_QUEUED when key had one */
};
/* Queues q->r under parent q->key (store_record_reply), to be sent not
 * before q->not_before, then tells the hook and prints it in a dry run
 * (daemon_queue_noted()): daemon_queue_row() then daemon_queue_noted(), for
 * a caller with its own bookkeeping of a queued reply in between. */
int daemon_queue_built(struct daemon *d, struct queued_reply *q, struct err *e);
int daemon_queue_row(struct daemon *d, struct queued_reply *q, struct err *e);
void daemon_queue_noted(struct daemon *d, const struct queued_reply *q);
/* out for reply r to parent: its raw bytes and envelope, the reply's
 * recipients plus the bot's own mailbox (copy_to) once; rcpt is the
 * caller's array of REPLY_MAX_RCPT + 1 that out->rcpt points into. */
void daemon_outgoing(const struct daemon *d, const struct reply *r, const char *parent,
		     const char **rcpt, struct store_outgoing *out);
/* After r was put into the outbox under parent at now: a dry run prints
 * it (mboxrd, to d->o->out), and d->recorder.on_reply is called. */
void daemon_reply_queued(struct daemon *d, const char *parent, const struct reply *r,
			 time_t now);

/*
 * What a person was told, so that a problem is told once ([reply]
 * repeat_after days; 0 turns this off): a finding is not told again to the
 * person a reply goes to within repeat_after days when a reply told them
 * the same rule's finding with the same key (finding_key(): its quoted
 * line with ids normalised; for the rules told per person, any), whatever
 * the patch -- a resend, a new patch repeating the same paragraph, a later
 * part of a series -- and, within one work (b4 change-id), a finding that
 * says the same as one told before, whatever its line.
 * The person is daemon_told_person()'s key (NULL: nobody, nothing told).
 * daemon_told_filter() turns off (SEV_OFF) those of rec's findings already
 * told to the person a reply to its lead goes to (rec->told_to), and
 * renews their memory (the days count from the latest mail that has the
 * finding, as of rec->now); daemon_told_note() records the ones a queued
 * reply told (at or above min).
 */
struct told {
	const struct patch *to;	/* foreign; the patch the reply answers */
	const char *who;	/* foreign; daemon_told_person() of its recipients */
	time_t now;		/* when it was queued */
};
char *daemon_told_person(const struct recipients *who);
void daemon_told_filter(struct daemon *d, struct decision *rec);
void daemon_told_note(struct daemon *d, const struct told *t, const struct findings *f,
		      enum severity min);

/* --- daemon_cc.c ------------------------------------------------------- */

/*
 * In handle(), for a parsed mail the store has not seen, before it is
 * checked: maintainer Cc mode (the mail reaches the bot directly: its
 * commands, the check of the patch it answers, the reply to its sender),
 * and the threads a maintainer quieted.  *done: the mail was recorded
 * here; else it takes the normal path.  -1 only for a store error.
 */
int daemon_cc_handle(struct daemon *d, const struct job *j, bool *done, struct err *e);

/* --- daemon_lookup.c --------------------------------------------------- */

/* The lookup context of d->cfg ([lookup] enabled), replacing any old one. */
int daemon_lookup_open(struct daemon *d, struct err *e);
void daemon_lookup_close(struct daemon *d);
/* What daemon_lookup_gate() did with a job. */
enum lookup_gate {
	LOOKUP_DECIDE,	/* decide it now: j->res holds what the store and the
			 * cache know, and what a lookup of its own found */
	LOOKUP_WAITS	/* put into d->pipeline.pend (its links need a transfer; decide
			 * nothing now; d->pipeline.pend owns it) */
};
/* In handle(), for a job about to be checked. */
enum lookup_gate daemon_lookup_gate(struct daemon *d, struct job *j);
/* The checkpoint UID the store may hold while mails wait: below the first. */
uint32_t daemon_lookup_hold(const struct daemon *d, uint32_t last_uid);
/* Runs the lookups of the jobs in d->pipeline.pend together (into each one's res). */
void daemon_lookup_resolve(struct daemon *d);
/* Forgets the waiting jobs (unrecorded: they are fetched again). */
void daemon_lookup_drop(struct daemon *d);

/* Whether the store has the mail whose Message-ID is id for good, so that
 * a source need not fetch it (a row of a copy that showed no list is not:
 * listpolicy.h).  -1 only for a store error. */
int daemon_known(struct daemon *d, const char *id, bool *known, struct err *e);

/* --- daemon_unread.c: mail a source listed but did not deliver ---------- */

/*
 * A message the server listed and did not deliver (UNREAD_MISSING) is
 * asked for again at the folder's polls, DAEMON_RETRY_TRIES times in all,
 * the first wait [source] retry_after and each later one twice as long;
 * then it is recorded skipped:unavailable.  Until then the checkpoint the
 * store keeps stays below it (daemon_hold()), and the store's unread row
 * keeps its tries: a restart fetches it again and goes on counting.  A
 * message larger than max_message_size (UNREAD_TOO_LARGE) is recorded
 * skipped:too-large at once.  Both are told in the log at warning level
 * and kept as unread rows for `tagbot status`.
 */
#define DAEMON_RETRY_TRIES	5
#define DAEMON_UNAVAILABLE_REASON "unavailable"
#define DAEMON_TOO_LARGE_REASON "too-large"

/* f's retries from the store (s->env's), once (and again after a
 * rollback). */
int daemon_retries_load(struct source *s, struct folder *f, struct err *e);
/* Forgets f's retries (its numbers started again). */
int daemon_retries_forget(struct source *s, struct folder *f, struct err *e);
/* A new poll of f: each retry counts once in it. */
void daemon_retries_poll(struct folder *f);
/* The uids of f's retries due at now and not tried in this poll, ascending
 * (*uids malloc'ed, NULL when none). */
size_t daemon_retries_due(const struct folder *f, time_t now, uint32_t **uids);
/* In handle(): job j came without its bytes; recorded, or kept for a retry. */
int daemon_unread_take(struct daemon *d, const struct job *j, struct err *e);
/* After job j was handled with its bytes: a retry of it is done with. */
int daemon_retry_done(struct daemon *d, const struct job *j, struct err *e);
/* The checkpoint uid of the current folder the store may hold: below its
 * first retry, and below a mail waiting for lookups (daemon_lookup_hold). */
uint32_t daemon_hold(const struct daemon *d, uint32_t last_uid);
/* max, or less when a retry of a source comes due sooner. */
int daemon_retries_wait(const struct daemon *d, time_t now, int max);
/* Whether a retry of one of s's folders is due at now (s is then polled
 * before its poll_interval has passed). */
bool daemon_retries_due_at(const struct source *s, time_t now);

/* --- daemon.c ---------------------------------------------------------- */

/* The state's settings from [tagbot]: for a PostgreSQL state its password,
 * read now (free *password with secret_free()). */
int daemon_state_settings(const struct config_tagbot *t, struct store_settings *ss,
			  char **password, struct err *e);

/* --- daemon_claim.c: a folder shared with other daemons ---------------- */

/* Whether d's IMAP folders are read in claims: a PostgreSQL state (others
 * may share it), not a dry run (struct source_env's claims). */
bool daemon_claims_shared(const struct daemon *d);
/* The next claim of s's folder, whose highest UID is top now, into its
 * claim (*found false: none; its claim_wake says when to look again). */
int daemon_claim_next(struct source *s, uint32_t top, bool *found, struct err *e);
/* A message of the folder was handled (recorded in the open batch). */
void daemon_claim_handled(struct folder *f, uint32_t uid);
/* Inside the open batch (of d->pipeline.b.src): how far its claim got (nothing
 * without a claim). */
int daemon_claim_done(struct daemon *d, struct err *e);
/* After the batch's commit (ok) or rollback. */
void daemon_claim_committed(struct folder *f, bool ok);
/* max, or less when another daemon's claim runs out sooner. */
int daemon_claims_wait(const struct daemon *d, time_t now, int max);
/* s's claims end now: another daemon takes them over at once. */
void daemon_claim_release(struct daemon *d, struct source *s);

/* --- daemon.c: the loop's view of the sources ------------------------- */

/* When source s is next due, for the loop's sleep: while its back-off runs
 * or once it has run out, the back-off's end (a time already past: due
 * now); else its next poll or, sooner, the end of another daemon's claim
 * of its folder (one source alone: poll_interval from now). */
time_t daemon_source_due_at(const struct daemon *d, const struct source *s, time_t now);
/* Whether s is to be polled now: after its back-off; one source alone
 * every round; among several, when daemon_source_due_at() has come (its
 * poll_interval passed or its wait saw mail, or another daemon's claim of
 * its folder ran out) or a retry of it is due.  Always with --once. */
bool daemon_source_due(const struct daemon *d, const struct source *s, time_t now);

/* --- daemon_sink.c: the sink ------------------------------------------- */

/* Whether a source of d can look for the SMTP sink's copy of a reply (an
 * IMAP source: its server has the bot's mailbox), so that the copy is
 * asked for and a reply whose send was cut off is looked for there. */
bool daemon_finds_copy(const struct daemon *d);
/* The [source] or [sink] tls setting for the transport; dflt for "default"
 * (not set). */
enum net_tls daemon_tls_of(enum config_tls t, enum net_tls dflt);
/* Opens the sink of d->cfg (nothing in a dry run). */
int daemon_sink_open(struct daemon *d, struct err *e);
/* Creates path and its missing parents, mode 0700. */
int daemon_make_dirs(const char *path, struct err *e);
/* Sends the replies that are due, in chunks, stopping for a signal.  A
 * fault of the sink is no error here: it is logged (error level) and
 * stored, the replies stay queued, and the sink is left alone until its
 * back-off ends (daemon_sink_wait) or a reload. */
int daemon_drain(struct daemon *d, struct err *e);
/* max_s, or less: the seconds until the idle SMTP connections are closed
 * (closing them when that time has come). */
int daemon_smtp_idle_wait(struct daemon *d, int max_s);
/* Seconds until the failing sink is tried again (max when it works). */
int daemon_sink_wait(const struct daemon *d, int max);
/* SIGHUP: the SMTP sink of c in place of the running one (whose pool is
 * closed), tried again at once; -1 (the old one kept) when c is not an
 * SMTP sink or its settings or password are not right. */
int daemon_sink_reload(struct daemon *d, const struct config_sink *c, struct err *e);

/* --- daemon_series.c --------------------------------------------------- */

/* Records the context of the mail rec decides, in the caller's
 * transaction. */
int daemon_context_note(struct daemon *d, const struct decision *rec, struct err *e);
/* Prunes old context rows, at most once a day. */
void daemon_context_prune(struct daemon *d, time_t now);
/* Whether p is a stray in a series' send (series_stray()): the store has
 * the cover letter it answers.  Such mail is skipped as STRAY_REASON. */
#define STRAY_REASON "stray"
bool daemon_series_stray(struct daemon *d, const struct decision *rec);
/*
 * Whether rec's lead, the checked part of the mail it decides, is a series
 * part that some enabled list may answer per series (config_answers_per_series()).
 * Such a part's copy that shows no list, under a [default] that is not
 * enabled, is left out of every series whatever its findings and waits for
 * its list's copy (LIST_UNKNOWN_REASON): in a series it would make the
 * series' reply follow [default] (the reply goes by its lead's list), or
 * its list's copies would join a series that does not answer per series.
 */
bool daemon_series_awaits_list(struct daemon *d, const struct decision *rec);
/* Puts the series part job j decides (j->rec) in its series; per-series
 * (and not skipped by the policy) *taken: the part is recorded, its reply
 * left to the series. */
int daemon_series_take(struct daemon *d, const struct job *j, bool *taken, struct err *e);
/*
 * A reply a rate limit holds back (reply_mode = per-patch) is kept, not
 * dropped: the patch is held in the store under its recipient
 * (store_held_add) and recorded skipped:held; once the limit has room,
 * every patch held for that recipient goes out in one reply (the series
 * reply's form, REPLY_HELD), which marks them all replied.  For the mail
 * job j decides (j->rec).
 */
int daemon_hold_take(struct daemon *d, const struct job *j, struct err *e);
/* Sends the series replies and the held replies that are due. */
int daemon_series_flush(struct daemon *d, time_t now, struct err *e);
/* max, or less when a pending series or held reply comes due sooner. */
int daemon_series_wait(struct daemon *d, time_t now, int max);

#endif
