/*
 * db.h - private to store/: the SQL engine under the store, one driver per
 * engine behind this interface (isync's driver.h is the model): db_sqlite.c,
 * the only file that includes sqlite3.h, and db_pg.c, the only one that
 * includes libpq-fe.h.  The table files (messages.c, outbox.c, ...) write
 * each query once against it.
 *
 * The SQL the table files write is the common part of SQLite's and
 * PostgreSQL's dialects, with parameters numbered ?1, ?2, ... (the
 * PostgreSQL driver turns them into $1, $2 when it prepares).  What is not
 * common is named here, in struct db_driver, or is the schema (schema.c).
 *
 * Calls return DB_OK, DB_ROW (step only) or DB_ERROR; after DB_ERROR,
 * db_errmsg() and db_errclass() describe the last failure of the
 * connection.  A statement belongs to the connection that prepared it and
 * is valid until db_finalize().  Text handed out by db_col_text() and
 * db_col_blob() is valid until the next step, reset or finalize.
 */
#ifndef TAGBOT_STORE_DB_H
#define TAGBOT_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

enum db_rc {
	DB_OK,		/* done: no (more) rows */
	DB_ROW,		/* a row is there to read */
	DB_ERROR
};

struct db;
struct db_stmt;

struct db_driver {
	const char *name;		/* "sqlite", "postgresql" */
	/* Appended to the SELECT that picks the next outbox row to claim: ""
	 * where one process holds the database (SQLite's write lock is the
	 * whole file), " FOR UPDATE SKIP LOCKED" where two daemons may claim
	 * at once. */
	const char *claim_rows;
	/* The outermost transaction's BEGIN; savepoints are SQL standard. */
	const char *begin;
	/* Opens a migration's transaction, and its lock against another
	 * process migrating the same database. */
	const char *begin_migration;
	/* Takes the rate windows' lock until the transaction ends
	 * (store_rate_count()); NULL where a transaction holds the whole
	 * database already. */
	const char *lock_rates;
	/* Likewise, the claims' lock (claims.c): two daemons taking or
	 * finishing claims of a folder take turns. */
	const char *lock_claims;

	int (*exec)(struct db *db, const char *sql);
	/* keep: the statement lives as long as the connection (a hint: the
	 * SQLite driver keeps every statement it has room for, finalize()
	 * only resetting it for the next prepare() of the same text). */
	int (*prepare)(struct db *db, const char *sql, bool keep, struct db_stmt **out);
	/* v NULL binds NULL; the value is copied (text) or must live until the
	 * next step (blob). */
	void (*bind_text)(struct db_stmt *s, int i, const char *v);
	void (*bind_blob)(struct db_stmt *s, int i, const void *v, size_t len);
	void (*bind_int64)(struct db_stmt *s, int i, int64_t v);
	void (*bind_null)(struct db_stmt *s, int i);
	int (*step)(struct db_stmt *s);
	/* Back to before the first step, bindings cleared. */
	void (*reset)(struct db_stmt *s);
	void (*finalize)(struct db_stmt *s);
	bool (*col_null)(struct db_stmt *s, int i);
	/* NULL for SQL NULL. */
	const char *(*col_text)(struct db_stmt *s, int i);
	/* NULL (and *len 0) for SQL NULL. */
	const void *(*col_blob)(struct db_stmt *s, int i, size_t *len);
	int64_t (*col_int64)(struct db_stmt *s, int i);
	/* Rows the last INSERT, UPDATE or DELETE stepped to its end changed. */
	long (*changes)(struct db *db);
	/* The schema version the database records; 0 for a fresh one. */
	int (*get_version)(struct db *db, int *v);
	int (*set_version)(struct db *db, int v);
	const char *(*errmsg)(struct db *db);
	enum err_class (*errclass)(struct db *db);
	void (*close)(struct db *db);
};

/* What every driver's connection and statement start with. */
struct db {
	const struct db_driver *drv;	/* foreign: static */
};

struct db_stmt {
	const struct db_driver *drv;	/* foreign: static */
};

