/*
 * store.c - opening, migrating, snapshotting and closing the database,
 * transactions, and the statement helpers the table files share
 * (store_p.h).  The tables' own functions live in messages.c, outbox.c,
 * series.c, cache.c and limits.c.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mail/msgid.h"
#include "store/store_p.h"

/*
 * Schema steps: migrations[v] takes a database from user_version v to v+1.
 * A new version appends a step; a step is never edited once released.
 */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1 */
	"CREATE TABLE messages ("
	"  msgid TEXT PRIMARY KEY NOT NULL,"
	"  source TEXT NOT NULL,"
	"  folder TEXT NOT NULL,"
	"  uid INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  decision TEXT NOT NULL CHECK (decision IN ('replied', 'clean', 'error')"
	"                               OR decision LIKE 'skipped:%'),"
	"  reply_msgid TEXT,"
	"  time INTEGER NOT NULL);"
	"CREATE TABLE checkpoints ("
	"  source TEXT NOT NULL,"
	"  folder TEXT NOT NULL,"
	"  uidvalidity INTEGER NOT NULL,"
	"  last_uid INTEGER NOT NULL,"
	"  PRIMARY KEY (source, folder));"
	"CREATE TABLE outbox ("
	"  reply_msgid TEXT PRIMARY KEY NOT NULL,"
	"  parent_msgid TEXT NOT NULL UNIQUE,"
	"  envelope_from TEXT NOT NULL,"
	"  recipients TEXT NOT NULL,"
	"  raw BLOB NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL,"
	"  last_error TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  sent_time INTEGER);"
	"CREATE INDEX outbox_due ON outbox (state, next_attempt);",
	/* 1 -> 2 */
	"CREATE TABLE lookup_cache ("
	"  url TEXT PRIMARY KEY NOT NULL,"
	"  status INTEGER NOT NULL,"
	"  fetched_at INTEGER NOT NULL,"
	"  result BLOB NOT NULL);"
	"CREATE INDEX lookup_cache_age ON lookup_cache (fetched_at);",
	/* 2 -> 3 */
	"CREATE TABLE context ("
	"  msgid TEXT PRIMARY KEY NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  sender TEXT NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  version INTEGER NOT NULL,"
	"  idx INTEGER NOT NULL,"
	"  total INTEGER NOT NULL,"
	"  change_id TEXT,"
	"  in_reply_to TEXT,"
	"  refs TEXT,"
	"  list_id TEXT,"
	"  time INTEGER NOT NULL);"
	"CREATE INDEX context_time ON context (time);"
	"CREATE INDEX context_irt ON context (in_reply_to);"
	"CREATE INDEX context_change ON context (change_id);"
	"CREATE INDEX context_work ON context (sender, subject);"
	"CREATE INDEX context_series ON context (sender, version, total, time);"
	"CREATE TABLE thread_state ("
	"  root TEXT PRIMARY KEY NOT NULL,"
	"  quiet INTEGER NOT NULL,"
	"  time INTEGER NOT NULL);"
	"CREATE TABLE series ("
	"  id TEXT PRIMARY KEY NOT NULL,"
	"  version INTEGER NOT NULL,"
	"  total INTEGER NOT NULL,"
	"  sender TEXT NOT NULL,"
	"  first_time INTEGER NOT NULL,"
	"  deadline INTEGER NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('passive', 'pending', 'done')));"
	"CREATE INDEX series_due ON series (state, deadline);"
	"CREATE TABLE series_member ("
	"  msgid TEXT PRIMARY KEY NOT NULL,"
	"  series TEXT NOT NULL,"
	"  idx INTEGER NOT NULL,"
	"  time INTEGER NOT NULL,"
	"  raw BLOB,"
	"  findings TEXT);"
	"CREATE INDEX series_member_series ON series_member (series, idx);",
	/* 3 -> 4 */
	"CREATE TABLE held ("
	"  msgid TEXT PRIMARY KEY NOT NULL,"
	"  rcpt TEXT NOT NULL,"
	"  time INTEGER NOT NULL,"
	"  deadline INTEGER NOT NULL,"
	"  raw BLOB NOT NULL,"
	"  findings TEXT NOT NULL);"
	"CREATE INDEX held_due ON held (deadline);"
	"CREATE INDEX held_rcpt ON held (rcpt, time);"
	"CREATE TABLE rate_events ("
	"  key TEXT NOT NULL,"
	"  t INTEGER NOT NULL);"
	"CREATE INDEX rate_events_t ON rate_events (t);"
	"CREATE TABLE told ("
	"  person TEXT NOT NULL,"
	"  rule TEXT NOT NULL,"
	"  t INTEGER NOT NULL,"
	"  PRIMARY KEY (person, rule));"
	"CREATE TABLE sink_state ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  sink TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('ok', 'failing')),"
	"  reason TEXT NOT NULL,"
	"  since INTEGER NOT NULL,"
	"  failures INTEGER NOT NULL,"
	"  next_try INTEGER NOT NULL);",
	/* 4 -> 5: told remembers the patch a finding was told about */
	"CREATE TABLE told5 ("
	"  person TEXT NOT NULL,"
	"  rule TEXT NOT NULL,"
	"  about TEXT NOT NULL,"
	"  t INTEGER NOT NULL,"
	"  PRIMARY KEY (person, rule, about));"
	"INSERT INTO told5 (person, rule, about, t) SELECT person, rule, '', t FROM told;"
	"DROP TABLE told;"
	"ALTER TABLE told5 RENAME TO told;"
	"CREATE INDEX told_t ON told (t);",
};

