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
#include "mail/context.h"
#include "store/store.h"
#include "lib/ascii.h"
#include "mail/msgid.h"

int (*store_test_hook)(const char *point);

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

struct store {
	sqlite3 *db;
	char *path;			/* owned; for messages */
	sqlite3_stmt *stmt[S_COUNT];	/* owned */
	int depth;			/* open transactions (outermost BEGIN, then savepoints) */
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

static int db_err(struct store *st, int rc, struct err *e, const char *what)
{
	return err_set(e, rc_class(rc), "store %s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int exec(struct store *st, const char *sql, struct err *e)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, sql);
}

static sqlite3_stmt *stmt(struct store *st, enum stmt_id id)
{
	sqlite3_stmt *s = st->stmt[id];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/* Steps a statement that returns no rows; returns the sqlite rc. */
static int step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static char *col_text(sqlite3_stmt *s, int i)
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

	if (exec(st, migrations[v], e) < 0)
		return -1;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
	return exec(st, sql, e);
}

/* Each step runs in its own IMMEDIATE transaction and re-reads the version
 * inside it, so two processes opening a new file at once do not both
 * create the tables. */
static int migrate(struct store *st, struct err *e)
{
	int v = 0;

	for (;;) {
		if (exec(st, "BEGIN IMMEDIATE", e) < 0)
			return -1;
		if (get_user_version(st, &v, e) < 0)
			goto fail;
		if (v > STORE_SCHEMA_VERSION) {
			err_set(e, ERR_FINAL, "store %s: schema version %d is newer than this tagbot's (%d)",
				st->path, v, STORE_SCHEMA_VERSION);
			goto fail;
		}
		if (v == STORE_SCHEMA_VERSION)
			return exec(st, "COMMIT", e);
		if (migrate_step(st, v, e) < 0 || exec(st, "COMMIT", e) < 0)
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
	return exec(st, "PRAGMA synchronous = FULL", e);
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
	if (exec(st, st->depth ? "SAVEPOINT tb" : "BEGIN IMMEDIATE", e) < 0)
		return -1;
	st->depth++;
	return 0;
}

int store_commit(struct store *st, struct err *e)
{
	if (st->depth <= 0)
		return err_set(e, ERR_FINAL, "store %s: commit without a transaction", st->path);
	if (exec(st, st->depth > 1 ? "RELEASE tb" : "COMMIT", e) < 0) {
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

/* --- messages ---------------------------------------------------------- */

static char *key_or_err(struct store *st, const char *msgid, struct err *e)
{
	char *k = msgid_key(msgid);

	if (!k)
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
	return k;
}

int store_seen(struct store *st, const char *msgid, bool *seen, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	s = stmt(st, S_SEEN);
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	*seen = rc == SQLITE_ROW;
	sqlite3_reset(s);
	free(key);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "looking up a message");
	return 0;
}

static const char *const decision_names[] = {
	[STORE_REPLIED] = "replied",
	[STORE_CLEAN] = "clean",
	[STORE_SKIPPED] = "skipped",
	[STORE_ERROR] = "error",
};

/* Inserts the messages row; returns the sqlite rc (constraint = known). */
static int insert_message(struct store *st, const char *key, const struct store_message *m,
			  const char *reply_key)
{
	sqlite3_stmt *s = stmt(st, S_INSERT_MESSAGE);
	char decision[128];

	if (m->decision == STORE_SKIPPED)
		snprintf(decision, sizeof(decision), "skipped:%s", m->why && *m->why ? m->why : "other");
	else
		snprintf(decision, sizeof(decision), "%s",
			 decision_names[(unsigned)m->decision <= STORE_ERROR ? m->decision : STORE_ERROR]);
	bind_text(s, 1, key);
	bind_text(s, 2, m->source ? m->source : "");
	bind_text(s, 3, m->folder ? m->folder : "");
	sqlite3_bind_int64(s, 4, m->uid);
	bind_text(s, 5, m->kind ? m->kind : "other");
	bind_text(s, 6, decision);
	bind_text(s, 7, reply_key);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)m->time);
	return step_done(s);
}


int store_record_message(struct store *st, const struct store_message *m,
			 bool *added, struct err *e)
{
	char *key;
	int rc;

	if (m->decision == STORE_REPLIED)
		return err_set(e, ERR_FINAL, "store %s: a reply is recorded with store_record_reply",
			       st->path);
	if (!(key = key_or_err(st, m->msgid, e)))
		return -1;
	rc = insert_message(st, key, m, NULL);
	free(key);
	if (added)
		*added = rc == SQLITE_OK;
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return 0;
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "recording a message");
}

/* Recipients are stored one per line; an address holding a line break
 * could smuggle a second one, so it is refused. */
static int join_rcpt(struct store *st, const struct store_outgoing *o, struct buf *b, struct err *e)
{
	if (o->nrcpt == 0)
		return err_set(e, ERR_FINAL, "store %s: a reply without recipients", st->path);
	for (size_t i = 0; i < o->nrcpt; i++) {
		if (!o->rcpt[i][0] || strpbrk(o->rcpt[i], "\r\n"))
			return err_set(e, ERR_FINAL, "store %s: bad recipient", st->path);
		if ((i && buf_addch(b, '\n') < 0) || buf_addstr(b, o->rcpt[i]) < 0)
			return err_set(e, ERR_FINAL, "store %s: recipient list too long", st->path);
	}
	return 0;
}

static int insert_outbox(struct store *st, const char *reply_key, const char *parent_key,
			 const struct store_outgoing *o, const char *rcpt, time_t now)
{
	sqlite3_stmt *s = stmt(st, S_INSERT_OUTBOX);

	bind_text(s, 1, reply_key);
	bind_text(s, 2, parent_key);
	bind_text(s, 3, o->envelope_from ? o->envelope_from : "");
	bind_text(s, 4, rcpt);
	sqlite3_bind_blob64(s, 5, o->raw, o->len, SQLITE_STATIC);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)now);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)o->not_before);
	return step_done(s);
}

