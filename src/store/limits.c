/* limits.c - what the rate limits and the sink keep across restarts: held
 * replies, rate events, what a person was told, the sink's state. */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "store/store_p.h"

/* --- replies held by a rate limit ------------------------------------- */

int store_held_add(struct store *st, const struct store_held *h, time_t deadline,
		   struct err *e)
{
	struct db_stmt *s;

	if (db_prep_key(st, "INSERT INTO held (msgid, rcpt, time, deadline, raw, findings)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (msgid) DO UPDATE SET"
			" rcpt = ?2, time = ?3, deadline = ?4, raw = ?5, findings = ?6", h->msgid, &s,
			e) < 0)
		return -1;
	if (!h->raw || h->len > STORE_SERIES_RAW_MAX) {
		db_finalize(s);
		return err_set(e, ERR_FINAL, "store %s: <%s>: no mail or too large to hold",
			       st->path, h->msgid);
	}
	db_bind_text(s, 2, h->rcpt);
	db_bind_int64(s, 3, (int64_t)h->time);
	db_bind_int64(s, 4, (int64_t)deadline);
	db_bind_blob(s, 5, h->raw, h->len);
	db_bind_text(s, 6, h->findings ? h->findings : "");
	if (db_run_done(st, s, "holding a reply", e) < 0)
		return -1;
	return store_held_set_deadline(st, h->rcpt, deadline, e);
}

int store_held_next_due(struct store *st, time_t now, char **rcpt, struct err *e)
{
	static const struct db_query q = {
		"SELECT rcpt FROM held WHERE deadline <= ?1 ORDER BY deadline, time LIMIT 1",
		"reading held replies",
	};

	return db_first_text(st, &q, now, rcpt, e);
}

int store_held_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	static const struct db_query q = {
		"SELECT min(deadline) FROM held", "reading held replies",
	};

	return db_first_time(st, &q, when, found, e);
}

int store_held_members(struct store *st, const char *rcpt,
		       void (*fn)(void *ctx, const struct store_held *h), void *ctx,
		       struct err *e)
{
	struct store_held h;
	struct db_stmt *s;
	int rc;

	if (db_prep(st, "SELECT msgid, time, raw, findings FROM held WHERE rcpt = ?1"
		 " ORDER BY time, msgid", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, rcpt);
	while ((rc = db_step(s)) == DB_ROW) {
		h.msgid = db_col_str(s, 0);
		h.rcpt = rcpt;
		h.time = (time_t)db_col_int64(s, 1);
		h.raw = db_col_blob(s, 2, &h.len);
		h.findings = db_col_str(s, 3);
		fn(ctx, &h);
	}
	db_finalize(s);
	return rc == DB_OK ? 0 : db_err(st, e, "reading held replies");
}

/* One statement over rcpt's held rows: ?1 rcpt, ?2 (when q has it) n. */
static int held_update(struct store *st, const struct db_query *q, const char *rcpt,
		       int64_t n, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	db_bind_text(s, 1, rcpt);
	db_bind_int64(s, 2, n);
	return db_run_done(st, s, q->what, e);
}

int store_held_set_deadline(struct store *st, const char *rcpt, time_t deadline,
			    struct err *e)
{
	static const struct db_query q = {
		"UPDATE held SET deadline = ?2 WHERE rcpt = ?1", "moving held replies",
	};

	return held_update(st, &q, rcpt, (int64_t)deadline, e);
}

int store_held_drop(struct store *st, const char *rcpt, struct err *e)
{
	static const struct db_query q = {
		"DELETE FROM held WHERE rcpt = ?1", "dropping held replies",
	};

	return held_update(st, &q, rcpt, 0, e);
}

/* The messages held for rcpt are answered by the reply reply_key. */
static int held_mark_replied(struct store *st, const char *rcpt, const char *reply_key,
			     struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "UPDATE messages SET decision = 'replied', reply_msgid = ?2"
		    " WHERE msgid IN (SELECT msgid FROM held WHERE rcpt = ?1)", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, rcpt);
	db_bind_text(s, 2, reply_key);
	return db_run_done(st, s, "recording a held reply", e);
}

int store_held_postpone(struct store *st, time_t now, time_t until, struct err *e)
{
	static const struct db_query q = {
		"UPDATE held SET deadline = ?2 WHERE deadline <= ?1", "moving held replies",
	};

	return db_postpone(st, &q, now, until, e);
}

int store_held_waiting(struct store *st, time_t now, size_t max, store_waiting_fn *fn, void *ctx,
		       struct err *e)
{
	static const struct db_query q = {
		"SELECT rcpt, min(time) FROM held WHERE deadline <= ?1"
		" GROUP BY rcpt ORDER BY min(time), rcpt LIMIT ?2",
		"reading held replies",
	};

	return db_waiting(st, &q, now, max, fn, ctx, e);
}

/* The body of store_held_queue_reply, inside its transaction. */
static int held_reply_tx(struct store *st, const char *rcpt, const struct outbox_row *r,
			 enum store_enqueue *res, struct err *e)
{
	bool added;

	if (outbox_insert(st, r, &added, e) < 0)
		return -1;
	*res = added ? STORE_QUEUED : STORE_ALREADY_QUEUED;
	if (added && held_mark_replied(st, rcpt, r->reply_key, e) < 0)
		return -1;
	return store_held_drop(st, rcpt, e);
}

int store_held_queue_reply(struct store *st, const char *rcpt, const struct store_outgoing *o,
			   time_t now, enum store_enqueue *res, struct err *e)
{
	return outbox_queue_grouped(st, rcpt, o, now, res, held_reply_tx, e);
}

