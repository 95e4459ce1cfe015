/*
 * db_sqlite.c - the SQLite driver (db.h): the only file that includes
 * sqlite3.h.  Also what only a database file has: the check that a file is
 * one, and the online copy a dry run decides into.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lib/buf.h"
#include "store/db.h"
#include "store/store.h"

/*
 * Statements are kept once prepared, by their text: the store runs a few
 * dozen queries over and over, and parsing and planning each again cost
 * more than running it.  One in use is not handed out twice (a query run
 * inside another's loop gets a statement of its own, finalized after).
 */
#define SQ_KEPT_MAX	128

struct sq_stmt;

struct sq_kept {
	char *sql;		/* owned */
	uint32_t hash;
	struct sq_stmt *st;	/* owned */
	bool busy;		/* handed out, not yet given back */
};

struct sq {
	struct db base;
	sqlite3 *db;		/* owned */
	int rc;			/* the last failure's extended code */
	struct sq_kept kept[SQ_KEPT_MAX];
	size_t nkept;
};

struct sq_stmt {
	struct db_stmt base;
	sqlite3_stmt *s;	/* owned */
	struct sq *conn;	/* foreign */
	struct sq_kept *kept;	/* foreign; NULL when finalized after use */
};

static const struct db_driver sqlite_driver;

/* A lock held too long by another process is worth waiting for; a full
 * disk may clear; anything else is a broken database or a bug. */
static enum err_class rc_class(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return ERR_WAIT;
	case SQLITE_FULL:
	case SQLITE_IOERR:
		return ERR_TEMP;
	default:
		return ERR_FINAL;
	}
}

static int fail(struct sq *c, int rc)
{
	c->rc = rc;
	return DB_ERROR;
}

static int sq_exec(struct db *db, const char *sql)
{
	struct sq *c = (struct sq *)db;
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? DB_OK : fail(c, rc);
}

static uint32_t sql_hash(const char *sql)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)sql; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static struct sq_kept *kept_find(struct sq *c, const char *sql, uint32_t hash)
{
	for (size_t i = 0; i < c->nkept; i++)
		if (c->kept[i].hash == hash && !strcmp(c->kept[i].sql, sql))
			return &c->kept[i];
	return NULL;
}

