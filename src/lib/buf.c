#include "autoconf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/ascii.h"

static char empty_data[1];

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void xgrow(void *pv, size_t *alloc, size_t need, size_t sz)
{
	void **v = pv;
	size_t n = *alloc ? *alloc : 8;

	if (need <= *alloc)
		return;
	while (n < need)
		n *= 2;
	*v = xrealloc(*v, n * sz);
	*alloc = n;
}

void buf_init(struct buf *b, size_t cap)
{
	b->data = empty_data;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap ? cap : BUF_DEFAULT_CAP;
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->data);
	buf_init(b, b->cap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

int buf_grow(struct buf *b, size_t n)
{
	size_t want, a;

	if (n > b->cap || b->len > b->cap - n)
		return -1;
	want = b->len + n + 1;
	if (want <= b->alloc)
		return 0;
	a = b->alloc ? b->alloc : 64;
	while (a < want)
		a = a * 3 / 2 + 16;
	if (!b->alloc) {
		b->data = xmalloc(a);
		b->data[0] = '\0';
	} else {
		b->data = xrealloc(b->data, a);
	}
	b->alloc = a;
	return 0;
}

int buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, int c)
{
	char ch = (char)c;

	return buf_add(b, &ch, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (len)
		*len = b->len;
	if (!b->alloc)
		p = xstrdup("");
	else
		p = b->data;
	buf_init(b, b->cap);
	return p;
}

char *xstrndup_trim(const char *s, size_t n)
{
	while (n && ascii_is_lws(*s))
		s++, n--;
	while (n && ascii_is_lws(s[n - 1]))
		n--;
	return xstrndup(s, n);
}
