/*
 * daemon_sink.c - the daemon's sink (a Maildir; SMTP through a pool of
 * connections kept between drains) and its health: draining the outbox
 * through it with deliver.c, confirming interrupted replies where the sink
 * leaves a copy, and backing off while it fails.
 */
#include "autoconf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "config/secret.h"

#define DRAIN_CHUNK		50	/* replies per deliver_drain(), signals between */
#define SEND_SLICE_MS		200	/* a wait for a send looks at signals this often */

static int maildir_confirm(void *arg, const char *reply_msgid, bool *found, struct err *e)
{
	struct daemon *d = arg;
	char *name;

	if (maildir_find_msgid(&d->sink.out, reply_msgid, MAILDIR_MAX_ENTRIES, &name, e) < 0)
		return -1;
	*found = name != NULL;
	free(name);
	return 0;
}

static int maildir_send(void *arg, const struct outbox_item *it, struct err *e)
{
	struct daemon *d = arg;

	return maildir_deliver(&d->sink.out, it->raw, it->len, NULL, e);
}

/* The copy in the bot's mailbox, through the first source connected to
 * a server that has it (an IMAP source). */
static int copy_confirm(void *arg, const char *reply_msgid, bool *found, struct err *e)
{
	struct daemon *d = arg;

	for (size_t i = 0; i < d->sources.n; i++) {
		struct source *s = d->sources.v[i];

		if (s->ops->find_copy && s->ops->connected(s))
			return s->ops->find_copy(s, d->cfg.sink.copy_folder, reply_msgid, found, e);
	}
	return err_set(e, ERR_TEMP, "imap: not connected: cannot look for reply <%s>",
		       reply_msgid);
}

bool daemon_finds_copy(const struct daemon *d)
{
	for (size_t i = 0; i < d->sources.n; i++)
		if (d->sources.v[i]->ops->find_copy)
			return true;
	return false;
}

/* Replies go out over up to SMTP_PARALLEL_DEFAULT connections at once, kept
 * open between drains. */
static int smtp_start_item(void *arg, struct outbox_item *it, struct err *e)
{
	struct daemon *d = arg;

	if (!d->sink.pool)
		d->sink.pool = smtp_pool_new(SMTP_PARALLEL_DEFAULT);
	return smtp_pool_start(d->sink.pool, &d->sink.smtp, it->envelope_from,
			       (const char *const *)it->rcpt, it->nrcpt, it->raw, it->len, it, e);
}

static enum handover smtp_finish_item(void *arg, bool wait, struct outbox_item **it,
				      struct err *e)
{
	struct daemon *d = arg;
	struct smtp_refused refused;
	void *tag = NULL;
	enum smtp_next rc;

	for (;;) {
		if (!d->sink.pool)
			return HANDOVER_NONE;
		rc = smtp_pool_next(d->sink.pool, false, &tag, &refused, e);
		if (rc != SMTP_NEXT_NONE || !wait || !smtp_pool_running(d->sink.pool))
			break;
		/* A server that never answers must not hold SIGTERM up (our
		 * signals are blocked while we work): the sends still running
		 * are dropped, their replies stay claimed, and after the next
		 * start they are looked for and sent (deliver.h). */
		daemon_signals_deliver(&d->sig);
		if (daemon_got_stop) {
			log_msg(LOGL_INFO, "stopping: %zu send(s) in progress dropped, their replies "
				"stay queued", smtp_pool_running(d->sink.pool));
			smtp_pool_free(d->sink.pool);
			d->sink.pool = NULL;
			return HANDOVER_NONE;
		}
		smtp_pool_poll(d->sink.pool, SEND_SLICE_MS);
	}
	if (rc == SMTP_NEXT_NONE)
		return HANDOVER_NONE;
	*it = tag;
	/* Sent without some Cc's: deliver.c keeps and logs what e says. */
	if (rc == SMTP_NEXT_ACCEPTED && refused.n)
		snprintf(e->msg, sizeof(e->msg), "%s", refused.text);
	d->sink.used = daemon_now(d);
	return rc == SMTP_NEXT_ACCEPTED ? HANDOVER_SENT : HANDOVER_FAILED;
}

/*
 * How long a wait for mail may last: the SMTP connections are closed (QUIT)
 * once idle SMTP_REUSE_IDLE_S, when the pool would not reuse them any more,
 * rather than left for the server to time out.
 */
int daemon_smtp_idle_wait(struct daemon *d, int max_s)
{
	time_t left;

	if (!d->sink.pool)
		return max_s;
	left = d->sink.used + SMTP_REUSE_IDLE_S - daemon_now(d);
	if (left <= 0) {
		smtp_pool_free(d->sink.pool);
		d->sink.pool = NULL;
		return max_s;
	}
	return max_s > left ? (int)left : max_s;
}

