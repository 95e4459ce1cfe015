/* messages.c - the messages and checkpoints tables, and the counts `tagbot
 * status` shows. */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_p.h"

/* --- messages ---------------------------------------------------------- */

int store_seen(struct store *st, const char *msgid, bool *seen, struct err *e)
{
	char *key = db_key(st, msgid, e);
	struct db_stmt *s;
	int rc;

	if (!key)
		return -1;
	s = db_stmt(st, S_SEEN);
	db_bind_text(s, 1, key);
	rc = db_step(s);
	*seen = rc == DB_ROW;
	db_reset(s);
	free(key);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "looking up a message");
	return 0;
}

static const char *const decision_names[] = {
	[STORE_REPLIED] = "replied",
	[STORE_CLEAN] = "clean",
	[STORE_SKIPPED] = "skipped",
	[STORE_ERROR] = "error",
};

int messages_insert(struct store *st, const char *key, const struct store_message *m,
		    const char *reply_key, bool *added, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_INSERT_MESSAGE);
	char decision[128];

	if (m->decision == STORE_SKIPPED)
		snprintf(decision, sizeof(decision), "skipped:%s", m->why && *m->why ? m->why : "other");
	else
		snprintf(decision, sizeof(decision), "%s",
			 decision_names[(unsigned)m->decision <= STORE_ERROR ? m->decision : STORE_ERROR]);
	db_bind_text(s, 1, key);
	db_bind_text(s, 2, m->source ? m->source : "");
	db_bind_text(s, 3, m->folder ? m->folder : "");
	db_bind_int64(s, 4, m->uid);
	db_bind_text(s, 5, m->kind ? m->kind : "other");
	db_bind_text(s, 6, decision);
	db_bind_text(s, 7, reply_key);
	db_bind_int64(s, 8, (int64_t)m->time);
	if (db_step_done(s) != DB_OK)
		return db_err(st, e, "recording a message");
	*added = db_changes(st->db) > 0;
	return 0;
}


int store_record_message(struct store *st, const struct store_message *m,
			 bool *added, struct err *e)
{
	bool fresh;
	char *key;
	int rc;

	if (m->decision == STORE_REPLIED)
		return err_set(e, ERR_FINAL, "store %s: a reply is recorded with store_record_reply",
			       st->path);
	if (!(key = db_key(st, m->msgid, e)))
		return -1;
	rc = messages_insert(st, key, m, NULL, &fresh, e);
	free(key);
	if (added)
		*added = rc == 0 && fresh;
	return rc;
}

int store_message_forget(struct store *st, const char *msgid, const char *decision,
			 bool *forgot, struct err *e)
{
	struct db_stmt *s;

	if (forgot)
		*forgot = false;
	if (db_prep_key(st, "DELETE FROM messages WHERE msgid = ?1 AND decision = ?2"
			" AND decision <> 'replied'", msgid, &s, e) < 0)
		return -1;
	db_bind_text(s, 2, decision);
	if (db_run_done(st, s, "forgetting a decision", e) < 0)
		return -1;
	if (forgot)
		*forgot = db_changes(st->db) > 0;
	return 0;
}

/* Added for maintainer Cc mode (daemon_cc.c): was the patch answered? */
int store_message_decision(struct store *st, const char *msgid, char *out, size_t size,
			   bool *found, struct err *e)
{
	struct db_stmt *s;
	int rc;

	*found = false;
	if (size)
		out[0] = '\0';
	if (db_prep_key(st, "SELECT decision FROM messages WHERE msgid = ?1", msgid, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW) {
		const char *v = db_col_str(s, 0);

		*found = true;
		if (size)
			snprintf(out, size, "%s", v ? v : "");
	}
	return db_row_end(st, s, rc, "reading a decision", e);
}

/* --- checkpoints ------------------------------------------------------- */

int store_checkpoint_get(struct store *st, const struct store_folder *f,
			 struct store_checkpoint *cp, bool *found, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_CHECKPOINT_GET);
	int rc;

	db_bind_text(s, 1, f->source);
	db_bind_text(s, 2, f->name ? f->name : "");
	rc = db_step(s);
	*found = rc == DB_ROW;
	cp->uidvalidity = *found ? (uint32_t)db_col_int64(s, 0) : 0;
	cp->last_uid = *found ? (uint32_t)db_col_int64(s, 1) : 0;
	db_reset(s);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "reading a checkpoint");
	return 0;
}

int store_first_time(struct store *st, const struct store_folder *f, time_t *t, bool *found,
		     struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_FIRST_TIME);
	int rc;

	db_bind_text(s, 1, f->source);
	db_bind_text(s, 2, f->name ? f->name : "");
	rc = db_step(s);
	*found = rc == DB_ROW && !db_col_null(s, 0);
	*t = *found ? (time_t)db_col_int64(s, 0) : 0;
	db_reset(s);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "reading the first message time");
	return 0;
}

