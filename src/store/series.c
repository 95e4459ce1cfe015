/* series.c - the context of every message, quiet threads, and series with
 * their members. */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "mail/context.h"
#include "mail/msgid.h"
#include "store/store_p.h"

/* --- context, threads, series (schema 3) --------------------------------- */

/* The rows (id) of the words of the space-separated list ?N, in a WITH
 * RECURSIVE, for both engines: "" ones are left for the caller to skip. */
#define SPLIT_WORDS(n)	"r (rest, id) AS (SELECT ?" #n " || ' ', CAST('' AS TEXT)" \
			" UNION ALL SELECT substr(rest, instr(rest, ' ') + 1)," \
			" substr(rest, 1, instr(rest, ' ') - 1) FROM r WHERE rest != '')"

/* A row store_context_related() hands out: a patch or cover letter of a
 * numbered series (a reply is never part of one). */
#define RELATED_KIND	"kind IN ('patch', 'cover') AND total >= 1"

static bool related_kind(const struct msg_context *c)
{
	return c->kind && (!strcmp(c->kind, "patch") || !strcmp(c->kind, "cover")) &&
	       c->total >= 1;
}

/* context_ref holds the References of c, when it is of RELATED_KIND, one a
 * row, replacing what it held. */
static int context_refs_put(struct store *st, const struct msg_context *c, struct err *e)
{
	static const char sql[] =
		"WITH RECURSIVE " SPLIT_WORDS(2)
		" INSERT INTO context_ref (msgid, ref) SELECT DISTINCT ?1, id FROM r WHERE id != ''";
	struct db_stmt *s;

	if (db_prep_key(st, "DELETE FROM context_ref WHERE msgid = ?1", c->message_id, &s, e) < 0 ||
	    db_run_done(st, s, "recording a context", e) < 0)
		return -1;
	if (!c->references || !related_kind(c))
		return 0;
	if (db_prep_key(st, sql, c->message_id, &s, e) < 0)
		return -1;
	db_bind_text(s, 2, c->references);
	return db_run_done(st, s, "recording a context", e);
}

int store_context_put(struct store *st, const struct msg_context *c, struct err *e)
{
	static const char sql[] =
		"INSERT INTO context (msgid, subject, sender, kind, version, idx, total,"
		" change_id, in_reply_to, refs, list_id, time)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
		" ON CONFLICT (msgid) DO UPDATE SET subject = ?2, sender = ?3, kind = ?4,"
		" version = ?5, idx = ?6, total = ?7, change_id = ?8, in_reply_to = ?9, refs = ?10,"
		" list_id = ?11, time = ?12";
	struct db_stmt *s;

	if (!c->message_id || !*c->message_id || strlen(c->message_id) > MSGID_MAX)
		return err_set(e, ERR_FINAL, "store %s: context without a usable Message-ID", st->path);
	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	db_bind_text(s, 1, c->message_id);
	db_bind_text(s, 2, c->subject ? c->subject : "");
	db_bind_text(s, 3, c->sender ? c->sender : "");
	db_bind_text(s, 4, c->kind ? c->kind : "other");
	db_bind_int64(s, 5, c->version);
	db_bind_int64(s, 6, c->index);
	db_bind_int64(s, 7, c->total);
	db_bind_text(s, 8, c->change_id);
	db_bind_text(s, 9, c->in_reply_to);
	db_bind_text(s, 10, c->references);
	db_bind_text(s, 11, c->list_id);
	db_bind_int64(s, 12, (int64_t)c->time);
	if (db_run_done(st, s, "recording a context", e) < 0)
		return -1;
	return context_refs_put(st, c, e);
}

#define CONTEXT_COLUMNS "msgid, subject, sender, kind, version, idx, total, change_id," \
			" in_reply_to, refs, list_id, time"

static void fill_context(struct db_stmt *s, struct msg_context *c)
{
	msg_context_release(c);
	c->message_id = db_col_text(s, 0);
	c->subject = db_col_text(s, 1);
	c->sender = db_col_text(s, 2);
	c->kind = db_col_text(s, 3);
	c->version = db_col_int(s, 4);
	c->index = db_col_int(s, 5);
	c->total = db_col_int(s, 6);
	c->change_id = db_col_text_or_null(s, 7);
	c->in_reply_to = db_col_text_or_null(s, 8);
	c->references = db_col_text_or_null(s, 9);
	c->list_id = db_col_text_or_null(s, 10);
	c->time = (time_t)db_col_int64(s, 11);
}