enum tx_result {
	TX_OK,
	TX_KNOWN,	/* the message or the parent's reply already exists */
	TX_FAILED	/* e filled */
};

/* The body of store_record_reply, run inside its transaction. */
static enum tx_result record_reply_tx(struct store *st, const struct store_message *m,
				      const struct store_outgoing *o, const char *rcpt,
				      time_t now, const char *key, const char *reply_key,
				      struct err *e)
{
	int rc = insert_message(st, key, m, reply_key);

	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return TX_KNOWN;
	if (rc != SQLITE_OK) {
		db_err(st, rc, e, "recording a message");
		return TX_FAILED;
	}
	if (store_test_hook && store_test_hook("record_reply:after_message") < 0) {
		err_set(e, ERR_TEMP, "store %s: failure injected by a test", st->path);
		return TX_FAILED;
	}
	rc = insert_outbox(st, reply_key, key, o, rcpt, now);
	/* UNIQUE is the parent column: that patch has its reply already.  A
	 * clash on the reply's own Message-ID is a bug, not a duplicate. */
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return TX_KNOWN;
	if (rc != SQLITE_OK) {
		db_err(st, rc, e, "queueing a reply");
		return TX_FAILED;
	}
	return TX_OK;
}

static int check_outgoing(struct store *st, const struct store_outgoing *o, const char *key,
			  const char *parent_key, struct err *e)
{
	if (strcmp(key, parent_key))
		return err_set(e, ERR_FINAL, "store %s: the reply's parent is not the message recorded",
			       st->path);
	if (!o->raw || o->len == 0 || o->len > STORE_REPLY_MAX)
		return err_set(e, ERR_FINAL, "store %s: empty or oversized reply", st->path);
	return 0;
}

int store_record_reply(struct store *st, const struct store_message *m,
		       const struct store_outgoing *o, time_t now,
		       enum store_enqueue *res, struct err *e)
{
	char *key = msgid_key(m->msgid), *parent = msgid_key(o->parent_msgid);
	char *reply_key = msgid_key(o->reply_msgid);
	enum tx_result r;
	struct buf rcpt;
	int rc = -1;

	buf_init(&rcpt, 64 * 1024);
	if (!key || !parent || !reply_key) {
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
		goto out;
	}
	if (check_outgoing(st, o, key, parent, e) < 0 || join_rcpt(st, o, &rcpt, e) < 0 ||
	    store_begin(st, e) < 0)
		goto out;
	r = record_reply_tx(st, m, o, rcpt.data, now, key, reply_key, e);
	if (r == TX_OK) {
		*res = STORE_QUEUED;
		rc = store_commit(st, e);
		goto out;
	}
	store_rollback(st);
	if (r == TX_KNOWN) {
		*res = STORE_ALREADY_QUEUED;
		rc = 0;
	}
out:
	free(key);
	free(parent);
	free(reply_key);
	buf_release(&rcpt);
	return rc;
}

/* --- checkpoints ------------------------------------------------------- */

int store_checkpoint_get(struct store *st, const char *source, const char *folder,
			 struct store_checkpoint *cp, bool *found, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_CHECKPOINT_GET);
	int rc;

	bind_text(s, 1, source);
	bind_text(s, 2, folder ? folder : "");
	rc = sqlite3_step(s);
	*found = rc == SQLITE_ROW;
	cp->uidvalidity = *found ? (uint32_t)sqlite3_column_int64(s, 0) : 0;
	cp->last_uid = *found ? (uint32_t)sqlite3_column_int64(s, 1) : 0;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "reading a checkpoint");
	return 0;
}

int store_first_time(struct store *st, const char *source, const char *folder, time_t *t,
		     bool *found, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_FIRST_TIME);
	int rc;

	bind_text(s, 1, source);
	bind_text(s, 2, folder ? folder : "");
	rc = sqlite3_step(s);
	*found = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL;
	*t = *found ? (time_t)sqlite3_column_int64(s, 0) : 0;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "reading the first message time");
	return 0;
}

int store_checkpoint_set(struct store *st, const char *source, const char *folder,
			 const struct store_checkpoint *cp, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_CHECKPOINT_SET);
	int rc;

	bind_text(s, 1, source);
	bind_text(s, 2, folder ? folder : "");
	sqlite3_bind_int64(s, 3, cp->uidvalidity);
	sqlite3_bind_int64(s, 4, cp->last_uid);
	rc = step_done(s);
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "writing a checkpoint");
}

int store_checkpoint_foreach(struct store *st,
			     void (*fn)(void *ctx, const char *source, const char *folder,
					const struct store_checkpoint *cp),
			     void *ctx, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_CHECKPOINT_ALL);
	struct store_checkpoint cp;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		cp.uidvalidity = (uint32_t)sqlite3_column_int64(s, 2);
		cp.last_uid = (uint32_t)sqlite3_column_int64(s, 3);
		fn(ctx, (const char *)sqlite3_column_text(s, 0),
		   (const char *)sqlite3_column_text(s, 1), &cp);
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "listing checkpoints");
}

/* --- outbox ------------------------------------------------------------ */

static const char *const state_names[] = {
	[OUTBOX_QUEUED] = "queued",
	[OUTBOX_SENT] = "sent",
	[OUTBOX_FAILED] = "failed",
};

const char *outbox_state_name(enum outbox_state s)
{
	return (unsigned)s <= OUTBOX_FAILED ? state_names[s] : "?";
}

static enum outbox_state state_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(state_names); i++)
		if (!strcmp(s, state_names[i]))
			return (enum outbox_state)i;
	return OUTBOX_FAILED;
}

