/*
 * deliver.c - the outbox drain: claim, confirm, send, mark (deliver.h).
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/backoff.h"
#include "lib/buf.h"
#include "daemon/deliver.h"
#include "lib/log.h"

long deliver_backoff(const struct deliver_settings *s, int tries, bool uncertain)
{
	long lo = s->retry_min > 0 ? s->retry_min : DELIVER_RETRY_MIN_S;
	long hi = s->retry_max > 0 ? s->retry_max : DELIVER_RETRY_MAX_S;
	long d = (long)backoff_delay(tries > 1 ? (unsigned)tries - 1 : 0, lo, hi, false, 0);

	if (uncertain && d < s->hold)
		d = s->hold;
	return d;
}

enum step {
	STEP_NEXT,	/* handled; look at the next one */
	STEP_STOP,	/* leave the rest for later */
	STEP_ERROR	/* e filled */
};

/* A handover that ended, to be recorded in the next transaction. */
struct ended {
	size_t slot;
	int rc;			/* as send's */
	struct err why;
};

/* One deliver_drain(): the replies with the sink, or back from it. */
struct drain {
	struct store *st;
	const struct deliver_ops *ops;
	const struct deliver_settings *s;
	struct deliver_stats *out;
	struct outbox_item *items;	/* owned; parallel of them */
	bool *used;			/* owned; with the sink, or ended and not recorded */
	struct ended *ended;		/* owned */
	size_t parallel, running, nended;
	bool stalled;			/* the reply due first is still with the sink */
	struct err fault;		/* a fault of the sink (ERR_SETUP), or none */
	time_t now;			/* the round's: ops->now at its start */
	size_t handled, max;		/* replies looked at, and how many may be */
	bool more;			/* the last look found one due */
	size_t *fresh, nfresh;		/* owned; the round's slots claimed */
};

/* Backs it off (or claims it) for secs from the round's time, never
 * less than none. */
static int back_off(struct drain *d, const struct outbox_item *it, long secs, const char *why,
		    struct err *e)
{
	return store_outbox_mark_retry(d->st, it->reply_msgid, d->now + (secs > 0 ? secs : 0), why,
				       e);
}

/* A reply handed over before: is it there already? */
static enum step confirm(struct drain *d, const struct outbox_item *it, bool *done,
			 struct err *e)
{
	const struct deliver_ops *ops = d->ops;
	bool found = false;

	*done = false;
	if (!ops->confirm || it->attempts == 0)
		return STEP_NEXT;
	if (ops->confirm(ops->arg, it->reply_msgid, &found, e) < 0)
		return STEP_ERROR;
	if (!found) {
		log_message(LOGL_INFO, it->parent_msgid, "reply <%s> not found delivered after "
			    "%d attempt(s): sending it again", it->reply_msgid, (it->attempts + 1) / 2);
		return STEP_NEXT;
	}
	if (store_outbox_mark_sent(d->st, it->reply_msgid, d->now, NULL, e) < 0)
		return STEP_ERROR;
	log_message(LOGL_INFO, it->parent_msgid, "reply <%s> was delivered before: marked sent",
		    it->reply_msgid);
	d->out->confirmed++;
	*done = true;
	return STEP_NEXT;
}

/*
 * A fault of the sink (ERR_SETUP): nothing was handed over, so the reply
 * is put back as it was before its claim, due at once; the drain ends and
 * the caller backs the sink off.  Its log line is the caller's, once for
 * the sink, not one per reply.
 */
static enum step sink_fault(struct drain *d, const struct outbox_item *it,
			    const struct err *why, struct err *e)
{
	char note[ERR_MSG_MAX + 32];

	log_message(LOGL_DEBUG, it->parent_msgid, "reply <%s> stays queued: %s", it->reply_msgid,
		    why->msg);
	snprintf(note, sizeof(note), "waiting for the sink: %s", why->msg);
	if (store_outbox_unclaim(d->st, it->reply_msgid, d->now, note, e) < 0)
		return STEP_ERROR;
	d->fault = *why;
	return STEP_STOP;
}

/* What a failed send leaves in the outbox. */
static enum step failed(struct drain *d, const struct outbox_item *it, const struct err *why,
			struct err *e)
{
	long backoff;