int store_context_get(struct store *st, const char *msgid, struct msg_context *out,
		      bool *found, struct err *e)
{
	struct db_stmt *s;
	int rc;

	msg_context_release(out);
	*found = false;
	if (db_prep_key(st, "SELECT " CONTEXT_COLUMNS " FROM context WHERE msgid = ?1", msgid, &s,
			e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW) {
		fill_context(s, out);
		*found = true;
	}
	return db_row_end(st, s, rc, "reading a context", e);
}

int store_context_prune(struct store *st, time_t before, long *deleted, struct err *e)
{
	static const char *const sql[] = {
		"DELETE FROM context_ref WHERE msgid IN (SELECT msgid FROM context WHERE time < ?1)",
		"DELETE FROM context WHERE time < ?1",
		"DELETE FROM thread_state WHERE time < ?1",
		"DELETE FROM series_member WHERE series IN (SELECT id FROM series"
		" WHERE first_time < ?1 AND state != 'pending')",
		"DELETE FROM series WHERE first_time < ?1 AND state != 'pending'",
		"DELETE FROM told WHERE t < ?1 AND what != ''",
	};
	struct db_stmt *s;

	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		if (db_prep(st, sql[i], &s, e) < 0)
			return -1;
		db_bind_int64(s, 1, (int64_t)before);
		if (db_run_done(st, s, "pruning the context", e) < 0)
			return -1;
		if (i == 1 && deleted)
			*deleted = (long)db_changes(st->db);
	}
	return 0;
}

/* Hands out the rows of s (CONTEXT_COLUMNS, series, rowid) to fn. */
static int related_rows(struct store *st, struct db_stmt *s,
			void (*fn)(void *ctx, const struct store_related *r), void *ctx,
			struct err *e)
{
	struct msg_context row;
	struct store_related r = { .row = &row };
	int rc;

	msg_context_init(&row);
	while ((rc = db_step(s)) == DB_ROW) {
		fill_context(s, &row);
		r.series = db_col_null(s, 12) ? NULL : db_col_str(s, 12);
		r.seq = db_col_int64(s, 13);
		fn(ctx, &r);
	}
	msg_context_release(&row);
	db_finalize(s);
	return rc == DB_OK ? 0 : db_err(st, e, "reading related contexts");
}

#define RELATED_COLUMNS	CONTEXT_COLUMNS ", (SELECT series FROM series_member m" \
			" WHERE m.msgid = context.msgid) AS series, rowid"

int store_context_related(struct store *st, const struct msg_context *c, time_t since,
			  void (*fn)(void *ctx, const struct store_related *r), void *ctx,
			  struct err *e)
{
	/* Each way to be related is a lookup by an index; the rows come
	 * oldest first, the first recorded first among those of one time. */
	static const char sql[] =
		"WITH RECURSIVE " SPLIT_WORDS(3)
		" SELECT " RELATED_COLUMNS
		" FROM context WHERE msgid != ?1 AND " RELATED_KIND " AND msgid IN ("
		" SELECT ?2"
		" UNION ALL SELECT id FROM r WHERE id != ''"
		" UNION ALL SELECT msgid FROM context WHERE in_reply_to = ?1"
		" UNION ALL SELECT msgid FROM context_ref WHERE ref = ?1"
		" UNION ALL SELECT msgid FROM context"
		"  WHERE sender = ?4 AND version = ?5 AND total = ?6 AND time >= ?7"
		"  AND in_reply_to IS NULL AND refs IS NULL)"
		" ORDER BY time, rowid LIMIT ?8";
	struct db_stmt *s;

	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	db_bind_text(s, 1, c->message_id ? c->message_id : "");
	db_bind_text(s, 2, c->in_reply_to);
	db_bind_text(s, 3, c->references);
	db_bind_text(s, 4, c->sender ? c->sender : "");
	db_bind_int64(s, 5, c->version);
	db_bind_int64(s, 6, c->total);
	db_bind_int64(s, 7, (int64_t)since);
	db_bind_int64(s, 8, STORE_RELATED_MAX);
	return related_rows(st, s, fn, ctx, e);
}

