/*
 * source_maildir.c - the Maildir source driver (source.h): new/ (and cur/
 * on backfill), each file the store has not seen handed over by its name;
 * marked seen by moving it to cur/ with the S flag (mark_seen).  Without
 * mark_seen the files stay in new/, and a poll passes over the names the
 * last one handled.  A Maildir has no way to tell of new mail: it is
 * polled every poll_interval.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "transport/maildir.h"

struct maildir_src {
	struct source s;		/* first: the base */
	struct maildir in;		/* owned; open while connected */
	struct maildir_list done;	/* owned; its names handled by the last poll, sorted */
	struct buf raw;			/* a message being read */
};

static struct maildir_src *md_of(const struct source *s)
{
	return SOURCE_DRIVER(s, struct maildir_src);
}

static void md_init(struct source *s)
{
	struct maildir_src *m = md_of(s);

	maildir_init(&m->in);
	maildir_list_init(&m->done);
	buf_init(&m->raw, MESSAGE_MAX_SIZE);
}

static void md_release(struct source *s)
{
	buf_release(&md_of(s)->raw);
}

static int md_open(struct source *s, struct err *e)
{
	struct maildir_src *m = md_of(s);

	maildir_release(&m->in);
	return maildir_open(&m->in, s->c->path, false, e);
}

static bool md_connected(const struct source *s)
{
	return md_of(s)->in.path != NULL;
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
static bool md_done(const struct maildir_src *m, const char *name)
{
	return m->done.n &&
	       bsearch(&name, m->done.names, m->done.n, sizeof(char *), cmp_name);
}

/* The list l of this poll becomes the one md_done() looks at. */
static void md_remember(struct maildir_src *m, struct maildir_list *l, size_t n)
{
	maildir_list_release(&m->done);
	for (size_t i = n; i < l->n; i++)
		free(l->names[i]);
	l->n = n;
	if (n)
		qsort(l->names, n, sizeof(char *), cmp_name);
	m->done = *l;
	maildir_list_init(l);
}

/* new/ (and cur/ on backfill), the names the store has not seen. */
static int md_poll(struct source *s, const struct source_cb *cb, struct err *e)
{
	struct maildir_src *m = md_of(s);
	struct maildir_list l;
	size_t i = 0;
	int rc = SOURCE_MORE;

	maildir_list_init(&l);
	if (maildir_list(&m->in, s->c->backfill, &l, e) < 0)
		return -1;
	while (i < l.n && rc == SOURCE_MORE) {
		const char *name = l.names[i++];
		struct origin o = { 0, name, UNREAD_ERROR, NULL, 0 };
		struct err re;

		if (md_done(m, name))
			continue;
		if (maildir_read(&m->in, name, &m->raw, MESSAGE_MAX_SIZE, &re) == 0)
			rc = cb->take(cb->aux, &o, m->raw.data, m->raw.len, e);
		else if (still_there(&m->in, name))	/* else a mail reader moved it */
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
		md_remember(m, &l, i);
	maildir_list_release(&l);
	return rc;
}

static void md_close(struct source *s)
{
	struct maildir_src *m = md_of(s);

	maildir_release(&m->in);
	maildir_list_release(&m->done);
}

static void md_mark_seen(struct source *s, const struct source_marks *mk)
{
	struct maildir_src *m = md_of(s);
	struct err e;

	for (size_t i = 0; i < mk->nnames; i++)
		if (maildir_mark_seen(&m->in, mk->names[i], NULL, &e) < 0)
			log_msg(LOGL_WARNING, "%s", e.msg);
}

/* Looks at SOURCE_FIND_SCAN_MAX files at most: a lookup for Cc mode must
 * not read a huge Maildir whole. */
static void md_find_msgid(struct source *s, const char *id, struct buf *out, bool *found)
{
	struct maildir_src *m = md_of(s);
	struct err e;
	char *name;

	*found = false;
	if (maildir_find_msgid(&m->in, id, SOURCE_FIND_SCAN_MAX, &name, &e) < 0) {
		log_msg(LOGL_WARNING, "%s", e.msg);
		return;
	}
	if (!name)
		return;
	if (maildir_read(&m->in, name, out, MESSAGE_MAX_SIZE, &e) < 0)
		log_msg(LOGL_WARNING, "%s", e.msg);
	else
		*found = true;
	free(name);
}

const struct source_ops daemon_maildir_source = {
	.name = "maildir",
	.place = "maildir",
	.local = true,
	.size = sizeof(struct maildir_src),
	.init = md_init,
	.release = md_release,
	.open = md_open,
	.connected = md_connected,
	.poll = md_poll,
	.close = md_close,
	.mark_seen = md_mark_seen,
	.find_msgid = md_find_msgid,
};