/* The hot statements, prepared once at open (enum stmt_id, store_p.h). */
static const char *const stmt_sql[S_COUNT] = {
	[S_SEEN] = "SELECT 1 FROM messages WHERE msgid = ?1",
	[S_FIRST_TIME] = "SELECT min(time) FROM messages WHERE source = ?1 AND folder = ?2",
	[S_INSERT_MESSAGE] =
		"INSERT INTO messages (msgid, source, folder, uid, kind, decision, reply_msgid, time)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_INSERT_OUTBOX] =
		"INSERT INTO outbox (reply_msgid, parent_msgid, envelope_from, recipients, raw,"
		" next_attempt, created) VALUES (?1, ?2, ?3, ?4, ?5, max(?6, ?7), ?6)",
	[S_CHECKPOINT_GET] =
		"SELECT uidvalidity, last_uid FROM checkpoints WHERE source = ?1 AND folder = ?2",
	[S_CHECKPOINT_SET] =
		"INSERT INTO checkpoints (source, folder, uidvalidity, last_uid) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (source, folder) DO UPDATE SET uidvalidity = ?3, last_uid = ?4",
	[S_CHECKPOINT_ALL] =
		"SELECT source, folder, uidvalidity, last_uid FROM checkpoints ORDER BY source, folder",
	[S_OUTBOX_DUE] =
		"SELECT reply_msgid, parent_msgid, envelope_from, recipients, raw, state, attempts,"
		" next_attempt, last_error FROM outbox WHERE state = 'queued' AND next_attempt <= ?1"
		" ORDER BY next_attempt, created LIMIT 1",
	[S_OUTBOX_NEXT_TIME] = "SELECT min(next_attempt) FROM outbox WHERE state = 'queued'",
	[S_MARK_SENT] =
		"UPDATE outbox SET state = 'sent', attempts = attempts + 1, sent_time = ?2,"
		" last_error = ?3 WHERE reply_msgid = ?1 AND state = 'queued'",
	[S_MARK_RETRY] =
		"UPDATE outbox SET attempts = attempts + 1, next_attempt = ?2, last_error = ?3"
		" WHERE reply_msgid = ?1 AND state = 'queued'",
	[S_MARK_FAILED] =
		"UPDATE outbox SET state = 'failed', attempts = attempts + 1, last_error = ?3"
		" WHERE reply_msgid = ?1 AND state = 'queued'",
	[S_UNCLAIM] =
		"UPDATE outbox SET attempts = max(attempts - 1, 0), next_attempt = ?2, last_error = ?3"
		" WHERE reply_msgid = ?1 AND state = 'queued'",
	[S_COUNT_MESSAGES] =
		"SELECT count(*), sum(decision = 'replied'), sum(decision = 'clean'),"
		" sum(decision LIKE 'skipped:%'), sum(decision = 'error') FROM messages",
	[S_COUNT_OUTBOX] =
		"SELECT sum(state = 'queued'), sum(state = 'sent'), sum(state = 'failed') FROM outbox",
	[S_CACHE_GET] = "SELECT status, fetched_at, result FROM lookup_cache WHERE url = ?1",
	[S_CACHE_PUT] =
		"INSERT INTO lookup_cache (url, status, fetched_at, result) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (url) DO UPDATE SET status = ?2, fetched_at = ?3, result = ?4",
	[S_CACHE_PRUNE] = "DELETE FROM lookup_cache WHERE fetched_at < ?1",
};

void store_settings_init(struct store_settings *s)
{
	s->path = NULL;
	s->busy_timeout_ms = 5000;
}

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