int store_context_siblings(struct store *st, const struct msg_context *c, const char *skip,
			   void (*fn)(void *ctx, const struct store_related *r), void *ctx,
			   struct err *e)
{
	/* The siblings in a series and their series from one index alone,
	 * around the first series skipped (usually the only one: then no
	 * sibling is looked at); only the rows not skipped are read. */
	static const char sql[] =
		"WITH RECURSIVE " SPLIT_WORDS(3)
		" SELECT " RELATED_COLUMNS " FROM context WHERE msgid IN ("
		" SELECT msgid FROM series_member WHERE irt = ?2 AND series < ?5"
		" UNION ALL SELECT msgid FROM series_member WHERE irt = ?2 AND series > ?5)"
		" AND msgid != ?1 AND (SELECT series FROM series_member m"
		"  WHERE m.msgid = context.msgid) NOT IN (SELECT id FROM r)"
		" ORDER BY time, rowid LIMIT ?4";
	struct db_stmt *s;
	char *first;
	int rc;

	if (!c->in_reply_to)
		return 0;
	skip = skip ? skip : "";
	first = xstrndup(skip, strcspn(skip, " "));
	rc = db_prep(st, sql, &s, e);
	if (rc == 0) {
		db_bind_text(s, 1, c->message_id ? c->message_id : "");
		db_bind_text(s, 2, c->in_reply_to);
		db_bind_text(s, 3, skip);
		db_bind_int64(s, 4, STORE_RELATED_MAX);
		db_bind_text(s, 5, first);
		rc = related_rows(st, s, fn, ctx, e);
	}
	free(first);
	return rc;
}

