/*
 * scratch.h - a private temporary directory for a throw-away state
 * database: `tagbot replay` and `tagbot run --dry-run` decide into one, so
 * they run the daemon's own store paths without touching [tagbot] state.
 *
 * The directory is made with mkdtemp() under $TMPDIR (else /tmp), mode
 * 0700; everything in it is ours, and scratch_release() removes it all.
 */
#ifndef TAGBOT_SCRATCH_H
#define TAGBOT_SCRATCH_H

#include "lib/err.h"

struct scratch {
	char *dir;	/* owned; NULL until scratch_create() */
	char *db;	/* owned; dir + "/state.db", not created here */
};

/* Allocates nothing. */
void scratch_init(struct scratch *s);

/*
 * Creates the directory "tagbot-WHAT-XXXXXX" and sets s->db to the
 * database path in it.  The file itself is left to the store: an empty one
 * made here would be refused as not a database.  -1 (ERR_FINAL) when the
 * directory cannot be made.
 */
int scratch_create(struct scratch *s, const char *what, struct err *e);

/* Removes the files in the directory and the directory; frees s. */
void scratch_release(struct scratch *s);

#endif