int db_err(struct store *st, int rc, struct err *e, const char *what)
{
	return err_set(e, rc_class(rc), "store %s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int db_exec(struct store *st, const char *sql, struct err *e)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, sql);
}

sqlite3_stmt *db_stmt(struct store *st, enum stmt_id id)
{
	sqlite3_stmt *s = st->stmt[id];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/* Steps a statement that returns no rows; returns the sqlite rc. */
int db_step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void db_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

char *db_col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return xstrdup(t ? (const char *)t : "");
}

/* --- open, migrate, close ---------------------------------------------- */

static int get_user_version(struct store *st, int *v, struct err *e)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "reading the schema version");
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : db_err(st, rc, e, "reading the schema version");
}

static int migrate_step(struct store *st, int v, struct err *e)
{
	char sql[64];

	if (db_exec(st, migrations[v], e) < 0)
		return -1;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
	return db_exec(st, sql, e);
}

/* Each step runs in its own IMMEDIATE transaction and re-reads the version
 * inside it, so two processes opening a new file at once do not both
 * create the tables. */
static int migrate(struct store *st, struct err *e)
{
	int v = 0;

	for (;;) {
		if (db_exec(st, "BEGIN IMMEDIATE", e) < 0)
			return -1;
		if (get_user_version(st, &v, e) < 0)
			goto fail;
		if (v > STORE_SCHEMA_VERSION) {
			err_set(e, ERR_FINAL, "store %s: schema version %d is newer than this tagbot's (%d)",
				st->path, v, STORE_SCHEMA_VERSION);
			goto fail;
		}
		if (v == STORE_SCHEMA_VERSION)
			return db_exec(st, "COMMIT", e);
		if (migrate_step(st, v, e) < 0 || db_exec(st, "COMMIT", e) < 0)
			goto fail;
	}
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int set_pragmas(struct store *st, int busy_ms, struct err *e)
{
	sqlite3_stmt *s;
	const unsigned char *mode;
	int rc, wal;

	sqlite3_busy_timeout(st->db, busy_ms);
	sqlite3_extended_result_codes(st->db, 1);
	rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "setting WAL mode");
	rc = sqlite3_step(s);
	mode = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
	wal = mode && !strcmp((const char *)mode, "wal");
	sqlite3_finalize(s);
	if (!wal)
		return err_set(e, ERR_FINAL, "store %s: cannot switch to WAL mode", st->path);
	return db_exec(st, "PRAGMA synchronous = FULL", e);
}

static int prepare_all(struct store *st, struct err *e)
{
	for (int i = 0; i < S_COUNT; i++) {
		int rc = sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					    &st->stmt[i], NULL);
		if (rc != SQLITE_OK)
			return db_err(st, rc, e, "preparing statements");
	}
	return 0;
}

#define SQLITE_MAGIC	"SQLite format 3"	/* the first 16 bytes, NUL included */

/*
 * An existing database file: a regular file starting with SQLite's magic.
 * An empty one is refused, not taken for a fresh store: with backfill that
 * would answer the whole folder again.  1 when there is no file.
 */
static int check_file(const char *path, struct err *e)
{
	/* O_NONBLOCK: a FIFO in its place must not hang the open. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char magic[sizeof(SQLITE_MAGIC)];
	struct stat sb;
	int rc = 0;

	if (fd < 0 && errno == ENOENT)
		return 1;
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

/* Builds the schema in the file at tmp; messages name path. */
static int build(const char *tmp, const char *path, struct err *e)
{
	struct store st = { .path = (char *)path };
	int rc = sqlite3_open_v2(tmp, &st.db, SQLITE_OPEN_READWRITE, NULL);

	if (rc != SQLITE_OK)
		err_set(e, rc_class(rc), "store %s: cannot create: %s", path,
			st.db ? sqlite3_errmsg(st.db) : sqlite3_errstr(rc));
	else
		rc = migrate(&st, e) < 0 ? SQLITE_ERROR : SQLITE_OK;
	sqlite3_close(st.db);
	return rc == SQLITE_OK ? 0 : -1;
}

/*
 * Puts the file at tmp in place at path unless a file is there already
 * (another tagbot creating it at the same moment: its database wins).
 */
static int place(const char *tmp, const char *path)
{
	if (link(tmp, path) == 0 || errno == EEXIST)
		return 0;
	/* A file system without hard links: rename, which may replace a
	 * database another tagbot placed since access() looked. */
	if (access(path, F_OK) == 0 || rename(tmp, path) == 0)
		return 0;
	return -1;
}

/*
 * A new database is built under a temporary name and then put in place, so
 * path never names a file the store made but did not fill: a crash leaves
 * a stray PATH.new-XXXXXX at worst.  mkstemp makes it private (it will
 * hold other people's mail; SQLite gives the -wal and -shm files the
 * database file's permissions).
 */
static int create_file(const char *path, struct err *e)
{
	struct buf b;
	char *tmp;
	int fd, rc;

	buf_init(&b, 0);
	buf_printf(&b, "%s.new-XXXXXX", path);
	tmp = buf_detach(&b, NULL);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = err_set(e, ERR_FINAL, "store %s: cannot create: %s", path, strerror(errno));
		free(tmp);
		return rc;
	}
	close(fd);
	rc = build(tmp, path, e);
	if (rc == 0 && place(tmp, path) < 0)
		rc = err_set(e, ERR_FINAL, "store %s: cannot create: %s", path, strerror(errno));
	unlink(tmp);
	free(tmp);
	return rc;
}

