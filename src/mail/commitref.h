/*
 * commitref.h - the commits a commit message names: "Fixes: <id> (...)"
 * tags and prose citations "commit <id> ("<subject>")" (tagbot-rules(7),
 * BAD_FIXES_TAG and GIT_COMMIT_ID).  Pure functions over memory: the rules
 * read the form, gitrepo.c looks the ids up, --fix rewrites Fixes: lines.
 */
#ifndef TAGBOT_COMMITREF_H
#define TAGBOT_COMMITREF_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/trailer.h"

#define COMMITREF_ID_MIN	5	/* shorter hex words are not commit ids */
#define COMMITREF_SHA_MIN	12	/* tagbot-rules(7): at least 12 hex characters */
#define COMMITREF_SHA_MAX	40	/* a SHA-1 */
#define COMMITREF_LOOKAHEAD	2	/* a citation's subject may wrap onto 2 more lines */
#define COMMITREF_MAX_REFS	64	/* commits of one message looked at */

/* A line someone meant as a Fixes tag, split up as written. */
struct commitref_fixes {
	bool exact_tag;		/* begins "Fixes: " + the id */
	bool commit_word;	/* "Fixes: commit <id>" */
	bool id_inside;		/* "Fixes: ("<id> <subject>")": the id in the parentheses */
	bool id_bracketed;	/* "Fixes: <id> (...)" or "[id]": a placeholder's brackets kept */
	const char *id;		/* foreign: into the line */
	size_t id_len;
	const char *rest;	/* foreign: after the id */
	const char *end;	/* foreign: end of the line, trailing white space dropped */
};

/*
 * Whether l is a Fixes tag: "Fixes" (any case), an optional colon, an
 * optional "commit", then a hex word of COMMITREF_ID_MIN or more; after a
 * colon the hex word may also open the parentheses, ("<id> <subject>")
 * (id_inside), followed by a blank, or stand in the brackets of the
 * documents' placeholder, <id> or [id] (id_bracketed).  Without
 * a colon the line must still look like a tag (in_block: it is in the
 * trailer block; or nothing but "(...)" after the id), so prose such as
 * "Fixes decade-old bug" or "fixes 1234567 which" is not one.
 */
bool commitref_fixes_parse(const struct line *l, bool in_block, struct commitref_fixes *f);

/*
 * Whether a citation "commit <hex>" starts at s[i] (n bytes at s): the word
 * "commit" (any case, not inside a word), blanks, COMMITREF_ID_MIN or more
 * hex digits not followed by a letter, digit or '_'.  Backport and revert
 * markers ("commit <id> upstream", "[ Upstream commit <id> ]", "cherry
 * picked from commit <id>", "This reverts commit <id>") are no citations.
 * Sets *id and *id_len.
 */
bool commitref_cite_at(const char *s, size_t n, size_t i, const char **id, size_t *id_len);

/*
 * The subject in ("...") right after an id: rest points just past the id,
 * end at the end of the text.  For a Fixes: tag (last true) the subject
 * runs to the last "\")"; in prose to the first one.  *subj and *len are
 * set and true returned when there is one.
 */
bool commitref_subject(const char *rest, const char *end, bool last, const char **subj,
		       size_t *len);

/* Subjects compared as written, runs of white space as one space. */
bool commitref_same_subject(const char *a, size_t alen, const char *b, size_t blen);

/* Whether l is "commit <40 hex>" alone: a quoted git log header, no citation. */
bool commitref_log_header(const struct line *l);

struct buf;

/* Line i of lines with up to COMMITREF_LOOKAHEAD following lines of its
 * paragraph, one space between, into b (reset first). */
void commitref_join(const struct line *lines, size_t nlines, size_t i, struct buf *b);

enum commitref_kind {
	COMMITREF_FIXES,	/* a Fixes: tag */
	COMMITREF_PROSE		/* "commit <id>" in the message */
};

/* One commit named in a commit message. */
struct commitref {
	enum commitref_kind kind;
	size_t line;		/* index into the lines given to commitref_find() */
	char *id;		/* owned; the hex as written */
	char *subject;		/* owned; the ("...") given with it, NULL when none */
};

struct commitrefs {
	struct commitref *v;	/* owned */
	size_t n, alloc;
};

void commitrefs_init(struct commitrefs *r);
void commitrefs_release(struct commitrefs *r);

/*
 * Every Fixes: tag and every citation among nlines lines of a commit
 * message whose trailer block starts at block_start, in line order.  A
 * prose subject may wrap onto COMMITREF_LOOKAHEAD following lines of its
 * paragraph (joined with one space).  At most max entries.
 */
void commitref_find(const struct line *lines, size_t nlines, size_t block_start, size_t max,
		    struct commitrefs *out);

/* What the repository says of an id (gitrepo.c fills these). */
enum commit_status {
	COMMIT_UNSETTLED = 0,	/* not asked, ambiguous, git failed: never a finding */
	COMMIT_FOUND,		/* a commit */
	COMMIT_MISSING,		/* no object of that name */
	COMMIT_NOT_COMMIT	/* an object, but a tree, blob or tag */
};

struct commit_fact {
	char *id;		/* owned; the hex as written in the message */
	enum commit_status status;
	char oid[COMMITREF_SHA_MAX + 1];	/* the full id (COMMIT_FOUND, _NOT_COMMIT) */
	char *subject;		/* owned; its subject as git log %s gives it, "" unknown */
	char type[16];		/* the object type (COMMIT_NOT_COMMIT) */
};

/* The facts gathered for one patch before the rules run. */
struct commit_facts {
	struct commit_fact *v;	/* owned */
	size_t n, alloc;
};

void commit_facts_init(struct commit_facts *f);
void commit_facts_release(struct commit_facts *f);
/* A new entry for id (n bytes), status COMMIT_UNSETTLED. */
struct commit_fact *commit_facts_add(struct commit_facts *f, const char *id, size_t n);
/* The fact for id as written (case-sensitive), or NULL. */
const struct commit_fact *commit_facts_find(const struct commit_facts *f, const char *id);

#endif
