/*
 * daemon_io.c - the daemon's sources (a Maildir; an IMAP folder with its
 * checkpoint); the sink is daemon_sink.c.
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

enum net_tls daemon_tls_of(enum config_tls t, enum net_tls dflt)
{
	return t == CONFIG_TLS_NONE ? NET_TLS_NONE : t == CONFIG_TLS_IMPLICIT ? NET_TLS_IMPLICIT :
	       t == CONFIG_TLS_STARTTLS ? NET_TLS_STARTTLS : dflt;
}

/* ------------------------------------------------------ every source */

void daemon_source_init(struct source *s, const struct config_source *c)
{
	struct buf b;

	memset(s, 0, sizeof(*s));
	s->c = c;
	config_source_label(c, s->label, sizeof(s->label));
	s->ops = c->type == SOURCE_IMAP ? &daemon_imap_source :
		 c->type == SOURCE_NNTP ? &daemon_nntp_source : &daemon_maildir_source;
	buf_init(&b, 0);
	/* [source]'s checkpoints keep the names they had before there were
	 * several sources; a named source's are its own, even when another
	 * reads the same server */
	if (c->name)
		buf_printf(&b, "%s/", c->name);
	if (c->type == SOURCE_IMAP)
		buf_printf(&b, "imap:%s@%s", c->user, c->host);
	else if (c->type == SOURCE_NNTP)
		buf_printf(&b, "nntp:%s:%d", c->host,
			   c->port ? c->port : c->tls == CONFIG_TLS_IMPLICIT ||
			   c->tls == CONFIG_TLS_DEFAULT ? 563 : 119);
	else
		buf_printf(&b, "maildir:%s", c->path);
	s->id = buf_detach(&b, NULL);
	s->one.name = xstrdup(c->type == SOURCE_IMAP ? c->folder : "");
	s->f = &s->one;
	maildir_init(&s->in);
	maildir_list_init(&s->md_done);
}

void daemon_source_release(struct daemon *d, struct source *s)
{
	if (s->ops && s->ops->connected(s))
		s->ops->close(d, s);
	daemon_claim_release(d, s);
	free(s->owner);
	maildir_release(&s->in);
	maildir_list_release(&s->md_done);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i]->name);
		free(s->groups[i]->retries);
		free(s->groups[i]);
	}
	free(s->groups);
	free(s->one.name);
	free(s->one.retries);
	free(s->id);
	memset(s, 0, sizeof(*s));
}

struct imap_source *daemon_imap_of(const struct daemon *d)
{
	for (size_t i = 0; i < d->nsrcs; i++)
		if (d->srcs[i].imap)
			return d->srcs[i].imap;
	return NULL;
}

/* Whether the folder's numbers started again (enum renumber). */
static bool renumbered(const struct store_checkpoint *cp, enum renumber how, uint32_t valid,
		       uint32_t next)
{
	if (how == RENUMBER_UIDVALIDITY)
		return cp->uidvalidity != valid;
	return valid < cp->uidvalidity || (next ? next - 1 : 0) < cp->last_uid;
}

int daemon_folder_start(struct daemon *d, struct source *s, struct folder *f,
			enum renumber how, uint32_t valid, uint32_t first, uint32_t next,
			struct err *e)
{
	struct store_checkpoint cp = { 0, 0 };
	bool found = f->cp_known;