void outbox_item_init(struct outbox_item *it)
{
	memset(it, 0, sizeof(*it));
}

void outbox_item_release(struct outbox_item *it)
{
	free(it->reply_msgid);
	free(it->parent_msgid);
	free(it->envelope_from);
	for (size_t i = 0; i < it->nrcpt; i++)
		free(it->rcpt[i]);
	free(it->rcpt);
	free(it->raw);
	free(it->last_error);
	outbox_item_init(it);
}

static void split_rcpt(struct outbox_item *it, const char *list)
{
	size_t alloc = 0;

	while (*list) {
		size_t n = strcspn(list, "\n");

		if (n) {
			ARRAY_GROW(it->rcpt, alloc, it->nrcpt + 1);
			it->rcpt[it->nrcpt++] = xstrndup(list, n);
		}
		list += n;
		if (*list)
			list++;
	}
}

static void fill_item(sqlite3_stmt *s, struct outbox_item *it)
{
	const void *raw = sqlite3_column_blob(s, 4);
	size_t len = (size_t)sqlite3_column_bytes(s, 4);
	char *rcpt = col_text(s, 3), *state = col_text(s, 5);

	it->reply_msgid = col_text(s, 0);
	it->parent_msgid = col_text(s, 1);
	it->envelope_from = col_text(s, 2);
	split_rcpt(it, rcpt);
	it->raw = xmalloc(len + 1);
	if (len)
		memcpy(it->raw, raw, len);
	it->raw[len] = '\0';
	it->len = len;
	it->state = state_parse(state);
	it->attempts = sqlite3_column_int(s, 6);
	it->next_attempt = (time_t)sqlite3_column_int64(s, 7);
	it->last_error = col_text(s, 8);
	free(rcpt);
	free(state);
}

int store_outbox_next_due(struct store *st, time_t now, struct outbox_item *it,
			  bool *found, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_OUTBOX_DUE);
	int rc;

	outbox_item_release(it);
	sqlite3_bind_int64(s, 1, (sqlite3_int64)now);
	rc = sqlite3_step(s);
	*found = rc == SQLITE_ROW;
	if (*found)
		fill_item(s, it);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "reading the outbox");
	return 0;
}

int store_outbox_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_OUTBOX_NEXT_TIME);
	int rc = sqlite3_step(s);

	*found = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL;
	*when = *found ? (time_t)sqlite3_column_int64(s, 0) : 0;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "reading the outbox");
	return 0;
}

/* Runs one of the state updates; a reply that is not queued (or not
 * there) is an error: the caller's idea of the outbox is wrong. */
static int mark(struct store *st, enum stmt_id id, const char *reply_msgid, time_t t,
		const char *error, struct err *e)
{
	char *key = key_or_err(st, reply_msgid, e);
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	s = stmt(st, id);
	bind_text(s, 1, key);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)t);
	bind_text(s, 3, error ? error : "");
	rc = step_done(s);
	if (rc != SQLITE_OK) {
		free(key);
		return db_err(st, rc, e, "updating the outbox");
	}
	if (sqlite3_changes(st->db) != 1) {
		err_set(e, ERR_FINAL, "store %s: reply <%s> is not queued", st->path, key);
		free(key);
		return -1;
	}
	free(key);
	return 0;
}

int store_outbox_mark_sent(struct store *st, const char *reply_msgid, time_t now,
			   const char *note, struct err *e)
{
	return mark(st, S_MARK_SENT, reply_msgid, now, note, e);
}

int store_outbox_mark_retry(struct store *st, const char *reply_msgid, time_t now,
			    long backoff, const char *error, struct err *e)
{
	return mark(st, S_MARK_RETRY, reply_msgid, now + (backoff > 0 ? backoff : 0), error, e);
}

int store_outbox_mark_failed(struct store *st, const char *reply_msgid, time_t now,
			     const char *error, struct err *e)
{
	return mark(st, S_MARK_FAILED, reply_msgid, now, error, e);
}

int store_outbox_unclaim(struct store *st, const char *reply_msgid, time_t now,
			 const char *error, struct err *e)
{
	return mark(st, S_UNCLAIM, reply_msgid, now, error, e);
}

/* --- lookup cache ------------------------------------------------------ */

static int cache_key_ok(struct store *st, const char *key, struct err *e)
{
	if (!key || !*key || strlen(key) > STORE_CACHE_KEY_MAX)
		return err_set(e, ERR_FINAL, "store %s: empty or oversized cache key", st->path);
	return 0;
}

int store_cache_get(struct store *st, const char *key, struct store_cache_entry *out,
		    bool *found, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(out, 0, sizeof(*out));
	*found = false;
	if (cache_key_ok(st, key, e) < 0)
		return -1;
	s = stmt(st, S_CACHE_GET);
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(s, 2);
		size_t len = (size_t)sqlite3_column_bytes(s, 2);

		out->status = sqlite3_column_int(s, 0);
		out->fetched_at = (time_t)sqlite3_column_int64(s, 1);
		out->data = xmalloc(len + 1);
		if (len)
			memcpy(out->data, blob, len);
		out->data[len] = '\0';
		out->len = len;
		*found = true;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, rc, e, "reading the lookup cache");
	return 0;
}

int store_cache_put(struct store *st, const char *key, const struct store_cache_entry *in,
		    struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	if (cache_key_ok(st, key, e) < 0)
		return -1;
	if (in->len > STORE_CACHE_DATA_MAX)
		return err_set(e, ERR_FINAL, "store %s: oversized cache entry", st->path);
	s = stmt(st, S_CACHE_PUT);
	bind_text(s, 1, key);
	sqlite3_bind_int(s, 2, in->status);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)in->fetched_at);
	sqlite3_bind_blob64(s, 4, in->len ? in->data : "", in->len, SQLITE_STATIC);
	rc = step_done(s);
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "writing the lookup cache");
}

