/*
 * maildir.h - a local Maildir as the daemon's source of mail and as the
 * sink its replies go to (the embedded default: no servers needed).
 *
 * Source: maildir_list() names the messages of new/ (and cur/ when asked,
 * for a backfill) in name order, which for names made by the usual
 * "TIME.UNIQUE.HOST" scheme is delivery order.  maildir_read() reads one;
 * maildir_mark_seen() moves new/NAME to cur/NAME:2,S (or adds S to the
 * flags of a cur/ name), as a mail reader does.
 *
 * Sink: maildir_deliver() writes a message with the tmp/ -> new/ protocol:
 * a unique name, the file written and fsync'ed in tmp/, linked into new/
 * (never overwriting), the directory fsync'ed.  A reader never sees a
 * partial file.  CRLF line ends become LF, the Maildir convention.
 *
 * Names handed in (maildir_read, maildir_mark_seen) must be "new/BASE" or
 * "cur/BASE" as maildir_list gives them: anything with another '/', a
 * leading '.' or a NUL is refused, so a name can never leave the Maildir.
 */
#ifndef TAGBOT_MAILDIR_H
#define TAGBOT_MAILDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/err.h"

#define MAILDIR_MAX_ENTRIES	1000000	/* names listed per call; more are left for later */
#define MAILDIR_NAME_MAX	255	/* one file name */

struct maildir {
	char *path;	/* owned; the directory holding cur/ new/ tmp/ */
};

/* Allocates nothing. */
void maildir_init(struct maildir *md);

/*
 * Opens path as a Maildir: cur/, new/ and tmp/ must exist, unless create is
 * set (then they are made, mode 0700).
 */
int maildir_open(struct maildir *md, const char *path, bool create, struct err *e);
void maildir_release(struct maildir *md);

struct maildir_list {
	char **names;	/* owned; "new/BASE" or "cur/BASE", new/ first, each sorted */
	size_t n, alloc;
};

void maildir_list_init(struct maildir_list *l);
void maildir_list_release(struct maildir_list *l);

/* Lists regular files of new/ and, when with_cur, of cur/.  Names starting
 * with '.' are skipped.  l is emptied first. */
int maildir_list(const struct maildir *md, bool with_cur, struct maildir_list *l,
		 struct err *e);

/* Reads name whole into out (reset first).  A file larger than max bytes
 * is an ERR_FINAL error naming it; the caller logs and skips it. */
int maildir_read(const struct maildir *md, const char *name, struct buf *out,
		 size_t max, struct err *e);

/*
 * Marks name seen: new/BASE -> cur/BASE:2,S; cur/BASE:2,FLAGS -> the same
 * with S added in ASCII order; a cur/ name without an info part gets ":2,S".
 * *newname (may be NULL) receives the new "cur/..." name (malloc'ed).  A
 * name that already carries S is left as it is.
 */
int maildir_mark_seen(const struct maildir *md, const char *name, char **newname,
		      struct err *e);

/*
 * The first file of new/ and cur/, in maildir_list()'s order and among its
 * first max_files, whose header has a Message-ID with msgid's key
 * (msgid_key(): the list copy and a Cc copy match), as msgid_from_raw()
 * finds it.  *name is its name (malloc'ed), NULL when none has it or
 * msgid has no key; a file that cannot be read is passed over.
 */
int maildir_find_msgid(const struct maildir *md, const char *msgid, size_t max_files,
		       char **name, struct err *e);

/* Reads at most max bytes of the start of name into out (reset first):
 * enough for its header.  A shorter file is read whole. */
int maildir_read_head(const struct maildir *md, const char *name, struct buf *out,
		      size_t max, struct err *e);

/* Delivers len bytes at data; *name (may be NULL) receives "new/BASE". */
int maildir_deliver(const struct maildir *md, const char *data, size_t len, char **name,
		    struct err *e);

/* The flags-and-info name of mark_seen, exposed for tests: BASE -> new
 * base (malloc'ed), or NULL when base already has S. */
char *maildir_seen_name(const char *base);

#endif