static int sq_prepare(struct db *db, const char *sql, bool keep, struct db_stmt **out)
{
	struct sq *c = (struct sq *)db;
	uint32_t hash = sql_hash(sql);
	struct sq_kept *k = kept_find(c, sql, hash);
	sqlite3_stmt *s;
	struct sq_stmt *st;
	int rc;

	*out = NULL;
	(void)keep;	/* every statement is kept while there is room */
	if (k && !k->busy) {
		k->busy = true;
		*out = &k->st->base;
		return DB_OK;
	}
	if (!k && c->nkept < SQ_KEPT_MAX)
		k = &c->kept[c->nkept];
	else
		k = NULL;
	rc = sqlite3_prepare_v3(c->db, sql, -1, k ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(c, rc);
	st = xcalloc(1, sizeof(*st));
	st->base.drv = &sqlite_driver;
	st->s = s;
	st->conn = c;
	if (k) {
		*k = (struct sq_kept){ xstrdup(sql), hash, st, true };
		st->kept = k;
		c->nkept++;
	}
	*out = &st->base;
	return DB_OK;
}

#define S(x) (((struct sq_stmt *)(x))->s)

static void sq_bind_text(struct db_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(S(s), i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(S(s), i);
}

static void sq_bind_blob(struct db_stmt *s, int i, const void *v, size_t len)
{
	sqlite3_bind_blob64(S(s), i, len ? v : "", len, SQLITE_STATIC);
}

static void sq_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(S(s), i, (sqlite3_int64)v);
}

static void sq_bind_null(struct db_stmt *s, int i)
{
	sqlite3_bind_null(S(s), i);
}

static int sq_step(struct db_stmt *s)
{
	int rc = sqlite3_step(S(s));

	if (rc == SQLITE_ROW)
		return DB_ROW;
	if (rc == SQLITE_DONE)
		return DB_OK;
	return fail(((struct sq_stmt *)s)->conn, sqlite3_extended_errcode(sqlite3_db_handle(S(s))));
}

static void sq_reset(struct db_stmt *s)
{
	sqlite3_reset(S(s));
	sqlite3_clear_bindings(S(s));
}

/* A kept statement is reset for its next use: its read ends here, as a
 * finalized one's would. */
static void sq_finalize(struct db_stmt *s)
{
	struct sq_stmt *st = (struct sq_stmt *)s;

	if (st->kept) {
		sqlite3_reset(st->s);
		sqlite3_clear_bindings(st->s);
		st->kept->busy = false;
		return;
	}
	sqlite3_finalize(st->s);
	free(st);
}

static bool sq_col_null(struct db_stmt *s, int i)
{
	return sqlite3_column_type(S(s), i) == SQLITE_NULL;
}

static const char *sq_col_text(struct db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(S(s), i);
}

static const void *sq_col_blob(struct db_stmt *s, int i, size_t *len)
{
	const void *p;

	*len = 0;
	if (sqlite3_column_type(S(s), i) == SQLITE_NULL)
		return NULL;
	p = sqlite3_column_blob(S(s), i);
	*len = (size_t)sqlite3_column_bytes(S(s), i);
	return p ? p : "";	/* SQLite hands out NULL for an empty blob */
}

static int64_t sq_col_int64(struct db_stmt *s, int i)
{
	return (int64_t)sqlite3_column_int64(S(s), i);
}

static long sq_changes(struct db *db)
{
	return (long)sqlite3_changes(((struct sq *)db)->db);
}

static int sq_get_version(struct db *db, int *v)
{
	struct sq *c = (struct sq *)db;
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(c->db, "PRAGMA user_version", -1, &s, NULL);

	*v = 0;
	if (rc != SQLITE_OK)
		return fail(c, rc);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? DB_OK : fail(c, rc);
}

static int sq_set_version(struct db *db, int v)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return sq_exec(db, sql);
}

static const char *sq_errmsg(struct db *db)
{
	return sqlite3_errmsg(((struct sq *)db)->db);
}

static enum err_class sq_errclass(struct db *db)
{
	return rc_class(((struct sq *)db)->rc);
}

static void sq_close(struct db *db)
{
	struct sq *c = (struct sq *)db;

	if (!db)
		return;
	for (size_t i = 0; i < c->nkept; i++) {
		sqlite3_finalize(c->kept[i].st->s);
		free(c->kept[i].st);
		free(c->kept[i].sql);
	}
	sqlite3_close(c->db);
	free(c);
}

static const struct db_driver sqlite_driver = {
	.name = "sqlite",
	.claim_rows = "",
	/* A deferred transaction that reads and then writes can fail with
	 * SQLITE_BUSY without waiting. */
	.begin = "BEGIN IMMEDIATE",
	.begin_migration = "BEGIN IMMEDIATE",
	.lock_rates = NULL,	/* BEGIN IMMEDIATE holds the writer's lock */
	.lock_claims = NULL,
	.exec = sq_exec,
	.prepare = sq_prepare,
	.bind_text = sq_bind_text,
	.bind_blob = sq_bind_blob,
	.bind_int64 = sq_bind_int64,
	.bind_null = sq_bind_null,
	.step = sq_step,
	.reset = sq_reset,
	.finalize = sq_finalize,
	.col_null = sq_col_null,
	.col_text = sq_col_text,
	.col_blob = sq_col_blob,
	.col_int64 = sq_col_int64,
	.changes = sq_changes,
	.get_version = sq_get_version,
	.set_version = sq_set_version,
	.errmsg = sq_errmsg,
	.errclass = sq_errclass,
	.close = sq_close,
};

