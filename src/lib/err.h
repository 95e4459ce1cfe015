/*
 * err.h - the one error convention of tagbot.
 *
 * A function that can fail returns 0 on success and -1 on failure, and on
 * failure fills the caller's struct err (when non-NULL) with a class and a
 * message that names the thing that failed ("message <id>: truncated MIME
 * part", "tagbot.ini: [rules] FOO: unknown rule ID").  The class tells a
 * loop what to do next: back off and retry, give up on this one item, or
 * keep it and wait for its service to be fixed.
 * Only main.c prints fatal errors and chooses the exit status.
 */
#ifndef TAGBOT_ERR_H
#define TAGBOT_ERR_H

#include <stdarg.h>

enum err_class {
	ERR_NONE = 0,
	ERR_TEMP,	/* transient: retry later (a dropped or refused
			 * connection, a timeout, a 4xx SMTP answer) */
	ERR_WAIT,	/* the store is busy: another process holds a lock or
			 * a transaction conflicts with ours; the daemon backs
			 * off and retries it as ERR_TEMP */
	ERR_FINAL,	/* give up on this item (bad input, 5xx, bad config) */
	ERR_SETUP	/* not this item's fault: the service it goes to is set up
			 * wrong (a certificate that does not verify, a refused
			 * login); keep the item, back off, tell a human */
};

#define ERR_MSG_MAX 512

struct err {
	enum err_class cls;
	char msg[ERR_MSG_MAX];
};

/* Resets e to "no error". */
void err_init(struct err *e);

/* Sets class and message; e may be NULL (then nothing happens). Returns -1,
 * so callers can write "return err_set(e, ERR_FINAL, ...);". */
int err_set(struct err *e, enum err_class cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like err_set, but puts "prefix: " before the existing message. */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * An invariant of tagbot's own broke, never a fault of the input or of a
 * server (those are errors above): says where and what on stderr and
 * aborts, for a core dump and a failed test, as git's BUG() does.
 */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Out of memory: no error about a message can be told, so it is said on
 * stderr and the process aborts (xmalloc() and the allocations of the
 * libraries we call). */
_Noreturn void die_oom(void);

#endif