/* The sink's state for `tagbot status`; a store error is only logged (the
 * state is a report, the replies' rows are what counts). */
static void sink_state_put(struct daemon *d, const char *reason)
{
	struct store_sink_state ss = {
		.sink = d->cfg.sink.url, .failing = d->sink.failing, .reason = (char *)reason,
		.since = d->sink.since, .failures = d->sink.failures, .next_try = d->sink.retry_at,
	};
	struct err e;

	if (store_sink_state_put(d->st, &ss, &e) < 0)
		log_msg(LOGL_WARNING, "%s", e.msg);
}

/* A fault of the sink: said once per back-off step, at error level. */
static void sink_failed(struct daemon *d, const struct err *why)
{
	time_t now = daemon_now(d);
	double delay = daemon_backoff_next(&d->sink.step);
	struct store_counts c = { 0 };
	struct err e;

	if (!d->sink.failing)
		d->sink.since = now;
	d->sink.failing = true;
	d->sink.failures++;
	d->sink.retry_at = now + (time_t)(delay + 0.999);
	if (store_counts(d->st, &c, &e) < 0)
		c.queued = -1;
	log_msg(LOGL_ERROR, "sink: %s; nothing is sent until it is fixed (%ld replies stay queued); "
		"trying again in %.0f s or on SIGHUP", why->msg, c.queued, delay);
	sink_state_put(d, why->msg);
}

static void sink_works(struct daemon *d)
{
	log_msg(LOGL_INFO, "sink %s works again after %d failed tries", d->cfg.sink.url,
		d->sink.failures);
	d->sink.failing = false;
	d->sink.step = 0;
	d->sink.failures = 0;
	d->sink.since = daemon_now(d);
	d->sink.retry_at = 0;
	sink_state_put(d, "");
}

int daemon_sink_wait(const struct daemon *d, int max)
{
	time_t left = d->sink.retry_at - daemon_now(d);

	if (!d->sink.failing || left >= max)
		return max;
	return left < 1 ? 1 : (int)left;
}

/* The drain's clock: the daemon's. */
static time_t sink_now(void *arg)
{
	return daemon_now(arg);
}

/* Sends what is due, DRAIN_CHUNK at a time, stopping for a signal. */
int daemon_drain(struct daemon *d, struct err *e)
{
	struct deliver_ops ops = { .now = sink_now, .arg = d, .stop = &daemon_got_stop };
	struct deliver_settings s = { 0 };
	size_t before, done0 = d->sink.ds.sent + d->sink.ds.failed;

	if (d->dry)	/* its replies were printed as they were queued */
		return 0;
	if (d->sink.failing && daemon_now(d) < d->sink.retry_at)
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
		ops.confirm = daemon_finds_copy(d) ? copy_confirm : NULL;
		s.hold = d->cfg.sink.resend_after;
		s.parallel = SMTP_PARALLEL_DEFAULT;
	}
	s.max_items = DRAIN_CHUNK;
	do {
		before = d->sink.ds.sent + d->sink.ds.confirmed + d->sink.ds.failed;
		daemon_signals_deliver(&d->sig);
		if (daemon_got_stop)
			break;
		if (deliver_drain(d->st, &ops, &s, &d->sink.ds, e) < 0) {
			if (e->cls != ERR_SETUP)
				return -1;
			sink_failed(d, e);
			err_init(e);
			return 0;
		}
	} while (d->sink.ds.sent + d->sink.ds.confirmed + d->sink.ds.failed - before >= DRAIN_CHUNK);
	/* A session got as far as a reply's own fate: the sink works. */
	if (d->sink.failing && d->sink.ds.sent + d->sink.ds.failed > done0)
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
		NET_TLS_IMPLICIT : daemon_tls_of(c->tls, NET_TLS_STARTTLS);
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
	return smtp_settings_of(&d->cfg.sink, &d->sink.smtp, &d->sink.password, e);
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
	smtp_pool_free(d->sink.pool);
	d->sink.pool = NULL;
	secret_free(d->sink.password);
	d->sink.password = password;
	d->sink.smtp = s;
	d->sink.step = 0;
	d->sink.retry_at = 0;
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
	return maildir_open(&d->sink.out, d->cfg.sink.path, true, e);
}

enum net_tls daemon_tls_of(enum config_tls t, enum net_tls dflt)
{
	return t == CONFIG_TLS_NONE ? NET_TLS_NONE : t == CONFIG_TLS_IMPLICIT ? NET_TLS_IMPLICIT :
	       t == CONFIG_TLS_STARTTLS ? NET_TLS_STARTTLS : dflt;
}
