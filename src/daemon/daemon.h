/*
 * daemon.h - the face of daemon/ (`tagbot run`, `tagbot status`, and the
 * offline daemon `tagbot replay` drives), the folder that wires the others
 * together; daemon_p.h is its inside, private to the folder.
 *
 * `tagbot run` and `tagbot status`: the loop that fetches mail
 * from the source (IMAP or a Maildir), parses and checks it, decides with
 * the policy, records the decision and queues the reply in the store, and
 * drains the outbox through the sink (SMTP or a Maildir).  Signals,
 * reconnection with backoff and reloading live here too.
 *
 * The delivery guarantee and how it is kept are written at the top of
 * daemon.c and in the README ("Delivery guarantee").
 *
 * Signals: SIGTERM and SIGINT finish the current message, log out and make
 * daemon_run() return 0; a source waiting for its server (a read in the
 * middle of an answer, a connect) gives up at once, so a server never
 * holds a stop up; SIGHUP reloads the ini file (rules and [reply]);
 * a file that does not load is logged and the old settings kept.  [source],
 * [sink] and state keep their values from the start.
 */
#ifndef TAGBOT_DAEMON_H
#define TAGBOT_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "lib/err.h"
#include "rules/rules.h"
#include "store/store.h"

struct reply;

#define DAEMON_BACKOFF_MIN_S	1	/* first reconnect delay */
#define DAEMON_BACKOFF_MAX_S	300	/* its cap */
#define DAEMON_STATUS_ERRORS	10	/* last errors `tagbot status` shows */

struct daemon_opts {
	const char *config;	/* foreign; the ini file */
	bool once;		/* process what is there, drain the outbox once, return */
	bool dry_run;		/* decide into a scratch copy of the state, print
				 * the replies queued there to out, send nothing */
	FILE *out;		/* foreign; where --dry-run prints (stdout) */
};

/*
 * Runs until SIGTERM/SIGINT (or, with once, until the source is empty).
 * Returns 0 on a clean stop; -1 with e filled for what cannot be retried: a
 * bad configuration, a store that cannot be opened, a refused login, or
 * (with once) a server that cannot be reached.
 */
int daemon_run(const struct daemon_opts *o, struct err *e);

/* Prints the checkpoints, counts and last errors of the store named by the
 * ini file config to out. */
int daemon_status(const char *config, FILE *out, struct err *e);

/* What the daemon decided for one message, for a decision hook (replay). */
struct daemon_decision {
	const char *key;		/* foreign; the Message-ID or synthetic key */
	enum store_decision decision;	/* STORE_REPLIED: a reply was queued */
	const char *why;		/* foreign; the reason of a STORE_SKIPPED, else NULL */
	const struct findings *f;	/* foreign; the findings behind it, or NULL */
	enum severity min;		/* the reply's min severity (the mail's list) */
	time_t date;			/* the clock the decision was made at */
};

/* Called after a decision is recorded (or, for a mail already seen, with
 * decision STORE_SKIPPED and why "seen"). */
typedef void (*daemon_decision_fn)(void *arg, const struct daemon_decision *dd);

/* Called for every reply put into the outbox (a patch's, a series', the
 * held replies of one recipient, a Cc-mode answer), after its decision
 * hook; parent is the Message-ID it answers.  Both are foreign. */
typedef void (*daemon_reply_fn)(void *arg, const char *parent, const struct reply *r);

/*
 * The offline daemon (`tagbot replay`): set up as `tagbot run` would be
 * from the ini file, but over a fresh scratch store, with no source, no
 * sink and no lookups: the messages it is given are decided and recorded
 * with the clock the caller names, nothing is fetched or sent, and the
 * hooks report what it decided.
 *
 *	struct daemon *d;
 *
 *	if (daemon_offline_open(&d, &o, e) == 0) {
 *		while (rc == 0 && (a mail m with its Date))
 *			rc = daemon_offline_take(d, &m, e);
 *		if (rc == 0)
 *			rc = daemon_offline_finish(d, e);
 *	}
 *	daemon_offline_close(d);
 */
struct daemon;

#define DAEMON_OFFLINE_BATCH	200	/* messages per store transaction */

struct daemon_offline_opts {
	const char *config;		/* foreign; the ini file */
	daemon_decision_fn on_decision;	/* or NULL */
	daemon_reply_fn on_reply;	/* or NULL */
	void *arg;			/* foreign; given to both */
};

/* Sets *out, also when it fails (-1): daemon_offline_close() it either way. */
int daemon_offline_open(struct daemon **out, const struct daemon_offline_opts *o,
			struct err *e);
/* A mail the offline daemon is given. */
struct daemon_mail {
	const char *name;	/* foreign; names it in the log */
	const char *raw;	/* foreign */
	size_t len;
	time_t clock;		/* decided at this time (0: the time of day) */
};

/*
 * One message, at its clock: first the series and held replies due by
 * then are answered, as the daemon's timer would, then the message is
 * handled as `tagbot run` would.  -1 for a store error.
 */
int daemon_offline_take(struct daemon *d, const struct daemon_mail *m, struct err *e);
/* The series and held replies that still wait are answered as their wait
 * would have it, and everything is committed. */
int daemon_offline_finish(struct daemon *d, struct err *e);
/* Releases d (NULL is fine) and removes its scratch store. */
void daemon_offline_close(struct daemon *d);

#endif