	if (why->cls == ERR_SETUP)
		return sink_fault(d, it, why, e);
	if (why->cls == ERR_FINAL) {
		log_message(LOGL_ERROR, it->parent_msgid, "reply <%s> refused, not retried: %s",
			    it->reply_msgid, why->msg);
		d->out->failed++;
		if (store_outbox_mark_failed(d->st, it->reply_msgid, d->now, why->msg, e) < 0)
			return STEP_ERROR;
		return STEP_NEXT;
	}
	/* attempts counts the claim of each try and the outcome of the earlier
	 * ones: (attempts + 1) / 2 tries so far. */
	backoff = deliver_backoff(d->s, (it->attempts + 1) / 2, why->cls == ERR_TEMP);
	log_message(LOGL_WARNING, it->parent_msgid, "reply <%s> not sent, retrying in %ld s: %s",
		    it->reply_msgid, backoff, why->msg);
	d->out->retried++;
	if (back_off(d, it, backoff, why->msg, e) < 0)
		return STEP_ERROR;
	return STEP_STOP;
}

static void drain_init(struct drain *d, struct store *st, const struct deliver_ops *ops,
		       const struct deliver_settings *s, struct deliver_stats *out)
{
	memset(d, 0, sizeof(*d));
	d->st = st;
	d->ops = ops;
	d->s = s;
	d->out = out;
	err_init(&d->fault);
	d->parallel = ops->start && s->parallel > 1 ? s->parallel : 1;
	d->items = xcalloc(d->parallel, sizeof(*d->items));
	d->used = xcalloc(d->parallel, sizeof(*d->used));
	d->ended = xcalloc(d->parallel, sizeof(*d->ended));
	d->fresh = xcalloc(d->parallel, sizeof(*d->fresh));
	d->max = s->max_items ? s->max_items : DELIVER_MAX_PER_DRAIN;
	d->more = true;
	for (size_t i = 0; i < d->parallel; i++)
		outbox_item_init(&d->items[i]);
}

static void drain_release(struct drain *d)
{
	for (size_t i = 0; i < d->parallel; i++)
		outbox_item_release(&d->items[i]);
	free(d->items);
	free(d->used);
	free(d->ended);
	free(d->fresh);
}

static void push_ended(struct drain *d, size_t slot, int rc, const struct err *why)
{
	struct ended *x = &d->ended[d->nended++];

	x->slot = slot;
	x->rc = rc;
	x->why = *why;
}

/* Hands slot's reply to the sink: started, or (a synchronous sink, or
 * refused at once) ended already. */
static void hand_over(struct drain *d, size_t slot)
{
	struct outbox_item *it = &d->items[slot];
	struct err why;
	int rc;

	err_init(&why);
	if (!d->ops->start) {
		rc = d->ops->send(d->ops->arg, it, &why);
		push_ended(d, slot, rc, &why);
	} else if ((rc = d->ops->start(d->ops->arg, it, &why)) < 0) {
		push_ended(d, slot, rc, &why);
	} else {
		d->running++;
	}
}

/* Takes in the handovers that ended; with wait, at least one. */
static void collect(struct drain *d, bool wait)
{
	while (d->running) {
		struct outbox_item *it = NULL;
		struct err why;
		enum handover rc;

		err_init(&why);
		rc = d->ops->finish(d->ops->arg, wait, &it, &why);
		if (rc == HANDOVER_NONE || !it) {
			if (wait)	/* the sink has none running: never wait forever */
				d->running = 0;
			return;
		}
		d->running--;
		push_ended(d, (size_t)(it - d->items), rc, &why);
		wait = false;
	}
}

/* What an ended handover leaves in the outbox. */
static enum step record(struct drain *d, const struct ended *x, struct err *e)
{
	struct outbox_item *it = &d->items[x->slot];

	const char *note = x->why.msg[0] ? x->why.msg : NULL;

	d->used[x->slot] = false;
	if (x->rc < 0)
		return failed(d, it, &x->why, e);
	if (store_outbox_mark_sent(d->st, it->reply_msgid, d->now, note, e) < 0)
		return STEP_ERROR;
	log_message(note ? LOGL_WARNING : LOGL_INFO, it->parent_msgid, "reply <%s> sent to %s%s%s%s",
		    it->reply_msgid, it->nrcpt ? it->rcpt[0] : "?",
		    it->nrcpt > 1 && !note ? " and others" : "", note ? "; " : "", note ? note : "");
	d->out->sent++;
	d->out->dropped += note != NULL;
	return STEP_NEXT;
}

