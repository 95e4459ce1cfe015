/*
 * daemon.c - `tagbot run`: fetch -> parse -> check -> decide -> record ->
 * reply (`tagbot status` is status.c).
 *
 * Delivery guarantee: each patch gets at most one reply, and every patch
 * that needs one gets it, across the list copy plus a Cc copy of one mail,
 * restarts, SIGKILL at any point, IMAP and SMTP outages.  How:
 *
 * 1. Every fetched message is keyed by its normalized Message-ID
 *    (msgid_key; a mail without one by a hash of its content).  A key
 *    the store has seen is skipped: the Cc copy, a second delivery under
 *    another file name, a rescan after a UIDVALIDITY change, a restart.
 *    A message that cannot be parsed is logged with its UID or file name
 *    and recorded with decision error: never retried forever.
 * 2. The policy decides.  For a reply, reply.c builds it with a fresh
 *    Message-ID, and store_record_reply() writes the message row and the
 *    outbox row in one transaction (the outbox's parent column is UNIQUE)
 *    before anything is sent; any other decision is store_record_message().
 *    The folder checkpoint (UIDVALIDITY, last UID) moves in the same
 *    transaction as the message it covers.  So SIGKILL at any point leaves
 *    the message either unrecorded (it is fetched again: fine, nothing was
 *    sent) or recorded with its reply queued.
 * 3. The outbox is drained after each batch and on a timer (deliver.c):
 *    claim (mark_retry with a hold, so a crash mid-send is seen as
 *    attempts > 0), send, mark sent.  The window between "SMTP accepted"
 *    and "marked sent" is closed by the bot's own address as an extra
 *    ENVELOPE recipient (never a header): the server delivers a copy to the
 *    bot's mailbox in the same SMTP transaction that accepts the reply.  A
 *    reply found with attempts > 0 is first looked up by its Message-ID in
 *    that folder (imap_find_msgid; for a Maildir sink, the sink Maildir)
 *    and marked sent if it is there; the hold ([sink] resend_after, default
 *    120 s) gives the asynchronous delivery time to arrive before that
 *    lookup decides to send again.  The copy is the bot's own mail: the
 *    policy never answers it (bot address, Auto-Submitted).
 * 3a. A message a server lists and does not deliver is asked for again
 *    with the stored checkpoint held below it, and recorded skipped:
 *    unavailable after DAEMON_RETRY_TRIES; one larger than
 *    max_message_size is read past and recorded skipped:too-large
 *    (daemon_unread.c).  Nothing is passed over unrecorded.
 * 4. First start without a checkpoint begins at UIDNEXT unless backfill =
 *    yes; a UIDVALIDITY change rescans from UID 1, deduplicated by (1).  An
 *    NNTP group likewise, by article number (a renumbering for a change).
 *
 * Several sources ([source NAME]): each has its checkpoints and back-off;
 * one loop polls each when due and sleeps in the IDLE of one IMAP source
 * (waiter()).  A batch belongs to one source (d->pipeline.b.src) from its first
 * message to its commit.  Through (1), a message seen through several
 * sources is one row and at most one reply.
 *
 * 5. A fault of the SMTP sink itself (a certificate, STARTTLS, a refused
 *    login: ERR_SETUP) fails no reply: the replies stay queued as they
 *    were, the sink backs off (daemon_backoff_next) and its state goes to
 *    the store for `tagbot status`; SIGHUP with a fixed [sink] resumes.  A
 *    refused Cc is dropped and noted, a refused To fails the reply
 *    (smtp_sink.h).  A send in progress never holds SIGTERM up: it is
 *    dropped, its claim stands, and (3) sends it after the next start.
 *
 * A patch whose reply a rate limit holds back is recorded skipped:held and
 * kept in the store under its recipient; once the limit has room, every
 * patch held for that address goes out in one reply (daemon_hold_take(),
 * daemon_series_flush()); a series over a limit waits likewise.  Only a
 * patch with nobody to answer, or too large to keep, is recorded skipped
 * and not answered.
 *
 * The exception, by design: with an SMTP sink and a Maildir source there
 * is no mailbox to look in, so a reply whose send was interrupted is sent
 * again after the hold (at least once in that window).
 *
 * Signals only set flags.  They are blocked while we work and let through
 * at the points where stopping or reloading is safe (between messages, and
 * while waiting: ppoll() and imap_wait() sleep with them unblocked, and an
 * IMAP or NNTP source waits for its server with them unblocked, giving up
 * once daemon_got_stop is set: netconn.h).
 */
