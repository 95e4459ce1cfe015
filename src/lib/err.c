#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"

void err_init(struct err *e)
{
	e->cls = ERR_NONE;
	e->msg[0] = '\0';
}

int err_set(struct err *e, enum err_class cls, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->cls = cls;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char prefix[ERR_MSG_MAX / 2], old[ERR_MSG_MAX];
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/* Keep the end of the old message when the two do not fit. */
	snprintf(e->msg, sizeof(e->msg), "%s: %.*s", prefix,
		 (int)(sizeof(e->msg) - strlen(prefix) - 3), old);
	return -1;
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tagbot: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void die_oom(void)
{
	fputs("tagbot: out of memory\n", stderr);
	abort();
}