int store_cache_prune(struct store *st, time_t before, long *deleted, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_CACHE_PRUNE);
	int rc;

	sqlite3_bind_int64(s, 1, (sqlite3_int64)before);
	rc = step_done(s);
	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "pruning the lookup cache");
	if (deleted)
		*deleted = (long)sqlite3_changes(st->db);
	return 0;
}

/* --- status ------------------------------------------------------------ */

int store_counts(struct store *st, struct store_counts *c, struct err *e)
{
	sqlite3_stmt *s = stmt(st, S_COUNT_MESSAGES);
	int rc = sqlite3_step(s);

	memset(c, 0, sizeof(*c));
	if (rc == SQLITE_ROW) {
		c->messages = (long)sqlite3_column_int64(s, 0);
		c->replied = (long)sqlite3_column_int64(s, 1);
		c->clean = (long)sqlite3_column_int64(s, 2);
		c->skipped = (long)sqlite3_column_int64(s, 3);
		c->errors = (long)sqlite3_column_int64(s, 4);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW)
		return db_err(st, rc, e, "counting messages");
	s = stmt(st, S_COUNT_OUTBOX);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		c->queued = (long)sqlite3_column_int64(s, 0);
		c->sent = (long)sqlite3_column_int64(s, 1);
		c->failed = (long)sqlite3_column_int64(s, 2);
	}
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? 0 : db_err(st, rc, e, "counting the outbox");
}

/* Prepared here, not with the others: only `tagbot status` runs it. */
int store_recent_errors(struct store *st, int max,
			void (*fn)(void *ctx, const struct store_error_row *r), void *ctx,
			struct err *e)
{
	static const char sql[] =
		"SELECT 'message', msgid, source || ' ' || folder || ' uid ' || uid, time"
		" FROM messages WHERE decision = 'error'"
		" UNION ALL SELECT 'reply', reply_msgid,"
		" state || ', ' || attempts || ' attempts: ' || last_error,"
		" coalesce(sent_time, next_attempt) FROM outbox WHERE last_error != ''"
		" ORDER BY 4 DESC LIMIT ?1";
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "listing errors");
	sqlite3_bind_int(s, 1, max);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_error_row r = {
			(const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
			(const char *)sqlite3_column_text(s, 2), (time_t)sqlite3_column_int64(s, 3),
		};
		fn(ctx, &r);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "listing errors");
}

/* --- the sink's state (schema 4) ----------------------------------------- */

void store_sink_state_release(struct store_sink_state *s)
{
	free(s->sink);
	free(s->reason);
	memset(s, 0, sizeof(*s));
}

int store_sink_state_put(struct store *st, const struct store_sink_state *in, struct err *e)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO sink_state (id, sink, state, reason, since, failures, next_try)"
		" VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "writing the sink's state");
	bind_text(s, 1, in->sink ? in->sink : "");
	bind_text(s, 2, in->failing ? "failing" : "ok");
	bind_text(s, 3, in->reason ? in->reason : "");
	sqlite3_bind_int64(s, 4, (sqlite3_int64)in->since);
	sqlite3_bind_int(s, 5, in->failures);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)in->next_try);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "writing the sink's state");
}

int store_sink_state_get(struct store *st, struct store_sink_state *out, bool *found,
			 struct err *e)
{
	static const char sql[] =
		"SELECT sink, state, reason, since, failures, next_try FROM sink_state WHERE id = 1";
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	store_sink_state_release(out);
	*found = false;
	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "reading the sink's state");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*found = true;
		out->sink = col_text(s, 0);
		out->failing = !strcmp((const char *)sqlite3_column_text(s, 1), "failing");
		out->reason = col_text(s, 2);
		out->since = (time_t)sqlite3_column_int64(s, 3);
		out->failures = sqlite3_column_int(s, 4);
		out->next_try = (time_t)sqlite3_column_int64(s, 5);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading the sink's state");
}

/* --- context, threads, series (schema 3) --------------------------------- */

/* These run a few times per message: prepared per call, which keeps the
 * statement table above for the hot paths. */
static int prep(struct store *st, const char *sql, sqlite3_stmt **s, struct err *e)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "preparing a statement");
}

/* Steps s to its end and finalizes it. */
static int run_done(struct store *st, sqlite3_stmt *s, const char *what, struct err *e)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

static char *col_text_or_null(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t && *t ? xstrdup((const char *)t) : NULL;
}

int store_context_put(struct store *st, const struct msg_context *c, struct err *e)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO context (msgid, subject, sender, kind, version, idx, total,"
		" change_id, in_reply_to, refs, list_id, time)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
	sqlite3_stmt *s;

	if (!c->message_id || !*c->message_id || strlen(c->message_id) > MSGID_MAX)
		return err_set(e, ERR_FINAL, "store %s: context without a usable Message-ID", st->path);
	if (prep(st, sql, &s, e) < 0)
		return -1;
	bind_text(s, 1, c->message_id);
	bind_text(s, 2, c->subject ? c->subject : "");
	bind_text(s, 3, c->sender ? c->sender : "");
	bind_text(s, 4, c->kind ? c->kind : "other");
	sqlite3_bind_int(s, 5, c->version);
	sqlite3_bind_int(s, 6, c->index);
	sqlite3_bind_int(s, 7, c->total);
	bind_text(s, 8, c->change_id);
	bind_text(s, 9, c->in_reply_to);
	bind_text(s, 10, c->references);
	bind_text(s, 11, c->list_id);
	sqlite3_bind_int64(s, 12, (sqlite3_int64)c->time);
	return run_done(st, s, "recording a context", e);
}

#define CONTEXT_COLUMNS "msgid, subject, sender, kind, version, idx, total, change_id," \
			" in_reply_to, refs, list_id, time"