#include "autoconf.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "config/secret.h"

#define WAIT_MIN_S		1

/* ------------------------------------------------------------ signals */

/* ------------------------------------------------------------ settings */

static const char *const no_patterns[1] = { NULL };

/* reply.c's and policy.c's settings point into d->cfg: rebuilt on reload. */
static void settings_build(struct daemon *d)
{
	const struct config_reply *c = &d->cfg.reply;

	reply_settings_init(&d->pipeline.rs);
	d->pipeline.rs.from = c->from;
	d->pipeline.rs.to = c->to;
	d->pipeline.rs.reply_to = c->reply_to;
	d->pipeline.rs.footer = c->footer;
	d->pipeline.rs.min_severity = d->cfg.tagbot.min_reply_severity;
	d->pipeline.rs.bot_addresses = (const char *const *)c->bot_addresses.v;
	d->pipeline.rs.nbot_addresses = c->bot_addresses.n;
	d->pipeline.rs.cc_author = c->cc_author;
	d->pipeline.rs.list_addresses = d->cfg.lists.addresses;
	d->pipeline.rs.nlist_addresses = d->cfg.lists.naddresses;

	policy_settings_init(&d->pipeline.ps);
	d->pipeline.ps.min_reply_severity = d->cfg.tagbot.min_reply_severity;
	d->pipeline.ps.from = c->from;
	d->pipeline.ps.bot_addresses = d->pipeline.rs.bot_addresses;
	d->pipeline.ps.nbot_addresses = d->pipeline.rs.nbot_addresses;
	if (c->ignore_senders.set) {
		d->pipeline.ps.ignore_senders = c->ignore_senders.n ?
			(const char *const *)c->ignore_senders.v : no_patterns;
		d->pipeline.ps.nignore_senders = c->ignore_senders.n;
	}
	d->pipeline.ps.max_per_author_per_hour = (unsigned)c->max_per_author_per_hour;
	d->pipeline.ps.max_per_minute = (unsigned)c->max_per_minute;
	d->pipeline.ps.max_share_per_sender = (unsigned)c->max_share_per_sender;
	d->pipeline.ps.answer_rfc = c->answer_rfc;
	d->pipeline.ps.rs = &d->pipeline.rs;
}

/* The addr-spec of "Name <addr>" or addr; malloc'ed, NULL when none. */
static char *addr_spec(const char *s)
{
	struct person p = { NULL, NULL };
	char *a = NULL;

	if (s && address_parse(&p, s, strlen(s), NULL) == 0 && p.email && *p.email)
		a = xstrdup(p.email);
	person_release(&p);
	return a;
}

/* ------------------------------------------------------------ the loop */

/* The sources of a and b change places, so the running ones (which point
 * into d->cfg) keep their settings until a restart. */
static void swap_sources(struct config *a, struct config *b)
{
	struct config_source src = a->source, *v = a->sources;
	size_t n = a->nsources;
	bool set = a->source_set;

	a->source = b->source;
	a->sources = b->sources;
	a->nsources = b->nsources;
	a->source_set = b->source_set;
	b->source = src;
	b->sources = v;
	b->nsources = n;
	b->source_set = set;
}

/* Each problem of the file, all of them before the first stops the start
 * or the reload: an admin fixes them in one go. */
static void log_problem(void *prefix, const struct config_problem *p)
{
	log_msg(LOGL_ERROR, "%s%s", (const char *)prefix, p->msg);
}

