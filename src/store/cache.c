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
	struct db_stmt *s;
	int rc;

	memset(out, 0, sizeof(*out));
	*found = false;
	if (cache_key_ok(st, key, e) < 0)
		return -1;
	s = db_stmt(st, S_CACHE_GET);
	db_bind_text(s, 1, key);
	rc = db_step(s);
	if (rc == DB_ROW) {
		size_t len;
		const void *blob = db_col_blob(s, 2, &len);

		out->status = db_col_int(s, 0);
		out->fetched_at = (time_t)db_col_int64(s, 1);
		out->data = xmalloc(len + 1);
		if (len)
			memcpy(out->data, blob, len);
		out->data[len] = '\0';
		out->len = len;
		*found = true;
	}
	db_reset(s);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "reading the lookup cache");
	return 0;
}

int store_cache_put(struct store *st, const char *key, const struct store_cache_entry *in,
		    struct err *e)
{
	struct db_stmt *s;
	int rc;

	if (cache_key_ok(st, key, e) < 0)
		return -1;
	if (in->len > STORE_CACHE_DATA_MAX)
		return err_set(e, ERR_FINAL, "store %s: oversized cache entry", st->path);
	s = db_stmt(st, S_CACHE_PUT);
	db_bind_text(s, 1, key);
	db_bind_int64(s, 2, in->status);
	db_bind_int64(s, 3, (int64_t)in->fetched_at);
	db_bind_blob(s, 4, in->data, in->len);
	rc = db_step_done(s);
	return rc == DB_OK ? 0 : db_err(st, e, "writing the lookup cache");
}

int store_cache_prune(struct store *st, time_t before, long *deleted, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_CACHE_PRUNE);
	int rc;

	db_bind_int64(s, 1, (int64_t)before);
	rc = db_step_done(s);
	if (rc != DB_OK)
		return db_err(st, e, "pruning the lookup cache");
	if (deleted)
		*deleted = (long)db_changes(st->db);
	return 0;
}