int store_checkpoint_set(struct store *st, const struct store_folder *f,
			 const struct store_checkpoint *cp, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_CHECKPOINT_SET);
	int rc;

	db_bind_text(s, 1, f->source);
	db_bind_text(s, 2, f->name ? f->name : "");
	db_bind_int64(s, 3, cp->uidvalidity);
	db_bind_int64(s, 4, cp->last_uid);
	rc = db_step_done(s);
	return rc == DB_OK ? 0 : db_err(st, e, "writing a checkpoint");
}

int store_checkpoint_foreach(struct store *st,
			     void (*fn)(void *ctx, const char *source, const char *folder,
					const struct store_checkpoint *cp),
			     void *ctx, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_CHECKPOINT_ALL);
	struct store_checkpoint cp;
	int rc;

	while ((rc = db_step(s)) == DB_ROW) {
		cp.uidvalidity = (uint32_t)db_col_int64(s, 2);
		cp.last_uid = (uint32_t)db_col_int64(s, 3);
		fn(ctx, db_col_str(s, 0),
		   db_col_str(s, 1), &cp);
	}
	db_reset(s);
	return rc == DB_OK ? 0 : db_err(st, e, "listing checkpoints");
}

/* --- status ------------------------------------------------------------ */

int store_counts(struct store *st, struct store_counts *c, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_COUNT_MESSAGES);
	int rc = db_step(s);

	memset(c, 0, sizeof(*c));
	if (rc == DB_ROW) {
		c->messages = (long)db_col_int64(s, 0);
		c->replied = (long)db_col_int64(s, 1);
		c->clean = (long)db_col_int64(s, 2);
		c->skipped = (long)db_col_int64(s, 3);
		c->errors = (long)db_col_int64(s, 4);
	}
	db_reset(s);
	if (rc != DB_ROW)
		return db_err(st, e, "counting messages");
	s = db_stmt(st, S_COUNT_OUTBOX);
	rc = db_step(s);
	if (rc == DB_ROW) {
		c->queued = (long)db_col_int64(s, 0);
		c->sent = (long)db_col_int64(s, 1);
		c->failed = (long)db_col_int64(s, 2);
	}
	db_reset(s);
	return rc == DB_ROW ? 0 : db_err(st, e, "counting the outbox");
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
	struct db_stmt *s;
	int rc;

	if (db_prep(st, sql, &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, max);
	while ((rc = db_step(s)) == DB_ROW) {
		struct store_error_row r = {
			db_col_str(s, 0), db_col_str(s, 1),
			db_col_str(s, 2), (time_t)db_col_int64(s, 3),
		};
		fn(ctx, &r);
	}
	return db_row_end(st, s, rc, "listing errors", e);
}

/* The counts of one GROUP BY: a name, then the five columns of store_tally. */
static int tally(struct store *st, const struct db_query *q,
		 void (*fn)(void *ctx, const struct store_tally *t), void *ctx, struct err *e)
{
	struct db_stmt *s;
	int rc;

	if (db_prep(st, q->sql, &s, e) < 0)
		return -1;
	while ((rc = db_step(s)) == DB_ROW) {
		const char *name = db_col_str(s, 0);
		struct store_tally t = {
			name ? name : "", (long)db_col_int64(s, 1), (long)db_col_int64(s, 2),
			(long)db_col_int64(s, 3), (long)db_col_int64(s, 4), (long)db_col_int64(s, 5),
		};

		fn(ctx, &t);
	}
	return db_row_end(st, s, rc, q->what, e);
}

/* SQL both engines take (PostgreSQL sums no booleans). */
#define TALLY_SUM(cond) "sum(CASE WHEN " cond " THEN 1 ELSE 0 END)"
#define TALLY_COLUMNS "count(*), " TALLY_SUM("m.decision = 'replied'") ", " \
	TALLY_SUM("m.decision = 'clean'") ", " TALLY_SUM("m.decision LIKE 'skipped:%'") ", " \
	TALLY_SUM("m.decision = 'error'")

int store_counts_by_source(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			   void *ctx, struct err *e)
{
	static const struct db_query q = {
		"SELECT m.source, " TALLY_COLUMNS " FROM messages m"
		" GROUP BY m.source ORDER BY m.source",
		"counting messages by source",
	};

	return tally(st, &q, fn, ctx, e);
}

int store_counts_by_list(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			 void *ctx, struct err *e)
{
	static const struct db_query q = {
		"SELECT coalesce(c.list_id, ''), " TALLY_COLUMNS " FROM messages m"
		" JOIN context c ON c.msgid = m.msgid GROUP BY 1 ORDER BY 1",
		"counting messages by list",
	};

	return tally(st, &q, fn, ctx, e);
}
