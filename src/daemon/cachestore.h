/*
 * cachestore.h - the store's lookup_cache table as the archive lookup's
 * cache (transport/lookup.h's struct lookup_cache), so that lookup.c needs
 * no store and the store no lookup:
 *
 *	struct lookup_cache lc;
 *
 *	lookup_new(&lk, &cfg->lookup, cachestore_init(&lc, st), &e);
 */
#ifndef TAGBOT_CACHESTORE_H
#define TAGBOT_CACHESTORE_H

#include "transport/lookup.h"

struct store;

/* Points c at st (foreign; it must outlive every lookup c is given to) and
 * returns c; NULL when st is NULL (no cache). */
const struct lookup_cache *cachestore_init(struct lookup_cache *c, struct store *st);

#endif
