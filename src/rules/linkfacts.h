/*
 * linkfacts.h - what is known of the links of a patch, as the rules take
 * it (tagbot-rules(7) LINKS: LINK_NO_NEW_INFO, LINK_DEAD, LINK_TO_PREVIOUS_
 * VERSION, LINK_TO_OWN_SERIES).  Plain data: the archive client
 * (transport/lookup.h) and the daemon's store (daemon/linkstore.h) fill
 * it, the rules read it, and neither side needs the other's header:
 *
 *	struct lookup_results res;
 *
 *	lookup_results_init(&res);
 *	linkstore_results(st, p, np, &settings->archives, &res, &e);	// daemon
 *	lookup_fetch(lk, rq, n, &settings->archives, &e);		// transport
 *	rules_run_lookups(&p[0], settings, &res, &findings);		// rules
 *	lookup_results_release(&res);
 */
#ifndef TAGBOT_LINKFACTS_H
#define TAGBOT_LINKFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/trailer.h"

#define LOOKUP_MAX_URLS		32	/* links of one patch looked up; the rest are logged */
#define LOOKUP_MAX_URL_LEN	2048	/* longer URLs are not looked up */

enum lookup_status {
	LOOKUP_UNKNOWN = 0,	/* not asked, failed, timed out, 5xx, garbage: never a finding */
	LOOKUP_ALIVE,		/* answered with something other than 404/410 */
	LOOKUP_DEAD		/* 404 or 410, or the host does not resolve */
};

/* "unknown", "alive", "dead". */
const char *lookup_status_name(enum lookup_status s);

struct lookup_result {
	char *url;		/* owned; the URL as written in the patch, label cut */
	char *msgid;		/* owned; the Message-ID it names, NULL for a plain URL */
	enum lookup_status status;
	long http_code;		/* the last HTTP status, 0 when none */
	bool cached;		/* taken from the cache, nothing was fetched */

	/* The linked message, for an archive URL answered LOOKUP_ALIVE: */
	bool is_patch;		/* its subject carries [PATCH (and is no reply) */
	int version;		/* its series version, 1 when not given */
	char *subject;		/* owned; its subject without the bracket prefix; "" unknown */
	char *author;		/* owned; its author's address; "" unknown */
	char *sender;		/* owned; its header From: address (a relay); "" unknown */
	int others;		/* thread entries by someone other than author/sender; -1 unknown */

	/* What the daemon's store knows of the linked message (linkstore_results;
	 * such a result is never fetched: the finding does not depend on it): */
	bool earlier_version;	/* an earlier version of this patch (LINK_TO_PREVIOUS_VERSION) */
	bool same_series;	/* a message of this patch's series (LINK_TO_OWN_SERIES) */
};

struct lookup_results {
	struct lookup_result *v;	/* owned */
	size_t n, alloc;
};

/* Frees the contents of one result. */
void lookup_result_release(struct lookup_result *r);

void lookup_results_init(struct lookup_results *r);
void lookup_results_release(struct lookup_results *r);
/* The result for the URL of n bytes, or NULL. */
const struct lookup_result *lookup_results_find(const struct lookup_results *r,
						const char *url, size_t n);

/*
 * When l starts (column 0, any case) with "Link:" or "Closes:" and an
 * http(s) URL, points *url and *n at the URL without a label written against
 * it ("...[1]", "...(v1)"), sets *is_link (false for Closes:) and returns
 * true.  The URL ends at white space, as in rules/links.c.
 */
bool lookup_link_line(const struct line *l, const char **url, size_t *n, bool *is_link);

#endif
