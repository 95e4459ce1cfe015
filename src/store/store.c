/*
 * store.c - opening, migrating and closing the store on either engine,
 * snapshotting, transactions, and the statement helpers the table files
 * share (store_p.h).  The tables' own functions live in messages.c,
 * outbox.c, series.c, cache.c and limits.c; the schema in schema.c.
 */
#include "autoconf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mail/msgid.h"
#include "store/store_p.h"

/* The hot statements, prepared once at open (enum stmt_id, store_p.h). */
static const char *const stmt_sql[S_COUNT] = {
	[S_SEEN] = "SELECT 1 FROM messages WHERE msgid = ?1",
	[S_FIRST_TIME] = "SELECT min(time) FROM messages WHERE source = ?1 AND folder = ?2",
	[S_INSERT_MESSAGE] =
		"INSERT INTO messages (msgid, source, folder, uid, kind, decision, reply_msgid, time)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (msgid) DO NOTHING",
	[S_INSERT_OUTBOX] =
		"INSERT INTO outbox (reply_msgid, parent_msgid, envelope_from, recipients, raw,"
		" next_attempt, created) VALUES (?1, ?2, ?3, ?4, ?5,"
		" CASE WHEN ?7 > ?6 THEN ?7 ELSE ?6 END, ?6) ON CONFLICT (parent_msgid) DO NOTHING",
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
		" ORDER BY next_attempt, created LIMIT 1",	/* + claim_rows */
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
		"UPDATE outbox SET attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,"
		" next_attempt = ?2, last_error = ?3"
		" WHERE reply_msgid = ?1 AND state = 'queued'",
	[S_COUNT_MESSAGES] =
		"SELECT count(*), count(*) FILTER (WHERE decision = 'replied'),"
		" count(*) FILTER (WHERE decision = 'clean'),"
		" count(*) FILTER (WHERE decision LIKE 'skipped:%'),"
		" count(*) FILTER (WHERE decision = 'error') FROM messages",
	[S_COUNT_OUTBOX] =
		"SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'sent'),"
		" count(*) FILTER (WHERE state = 'failed') FROM outbox",
	[S_CACHE_GET] = "SELECT status, fetched_at, result FROM lookup_cache WHERE url = ?1",
	[S_CACHE_PUT] =
		"INSERT INTO lookup_cache (url, status, fetched_at, result) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (url) DO UPDATE SET status = ?2, fetched_at = ?3, result = ?4",
	[S_CACHE_PRUNE] = "DELETE FROM lookup_cache WHERE fetched_at < ?1",
};

void store_settings_init(struct store_settings *s)
{
	s->path = NULL;
	s->password = NULL;
	s->busy_timeout_ms = 5000;
}

bool store_is_url(const char *path)
{
	return path && (!strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11));
}

int db_err(struct store *st, struct err *e, const char *what)
{
	return err_set(e, st->db->drv->errclass(st->db), "store %s: %s: %s", st->path, what,
		       st->db->drv->errmsg(st->db));
}

int db_exec(struct store *st, const char *sql, struct err *e)
{
	return db_exec_sql(st->db, sql) == DB_OK ? 0 : db_err(st, e, sql);
}

struct db_stmt *db_stmt(struct store *st, enum stmt_id id)
{
	struct db_stmt *s = st->stmt[id];

	db_reset(s);
	return s;
}

int db_step_done(struct db_stmt *s)
{
	int rc = db_step(s);

	db_reset(s);
	return rc == DB_ERROR ? DB_ERROR : DB_OK;
}

char *db_col_text(struct db_stmt *s, int i)
{
	const char *t = db_col_str(s, i);

	return xstrdup(t ? t : "");
}

char *db_col_text_or_null(struct db_stmt *s, int i)
{
	const char *t = db_col_str(s, i);

	return t && *t ? xstrdup(t) : NULL;
}

/* --- open, migrate, close ---------------------------------------------- */