static int set_pragmas(struct sq *c, const char *path, struct err *e)
{
	sqlite3_stmt *s;
	const unsigned char *mode;
	int rc, wal;

	rc = sqlite3_prepare_v2(c->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return err_set(e, rc_class(rc), "store %s: setting WAL mode: %s", path,
			       sqlite3_errmsg(c->db));
	rc = sqlite3_step(s);
	mode = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
	wal = mode && !strcmp((const char *)mode, "wal");
	sqlite3_finalize(s);
	if (!wal)
		return err_set(e, ERR_FINAL, "store %s: cannot switch to WAL mode", path);
	rc = sqlite3_exec(c->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return err_set(e, rc_class(rc), "store %s: PRAGMA synchronous = FULL: %s", path,
			       sqlite3_errmsg(c->db));
	return 0;
}

/* The first column of sql's one row, as an integer, into *v. */
static int pragma_int(sqlite3 *db, const char *sql, sqlite3_int64 *v)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	*v = 0;
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* The tables every tagbot state has had since schema 1, in name order. */
static const char *const state_tables[] = { "checkpoints", "messages", "outbox" };

#define TABLES_SHOWN	8	/* table names an error message lists */

/* The database's tables, "tables A, B, ..." or "no tables", into b; *ours:
 * state_tables[] are among them. */
static int list_tables(sqlite3 *db, struct buf *b, bool *ours)
{
	sqlite3_stmt *s;
	size_t n = 0, hits = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
				    " ORDER BY name", -1, &s, NULL);

	*ours = false;
	if (rc != SQLITE_OK)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		for (size_t i = 0; name && i < ARRAY_SIZE(state_tables); i++)
			hits += !strcmp(name, state_tables[i]);
		if (n < TABLES_SHOWN)
			buf_printf(b, "%s%s", n ? ", " : "tables ", name ? name : "?");
		else if (n == TABLES_SHOWN)
			buf_addstr(b, ", ...");
		n++;
	}
	sqlite3_finalize(s);
	if (!n)
		buf_addstr(b, "no tables");
	*ours = hits == ARRAY_SIZE(state_tables);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int mark_ours(sqlite3 *db)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA application_id = %ld",
		 (long)STORE_SQLITE_APPLICATION_ID);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/*
 * Whether the database is a tagbot state, before anything is written to it:
 * marked so (application_id), or, from a tagbot before the mark, unmarked
 * with a schema version and the tables of schema 1 -- then, with mark, it
 * gets the mark.  Anything else is another program's, whose file tagbot
 * must not fill with its own tables.
 */
static int check_ours(sqlite3 *db, const char *path, bool mark, struct err *e)
{
	sqlite3_int64 id, version;
	struct buf tables;
	bool ours;
	int rc;

	rc = pragma_int(db, "PRAGMA application_id", &id);
	if (rc == SQLITE_OK && id == (sqlite3_int64)STORE_SQLITE_APPLICATION_ID)
		return 0;
	if (rc == SQLITE_OK)
		rc = pragma_int(db, "PRAGMA user_version", &version);
	buf_init(&tables, 0);
	if (rc == SQLITE_OK)
		rc = list_tables(db, &tables, &ours);
	if (rc == SQLITE_OK && id == 0 && version > 0 && ours)
		rc = mark ? mark_ours(db) : SQLITE_OK;
	else if (rc == SQLITE_OK)
		rc = -1;
	if (rc > 0)
		err_set(e, rc_class(rc), "store %s: cannot read: %s", path, sqlite3_errmsg(db));
	else if (rc < 0)
		err_set(e, ERR_FINAL, "store %s: an SQLite database of another program "
			"(application_id 0x%08lx, %s): not a tagbot state; is it the right file?",
			path, (unsigned long)(uint32_t)id, tables.data);
	buf_release(&tables);
	return rc == SQLITE_OK ? 0 : -1;
}

