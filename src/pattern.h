/*
 * pattern.h - the PCRE2 wrapper; the only module that includes pcre2.h.
 *
 * Patterns are compiled once (at start and on reload).  Matching runs with
 * a match limit and a depth limit so that a pathological admin pattern
 * cannot stall the daemon: hitting a limit counts as "no match" and is
 * reported through the return value.
 */
#ifndef TAGBOT_PATTERN_H
#define TAGBOT_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define PATTERN_MATCH_LIMIT	100000
#define PATTERN_DEPTH_LIMIT	1000
#define PATTERN_HEAP_LIMIT	20000	/* KiB of backtracking memory per match */
#define PATTERN_MAX_SOURCE	4096	/* bytes of pattern text accepted */

enum {
	PATTERN_CASELESS = 1 << 0,
	PATTERN_MULTILINE = 1 << 1
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
	PATTERN_LIMIT = -1	/* match or depth limit hit; treat as no match, log it */
};

/*
 * Matches p against n bytes at s.  On PATTERN_MATCH, *cap_off and *cap_len (when
 * non-NULL) receive capture group 1 (or the whole match when the pattern has
 * no group).
 */
enum pattern_result pattern_match(const struct pattern *p, const char *s, size_t n,
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
