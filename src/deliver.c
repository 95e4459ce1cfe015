/*
 * deliver.c - the outbox drain: claim, confirm, send, mark (deliver.h).
 */
#include "autoconf.h"
#include <string.h>
#include <time.h>

#include "deliver.h"
#include "log.h"

long deliver_backoff(const struct deliver_settings *s, int tries, bool uncertain)
{
	long lo = s->retry_min > 0 ? s->retry_min : DELIVER_RETRY_MIN_S;
	long hi = s->retry_max > 0 ? s->retry_max : DELIVER_RETRY_MAX_S;
	long d = lo;

	for (int i = 1; i < tries && d < hi; i++)
		d *= 2;
	if (d > hi)
		d = hi;
	if (uncertain && d < s->hold)
		d = s->hold;
	return d;
}

enum step {
	STEP_NEXT,	/* handled; look at the next one */
	STEP_STOP,	/* leave the rest for later */
	STEP_ERROR	/* e filled */
};

/* A reply handed over before: is it there already? */
static enum step confirm(struct store *st, const struct deliver_ops *ops,
			 const struct outbox_item *it, bool *done, struct deliver_stats *out,
			 struct err *e)
{
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
	if (store_outbox_mark_sent(st, it->reply_msgid, time(NULL), e) < 0)
		return STEP_ERROR;
	log_message(LOGL_INFO, it->parent_msgid, "reply <%s> was delivered before: marked sent",
		    it->reply_msgid);
	out->confirmed++;
	*done = true;
	return STEP_NEXT;
}

/* What a failed send leaves in the outbox. */
static enum step failed(struct store *st, const struct deliver_settings *s,
			const struct outbox_item *it, const struct err *why,
			struct deliver_stats *out, struct err *e)
{
	long backoff;

	if (why->cls == ERR_FINAL) {
		log_message(LOGL_ERROR, it->parent_msgid, "reply <%s> refused, not retried: %s",
			    it->reply_msgid, why->msg);
		out->failed++;
		if (store_outbox_mark_failed(st, it->reply_msgid, time(NULL), why->msg, e) < 0)
			return STEP_ERROR;
		return STEP_NEXT;
	}
	/* attempts counts the claim of each try and the outcome of the earlier
	 * ones: (attempts + 1) / 2 tries so far. */
	backoff = deliver_backoff(s, (it->attempts + 1) / 2, why->cls == ERR_TEMP);
	log_message(LOGL_WARNING, it->parent_msgid, "reply <%s> not sent, retrying in %ld s: %s",
		    it->reply_msgid, backoff, why->msg);
	out->retried++;
	if (store_outbox_mark_retry(st, it->reply_msgid, time(NULL), backoff, why->msg, e) < 0)
		return STEP_ERROR;
	return STEP_STOP;
}

static enum step deliver_one(struct store *st, const struct deliver_ops *ops,
			     const struct deliver_settings *s, struct outbox_item *it,
			     struct deliver_stats *out, struct err *e)
{
	enum step r;
	struct err why;
	bool done;

	r = confirm(st, ops, it, &done, out, e);
	if (r != STEP_NEXT || done)
		return r;
	/* The claim: from here a crash shows as attempts > 0. */
	if (store_outbox_mark_retry(st, it->reply_msgid, time(NULL), s->hold,
				    "sending (claimed)", e) < 0)
		return STEP_ERROR;
	it->attempts++;
	err_init(&why);
	if (ops->send(ops->arg, it, &why) < 0)
		return failed(st, s, it, &why, out, e);
	if (store_outbox_mark_sent(st, it->reply_msgid, time(NULL), e) < 0)
		return STEP_ERROR;
	log_message(LOGL_INFO, it->parent_msgid, "reply <%s> sent to %s%s", it->reply_msgid,
		    it->nrcpt ? it->rcpt[0] : "?", it->nrcpt > 1 ? " and others" : "");
	out->sent++;
	return STEP_NEXT;
}

int deliver_drain(struct store *st, const struct deliver_ops *ops,
		  const struct deliver_settings *s, const volatile sig_atomic_t *stop,
		  struct deliver_stats *out, struct err *e)
{
	size_t max = s->max_items ? s->max_items : DELIVER_MAX_PER_DRAIN;
	struct outbox_item it;
	enum step r = STEP_NEXT;

	outbox_item_init(&it);
	for (size_t i = 0; i < max && r == STEP_NEXT && !(stop && *stop); i++) {
		bool found;

		if (store_outbox_next_due(st, time(NULL), &it, &found, e) < 0) {
			r = STEP_ERROR;
			break;
		}
		if (!found)
			break;
		r = deliver_one(st, ops, s, &it, out, e);
	}
	outbox_item_release(&it);
	return r == STEP_ERROR ? -1 : 0;
}