static size_t idle_slot(const struct drain *d)
{
	for (size_t i = 0; i < d->parallel; i++)
		if (!d->used[i])
			return i;
	return d->parallel;
}

/* Whether slot's reply is also in another slot: with the sink for longer
 * than its hold, it came due again. */
static bool in_flight(const struct drain *d, size_t slot)
{
	for (size_t i = 0; i < d->parallel; i++)
		if (i != slot && d->used[i] &&
		    !strcmp(d->items[i].reply_msgid, d->items[slot].reply_msgid))
			return true;
	return false;
}

/*
 * The next due reply into slot, confirmed delivered before (then marked
 * sent, *claimed false) or claimed: from here a crash shows as attempts > 0.
 * One still with the sink is left alone (d->stalled): the round ends, and
 * the drain waits for a handover to end first.
 */
static enum step claim_next(struct drain *d, size_t slot, bool *found, bool *claimed,
			    struct err *e)
{
	struct outbox_item *it = &d->items[slot];
	enum step r;
	bool done;

	*claimed = false;
	if (store_outbox_next_due(d->st, d->now, it, found, e) < 0)
		return STEP_ERROR;
	if (!*found)
		return STEP_NEXT;
	if (in_flight(d, slot)) {
		d->stalled = true;
		return STEP_NEXT;
	}
	r = confirm(d, it, &done, e);
	if (r != STEP_NEXT || done)
		return r;
	if (back_off(d, it, d->s->hold, "sending (claimed)", e) < 0)
		return STEP_ERROR;
	it->attempts++;
	d->used[slot] = true;
	*claimed = true;
	return STEP_NEXT;
}

/*
 * One transaction: the outcomes that came back, then claims for the free
 * slots.  Committed before anything claimed goes to the sink, so each
 * commit (one fsync) carries a round of outcomes and claims.  d->fresh
 * lists the slots claimed.
 */
static enum step drain_round(struct drain *d, bool may_claim, struct err *e)
{
	enum step r = STEP_NEXT, rr;
	size_t slot;

	d->nfresh = 0;
	d->stalled = false;
	d->now = d->ops->now(d->ops->arg);
	if (store_begin(d->st, e) < 0)
		return STEP_ERROR;
	for (size_t i = 0; i < d->nended && r != STEP_ERROR; i++)
		if ((rr = record(d, &d->ended[i], e)) != STEP_NEXT)
			r = rr;
	d->nended = 0;
	while (r == STEP_NEXT && may_claim && d->more && !d->stalled && d->handled < d->max &&
	       (slot = idle_slot(d)) < d->parallel) {
		bool claimed;

		r = claim_next(d, slot, &d->more, &claimed, e);
		if (d->more && !d->stalled && r == STEP_NEXT)
			d->handled++;
		if (claimed)
			d->fresh[d->nfresh++] = slot;
	}
	if (r == STEP_ERROR) {
		store_rollback(d->st);
		return r;
	}
	return store_commit(d->st, e) < 0 ? STEP_ERROR : r;
}

/* After an error: what is with the sink still ends (its claim stands; the
 * next drain confirms or sends it again). */
static void abandon(struct drain *d)
{
	while (d->running)
		collect(d, true);
}

int deliver_drain(struct store *st, const struct deliver_ops *ops,
		  const struct deliver_settings *s, struct deliver_stats *out, struct err *e)
{
	const volatile sig_atomic_t *stop = ops->stop;
	bool stopping = false;
	struct drain d;
	int rc = 0;

	drain_init(&d, st, ops, s, out);
	for (;;) {
		bool may_claim = !stopping && d.more && !(stop && *stop) && d.handled < d.max;
		enum step r;

		if (d.running)
			collect(&d, !may_claim || d.stalled || idle_slot(&d) == d.parallel);
		if (!d.nended && !d.running && !may_claim)
			break;
		r = drain_round(&d, may_claim, e);
		if (r == STEP_ERROR) {
			rc = -1;
			break;
		}
		/* A temporary failure: the server is likely down, the rest wait. */
		if (r == STEP_STOP)
			stopping = true;
		for (size_t i = 0; i < d.nfresh; i++)
			hand_over(&d, d.fresh[i]);
		if (!d.nended && !d.running && !d.more)
			break;
	}
	abandon(&d);
	if (rc == 0 && d.fault.cls == ERR_SETUP) {
		*e = d.fault;
		rc = -1;
	}
	drain_release(&d);
	return rc;
}
