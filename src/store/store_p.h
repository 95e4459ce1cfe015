/*
 * store_p.h - private to store/: the connection, the statement helpers the
 * table files share, and the pieces of the outbox that the grouped replies
 * (series, held) reuse.  Nothing outside src/store/ includes it.  The SQL
 * engine is behind db.h (db_sqlite.c, db_pg.c); nothing here speaks one.
 *
 * Who does what:
 *   store.c     open, migrate, snapshot, close, transactions, these helpers
 *   schema.c    the schema of each engine and its migrations
 *   messages.c  messages, checkpoints, counts and recent errors
 *   outbox.c    queueing a reply (with its message row) and the outbox
 *   series.c    context, thread_state, series, series_member
 *   cache.c     lookup_cache
 *   limits.c    held, told, rate_events, sink_state
 *   unread.c    unread: mail a source listed but did not deliver whole
 *   claims.c    claims: the ranges of a folder daemons sharing it read
 *
 * The helpers follow the store's error contract (store.h): 0 or -1 with e
 * filled "store NAME: WHAT: the engine's message", classed by the driver.
 */
#ifndef TAGBOT_STORE_P_H
#define TAGBOT_STORE_P_H

#include "lib/buf.h"
#include "store/db.h"
#include "store/store.h"

/* The statements run often enough to be prepared once, at open; their SQL
 * is store.c's stmt_sql[]. */
enum stmt_id {
	S_SEEN,
	S_INSERT_MESSAGE,
	S_INSERT_OUTBOX,
	S_CHECKPOINT_GET,
	S_CHECKPOINT_SET,
	S_CHECKPOINT_ALL,
	S_FIRST_TIME,
	S_OUTBOX_DUE,
	S_OUTBOX_NEXT_TIME,
	S_MARK_SENT,
	S_MARK_RETRY,
	S_MARK_FAILED,
	S_UNCLAIM,
	S_COUNT_MESSAGES,
	S_COUNT_OUTBOX,
	S_CACHE_GET,
	S_CACHE_PUT,
	S_CACHE_PRUNE,
	S_COUNT
};

struct store {
	struct db *db;			/* owned */
	char *path;			/* owned; names the database in messages (a
					 * PostgreSQL conninfo with its password masked) */
	struct db_stmt *stmt[S_COUNT];	/* owned */
	int depth;			/* open transactions (outermost BEGIN, then savepoints) */
};

/* Fills e from the connection's last failure ("store PATH: what: ..."); -1. */
int db_err(struct store *st, struct err *e, const char *what);
/* Runs sql (no rows) on the connection. */
int db_exec(struct store *st, const char *sql, struct err *e);
/* The prepared statement id, reset and unbound. */
struct db_stmt *db_stmt(struct store *st, enum stmt_id id);
/* Steps a statement that returns no rows and resets it: DB_OK or DB_ERROR. */
int db_step_done(struct db_stmt *s);
/* Column i malloc'ed, "" for NULL; _or_null: NULL for NULL or "". */
char *db_col_text(struct db_stmt *s, int i);
char *db_col_text_or_null(struct db_stmt *s, int i);

/* For the statements that run a few times per message: prepared per call
 * and finalized by db_run_done() or db_row_end(). */
int db_prep(struct store *st, const char *sql, struct db_stmt **s, struct err *e);
/* db_prep() with ?1 bound to msgid's key (msgid_key()); -1 for a bad
 * Message-ID, nothing prepared. */
int db_prep_key(struct store *st, const char *sql, const char *msgid, struct db_stmt **s,
		struct err *e);
/* Steps s to its end and finalizes it. */
int db_run_done(struct store *st, struct db_stmt *s, const char *what, struct err *e);
/* Finalizes s after a lookup whose last step returned rc: 0 for a row or
 * none, else the error. */
int db_row_end(struct store *st, struct db_stmt *s, int rc, const char *what, struct err *e);
/* A statement run once per call, with what it does for the error
 * message ("reading held replies"). */
struct db_query {
	const char *sql;
	const char *what;
};

/* The first column of q's first row (?1 = now) into *out, malloc'ed;
 * NULL when there is none. */
int db_first_text(struct store *st, const struct db_query *q, time_t now, char **out,
		  struct err *e);
/* q's one value, a time, into *when; *found false when it is NULL. */
int db_first_time(struct store *st, const struct db_query *q, time_t *when, bool *found,
		  struct err *e);

/* Calls fn for each row of q (?1 = now, ?2 = max): the person and the
 * time (store_held_waiting, store_series_waiting). */
int db_waiting(struct store *st, const struct db_query *q, time_t now, size_t max,
	       store_waiting_fn *fn, void *ctx, struct err *e);
/* q (no rows) with ?1 = now and ?2 = until. */
int db_postpone(struct store *st, const struct db_query *q, time_t now, time_t until,
		struct err *e);

/* msgid_key(msgid), or NULL with e filled. */
char *db_key(struct store *st, const char *msgid, struct err *e);

/* --- shared by the reply paths (messages.c, outbox.c, series.c, limits.c) */

/* Inserts the messages row; *added false when the Message-ID is known (the
 * row is left as it was: "INSERT ... ON CONFLICT DO NOTHING", which leaves
 * a PostgreSQL transaction usable, where a failed INSERT would not). */
int messages_insert(struct store *st, const char *key, const struct store_message *m,
		    const char *reply_key, bool *added, struct err *e);
/* A reply on its way into the outbox, its keys and recipients as the
 * outbox row holds them. */
struct outbox_row {
	const struct store_outgoing *o;
	const char *reply_key;		/* msgid_key(o->reply_msgid) */
	const char *parent_key;		/* the message answered (a group's lead) */
	const char *rcpt;		/* o->rcpt, one per line */
	time_t now;			/* when it is queued */
};

/* Inserts the outbox row; *added false when the parent has a reply (the
 * UNIQUE parent column); a clash on the reply's own Message-ID is an
 * error (a bug, not a duplicate). */
int outbox_insert(struct store *st, const struct outbox_row *r, bool *added, struct err *e);

/* schema.c: the SQL (malloc'ed) that takes a database of drv from version
 * from to from + 1, run in one transaction; NULL past the last. */
char *schema_step(const struct db_driver *drv, int from);

/* The body of a grouped reply's queueing (series_reply_tx, held_reply_tx),
 * run inside its transaction; id names the group, r->parent_key is its
 * lead. */
typedef int reply_tx_fn(struct store *st, const char *id, const struct outbox_row *r,
			enum store_enqueue *res, struct err *e);
/* Queues o for the group id in one transaction, by tx. */
int outbox_queue_grouped(struct store *st, const char *id, const struct store_outgoing *o,
			 time_t now, enum store_enqueue *res, reply_tx_fn *tx, struct err *e);

#endif