/* SIGHUP: rules and [reply] from the file; the rest as at the start. */
static void reload(struct daemon *d)
{
	struct config fresh;
	struct config_sink sink;
	bool sink_new;
	char *state;
	struct err e;

	daemon_got_reload = 0;
	config_init(&fresh);
	if (config_load_report(&fresh, d->o->config, log_problem, "reload: ", &e) < 0) {
		log_msg(LOGL_ERROR, "reload: %s; keeping the old settings", e.msg);
		config_release(&fresh);
		return;
	}
	/* The old [source] and state move into fresh, and the old [sink]
	 * unless the new one can take over (an SMTP sink fixed after a fault);
	 * what fresh read of them is released with the old settings. */
	swap_sources(&fresh, &d->cfg);
	sink_new = !d->dry && daemon_sink_reload(d, &fresh.sink, &e) == 0;
	if (!sink_new && !d->dry && fresh.sink.type == SINK_SMTP && d->cfg.sink.type == SINK_SMTP)
		log_msg(LOGL_ERROR, "reload: %s; keeping the old [sink]", e.msg);
	if (!sink_new) {
		sink = fresh.sink;
		fresh.sink = d->cfg.sink;
		d->cfg.sink = sink;
	}
	state = fresh.tagbot.state;
	fresh.tagbot.state = d->cfg.tagbot.state;
	d->cfg.tagbot.state = state;
	config_release(&d->cfg);
	d->cfg = fresh;
	settings_build(d);
	log_setup(d->cfg.tagbot.log, d->cfg.tagbot.log_level, "tagbot");
	if (daemon_lookup_open(d, &e) < 0)
		log_msg(LOGL_ERROR, "reload: %s; lookups are off", e.msg);
	log_msg(LOGL_INFO, "reloaded %s (rules, [reply], [lookup]%s; [source]%s and state keep "
		"their values until a restart)", d->o->config, sink_new ? " and [sink]" : "",
		sink_new ? "" : ", [sink]");
}

/* max, or less when a reply comes due (or the failing sink is tried). */
static int wait_seconds(struct daemon *d, time_t now, int max)
{
	time_t when;
	struct err e;
	bool found;

	/* A failing sink: its queued replies are due, but wait for it. */
	if (d->sink.failing && d->sink.retry_at > now)
		max = daemon_sink_wait(d, max);
	else if (d->st && !d->dry && store_outbox_next_time(d->st, &when, &found, &e) == 0 &&
		 found && when - now < max)
		max = when - now < WAIT_MIN_S ? WAIT_MIN_S : (int)(when - now);
	/* Mail not delivered is asked for again when its retry is due, and
	 * the claim of a daemon gone is taken over when its lease ends. */
	max = daemon_claims_wait(d, now, max);
	return daemon_retries_wait(d, now, daemon_series_wait(d, now, max));
}

/* A message from the source: through the pipeline, in the open batch. */
static int take(void *aux, const struct origin *o, const char *raw, size_t len, struct err *e)
{
	struct daemon *d = aux;
	struct source *s = d->pipeline.b.src;

	if (daemon_process_one(d, o, raw, len, e) < 0)
		return -1;
	if (daemon_got_stop)
		return SOURCE_STOP;
	return d->pipeline.b.n >= (size_t)s->c->batch ? SOURCE_FULL : SOURCE_MORE;
}

/* The source is between fetches: commit the batch, then send. */
static int end_batch(void *aux, struct err *e)
{
	struct daemon *d = aux;

	if (daemon_batch_end(d, e) < 0 || (e && daemon_drain(d, e) < 0))
		return -1;
	return daemon_got_stop ? SOURCE_STOP : SOURCE_MORE;
}

/* One source's turn: connect if needed, fetch.  -1: e says what. */
static int poll_source(struct daemon *d, struct source *s, struct err *e)
{
	const struct source_cb cb = { take, end_batch, d };

	d->pipeline.b.src = s;
	err_init(e);
	if (!s->ops->connected(s) && s->ops->open(s, e) < 0)
		return -1;
	return s->ops->poll(s, &cb, e);
}

