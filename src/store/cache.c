/* cache.c - the lookup_cache table: what an archive lookup learnt, by URL. */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "store/store_p.h"

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
	s = db_stmt(st, S_CACHE_GET);
	db_bind_text(s, 1, key);
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
	s = db_stmt(st, S_CACHE_PUT);
	db_bind_text(s, 1, key);
	sqlite3_bind_int(s, 2, in->status);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)in->fetched_at);
	sqlite3_bind_blob64(s, 4, in->len ? in->data : "", in->len, SQLITE_STATIC);
	rc = db_step_done(s);
	return rc == SQLITE_OK ? 0 : db_err(st, rc, e, "writing the lookup cache");
}

int store_cache_prune(struct store *st, time_t before, long *deleted, struct err *e)
{
	sqlite3_stmt *s = db_stmt(st, S_CACHE_PRUNE);
	int rc;

	sqlite3_bind_int64(s, 1, (sqlite3_int64)before);
	rc = db_step_done(s);
	if (rc != SQLITE_OK)
		return db_err(st, rc, e, "pruning the lookup cache");
	if (deleted)
		*deleted = (long)sqlite3_changes(st->db);
	return 0;
}
