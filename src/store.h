/*
 * store.h - the daemon's state in SQLite: every message seen, the folder
 * checkpoints and the outbox of replies.  The only module that includes
 * sqlite3.h; callers see these types only.
 *
 * The database runs in WAL mode with synchronous=FULL (a committed reply
 * survives SIGKILL and power loss; the bot writes a few rows per patch, so
 * the cost does not matter) and a busy timeout, so `tagbot status` can read
 * while the daemon writes.  The schema is versioned with PRAGMA
 * user_version; store_open() migrates an older file and refuses a newer one.
 *
 * Message-IDs are keyed in normalized form (store_msgid_key): without <> and
 * surrounding white space, the domain part lower-cased, the local part as
 * written.  So the list copy and a Cc copy of one mail are one row.
 *
 * The guarantee "at most one reply per patch" rests on the outbox: its
 * parent column is UNIQUE, and store_record_reply() writes the message row
 * and the outbox row in one transaction.  A crash leaves both or neither.
 *
 * All functions return 0 or -1 with e filled ("store PATH: ..."); a busy
 * database past the timeout is ERR_WAIT, a broken or newer file ERR_FINAL.
 */
#ifndef TAGBOT_STORE_H
#define TAGBOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "err.h"

#define STORE_SCHEMA_VERSION	2	/* 2: lookup_cache */
#define STORE_MSGID_MAX		998	/* longer Message-IDs are refused */
#define STORE_REPLY_MAX		((size_t)16 * 1024 * 1024) /* raw reply bytes */

struct store_settings {
	const char *path;	/* foreign; the database file */
	int busy_timeout_ms;	/* wait for a lock this long; default 5000 */
};

/* path NULL, busy_timeout_ms 5000. */
void store_settings_init(struct store_settings *s);

struct store;	/* opaque: the connection and its prepared statements */

/* Opens (creating if needed) and migrates the database. */
int store_open(struct store **out, const struct store_settings *s, struct err *e);
/* Finalizes the statements and closes; NULL is fine. */
void store_close(struct store *st);

/*
 * The normalized key of a Message-ID (see above); malloc'ed.  NULL when
 * msgid is empty after trimming or longer than STORE_MSGID_MAX.
 */
char *store_msgid_key(const char *msgid);

/* What was decided for a message; stored as "replied", "clean",
 * "skipped:<why>", "error". */
enum store_decision {
	STORE_REPLIED,
	STORE_CLEAN,
	STORE_SKIPPED,
	STORE_ERROR
};

struct store_message {
	const char *msgid;	/* foreign; any form, normalized by the store */
	const char *source;	/* foreign; "imap:user@host" or "maildir:PATH" */
	const char *folder;	/* foreign; "" for a Maildir */
	uint32_t uid;		/* IMAP UID, 0 when none */
	const char *kind;	/* foreign; patch_kind_name() */
	enum store_decision decision;
	const char *why;	/* foreign; for STORE_SKIPPED ("rate-limit"); else ignored */
	const char *reply_msgid; /* foreign; NULL unless replied */
	time_t time;
};

/* Whether the store already knows the message (any decision). */
int store_seen(struct store *st, const char *msgid, bool *seen, struct err *e);

/*
 * Records a message with a decision other than STORE_REPLIED (use
 * store_record_reply for that).  *added (may be NULL) is false when the
 * Message-ID was already recorded: the row is left as it was.
 */
int store_record_message(struct store *st, const struct store_message *m,
			 bool *added, struct err *e);

/* The envelope and bytes of a reply to queue. */
struct store_outgoing {
	const char *reply_msgid;	/* foreign; the reply's own Message-ID */
	const char *parent_msgid;	/* foreign; the patch it answers */
	const char *envelope_from;	/* foreign; MAIL FROM addr-spec */
	const char *const *rcpt;	/* foreign; RCPT TO addr-specs */
	size_t nrcpt;
	const char *raw;		/* foreign; the whole reply, CRLF */
	size_t len;
};

enum store_enqueue {
	STORE_QUEUED,		/* both rows written: send it */
	STORE_ALREADY_QUEUED	/* the parent already has a reply: send nothing */
};

/*
 * In one transaction: records m (decision STORE_REPLIED, reply_msgid from
 * out) and queues out for sending at now.  When the parent (or the message)
 * is already known, nothing is written and *res is STORE_ALREADY_QUEUED.  On
 * any error nothing is written either.  m->msgid and out->parent_msgid must
 * name the same message.
 */
int store_record_reply(struct store *st, const struct store_message *m,
		       const struct store_outgoing *out, time_t now,
		       enum store_enqueue *res, struct err *e);

/* Explicit transactions (nestable: savepoints), for a caller that wants to
 * record a batch and move the checkpoint together. */
int store_begin(struct store *st, struct err *e);
int store_commit(struct store *st, struct err *e);
void store_rollback(struct store *st);

/* --- checkpoints ----------------------------------------------------- */

