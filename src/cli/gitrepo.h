/*
 * gitrepo.h - what `tagbot check` asks a git repository: the commits a
 * message cites (UNKNOWN_COMMIT_ID, the subject in Fixes:) and, for --git,
 * the commits of a range.  The only module that runs git.
 *
 * git itself, through its plumbing, not libgit2: git is on every machine
 * that has a kernel tree, so it costs no new build dependency; it reads
 * every repository format the installed git reads (a libgit2 a release
 * behind refuses new extensions); and it is what checkpatch.pl runs, so
 * both resolve a short id the same way.  Speed comes from running few
 * processes: one `git cat-file --batch` for every id of the whole run, fed
 * on its standard input, and one `git log` for a whole range.
 *
 * The rules never do I/O.  The caller looks up first, then hands the facts
 * to the rules, as with link lookups (lookup.h):
 *
 *	gitrepo_facts(repo, patch, &facts, &e);
 *	rules_run_facts(patch, settings, NULL, &facts, &findings);
 *
 * Errors follow err.h: 0 or -1 with e filled (ERR_FINAL).
 */
#ifndef TAGBOT_GITREPO_H
#define TAGBOT_GITREPO_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/commitref.h"
#include "lib/err.h"

#define GITREPO_MAX_OBJECT	((size_t)1024 * 1024) /* bytes of a commit object read */
#define GITREPO_MAX_RANGE	256	/* bytes of a --git range */

struct gitrepo;	/* opaque: the directory, the cat-file process */
struct patch;

/*
 * Opens the repository that dir (NULL: the current directory) is in.
 * With dir NULL, a directory outside any repository, or no git installed,
 * is no error: *out is NULL and the lookups are skipped, never guessed.
 * A dir given (--tree) that is no repository is an error.  Starts no
 * long-running process yet.
 */
int gitrepo_open(struct gitrepo **out, const char *dir, struct err *e);

/* Stops the cat-file process (waits for it) and frees g.  NULL is fine. */
void gitrepo_free(struct gitrepo *g);

/*
 * Looks up every id p's commit message cites (commitref_find(), at most
 * COMMITREF_MAX_REFS) and appends one fact per distinct id to out.  g NULL
 * appends nothing.  When git fails, the ids it did not answer stay
 * COMMIT_UNSETTLED, the lookups are switched off for the rest of the run,
 * and -1 says why once.
 */
int gitrepo_facts(struct gitrepo *g, const struct patch *p, struct commit_facts *out,
		  struct err *e);

/* One commit of a range, as a mail that patch_parse() reads like
 * git format-patch output. */
struct gitrepo_commit {
	char oid[COMMITREF_SHA_MAX + 1];
	char *mail;		/* owned by the log: valid until the next call */
	size_t len;
	size_t body_line;	/* line of the commit message (subject = 1) where the
				 * mail's text starts */
};

struct gitrepo_log;	/* opaque: a running `git log` */

/*
 * Starts `git log --no-merges --reverse -p` (oldest first, merges left
 * out, as checkpatch -g) over range, read as checkpatch -g reads it: "A..B"
 * (or "A...B") a range, "REV-N" the N commits up to REV, anything else the
 * one commit it names.  range must not start with '-'.
 */
int gitrepo_log_open(struct gitrepo *g, const char *range, struct gitrepo_log **out,
		     struct err *e);

enum gitrepo_next {
	GITREPO_END = 0,
	GITREPO_COMMIT = 1,	/* *c holds a commit */
	GITREPO_SKIP = -1	/* one commit too large: e says which; call again */
};

enum gitrepo_next gitrepo_log_next(struct gitrepo_log *l, struct gitrepo_commit *c,
				   struct err *e);

/* Waits for git; -1 when it failed (a bad range: git said why on stderr). */
int gitrepo_log_close(struct gitrepo_log *l, struct err *e);

#endif
