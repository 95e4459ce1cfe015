/*
 * daemon.c - `tagbot run`: fetch -> parse -> check -> decide -> record ->
 * reply, and `tagbot status`.
 *
 * Delivery guarantee: each patch gets at most one reply, and every patch
 * that needs one gets it, across the list copy plus a Cc copy of one mail,
 * restarts, SIGKILL at any point, IMAP and SMTP outages.  How:
 *
 * 1. Every fetched message is keyed by its normalized Message-ID
 *    (store_msgid_key; a mail without one by a hash of its content).  A key
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
 * 4. First start without a checkpoint begins at UIDNEXT unless backfill =
 *    yes; a UIDVALIDITY change rescans from UID 1, deduplicated by (1).
 *
 * The exceptions, by design: a patch held back by a rate limit is recorded
 * as skipped (logged) and not answered later; with an SMTP sink and a
 * Maildir source there is no mailbox to look in, so a reply whose send was
 * interrupted is sent again after the hold (at least once in that window).
 *
 * Signals only set flags.  They are blocked while we work and let through
 * at the points where stopping or reloading is safe (between messages, and
 * while waiting: ppoll() and imap_wait() sleep with them unblocked).
 */
#include "autoconf.h"
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "address.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "deliver.h"
#include "imap_source.h"
#include "log.h"
#include "maildir.h"
#include "message.h"
#include "patch.h"
#include "policy.h"
#include "reply.h"
#include "rules.h"
#include "secret.h"
#include "smtp_sink.h"
#include "store.h"

#define RAW_MSGID_MAX		998	/* bytes of a Message-ID read from the raw header */
#define HEADER_SCAN_MAX		((size_t)256 * 1024) /* raw header bytes looked at */
#define SINK_SCAN_MAX		((size_t)4 * 1024 * 1024) /* a sink file larger is not ours */
#define DRY_SEEN_MAX		100000	/* keys a store-less dry run remembers */
#define DRAIN_CHUNK		50	/* replies per deliver_drain(), signals between */
#define WAIT_MIN_S		1

/* ------------------------------------------------------------ signals */

static volatile sig_atomic_t got_stop, got_reload;

static void on_stop(int sig)
{
	(void)sig;
	got_stop = 1;
}

static void on_reload(int sig)
{
	(void)sig;
	got_reload = 1;
}

struct signals {
	sigset_t run_mask;	/* while working: ours blocked */
	sigset_t wait_mask;	/* while sleeping: ours let through */
	sigset_t saved;		/* the caller's mask, restored at the end */
	struct sigaction old[4];
};

static const int handled_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE };

static void signals_install(struct signals *s)
{
	sigset_t ours;

	got_stop = got_reload = 0;
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* No SA_RESTART: a sleep must end when a signal comes. */
		sa.sa_handler = handled_signals[i] == SIGHUP ? on_reload :
				handled_signals[i] == SIGPIPE ? SIG_IGN : on_stop;
		sigaction(handled_signals[i], &sa, &s->old[i]);
	}
	sigemptyset(&ours);
	sigaddset(&ours, SIGTERM);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGHUP);
	sigprocmask(SIG_BLOCK, &ours, &s->saved);
	sigprocmask(SIG_BLOCK, NULL, &s->run_mask);
	s->wait_mask = s->run_mask;
	sigdelset(&s->wait_mask, SIGTERM);
	sigdelset(&s->wait_mask, SIGINT);
	sigdelset(&s->wait_mask, SIGHUP);
}

static void signals_restore(struct signals *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &s->old[i], NULL);
	sigprocmask(SIG_SETMASK, &s->saved, NULL);
}

/* Lets a pending signal run its handler (sets its flag), then blocks again. */
static void signals_deliver(const struct signals *s)
{
	sigprocmask(SIG_SETMASK, &s->wait_mask, NULL);
	sigprocmask(SIG_SETMASK, &s->run_mask, NULL);
}

/* Sleeps up to seconds, ended early by a signal. */
static void sleep_for(const struct signals *s, double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	ppoll(NULL, 0, &ts, &s->wait_mask);
}

/* ---------------------------------------------------------- the state */

/* Messages handled since the last commit, to mark seen once it is durable. */
struct batch {
	bool open;		/* the outer transaction is open */
	size_t n;
	uint32_t *uids;		/* owned */
	size_t nuids, auids;
	char **names;		/* owned; Maildir names */
	size_t nnames, anames;
	bool failed;		/* a store error: roll the batch back */
};

/* Keys a dry run without a state file has seen (it records nothing). */
struct memo {
	char **v;		/* owned */
	size_t n, alloc;
};

struct daemon;

struct source_ops {
	const char *name;
	int (*open)(struct daemon *d, struct err *e);
	/* Hands every new message to process_one(), batch by batch. */
	int (*poll)(struct daemon *d, struct err *e);
	/* Waits up to max_s for new mail or a signal. */
	int (*wait)(struct daemon *d, int max_s, struct err *e);
	void (*close)(struct daemon *d);
};

struct daemon {
	const struct daemon_opts *o;
	struct config cfg;		/* owned; rules and [reply] reloaded on SIGHUP */
	bool dry;
	struct signals sig;
	struct store *st;		/* owned; NULL in a dry run without a state file */
	struct policy *pol;		/* owned */
	struct reply_settings rs;	/* points into cfg */
	struct policy_settings ps;	/* points into cfg */

