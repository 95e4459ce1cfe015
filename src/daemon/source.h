/*
 * source.h - the daemon's sources as drivers (as isync's driver.h has
 * them): a Maildir (source_maildir.c), an IMAP folder (source_imap.c),
 * NNTP groups (source_nntp.c); what every source has is sources.c's.
 *
 * The contract:
 * - Each driver has a struct of its own with struct source first in it
 *   (the daemon frees a source as its base); only the driver looks past
 *   that base (SOURCE_DRIVER(): its connection, its Maildir).
 *   The daemon holds sources by pointer (daemon_source_new()) and reaches
 *   a source's kind only through its ops.
 * - The base is what the daemon's loop, batches, checkpoints, retries and
 *   claims need of any source, and the driver may read and move its
 *   folders' checkpoints (struct folder) as the daemon does.
 * - The ops take the source alone.  What a driver needs of the daemon it
 *   finds in s->env (struct source_env, the daemon's, set at
 *   daemon_source_new()): the store, the signals to wait with, the clock,
 *   and what only the daemon knows (a Message-ID it has, how far a
 *   checkpoint may go).  Messages go to the daemon through the
 *   struct source_cb that poll gets; a driver calls nothing of the daemon
 *   that takes struct daemon.
 */
#ifndef TAGBOT_DAEMON_SOURCE_H
#define TAGBOT_DAEMON_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "config/config.h"
#include "store/store.h"

/* Why a source hands over a message without its bytes (raw NULL). */
enum unread_kind {
	UNREAD_ERROR = 0,	/* unreadable (a Maildir file that cannot be read) */
	UNREAD_TOO_LARGE,	/* larger than max_message_size: size */
	UNREAD_MISSING		/* listed by the server, not delivered: why */
};

/* Where a message came from, for the store and the log. */
struct origin {
	uint32_t uid;		/* 0 for a Maildir */
	const char *name;	/* Maildir name, NULL for IMAP */
	enum unread_kind unread; /* raw NULL: why */
	const char *why;	/* foreign, static; UNREAD_MISSING: what the server did */
	uint64_t size;		/* UNREAD_TOO_LARGE: the bytes the server gave or sent */
};

enum { SOURCE_MORE = 0, SOURCE_FULL = 1, SOURCE_STOP = 2 };

/*
 * What a source hands its messages to: the loop passes it to poll (as
 * isync's drivers get a callback and its aux).  The source knows nothing
 * of what happens to a message, nor of batches beyond when its connection
 * is free for them.
 */
struct source_cb {
	/*
	 * One message (raw NULL: there, but too large or unreadable; raw is
	 * foreign and may be reused once take returns).  SOURCE_MORE: go on;
	 * SOURCE_FULL: the batch is full, call end before the next message;
	 * SOURCE_STOP: a stop was asked for, hand no more; -1: a store error.
	 */
	int (*take)(void *aux, const struct origin *o, const char *raw, size_t len,
		    struct err *e);
	/*
	 * The source's connection is free: the batch so far is made durable
	 * (its messages are marked seen through the source) and what is due
	 * is sent.  e NULL: after a failure of the source, the batch is
	 * committed and nothing sent.  SOURCE_MORE, SOURCE_STOP or -1.
	 */
	int (*end)(void *aux, struct err *e);
	void *aux;
};

/*
 * What the daemon gives its sources, for their whole life (it outlives
 * them; the sources share it).  The functions are called with aux.
 */
struct source_env {
	struct store *st;		/* foreign: checkpoints, retries, claims */
	const sigset_t *wait_mask;	/* a wait for a server lets these through */
	volatile sig_atomic_t *stop;	/* set when a stop is asked for: waits give up */
	bool claims;			/* others may share the state (PostgreSQL, not a
					 * dry run): an IMAP folder is read in claims */
	/* The daemon's clock (the mail's Date in a replay). */
	time_t (*now)(void *aux);
	/* Whether the store has the mail whose Message-ID is id for good, so
	 * that it need not be fetched.  -1 only for a store error. */
	int (*known)(void *aux, const char *id, bool *known, struct err *e);
	/* The checkpoint the store may hold for the folder being read, at
	 * most last_uid: below a message still owed (a retry, a lookup). */
	uint32_t (*hold)(void *aux, uint32_t last_uid);
	void *aux;
};

/* The messages of a committed batch to mark seen: IMAP UIDs, Maildir
 * names (foreign). */
struct source_marks {
	const uint32_t *uids;
	size_t nuids;
	char *const *names;
	size_t nnames;
};

/* Files a Maildir's find_msgid looks at, at most. */
#define SOURCE_FIND_SCAN_MAX	50000

struct source;

/*
 * A driver.  Ops marked optional may be NULL: the source cannot do that.
 * Unless said otherwise an op is called on a connected source (connected()
 * true), and -1 leaves e saying what failed; after a failure of open,
 * poll or wait the daemon closes a server's source and tries it again
 * after a back-off.
 */
