/*
 * fix.h - `tagbot check --fix`: the mechanical corrections of a patch's
 * commit message, as edits to lines of its text.  Pure: fix_plan() reads a
 * parsed patch (and what the repository said of its commits) and says what
 * to change; fix_write() applies edits while copying a file.
 *
 * Only what has one right answer is fixed:
 *  - a standard tag's spelling and spacing: "signed-off-by :  X" becomes
 *    "Signed-off-by: X" (the -by tags, Fixes, Link, Closes, Cc), white space
 *    before a -by tag dropped;
 *  - a Fixes: tag whose commit the repository knows: "Fixes: <12 hex>
 *    (\"<its subject>\")" (never outside a repository: no guessing);
 *  - "Cc: Name <stable@vger.kernel.org>": the name moves to the note,
 *    "Cc: stable@vger.kernel.org # Name" ("# note (Name)" beside a note);
 *  - "Reported-and-tested-by: X": "Reported-by: X" and "Tested-by: X";
 *  - version notes ("v2: ...", "Changes in v3:" and the rest of their
 *    paragraph) moved from the commit message to just below "---".
 * Everything else is left for the human.  Nothing at or after the
 * separator is changed: the notes go in right after the "---" line, so the
 * diff stays byte for byte.
 */
#ifndef TAGBOT_FIX_H
#define TAGBOT_FIX_H

#include <stdio.h>

#include "mail/commitref.h"
#include "mail/patch.h"

enum fix_op {
	FIX_REPLACE,	/* line becomes text (which may hold several lines) */
	FIX_DELETE,	/* line goes */
	FIX_APPEND	/* text goes in after line */
};

struct fix_edit {
	size_t line;		/* 1-based; decoded text lines from fix_plan() */
	enum fix_op op;
	char *text;		/* owned; lines separated by LF (a final LF adds a blank
				 * line); NULL for DELETE */
};

struct fix_edits {
	struct fix_edit *v;	/* owned */
	size_t n, alloc;
	size_t fixes;		/* corrections counted for the user (one per fixed line
				 * or moved block) */
};

void fix_edits_init(struct fix_edits *e);
void fix_edits_release(struct fix_edits *e);

/*
 * Appends the corrections of p's commit message to out, in lines of the
 * decoded text.  commits (NULL outside a repository) has the facts
 * gitrepo_facts() gathered for p.  A patch that is not KIND_PATCH, or whose
 * version notes have no "---" to go under, gets those fixes left out.
 */
void fix_plan(const struct patch *p, const struct commit_facts *commits, struct fix_edits *out);

/* Adds delta to every edit's line from index first on (decoded text lines
 * -> lines of the file). */
void fix_edits_shift(struct fix_edits *e, size_t first, size_t delta);

/*
 * Copies in to out line by line, applying edits (lines of in, sorted by
 * fix_write itself).  Replaced and added lines take the line ending of
 * the line they stand for (CRLF stays CRLF).  0, or -1 on a read or write
 * error (errno set).
 */
int fix_write(FILE *in, FILE *out, struct fix_edits *edits);

#endif
