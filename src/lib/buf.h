/*
 * buf.h - a growable byte buffer with a size cap (after git's strbuf and
 * curl's dynbuf).
 *
 * The data is always NUL-terminated, so b->data can be used as a C string
 * when the content holds no NUL.  Every buffer has a cap: an append that
 * would grow it past the cap fails with -1 and leaves the buffer as it was,
 * so a hostile input can never make us allocate without bound.
 */
#ifndef TAGBOT_BUF_H
#define TAGBOT_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* The cap used when buf_init() is given 0: larger than any sane mail. */
#define BUF_DEFAULT_CAP ((size_t)256 * 1024 * 1024)

struct buf {
	char *data;	/* owned; never NULL after buf_init (points at "") */
	size_t len;	/* bytes in use, not counting the NUL */
	size_t alloc;	/* bytes allocated (0 while data points at "") */
	size_t cap;	/* largest len allowed */
};

/* Allocates nothing; cap 0 means BUF_DEFAULT_CAP. */
void buf_init(struct buf *b, size_t cap);
/* Frees the contents; the buffer may be reused after buf_init(). */
void buf_release(struct buf *b);
/* Empties the buffer, keeping its allocation. */
void buf_reset(struct buf *b);
/* Makes room for n more bytes. -1 if that would pass the cap or on ENOMEM. */
int buf_grow(struct buf *b, size_t n);

int buf_add(struct buf *b, const void *p, size_t n);
int buf_addstr(struct buf *b, const char *s);
int buf_addch(struct buf *b, int c);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Hands the NUL-terminated data to the caller (to free()) and resets b.
 * Never returns NULL except on ENOMEM. *len may be NULL. */
char *buf_detach(struct buf *b, size_t *len);

/* malloc-style helpers that abort on ENOMEM: out of memory is not an error
 * we can report about a message, so we do what git's xmalloc does. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrndup() of s without the white space (SP HT CR LF) around it. */
char *xstrndup_trim(const char *s, size_t n);

/* Grows an array *pv of *alloc elements of size sz so it holds at least
 * need elements (doubling). */
void xgrow(void *pv, size_t *alloc, size_t need, size_t sz);
/* The same, with the test that it has room where it is used: arrays grow
 * an element at a time, and a call per element costs.  alloc and need are
 * read twice. */
#define ARRAY_GROW(v, alloc, need)					\
	do {								\
		if ((need) > (alloc))					\
			xgrow(&(v), &(alloc), (need), sizeof(*(v)));	\
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
