/*
 * source_imap.c - the IMAP source driver (source.h): one folder with its
 * checkpoint by UID (UIDNEXT on a first start, 1 after a UIDVALIDITY
 * change), fetched a batch at a time; a folder shared with other daemons
 * is read claim by claim (daemon_claim.c).  The connection also serves the
 * daemon's other needs of the server: IDLE for the loop's wait, marking a
 * batch seen, Cc mode's search by Message-ID, the sink's copy of a reply.
 */
#include "autoconf.h"
#include <stdlib.h>

#include "daemon/daemon_p.h"
#include "config/secret.h"
#include "lib/log.h"
#include "transport/imap_source.h"

struct imap_src {
	struct source s;		/* first: the base */
	struct imap_source *imap;	/* owned; NULL while disconnected */
};

static struct imap_src *imap_of(const struct source *s)
{
	return SOURCE_DRIVER(s, struct imap_src);
}

static struct imap_source *conn_of(const struct source *s)
{
	return imap_of(s)->imap;
}

/* Where to start: the checkpoint, UIDNEXT on a first start, 1 after a
 * UIDVALIDITY change. */
static int imap_start(struct source *s, struct err *e)
{
	struct folder_numbers n = { RENUMBER_UIDVALIDITY, 0, 1, 0 };

	if (imap_mailbox(conn_of(s), &n.valid, &n.next, e) < 0)
		return -1;
	return daemon_folder_start(s, &s->one, &n, e);
}

static int imap_open_source(struct source *s, struct err *e)
{
	const struct config_source *c = s->c;
	struct imap_settings is;
	char *password = NULL;
	int rc;

	if (secret_get(c->password_file, c->password_command, &password, e) < 0)
		return err_prefix(e, "%s", s->label);
	imap_settings_init(&is);
	is.host = c->host;
	is.port = c->port;
	is.tls = daemon_tls_of(c->tls, NET_TLS_IMPLICIT);
	is.ca_file = c->ca_file;
	is.user = c->user;
	is.password = password;
	is.folder = c->folder;
	is.mark_seen = c->mark_seen;	/* off in a dry run */
	is.idle = c->idle;
	is.batch = (size_t)c->batch;
	is.timeout_s = c->timeout;
	is.max_message = (size_t)c->max_message_size;
	is.wait_sigmask = s->env->wait_mask;
	is.stop = s->env->stop;
	s->one.shared = s->env->claims;
	rc = imap_open(&imap_of(s)->imap, &is, e);
	secret_free(password);
	if (rc < 0)
		return -1;
	return imap_start(s, e);
}

static bool imap_connected(const struct source *s)
{
	return conn_of(s) != NULL;
}

/* One FETCH: its messages go to cb until the batch is full. */
struct fetch {
	const struct source_cb *cb;
	bool full;		/* the fetch stopped for a commit */
	bool stopped;		/* for a commit or a signal */
};

static int imap_fetched(void *arg, const struct imap_msg *m, struct err *e)
{
	struct fetch *f = arg;
	struct origin o = { m->uid, NULL, UNREAD_ERROR, NULL, 0 };
	const char *raw = NULL;
	size_t len = 0;
	int rc;

	if (m->state == IMAP_MSG_OK) {
		raw = m->raw;
		len = m->len;
	} else if (m->state == IMAP_MSG_TOO_LARGE) {
		o.unread = UNREAD_TOO_LARGE;
		o.size = m->len;
	} else {
		o.unread = UNREAD_MISSING;
		o.why = m->why;
	}
	rc = f->cb->take(f->cb->aux, &o, raw, len, e);
	if (rc < 0)
		return -1;
	f->full = rc == SOURCE_FULL;
	f->stopped = rc != SOURCE_MORE;
	return f->stopped;
}

/* The messages of the folder not delivered before whose retry is due. */
static int imap_retries(struct source *s, const struct source_cb *cb, struct err *e)
{
	struct fetch f = { cb, false, false };
	uint32_t *uids;
	size_t n;
	int rc, end;

	if (daemon_retries_load(s, &s->one, e) < 0)
		return -1;
	daemon_retries_poll(&s->one);
	n = daemon_retries_due(&s->one, daemon_source_now(s), &uids);
	if (!n)
		return SOURCE_MORE;
	rc = imap_fetch_uids(conn_of(s), uids, n, imap_fetched, &f, e);
	free(uids);
	end = cb->end(cb->aux, rc < 0 ? NULL : e);
	if (rc < 0 || end < 0)
		return -1;
	return end;
}

