/*
 * series.h - which patches form one series.
 *
 * A series is a cover letter ("[PATCH v2 0/3]") and its patches ("1/3" ..
 * "3/3"), or the patches alone.  Members are found by threading first:
 * a patch answering the cover letter (In-Reply-To, or a References entry),
 * a patch answering a sibling (no cover: 2/3 and 3/3 answer 1/3; deep
 * threading: each answers the one before), two patches answering the same
 * message (the cover, not arrived yet), a cover letter that patches seen
 * earlier refer to (a late cover).  Threading joins only parts of the same
 * version and total, so a v2 sent in reply to v1's cover letter starts a
 * series of its own; the one exception is a part whose version tag was left
 * off ("[PATCH 1/7]" beside "[PATCH v4 2/7]"), same total, sent within
 * SERIES_TAGLESS of the other.  Mail without threading headers is grouped
 * by sender, version and total within SERIES_WINDOW, never two parts with
 * one index.
 *
 * The pure functions below look at two contexts; series_assign() asks the
 * store for the candidates and keeps the result there.
 */
#ifndef TAGBOT_SERIES_H
#define TAGBOT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "mail/context.h"
#include "lib/err.h"
#include "store/store.h"

#define SERIES_WINDOW		(6 * 3600)	/* seconds: unthreaded parts grouped */
#define SERIES_TOTAL_MAX	999		/* larger totals are not grouped */
#define SERIES_TAGLESS		300		/* seconds: an untagged part joins its thread */

/* Whether c is a part of a series: a patch or cover letter with an n/m
 * (1 <= total <= SERIES_TOTAL_MAX, index <= total). */
bool series_is_part(const struct msg_context *c);

/* Whether a and b are parts of one series by their threading: same
 * version and total (or a version tag left off, see above), and one refers
 * to the other, or both answer the same message.  Symmetric. */
bool series_linked(const struct msg_context *a, const struct msg_context *b);

/* Whether a and b, neither with threading headers, are parts of one
 * series by sender, version and total, sent within window seconds, with
 * different indexes.  Symmetric. */
bool series_window_match(const struct msg_context *a, const struct msg_context *b, long window);

/* What is known of a series' parts, for series_complete(). */
struct series_view {
	int total;
	bool have_cover;	/* index 0 arrived */
	bool cover_expected;	/* the first patch answers a message not seen yet */
	int nhave;		/* distinct indexes 1..total arrived */
};

/* Adds one member's index to v (duplicates and indexes past total are
 * ignored; bits is a caller array of total + 1 bools, zeroed). */
void series_view_add(struct series_view *v, bool *bits, int index);

/* All of 1..total have arrived, and the cover letter too when one is
 * expected: the series reply need not wait any longer. */
bool series_complete(const struct series_view *v);

/*
 * Whether c, a patch without n/m, is a file caught in the send of the
 * series whose cover letter parent is: it answers that cover, by the same
 * sender, within SERIES_TAGLESS ("[PATCH v5] test" between "[PATCH v9 1/4]"
 * and "2/4").  Not a submission: the daemon leaves it unanswered.
 */
bool series_stray(const struct msg_context *c, const struct msg_context *parent);

/*
 * When a pending series' reply is due once a part arrived at now: the wait
 * runs from the latest part, since some senders take a minute a patch, but
 * never past SERIES_STRETCH waits after the first part.  A later deadline
 * (a rate limit's) is kept.
 */
#define SERIES_STRETCH		6
time_t series_deadline(time_t first, time_t deadline, time_t now, long wait);

/* A part arriving, for series_assign(). */
struct series_arrival {
	const struct msg_context *c;	/* foreign; the part */
	enum store_series_state state;	/* a new series' state */
	time_t deadline;		/* and deadline */
	const char *raw;		/* foreign; its mail (may be NULL) */
	size_t len;
	const char *findings;		/* foreign; the caller's text (may be NULL) */
};

/*
 * Finds or creates the series of a->c (series_is_part() must hold; it is
 * in the store's context table already or not) and adds it to it.  A new
 * series gets a->state and a->deadline; raw and findings are kept while
 * the series is pending (store_series_add).  Several series the part links
 * together are merged.  *id: the series, malloc'ed.
 */
int series_assign(struct store *st, const struct series_arrival *a, char **id, struct err *e);

#endif
