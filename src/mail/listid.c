/*
 * listid.c - a mail's list ID (listid.h).
 */
#include "autoconf.h"
#include <string.h>

#include "lib/ascii.h"
#include "mail/listid.h"

/* The ID in one header value v into out; -1 when it has none. */
static int id_of(const char *v, char *out, size_t size)
{
	const char *lt = strrchr(v, '<'), *end;
	size_t n;

	if (lt) {
		v = lt + 1;
		end = strchr(v, '>');
		if (!end)
			return -1;
	} else {
		end = v + strlen(v);
	}
	while (v < end && ascii_is_space((unsigned char)*v))
		v++;
	while (end > v && ascii_is_space((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - v);
	if (!n || n > MAIL_LIST_ID_MAX || n >= size)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return -1;
		out[i] = (char)ascii_tolower((unsigned char)v[i]);
	}
	out[n] = '\0';
	return 0;
}

int mail_list_id(const char *list_id, const char *x_mailing_list, char *out, size_t size)
{
	if (list_id && id_of(list_id, out, size) == 0)
		return 0;
	if (x_mailing_list && id_of(x_mailing_list, out, size) == 0)
		return 0;
	return -1;
}