/*
 * The drivers' own entry points: the connection, or NULL with e filled as
 * store.h says ("store NAME: ...").
 *
 * db_sqlite.c: opens the file at path read-write, never creating it;
 * busy_ms is the lock wait.  DB_SQLITE_BUILD: a new file the store fills
 * (store.c's create_file()), marked as tagbot's (PRAGMA application_id,
 * STORE_SQLITE_APPLICATION_ID) and left in the default journal mode while
 * it is built.  DB_SQLITE_STATE: an existing file, refused (ERR_FINAL,
 * naming it, its application_id and its tables) unless it is a tagbot
 * state -- marked, or unmarked from a tagbot before the mark: a schema
 * version and the tables of schema 1, which is then marked -- before
 * anything is written to it; then switched to WAL with synchronous=FULL.
 */
enum db_sqlite_how {
	DB_SQLITE_BUILD,
	DB_SQLITE_STATE
};
struct db *db_sqlite_open(const char *path, int busy_ms, enum db_sqlite_how how,
			  struct err *e);
/* What db_sqlite_check_file() found at a path. */
enum db_file {
	DB_FILE_BAD = -1,	/* something that is no tagbot database: e says what */
	DB_FILE_OK = 0,		/* a regular file starting with SQLite's magic */
	DB_FILE_NONE = 1	/* no file */
};
enum db_file db_sqlite_check_file(const char *path, struct err *e);
/* Copies the database at from (checked by db_sqlite_check_file first, then
 * as DB_SQLITE_STATE checks it, but not marked) to a new file at to,
 * consistently while a writer works: DB_FILE_OK when copied,
 * DB_FILE_NONE (nothing copied) when there is no file at from. */
enum db_file db_sqlite_snapshot(const char *from, const char *to, int busy_ms, struct err *e);
/*
 * db_pg.c: connects with the libpq connection string or URL conninfo and
 * password (NULL: conninfo's, ~/.pgpass or none); name (the conninfo with
 * any password masked) names the database in messages; statements wait
 * busy_ms for a lock (lock_timeout).  Built without PostgreSQL: NULL,
 * saying so.
 */
struct db *db_pg_open(const char *conninfo, const char *password, const char *name, int busy_ms,
		      struct err *e);

static inline int db_exec_sql(struct db *db, const char *sql)
{
	return db->drv->exec(db, sql);
}

static inline int db_prepare(struct db *db, const char *sql, bool keep, struct db_stmt **out)
{
	return db->drv->prepare(db, sql, keep, out);
}

static inline void db_bind_text(struct db_stmt *s, int i, const char *v)
{
	s->drv->bind_text(s, i, v);
}

static inline void db_bind_blob(struct db_stmt *s, int i, const void *v, size_t len)
{
	s->drv->bind_blob(s, i, v, len);
}

static inline void db_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	s->drv->bind_int64(s, i, v);
}

static inline void db_bind_null(struct db_stmt *s, int i)
{
	s->drv->bind_null(s, i);
}

static inline int db_step(struct db_stmt *s)
{
	return s->drv->step(s);
}

static inline void db_reset(struct db_stmt *s)
{
	s->drv->reset(s);
}

static inline void db_finalize(struct db_stmt *s)
{
	if (s)
		s->drv->finalize(s);
}

static inline bool db_col_null(struct db_stmt *s, int i)
{
	return s->drv->col_null(s, i);
}

static inline const char *db_col_str(struct db_stmt *s, int i)
{
	return s->drv->col_text(s, i);
}

static inline const void *db_col_blob(struct db_stmt *s, int i, size_t *len)
{
	return s->drv->col_blob(s, i, len);
}

static inline int64_t db_col_int64(struct db_stmt *s, int i)
{
	return s->drv->col_int64(s, i);
}

static inline long db_changes(struct db *db)
{
	return db->drv->changes(db);
}

static inline int db_col_int(struct db_stmt *s, int i)
{
	return (int)s->drv->col_int64(s, i);
}

#endif
