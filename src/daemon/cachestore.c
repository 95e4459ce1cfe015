#include "autoconf.h"

#include "daemon/cachestore.h"
#include "store/store.h"

_Static_assert(LOOKUP_CACHE_DATA_MAX <= STORE_CACHE_DATA_MAX,
	       "the store must keep every entry the lookup writes");

/* The two entry types are kept apart on purpose (neither module includes the
 * other's header); they carry the same four fields. */
static int cache_get(void *aux, const char *key, struct lookup_cache_entry *out, bool *found,
		     struct err *e)
{
	struct store_cache_entry ce;
	int rc = store_cache_get(aux, key, &ce, found, e);

	out->status = ce.status;
	out->fetched_at = ce.fetched_at;
	out->data = ce.data;
	out->len = ce.len;
	return rc;
}

static int cache_put(void *aux, const char *key, const struct lookup_cache_entry *in,
		     struct err *e)
{
	struct store_cache_entry ce = { in->status, in->fetched_at, in->data, in->len };

	return store_cache_put(aux, key, &ce, e);
}

const struct lookup_cache *cachestore_init(struct lookup_cache *c, struct store *st)
{
	if (!st)
		return NULL;
	c->get = cache_get;
	c->put = cache_put;
	c->aux = st;
	return c;
}
