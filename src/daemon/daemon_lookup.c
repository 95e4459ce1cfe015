/*
 * daemon_lookup.c - archive lookups in `tagbot run` without making any
 * other reply wait for them.
 *
 * Design.  A batch (the messages of one fetch, committed together, see
 * daemon_msg.c) is handled in two passes:
 *
 * 1. Every message goes through handle() as before.  Just before a patch
 *    is checked, daemon_lookup_gate() asks the store what it knows of the
 *    messages its Link: lines name (an earlier version of the patch, a
 *    mail of its series: settled without any lookup, also with lookups
 *    off), then the lookup cache (no network) for its other Link:/Closes:
 *    URLs.  When there is no such URL, or every one
 *    is cached, the patch is checked, decided and recorded at once.  When
 *    one needs a transfer, nothing is decided or recorded for it: a copy
 *    of the raw mail goes into d->pend.
 * 2. The batch commits.  While mails wait, the checkpoint written to the
 *    store stays below the first waiting UID (daemon_lookup_hold()), and a
 *    waiting Maildir file is not marked seen.  Then daemon_lookup_resolve()
 *    sends the replies that are due (those of pass 1: they do not wait for
 *    any lookup), runs the lookups of all waiting mails at once through
 *    curl's multi interface (so the set takes one timeout, not one per
 *    link), and hands each mail to daemon_process_one() again with its
 *    results (d->ready), in a second batch that moves the checkpoint to
 *    where the fetch really is.  The source's own drain sends those.
 *
 * What this keeps:
 * - At most one reply: a waiting mail has no row, so nothing was sent for
 *   it; pass 2 records it exactly as pass 1 would have (the same
 *   store_record_reply(), with the outbox's UNIQUE parent).  A second copy
 *   of the mail in the same batch waits too and is skipped as seen in
 *   pass 2.
 * - Crash safety: killed while mails wait, the store holds neither their
 *   rows nor a checkpoint past them (IMAP), nor a seen flag (Maildir): they
 *   are fetched and checked again at the next start.  The messages after
 *   them that were recorded are skipped as seen.
 * - A lookup that fails or times out is logged (lookup.c) and gives
 *   LOOKUP_UNKNOWN, which never becomes a finding: the mail is decided on
 *   its other findings.
 * The price: a message fetched while lookups run waits for that run (at
 * most about one [lookup] timeout) before its own batch starts.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_int.h"
#include "lib/log.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "daemon/cachestore.h"
#include "daemon/linkstore.h"

#define PENDING_MAX		1000	/* mails waiting at once (lookup_fetch's cap is higher) */
#define PENDING_MAX_BYTES	((size_t)256 * 1024 * 1024) /* their raw bytes */

int daemon_lookup_open(struct daemon *d, struct err *e)
{
	struct lookup_cache lc;

	daemon_lookup_close(d);
	if (!d->cfg.rules.lookups)
		return 0;
	if (lookup_new(&d->lk, &d->cfg.lookup, cachestore_init(&lc, d->st), e) < 0)
		return err_prefix(e, "[lookup]");
	log_msg(LOGL_INFO, "lookups on: %s", d->cfg.lookup.archive_url ? d->cfg.lookup.archive_url
						 : LOOKUP_DEFAULT_ARCHIVE);
	return 0;
}

void daemon_lookup_close(struct daemon *d)
{
	daemon_lookup_drop(d);
	free(d->pend.v);
	memset(&d->pend, 0, sizeof(d->pend));
	lookup_free(d->lk);
	d->lk = NULL;
}

void daemon_lookup_drop(struct daemon *d)
{
	for (size_t i = 0; i < d->pend.n; i++) {
		free(d->pend.v[i].name);
		free(d->pend.v[i].raw);
	}
	d->pend.n = 0;
	d->pend.bytes = 0;
}

static bool pending_full(const struct daemon *d, size_t len)
{
	return d->pend.n >= PENDING_MAX || d->pend.bytes + len > PENDING_MAX_BYTES;
}

static void pending_add(struct daemon *d, const struct origin *o, const char *raw, size_t len)
{
	struct pending_mail *m;

	ARRAY_GROW(d->pend.v, d->pend.alloc, d->pend.n + 1);
	m = &d->pend.v[d->pend.n++];
	m->uid = o->uid;
	m->name = o->name ? xstrdup(o->name) : NULL;
	m->raw = xmalloc(len + 1);
	memcpy(m->raw, raw, len);
	m->raw[len] = '\0';
	m->len = len;
	m->done = false;
	d->pend.bytes += len;
}

/* Links to messages the store knows as earlier versions or series mates:
 * settled without a lookup, also with lookups off. */
static void from_store(struct daemon *d, const struct patch *p, size_t np,
		       struct lookup_results *res)
{
	struct err e;

