/*
 * daemon_claim.c - an IMAP folder read by several daemons sharing one
 * PostgreSQL state: each reads the claims it takes (store.h, "claims"),
 * so that no two fetch and parse the same mail, and together they move
 * the one checkpoint.
 *
 * A claim is read as one batch: its UIDs are fetched (the source's batch
 * is its size), handled, and the batch's transaction records how far the
 * claim got (daemon_claim_done()) with the messages it recorded, so a
 * crash leaves both or neither; the checkpoint moves over it when a claim
 * is next asked for.  A claim not finished (the connection
 * broke, SIGTERM) stays this daemon's and is read on at its next poll;
 * if the daemon is gone, another takes it over when the lease (five
 * [source] timeouts) runs out, at once after a clean stop
 * (daemon_claim_release()).  A daemon that
 * finds every claim taken waits for the first lease to run out
 * (daemon_claims_wait()) as well as for new mail.
 */
#include "autoconf.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"

/* A claim's lease, in [source] timeouts: its taker fetches a batch (each
 * read within a timeout), decides it and commits; a daemon silent for
 * this long is taken for gone. */
#define CLAIM_LEASE_TIMEOUTS	5

bool daemon_claims_shared(const struct daemon *d)
{
	return !d->dry && store_is_url(d->cfg.tagbot.state);
}

/* Who this daemon is, in the claims it takes: host, process and start.
 * The wall clock here is part of a name, not a step's time: it tells this
 * process from an earlier one with the same pid, replay or not. */
static char *owner_name(void)
{
	char host[256], b[320];

	if (gethostname(host, sizeof(host)) < 0)
		strcpy(host, "?");
	host[sizeof(host) - 1] = '\0';
	snprintf(b, sizeof(b), "%s:%ld:%lld", host, (long)getpid(), (long long)time(NULL));
	return xstrdup(b);
}

static void ask(struct source *s, uint32_t top, time_t now, struct store_claim_ask *a)
{
	if (!s->owner)
		s->owner = owner_name();
	memset(a, 0, sizeof(*a));
	a->source = s->id;
	a->folder = s->one.name;
	a->validity = s->one.cp.uidvalidity;
	a->top = top;
	a->span = (uint32_t)s->c->batch;
	a->owner = s->owner;
	a->now = now;
	a->lease = (time_t)s->c->timeout * CLAIM_LEASE_TIMEOUTS;
}

int daemon_claim_next(struct source *s, uint32_t top, bool *found, struct err *e)
{
	struct folder *f = &s->one;
	struct store_claim_ask a;

	*found = false;
	f->claimed = false;
	ask(s, top, daemon_source_now(s), &a);
	if (store_claim_next(s->env->st, &a, &f->claim, found, e) < 0) {
		f->cp_known = false;	/* read from the store at the next start */
		return -1;
	}
	f->cp.last_uid = f->cp_committed.last_uid = f->claim.checkpoint;
	f->claim_wake = *found ? 0 : f->claim.wake;
	f->claimed = *found;
	f->claim_upto = f->claim.done_to;
	if (*found)
		log_msg(LOGL_DEBUG, "%s imap %s: reading UIDs %" PRIu32 "-%" PRIu32 "%s", s->label,
			f->name, f->claim.done_to + 1, f->claim.hi,
			f->claim.done_to >= f->claim.lo ? " (a claim read on)" : "");
	return 0;
}

void daemon_claim_handled(struct folder *f, uint32_t uid)
{
	if (f->claimed && uid >= f->claim.lo && uid <= f->claim.hi && uid > f->claim_upto)
		f->claim_upto = uid;
}

int daemon_claim_done(struct daemon *d, struct err *e)
{
	struct source *s = d->pipeline.b.src;
	struct folder *f = s->f;
	struct store_claim_ask a;
	uint32_t to;

	if (!f->claimed)
		return 0;
	/* not past a mail that waits for its lookups */
	to = daemon_lookup_hold(d, f->claim_upto);
	if (to < f->claim.done_to)
		to = f->claim.done_to;
	ask(s, 0, daemon_now(d), &a);
	if (store_claim_done(d->st, &a, f->claim.lo, to, e) < 0)
		return -1;
	f->claim_to = to;
	return 0;
}

void daemon_claim_committed(struct folder *f, bool ok)
{
	if (!f->claimed)
		return;
	if (ok)
		f->claim.done_to = f->claim_to;
	f->claim_upto = f->claim.done_to;
}

int daemon_claims_wait(const struct daemon *d, time_t now, int max)
{
	for (size_t i = 0; i < d->sources.n; i++) {
		time_t w = d->sources.v[i]->one.claim_wake;

		if (w && w - now < max)
			max = w - now < 1 ? 1 : (int)(w - now);
	}
	return max;
}

void daemon_claim_release(struct daemon *d, struct source *s)
{
	struct err e;

	if (!s->owner || !d->st)
		return;
	if (store_claim_release(d->st, s->owner, &e) < 0)
		log_msg(LOGL_WARNING, "%s %s", s->label, e.msg);
}