	const struct source_ops *src;
	char *source_id;		/* owned; "imap:user@host" or "maildir:PATH" */
	const char *folder;		/* foreign (cfg); "" for a Maildir */
	struct maildir in;		/* Maildir source */
	struct imap_source *imap;	/* owned; NULL while disconnected */
	struct store_checkpoint cp;	/* as of the last message handled */
	struct store_checkpoint cp_committed;
	bool cp_known;
	bool batch_full;		/* the fetch stopped for a commit */

	struct maildir out;		/* Maildir sink */
	struct smtp_settings smtp;	/* the SMTP sink; strings foreign (cfg) but: */
	char *smtp_password;		/* owned; a secret */
	char *copy_to;			/* owned; extra envelope recipient, or NULL */

	struct batch b;
	struct memo memo;
	struct buf raw;			/* a Maildir message being read */
	struct deliver_stats ds;
	unsigned backoff_step;
	size_t handled;			/* messages looked at */
};

static void memo_add(struct memo *m, const char *key)
{
	if (m->n >= DRY_SEEN_MAX)
		return;
	ARRAY_GROW(m->v, m->alloc, m->n + 1);
	m->v[m->n++] = xstrdup(key);
}

static bool memo_has(const struct memo *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i], key))
			return true;
	return false;
}

static void memo_release(struct memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ settings */

static const char *const no_patterns[1] = { NULL };

/* reply.c's and policy.c's settings point into d->cfg: rebuilt on reload. */
static void settings_build(struct daemon *d)
{
	const struct config_reply *c = &d->cfg.reply;

	reply_settings_init(&d->rs);
	d->rs.from = c->from;
	d->rs.to = c->to;
	d->rs.reply_to = c->reply_to;
	d->rs.footer = c->footer;
	d->rs.min_severity = d->cfg.tagbot.min_reply_severity;
	d->rs.bot_addresses = (const char *const *)c->bot_addresses.v;
	d->rs.nbot_addresses = c->bot_addresses.n;

	policy_settings_init(&d->ps);
	d->ps.min_reply_severity = d->cfg.tagbot.min_reply_severity;
	d->ps.from = c->from;
	d->ps.bot_addresses = d->rs.bot_addresses;
	d->ps.nbot_addresses = d->rs.nbot_addresses;
	if (c->ignore_senders.set) {
		d->ps.ignore_senders = c->ignore_senders.n ?
			(const char *const *)c->ignore_senders.v : no_patterns;
		d->ps.nignore_senders = c->ignore_senders.n;
	}
	d->ps.max_per_author_per_hour = (unsigned)c->max_per_author_per_hour;
	d->ps.max_per_minute = (unsigned)c->max_per_minute;
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

/* ------------------------------------------------------- raw messages */

static bool header_named(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && p[k] == ':' && !strncasecmp(p, name, k);
}

/*
 * The Message-ID from the raw header, without parsing the mail: enough to
 * skip one the store has seen (a rescan, a re-listed Maildir) cheaply.
 * Folded values are not followed; the parsed header decides then.
 */
static char *raw_message_id(const char *raw, size_t len)
{
	size_t i = 0, max = len < HEADER_SCAN_MAX ? len : HEADER_SCAN_MAX;

	while (i < max) {
		const char *nl = memchr(raw + i, '\n', max - i);
		size_t n = nl ? (size_t)(nl - (raw + i)) : max - i;
		const char *v = raw + i, *end = raw + i + n;

		if (n == 0 || (n == 1 && raw[i] == '\r'))
			break;
		if (header_named(v, n, "Message-ID")) {
			v += strlen("Message-ID:");
			while (v < end && (*v == ' ' || *v == '\t' || *v == '<'))
				v++;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t' ||
					   end[-1] == '>'))
				end--;
			if (end > v && (size_t)(end - v) <= RAW_MSGID_MAX && !memchr(v, '\0', end - v))
				return xstrndup(v, (size_t)(end - v));
			return NULL;
		}
		i += n + 1;
	}
	return NULL;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A key for a mail without a usable Message-ID: the same content under
 * another file name or UID gives the same key. */
static char *synthetic_key(const struct message *msg, const char *raw, size_t len)
{
	static const char *const names[] = { "From", "Subject", "Date" };
	uint64_t h = 0xcbf29ce484222325ULL;
	char key[64];

	if (msg) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			const char *v = message_header_raw(msg, names[i]);

			if (v)
				h = fnv1a(h, v, strlen(v) + 1);
		}
		h = fnv1a(h, msg->text, msg->text_len);
	} else {
		h = fnv1a(h, raw, len);
	}
	snprintf(key, sizeof(key), "no-message-id.%016" PRIx64 "@tagbot.invalid", h);
	return xstrdup(key);
}

/* ----------------------------------------------------------- recording */

/* Where a message came from, for the store and the log. */
struct origin {
	uint32_t uid;		/* 0 for a Maildir */
	const char *name;	/* Maildir name, NULL for IMAP */
};

static void origin_text(const struct daemon *d, const struct origin *o, char *out, size_t n)
{
	if (o->name)
		snprintf(out, n, "file %s", o->name);
	else
		snprintf(out, n, "%s uid %" PRIu32, d->folder, o->uid);
}

/* Whether the store can key a message by s. */
static bool key_usable(const char *s)
{
	char *k = s ? store_msgid_key(s) : NULL;

	free(k);
	return k != NULL;
}

static int seen(struct daemon *d, const char *key, bool *yes, struct err *e)
{
	*yes = false;
	if (!key_usable(key))
		return 0;	/* the caller uses another key */
	if (d->st && store_seen(d->st, key, yes, e) < 0)
		return -1;
	if (!*yes && d->dry) {
		char *k = store_msgid_key(key);

		*yes = memo_has(&d->memo, k);
		free(k);
	}
	return 0;
}