struct store_checkpoint {
	uint32_t uidvalidity;
	uint32_t last_uid;	/* the last UID handled */
};

/* *found is false (and cp zeroed) when the folder has no checkpoint yet. */
int store_checkpoint_get(struct store *st, const char *source, const char *folder,
			 struct store_checkpoint *cp, bool *found, struct err *e);
int store_checkpoint_set(struct store *st, const char *source, const char *folder,
			 const struct store_checkpoint *cp, struct err *e);

/* --- outbox ---------------------------------------------------------- */

enum outbox_state {
	OUTBOX_QUEUED,
	OUTBOX_SENT,
	OUTBOX_FAILED
};

/* "queued", "sent", "failed". */
const char *outbox_state_name(enum outbox_state s);

struct outbox_item {
	char *reply_msgid;	/* owned */
	char *parent_msgid;	/* owned */
	char *envelope_from;	/* owned */
	char **rcpt;		/* owned */
	size_t nrcpt;
	char *raw;		/* owned; NUL-terminated for convenience */
	size_t len;
	enum outbox_state state;
	int attempts;
	time_t next_attempt;
	char *last_error;	/* owned; "" when none */
};

void outbox_item_init(struct outbox_item *it);
void outbox_item_release(struct outbox_item *it);

/*
 * The queued reply whose next_attempt is earliest and <= now.  *found is
 * false when none is due.  it is released and refilled.
 */
int store_outbox_next_due(struct store *st, time_t now, struct outbox_item *it,
			  bool *found, struct err *e);

/* The earliest next_attempt of a queued reply (to sleep until); *found false
 * when the queue is empty. */
int store_outbox_next_time(struct store *st, time_t *when, bool *found, struct err *e);

/* The reply's state changes; attempts is incremented by each.  error (may
 * be NULL) is kept in last_error.  mark_retry sets next_attempt to
 * now + backoff seconds; it is also the way to claim an item before
 * sending, so a crash mid-send leads to a retry after backoff. */
int store_outbox_mark_sent(struct store *st, const char *reply_msgid, time_t now, struct err *e);
int store_outbox_mark_retry(struct store *st, const char *reply_msgid, time_t now,
			    long backoff, const char *error, struct err *e);
int store_outbox_mark_failed(struct store *st, const char *reply_msgid, time_t now,
			     const char *error, struct err *e);

/* --- status ---------------------------------------------------------- */

struct store_counts {
	long messages;		/* all rows */
	long replied, clean, skipped, errors;
	long queued, sent, failed; /* outbox */
};

int store_counts(struct store *st, struct store_counts *c, struct err *e);

/* Calls fn for each checkpoint, ordered by source and folder. */
int store_checkpoint_foreach(struct store *st,
			     void (*fn)(void *ctx, const char *source, const char *folder,
					const struct store_checkpoint *cp),
			     void *ctx, struct err *e);

/* One of the last errors `tagbot status` shows: a message recorded with
 * decision error, or a reply whose last attempt left an error. */
struct store_error_row {
	const char *what;	/* foreign; "message" or "reply" */
	const char *msgid;	/* foreign; the message's or the reply's Message-ID */
	const char *detail;	/* foreign; "SOURCE FOLDER uid N", or "STATE, N attempts: ERROR" */
	time_t time;
};

/* Calls fn for the max most recent errors, newest first. */
int store_recent_errors(struct store *st, int max,
			void (*fn)(void *ctx, const struct store_error_row *r), void *ctx,
			struct err *e);

/* --- lookup cache ---------------------------------------------------- */

/*
 * What lookup.c learnt about a URL, keyed by the URL it fetched.  The store
 * keeps the row; whether it is still fresh is the caller's decision.
 */
#define STORE_CACHE_KEY_MAX	4096		/* longer keys are refused */
#define STORE_CACHE_DATA_MAX	((size_t)64 * 1024) /* bytes of one result blob */

struct store_cache_entry {
	int status;		/* the caller's code (enum lookup_status) */
	time_t fetched_at;
	char *data;		/* owned after store_cache_get (free()); foreign for put;
				 * NUL-terminated after get */
	size_t len;
};

/* *found is false (and out zeroed) when key has no row. */
int store_cache_get(struct store *st, const char *key, struct store_cache_entry *out,
		    bool *found, struct err *e);
/* Inserts or replaces the row of key. */
int store_cache_put(struct store *st, const char *key, const struct store_cache_entry *in,
		    struct err *e);
/* Deletes the rows fetched before `before`; *deleted (may be NULL) gets how many. */
int store_cache_prune(struct store *st, time_t before, long *deleted, struct err *e);

/*
 * Test hook: when set, store_record_reply calls it between writing the
 * message row and the outbox row with point "record_reply:after_message";
 * a test can kill the process there (a crash mid-transaction) or return -1
 * to make the call fail at that point.  NULL in production.
 */
extern int (*store_test_hook)(const char *point);

#endif
