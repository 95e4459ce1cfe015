#include "autoconf.h"
#include "mail/msgid.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ascii.h"
#include "lib/buf.h"

/* Trims white space and one pair of <> from [*s, *end). */
static void trim(const char **s, const char **end)
{
	while (*s < *end && ascii_is_space(**s))
		(*s)++;
	while (*end > *s && ascii_is_space((*end)[-1]))
		(*end)--;
	if (*end > *s && **s == '<')
		(*s)++;
	if (*end > *s && (*end)[-1] == '>')
		(*end)--;
}

char *msgid_key(const char *msgid)
{
	const char *s = msgid, *end;
	char *key, *at;
	size_t n;

	if (!s)
		return NULL;
	end = s + strlen(s);
	trim(&s, &end);
	n = (size_t)(end - s);
	if (n == 0 || n > MSGID_MAX)
		return NULL;
	key = xstrndup(s, n);
	at = strrchr(key, '@');
	for (char *p = at; p && *p; p++)
		*p = (char)ascii_tolower(*p);
	return key;
}

/* Whether s holds white space as trim() reads it (VT and FF too). */
static bool has_space(const char *s)
{
	for (; *s; s++)
		if (ascii_is_space(*s))
			return true;
	return false;
}

char *msgid_ref_key(const char *id)
{
	char *k = id && *id ? msgid_key(id) : NULL;

	if (k && has_space(k)) {
		free(k);
		return NULL;
	}
	return k;
}

char *msgid_strip(const char *s)
{
	const char *lt, *gt;

	if (!s)
		return xstrdup("");
	lt = strchr(s, '<');
	if (lt && (gt = strchr(lt + 1, '>')))
		return xstrndup_trim(lt + 1, (size_t)(gt - lt - 1));
	if (lt)
		return xstrndup_trim(lt + 1, strlen(lt + 1));
	return xstrndup_trim(s, strlen(s));
}

bool msgid_same(const char *a, const char *b)
{
	const char *ea, *eb;

	if (!a || !b)
		return false;
	ea = strrchr(a, '@');
	eb = strrchr(b, '@');
	if (!ea || !eb)
		return !ea && !eb && !strcmp(a, b);
	return ea - a == eb - b && !memcmp(a, b, (size_t)(ea - a)) && !strcasecmp(ea, eb);
}

static bool header_char(unsigned char c)
{
	return c > ' ' && c < 0x7f && !strchr("<>\"\\()", c);
}

bool msgid_header_safe(const char *id)
{
	const char *at;
	size_t n;

	if (!id || (n = strlen(id)) == 0 || n > MSGID_HEADER_MAX)
		return false;
	at = strchr(id, '@');
	if (!at || at == id || !at[1] || strchr(at + 1, '@'))
		return false;
	if (strstr(id, "=?"))
		return false;
	for (const char *p = id; *p; p++)
		if (!header_char((unsigned char)*p))
			return false;
	return true;
}

static bool header_named(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && p[k] == ':' && !strncasecmp(p, name, k);
}

char *msgid_from_raw(const char *raw, size_t len)
{
	size_t i = 0, max = len < MSGID_SCAN_MAX ? len : MSGID_SCAN_MAX;

	while (i < max) {
		const char *nl = memchr(raw + i, '\n', max - i);
		size_t n = nl ? (size_t)(nl - (raw + i)) : max - i;
		const char *v = raw + i, *end = raw + i + n;

		if (n == 0 || (n == 1 && raw[i] == '\r'))
			break;
		/* a line the limit cuts is not within it: its start is no ID */
		if (!nl && max < len)
			break;
		if (header_named(v, n, "Message-ID")) {
			v += strlen("Message-ID:");
			trim(&v, &end);
			if (end > v && (size_t)(end - v) <= MSGID_MAX && !memchr(v, '\0', end - v))
				return xstrndup(v, (size_t)(end - v));
			return NULL;
		}
		i += n + 1;
	}
	return NULL;
}

static bool url_plain(unsigned char c)
{
	return ascii_is_alnum(c) || (c && strchr("-._~!$&'()*+,;=:@", c));
}

void msgid_url_encode(struct buf *out, const char *id)
{
	for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
		if (url_plain(*p))
			buf_addch(out, *p);
		else
			buf_printf(out, "%%%02X", *p);
	}
}