static void fill_row(const struct daemon *d, const struct origin *o, const char *key,
		     const char *kind, enum store_decision dec, const char *why,
		     struct store_message *m)
{
	memset(m, 0, sizeof(*m));
	m->msgid = key;
	m->source = d->source_id;
	m->folder = d->folder;
	m->uid = o->uid;
	m->kind = kind;
	m->decision = dec;
	m->why = why;
	m->time = time(NULL);
}

static int record(struct daemon *d, const struct origin *o, const char *key, const char *kind,
		  enum store_decision dec, const char *why, struct err *e)
{
	struct store_message m;

	if (d->dry) {
		char *k = store_msgid_key(key);

		if (k)
			memo_add(&d->memo, k);
		free(k);
		return 0;
	}
	fill_row(d, o, key, kind, dec, why, &m);
	return store_record_message(d->st, &m, NULL, e);
}

/* mboxrd: what a dry run prints, so it can be read back (tagbot check -). */
static void print_reply(struct daemon *d, const struct reply *r)
{
	FILE *f = d->o->out ? d->o->out : stdout;
	time_t now = time(NULL);
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

/* The envelope: the reply's recipients, plus the bot's own mailbox. */
static void envelope(const struct daemon *d, const struct reply *r, const char **rcpt,
		     size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < r->nrcpt && *n < REPLY_MAX_RCPT; i++)
		rcpt[(*n)++] = r->rcpt[i];
	if (!d->copy_to)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcasecmp(rcpt[i], d->copy_to))
			return;
	rcpt[(*n)++] = d->copy_to;
}

static void log_queued(const struct reply *r, const struct patch *p, const struct findings *f)
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