	if (found)
		cp = f->cp;
	else if (store_checkpoint_get(d->st, s->id, f->name, &cp, &found, e) < 0)
		return -1;
	if (!found) {
		cp.uidvalidity = valid;
		cp.last_uid = s->c->backfill ? (first ? first - 1 : 0) : (next ? next - 1 : 0);
		log_msg(LOGL_INFO, "%s %s %s: first start: %s", s->label, s->ops->name, f->name,
			s->c->backfill ? "backfill from the first message" : "only mail from now on");
	} else if (renumbered(&cp, how, valid, next)) {
		if (how == RENUMBER_UIDVALIDITY)
			log_msg(LOGL_WARNING, "%s %s %s: UIDVALIDITY changed from %" PRIu32 " to %"
				PRIu32 ": rescanning, known Message-IDs are skipped", s->label,
				s->ops->name, f->name, cp.uidvalidity, valid);
		else
			log_msg(LOGL_WARNING, "%s %s %s: renumbered (low water mark %" PRIu32
				", was %" PRIu32 "; high %" PRIu32 ", last handled %" PRIu32 "): "
				"rescanning, known Message-IDs are skipped", s->label,
				s->ops->name, f->name, valid, cp.uidvalidity, next ? next - 1 : 0,
				cp.last_uid);
		cp.uidvalidity = valid;
		cp.last_uid = first ? first - 1 : 0;
		/* the mail there now is rescanned: see before_start() */
		f->rescan_until = next ? next - 1 : 0;
		/* and the numbers of the mail not delivered name other mail */
		if (daemon_retries_forget(d, s, f, e) < 0)
			return -1;
	} else if (f->cp_known && cp.uidvalidity == valid) {
		return 0;	/* nothing moved */
	} else if (f->shared && cp.uidvalidity == valid) {
		/* the store's, which another daemon moves: not written back */
		f->cp = f->cp_committed = cp;
		f->cp_known = true;
		return 0;
	} else {
		cp.uidvalidity = valid;	/* a low water mark moves up as articles expire */
	}
	f->cp = f->cp_committed = cp;
	f->cp_known = true;
	/* Not past a message still asked for again (daemon_unread.c). */
	f->cp_committed.last_uid = daemon_hold(d, cp.last_uid);
	return store_checkpoint_set(d->st, s->id, f->name, &f->cp_committed, e);
}

/* ------------------------------------------------------ Maildir source */

static int md_open(struct daemon *d, struct source *s, struct err *e)
{
	maildir_release(&s->in);
	return maildir_open(&s->in, s->c->path, false, e);
}

static bool md_connected(const struct source *s)
{
	return s->in.path != NULL;
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
static bool md_done(const struct source *s, const char *name)
{
	return s->md_done.n &&
	       bsearch(&name, s->md_done.names, s->md_done.n, sizeof(char *), cmp_name);
}

/* The list l of this poll becomes the one md_done() looks at. */
static void md_remember(struct source *s, struct maildir_list *l, size_t n)
{
	maildir_list_release(&s->md_done);
	for (size_t i = n; i < l->n; i++)
		free(l->names[i]);
	l->n = n;
	if (n)
		qsort(l->names, n, sizeof(char *), cmp_name);
	s->md_done = *l;
	maildir_list_init(l);
}

/* new/ (and cur/ on backfill), the names the store has not seen. */
static int md_poll(struct daemon *d, struct source *s, const struct source_cb *cb,
		   struct err *e)
{
	struct maildir_list l;
	size_t i = 0;
	int rc = SOURCE_MORE;

	maildir_list_init(&l);
	if (maildir_list(&s->in, s->c->backfill, &l, e) < 0)
		return -1;
	while (i < l.n && rc == SOURCE_MORE) {
		const char *name = l.names[i++];
		struct origin o = { 0, name, UNREAD_ERROR, NULL, 0 };
		struct err re;

		if (md_done(s, name))
			continue;
		if (maildir_read(&s->in, name, &d->raw, MESSAGE_MAX_SIZE, &re) == 0)
			rc = cb->take(cb->aux, &o, d->raw.data, d->raw.len, e);
		else if (still_there(&s->in, name))	/* else a mail reader moved it */
			rc = cb->take(cb->aux, &o, NULL, 0, e);
		if (rc == SOURCE_FULL)
			rc = cb->end(cb->aux, e);
	}
	if (cb->end(cb->aux, rc < 0 ? NULL : e) < 0)
		rc = -1;
	if (rc == SOURCE_STOP)
		rc = 0;
	/* After a failure a batch may have been rolled back: read all again. */
	if (rc == 0 && !s->c->mark_seen)
		md_remember(s, &l, i);
	maildir_list_release(&l);
	return rc;
}

static void md_close(struct daemon *d, struct source *s)
{
	maildir_release(&s->in);
	maildir_list_release(&s->md_done);
}

const struct source_ops daemon_maildir_source = {
	"maildir", md_open, md_connected, md_poll, NULL, md_close
};

/* --------------------------------------------------------- IMAP source */

/* Where to start: the checkpoint, UIDNEXT on a first start, 1 after a
 * UIDVALIDITY change. */
static int imap_start(struct daemon *d, struct source *s, struct err *e)
{
	uint32_t uidvalidity, uidnext;

	if (imap_mailbox(s->imap, &uidvalidity, &uidnext, e) < 0)
		return -1;
	return daemon_folder_start(d, s, &s->one, RENUMBER_UIDVALIDITY, uidvalidity, 1, uidnext,
				   e);
}

static int imap_open_source(struct daemon *d, struct source *s, struct err *e)
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
	is.wait_sigmask = &d->sig.wait_mask;
	is.stop = &daemon_got_stop;
	s->one.shared = daemon_claims_shared(d, c);
	rc = imap_open(&s->imap, &is, e);
	secret_free(password);
	if (rc < 0)
		return -1;
	return imap_start(d, s, e);
}

