/*
 * pattern.h - the PCRE2 wrapper; the only module that includes pcre2.h.
 *
 * Patterns are compiled once (at start and on reload).  Matching runs with
 * a match limit and a depth limit so that a pathological admin pattern
 * cannot stall the daemon: hitting a limit counts as "no match" and is
 * reported through the return value.
 *
 * The limits bound one pcre2_match() call, that is one line; an admin's
 * rule runs on every line of a mail.  A budget bounds the pattern's work
 * over many calls (the custom rules take one per rule and message):
 *
 *	struct pattern_budget b;
 *
 *	pattern_budget_init(&b, PATTERN_BUDGET_STEPS);
 *	for (each line l)
 *		if (pattern_match_budget(p, &b, l.p, l.len, NULL, NULL) == PATTERN_SPENT)
 *			break;	// warn once: b.limited lines hit a limit
 *
 * A budget counts steps.  PCRE2 reports no count of the work a match did,
 * so a pattern compiled with PATTERN_STEPS gets an automatic callout before
 * each of its items (PCRE2_AUTO_CALLOUT) and pattern_match_budget() counts
 * them: one step is one item tried, again on every backtrack.  That is a
 * number of the pattern and the subject alone, so a budget stops at the
 * same line on every machine and every run, and the tests can say where.
 * A clock could not; and counting only the lines that hit the match limit
 * would miss the lines that stay just under it (^(a+)+$ on lines of 14 a's
 * and a '!' takes 49,000 steps each, 15 s for 20,000 of them).  Counting
 * makes a match about 1.3 to 1.5 times slower; start-of-match optimisations
 * (a literal first character, an anchor) skip whole lines without a step.
 */
#ifndef TAGBOT_PATTERN_H
#define TAGBOT_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

#define PATTERN_MATCH_LIMIT	100000
#define PATTERN_DEPTH_LIMIT	1000
#define PATTERN_HEAP_LIMIT	20000	/* KiB of backtracking memory per match */
#define PATTERN_MAX_SOURCE	4096	/* bytes of pattern text accepted */
/*
 * Steps of one custom rule on one message: about 0.25 s of matching on the
 * x86-64 machine it was measured on.  A plain pattern takes 5 to 80 steps
 * on a line of a diff, so a rule checks 125,000 or more such lines (the
 * line caps are 200,000) before the budget stops it; ^(a+)+$ stops after
 * 83 lines that hit the match limit (120,000 steps each) instead of
 * running for minutes.
 */
#define PATTERN_BUDGET_STEPS	10000000UL

enum {
	PATTERN_CASELESS = 1 << 0,
	PATTERN_MULTILINE = 1 << 1,
	PATTERN_STEPS = 1 << 2		/* countable by pattern_match_budget() */
};

struct pattern;	/* opaque */

/* Compiles re (UTF-8). On error returns NULL and e says "offset N: why". */
struct pattern *pattern_compile(const char *re, unsigned flags, struct err *e);
void pattern_free(struct pattern *p);
/* The source text the pattern was compiled from. */
const char *pattern_source(const struct pattern *p);

enum pattern_result {
	PATTERN_NOMATCH = 0,
	PATTERN_MATCH = 1,
	PATTERN_LIMIT = -1,	/* match or depth limit hit; treat as no match, log it */
	PATTERN_SPENT = -2	/* the budget ran out (pattern_match_budget only) */
};

/*
 * Matches p against n bytes at s.  On PATTERN_MATCH, *cap_off and *cap_len (when
 * non-NULL) receive capture group 1 (or the whole match when the pattern has
 * no group).
 */
enum pattern_result pattern_match(const struct pattern *p, const char *s, size_t n,
				  size_t *cap_off, size_t *cap_len);

/* What one pattern may still do over many matches (see the top). */
struct pattern_budget {
	unsigned long left;	/* steps */
	size_t limited;		/* matches that returned PATTERN_LIMIT */
	bool spent;		/* a match ran out of steps; every later one is PATTERN_SPENT */
};

void pattern_budget_init(struct pattern_budget *b, unsigned long steps);

/*
 * pattern_match() that charges its steps to b.  PATTERN_SPENT when b runs
 * out during this match or did before (then nothing is matched): that is
 * neither a match nor "no match".  A pattern compiled without PATTERN_STEPS
 * counts no steps, so only the limits bound it.
 */
enum pattern_result pattern_match_budget(const struct pattern *p, struct pattern_budget *b,
					 const char *s, size_t n,
					 size_t *cap_off, size_t *cap_len);

/* An ordered list of patterns (archive URL forms, bug trackers). */
struct pattern_list {
	struct pattern **v;	/* owned */
	size_t n, alloc;
};

void pattern_list_init(struct pattern_list *l);
/* Compiles and appends; -1 with e filled on a bad pattern. */
int pattern_list_add(struct pattern_list *l, const char *re, unsigned flags, struct err *e);
void pattern_list_release(struct pattern_list *l);
/* Index of the first pattern that matches, or -1; capture as pattern_match. */
int pattern_list_match(const struct pattern_list *l, const char *s, size_t n,
		       size_t *cap_off, size_t *cap_len);

#endif