struct source_ops {
	const char *name;		/* "imap": for the log */
	const char *place;		/* what find_msgid looks in, for the log */
	/* Local mail (a Maildir): opened at the start, where a failure is a
	 * setting to fix and stops it; not closed after a failure, having no
	 * connection to renew. */
	bool local;
	/* The size of the driver's own struct, made zeroed; optional: init
	 * what its own fields need beyond that, release undoes it (on a
	 * closed source). */
	size_t size;
	void (*init)(struct source *s);
	void (*release)(struct source *s);
	/* Connects (a server) or opens (a Maildir); called on a closed
	 * source, again after close when connected() says no. */
	int (*open)(struct source *s, struct err *e);
	bool (*connected)(const struct source *s);	/* on any source */
	/* Hands every new message to cb->take (its bytes the driver's, valid
	 * until take returns), and calls cb->end when take said SOURCE_FULL
	 * and after each fetch, with e NULL after its own failure so that
	 * what was handled is kept.  Its folders' checkpoints (s->f: the one
	 * being read) move as the daemon takes the messages.  0 also when
	 * take or end said SOURCE_STOP. */
	int (*poll)(struct source *s, const struct source_cb *cb, struct err *e);
	/* Optional: waits up to max_s for new mail or a signal (without it
	 * the source is polled every poll_interval). */
	int (*wait)(struct source *s, int max_s, struct err *e);
	/* Optional: whether wait ends when new mail comes (IMAP IDLE), so
	 * that the loop may sleep in it for every source; false when not
	 * connected. */
	bool (*can_idle)(const struct source *s);
	void (*close)(struct source *s);
	/* Optional: marks the messages of m seen, once the batch holding them
	 * is durable (with [source] mark_seen).  A failure is logged, not
	 * returned: the store, not the flag, says what was handled. */
	void (*mark_seen)(struct source *s, const struct source_marks *m);
	/* Optional: the raw mail whose Message-ID is id into out (*found),
	 * looking at the mail the source has (place).  A failure is logged
	 * and is not found: a caller looks elsewhere. */
	void (*find_msgid)(struct source *s, const char *id, struct buf *out, bool *found);
	/* Optional: whether folder (on the source's server) has a mail whose
	 * Message-ID is msgid: the sink's copy of a reply. */
	int (*find_copy)(struct source *s, const char *folder, const char *msgid, bool *found,
			 struct err *e);
};

/* The checkpoint of one folder of a source (an IMAP folder, an NNTP group;
 * "" for a Maildir) and what the daemon knows of it. */
struct folder {
	char *name;			/* owned */
	struct store_checkpoint cp;	/* as of the last message handled */
	struct store_checkpoint cp_committed;
	bool cp_known;
	uint32_t rescan_until;		/* rescanning after a UIDVALIDITY change (for a
					 * group: a renumbering) up to this number */
	time_t first_time;		/* the first message recorded from the folder; 0: unknown */
	/* Messages the server listed and did not deliver, asked for again
	 * (daemon_unread.c): as the store's retry rows, by uid. */
	struct retry *retries;		/* owned */
	size_t nretries, aretries;
	bool retries_known;		/* loaded from the store */
	unsigned polls;			/* polls of the folder: a retry counts once per poll */
	/* Shared with other daemons (daemon_claim.c): the claim being read,
	 * handled up to claim_upto, recorded by the open batch up to
	 * claim_to; claim_wake when every claim was another's. */
	bool shared;
	bool claimed;
	struct store_claim claim;
	uint32_t claim_upto, claim_to;
	time_t claim_wake;
};

/* A message of a folder to ask for again. */
struct retry {
	uint32_t uid;
	int tries;			/* fetches that came back without it */
	time_t next_try;
	unsigned poll;			/* the folder's poll that last tried it */
};

/*
 * One source of the daemon ([source] or a [source NAME]), the base of a
 * driver's struct: its folders' checkpoints, its own back-off.  A source
 * that fails waits for its back-off; the others go on meanwhile.
 */
struct source {
	const struct source_ops *ops;
	const struct source_env *env;	/* foreign (the daemon's) */
	const struct config_source *c;	/* foreign (the daemon's config) */
	char label[CONFIG_MAX_SOURCE_NAME + 16]; /* "[source]", "[source NAME]" */
	char *id;			/* owned; the store's source column: "imap:user@host",
					 * "maildir:PATH", "nntp:HOST:PORT"; after
					 * "NAME/" for a [source NAME] */
	struct folder *f;		/* foreign: one, or one of groups: the folder read */
	struct folder one;		/* owned; IMAP, Maildir */
	struct folder **groups;		/* owned; NNTP, sorted by name */
	size_t ngroups, agroups;
	time_t next_poll;		/* not polled again before (poll_interval) */
	bool more;			/* its last poll stopped at a bound with mail
					 * left: polled again at once, after the others */
	unsigned backoff_step;
	time_t retry_at;		/* after a failure: not tried before */
	char *owner;			/* owned; the claims' name of this daemon, or NULL */
};

/* The driver's struct type (whose base member is s) of source src: for
 * the driver's own use. */
#define SOURCE_DRIVER(src, type)	((type *)((char *)(src) - offsetof(type, s)))

/* sources.c: the source of c with the driver of its type (nothing opened
 * yet); daemon_source_free() closes it and frees it. */
struct source *daemon_source_new(const struct config_source *c, const struct source_env *env);
void daemon_source_free(struct source *s);
/* sources.c: the time of s's daemon's clock. */
time_t daemon_source_now(const struct source *s);

/* How a server says that a folder's numbers started again. */
enum renumber {
	RENUMBER_UIDVALIDITY,	/* IMAP: valid (UIDVALIDITY) is not the checkpoint's */
	RENUMBER_MARKS		/* NNTP: valid (the low water mark) or next - 1 (the
				 * high one) went below the checkpoint's */
};

/* What a server says of a folder's numbers: they now run from first to
 * next - 1. */
struct folder_numbers {
	enum renumber how;
	uint32_t valid;		/* UIDVALIDITY; NNTP: the low water mark */
	uint32_t first, next;
};

/*
 * sources.c: where to start in folder f of s: its checkpoint; on a first
 * start next (from first with backfill); after a renumbering from first
 * again, rescanning up to next - 1 (before_start() in daemon_msg.c).
 * Stored when it moved.
 */
int daemon_folder_start(struct source *s, struct folder *f, const struct folder_numbers *n,
			struct err *e);

extern const struct source_ops daemon_maildir_source, daemon_imap_source, daemon_nntp_source;

#endif