static int queue_reply(struct daemon *d, const struct origin *o, const char *key,
		       const struct patch *p, const struct findings *f, struct err *e)
{
	const char *rcpt[REPLY_MAX_RCPT + 1];
	struct store_outgoing out;
	struct store_message m;
	enum store_enqueue res;
	struct reply r;
	struct err re;
	int rc = 0;

	reply_init(&r);
	if (reply_build(&r, p, f, &d->rs, time(NULL), &re) < 0) {
		log_message(LOGL_WARNING, key, "no reply: %s", re.msg);
		reply_release(&r);
		return record(d, o, key, patch_kind_name(p->kind), STORE_SKIPPED, "no-reply", e);
	}
	if (d->dry) {
		print_reply(d, &r);
		reply_release(&r);
		return record(d, o, key, patch_kind_name(p->kind), STORE_REPLIED, NULL, e);
	}
	fill_row(d, o, key, patch_kind_name(p->kind), STORE_REPLIED, NULL, &m);
	m.reply_msgid = r.msgid;
	memset(&out, 0, sizeof(out));
	out.reply_msgid = r.msgid;
	out.parent_msgid = key;
	out.envelope_from = r.envelope_from;
	envelope(d, &r, rcpt, &out.nrcpt);
	out.rcpt = rcpt;
	out.raw = r.raw;
	out.len = r.len;
	rc = store_record_reply(d->st, &m, &out, time(NULL), &res, e);
	if (rc == 0 && res == STORE_QUEUED) {
		policy_note_reply(d->pol, p, time(NULL));
		log_queued(&r, p, f);
	}
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

static int decide(struct daemon *d, const struct origin *o, const char *key,
		  const struct patch *p, size_t np, struct err *e)
{
	const struct patch *lead = lead_part(p, np);
	const char *kind = patch_kind_name(lead->kind);
	struct policy_decision dec;
	struct findings f;
	int rc;

	findings_init(&f);
	for (size_t i = 0; i < np; i++)
		if (p[i].kind == KIND_PATCH || p[i].kind == KIND_COVER)
			rules_run(&p[i], &d->cfg.rules, &f);
	policy_decide(d->pol, &d->ps, lead, &f, time(NULL), &dec);
	switch (dec.verdict) {
	case POLICY_REPLY:
		rc = queue_reply(d, o, key, lead, &f, e);
		break;
	case POLICY_CLEAN:
		log_message(LOGL_DEBUG, key, "clean");
		rc = record(d, o, key, kind, STORE_CLEAN, NULL, e);
		break;
	case POLICY_HOLD:
		log_message(LOGL_WARNING, key, "held back, not answered: %s (%zu findings)",
			    policy_reason_name(dec.reason), dec.nfindings);
		rc = record(d, o, key, kind, STORE_SKIPPED, policy_reason_name(dec.reason), e);
		break;
	default:
		log_message(LOGL_DEBUG, key, "skipped: %s%s%s", policy_reason_name(dec.reason),
			    dec.matched ? " " : "", dec.matched ? dec.matched : "");
		rc = record(d, o, key, kind, STORE_SKIPPED, policy_reason_name(dec.reason), e);
		break;
	}
	findings_release(&f);
	return rc;
}

/* A mail that cannot be parsed: logged and recorded, never retried. */
static int unparsable(struct daemon *d, const struct origin *o, const char *rawid,
		      const char *raw, size_t len, const char *why, struct err *e)
{
	char where[512];
	char *key = key_usable(rawid) ? xstrdup(rawid) : synthetic_key(NULL, raw, len);
	bool known;
	int rc = seen(d, key, &known, e);

	if (rc == 0 && !known) {
		origin_text(d, o, where, sizeof(where));
		log_message(LOGL_WARNING, rawid, "%s: skipped: %s", where, why);
		rc = record(d, o, key, "other", STORE_ERROR, NULL, e);
	}
	free(key);
	return rc;
}

/* A message too large to fetch or unreadable: keyed by where it is, so
 * it is logged and recorded once. */
static int unreadable(struct daemon *d, const struct origin *o, struct err *e)
{
	char where[512];
	char *key;
	bool known;
	int rc;

	origin_text(d, o, where, sizeof(where));
	key = synthetic_key(NULL, where, strlen(where));
	rc = seen(d, key, &known, e);
	if (rc == 0 && !known) {
		log_msg(LOGL_WARNING, "%s: skipped: too large or unreadable", where);
		rc = record(d, o, key, "other", STORE_ERROR, NULL, e);
	}
	free(key);
	return rc;
}

/* One message: everything but store errors is recorded as a decision. */
static int handle(struct daemon *d, const struct origin *o, const char *raw, size_t len,
		  struct err *e)
{
	char *rawid = raw ? raw_message_id(raw, len) : NULL, *key = NULL;
	struct message msg;
	struct patch *p = NULL;
	size_t np = 0;
	struct err pe;
	bool known = false;
	int rc = -1;

	message_init(&msg);
	if (rawid && seen(d, rawid, &known, e) < 0)
		goto out;
	if (known) {
		rc = 0;
		goto out;
	}
	if (!raw) {
		rc = unreadable(d, o, e);
		goto out;
	}
	if (message_parse(&msg, raw, len, &pe) < 0) {
		rc = unparsable(d, o, rawid, raw, len, pe.msg, e);
		goto out;
	}
	patch_parse(&msg, &p, &np);
	key = key_usable(p[0].message_id) ? xstrdup(p[0].message_id)
					   : synthetic_key(&msg, NULL, 0);
	if (seen(d, key, &known, e) < 0)
		goto out;
	rc = known ? 0 : decide(d, o, key, p, np, e);
out:
	if (p)
		patches_free(p, np);
	message_release(&msg);
	free(rawid);
	free(key);
	return rc;
}

/* ------------------------------------------------------------- batches */

static int batch_begin(struct daemon *d, struct err *e)
{
	if (d->b.open || d->dry)
		return 0;
	if (store_begin(d->st, e) < 0)
		return -1;
	d->b.open = true;
	return 0;
}

static void batch_forget(struct batch *b)
{
	for (size_t i = 0; i < b->nnames; i++)
		free(b->names[i]);
	b->nnames = b->nuids = b->n = 0;
	b->failed = false;
}

static void batch_release(struct batch *b)
{
	batch_forget(b);
	free(b->names);
	free(b->uids);
	memset(b, 0, sizeof(*b));
}

/* Marks the batch's messages seen, now that their rows are durable. */
static void mark_seen(struct daemon *d)
{
	struct err e;

	if (!d->cfg.source.mark_seen || d->dry)
		return;
	for (size_t i = 0; i < d->b.nuids && d->imap; i++)
		if (imap_mark_seen(d->imap, d->b.uids[i], &e) < 0) {
			log_msg(LOGL_WARNING, "%s", e.msg);
			break;
		}
	for (size_t i = 0; i < d->b.nnames; i++)
		if (maildir_mark_seen(&d->in, d->b.names[i], NULL, &e) < 0)
			log_msg(LOGL_WARNING, "%s", e.msg);
}

/* Commits (or, after a store error, rolls back) what the batch holds. */
static int batch_end(struct daemon *d, struct err *e)
{
	int rc = 0;

	if (d->b.open && d->b.failed) {
		store_rollback(d->st);
		d->cp = d->cp_committed;
	} else if (d->b.open) {
		rc = store_commit(d->st, e);
		if (rc == 0)
			d->cp_committed = d->cp;
		else
			d->cp = d->cp_committed;
	}
	d->b.open = false;
	if (rc == 0 && !d->b.failed)
		mark_seen(d);
	batch_forget(&d->b);
	return rc;
}

static int save_checkpoint(struct daemon *d, uint32_t uid, struct err *e)
{
	if (!uid)
		return 0;
	d->cp.last_uid = uid;
	if (d->dry)
		return 0;
	return store_checkpoint_set(d->st, d->source_id, d->folder, &d->cp, e);
}

/*
 * One message inside the batch's transaction, with its checkpoint, in a
 * savepoint of its own: when recording it fails on something about this
 * mail (ERR_FINAL), that is undone and the mail is recorded as an error,
 * so it cannot stop the folder.  Any other store error fails the batch.
 */
static int process_one(struct daemon *d, const struct origin *o, const char *raw, size_t len,
		       struct err *e)
{
	struct err me;
	int rc;

	signals_deliver(&d->sig);
	if (batch_begin(d, e) < 0 || (!d->dry && store_begin(d->st, e) < 0))
		goto fail;
	d->handled++;
	err_init(&me);
	rc = handle(d, o, raw, len, &me);
	if (rc < 0 && me.cls == ERR_FINAL && !d->dry) {
		store_rollback(d->st);
		if (store_begin(d->st, e) < 0)
			goto fail;
		char *rawid = raw ? raw_message_id(raw, len) : NULL;

		rc = raw ? unparsable(d, o, rawid, raw, len, me.msg, e) : unreadable(d, o, e);
		free(rawid);
	} else if (rc < 0) {
		*e = me;
	}
	if (rc < 0 || save_checkpoint(d, o->uid, e) < 0 || (!d->dry && store_commit(d->st, e) < 0)) {
		if (!d->dry)
			store_rollback(d->st);
		goto fail;
	}
	d->b.n++;
	if (o->uid) {
		ARRAY_GROW(d->b.uids, d->b.auids, d->b.nuids + 1);
		d->b.uids[d->b.nuids++] = o->uid;
	} else if (o->name) {
		ARRAY_GROW(d->b.names, d->b.anames, d->b.nnames + 1);
		d->b.names[d->b.nnames++] = xstrdup(o->name);
	}
	return 0;
fail:
	d->b.failed = true;
	return -1;
}

/* -------------------------------------------------------------- sinks */

/* Whether the Maildir file name holds a mail whose Message-ID is key. */
static bool file_has_msgid(struct daemon *d, const struct maildir *md, const char *name,
			   const char *key)
{
	struct err e;
	char *id, *k;
	bool same;

	if (maildir_read(md, name, &d->raw, SINK_SCAN_MAX, &e) < 0)
		return false;
	id = raw_message_id(d->raw.data, d->raw.len);
	k = id ? store_msgid_key(id) : NULL;
	same = k && !strcmp(k, key);
	free(id);
	free(k);
	return same;
}

static int maildir_confirm(void *arg, const char *reply_msgid, bool *found, struct err *e)
{
	struct daemon *d = arg;
	struct maildir_list l;
	char *key = store_msgid_key(reply_msgid);

	*found = false;
	maildir_list_init(&l);
	if (key && maildir_list(&d->out, true, &l, e) < 0) {
		free(key);
		return -1;
	}
	for (size_t i = 0; key && i < l.n && !*found; i++)
		*found = file_has_msgid(d, &d->out, l.names[i], key);
	maildir_list_release(&l);
	free(key);
	return 0;
}

static int maildir_send(void *arg, const struct outbox_item *it, struct err *e)
{
	struct daemon *d = arg;

	return maildir_deliver(&d->out, it->raw, it->len, NULL, e);
}

static int imap_confirm(void *arg, const char *reply_msgid, bool *found, struct err *e)
{
	struct daemon *d = arg;

	if (!d->imap)
		return err_set(e, ERR_TEMP, "imap: not connected: cannot look for reply <%s>",
			       reply_msgid);
	return imap_find_msgid(d->imap, d->cfg.sink.copy_folder, reply_msgid, found, e);
}

static int smtp_send_item(void *arg, const struct outbox_item *it, struct err *e)
{
	struct daemon *d = arg;

	return smtp_send(&d->smtp, it->envelope_from, (const char *const *)it->rcpt, it->nrcpt,
			 it->raw, it->len, e);
}

/* Sends what is due, DRAIN_CHUNK at a time, stopping for a signal. */
static int drain(struct daemon *d, struct err *e)
{
	struct deliver_ops ops = { NULL, NULL, d };
	struct deliver_settings s = { 0 };
	size_t before;

	if (d->dry || !d->st)
		return 0;
	if (d->cfg.sink.type == SINK_MAILDIR) {
		ops.send = maildir_send;
		ops.confirm = maildir_confirm;
		s.hold = 0;	/* delivery is synchronous: a copy is there or not */
	} else {
		ops.send = smtp_send_item;
		ops.confirm = d->cfg.source.type == SOURCE_IMAP ? imap_confirm : NULL;
		s.hold = d->cfg.sink.resend_after;
	}
	s.max_items = DRAIN_CHUNK;
	do {
		before = d->ds.sent + d->ds.confirmed + d->ds.failed;
		signals_deliver(&d->sig);
		if (got_stop)
			break;
		if (deliver_drain(d->st, &ops, &s, &got_stop, &d->ds, e) < 0)
			return -1;
	} while (d->ds.sent + d->ds.confirmed + d->ds.failed - before >= DRAIN_CHUNK);
	return 0;
}

/* Creates path and its missing parents, mode 0700. */
static int make_dirs(const char *path, struct err *e)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; rc == 0; s++) {
		bool last = !*s;

		if (*s != '/' && !last)
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			rc = err_set(e, ERR_FINAL, "cannot create %s: %s", p, strerror(errno));
		if (last)
			break;
		*s = '/';
	}
	free(p);
	return rc;
}

