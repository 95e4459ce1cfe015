/*
 * schema.c - the store's tables and the steps that migrate them in place,
 * written once for both engines: the one file that knows where their DDL
 * differs.
 */
#include "autoconf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_p.h"

/*
 * The steps, in SQLite's words: steps[v] takes a database from version v to
 * v+1.  A new version appends a step; a step is never edited once released.
 */
static const char *const steps[STORE_SCHEMA_VERSION] = {
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
	/* 5 -> 6: told remembers what a finding pointed at, not the patch; a
	 * patch's subject is no finding's key, so those rows go */
	"DELETE FROM told WHERE about != '';"
	"ALTER TABLE told RENAME COLUMN about TO what;",
	/* 6 -> 7: the rate windows are counted in the store, one key's events
	 * at a time (two daemons on one state keep the limits together) */
	"CREATE INDEX rate_events_key ON rate_events (key, t);",
	/* 7 -> 8: the mail a source listed but did not deliver whole */
	"CREATE TABLE unread ("
	"  source TEXT NOT NULL,"
	"  folder TEXT NOT NULL,"
	"  uid INTEGER NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('retry', 'unavailable', 'too-large')),"
	"  tries INTEGER NOT NULL,"
	"  next_try INTEGER NOT NULL,"
	"  size INTEGER NOT NULL,"
	"  reason TEXT NOT NULL,"
	"  time INTEGER NOT NULL,"
	"  PRIMARY KEY (source, folder, uid));"
	"CREATE INDEX unread_time ON unread (time);",
	/* 8 -> 9: what may belong in one series with a message, each way by
	 * an index: the References of each context row one a row (the replies
	 * to a message), the series members by their In-Reply-To (siblings in
	 * another series than those found), the window's unthreaded mail apart
	 * from the threaded; two indexes no query reads go */
	"CREATE TABLE context_ref ("
	"  msgid TEXT NOT NULL,"
	"  ref TEXT NOT NULL,"
	"  PRIMARY KEY (msgid, ref)) WITHOUT ROWID;"
	"CREATE INDEX context_ref_ref ON context_ref (ref);"
	"DROP INDEX context_series;"
	"DROP INDEX context_change;"
	"DROP INDEX context_work;"
	"CREATE INDEX context_unthreaded ON context (sender, version, total, time)"
	"  WHERE in_reply_to IS NULL AND refs IS NULL;"
	"ALTER TABLE series_member ADD COLUMN irt TEXT;"
	"UPDATE series_member SET irt = (SELECT in_reply_to FROM context c"
	"  WHERE c.msgid = series_member.msgid);"
	"CREATE INDEX series_member_irt ON series_member (irt, series, msgid);"
	"WITH RECURSIVE r (msgid, rest, id) AS ("
	"  SELECT msgid, refs || ' ', CAST('' AS TEXT) FROM context WHERE refs IS NOT NULL"
	"  AND kind IN ('patch', 'cover') AND total >= 1"
	"  UNION ALL SELECT msgid, substr(rest, instr(rest, ' ') + 1),"
	"    substr(rest, 1, instr(rest, ' ') - 1) FROM r WHERE rest != '')"
	" INSERT INTO context_ref (msgid, ref) SELECT DISTINCT msgid, id FROM r WHERE id != '';",
	/* 9 -> 10: the ranges of a folder daemons sharing the state took to
	 * read (claims.c) */
	"CREATE TABLE claims ("
	"  source TEXT NOT NULL,"
	"  folder TEXT NOT NULL,"
	"  lo INTEGER NOT NULL,"
	"  hi INTEGER NOT NULL,"
	"  done_to INTEGER NOT NULL,"
	"  validity INTEGER NOT NULL,"
	"  owner TEXT NOT NULL,"
	"  until INTEGER NOT NULL,"
	"  PRIMARY KEY (source, folder, lo));",
};

/*
 * PostgreSQL runs the same steps, their types translated (pg_types[]: an
 * SQLite INTEGER holds 64 bits, BLOB is bytea), each followed by what it
 * needs there besides (pg_extra[]): two names that bridge the dialects, so
 * the table files write a query once -- instr() (SQLite's; PostgreSQL
 * calls it strpos) and the rowid of rate_events and context (SQLite's
 * implicit one: the order of insertion, for ties of t and time).  The version is kept in
 * tagbot_schema (db_pg.c).
 */
static const struct {
	const char *sqlite, *pg;
} pg_types[] = {
	{ "INTEGER", "BIGINT" },
	{ "BLOB", "BYTEA" },
	{ " WITHOUT ROWID", "" },	/* a table that is its primary key: PostgreSQL has none */
};

static const char *const pg_extra[STORE_SCHEMA_VERSION] = {
	[0] = "CREATE FUNCTION instr(text, text) RETURNS integer"
	      " LANGUAGE sql IMMUTABLE STRICT AS 'SELECT strpos($1, $2)';",
	[3] = "ALTER TABLE rate_events ADD COLUMN rowid BIGSERIAL;",
	[8] = "ALTER TABLE context ADD COLUMN rowid BIGSERIAL;",
};

static bool word_at(const char *p, const char *start, const char *w, size_t n)
{
	return !strncmp(p, w, n) && (p == start || !isalnum((unsigned char)p[-1])) &&
	       !isalnum((unsigned char)p[n]);
}

/* sql with SQLite's type names replaced by PostgreSQL's, malloc'ed. */
static char *pg_translate(const char *sql)
{
	struct buf b;

	buf_init(&b, 0);
	for (const char *p = sql; *p;) {
		size_t i = 0;

		while (i < ARRAY_SIZE(pg_types) &&
		       !word_at(p, sql, pg_types[i].sqlite, strlen(pg_types[i].sqlite)))
			i++;
		if (i < ARRAY_SIZE(pg_types)) {
			buf_addstr(&b, pg_types[i].pg);
			p += strlen(pg_types[i].sqlite);
		} else {
			buf_addch(&b, *p++);
		}
	}
	return buf_detach(&b, NULL);
}

char *schema_step(const struct db_driver *drv, int from)
{
	struct buf b;
	char *pg;

	if (from < 0 || from >= STORE_SCHEMA_VERSION)
		return NULL;
	if (!strcmp(drv->name, "sqlite"))
		return xstrdup(steps[from]);
	pg = pg_translate(steps[from]);
	buf_init(&b, 0);
	buf_addstr(&b, pg);
	if (pg_extra[from])
		buf_addstr(&b, pg_extra[from]);
	free(pg);
	return buf_detach(&b, NULL);
}