/*
 * After source s failed: give up (-1), or close it and try it again after
 * its back-off (0).  One source alone gives up on a final error, as
 * before there were several; among several, a source whose settings are
 * wrong (a refused login) waits the longest back-off and the others go on.
 */
static int source_failed(struct daemon *d, struct source *s, const struct err *e)
{
	struct jobctx c;
	double delay;

	if (!s->ops->local && s->ops->connected(s))
		s->ops->close(s);
	s->more = false;
	/* A wait for the server that a SIGTERM cut short: no retry to tell of. */
	if (daemon_got_stop) {
		log_msg(LOGL_INFO, "%s%s%s", d->sources.n == 1 ? "" : s->label,
			d->sources.n == 1 ? "" : " ", e->msg);
		return 0;
	}
	if (d->o->once || (e->cls == ERR_FINAL && d->sources.n == 1))
		return -1;
	if (e->cls == ERR_FINAL)
		s->backoff_step = UINT_MAX / 2;	/* the cap */
	delay = daemon_backoff_next(&s->backoff_step);
	if (d->sources.n == 1)
		log_msg(LOGL_WARNING, "%s; retrying in %.1f s", e->msg, delay);
	else
		log_msg(e->cls == ERR_FINAL ? LOGL_ERROR : LOGL_WARNING, "%s %s; retrying it in "
			"%.1f s, the other sources go on", s->label, e->msg, delay);
	daemon_jobctx(&c, d, s);	/* the back-off runs from the failure */
	s->retry_at = c.now + (time_t)(delay + 0.999);
	return 0;
}

time_t daemon_source_due_at(const struct daemon *d, const struct source *s, time_t now)
{
	time_t t;

	/* retry_at is cleared by the first poll that works: one that is past
	 * is a retry due now, not a source back to its poll_interval (the
	 * clock may have passed it between source_failed() and the sleep) */
	if (s->retry_at)
		return s->retry_at;
	if (d->sources.n == 1)
		return now + s->c->poll_interval;
	t = s->next_poll;
	/* another daemon's claim of its folder that runs out is read on then */
	if (s->one.claim_wake && s->one.claim_wake < t)
		t = s->one.claim_wake;
	return t;
}

bool daemon_source_due(const struct daemon *d, const struct source *s, time_t now)
{
	if (d->o->once)
		return true;
	if (s->retry_at > now)
		return false;
	return d->sources.n == 1 || daemon_source_due_at(d, s, now) <= now ||
	       daemon_retries_due_at(s, now);
}

/* One round: the held replies and series that are due, each source that
 * is due, then the series and the outbox.  The due ones go first: a new
 * mail must not take the room a limit just freed from the replies that
 * waited for it (they take turns, daemon_series.c). */
static int round_trip(struct daemon *d, struct err *e)
{
	struct jobctx c, polled;

	daemon_jobctx(&c, d, NULL);
	if (daemon_series_flush(d, c.now, e) < 0)
		return -1;
	for (size_t i = 0; i < d->sources.n && !daemon_got_stop; i++) {
		struct source *s = d->sources.v[i];

		if (!daemon_source_due(d, s, c.now))
			continue;
		if (poll_source(d, s, e) < 0) {
			if (source_failed(d, s, e) < 0)
				return -1;
			continue;
		}
		/* a poll takes a while: the next counts from its end */
		daemon_jobctx(&polled, d, s);
		s->backoff_step = 0;
		s->retry_at = 0;
		s->next_poll = s->more ? 0 : polled.now + s->c->poll_interval;
	}
	err_init(e);
	/* Series whose series_wait ran out get their one reply (per-series),
	 * as of the polls' end. */
	daemon_jobctx(&polled, d, NULL);
	if (daemon_series_flush(d, polled.now, e) < 0)
		return -1;
	return daemon_drain(d, e);
}