static enum smtp_tls smtp_tls_of(enum config_tls t)
{
	return t == CONFIG_TLS_NONE ? SMTP_TLS_NONE :
	       t == CONFIG_TLS_IMPLICIT ? SMTP_TLS_IMPLICIT : SMTP_TLS_STARTTLS;
}

/* The password is read once: [sink] keeps its start-up values anyway. */
static int smtp_open_sink(struct daemon *d, struct err *e)
{
	const struct config_sink *c = &d->cfg.sink;
	struct smtp_settings *s = &d->smtp;

	if (secret_get(c->password_file, c->password_command, &d->smtp_password, e) < 0)
		return err_prefix(e, "[sink]");
	smtp_settings_init(s);
	s->url = c->url;
	s->tls = c->tls == CONFIG_TLS_DEFAULT && !strncasecmp(c->url, "smtps://", 8) ?
		SMTP_TLS_IMPLICIT : smtp_tls_of(c->tls);
	s->ca_file = c->ca_file;
	s->user = c->user;
	s->password = d->smtp_password;
	if (smtp_check_settings(s, e) < 0)
		return err_prefix(e, "[sink]");
	return 0;
}

static int sink_open(struct daemon *d, struct err *e)
{
	if (d->dry)
		return 0;
	if (d->cfg.sink.type == SINK_SMTP)
		return smtp_open_sink(d, e);
	if (make_dirs(d->cfg.sink.path, e) < 0)
		return err_prefix(e, "[sink] path");
	return maildir_open(&d->out, d->cfg.sink.path, true, e);
}