static void fill_context(sqlite3_stmt *s, struct msg_context *c)
{
	msg_context_release(c);
	c->message_id = col_text(s, 0);
	c->subject = col_text(s, 1);
	c->sender = col_text(s, 2);
	c->kind = col_text(s, 3);
	c->version = sqlite3_column_int(s, 4);
	c->index = sqlite3_column_int(s, 5);
	c->total = sqlite3_column_int(s, 6);
	c->change_id = col_text_or_null(s, 7);
	c->in_reply_to = col_text_or_null(s, 8);
	c->references = col_text_or_null(s, 9);
	c->list_id = col_text_or_null(s, 10);
	c->time = (time_t)sqlite3_column_int64(s, 11);
}

int store_context_get(struct store *st, const char *msgid, struct msg_context *out,
		      bool *found, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	msg_context_release(out);
	*found = false;
	if (!key)
		return -1;
	if (prep(st, "SELECT " CONTEXT_COLUMNS " FROM context WHERE msgid = ?1", &s, e) < 0) {
		free(key);
		return -1;
	}
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		fill_context(s, out);
		*found = true;
	}
	sqlite3_finalize(s);
	free(key);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a context");
}

int store_context_prune(struct store *st, time_t before, long *deleted, struct err *e)
{
	static const char *const sql[] = {
		"DELETE FROM context WHERE time < ?1",
		"DELETE FROM thread_state WHERE time < ?1",
		"DELETE FROM series_member WHERE series IN (SELECT id FROM series"
		" WHERE first_time < ?1 AND state != 'pending')",
		"DELETE FROM series WHERE first_time < ?1 AND state != 'pending'",
		"DELETE FROM told WHERE t < ?1 AND about != ''",
	};
	sqlite3_stmt *s;

	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		if (prep(st, sql[i], &s, e) < 0)
			return -1;
		sqlite3_bind_int64(s, 1, (sqlite3_int64)before);
		if (run_done(st, s, "pruning the context", e) < 0)
			return -1;
		if (i == 0 && deleted)
			*deleted = (long)sqlite3_changes(st->db);
	}
	return 0;
}

int store_context_related(struct store *st, const struct msg_context *c, time_t since,
			  void (*fn)(void *ctx, const struct msg_context *row), void *ctx,
			  struct err *e)
{
	static const char sql[] =
		"SELECT " CONTEXT_COLUMNS " FROM context WHERE msgid != ?1 AND ("
		" msgid = ?2"
		" OR instr(' ' || ?3 || ' ', ' ' || msgid || ' ') > 0"
		" OR in_reply_to = ?1"
		" OR instr(' ' || refs || ' ', ' ' || ?1 || ' ') > 0"
		" OR in_reply_to = ?2"
		" OR (sender = ?4 AND version = ?5 AND total = ?6 AND time >= ?7))"
		" ORDER BY time LIMIT ?8";
	struct msg_context row;
	sqlite3_stmt *s;
	int rc;

	if (prep(st, sql, &s, e) < 0)
		return -1;
	bind_text(s, 1, c->message_id ? c->message_id : "");
	bind_text(s, 2, c->in_reply_to);
	bind_text(s, 3, c->references);
	bind_text(s, 4, c->sender ? c->sender : "");
	sqlite3_bind_int(s, 5, c->version);
	sqlite3_bind_int(s, 6, c->total);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)since);
	sqlite3_bind_int(s, 8, STORE_RELATED_MAX);
	msg_context_init(&row);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		fill_context(s, &row);
		fn(ctx, &row);
	}
	msg_context_release(&row);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading related contexts");
}

int store_thread_quiet_get(struct store *st, const char *root, bool *quiet, struct err *e)
{
	char *key = key_or_err(st, root, e);
	sqlite3_stmt *s;
	int rc;

	*quiet = false;
	if (!key)
		return -1;
	if (prep(st, "SELECT quiet FROM thread_state WHERE root = ?1", &s, e) < 0) {
		free(key);
		return -1;
	}
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*quiet = sqlite3_column_int(s, 0) != 0;
	sqlite3_finalize(s);
	free(key);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a thread");
}

int store_thread_quiet_set(struct store *st, const char *root, time_t now, struct err *e)
{
	char *key = key_or_err(st, root, e);
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	rc = prep(st, "INSERT OR REPLACE INTO thread_state (root, quiet, time) VALUES (?1, 1, ?2)",
		  &s, e);
	if (rc == 0) {
		bind_text(s, 1, key);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)now);
		rc = run_done(st, s, "recording a quiet thread", e);
	}
	free(key);
	return rc;
}

static const char *const series_state_names[] = {
	[STORE_SERIES_PASSIVE] = "passive",
	[STORE_SERIES_PENDING] = "pending",
	[STORE_SERIES_DONE] = "done",
};

static enum store_series_state series_state_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(series_state_names); i++)
		if (s && !strcmp(s, series_state_names[i]))
			return (enum store_series_state)i;
	return STORE_SERIES_DONE;
}

void store_series_release(struct store_series *s)
{
	free(s->id);
	free(s->sender);
	memset(s, 0, sizeof(*s));
}

int store_series_of(struct store *st, const char *msgid, char **id, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	*id = NULL;
	if (!key)
		return -1;
	if (prep(st, "SELECT series FROM series_member WHERE msgid = ?1", &s, e) < 0) {
		free(key);
		return -1;
	}
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = col_text(s, 0);
	sqlite3_finalize(s);
	free(key);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a series");
}