	if (d->st && np && linkstore_results(d->st, p, np, &d->cfg.rules.archives, res, &e) < 0)
		log_message(LOGL_WARNING, p[0].message_id, "what the store knows of its links: %s",
			    e.msg);
}

int daemon_lookup_gate(struct daemon *d, const struct origin *o, const struct patch *p,
		       size_t np, const char *raw, size_t len, struct lookup_results *res,
		       const struct lookup_results **use)
{
	struct err e;

	*use = res;
	if (d->ready) {
		*use = d->ready;
		return 0;
	}
	from_store(d, p, np, res);
	if (!d->lk || lookup_cached(d->lk, p, np, &d->cfg.rules.archives, res))
		return 0;
	if (!pending_full(d, len)) {
		log_message(LOGL_DEBUG, p[0].message_id, "waits for its lookups");
		pending_add(d, o, raw, len);
		return 1;
	}
	/* Too many waiting: this one is looked up on its own, now, all its
	 * parts under one deadline (res keeps what the store and the cache
	 * settled: those URLs are skipped). */
	if (lookup_fetch(d->lk, &(struct lookup_request){ p, np, res }, 1,
			 &d->cfg.rules.archives, &e) < 0)
		log_message(LOGL_WARNING, p[0].message_id, "%s", e.msg);
	return 0;
}

uint32_t daemon_lookup_hold(const struct daemon *d, uint32_t last_uid)
{
	for (size_t i = 0; i < d->pend.n; i++) {
		const struct pending_mail *m = &d->pend.v[i];

		if (!m->done && m->uid && m->uid - 1 < last_uid)
			last_uid = m->uid - 1;
	}
	return last_uid;
}

/* The parsed parts of the waiting mails and one result list per mail. */
struct parsed {
	struct message *msg;		/* owned, one per mail */
	struct patch **p;		/* owned */
	size_t *np;
	struct lookup_results *res;	/* owned */
	struct lookup_request *rq;	/* owned */
	size_t n;
};

static void parse_all(struct daemon *d, const struct pending *pd, struct parsed *x)
{
	x->n = pd->n;
	x->msg = xcalloc(x->n, sizeof(*x->msg));
	x->p = xcalloc(x->n, sizeof(*x->p));
	x->np = xcalloc(x->n, sizeof(*x->np));
	x->res = xcalloc(x->n, sizeof(*x->res));
	x->rq = xcalloc(x->n, sizeof(*x->rq));
	for (size_t i = 0; i < x->n; i++) {
		struct err e;

		message_init(&x->msg[i]);
		lookup_results_init(&x->res[i]);
		/* It parsed in pass 1; failing now leaves nothing to look up. */
		if (message_parse(&x->msg[i], pd->v[i].raw, pd->v[i].len, &e) == 0)
			patch_parse(&x->msg[i], &x->p[i], &x->np[i]);
		from_store(d, x->p[i], x->np[i], &x->res[i]);
		x->rq[i] = (struct lookup_request){ x->p[i], x->np[i], &x->res[i] };
	}
}

static void parsed_release(struct parsed *x)
{
	for (size_t i = 0; i < x->n; i++) {
		if (x->p[i])
			patches_free(x->p[i], x->np[i]);
		message_release(&x->msg[i]);
		lookup_results_release(&x->res[i]);
	}
	free(x->msg);
	free(x->p);
	free(x->np);
	free(x->res);
	free(x->rq);
}

/* Pass 2 for every waiting mail; -1 on a store error (the batch fails). */
static int decide_all(struct daemon *d, const struct parsed *x, struct err *e)
{
	int rc = 0;

	for (size_t i = 0; i < d->pend.n && rc == 0; i++) {
		struct pending_mail *m = &d->pend.v[i];
		struct origin o = { m->uid, m->name };

		m->done = true;
		d->ready = &x->res[i];
		rc = daemon_process_one(d, &o, m->raw, m->len, e);
		d->ready = NULL;
	}
	return rc;
}

int daemon_lookup_resolve(struct daemon *d, struct err *e)
{
	struct parsed x;
	struct err le;
	int rc;

	if (!d->pend.n)
		return 0;
	/* The replies of pass 1 first: they need no lookup. */
	if (daemon_drain(d, &le) < 0)
		log_msg(LOGL_WARNING, "sending before the lookups: %s", le.msg);
	parse_all(d, &d->pend, &x);
	log_msg(LOGL_DEBUG, "lookups for %zu waiting mail%s", x.n, x.n == 1 ? "" : "s");
	if (lookup_fetch(d->lk, x.rq, x.n, &d->cfg.rules.archives, &le) < 0)
		log_msg(LOGL_WARNING, "%s: the mails are checked without them", le.msg);
	rc = decide_all(d, &x, e);
	parsed_release(&x);
	return rc;
}