/* --- what a person was told ---------------------------------------------- */

int store_told_get(struct store *st, const struct store_told *k, time_t *t, bool *found,
		   struct err *e)
{
	struct db_stmt *s;
	int rc;

	*found = false;
	*t = 0;
	if (db_prep(st, "SELECT t FROM told WHERE person = ?1 AND rule = ?2 AND what = ?3", &s,
		 e) < 0)
		return -1;
	db_bind_text(s, 1, k->person);
	db_bind_text(s, 2, k->rule);
	db_bind_text(s, 3, k->what);
	rc = db_step(s);
	if (rc == DB_ROW) {
		*t = (time_t)db_col_int64(s, 0);
		*found = true;
	}
	return db_row_end(st, s, rc, "reading told", e);
}

int store_told_set(struct store *st, const struct store_told *k, time_t t, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "INSERT INTO told (person, rule, what, t) VALUES (?1, ?2, ?3, ?4)"
		    " ON CONFLICT (person, rule, what) DO UPDATE SET t = ?4", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, k->person);
	db_bind_text(s, 2, k->rule);
	db_bind_text(s, 3, k->what);
	db_bind_int64(s, 4, (int64_t)t);
	return db_run_done(st, s, "recording told", e);
}

/* --- rate windows --------------------------------------------------------- */

int store_rate_note(struct store *st, const char *key, time_t t, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "INSERT INTO rate_events (key, t) VALUES (?1, ?2)", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, key ? key : "");
	db_bind_int64(s, 2, (int64_t)t);
	return db_run_done(st, s, "recording a rate event", e);
}

int store_rate_prune(struct store *st, time_t before, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "DELETE FROM rate_events WHERE t < ?1", &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, (int64_t)before);
	return db_run_done(st, s, "pruning rate events", e);
}

/* The events of w: sql prepared with ?1 its key and ?2 since; NULL with
 * e filled. */
static struct db_stmt *rate_prep(struct store *st, const char *sql,
				 const struct store_rate_window *w, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, sql, &s, e) < 0)
		return NULL;
	db_bind_text(s, 1, w->key ? w->key : "");
	db_bind_int64(s, 2, (int64_t)w->since);
	return s;
}

int store_rate_count(struct store *st, const struct store_rate_window *w, long *n,
		     struct err *e)
{
	const char *lock = st->db->drv->lock_rates;
	struct db_stmt *s;
	int rc;

	*n = 0;
	if (lock && st->depth > 0 && db_exec(st, lock, e) < 0)
		return -1;
	s = rate_prep(st, "SELECT count(*) FROM rate_events WHERE key = ?1 AND t > ?2", w, e);
	if (!s)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW)
		*n = (long)db_col_int64(s, 0);
	return db_row_end(st, s, rc, "counting rate events", e);
}

/* The one time s (from rate_prep) gives into *t, 0 when none; finalizes
 * s. */
static int rate_time(struct store *st, struct db_stmt *s, time_t *t, struct err *e)
{
	int rc = db_step(s);

	if (rc == DB_ROW && !db_col_null(s, 0))
		*t = (time_t)db_col_int64(s, 0);
	return db_row_end(st, s, rc, "reading rate events", e);
}

int store_rate_nth(struct store *st, const struct store_rate_window *w, long n, time_t *t,
		   struct err *e)
{
	struct db_stmt *s;

	*t = 0;
	s = rate_prep(st, "SELECT t FROM rate_events WHERE key = ?1 AND t > ?2"
		      " ORDER BY t, rowid LIMIT 1 OFFSET ?3", w, e);
	if (!s)
		return -1;
	if (n >= 0)
		db_bind_int64(s, 3, n);
	return rate_time(st, s, t, e);
}

int store_rate_last(struct store *st, const struct store_rate_window *w, time_t *t,
		    struct err *e)
{
	struct db_stmt *s;

	*t = 0;
	s = rate_prep(st, "SELECT max(t) FROM rate_events WHERE key = ?1 AND t > ?2", w, e);
	if (!s)
		return -1;
	return rate_time(st, s, t, e);
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
		"INSERT INTO sink_state (id, sink, state, reason, since, failures, next_try)"
		" VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO UPDATE SET sink = ?1,"
		" state = ?2, reason = ?3, since = ?4, failures = ?5, next_try = ?6";
	struct db_stmt *s;

	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	db_bind_text(s, 1, in->sink ? in->sink : "");
	db_bind_text(s, 2, in->failing ? "failing" : "ok");
	db_bind_text(s, 3, in->reason ? in->reason : "");
	db_bind_int64(s, 4, (int64_t)in->since);
	db_bind_int64(s, 5, in->failures);
	db_bind_int64(s, 6, (int64_t)in->next_try);
	return db_run_done(st, s, "writing the sink's state", e);
}

int store_sink_state_get(struct store *st, struct store_sink_state *out, bool *found,
			 struct err *e)
{
	static const char sql[] =
		"SELECT sink, state, reason, since, failures, next_try FROM sink_state WHERE id = 1";
	struct db_stmt *s;
	int rc;

	store_sink_state_release(out);
	*found = false;
	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW) {
		*found = true;
		out->sink = db_col_text(s, 0);
		out->failing = !strcmp(db_col_str(s, 1), "failing");
		out->reason = db_col_text(s, 2);
		out->since = (time_t)db_col_int64(s, 3);
		out->failures = db_col_int(s, 4);
		out->next_try = (time_t)db_col_int64(s, 5);
	}
	return db_row_end(st, s, rc, "reading the sink's state", e);
}