static bool imap_connected(const struct source *s)
{
	return s->imap != NULL;
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
static int imap_retries(struct daemon *d, struct source *s, const struct source_cb *cb,
			struct err *e)
{
	struct fetch f = { cb, false, false };
	uint32_t *uids;
	size_t n;
	int rc, end;

	if (daemon_retries_load(d, s, &s->one, e) < 0)
		return -1;
	daemon_retries_poll(&s->one);
	n = daemon_retries_due(&s->one, daemon_now(d), &uids);
	if (!n)
		return SOURCE_MORE;
	rc = imap_fetch_uids(s->imap, uids, n, imap_fetched, &f, e);
	free(uids);
	end = cb->end(cb->aux, rc < 0 ? NULL : e);
	if (rc < 0 || end < 0)
		return -1;
	return end;
}

/* A folder shared with other daemons: claim by claim, each a batch. */
static int imap_poll_claims(struct daemon *d, struct source *s, const struct source_cb *cb,
			    struct err *e)
{
	struct folder *f = &s->one;

	for (;;) {
		struct fetch fe = { cb, false, false };
		bool found;
		int rc, end;

		if (daemon_claim_next(d, s, &found, e) < 0)
			return -1;
		if (!found)
			return 0;
		rc = imap_fetch_range(s->imap, f->claim.done_to + 1, f->claim.hi, imap_fetched, &fe,
				      e);
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
static int imap_poll(struct daemon *d, struct source *s, const struct source_cb *cb,
		     struct err *e)
{
	int rc = imap_retries(d, s, cb, e);

	if (rc != SOURCE_MORE)
		return rc == SOURCE_STOP ? 0 : -1;
	if (s->one.shared)
		return imap_poll_claims(d, s, cb, e);
	for (;;) {
		struct fetch f = { cb, false, false };
		int end;

		rc = imap_fetch_from(s->imap, s->one.cp.last_uid + 1, imap_fetched, &f, e);
		/* What was handled before a lost connection is kept. */
		end = cb->end(cb->aux, rc < 0 ? NULL : e);
		if (rc < 0 || end < 0)
			return -1;
		if (!f.full || end == SOURCE_STOP)
			return 0;
	}
}

static int imap_wait_source(struct daemon *d, struct source *s, int max_s, struct err *e)
{
	bool activity;

	return imap_wait(s->imap, max_s, &activity, e);
}

static void imap_close_source(struct daemon *d, struct source *s)
{
	imap_close(s->imap);
	s->imap = NULL;
}

const struct source_ops daemon_imap_source = {
	"imap", imap_open_source, imap_connected, imap_poll, imap_wait_source, imap_close_source
};