int store_series_get(struct store *st, const char *id, struct store_series *out, bool *found,
		     struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	store_series_release(out);
	*found = false;
	if (prep(st, "SELECT id, version, total, sender, first_time, deadline, state FROM series"
		 " WHERE id = ?1", &s, e) < 0)
		return -1;
	bind_text(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->id = col_text(s, 0);
		out->version = sqlite3_column_int(s, 1);
		out->total = sqlite3_column_int(s, 2);
		out->sender = col_text(s, 3);
		out->first_time = (time_t)sqlite3_column_int64(s, 4);
		out->deadline = (time_t)sqlite3_column_int64(s, 5);
		out->state = series_state_parse((const char *)sqlite3_column_text(s, 6));
		*found = true;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a series");
}

int store_series_create(struct store *st, const struct store_series *in, struct err *e)
{
	sqlite3_stmt *s;

	if (!in->id || !*in->id)
		return err_set(e, ERR_FINAL, "store %s: a series without a name", st->path);
	if (prep(st, "INSERT INTO series (id, version, total, sender, first_time, deadline, state)"
		 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &s, e) < 0)
		return -1;
	bind_text(s, 1, in->id);
	sqlite3_bind_int(s, 2, in->version);
	sqlite3_bind_int(s, 3, in->total);
	bind_text(s, 4, in->sender ? in->sender : "");
	sqlite3_bind_int64(s, 5, (sqlite3_int64)in->first_time);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)in->deadline);
	bind_text(s, 7, series_state_names[(unsigned)in->state <= STORE_SERIES_DONE ? in->state
									    : STORE_SERIES_DONE]);
	return run_done(st, s, "creating a series", e);
}

int store_series_add(struct store *st, const char *id, const char *msgid, int index, time_t t,
		     const char *raw, size_t len, const char *findings, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	rc = prep(st, "INSERT OR REPLACE INTO series_member (msgid, series, idx, time, raw,"
		  " findings) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &s, e);
	if (rc == 0) {
		bind_text(s, 1, key);
		bind_text(s, 2, id);
		sqlite3_bind_int(s, 3, index);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)t);
		if (raw && len <= STORE_SERIES_RAW_MAX)
			sqlite3_bind_blob64(s, 5, len ? raw : "", len, SQLITE_STATIC);
		else
			sqlite3_bind_null(s, 5);
		bind_text(s, 6, raw && len <= STORE_SERIES_RAW_MAX ? findings : NULL);
		rc = run_done(st, s, "adding to a series", e);
	}
	free(key);
	return rc;
}

int store_series_merge(struct store *st, const char *into, const char *from, struct err *e)
{
	static const char *const sql[] = {
		"UPDATE series SET first_time = min(first_time, (SELECT first_time FROM series"
		" WHERE id = ?2)), deadline = min(deadline, (SELECT deadline FROM series"
		" WHERE id = ?2)) WHERE id = ?1 AND EXISTS (SELECT 1 FROM series WHERE id = ?2)",
		"UPDATE series_member SET series = ?1 WHERE series = ?2",
		"DELETE FROM series WHERE id = ?2",
	};
	sqlite3_stmt *s;

	if (!strcmp(into, from))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		if (prep(st, sql[i], &s, e) < 0)
			return -1;
		bind_text(s, 1, into);
		bind_text(s, 2, from);
		if (run_done(st, s, "merging series", e) < 0)
			return -1;
	}
	return 0;
}

int store_series_members(struct store *st, const char *id,
			 void (*fn)(void *ctx, const struct store_series_member *m), void *ctx,
			 struct err *e)
{
	struct store_series_member m;
	sqlite3_stmt *s;
	int rc;

	if (prep(st, "SELECT msgid, idx, time, raw, findings FROM series_member WHERE series = ?1"
		 " ORDER BY idx, time", &s, e) < 0)
		return -1;
	bind_text(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		m.msgid = (const char *)sqlite3_column_text(s, 0);
		m.index = sqlite3_column_int(s, 1);
		m.time = (time_t)sqlite3_column_int64(s, 2);
		m.raw = sqlite3_column_type(s, 3) == SQLITE_NULL ? NULL
				: (const char *)sqlite3_column_blob(s, 3);
		m.len = (size_t)sqlite3_column_bytes(s, 3);
		if (!m.raw)
			m.len = 0;
		m.findings = (const char *)sqlite3_column_text(s, 4);
		fn(ctx, &m);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a series");
}

int store_series_set_state(struct store *st, const char *id, enum store_series_state state,
			   struct err *e)
{
	sqlite3_stmt *s;

	if ((unsigned)state > STORE_SERIES_DONE)
		return err_set(e, ERR_FINAL, "store %s: bad series state", st->path);
	if (prep(st, "UPDATE series SET state = ?2 WHERE id = ?1", &s, e) < 0)
		return -1;
	bind_text(s, 1, id);
	bind_text(s, 2, series_state_names[state]);
	if (run_done(st, s, "updating a series", e) < 0)
		return -1;
	if (state != STORE_SERIES_DONE)
		return 0;
	/* The raw mails were kept for the reply only. */
	if (prep(st, "UPDATE series_member SET raw = NULL, findings = NULL WHERE series = ?1",
		 &s, e) < 0)
		return -1;
	bind_text(s, 1, id);
	return run_done(st, s, "updating a series", e);
}

int store_series_set_deadline(struct store *st, const char *id, time_t deadline,
			      struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, "UPDATE series SET deadline = ?2 WHERE id = ?1", &s, e) < 0)
		return -1;
	bind_text(s, 1, id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)deadline);
	return run_done(st, s, "updating a series", e);
}

/* The first column of sql's first row (?1 = now) into *out, malloc'ed;
 * NULL when there is none. */