/* Whether s's wait ends when new mail comes (IDLE). */
static bool can_idle(const struct source *s)
{
	return s->ops->can_idle && s->ops->can_idle(s);
}

/* The source whose wait() the loop sleeps in: one source alone with a
 * wait of its own, else the first source that can be told of new mail
 * (the others are polled when the wait ends for them). */
static struct source *waiter(struct daemon *d)
{
	for (size_t i = 0; i < d->sources.n; i++) {
		struct source *s = d->sources.v[i];

		if (!s->ops->wait || !s->ops->connected(s) || s->retry_at)
			continue;	/* a source to connect again is polled */
		if (d->sources.n == 1 || can_idle(s))
			return s;
	}
	return NULL;
}

/* Seconds until the next source is due (its poll_interval, its back-off);
 * the waiter is due when its wait ends. */
static int sources_wait(struct daemon *d, const struct source *w, time_t now)
{
	int max = IMAP_IDLE_MAX_S;

	if (w && !can_idle(w))
		max = w->c->poll_interval;
	for (size_t i = 0; i < d->sources.n; i++) {
		const struct source *s = d->sources.v[i];
		time_t t = daemon_source_due_at(d, s, now);

		if (s == w)
			continue;
		if (t - now < max)
			max = t - now < WAIT_MIN_S ? WAIT_MIN_S : (int)(t - now);
	}
	return max;
}

/* Sleeps until something is due: in the waiter's wait (IDLE) or a plain
 * sleep; a failed wait is the waiter's failure.  -1: give up. */
static int wait_all(struct daemon *d, struct err *e)
{
	struct source *w = waiter(d);
	struct jobctx c;
	int max;
	struct err we;

	daemon_jobctx(&c, d, w);
	max = daemon_smtp_idle_wait(d, wait_seconds(d, c.now, sources_wait(d, w, c.now)));
	if (!w) {
		daemon_sleep_for(&d->sig, max);
		return 0;
	}
	err_init(&we);
	if (w->ops->wait(w, max, &we) < 0 && source_failed(d, w, &we) < 0) {
		*e = we;
		return -1;
	}
	w->next_poll = 0;	/* it is polled now, mail or not */
	return 0;
}

/* Whether a source's last poll stopped at a bound with mail left. */
static bool sources_more(const struct daemon *d)
{
	for (size_t i = 0; i < d->sources.n; i++)
		if (d->sources.v[i]->more)
			return true;
	return false;
}

