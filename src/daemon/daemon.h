/*
 * daemon.h - the face of daemon/ (`tagbot run` and `tagbot status`), the
 * folder that wires the others together; daemon_int.h is its inside,
 * which cli/cmd_replay.c still shares until replay gets an API here.
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
 * daemon_run() return 0; SIGHUP reloads the ini file (rules and [reply]);
 * a file that does not load is logged and the old settings kept.  [source],
 * [sink] and state keep their values from the start.
 */
#ifndef TAGBOT_DAEMON_H
#define TAGBOT_DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/err.h"

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

#endif