struct db *db_sqlite_open(const char *path, int busy_ms, enum db_sqlite_how how,
			  struct err *e)
{
	struct sq *c = xcalloc(1, sizeof(*c));
	/* Never SQLITE_OPEN_CREATE: a file gone since is an error, not a new store. */
	int rc = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE, NULL);

	c->base.drv = &sqlite_driver;
	if (rc != SQLITE_OK) {
		err_set(e, rc_class(rc), "store %s: cannot open: %s", path,
			c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
		sq_close(&c->base);
		return NULL;
	}
	sqlite3_busy_timeout(c->db, busy_ms);
	sqlite3_extended_result_codes(c->db, 1);
	if (how == DB_SQLITE_BUILD)
		rc = mark_ours(c->db) == SQLITE_OK ? 0
			: err_set(e, ERR_FINAL, "store %s: cannot mark as tagbot's: %s", path,
				  sqlite3_errmsg(c->db));
	else
		rc = check_ours(c->db, path, true, e);
	if (rc == 0 && how == DB_SQLITE_STATE)
		rc = set_pragmas(c, path, e);
	if (rc < 0) {
		sq_close(&c->base);
		return NULL;
	}
	return &c->base;
}

#define SQLITE_MAGIC	"SQLite format 3"	/* the first 16 bytes, NUL included */

/*
 * An empty file is refused, not taken for a fresh store: with backfill that
 * would answer the whole folder again.
 */
enum db_file db_sqlite_check_file(const char *path, struct err *e)
{
	/* O_NONBLOCK: a FIFO in its place must not hang the open. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char magic[sizeof(SQLITE_MAGIC)];
	struct stat sb;
	int rc = DB_FILE_OK;

	if (fd < 0 && errno == ENOENT)
		return DB_FILE_NONE;
	if (fd < 0)
		return err_set(e, ERR_FINAL, "store %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0)
		rc = err_set(e, ERR_FINAL, "store %s: %s", path, strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		rc = err_set(e, ERR_FINAL, "store %s: not a regular file", path);
	else if (sb.st_size == 0)
		rc = err_set(e, ERR_FINAL, "store %s: the file exists but is empty (0 bytes): not a "
			     "tagbot database; remove it to start a fresh store, or restore the "
			     "database", path);
	else if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
		 memcmp(magic, SQLITE_MAGIC, sizeof(magic)))
		rc = err_set(e, ERR_FINAL, "store %s: not an SQLite database, so not a tagbot "
			     "database; is it the right file?", path);
	close(fd);
	return rc;
}

/*
 * Online backup: one consistent snapshot even while a daemon writes to
 * from.  from is only read (not migrated), but opened read-write: a
 * read-only connection to a WAL database leaves a -wal and a -shm file
 * behind that only a writer removes, and closing it as the last
 * connection does that.
 */
enum db_file db_sqlite_snapshot(const char *from, const char *to, int busy_ms, struct err *e)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *bk;
	enum db_file f = db_sqlite_check_file(from, e);
	int rc;

	if (f != DB_FILE_OK)
		return f;
	rc = sqlite3_open_v2(from, &src, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(src, busy_ms);
		if (check_ours(src, from, false, e) < 0) {
			sqlite3_close(src);
			return DB_FILE_BAD;
		}
		rc = sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	}
	if (rc == SQLITE_OK) {
		bk = sqlite3_backup_init(dst, "main", src, "main");
		if (!bk) {
			rc = sqlite3_errcode(dst);
		} else {
			rc = sqlite3_backup_step(bk, -1);
			sqlite3_backup_finish(bk);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
	}
	if (rc != SQLITE_OK)
		err_set(e, rc_class(rc), "store %s: cannot copy to %s: %s", from, to,
			sqlite3_errstr(rc));
	sqlite3_close(src);
	sqlite3_close(dst);
	return rc == SQLITE_OK ? DB_FILE_OK : DB_FILE_BAD;
}