static int first_text(struct store *st, const char *sql, time_t now, char **out,
		      const char *what, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	if (prep(st, sql, &s, e) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)now);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = col_text(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

/* sql's one value, a time, into *when; *found false when it is NULL. */
static int first_time(struct store *st, const char *sql, time_t *when, bool *found,
		      const char *what, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*found = false;
	*when = 0;
	if (prep(st, sql, &s, e) < 0)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*when = (time_t)sqlite3_column_int64(s, 0);
		*found = true;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

int store_series_next_due(struct store *st, time_t now, char **id, struct err *e)
{
	return first_text(st, "SELECT id FROM series WHERE state = 'pending' AND deadline <= ?1"
			  " ORDER BY deadline LIMIT 1", now, id, "reading due series", e);
}

int store_series_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	return first_time(st, "SELECT min(deadline) FROM series WHERE state = 'pending'", when,
			  found, "reading due series", e);
}

static int mark_lead_replied(struct store *st, const char *lead, const char *reply_key,
			     struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, "UPDATE messages SET decision = 'replied', reply_msgid = ?2 WHERE msgid = ?1",
		 &s, e) < 0)
		return -1;
	bind_text(s, 1, lead);
	bind_text(s, 2, reply_key);
	if (run_done(st, s, "recording a series reply", e) < 0)
		return -1;
	if (sqlite3_changes(st->db) != 1)
		return err_set(e, ERR_FINAL, "store %s: the series' lead <%s> is not recorded",
			       st->path, lead);
	return 0;
}

/* The body of store_series_queue_reply, inside its transaction. */
static int series_reply_tx(struct store *st, const char *id, const struct store_outgoing *o,
			   const char *rcpt, const char *lead, const char *reply_key,
			   time_t now, enum store_enqueue *res, struct err *e)
{
	int rc = insert_outbox(st, reply_key, lead, o, rcpt, now);

	*res = STORE_QUEUED;
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		*res = STORE_ALREADY_QUEUED;
	else if (rc != SQLITE_OK)
		return db_err(st, rc, e, "queueing a series reply");
	else if (mark_lead_replied(st, lead, reply_key, e) < 0)
		return -1;
	return store_series_set_state(st, id, STORE_SERIES_DONE, e);
}

/* The body of a grouped reply's queueing (series_reply_tx, held_reply_tx),
 * run inside its transaction; id names the group. */
typedef int reply_tx_fn(struct store *st, const char *id, const struct store_outgoing *o,
			const char *list, const char *lead, const char *reply_key, time_t now,
			enum store_enqueue *res, struct err *e);

/* Queues o for the group id in one transaction, by tx. */
static int queue_grouped(struct store *st, const char *id, const struct store_outgoing *o,
			 time_t now, enum store_enqueue *res, reply_tx_fn *tx, struct err *e)
{
	char *lead = msgid_key(o->parent_msgid), *reply_key = msgid_key(o->reply_msgid);
	struct buf list;
	int rc = -1;

	buf_init(&list, 64 * 1024);
	if (!lead || !reply_key)
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
	else if (!o->raw || o->len == 0 || o->len > STORE_REPLY_MAX)
		err_set(e, ERR_FINAL, "store %s: empty or oversized reply", st->path);
	else if (join_rcpt(st, o, &list, e) == 0 && store_begin(st, e) == 0) {
		rc = tx(st, id, o, list.data, lead, reply_key, now, res, e);
		if (rc == 0)
			rc = store_commit(st, e);
		else
			store_rollback(st);
	}
	free(lead);
	free(reply_key);
	buf_release(&list);
	return rc;
}

int store_series_queue_reply(struct store *st, const char *id,
			     const struct store_outgoing *o, time_t now,
			     enum store_enqueue *res, struct err *e)
{
	return queue_grouped(st, id, o, now, res, series_reply_tx, e);
}

/* --- replies held by a rate limit ------------------------------------- */

int store_held_add(struct store *st, const struct store_held *h, time_t deadline,
		   struct err *e)
{
	char *key = key_or_err(st, h->msgid, e);
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	if (!h->raw || h->len > STORE_SERIES_RAW_MAX) {
		free(key);
		return err_set(e, ERR_FINAL, "store %s: <%s>: no mail or too large to hold",
			       st->path, h->msgid);
	}
	rc = prep(st, "INSERT OR REPLACE INTO held (msgid, rcpt, time, deadline, raw, findings)"
		  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &s, e);
	if (rc == 0) {
		bind_text(s, 1, key);
		bind_text(s, 2, h->rcpt);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)h->time);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)deadline);
		sqlite3_bind_blob64(s, 5, h->len ? h->raw : "", h->len, SQLITE_STATIC);
		bind_text(s, 6, h->findings ? h->findings : "");
		rc = run_done(st, s, "holding a reply", e);
	}
	free(key);
	return rc < 0 ? -1 : store_held_set_deadline(st, h->rcpt, deadline, e);
}

int store_held_next_due(struct store *st, time_t now, char **rcpt, struct err *e)
{
	return first_text(st, "SELECT rcpt FROM held WHERE deadline <= ?1"
			  " ORDER BY deadline, time LIMIT 1", now, rcpt, "reading held replies", e);
}

int store_held_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	return first_time(st, "SELECT min(deadline) FROM held", when, found,
			  "reading held replies", e);
}

int store_held_members(struct store *st, const char *rcpt,
		       void (*fn)(void *ctx, const struct store_held *h), void *ctx,
		       struct err *e)
{
	struct store_held h;
	sqlite3_stmt *s;
	int rc;

	if (prep(st, "SELECT msgid, time, raw, findings FROM held WHERE rcpt = ?1"
		 " ORDER BY time, msgid", &s, e) < 0)
		return -1;
	bind_text(s, 1, rcpt);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		h.msgid = (const char *)sqlite3_column_text(s, 0);
		h.rcpt = rcpt;
		h.time = (time_t)sqlite3_column_int64(s, 1);
		h.raw = (const char *)sqlite3_column_blob(s, 2);
		h.len = (size_t)sqlite3_column_bytes(s, 2);
		h.findings = (const char *)sqlite3_column_text(s, 3);
		fn(ctx, &h);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading held replies");
}

