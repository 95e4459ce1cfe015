/*
 * linkstore.h - what the daemon's store knows of the links of a patch:
 * whether a Link: names an earlier version of the same work or a message
 * of the same series, from the context (mail/context.h) of every message
 * the daemon saw.  No network.  The rules read the answer as link facts
 * (rules/linkfacts.h), like what the archive said:
 *
 *	struct linkstore ls = { d->st, &cfg->rules.archives, now };
 *
 *	linkstore_results(&ls, p, np, &res, &e);
 *	lookup_cached(lk, p, np, &cfg->rules.archives, &res);	// skips what res holds
 */
#ifndef TAGBOT_LINKSTORE_H
#define TAGBOT_LINKSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/err.h"
#include "lib/pattern.h"
#include "mail/context.h"
#include "mail/patch.h"
#include "rules/linkfacts.h"

struct store;

/*
 * Whether target (a Message-ID key) is known as an earlier version of the
 * work c describes (same change-id, or same subject and sender, with a
 * lower version).  *yes false when the store does not know target.
 */
int linkstore_earlier_version(struct store *st, const struct msg_context *c, const char *target,
			      bool *yes, struct err *e);
/* Whether target is part of the same series as c (its cover letter or a
 * sibling patch): same version and total, linked by threading or grouped
 * into one series by the store. */
int linkstore_same_series(struct store *st, const struct msg_context *c, const char *target,
			  bool *yes, struct err *e);


/* The store as the links of one mail are looked up in it. */
struct linkstore {
	struct store *st;			/* NULL: nothing is known */
	const struct pattern_list *archives;	/* whose URLs name a Message-ID */
	time_t now;	/* the daemon's clock (under replay, the mail's date): an
			 * unthreaded series mate is one within the series
			 * window of it */
};

/*
 * A result with earlier_version or same_series appended to out for each
 * Link: of the np parts of one mail that names a known earlier version of
 * that part or a message of its series (status LOOKUP_UNKNOWN: nothing was
 * fetched).  Call it before lookup_cached()/lookup_fetch(): they skip the
 * URLs out holds already.  -1 only on a store error (out keeps what it
 * got).
 */
int linkstore_results(const struct linkstore *ls, const struct patch *p, size_t np,
		      struct lookup_results *out, struct err *e);

#endif
