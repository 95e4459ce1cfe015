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
 *    one needs a transfer, nothing is decided or recorded for it: its job
 *    (parsed, with a copy of the raw mail) goes into d->pipeline.pend.
 * 2. The batch commits.  While mails wait, the checkpoint written to the
 *    store stays below the first waiting UID (daemon_lookup_hold()), and a
 *    waiting Maildir file is not marked seen.  Then daemon_batch_end()
 *    sends the replies that are due (those of pass 1: they do not wait for
 *    any lookup), daemon_lookup_resolve() runs the lookups of all waiting
 *    mails at once through curl's multi interface (so the set takes one
 *    timeout, not one per link), and each job is taken up again where it
 *    stopped, with its results, in a second batch that moves the
 *    checkpoint to where the fetch really is.  The loop's drain sends those.
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

#include "daemon/daemon_p.h"
#include "lib/log.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "daemon/cachestore.h"
#include "daemon/linkstore.h"

#define PENDING_MAX		1000	/* mails waiting at once (lookup_fetch's cap is higher) */
#define PENDING_MAX_BYTES	((size_t)256 * 1024 * 1024) /* their raw and parsed bytes (job_bytes()) */

int daemon_lookup_open(struct daemon *d, struct err *e)
{
	struct lookup_cache lc;

	daemon_lookup_close(d);
	if (!d->cfg.rules.lookups)
		return 0;
	if (lookup_new(&d->pipeline.lk, &d->cfg.lookup, cachestore_init(&lc, d->st), e) < 0)
		return err_prefix(e, "[lookup]");
	log_msg(LOGL_INFO, "lookups on: %s", d->cfg.lookup.archive_url ? d->cfg.lookup.archive_url
						 : LOOKUP_DEFAULT_ARCHIVE);
	return 0;
}

void daemon_lookup_close(struct daemon *d)
{
	daemon_lookup_drop(d);
	free(d->pipeline.pend.v);
	memset(&d->pipeline.pend, 0, sizeof(d->pipeline.pend));
	lookup_free(d->pipeline.lk);
	d->pipeline.lk = NULL;
}

void daemon_lookup_drop(struct daemon *d)
{
	for (size_t i = 0; i < d->pipeline.pend.n; i++)
		daemon_job_free(d->pipeline.pend.v[i]);
	d->pipeline.pend.n = 0;
	d->pipeline.pend.bytes = 0;
}

/* What a waiting job holds: its raw bytes and its parsed message (the
 * patches and link results, smaller and derived from those, uncounted). */
static size_t job_bytes(const struct job *j)
{
	return j->len + (j->parsed ? message_bytes(&j->msg) : 0);
}

static bool pending_full(const struct daemon *d, const struct job *j)
{
	return d->pipeline.pend.n >= PENDING_MAX || d->pipeline.pend.bytes + job_bytes(j) > PENDING_MAX_BYTES;
}

static void pending_add(struct daemon *d, struct job *j)
{
	daemon_job_keep(j);
	j->deferred = true;
	ARRAY_GROW(d->pipeline.pend.v, d->pipeline.pend.alloc, d->pipeline.pend.n + 1);
	d->pipeline.pend.v[d->pipeline.pend.n++] = j;
	d->pipeline.pend.bytes += job_bytes(j);
}

/* Links to messages the store knows as earlier versions or series mates:
 * settled without a lookup, also with lookups off. */
static void from_store(struct daemon *d, const struct patch *p, size_t np, time_t now,
		       struct lookup_results *res)
{
	struct linkstore ls = { d->st, &d->cfg.rules.archives, now };
	struct err e;

	if (d->st && np && linkstore_results(&ls, p, np, res, &e) < 0)
		log_message(LOGL_WARNING, p[0].message_id, "what the store knows of its links: %s",
			    e.msg);
}

enum lookup_gate daemon_lookup_gate(struct daemon *d, struct job *j)
{
	struct err e;

	from_store(d, j->p, j->np, j->ctx->now, &j->res);
	if (!d->pipeline.lk || lookup_cached(d->pipeline.lk, j->p, j->np, &d->cfg.rules.archives, &j->res))
		return LOOKUP_DECIDE;
	if (!pending_full(d, j)) {
		log_message(LOGL_DEBUG, j->p[0].message_id, "waits for its lookups");
		pending_add(d, j);
		return LOOKUP_WAITS;
	}
	/* Too many waiting: this one is looked up on its own, now, all its
	 * parts under one deadline (res keeps what the store and the cache
	 * settled: those URLs are skipped). */
	if (lookup_fetch(d->pipeline.lk, &(struct lookup_request){ j->p, j->np, &j->res }, 1,
			 &d->cfg.rules.archives, &e) < 0)
		log_message(LOGL_WARNING, j->p[0].message_id, "%s", e.msg);
	return LOOKUP_DECIDE;
}

uint32_t daemon_lookup_hold(const struct daemon *d, uint32_t last_uid)
{
	for (size_t i = 0; i < d->pipeline.pend.n; i++) {
		const struct job *j = d->pipeline.pend.v[i];

		if (!j->resumed && j->o.uid && j->o.uid - 1 < last_uid)
			last_uid = j->o.uid - 1;
	}
	return last_uid;
}

void daemon_lookup_resolve(struct daemon *d)
{
	struct lookup_request *rq;
	struct jobctx c;
	struct err le;
	size_t n = d->pipeline.pend.n;

	if (!n)
		return;
	daemon_jobctx(&c, d, d->pipeline.b.src);
	rq = xcalloc(n, sizeof(*rq));
	for (size_t i = 0; i < n; i++) {
		struct job *j = d->pipeline.pend.v[i];

		/* Afresh from the store, which the first pass may have taught;
		 * the cache's answers come with the transfers. */
		lookup_results_release(&j->res);
		lookup_results_init(&j->res);
		from_store(d, j->p, j->np, c.now, &j->res);
		rq[i] = (struct lookup_request){ j->p, j->np, &j->res };
	}
	log_msg(LOGL_DEBUG, "lookups for %zu waiting mail%s", n, n == 1 ? "" : "s");
	if (lookup_fetch(d->pipeline.lk, rq, n, &d->cfg.rules.archives, &le) < 0)
		log_msg(LOGL_WARNING, "%s: the mails are checked without them", le.msg);
	free(rq);
}