/* ------------------------------------------------------ Maildir source */

static int md_open(struct daemon *d, struct err *e)
{
	maildir_release(&d->in);
	return maildir_open(&d->in, d->cfg.source.path, false, e);
}

static bool still_there(const struct maildir *md, const char *name)
{
	struct buf p;
	bool there;

	buf_init(&p, 0);
	buf_printf(&p, "%s/%s", md->path, name);
	there = access(p.data, F_OK) == 0;
	buf_release(&p);
	return there;
}

/* new/ (and cur/ on backfill), the names the store has not seen. */
static int md_poll(struct daemon *d, struct err *e)
{
	struct maildir_list l;
	int rc = 0;

	maildir_list_init(&l);
	if (maildir_list(&d->in, d->cfg.source.backfill, &l, e) < 0)
		return -1;
	for (size_t i = 0; i < l.n && rc == 0 && !got_stop; i++) {
		struct origin o = { 0, l.names[i] };
		struct err re;

		if (maildir_read(&d->in, l.names[i], &d->raw, MESSAGE_MAX_SIZE, &re) < 0) {
			/* Gone meanwhile (a mail reader moved it): nothing to do. */
			if (still_there(&d->in, l.names[i]))
				rc = process_one(d, &o, NULL, 0, e);
			continue;
		}
		rc = process_one(d, &o, d->raw.data, d->raw.len, e);
		if (rc == 0 && d->b.n >= (size_t)d->cfg.source.batch)
			rc = batch_end(d, e) < 0 || drain(d, e) < 0 ? -1 : 0;
	}
	maildir_list_release(&l);
	if (batch_end(d, rc < 0 ? NULL : e) < 0)
		rc = -1;
	return rc;
}

static int md_wait(struct daemon *d, int max_s, struct err *e)
{
	sleep_for(&d->sig, max_s);
	return 0;
}

static void md_close(struct daemon *d)
{
	maildir_release(&d->in);
}

static const struct source_ops maildir_source = { "maildir", md_open, md_poll, md_wait, md_close };

/* --------------------------------------------------------- IMAP source */

static enum imap_tls imap_tls_of(enum config_tls t)
{
	return t == CONFIG_TLS_NONE ? IMAP_TLS_NONE :
	       t == CONFIG_TLS_STARTTLS ? IMAP_TLS_STARTTLS : IMAP_TLS_IMPLICIT;
}

/* Where to start: the checkpoint, UIDNEXT on a first start, 1 after a
 * UIDVALIDITY change. */
static int imap_start(struct daemon *d, struct err *e)
{
	struct store_checkpoint cp = { 0, 0 };
	uint32_t uidvalidity, uidnext;
	bool found = d->cp_known;

	if (imap_mailbox(d->imap, &uidvalidity, &uidnext, e) < 0)
		return -1;
	if (found)
		cp = d->cp;
	else if (d->st && store_checkpoint_get(d->st, d->source_id, d->folder, &cp, &found, e) < 0)
		return -1;
	if (!found) {
		cp.uidvalidity = uidvalidity;
		cp.last_uid = d->cfg.source.backfill || !uidnext ? 0 : uidnext - 1;
		log_msg(LOGL_INFO, "imap %s: first start: %s", d->folder,
			d->cfg.source.backfill ? "backfill from UID 1" : "only mail from now on");
	} else if (cp.uidvalidity != uidvalidity) {
		log_msg(LOGL_WARNING, "imap %s: UIDVALIDITY changed from %" PRIu32 " to %" PRIu32
			": rescanning, known Message-IDs are skipped", d->folder, cp.uidvalidity,
			uidvalidity);
		cp.uidvalidity = uidvalidity;
		cp.last_uid = 0;
	}
	d->cp = d->cp_committed = cp;
	d->cp_known = true;
	if (d->dry)
		return 0;
	return store_checkpoint_set(d->st, d->source_id, d->folder, &cp, e);
}

static int imap_open_source(struct daemon *d, struct err *e)
{
	const struct config_source *c = &d->cfg.source;
	struct imap_settings s;
	char *password = NULL;
	int rc;

	if (secret_get(c->password_file, c->password_command, &password, e) < 0)
		return err_prefix(e, "[source]");
	imap_settings_init(&s);
	s.host = c->host;
	s.port = c->port;
	s.tls = imap_tls_of(c->tls);
	s.ca_file = c->ca_file;
	s.user = c->user;
	s.password = password;
	s.folder = c->folder;
	s.mark_seen = c->mark_seen && !d->dry;
	s.idle = c->idle;
	s.batch = (size_t)c->batch;
	s.wait_sigmask = &d->sig.wait_mask;
	rc = imap_open(&d->imap, &s, e);
	secret_free(password);
	if (rc < 0)
		return -1;
	log_msg(LOGL_INFO, "imap: logged in to %s as %s, watching %s", c->host, c->user, c->folder);
	return imap_start(d, e);
}

static int imap_fetched(void *arg, uint32_t uid, const char *raw, size_t len, struct err *e)
{
	struct daemon *d = arg;
	struct origin o = { uid, NULL };

	if (process_one(d, &o, raw, len, e) < 0)
		return -1;
	if (got_stop)
		return 1;
	if (d->b.n >= (size_t)d->cfg.source.batch) {
		d->batch_full = true;
		return 1;
	}
	return 0;
}

