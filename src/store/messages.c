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
	sqlite3_stmt *s;
	int rc;

	if (!key)
		return -1;
	s = db_stmt(st, S_SEEN);
	db_bind_text(s, 1, key);
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
int messages_insert(struct store *st, const char *key, const struct store_message *m,
			  const char *reply_key)
{
	sqlite3_stmt *s = db_stmt(st, S_INSERT_MESSAGE);
	char decision[128];

	if (m->decision == STORE_SKIPPED)
		snprintf(decision, sizeof(decision), "skipped:%s", m->why && *m->why ? m->why : "other");
	else
		snprintf(decision, sizeof(decision), "%s",
			 decision_names[(unsigned)m->decision <= STORE_ERROR ? m->decision : STORE_ERROR]);
	db_bind_text(s, 1, key);
	db_bind_text(s, 2, m->source ? m->source : "");
	db_bind_text(s, 3, m->folder ? m->folder : "");
	sqlite3_bind_int64(s, 4, m->uid);
	db_bind_text(s, 5, m->kind ? m->kind : "other");
	db_bind_text(s, 6, decision);
	db_bind_text(s, 7, reply_key);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)m->time);
	return db_step_done(s);
}


int store_record_message(struct store *st, const struct store_message *m,
			 bool *added, struct err *e)
{
	char *key;
	int rc;

	if (m->decision == STORE_REPLIED)
		return err_set(e, ERR_FINAL, "store %s: a reply is recorded with store_record_reply",
			       st->path);
	if (!(key = db_key(st, m->msgid, e)))
		return -1;
	rc = messages_insert(st, key, m, NULL);
	free(key);
	if (added)
		*added = rc == SQLITE_OK;
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return 0;
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "recording a message");
}

int store_message_forget(struct store *st, const char *msgid, const char *decision,
			 bool *forgot, struct err *e)
{
	sqlite3_stmt *s;

	if (forgot)
		*forgot = false;
	if (db_prep_key(st, "DELETE FROM messages WHERE msgid = ?1 AND decision = ?2"
			" AND decision <> 'replied'", msgid, &s, e) < 0)
		return -1;
	db_bind_text(s, 2, decision);
	if (db_run_done(st, s, "forgetting a decision", e) < 0)
		return -1;
	if (forgot)
		*forgot = sqlite3_changes(st->db) > 0;
	return 0;
}

/* Added for maintainer Cc mode (daemon_cc.c): was the patch answered? */
int store_message_decision(struct store *st, const char *msgid, char *out, size_t size,
			   bool *found, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*found = false;
	if (size)
		out[0] = '\0';
	if (db_prep_key(st, "SELECT decision FROM messages WHERE msgid = ?1", msgid, &s, e) < 0)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);

		*found = true;
		if (size)
			snprintf(out, size, "%s", v ? (const char *)v : "");
	}
	return db_row_end(st, s, rc, "reading a decision", e);
}

/* --- checkpoints ------------------------------------------------------- */

int store_checkpoint_get(struct store *st, const char *source, const char *folder,
			 struct store_checkpoint *cp, bool *found, struct err *e)
{
	sqlite3_stmt *s = db_stmt(st, S_CHECKPOINT_GET);
	int rc;

	db_bind_text(s, 1, source);
	db_bind_text(s, 2, folder ? folder : "");
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
	sqlite3_stmt *s = db_stmt(st, S_FIRST_TIME);
	int rc;

	db_bind_text(s, 1, source);
	db_bind_text(s, 2, folder ? folder : "");
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
	sqlite3_stmt *s = db_stmt(st, S_CHECKPOINT_SET);
	int rc;

	db_bind_text(s, 1, source);
	db_bind_text(s, 2, folder ? folder : "");
	sqlite3_bind_int64(s, 3, cp->uidvalidity);
	sqlite3_bind_int64(s, 4, cp->last_uid);
	rc = db_step_done(s);
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "writing a checkpoint");
}

int store_checkpoint_foreach(struct store *st,
			     void (*fn)(void *ctx, const char *source, const char *folder,
					const struct store_checkpoint *cp),
			     void *ctx, struct err *e)
{
	sqlite3_stmt *s = db_stmt(st, S_CHECKPOINT_ALL);
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

/* --- status ------------------------------------------------------------ */

int store_counts(struct store *st, struct store_counts *c, struct err *e)
{
	sqlite3_stmt *s = db_stmt(st, S_COUNT_MESSAGES);
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
	s = db_stmt(st, S_COUNT_OUTBOX);
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

/* The counts of one GROUP BY: a name, then the five columns of store_tally. */
static int tally(struct store *st, const char *sql, const char *what,
		 void (*fn)(void *ctx, const struct store_tally *t), void *ctx, struct err *e)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_err(st, rc, e, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		struct store_tally t = {
			name ? name : "", (long)sqlite3_column_int64(s, 1),
			(long)sqlite3_column_int64(s, 2), (long)sqlite3_column_int64(s, 3),
			(long)sqlite3_column_int64(s, 4), (long)sqlite3_column_int64(s, 5),
		};

		fn(ctx, &t);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, rc, e, what);
}

#define TALLY_COLUMNS "count(*), sum(m.decision = 'replied'), sum(m.decision = 'clean')," \
	" sum(m.decision LIKE 'skipped:%'), sum(m.decision = 'error')"

int store_counts_by_source(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			   void *ctx, struct err *e)
{
	return tally(st, "SELECT m.source, " TALLY_COLUMNS " FROM messages m"
		     " GROUP BY m.source ORDER BY m.source", "counting messages by source",
		     fn, ctx, e);
}

int store_counts_by_list(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			 void *ctx, struct err *e)
{
	return tally(st, "SELECT coalesce(c.list_id, ''), " TALLY_COLUMNS " FROM messages m"
		     " JOIN context c ON c.msgid = m.msgid GROUP BY 1 ORDER BY 1",
		     "counting messages by list", fn, ctx, e);
}
