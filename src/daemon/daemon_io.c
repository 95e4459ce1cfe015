/*
 * daemon_io.c - the daemon's sources (a Maildir; an IMAP folder with its
 * checkpoint) and sinks (a Maildir; SMTP), and draining the outbox through
 * the sink with deliver.c, confirming interrupted replies where the sink
 * leaves a copy.
 */
#include "autoconf.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "mail/message.h"
#include "config/secret.h"
#include "mail/msgid.h"

#define SINK_SCAN_MAX		((size_t)4 * 1024 * 1024) /* a sink file larger is not ours */
#define DRAIN_CHUNK		50	/* replies per deliver_drain(), signals between */
#define SEND_SLICE_MS		200	/* a wait for a send looks at signals this often */

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
	id = msgid_from_raw(d->raw.data, d->raw.len);
	k = id ? msgid_key(id) : NULL;
	same = k && !strcmp(k, key);
	free(id);
	free(k);
	return same;
}

static int maildir_confirm(void *arg, const char *reply_msgid, bool *found, struct err *e)
{
	struct daemon *d = arg;
	struct maildir_list l;
	char *key = msgid_key(reply_msgid);

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

/* Replies go out over up to SMTP_PARALLEL_DEFAULT connections at once, kept
 * open between drains. */
static int smtp_start_item(void *arg, struct outbox_item *it, struct err *e)
{
	struct daemon *d = arg;

	if (!d->smtp_pool)
		d->smtp_pool = smtp_pool_new(SMTP_PARALLEL_DEFAULT);
	return smtp_pool_start(d->smtp_pool, &d->smtp, it->envelope_from,
			       (const char *const *)it->rcpt, it->nrcpt, it->raw, it->len, it, e);
}

static int smtp_finish_item(void *arg, bool wait, struct outbox_item **it, struct err *e)
{
	struct daemon *d = arg;
	struct smtp_refused refused;
	void *tag = NULL;
	int rc;

	for (;;) {
		if (!d->smtp_pool)
			return 1;
		rc = smtp_pool_next(d->smtp_pool, false, &tag, &refused, e);
		if (rc <= 0 || !wait || !smtp_pool_running(d->smtp_pool))
			break;
		/* A server that never answers must not hold SIGTERM up (our
		 * signals are blocked while we work): the sends still running
		 * are dropped, their replies stay claimed, and after the next
		 * start they are looked for and sent (deliver.h). */
		daemon_signals_deliver(&d->sig);
		if (daemon_got_stop) {
			log_msg(LOGL_INFO, "stopping: %zu send(s) in progress dropped, their replies "
				"stay queued", smtp_pool_running(d->smtp_pool));
			smtp_pool_free(d->smtp_pool);
			d->smtp_pool = NULL;
			return 1;
		}
		smtp_pool_poll(d->smtp_pool, SEND_SLICE_MS);
	}
	*it = tag;
	/* Sent without some Cc's: deliver.c keeps and logs what e says. */
	if (rc == 0 && refused.n)
		snprintf(e->msg, sizeof(e->msg), "%s", refused.text);
	if (rc <= 0)
		d->smtp_used = time(NULL);
	return rc;
}

/*
 * How long a wait for mail may last: the SMTP connections are closed (QUIT)
 * once idle SMTP_REUSE_IDLE_S, when the pool would not reuse them any more,
 * rather than left for the server to time out.
 */
static int smtp_idle_wait(struct daemon *d, int max_s)
{
	time_t left;

	if (!d->smtp_pool)
		return max_s;
	left = d->smtp_used + SMTP_REUSE_IDLE_S - time(NULL);
	if (left <= 0) {
		smtp_pool_free(d->smtp_pool);
		d->smtp_pool = NULL;
		return max_s;
	}
	return max_s > left ? (int)left : max_s;
}

/* The sink's state for `tagbot status`; a store error is only logged (the
 * state is a report, the replies' rows are what counts). */
static void sink_state_put(struct daemon *d, const char *reason)
{
	struct store_sink_state ss = {
		.sink = d->cfg.sink.url, .failing = d->sink_failing, .reason = (char *)reason,
		.since = d->sink_since, .failures = d->sink_failures, .next_try = d->sink_retry_at,
	};
	struct err e;

	if (store_sink_state_put(d->st, &ss, &e) < 0)
		log_msg(LOGL_WARNING, "%s", e.msg);
}

/* A fault of the sink: said once per back-off step, at error level. */
static void sink_failed(struct daemon *d, const struct err *why)
{
	time_t now = time(NULL);
	double delay = daemon_backoff_next(&d->sink_step);
	struct store_counts c = { 0 };
	struct err e;

	if (!d->sink_failing)
		d->sink_since = now;
	d->sink_failing = true;
	d->sink_failures++;
	d->sink_retry_at = now + (time_t)(delay + 0.999);
	if (store_counts(d->st, &c, &e) < 0)
		c.queued = -1;
	log_msg(LOGL_ERROR, "sink: %s; nothing is sent until it is fixed (%ld replies stay queued); "
		"trying again in %.0f s or on SIGHUP", why->msg, c.queued, delay);
	sink_state_put(d, why->msg);
}

static void sink_works(struct daemon *d)
{
	log_msg(LOGL_INFO, "sink %s works again after %d failed tries", d->cfg.sink.url,
		d->sink_failures);
	d->sink_failing = false;
	d->sink_step = 0;
	d->sink_failures = 0;
	d->sink_since = time(NULL);
	d->sink_retry_at = 0;
	sink_state_put(d, "");
}

int daemon_sink_wait(const struct daemon *d, int max)
{
	time_t left = d->sink_retry_at - time(NULL);

	if (!d->sink_failing || left >= max)
		return max;
	return left < 1 ? 1 : (int)left;
}

/* Sends what is due, DRAIN_CHUNK at a time, stopping for a signal. */
int daemon_drain(struct daemon *d, struct err *e)
{
	struct deliver_ops ops = { .arg = d };
	struct deliver_settings s = { 0 };
	size_t before, done0 = d->ds.sent + d->ds.failed;

	if (d->dry)	/* its replies were printed as they were queued */
		return 0;
	if (d->sink_failing && time(NULL) < d->sink_retry_at)
		return 0;
	if (d->cfg.sink.type == SINK_MAILDIR) {
		ops.send = maildir_send;
		ops.confirm = maildir_confirm;
		/* Delivery is synchronous: a copy is there or not.  A daemon
		 * sharing a PostgreSQL state with another holds its claim
		 * (store.h) as long as an SMTP one does, so the other does not
		 * take the reply while this one writes it. */
		s.hold = store_is_url(d->cfg.tagbot.state) ? d->cfg.sink.resend_after : 0;
	} else {
		ops.start = smtp_start_item;
		ops.finish = smtp_finish_item;
		ops.confirm = d->cfg.source.type == SOURCE_IMAP ? imap_confirm : NULL;
		s.hold = d->cfg.sink.resend_after;
		s.parallel = SMTP_PARALLEL_DEFAULT;
	}
	s.max_items = DRAIN_CHUNK;
	do {
		before = d->ds.sent + d->ds.confirmed + d->ds.failed;
		daemon_signals_deliver(&d->sig);
		if (daemon_got_stop)
			break;
		if (deliver_drain(d->st, &ops, &s, &daemon_got_stop, &d->ds, e) < 0) {
			if (e->cls != ERR_SETUP)
				return -1;
			sink_failed(d, e);
			err_init(e);
			return 0;
		}
	} while (d->ds.sent + d->ds.confirmed + d->ds.failed - before >= DRAIN_CHUNK);
	/* A session got as far as a reply's own fate: the sink works. */
	if (d->sink_failing && d->ds.sent + d->ds.failed > done0)
		sink_works(d);
	return 0;
}

/* Creates path and its missing parents, mode 0700. */
int daemon_make_dirs(const char *path, struct err *e)
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

/* The settings of c into s, the password read (at start and on SIGHUP). */
static int smtp_settings_of(const struct config_sink *c, struct smtp_settings *s,
			    char **password, struct err *e)
{
	*password = NULL;
	if (secret_get(c->password_file, c->password_command, password, e) < 0)
		return err_prefix(e, "[sink]");
	smtp_settings_init(s);
	s->url = c->url;
	s->tls = c->tls == CONFIG_TLS_DEFAULT && !strncasecmp(c->url, "smtps://", 8) ?
		SMTP_TLS_IMPLICIT : smtp_tls_of(c->tls);
	s->ca_file = c->ca_file;
	s->user = c->user;
	s->password = *password;
	s->connect_timeout_s = c->connect_timeout;
	if (smtp_check_settings(s, e) < 0) {
		secret_free(*password);
		*password = NULL;
		return err_prefix(e, "[sink]");
	}
	return 0;
}

static int smtp_open_sink(struct daemon *d, struct err *e)
{
	return smtp_settings_of(&d->cfg.sink, &d->smtp, &d->smtp_password, e);
}

int daemon_sink_reload(struct daemon *d, const struct config_sink *c, struct err *e)
{
	struct smtp_settings s;
	char *password;

	if (c->type != SINK_SMTP || d->cfg.sink.type != SINK_SMTP)
		return err_set(e, ERR_FINAL, "[sink] type cannot change without a restart");
	if (smtp_settings_of(c, &s, &password, e) < 0)
		return -1;
	/* Nothing is with the pool between drains; its connections were
	 * made with the old settings. */
	smtp_pool_free(d->smtp_pool);
	d->smtp_pool = NULL;
	secret_free(d->smtp_password);
	d->smtp_password = password;
	d->smtp = s;
	d->sink_step = 0;
	d->sink_retry_at = 0;
	return 0;
}

int daemon_sink_open(struct daemon *d, struct err *e)
{
	if (d->dry)
		return 0;
	if (d->cfg.sink.type == SINK_SMTP)
		return smtp_open_sink(d, e);
	if (daemon_make_dirs(d->cfg.sink.path, e) < 0)
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

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names handled by the last poll: without mark_seen they stay in new/,
 * and need not be read again to learn that the store has them. */
static bool md_done(const struct daemon *d, const char *name)
{
	return d->md_done.n &&
	       bsearch(&name, d->md_done.names, d->md_done.n, sizeof(char *), cmp_name);
}

/* The list l of this poll becomes the one md_done() looks at. */
static void md_remember(struct daemon *d, struct maildir_list *l, size_t n)
{
	maildir_list_release(&d->md_done);
	for (size_t i = n; i < l->n; i++)
		free(l->names[i]);
	l->n = n;
	if (n)
		qsort(l->names, n, sizeof(char *), cmp_name);
	d->md_done = *l;
	maildir_list_init(l);
}

/* new/ (and cur/ on backfill), the names the store has not seen. */
static int md_poll(struct daemon *d, const struct source_cb *cb, struct err *e)
{
	struct maildir_list l;
	size_t i = 0;
	int rc = SOURCE_MORE;

	maildir_list_init(&l);
	if (maildir_list(&d->in, d->cfg.source.backfill, &l, e) < 0)
		return -1;
	while (i < l.n && rc == SOURCE_MORE) {
		const char *name = l.names[i++];
		struct origin o = { 0, name };
		struct err re;

		if (md_done(d, name))
			continue;
		if (maildir_read(&d->in, name, &d->raw, MESSAGE_MAX_SIZE, &re) == 0)
			rc = cb->take(cb->aux, &o, d->raw.data, d->raw.len, e);
		else if (still_there(&d->in, name))	/* else a mail reader moved it */
			rc = cb->take(cb->aux, &o, NULL, 0, e);
		if (rc == SOURCE_FULL)
			rc = cb->end(cb->aux, e);
	}
	if (cb->end(cb->aux, rc < 0 ? NULL : e) < 0)
		rc = -1;
	if (rc == SOURCE_STOP)
		rc = 0;
	/* After a failure a batch may have been rolled back: read all again. */
	if (rc == 0 && !d->cfg.source.mark_seen)
		md_remember(d, &l, i);
	maildir_list_release(&l);
	return rc;
}

static int md_wait(struct daemon *d, int max_s, struct err *e)
{
	daemon_sleep_for(&d->sig, smtp_idle_wait(d, max_s));
	return 0;
}

static void md_close(struct daemon *d)
{
	maildir_release(&d->in);
	maildir_list_release(&d->md_done);
}

const struct source_ops daemon_maildir_source = { "maildir", md_open, md_poll, md_wait, md_close };

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
	else if (store_checkpoint_get(d->st, d->source_id, d->folder, &cp, &found, e) < 0)
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
		/* the mail there now is rescanned: see before_start() */
		d->rescan_until = uidnext ? uidnext - 1 : 0;
	}
	d->cp = d->cp_committed = cp;
	d->cp_known = true;
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
	s.mark_seen = c->mark_seen;	/* off in a dry run */
	s.idle = c->idle;
	s.batch = (size_t)c->batch;
	s.wait_sigmask = &d->sig.wait_mask;
	rc = imap_open(&d->imap, &s, e);
	secret_free(password);
	if (rc < 0)
		return -1;
	return imap_start(d, e);
}