/* Fetches from the checkpoint on, a batch at a time: commit, then send. */
static int imap_poll(struct daemon *d, struct err *e)
{
	for (;;) {
		int rc;

		d->batch_full = false;
		rc = imap_fetch_from(d->imap, d->cp.last_uid + 1, imap_fetched, d, e);
		/* What was handled before a lost connection is kept. */
		if (batch_end(d, rc < 0 ? NULL : e) < 0 && rc == 0)
			return -1;
		if (rc < 0)
			return -1;
		if (drain(d, e) < 0)
			return -1;
		if (!d->batch_full || got_stop)
			return 0;
	}
}

static int imap_wait_source(struct daemon *d, int max_s, struct err *e)
{
	bool activity;

	return imap_wait(d->imap, max_s, &activity, e);
}

static void imap_close_source(struct daemon *d)
{
	imap_close(d->imap);
	d->imap = NULL;
}

static const struct source_ops imap_source_ops = {
	"imap", imap_open_source, imap_poll, imap_wait_source, imap_close_source
};

/* ------------------------------------------------------------ the loop */

/* Capped exponential backoff with jitter (half to all of the step). */
static double backoff_next(struct daemon *d)
{
	double step = DAEMON_BACKOFF_MIN_S;
	uint32_t r = 0;

	for (unsigned i = 0; i < d->backoff_step && step < DAEMON_BACKOFF_MAX_S; i++)
		step *= 2;
	if (step > DAEMON_BACKOFF_MAX_S)
		step = DAEMON_BACKOFF_MAX_S;
	d->backoff_step++;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)time(NULL) * 2654435761u;
	return step / 2 + step / 2 * (r / 4294967296.0);
}

/* SIGHUP: rules and [reply] from the file; the rest as at the start. */
static void reload(struct daemon *d)
{
	struct config fresh;
	struct config_source src;
	struct config_sink sink;
	char *state;
	struct err e;

	got_reload = 0;
	config_init(&fresh);
	if (config_load(&fresh, d->o->config, &e) < 0) {
		log_msg(LOGL_ERROR, "reload: %s; keeping the old settings", e.msg);
		config_release(&fresh);
		return;
	}
	/* The old [source], [sink] and state move into fresh; what fresh read
	 * of them is released with the old settings. */
	src = fresh.source;
	fresh.source = d->cfg.source;
	d->cfg.source = src;
	sink = fresh.sink;
	fresh.sink = d->cfg.sink;
	d->cfg.sink = sink;
	state = fresh.tagbot.state;
	fresh.tagbot.state = d->cfg.tagbot.state;
	d->cfg.tagbot.state = state;
	config_release(&d->cfg);
	d->cfg = fresh;
	d->folder = d->src == &imap_source_ops ? d->cfg.source.folder : "";
	settings_build(d);
	log_setup(d->cfg.tagbot.log, d->cfg.tagbot.log_level, "tagbot");
	log_msg(LOGL_INFO, "reloaded %s (rules and [reply]; [source], [sink] and state keep "
		"their values until a restart)", d->o->config);
}

/* Seconds to wait: the poll interval, or less when a reply comes due. */
static int wait_seconds(struct daemon *d)
{
	int max = d->cfg.source.poll_interval;
	time_t when, now = time(NULL);
	struct err e;
	bool found;

	if (d->src == &imap_source_ops && d->imap && d->cfg.source.idle) {
		struct imap_stats is;

		imap_get_stats(d->imap, &is);
		if (is.has_idle)
			max = IMAP_IDLE_MAX_S;
	}
	if (d->st && !d->dry && store_outbox_next_time(d->st, &when, &found, &e) == 0 && found) {
		if (when - now < max)
			max = when - now < WAIT_MIN_S ? WAIT_MIN_S : (int)(when - now);
	}
	return max;
}

/* One round: connect if needed, fetch, send.  -1: e says what. */
static int round_trip(struct daemon *d, struct err *e)
{
	if (d->src == &imap_source_ops && !d->imap && d->src->open(d, e) < 0)
		return -1;
	if (d->src->poll(d, e) < 0)
		return -1;
	return drain(d, e);
}

/* After a failed round: give up (-1) or back off and go on (0). */
static int recover(struct daemon *d, const struct err *e)
{
	double delay;

	if (d->src == &imap_source_ops && d->imap) {
		imap_close(d->imap);
		d->imap = NULL;
	}
	if (d->o->once || e->cls == ERR_FINAL)
		return -1;
	delay = backoff_next(d);
	log_msg(LOGL_WARNING, "%s; retrying in %.1f s", e->msg, delay);
	sleep_for(&d->sig, delay);
	return 0;
}

static int loop(struct daemon *d, struct err *e)
{
	while (!got_stop) {
		struct err we;

		if (got_reload)
			reload(d);
		err_init(e);
		if (round_trip(d, e) < 0) {
			if (recover(d, e) < 0)
				return -1;
			continue;
		}
		d->backoff_step = 0;
		if (d->o->once || got_stop)
			break;
		signals_deliver(&d->sig);
		if (got_stop || got_reload)
			continue;
		if (d->src->wait(d, wait_seconds(d), &we) < 0 && recover(d, &we) < 0) {
			*e = we;
			return -1;
		}
	}
	return 0;
}

/* --------------------------------------------------------- start, stop */

static char *source_id_of(const struct config *c)
{
	struct buf b;

	buf_init(&b, 0);
	if (c->source.type == SOURCE_IMAP)
		buf_printf(&b, "imap:%s@%s", c->source.user, c->source.host);
	else
		buf_printf(&b, "maildir:%s", c->source.path);
	return buf_detach(&b, NULL);
}

