/* unread.c - the unread table: mail a source listed but did not deliver
 * whole, asked for again or given up on (store.h). */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "store/store_p.h"

static const char *const state_names[] = {
	[STORE_UNREAD_RETRY] = "retry",
	[STORE_UNREAD_UNAVAILABLE] = "unavailable",
	[STORE_UNREAD_TOO_LARGE] = "too-large",
};

const char *store_unread_state_name(enum store_unread_state s)
{
	return (size_t)s < ARRAY_SIZE(state_names) ? state_names[s] : "retry";
}

static enum store_unread_state state_of(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(state_names); i++)
		if (!strcmp(name, state_names[i]))
			return (enum store_unread_state)i;
	return STORE_UNREAD_RETRY;
}

int store_unread_put(struct store *st, const struct store_unread *u, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "INSERT INTO unread (source, folder, uid, state, tries, next_try, size,"
		    " reason, time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
		    " ON CONFLICT (source, folder, uid) DO UPDATE SET state = ?4, tries = ?5,"
		    " next_try = ?6, size = ?7, reason = ?8, time = ?9", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, u->source);
	db_bind_text(s, 2, u->folder ? u->folder : "");
	db_bind_int64(s, 3, u->uid);
	db_bind_text(s, 4, store_unread_state_name(u->state));
	db_bind_int64(s, 5, u->tries);
	db_bind_int64(s, 6, (int64_t)u->next_try);
	db_bind_int64(s, 7, u->size > INT64_MAX ? INT64_MAX : (int64_t)u->size);
	db_bind_text(s, 8, u->reason ? u->reason : "");
	db_bind_int64(s, 9, (int64_t)u->time);
	return db_run_done(st, s, "recording unread mail", e);
}

/* sql prepared over the rows of f (?1, ?2); NULL with e filled. */
static struct db_stmt *unread_prep(struct store *st, const char *sql,
				   const struct store_folder *f, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, sql, &s, e) < 0)
		return NULL;
	db_bind_text(s, 1, f->source);
	db_bind_text(s, 2, f->name ? f->name : "");
	return s;
}

int store_unread_drop(struct store *st, const struct store_folder *f, uint32_t uid,
		      struct err *e)
{
	struct db_stmt *s = unread_prep(st, "DELETE FROM unread WHERE source = ?1 AND folder = ?2"
					" AND uid = ?3", f, e);

	if (!s)
		return -1;
	db_bind_int64(s, 3, uid);
	return db_run_done(st, s, "forgetting unread mail", e);
}

int store_unread_forget(struct store *st, const struct store_folder *f, struct err *e)
{
	struct db_stmt *s = unread_prep(st, "DELETE FROM unread WHERE source = ?1 AND folder = ?2"
					" AND state = 'retry'", f, e);

	if (!s)
		return -1;
	return db_run_done(st, s, "forgetting unread mail", e);
}

/* The rows of s, as its SELECT of the columns of the table in order. */
static int unread_rows(struct store *st, struct db_stmt *s,
		       void (*fn)(void *ctx, const struct store_unread *u), void *ctx,
		       struct err *e)
{
	int rc;

	while ((rc = db_step(s)) == DB_ROW) {
		int64_t size = db_col_int64(s, 6);
		struct store_unread u = {
			db_col_str(s, 0), db_col_str(s, 1), (uint32_t)db_col_int64(s, 2),
			state_of(db_col_str(s, 3)), db_col_int(s, 4),
			(time_t)db_col_int64(s, 5), size > 0 ? (uint64_t)size : 0,
			db_col_str(s, 7), (time_t)db_col_int64(s, 8),
		};

		fn(ctx, &u);
	}
	return db_row_end(st, s, rc, "reading unread mail", e);
}

#define UNREAD_COLUMNS "source, folder, uid, state, tries, next_try, size, reason, time"

int store_unread_retries(struct store *st, const struct store_folder *f,
			 void (*fn)(void *ctx, const struct store_unread *u), void *ctx,
			 struct err *e)
{
	struct db_stmt *s = unread_prep(st, "SELECT " UNREAD_COLUMNS " FROM unread WHERE"
					" source = ?1 AND folder = ?2 AND state = 'retry'"
					" ORDER BY uid", f, e);

	if (!s)
		return -1;
	return unread_rows(st, s, fn, ctx, e);
}

int store_unread_recent(struct store *st, int max,
			void (*fn)(void *ctx, const struct store_unread *u), void *ctx,
			struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "SELECT " UNREAD_COLUMNS " FROM unread ORDER BY time DESC, uid DESC"
		    " LIMIT ?1", &s, e) < 0)
		return -1;
	db_bind_int64(s, 1, max);
	return unread_rows(st, s, fn, ctx, e);
}