int store_open(struct store **out, const struct store_settings *s, struct err *e)
{
	struct store *st;
	int rc;

	*out = NULL;
	if (!s->path || !*s->path)
		return err_set(e, ERR_FINAL, "store: no database path configured");
	rc = check_file(s->path, e);
	if (rc > 0)
		rc = create_file(s->path, e);
	if (rc < 0)
		return -1;
	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(s->path);
	/* Never SQLITE_OPEN_CREATE: a file gone since is an error, not a new store. */
	rc = sqlite3_open_v2(s->path, &st->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		err_set(e, rc_class(rc), "store %s: cannot open: %s", s->path,
			st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		store_close(st);
		return -1;
	}
	if (set_pragmas(st, s->busy_timeout_ms > 0 ? s->busy_timeout_ms : 5000, e) < 0 ||
	    migrate(st, e) < 0 || prepare_all(st, e) < 0) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

/*
 * Online backup: one consistent snapshot even while a daemon writes to
 * from.  from is only read (not migrated), but opened read-write: a
 * read-only connection to a WAL database leaves a -wal and a -shm file
 * behind that only a writer removes, and closing it as the last
 * connection does that.  to is migrated by the store_open() that follows.
 */
int store_snapshot(const char *from, const char *to, int busy_timeout_ms, struct err *e)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *bk;
	int rc = check_file(from, e);

	if (rc != 0)
		return rc;
	rc = sqlite3_open_v2(from, &src, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(src, busy_timeout_ms > 0 ? busy_timeout_ms : 5000);
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
	return rc == SQLITE_OK ? 0 : -1;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* --- transactions ------------------------------------------------------ */

/* The outermost level is BEGIN IMMEDIATE: a deferred transaction that
 * reads and then writes can fail with SQLITE_BUSY without waiting. */
int store_begin(struct store *st, struct err *e)
{
	if (db_exec(st, st->depth ? "SAVEPOINT tb" : "BEGIN IMMEDIATE", e) < 0)
		return -1;
	st->depth++;
	return 0;
}

int store_commit(struct store *st, struct err *e)
{
	if (st->depth <= 0)
		return err_set(e, ERR_FINAL, "store %s: commit without a transaction", st->path);
	if (db_exec(st, st->depth > 1 ? "RELEASE tb" : "COMMIT", e) < 0) {
		store_rollback(st);
		return -1;
	}
	st->depth--;
	return 0;
}

void store_rollback(struct store *st)
{
	if (st->depth <= 0)
		return;
	if (st->depth > 1)
		sqlite3_exec(st->db, "ROLLBACK TO tb; RELEASE tb", NULL, NULL, NULL);
	else
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->depth--;
}

/* --- helpers for the table files (store_p.h) ---------------------------- */

char *db_key(struct store *st, const char *msgid, struct err *e)
{
	char *k = msgid_key(msgid);

	if (!k)
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
	return k;
}

/* The statements outside stmt_sql run a few times per message at most:
 * prepared per call, which keeps that table for the hot paths. */
int db_prep(struct store *st, const char *sql, sqlite3_stmt **s, struct err *e)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "preparing a statement");
}

int db_prep_key(struct store *st, const char *sql, const char *msgid, sqlite3_stmt **s,
		struct err *e)
{
	char *key = db_key(st, msgid, e);
	int rc;

	if (!key)
		return -1;
	rc = db_prep(st, sql, s, e);
	if (rc == 0)
		db_bind_text(*s, 1, key);
	free(key);
	return rc;
}

int db_run_done(struct store *st, sqlite3_stmt *s, const char *what, struct err *e)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

int db_row_end(struct store *st, sqlite3_stmt *s, int rc, const char *what, struct err *e)
{
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

char *db_col_text_or_null(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t && *t ? xstrdup((const char *)t) : NULL;
}

int db_first_text(struct store *st, const char *sql, time_t now, char **out,
		  const char *what, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)now);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = db_col_text(s, 0);
	return db_row_end(st, s, rc, what, e);
}

int db_first_time(struct store *st, const char *sql, time_t *when, bool *found,
		  const char *what, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*found = false;
	*when = 0;
	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*when = (time_t)sqlite3_column_int64(s, 0);
		*found = true;
	}
	return db_row_end(st, s, rc, what, e);
}