static int migrate_step(struct store *st, int v, struct err *e)
{
	char *sql = schema_step(st->db->drv, v);
	int rc;

	if (!sql)
		return err_set(e, ERR_FINAL, "store %s: no way from schema version %d", st->path, v);
	rc = db_exec(st, sql, e);
	free(sql);
	if (rc < 0)
		return -1;
	return st->db->drv->set_version(st->db, v + 1) == DB_OK ? 0
		: db_err(st, e, "writing the schema version");
}

/* Each step runs in its own transaction, locked against another process
 * (SQLite: IMMEDIATE; PostgreSQL: an advisory lock), and re-reads the
 * version inside it, so two processes opening a new database at once do
 * not both create the tables. */
static int migrate(struct store *st, struct err *e)
{
	int v = 0;

	for (;;) {
		if (db_exec(st, st->db->drv->begin_migration, e) < 0)
			return -1;
		if (st->db->drv->get_version(st->db, &v) != DB_OK) {
			db_err(st, e, "reading the schema version");
			goto fail;
		}
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
	db_exec_sql(st->db, "ROLLBACK");
	return -1;
}

static int prepare_all(struct store *st, struct err *e)
{
	for (int i = 0; i < S_COUNT; i++) {
		struct buf sql;
		int rc;

		buf_init(&sql, 0);
		buf_addstr(&sql, stmt_sql[i]);
		if (i == S_OUTBOX_DUE)
			buf_addstr(&sql, st->db->drv->claim_rows);
		rc = db_prepare(st->db, sql.data, true, &st->stmt[i]);
		buf_release(&sql);
		if (rc != DB_OK)
			return db_err(st, e, "preparing statements");
	}
	return 0;
}

/* Builds the schema in the file at tmp; messages name path. */
static int build(const char *tmp, const char *path, struct err *e)
{
	struct store st = { .path = (char *)path };
	int rc;

	st.db = db_sqlite_open(tmp, 5000, DB_SQLITE_BUILD, e);
	if (!st.db)
		return -1;
	rc = migrate(&st, e);
	st.db->drv->close(st.db);
	return rc;
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

/* The password in a URL's user part or in a password= parameter, as ***. */
char *store_mask_url(const char *url)
{
	const char *rest = strstr(url, "://"), *at, *colon, *p;
	struct buf b;

	buf_init(&b, 0);
	if (!rest)
		return xstrdup(url);
	rest += 3;
	at = strchr(rest, '@');
	if (at && at > strpbrk(rest, "/?") && strpbrk(rest, "/?"))
		at = NULL;	/* an @ past the host is not the user part's */
	colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
	if (colon) {
		buf_add(&b, url, (size_t)(colon + 1 - url));
		buf_addstr(&b, "***");
		url = at;
	}
	while ((p = strstr(url, "password="))) {
		buf_add(&b, url, (size_t)(p + 9 - url));
		buf_addstr(&b, "***");
		url = p + 9 + strcspn(p + 9, "&");
	}
	buf_addstr(&b, url);
	return buf_detach(&b, NULL);
}

static int open_db(struct store *st, const struct store_settings *s, int busy_ms, struct err *e)
{
	int rc;

	if (store_is_url(s->path)) {
		st->db = db_pg_open(s->path, s->password, st->path, busy_ms, e);
		return st->db ? 0 : -1;
	}
	rc = db_sqlite_check_file(s->path, e);
	if (rc == DB_FILE_NONE)
		rc = create_file(s->path, e);
	if (rc < 0)
		return -1;
	st->db = db_sqlite_open(s->path, busy_ms, DB_SQLITE_STATE, e);
	return st->db ? 0 : -1;
}

int store_open(struct store **out, const struct store_settings *s, struct err *e)
{
	int busy_ms = s->busy_timeout_ms > 0 ? s->busy_timeout_ms : 5000;
	struct store *st;

	*out = NULL;
	if (!s->path || !*s->path)
		return err_set(e, ERR_FINAL, "store: no database path configured");
	st = xcalloc(1, sizeof(*st));
	st->path = store_is_url(s->path) ? store_mask_url(s->path) : xstrdup(s->path);
	if (open_db(st, s, busy_ms, e) < 0 || migrate(st, e) < 0 || prepare_all(st, e) < 0) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

enum store_snapshot store_snapshot(const char *from, const char *to, int busy_timeout_ms,
				   struct err *e)
{
	if (store_is_url(from)) {
		err_set(e, ERR_FINAL, "store: a dry run copies an SQLite state only, not %s",
			"a PostgreSQL one");
		return STORE_SNAPSHOT_FAILED;
	}
	switch (db_sqlite_snapshot(from, to, busy_timeout_ms > 0 ? busy_timeout_ms : 5000, e)) {
	case DB_FILE_OK:
		return STORE_SNAPSHOT_TAKEN;
	case DB_FILE_NONE:
		return STORE_SNAPSHOT_NO_FILE;
	default:
		return STORE_SNAPSHOT_FAILED;
	}
}

void store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < S_COUNT; i++)
		db_finalize(st->stmt[i]);
	if (st->db)
		st->db->drv->close(st->db);
	free(st->path);
	free(st);
}

/* --- transactions ------------------------------------------------------ */

int store_begin(struct store *st, struct err *e)
{
	if (db_exec(st, st->depth ? "SAVEPOINT tb" : st->db->drv->begin, e) < 0)
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
		db_exec_sql(st->db, "ROLLBACK TO tb; RELEASE tb");
	else
		db_exec_sql(st->db, "ROLLBACK");
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
int db_prep(struct store *st, const char *sql, struct db_stmt **s, struct err *e)
{
	return db_prepare(st->db, sql, false, s) == DB_OK ? 0
		: db_err(st, e, "preparing a statement");
}

int db_prep_key(struct store *st, const char *sql, const char *msgid, struct db_stmt **s,
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

int db_run_done(struct store *st, struct db_stmt *s, const char *what, struct err *e)
{
	int rc = db_step(s);

	/* The message before finalize: PostgreSQL's lives in the result. */
	if (rc == DB_ERROR)
		db_err(st, e, what);
	db_finalize(s);
	return rc == DB_ERROR ? -1 : 0;
}

int db_row_end(struct store *st, struct db_stmt *s, int rc, const char *what, struct err *e)
{
	if (rc == DB_ERROR)
		db_err(st, e, what);
	db_finalize(s);
	return rc == DB_ERROR ? -1 : 0;
}

int db_first_text(struct store *st, const struct db_query *q, time_t now, char **out,
		  struct err *e)
{
	struct db_stmt *s;
	int rc;

	*out = NULL;
	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, (int64_t)now);
	rc = db_step(s);
	if (rc == DB_ROW)
		*out = db_col_text(s, 0);
	return db_row_end(st, s, rc, q->what, e);
}

int db_first_time(struct store *st, const struct db_query *q, time_t *when, bool *found,
		  struct err *e)
{
	struct db_stmt *s;
	int rc;

	*found = false;
	*when = 0;
	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW && !db_col_null(s, 0)) {
		*when = (time_t)db_col_int64(s, 0);
		*found = true;
	}
	return db_row_end(st, s, rc, q->what, e);
}

int db_waiting(struct store *st, const struct db_query *q, time_t now, size_t max,
	       store_waiting_fn *fn, void *ctx, struct err *e)
{
	struct store_waiting w;
	struct db_stmt *s;
	int rc;

	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, (int64_t)now);
	db_bind_int64(s, 2, (int64_t)max);
	while ((rc = db_step(s)) == DB_ROW) {
		w.who = db_col_str(s, 0);
		w.since = (time_t)db_col_int64(s, 1);
		fn(ctx, &w);
	}
	return db_row_end(st, s, rc, q->what, e);
}

int db_postpone(struct store *st, const struct db_query *q, time_t now, time_t until,
		struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, (int64_t)now);
	db_bind_int64(s, 2, (int64_t)until);
	return db_run_done(st, s, q->what, e);
}