static int store_open_for(struct daemon *d, struct err *e)
{
	struct store_settings ss;
	char *dir, *slash;
	int rc;

	/* A dry run records nothing: it reads a state file only if there is one. */
	if (d->dry && access(d->cfg.tagbot.state, F_OK) < 0)
		return 0;
	dir = xstrdup(d->cfg.tagbot.state);
	slash = strrchr(dir, '/');
	rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = make_dirs(dir, e);
	}
	free(dir);
	if (rc < 0)
		return err_prefix(e, "[tagbot] state");
	store_settings_init(&ss);
	ss.path = d->cfg.tagbot.state;
	return store_open(&d->st, &ss, e);
}

static int start(struct daemon *d, struct err *e)
{
	if (config_load(&d->cfg, d->o->config, e) < 0 || config_check_daemon(&d->cfg, e) < 0)
		return -1;
	d->dry = d->o->dry_run || d->cfg.tagbot.dry_run;
	log_setup(d->cfg.tagbot.log, d->cfg.tagbot.log_level, "tagbot");
	settings_build(d);
	d->pol = policy_new();
	d->src = d->cfg.source.type == SOURCE_IMAP ? &imap_source_ops : &maildir_source;
	d->folder = d->cfg.source.type == SOURCE_IMAP ? d->cfg.source.folder : "";
	d->source_id = source_id_of(&d->cfg);
	if (d->cfg.sink.type == SINK_SMTP && d->cfg.source.type == SOURCE_IMAP)
		d->copy_to = addr_spec(d->cfg.sink.copy_to ? d->cfg.sink.copy_to : d->cfg.reply.from);
	if (store_open_for(d, e) < 0 || sink_open(d, e) < 0)
		return -1;
	if (d->src == &maildir_source)
		return d->src->open(d, e);
	return 0;
}

static void finish(struct daemon *d)
{
	if (d->src && (d->src != &imap_source_ops || d->imap))
		d->src->close(d);
	secret_free(d->smtp_password);
	maildir_release(&d->out);
	store_close(d->st);
	policy_free(d->pol);
	batch_release(&d->b);
	memo_release(&d->memo);
	buf_release(&d->raw);
	free(d->source_id);
	free(d->copy_to);
	config_release(&d->cfg);
}

int daemon_run(const struct daemon_opts *o, struct err *e)
{
	struct daemon d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.o = o;
	config_init(&d.cfg);
	maildir_init(&d.in);
	maildir_init(&d.out);
	buf_init(&d.raw, MESSAGE_MAX_SIZE);
	signals_install(&d.sig);
	rc = start(&d, e);
	if (rc == 0) {
		log_msg(LOGL_INFO, "running: %s -> %s%s%s", d.source_id,
			d.cfg.sink.type == SINK_SMTP ? d.cfg.sink.url : d.cfg.sink.path,
			d.dry ? " (dry run: nothing is recorded or sent)" : "",
			o->once ? " (once)" : "");
		rc = loop(&d, e);
		log_msg(LOGL_INFO, "%s: %zu messages looked at, %zu replies sent, %zu confirmed, "
			"%zu failed", got_stop ? "stopped" : "done", d.handled, d.ds.sent,
			d.ds.confirmed, d.ds.failed);
	}
	finish(&d);
	signals_restore(&d.sig);
	return rc;
}

/* -------------------------------------------------------------- status */

static void print_checkpoint(void *ctx, const char *source, const char *folder,
			     const struct store_checkpoint *cp)
{
	fprintf(ctx, "checkpoint %s %s: uidvalidity %" PRIu32 ", last uid %" PRIu32 "\n", source,
		*folder ? folder : "-", cp->uidvalidity, cp->last_uid);
}

struct error_list {
	FILE *out;
	size_t n;
};

static void print_error(void *ctx, const struct store_error_row *r)
{
	struct error_list *l = ctx;
	char when[32];
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&r->time, &tm));
	fprintf(l->out, "  %s %s <%s>: %s\n", when, r->what, r->msgid, r->detail);
	l->n++;
}

int daemon_status(const char *config, FILE *out, struct err *e)
{
	struct store_settings ss;
	struct store_counts c;
	struct config cfg;
	struct store *st = NULL;
	struct error_list errors = { out, 0 };
	int rc = -1;

	config_init(&cfg);
	if (config_load(&cfg, config, e) < 0)
		goto out;
	if (access(cfg.tagbot.state, F_OK) < 0) {
		err_set(e, ERR_FINAL, "%s: no state yet (tagbot run has not run): %s",
			cfg.tagbot.state, strerror(errno));
		goto out;
	}
	store_settings_init(&ss);
	ss.path = cfg.tagbot.state;
	if (store_open(&st, &ss, e) < 0)
		goto out;
	fprintf(out, "state %s\n", cfg.tagbot.state);
	if (store_checkpoint_foreach(st, print_checkpoint, out, e) < 0 ||
	    store_counts(st, &c, e) < 0)
		goto out;
	fprintf(out, "messages %ld: replied %ld, clean %ld, skipped %ld, error %ld\n",
		c.messages, c.replied, c.clean, c.skipped, c.errors);
	fprintf(out, "outbox: queued %ld, sent %ld, failed %ld\n", c.queued, c.sent, c.failed);
	fprintf(out, "last errors:\n");
	rc = store_recent_errors(st, DAEMON_STATUS_ERRORS, print_error, &errors, e);
	if (rc == 0 && errors.n == 0)
		fprintf(out, "  none\n");
out:
	store_close(st);
	config_release(&cfg);
	return rc;
}