/* A folder shared with other daemons: claim by claim, each a batch. */
static int imap_poll_claims(struct source *s, const struct source_cb *cb, struct err *e)
{
	struct imap_source *imap = conn_of(s);
	struct folder *f = &s->one;

	for (;;) {
		struct fetch fe = { cb, false, false };
		uint32_t top;
		bool found;
		int rc, end;

		if (imap_top_uid(imap, &top, e) < 0 || daemon_claim_next(s, top, &found, e) < 0)
			return -1;
		if (!found)
			return 0;
		rc = imap_fetch_range(imap, f->claim.done_to + 1, f->claim.hi, imap_fetched, &fe, e);
		if (rc == 0 && !fe.stopped)	/* every UID of it there was handled */
			daemon_claim_handled(f, f->claim.hi);
		end = cb->end(cb->aux, rc < 0 ? NULL : e);
		f->claimed = false;
		if (rc < 0 || end < 0)
			return -1;
		if (end == SOURCE_STOP)
			return 0;
	}
}

/* Fetches from the checkpoint on, a batch at a time: the connection is
 * free for the commit (marking seen, finding sent replies) between them;
 * first the messages not delivered before whose retry is due. */
static int imap_poll(struct source *s, const struct source_cb *cb, struct err *e)
{
	int rc = imap_retries(s, cb, e);

	if (rc != SOURCE_MORE)
		return rc == SOURCE_STOP ? 0 : -1;
	if (s->one.shared)
		return imap_poll_claims(s, cb, e);
	for (;;) {
		struct fetch f = { cb, false, false };
		int end;

		rc = imap_fetch_from(conn_of(s), s->one.cp.last_uid + 1, imap_fetched, &f, e);
		/* What was handled before a lost connection is kept. */
		end = cb->end(cb->aux, rc < 0 ? NULL : e);
		if (rc < 0 || end < 0)
			return -1;
		if (!f.full || end == SOURCE_STOP)
			return 0;
	}
}

static int imap_wait_source(struct source *s, int max_s, struct err *e)
{
	bool activity;

	return imap_wait(conn_of(s), max_s, &activity, e);
}

/* IDLE, when it is set and the server has it. */
static bool imap_can_idle(const struct source *s)
{
	struct imap_stats is;

	if (!conn_of(s) || !s->c->idle)
		return false;
	imap_get_stats(conn_of(s), &is);
	return is.has_idle;
}

static void imap_close_source(struct source *s)
{
	struct imap_src *m = imap_of(s);

	imap_close(m->imap);
	m->imap = NULL;
}

/* Stops at the first failure: the connection is likely gone, and the
 * next poll finds out. */
static void imap_mark_seen_source(struct source *s, const struct source_marks *mk)
{
	struct imap_source *imap = conn_of(s);
	struct err e;

	for (size_t i = 0; i < mk->nuids && imap; i++)
		if (imap_mark_seen(imap, mk->uids[i], &e) < 0) {
			log_msg(LOGL_WARNING, "%s", e.msg);
			break;
		}
}

static void imap_find_msgid_source(struct source *s, const char *id, struct buf *out,
				   bool *found)
{
	struct err e;

	*found = false;
	if (imap_fetch_msgid(conn_of(s), id, out, found, &e) < 0)
		log_message(LOGL_WARNING, id, "looking it up in the folder: %s", e.msg);
}

static int imap_find_copy(struct source *s, const char *folder, const char *msgid, bool *found,
			  struct err *e)
{
	return imap_find_msgid(conn_of(s), folder, msgid, found, e);
}

const struct source_ops daemon_imap_source = {
	.name = "imap",
	.place = "imap folder",
	.size = sizeof(struct imap_src),
	.open = imap_open_source,
	.connected = imap_connected,
	.poll = imap_poll,
	.wait = imap_wait_source,
	.can_idle = imap_can_idle,
	.close = imap_close_source,
	.mark_seen = imap_mark_seen_source,
	.find_msgid = imap_find_msgid_source,
	.find_copy = imap_find_copy,
};