int store_thread_quiet_get(struct store *st, const char *root, bool *quiet, struct err *e)
{
	struct db_stmt *s;
	int rc;

	*quiet = false;
	if (db_prep_key(st, "SELECT quiet FROM thread_state WHERE root = ?1", root, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW)
		*quiet = db_col_int(s, 0) != 0;
	return db_row_end(st, s, rc, "reading a thread", e);
}

int store_thread_quiet_set(struct store *st, const char *root, time_t now, struct err *e)
{
	struct db_stmt *s;

	if (db_prep_key(st, "INSERT INTO thread_state (root, quiet, time) VALUES (?1, 1, ?2)"
			" ON CONFLICT (root) DO UPDATE SET quiet = 1, time = ?2", root, &s, e) < 0)
		return -1;
	db_bind_int64(s, 2, (int64_t)now);
	return db_run_done(st, s, "recording a quiet thread", e);
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
	struct db_stmt *s;
	int rc;

	*id = NULL;
	if (db_prep_key(st, "SELECT series FROM series_member WHERE msgid = ?1", msgid, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW)
		*id = db_col_text(s, 0);
	return db_row_end(st, s, rc, "reading a series", e);
}

int store_series_get(struct store *st, const char *id, struct store_series *out, bool *found,
		     struct err *e)
{
	struct db_stmt *s;
	int rc;

	store_series_release(out);
	*found = false;
	if (db_prep(st, "SELECT id, version, total, sender, first_time, deadline, state FROM series"
		 " WHERE id = ?1", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	rc = db_step(s);
	if (rc == DB_ROW) {
		out->id = db_col_text(s, 0);
		out->version = db_col_int(s, 1);
		out->total = db_col_int(s, 2);
		out->sender = db_col_text(s, 3);
		out->first_time = (time_t)db_col_int64(s, 4);
		out->deadline = (time_t)db_col_int64(s, 5);
		out->state = series_state_parse(db_col_str(s, 6));
		*found = true;
	}
	return db_row_end(st, s, rc, "reading a series", e);
}

int store_series_create(struct store *st, const struct store_series *in, struct err *e)
{
	struct db_stmt *s;

	if (!in->id || !*in->id)
		return err_set(e, ERR_FINAL, "store %s: a series without a name", st->path);
	/* A series of that name already there (another daemon on the same
	 * PostgreSQL state made it from the same mail a moment ago) is the
	 * one to join: a second row is no error. */
	if (db_prep(st, "INSERT INTO series (id, version, total, sender, first_time, deadline, state)"
		 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO NOTHING", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, in->id);
	db_bind_int64(s, 2, in->version);
	db_bind_int64(s, 3, in->total);
	db_bind_text(s, 4, in->sender ? in->sender : "");
	db_bind_int64(s, 5, (int64_t)in->first_time);
	db_bind_int64(s, 6, (int64_t)in->deadline);
	db_bind_text(s, 7, series_state_names[(unsigned)in->state <= STORE_SERIES_DONE ? in->state
									    : STORE_SERIES_DONE]);
	return db_run_done(st, s, "creating a series", e);
}

int store_series_add(struct store *st, const char *id, const struct store_series_member *m,
		     struct err *e)
{
	bool keep = m->raw && m->len <= STORE_SERIES_RAW_MAX;
	struct db_stmt *s;

	/* irt: the In-Reply-To its context has, for store_context_siblings() */
	if (db_prep_key(st, "INSERT INTO series_member (msgid, series, idx, time, raw, findings, irt)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
			" (SELECT in_reply_to FROM context WHERE msgid = ?1))"
			" ON CONFLICT (msgid) DO UPDATE SET series = ?2, idx = ?3, time = ?4, raw = ?5,"
			" findings = ?6, irt = (SELECT in_reply_to FROM context WHERE msgid = ?1)",
			m->msgid, &s, e) < 0)
		return -1;
	db_bind_text(s, 2, id);
	db_bind_int64(s, 3, m->index);
	db_bind_int64(s, 4, (int64_t)m->time);
	if (keep)
		db_bind_blob(s, 5, m->raw, m->len);
	else
		db_bind_null(s, 5);
	db_bind_text(s, 6, keep ? m->findings : NULL);
	return db_run_done(st, s, "adding to a series", e);
}

int store_series_merge(struct store *st, const char *into, const char *from, struct err *e)
{
	static const char *const sql[] = {
		"UPDATE series SET first_time = (SELECT min(first_time) FROM series"
		" WHERE id IN (?1, ?2)), deadline = (SELECT min(deadline) FROM series"
		" WHERE id IN (?1, ?2)) WHERE id = ?1 AND EXISTS (SELECT 1 FROM series WHERE id = ?2)",
		"UPDATE series_member SET series = ?1 WHERE series = ?2",
		"DELETE FROM series WHERE id = ?2",
	};
	struct db_stmt *s;

	if (!strcmp(into, from))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		if (db_prep(st, sql[i], &s, e) < 0)
			return -1;
		db_bind_text(s, 1, into);
		db_bind_text(s, 2, from);
		if (db_run_done(st, s, "merging series", e) < 0)
			return -1;
	}
	return 0;
}

int store_series_members(struct store *st, const char *id,
			 void (*fn)(void *ctx, const struct store_series_member *m), void *ctx,
			 struct err *e)
{
	struct store_series_member m;
	struct db_stmt *s;
	int rc;

	if (db_prep(st, "SELECT msgid, idx, time, raw, findings FROM series_member WHERE series = ?1"
		 " ORDER BY idx, time", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	while ((rc = db_step(s)) == DB_ROW) {
		m.msgid = db_col_str(s, 0);
		m.index = db_col_int(s, 1);
		m.time = (time_t)db_col_int64(s, 2);
		m.raw = db_col_blob(s, 3, &m.len);
		m.findings = db_col_str(s, 4);
		fn(ctx, &m);
	}
	db_finalize(s);
	return rc == DB_OK ? 0 : db_err(st, e, "reading a series");
}

int store_series_count(struct store *st, const char *id, int total, int *nparts,
		       struct err *e)
{
	struct db_stmt *s;
	int rc;

	*nparts = 0;
	if (db_prep(st, "SELECT count(DISTINCT idx) FROM series_member"
		    " WHERE series = ?1 AND idx BETWEEN 1 AND ?2", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	db_bind_int64(s, 2, total);
	rc = db_step(s);
	if (rc == DB_ROW)
		*nparts = db_col_int(s, 0);
	return db_row_end(st, s, rc, "counting a series", e);
}

int store_series_set_state(struct store *st, const char *id, enum store_series_state state,
			   struct err *e)
{
	struct db_stmt *s;

	if ((unsigned)state > STORE_SERIES_DONE)
		return err_set(e, ERR_FINAL, "store %s: bad series state", st->path);
	if (db_prep(st, "UPDATE series SET state = ?2 WHERE id = ?1", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	db_bind_text(s, 2, series_state_names[state]);
	if (db_run_done(st, s, "updating a series", e) < 0)
		return -1;
	if (state != STORE_SERIES_DONE)
		return 0;
	/* The raw mails were kept for the reply only. */
	if (db_prep(st, "UPDATE series_member SET raw = NULL, findings = NULL WHERE series = ?1",
		 &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	return db_run_done(st, s, "updating a series", e);
}

int store_series_set_deadline(struct store *st, const char *id, time_t deadline,
			      struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "UPDATE series SET deadline = ?2 WHERE id = ?1", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, id);
	db_bind_int64(s, 2, (int64_t)deadline);
	return db_run_done(st, s, "updating a series", e);
}

int store_series_next_due(struct store *st, time_t now, char **id, struct err *e)
{
	static const struct db_query q = {
		"SELECT id FROM series WHERE state = 'pending' AND deadline <= ?1"
		" ORDER BY deadline LIMIT 1",
		"reading due series",
	};

	return db_first_text(st, &q, now, id, e);
}

int store_series_next_due_of(struct store *st, time_t now, const char *sender, char **id,
			     struct err *e)
{
	struct db_stmt *s;
	int rc;

	*id = NULL;
	if (db_prep(st, "SELECT id FROM series WHERE state = 'pending' AND deadline <= ?1"
		    " AND sender = ?2 ORDER BY first_time, id LIMIT 1", &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, (int64_t)now);
	db_bind_text(s, 2, sender);
	rc = db_step(s);
	if (rc == DB_ROW)
		*id = db_col_text(s, 0);
	return db_row_end(st, s, rc, "reading due series", e);
}

int store_series_postpone(struct store *st, time_t now, time_t until, struct err *e)
{
	static const struct db_query q = {
		"UPDATE series SET deadline = ?2 WHERE state = 'pending' AND deadline <= ?1",
		"moving due series",
	};

	return db_postpone(st, &q, now, until, e);
}

int store_series_waiting(struct store *st, time_t now, size_t max, store_waiting_fn *fn,
			 void *ctx, struct err *e)
{
	static const struct db_query q = {
		"SELECT sender, min(first_time) FROM series WHERE state = 'pending'"
		" AND deadline <= ?1 GROUP BY sender ORDER BY min(first_time), sender LIMIT ?2",
		"reading due series",
	};

	return db_waiting(st, &q, now, max, fn, ctx, e);
}

int store_series_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	static const struct db_query q = {
		"SELECT min(deadline) FROM series WHERE state = 'pending'", "reading due series",
	};

	return db_first_time(st, &q, when, found, e);
}

static int mark_lead_replied(struct store *st, const char *lead, const char *reply_key,
			     struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "UPDATE messages SET decision = 'replied', reply_msgid = ?2 WHERE msgid = ?1",
		 &s, e) < 0)
		return -1;
	db_bind_text(s, 1, lead);
	db_bind_text(s, 2, reply_key);
	if (db_run_done(st, s, "recording a series reply", e) < 0)
		return -1;
	if (db_changes(st->db) != 1)
		return err_set(e, ERR_FINAL, "store %s: the series' lead <%s> is not recorded",
			       st->path, lead);
	return 0;
}

/* The body of store_series_queue_reply, inside its transaction. */
static int series_reply_tx(struct store *st, const char *id, const struct outbox_row *r,
			   enum store_enqueue *res, struct err *e)
{
	bool added;

	if (outbox_insert(st, r, &added, e) < 0)
		return -1;
	*res = added ? STORE_QUEUED : STORE_ALREADY_QUEUED;
	if (added && mark_lead_replied(st, r->parent_key, r->reply_key, e) < 0)
		return -1;
	return store_series_set_state(st, id, STORE_SERIES_DONE, e);
}

int store_series_queue_reply(struct store *st, const char *id,
			     const struct store_outgoing *o, time_t now,
			     enum store_enqueue *res, struct err *e)
{
	return outbox_queue_grouped(st, id, o, now, res, series_reply_tx, e);
}