/* One statement over rcpt's held rows: ?1 rcpt, ?2 (when the statement has
 * it) n, or text when not NULL. */
static int held_update(struct store *st, const char *sql, const char *rcpt, sqlite3_int64 n,
		       const char *text, const char *what, struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, sql, &s, e) < 0)
		return -1;
	bind_text(s, 1, rcpt);
	if (text)
		bind_text(s, 2, text);
	else
		sqlite3_bind_int64(s, 2, n);
	return run_done(st, s, what, e);
}

int store_held_set_deadline(struct store *st, const char *rcpt, time_t deadline,
			    struct err *e)
{
	return held_update(st, "UPDATE held SET deadline = ?2 WHERE rcpt = ?1", rcpt,
			   (sqlite3_int64)deadline, NULL, "moving held replies", e);
}

int store_held_drop(struct store *st, const char *rcpt, struct err *e)
{
	return held_update(st, "DELETE FROM held WHERE rcpt = ?1", rcpt, 0, NULL,
			   "dropping held replies", e);
}

/* The body of store_held_queue_reply, inside its transaction. */
static int held_reply_tx(struct store *st, const char *rcpt, const struct store_outgoing *o,
			 const char *list, const char *lead, const char *reply_key, time_t now,
			 enum store_enqueue *res, struct err *e)
{
	int rc = insert_outbox(st, reply_key, lead, o, list, now);

	*res = STORE_QUEUED;
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		*res = STORE_ALREADY_QUEUED;
	else if (rc != SQLITE_OK)
		return db_err(st, rc, e, "queueing a held reply");
	else if (held_update(st, "UPDATE messages SET decision = 'replied', reply_msgid = ?2"
			     " WHERE msgid IN (SELECT msgid FROM held WHERE rcpt = ?1)", rcpt, 0,
			     reply_key, "recording a held reply", e) < 0)
		return -1;
	return store_held_drop(st, rcpt, e);
}

int store_held_queue_reply(struct store *st, const char *rcpt, const struct store_outgoing *o,
			   time_t now, enum store_enqueue *res, struct err *e)
{
	return queue_grouped(st, rcpt, o, now, res, held_reply_tx, e);
}

/* --- what a person was told ---------------------------------------------- */

int store_told_get(struct store *st, const char *person, const char *rule, const char *about,
		   time_t *t, bool *found, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*found = false;
	*t = 0;
	if (prep(st, "SELECT t FROM told WHERE person = ?1 AND rule = ?2 AND about = ?3", &s,
		 e) < 0)
		return -1;
	bind_text(s, 1, person);
	bind_text(s, 2, rule);
	bind_text(s, 3, about);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*t = (time_t)sqlite3_column_int64(s, 0);
		*found = true;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading told");
}

int store_told_set(struct store *st, const char *person, const char *rule, const char *about,
		   time_t t, struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, "INSERT OR REPLACE INTO told (person, rule, about, t) VALUES (?1, ?2, ?3, ?4)",
		 &s, e) < 0)
		return -1;
	bind_text(s, 1, person);
	bind_text(s, 2, rule);
	bind_text(s, 3, about);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)t);
	return run_done(st, s, "recording told", e);
}

/* --- rate windows --------------------------------------------------------- */

int store_rate_note(struct store *st, const char *key, time_t t, struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, "INSERT INTO rate_events (key, t) VALUES (?1, ?2)", &s, e) < 0)
		return -1;
	bind_text(s, 1, key ? key : "");
	sqlite3_bind_int64(s, 2, (sqlite3_int64)t);
	return run_done(st, s, "recording a rate event", e);
}

int store_rate_prune(struct store *st, time_t before, struct err *e)
{
	sqlite3_stmt *s;

	if (prep(st, "DELETE FROM rate_events WHERE t < ?1", &s, e) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)before);
	return run_done(st, s, "pruning rate events", e);
}

int store_rate_load(struct store *st, time_t since,
		    void (*fn)(void *ctx, const char *key, time_t t), void *ctx, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	if (store_rate_prune(st, since, e) < 0)
		return -1;
	if (prep(st, "SELECT key, t FROM rate_events ORDER BY t, rowid", &s, e) < 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		fn(ctx, (const char *)sqlite3_column_text(s, 0), (time_t)sqlite3_column_int64(s, 1));
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading rate events");
}

int store_message_forget(struct store *st, const char *msgid, const char *decision,
			 bool *forgot, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	if (forgot)
		*forgot = false;
	if (!key)
		return -1;
	if (prep(st, "DELETE FROM messages WHERE msgid = ?1 AND decision = ?2"
		 " AND decision <> 'replied'", &s, e) < 0) {
		free(key);
		return -1;
	}
	bind_text(s, 1, key);
	bind_text(s, 2, decision);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	free(key);
	if (rc != SQLITE_DONE)
		return db_err(st, rc, e, "forgetting a decision");
	if (forgot)
		*forgot = sqlite3_changes(st->db) > 0;
	return 0;
}

/* Added for maintainer Cc mode (daemon_cc.c): was the patch answered? */
int store_message_decision(struct store *st, const char *msgid, char *out, size_t size,
			   bool *found, struct err *e)
{
	char *key = key_or_err(st, msgid, e);
	sqlite3_stmt *s;
	int rc;

	*found = false;
	if (size)
		out[0] = '\0';
	if (!key)
		return -1;
	if (prep(st, "SELECT decision FROM messages WHERE msgid = ?1", &s, e) < 0) {
		free(key);
		return -1;
	}
	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);

		*found = true;
		if (size)
			snprintf(out, size, "%s", v ? (const char *)v : "");
	}
	sqlite3_finalize(s);
	free(key);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, rc, e, "reading a decision");
}
