/*
 * daemon_int.h - what daemon.c (the loop, signals, reload, status),
 * daemon_msg.c (one message: parse, check, decide, record; batches) and
 * daemon_io.c (the sources and sinks) share.  Not a public header.
 */
#ifndef TAGBOT_DAEMON_INT_H
#define TAGBOT_DAEMON_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "deliver.h"
#include "err.h"
#include "imap_source.h"
#include "maildir.h"
#include "policy.h"
#include "reply.h"
#include "smtp_sink.h"
#include "store.h"

#define DRY_SEEN_MAX		20000	/* keys a store-less dry run remembers */

/* Set by the handlers; read between messages and after waits. */
extern volatile sig_atomic_t daemon_got_stop, daemon_got_reload;

struct signals {
	sigset_t run_mask;	/* while working: ours blocked */
	sigset_t wait_mask;	/* while sleeping: ours let through */
	sigset_t saved;		/* the caller's mask, restored at the end */
	struct sigaction old[4];
};

/* Lets a pending signal run its handler (sets its flag), then blocks again. */
void daemon_signals_deliver(const struct signals *s);
/* Sleeps up to seconds, ended early by a signal. */
void daemon_sleep_for(const struct signals *s, double seconds);

/* Messages handled since the last commit, to mark seen once it is durable. */
struct batch {
	bool open;		/* the outer transaction is open */
	size_t n;
	uint32_t *uids;		/* owned */
	size_t nuids, auids;
	char **names;		/* owned; Maildir names */
	size_t nnames, anames;
	bool failed;		/* a store error: roll the batch back */
};

/* Keys a dry run without a state file has seen (it records nothing). */
struct memo {
	char **v;		/* owned */
	size_t n, alloc;
};

struct daemon;

struct source_ops {
	const char *name;
	int (*open)(struct daemon *d, struct err *e);
	/* Hands every new message to daemon_process_one(), batch by batch. */
	int (*poll)(struct daemon *d, struct err *e);
	/* Waits up to max_s for new mail or a signal. */
	int (*wait)(struct daemon *d, int max_s, struct err *e);
	void (*close)(struct daemon *d);
};

struct daemon {
	const struct daemon_opts *o;
	struct config cfg;		/* owned; rules and [reply] reloaded on SIGHUP */
	bool dry;
	struct signals sig;
	struct store *st;		/* owned; NULL in a dry run without a state file */
	struct policy *pol;		/* owned */
	struct reply_settings rs;	/* points into cfg */
	struct policy_settings ps;	/* points into cfg */

	const struct source_ops *src;
	char *source_id;		/* owned; "imap:user@host" or "maildir:PATH" */
	const char *folder;		/* foreign (cfg); "" for a Maildir */
	struct maildir in;		/* Maildir source */
	struct maildir_list md_done;	/* its names handled by the last poll, sorted */
	struct imap_source *imap;	/* owned; NULL while disconnected */
	struct store_checkpoint cp;	/* as of the last message handled */
	struct store_checkpoint cp_committed;
	bool cp_known;
	bool batch_full;		/* the fetch stopped for a commit */

	struct maildir out;		/* Maildir sink */
	struct smtp_settings smtp;	/* the SMTP sink; strings foreign (cfg) but: */
	char *smtp_password;		/* owned; a secret */
	char *copy_to;			/* owned; extra envelope recipient, or NULL */

	struct batch b;
	struct memo memo;
	struct buf raw;			/* a Maildir message being read */
	struct deliver_stats ds;
	unsigned backoff_step;
	size_t handled;			/* messages looked at */
};

/* Where a message came from, for the store and the log. */
struct origin {
	uint32_t uid;		/* 0 for a Maildir */
	const char *name;	/* Maildir name, NULL for IMAP */
};

/* --- daemon_msg.c ------------------------------------------------------ */

/*
 * One message inside the batch's transaction, with its checkpoint (uid),
 * in a savepoint of its own.  raw NULL: a message that could not be read
 * (too large).  -1 only for a store error: the batch is then rolled back
 * by daemon_batch_end().
 */
int daemon_process_one(struct daemon *d, const struct origin *o, const char *raw, size_t len,
		       struct err *e);
/* Commits (or, after a store error, rolls back) the batch; marks its
 * messages seen once their rows are durable.  e may be NULL. */
int daemon_batch_end(struct daemon *d, struct err *e);
void daemon_batch_release(struct batch *b);
void daemon_memo_release(struct memo *m);
/* The Message-ID of the raw header, without parsing; malloc'ed or NULL. */
char *daemon_raw_message_id(const char *raw, size_t len);

/* --- daemon_io.c ------------------------------------------------------- */

extern const struct source_ops daemon_maildir_source, daemon_imap_source;

/* Sends the replies that are due, in chunks, stopping for a signal. */
int daemon_drain(struct daemon *d, struct err *e);
/* Opens the sink of d->cfg (nothing in a dry run). */
int daemon_sink_open(struct daemon *d, struct err *e);
/* Creates path and its missing parents, mode 0700. */
int daemon_make_dirs(const char *path, struct err *e);

#endif
