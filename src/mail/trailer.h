/*
 * trailer.h - trailer lines and the trailer block of a commit message
 * (tagbot-rules(7) THE MODEL, "Trailer block").  Pure functions over memory, after
 * git's trailer.c.
 */
#ifndef TAGBOT_TRAILER_H
#define TAGBOT_TRAILER_H

#include <stdbool.h>
#include <stddef.h>

#define TRAILER_MAX		10000	/* trailers_parse() returns at most this many */

/* One line of text inside a larger buffer (not owned, not NUL-terminated). */
struct line {
	const char *p;	/* foreign: points into the patch text */
	size_t len;	/* without the LF */
	size_t lineno;	/* 1-based line of the decoded text (tagbot-rules(7) THE MODEL) */
};

enum trailer_kind {
	TRAILER_TAG,		/* Token: value */
	TRAILER_NOTE,		/* [ tglx: ... ] handler note */
	TRAILER_COMMENT,	/* # comment */
	TRAILER_CONTINUATION	/* starts with white space; belongs to the previous TAG */
};

/* A parsed trailer-shaped line. */
struct trailer {
	enum trailer_kind kind;
	struct line line;	/* the raw first line */
	bool in_block;		/* part of the trailer block (else a tag-shaped line in the prose) */

	/* For TRAILER_TAG (all owned, NUL-terminated): */
	char *token;		/* as written, e.g. "Signed-Off-By" */
	char *value;		/* after the colon, trimmed, continuation lines joined by one space */
	size_t lead_ws;		/* white space before the token */
	size_t space_after_colon; /* count of spaces/tabs between ':' and value */
	bool has_colon;		/* false for "Fixes abcdef..." forms kept for BAD_FIXES_TAG */
};

/*
 * Classifies one line.  Returns the kind, or -1 when the line is not
 * trailer-shaped.  For TRAILER_TAG the token is letters, digits and '-',
 * starting with a letter, followed (after optional white space) by ':'.
 * A ':' followed by "//" is a URL ("https://..."), not a trailer.  A line
 * that starts with white space is a TRAILER_CONTINUATION, except when what
 * follows is a tag whose token ends in "-by" (" Signed-off-by: ..."): that
 * is a TRAILER_TAG with lead_ws > 0, so BAD_SIGN_OFF can see it.  A note is
 * a line "[...]" or one starting "[ word:" / "[who@x:".  Blank lines: -1.
 */
int trailer_classify(const char *p, size_t len);

/*
 * Finds the trailer block among nlines lines of a commit message (already
 * cut at the patch separator), as git's trailer code does.  The tail of the
 * message is set aside first (git's ignore_non_trailer()): a run of empty
 * lines (a line of spaces is none), '#' comments and old-style conflicts
 * blocks (a line that is exactly "Conflicts:", then lines starting with a
 * TAB) that goes on to the end.  Above it, the block is the last paragraph
 * when every line is a trailer, continuation, note or comment, or when at
 * least a quarter of its lines are trailers and one is Signed-off-by:.
 * Returns the index of its first line, or nlines when there is none; *end,
 * when end is not NULL, gets the index past its last line (the blank lines
 * and the tail below it are no part of it), nlines when there is none.  In
 * the quarter case, prose lines at the top of the paragraph ("Fix
 * it.\nSigned-off-by: ...") are not part of the block: it starts at the
 * paragraph's first trailer, note or comment.  Continuation lines do not
 * count as lines; comments are ignored when counting (as in git).  Linear
 * in nlines.
 */
size_t trailer_block_find(const struct line *lines, size_t nlines, size_t *end);

/*
 * Parses lines[start..nlines) (the block: nlines is its end from
 * trailer_block_find(), the tail below it is left out) plus every
 * TRAILER_TAG-shaped line before it (with in_block false) into a new array
 * *out of *nout trailers (caller frees with trailers_free).  Continuation
 * lines are joined into the preceding tag's value and not returned
 * separately (only inside the block: prose lines are never joined).  A
 * line "Fixes <hex>..." (any case, no colon, the word after it all hex, 5+
 * long, with a digit) is returned as a TRAILER_TAG with has_colon false,
 * wherever it is; "Fixes decade-old bug" and "Fixes faded LEDs" are not.
 * Non-trailer lines inside the block are skipped.  For NOTE and
 * COMMENT entries token is "" and value the whole line, trimmed.  At most
 * TRAILER_MAX entries; *out is NULL when *nout is 0.
 */
void trailers_parse(const struct line *lines, size_t nlines, size_t start,
		    struct trailer **out, size_t *nout);
void trailers_free(struct trailer *t, size_t n);

/*
 * The URL or address part of a trailer value: the value up to " # " (a
 * comment), trimmed.  Returns a malloc'ed string.
 */
char *trailer_value_main(const char *value);

/* True when token equals name case-insensitively. */
bool trailer_is(const struct trailer *t, const char *name);

#endif
