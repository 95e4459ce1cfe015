/*
 * deliver.h - draining the outbox (store.h) through a sink, so that every
 * queued reply goes out once: claim, confirm, send, mark.
 *
 * A reply is claimed before it is sent: store_outbox_mark_retry() with a
 * hold of s->hold seconds, which also counts the attempt.  So a reply whose
 * attempts are above zero when it comes due again was, or may have been,
 * handed to the sink before: a crash between "the server accepted it" and
 * "marked sent", or a connection lost after the DATA.  Such a reply is first
 * looked up where the sink leaves a copy (ops->confirm: the bot's own
 * mailbox, which the SMTP transaction gave an extra envelope recipient; or
 * the sink Maildir) and marked sent when it is there.  The hold is the grace
 * period that gives an asynchronous delivery time to show up before the
 * lookup decides that the reply was lost and sends it again.
 *
 * Without ops->confirm (an SMTP sink whose copy the daemon cannot read) a
 * reply found claimed is sent again after the hold: at least once, not
 * exactly once, in that one window.
 *
 * A sink with start/finish takes up to s->parallel replies at once.  The
 * drain works in rounds, one transaction (one fsync) each: the outcomes of
 * the replies that came back, then the claims of as many as there are free
 * slots; once that is committed the claimed ones go to the sink.  So a
 * claim is durable before its reply is handed over, as above, and an
 * outcome is written a round later: a crash in between leaves the reply
 * claimed, and it is confirmed (or sent again) after the hold.
 */
#ifndef TAGBOT_DELIVER_H
#define TAGBOT_DELIVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/err.h"
#include "store/store.h"

#define DELIVER_RETRY_MIN_S	30	/* first backoff after a temporary failure */
#define DELIVER_RETRY_MAX_S	3600	/* the backoff's cap */
#define DELIVER_MAX_PER_DRAIN	1000	/* replies handled by one deliver_drain() */

/* What a sink's finish (below) found. */
enum handover {
	HANDOVER_FAILED = -1,	/* a handover ended, refused: e says why */
	HANDOVER_SENT = 0,	/* a handover ended, accepted */
	HANDOVER_NONE = 1	/* none ended */
};

struct deliver_ops {
	/*
	 * Hands the reply to the sink.  0: delivered; when e->msg is not
	 * empty then, it says what the sink left out (recipients the server
	 * refused, dropped): kept with the reply (`tagbot status`) and logged
	 * as a warning.  ERR_TEMP: not delivered for now: the server refused
	 * for now (4xx), is unreachable, or the connection was lost
	 * mid-transaction (then the outcome is unknown); the reply is retried
	 * after deliver_backoff(), never sooner than the hold; ERR_FINAL:
	 * refused for good (5xx): the reply is marked failed; ERR_SETUP: the
	 * sink's fault (a certificate, a login), nothing was handed over: the
	 * reply is put back as it was before its claim, and the drain ends.
	 */
	int (*send)(void *arg, const struct outbox_item *it, struct err *e);
	/* Whether the reply reply_msgid was delivered (its copy is where the sink
	 * leaves one).  NULL: the sink gives no way to tell.  An error leaves the
	 * reply queued and ends the drain. */
	int (*confirm)(void *arg, const char *reply_msgid, bool *found, struct err *e);
	/* The caller's clock (the daemon's: deliver.c reads no other), read at
	 * the start of each round, a transaction of the outcomes that came
	 * back and the claims of the replies due then; what the round marks
	 * (sent, retried, failed, claimed) is stamped with it. */
	time_t (*now)(void *arg);
	void *arg;			/* foreign; passed to all */
	/* The caller's stop flag (a signal's): the drain claims no more
	 * once it is non-zero.  NULL: none. */
	const volatile sig_atomic_t *stop;
	/*
	 * Instead of send (which may then be NULL): start hands the reply over
	 * and returns at once; it stays valid and untouched until finish hands
	 * it back.  -1 from start: refused at once, an outcome as send's.
	 * finish: one handover that ended (*it, and HANDOVER_SENT or
	 * HANDOVER_FAILED with e as from send), blocking for one when wait;
	 * HANDOVER_NONE when none ended.
	 */
	int (*start)(void *arg, struct outbox_item *it, struct err *e);
	enum handover (*finish)(void *arg, bool wait, struct outbox_item **it, struct err *e);
};

struct deliver_settings {
	long hold;		/* seconds a claimed reply waits before a retry or a lookup */
	long retry_min;		/* 0: DELIVER_RETRY_MIN_S */
	long retry_max;		/* 0: DELIVER_RETRY_MAX_S */
	size_t max_items;	/* 0: DELIVER_MAX_PER_DRAIN */
	size_t parallel;	/* replies with a start/finish sink at once; 0: 1 */
};

struct deliver_stats {
	size_t sent;		/* handed over and marked sent */
	size_t confirmed;	/* found delivered by ops->confirm, not sent again */
	size_t retried;		/* left queued after a temporary failure */
	size_t failed;		/* marked failed */
	size_t dropped;		/* sent, with recipients the server refused dropped */
};

/*
 * Sends every reply due now, until the queue has none due, a send fails
 * temporarily (the server is likely down: the rest wait for their turn),
 * *ops->stop becomes non-zero or max_items were handled.  Adds to
 * *st_out.  Returns -1 for a store error, an ops->confirm error, or a fault
 * of the sink: then e->cls is ERR_SETUP (never a store's class), the
 * replies that met it are queued as before, and the caller backs the sink
 * off until it is fixed.
 */
int deliver_drain(struct store *st, const struct deliver_ops *ops,
		  const struct deliver_settings *s, struct deliver_stats *st_out, struct err *e);

/* The backoff in seconds after a reply's tries-th failed send (1 for the
 * first): retry_min doubled per try, capped at retry_max, never below hold
 * when the outcome is unknown (uncertain), so a copy has time to show up. */
long deliver_backoff(const struct deliver_settings *s, int tries, bool uncertain);

#endif
