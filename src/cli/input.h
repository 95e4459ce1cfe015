/*
 * input.h - where mails come from for `tagbot check`: message files, mbox
 * files (mboxo and mboxrd, streamed: never read whole), Maildirs (cur/ and
 * new/), directories of .eml files, and "-" for standard input (a single
 * message or an mbox).  Any mix, in argument order.
 */
#ifndef TAGBOT_INPUT_H
#define TAGBOT_INPUT_H

#include <stddef.h>

#include "lib/err.h"

/* One message handed out by input_next(); valid until the next call. */
struct input_msg {
	char *data;		/* foreign: raw bytes (mboxrd ">From " unescaped),
				 * NUL-terminated; the caller may change them
				 * (data[len] too), message_parse_in_place() does */
	size_t len;
	const char *file;	/* foreign: the path as given ("-" for stdin) */
	size_t index;		/* 1-based position of the message in its file */
	size_t lineno;		/* line of its first byte in the file (mbox), else 1 */
};

struct input;	/* opaque */

/* Prepares to read paths in order; opens nothing yet.  Never fails. */
struct input *input_new(const char *const *paths, size_t npaths);

enum input_status {
	INPUT_END = 0,		/* no more messages */
	INPUT_OK = 1,		/* *m holds a message */
	INPUT_SKIP = -1		/* one item failed (unreadable file, over-size
				 * message): e says which and why, m->file names
				 * the file (data NULL); call again */
};

enum input_status input_next(struct input *in, struct input_msg *m, struct err *e);

/* Sets the largest message handed out (default MESSAGE_MAX_SIZE); a larger
 * one gives INPUT_SKIP.  For tests, which cannot afford 128 MB each time. */
void input_set_max_size(struct input *in, size_t max);

void input_free(struct input *in);

#endif