static int loop(struct daemon *d, struct err *e)
{
	while (!daemon_got_stop) {
		if (daemon_got_reload)
			reload(d);
		err_init(e);
		if (round_trip(d, e) < 0) {
			double delay;

			if (d->o->once || e->cls == ERR_FINAL)
				return -1;
			/* the store or the sink's drain: all sources wait */
			delay = daemon_backoff_next(&d->backoff_step);
			log_msg(LOGL_WARNING, "%s; retrying in %.1f s", e->msg, delay);
			daemon_sleep_for(&d->sig, delay);
			continue;
		}
		d->backoff_step = 0;
		if ((d->o->once && !sources_more(d)) || daemon_got_stop)
			break;
		daemon_signals_deliver(&d->sig);
		if (daemon_got_stop || daemon_got_reload || sources_more(d))
			continue;	/* the rest of a bounded poll comes at once */
		if (wait_all(d, e) < 0)
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------- start, stop */

static time_t env_now(void *aux)
{
	return daemon_now(aux);
}

static int env_known(void *aux, const char *id, bool *known, struct err *e)
{
	return daemon_known(aux, id, known, e);
}

static uint32_t env_hold(void *aux, uint32_t last_uid)
{
	return daemon_hold(aux, last_uid);
}

/* What the sources get of d, instead of d; once the store is open. */
static void env_build(struct daemon *d)
{
	d->sources.env = (struct source_env){
		.st = d->st, .wait_mask = &d->sig.wait_mask, .stop = &daemon_got_stop,
		.claims = daemon_claims_shared(d),
		.now = env_now, .known = env_known, .hold = env_hold, .aux = d,
	};
}

/* d->sources.v for the sources of v (n of them): nothing opened, d->sources.env
 * theirs. */
static void sources_build(struct daemon *d, const struct config_source *const *v, size_t n)
{
	d->sources.v = xcalloc(n, sizeof(*d->sources.v));
	d->sources.n = n;
	for (size_t i = 0; i < n; i++)
		d->sources.v[i] = daemon_source_new(v[i], &d->sources.env);
	d->pipeline.b.src = d->sources.v[0];
}

static void sources_free(struct daemon *d)
{
	for (size_t i = 0; i < d->sources.n; i++) {
		daemon_claim_release(d, d->sources.v[i]);
		daemon_source_free(d->sources.v[i]);
	}
	free(d->sources.v);
	d->sources.v = NULL;
	d->pipeline.b.src = NULL;
	d->sources.n = 0;
}

/* The sources' store names, for the log: "maildir:/x, nntp:host:119". */
static char *sources_text(const struct daemon *d)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < d->sources.n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", d->sources.v[i]->id);
	return buf_detach(&b, NULL);
}

/*
 * A dry run decides into a scratch copy of the state (an empty one when
 * there is no state yet): the series, held replies, rate limits and
 * checkpoints take the paths of a real run, and the state is not written.
 */
static int store_open_dry(struct daemon *d, struct err *e)
{
	struct store_settings ss;

	store_settings_init(&ss);
	if (scratch_create(&d->scratch, "dry-run", e) < 0 ||
	    store_snapshot(d->cfg.tagbot.state, d->scratch.db, ss.busy_timeout_ms, e) < 0)
		return err_prefix(e, "[tagbot] state");
	ss.path = d->scratch.db;
	if (store_open(&d->st, &ss, e) < 0)
		return err_prefix(e, "[tagbot] state (its scratch copy)");
	return 0;
}

int daemon_state_settings(const struct config_tagbot *t, struct store_settings *ss,
			  char **password, struct err *e)
{
	store_settings_init(ss);
	ss->path = t->state;
	*password = NULL;
	if (store_is_url(t->state) &&
	    secret_get(t->state_password_file, t->state_password_command, password, e) < 0)
		return err_prefix(e, "[tagbot] state_password");
	ss->password = *password;
	return 0;
}

static int store_open_for(struct daemon *d, struct err *e)
{
	struct store_settings ss;
	char *dir, *slash, *password;
	int rc;

	if (d->dry)
		return store_open_dry(d, e);
	dir = xstrdup(d->cfg.tagbot.state);
	slash = strrchr(dir, '/');
	rc = 0;
	if (slash && slash != dir && !store_is_url(dir)) {
		*slash = '\0';
		rc = daemon_make_dirs(dir, e);
	}
	free(dir);
	if (rc < 0)
		return err_prefix(e, "[tagbot] state");
	if (daemon_state_settings(&d->cfg.tagbot, &ss, &password, e) < 0)
		return -1;
	rc = store_open(&d->st, &ss, e);
	secret_free(password);
	return rc < 0 ? err_prefix(e, "[tagbot] state") : 0;
}

/*
 * The rate limits' windows live in the store (policy.h, store.h): every
 * daemon on one state counts every reply, and a restart keeps them.  A
 * store error fails closed: the window reads full and the reply is held
 * (kept, not lost); the next store call of the transaction meets the
 * error too (PostgreSQL) and fails it.
 */
static unsigned rate_count(void *ctx, const char *key, time_t since)
{
	struct daemon *d = ctx;
	struct store_rate_window w = { key, since };
	struct err e;
	long n;

	if (store_rate_count(d->st, &w, &n, &e) < 0) {
		log_msg(LOGL_ERROR, "rate limits: %s", e.msg);
		return UINT_MAX;
	}
	return n < 0 ? 0 : n > (long)UINT_MAX ? UINT_MAX : (unsigned)n;
}

static time_t rate_nth(void *ctx, const char *key, time_t since, unsigned n)
{
	struct daemon *d = ctx;
	struct store_rate_window w = { key, since };
	struct err e;
	time_t t;

	if (store_rate_nth(d->st, &w, (long)n, &t, &e) < 0)
		log_msg(LOGL_ERROR, "rate limits: %s", e.msg);
	return t;
}

static time_t rate_last(void *ctx, const char *key, time_t since)
{
	struct daemon *d = ctx;
	struct store_rate_window w = { key, since };
	struct err e;
	time_t t;

	if (store_rate_last(d->st, &w, &t, &e) < 0)
		log_msg(LOGL_ERROR, "rate limits: %s", e.msg);
	return t;
}

/* With the global event of each reply, the events older than every window
 * go: the table holds the last hour, so a check costs the same however
 * long the daemon runs. */
static void rate_add(void *ctx, const char *key, time_t t)
{
	struct daemon *d = ctx;
	struct err e;

	if (store_rate_note(d->st, key, t, &e) < 0 ||
	    (!*key && store_rate_prune(d->st, daemon_now(d) - DAEMON_RATE_WINDOW_S, &e) < 0))
		log_msg(LOGL_ERROR, "rate limits: %s", e.msg);
}

static void rate_in_store(struct daemon *d)
{
	const struct policy_events ev = { rate_count, rate_nth, rate_last, rate_add, d };

	policy_set_events(d->pipeline.pol, &ev);
}

static int start(struct daemon *d, struct err *e)
{
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	size_t nsrcs;

	if (config_load_report(&d->cfg, d->o->config, log_problem, "", e) < 0 ||
	    config_check_daemon(&d->cfg, log_problem, "", e) < 0)
		return -1;
	d->dry = d->o->dry_run || d->cfg.tagbot.dry_run;
	if (d->dry) {	/* the sources' flags are the real run's to set */
		d->cfg.source.mark_seen = false;
		for (size_t i = 0; i < d->cfg.nsources; i++)
			d->cfg.sources[i].mark_seen = false;
	}
	log_setup(d->cfg.tagbot.log, d->cfg.tagbot.log_level, "tagbot");
	settings_build(d);
	d->pipeline.pol = policy_new();
	nsrcs = config_sources(&d->cfg, v, ARRAY_SIZE(v));
	sources_build(d, v, nsrcs);
	if (d->cfg.sink.type == SINK_SMTP && daemon_finds_copy(d))
		d->sink.copy_to = addr_spec(d->cfg.sink.copy_to ? d->cfg.sink.copy_to : d->cfg.reply.from);
	if (store_open_for(d, e) < 0)
		return -1;
	env_build(d);
	rate_in_store(d);
	if (daemon_sink_open(d, e) < 0 || daemon_lookup_open(d, e) < 0)
		return -1;
	/* A Maildir that cannot be opened is a setting to fix: no start. */
	for (size_t i = 0; i < d->sources.n; i++) {
		struct source *s = d->sources.v[i];

		if (s->ops->local && s->ops->open(s, e) < 0)
			return d->sources.n > 1 ? err_prefix(e, "%s", s->label) : -1;
	}
	return 0;
}

static void finish(struct daemon *d)
{
	sources_free(d);
	daemon_lookup_close(d);
	smtp_pool_free(d->sink.pool);	/* before the password it may still use */
	secret_free(d->sink.password);
	maildir_release(&d->sink.out);
	store_close(d->st);
	scratch_release(&d->scratch);	/* after the store: its files are in there */
	policy_free(d->pipeline.pol);
	daemon_batch_release(&d->pipeline.b);
	free(d->sink.copy_to);
	config_release(&d->cfg);
}

/* ------------------------------------------------------------ offline */

int daemon_offline_open(struct daemon **out, const struct daemon_offline_opts *o,
			struct err *e)
{
	struct daemon *d = xcalloc(1, sizeof(*d));
	const struct config_source *v[1];
	struct store_settings ss;

	*out = d;
	scratch_init(&d->scratch);
	d->oo.config = o->config;
	d->oo.out = stdout;
	d->o = &d->oo;
	d->recorder.on_decision = o->on_decision;
	d->recorder.on_reply = o->on_reply;
	d->recorder.arg = o->arg;
	config_init(&d->cfg);
	maildir_init(&d->sink.out);
	if (config_load(&d->cfg, o->config, e) < 0)
		return -1;
	d->cfg.source.mark_seen = false;	/* the messages are not the source's */
	settings_build(d);
	d->pipeline.pol = policy_new();
	/* one source, never opened: the store's rows say "replay" */
	v[0] = &d->cfg.source;
	sources_build(d, v, 1);
	free(d->pipeline.b.src->id);
	d->pipeline.b.src->id = xstrdup("replay");
	free(d->pipeline.b.src->one.name);
	d->pipeline.b.src->one.name = xstrdup("");
	if (scratch_create(&d->scratch, "replay", e) < 0)
		return -1;
	store_settings_init(&ss);
	ss.path = d->scratch.db;
	if (store_open(&d->st, &ss, e) < 0)
		return -1;
	env_build(d);
	rate_in_store(d);
	return 0;
}

int daemon_offline_take(struct daemon *d, const struct daemon_mail *m, struct err *e)
{
	struct origin o = { 0, m->name, UNREAD_ERROR, NULL, 0 };
	struct jobctx c;

	d->clock = m->clock;
	daemon_jobctx(&c, d, NULL);
	if (daemon_series_flush(d, c.now, e) < 0 ||
	    daemon_process_one(d, &o, m->raw, m->len, e) < 0)
		return -1;
	if (d->pipeline.b.n >= DAEMON_OFFLINE_BATCH)
		return daemon_batch_end(d, e);
	return 0;
}

int daemon_offline_finish(struct daemon *d, struct err *e)
{
	struct jobctx c;

	/* a clock at which every series still waiting is due: each waits at
	 * most CONFIG_MAX_SERIES_WAIT from a mail, none later than the clock */
	daemon_jobctx(&c, d, NULL);
	if (daemon_series_flush(d, c.now + CONFIG_MAX_SERIES_WAIT + 1, e) < 0)
		return -1;
	return daemon_batch_end(d, e);
}

void daemon_offline_close(struct daemon *d)
{
	if (!d)
		return;
	finish(d);
	free(d);
}

int daemon_run(const struct daemon_opts *o, struct err *e)
{
	struct daemon d;
	int rc;

	memset(&d, 0, sizeof(d));
	scratch_init(&d.scratch);
	d.o = o;
	config_init(&d.cfg);
	maildir_init(&d.sink.out);
	daemon_signals_install(&d.sig);
	rc = start(&d, e);
	if (rc == 0) {
		char *ids = sources_text(&d);

		log_msg(LOGL_INFO, "running: %s -> %s%s%s", ids,
			d.cfg.sink.type == SINK_SMTP ? d.cfg.sink.url : d.cfg.sink.path,
			d.dry ? " (dry run: decided into a scratch copy of the state, nothing sent)" : "",
			o->once ? " (once)" : "");
		free(ids);
		rc = loop(&d, e);
		if (d.dry)
			log_msg(LOGL_INFO, "%s: %zu messages looked at, %zu replies printed (dry run)",
				daemon_got_stop ? "stopped" : "done", d.pipeline.handled, d.recorder.printed);
		else
			log_msg(LOGL_INFO, "%s: %zu messages looked at, %zu replies sent, %zu "
				"confirmed, %zu failed", daemon_got_stop ? "stopped" : "done",
				d.pipeline.handled, d.sink.ds.sent, d.sink.ds.confirmed, d.sink.ds.failed);
	}
	finish(&d);
	daemon_signals_restore(&d.sig);
	return rc;
}