/* One FETCH: its messages go to cb until the batch is full. */
struct fetch {
	const struct source_cb *cb;
	bool full;		/* the fetch stopped for a commit */
};

static int imap_fetched(void *arg, uint32_t uid, const char *raw, size_t len, struct err *e)
{
	struct fetch *f = arg;
	struct origin o = { uid, NULL };
	int rc = f->cb->take(f->cb->aux, &o, raw, len, e);

	if (rc < 0)
		return -1;
	f->full = rc == SOURCE_FULL;
	return rc == SOURCE_MORE ? 0 : 1;
}

/* Fetches from the checkpoint on, a batch at a time: the connection is
 * free for the commit (marking seen, finding sent replies) between them. */
static int imap_poll(struct daemon *d, const struct source_cb *cb, struct err *e)
{
	for (;;) {
		struct fetch f = { cb, false };
		int rc, end;

		rc = imap_fetch_from(d->imap, d->cp.last_uid + 1, imap_fetched, &f, e);
		/* What was handled before a lost connection is kept. */
		end = cb->end(cb->aux, rc < 0 ? NULL : e);
		if (rc < 0 || end < 0)
			return -1;
		if (!f.full || end == SOURCE_STOP)
			return 0;
	}
}

static int imap_wait_source(struct daemon *d, int max_s, struct err *e)
{
	bool activity;

	return imap_wait(d->imap, smtp_idle_wait(d, max_s), &activity, e);
}

static void imap_close_source(struct daemon *d)
{
	imap_close(d->imap);
	d->imap = NULL;
}

const struct source_ops daemon_imap_source = {
	"imap", imap_open_source, imap_poll, imap_wait_source, imap_close_source
};

