/*
 * linkref.c - archive URLs and the Message-IDs they name (tagbot-rules(7)
 * LINKS), and b4's Message-ID scheme.
 *
 * The ID is always the path segment that holds an '@' (or its encoding
 * %40): lore, lkml.kernel.org and msgid.link put it right after a short
 * prefix, patchwork (kernel.org's and ozlabs.org's) after /project/<p>/patch/.  Everything is compiled
 * caseless by rule_settings_init(), which makes the host names compare
 * case-insensitively; the captured ID is taken from the URL as written, so
 * its local part keeps its case.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/linkref.h"
#include "lib/ascii.h"

/* One path segment holding the Message-ID: no '/', '?', '#' or space. */
#define ID_SEG "([^/?#\\s]*(?:@|%40)[^/?#\\s]*)"

const char *const linkref_default_archives[] = {
	/* lore.kernel.org/<id>, /r/<id>, /all/<id>, /<list>/<id>, then /T/#u etc. */
	"^https?://lore\\.kernel\\.org/(?:[^/?#\\s@%]+/)?" ID_SEG,
	"^https?://lkml\\.kernel\\.org/r/" ID_SEG,
	"^https?://(?:patch\\.)?msgid\\.link/(?:r/)?" ID_SEG,
	/* patchwork.kernel.org, and patchwork.ozlabs.org for netdev, powerpc, u-boot, ... */
	"^https?://patchwork\\.(?:kernel|ozlabs)\\.org/project/[^/?#\\s]+/patch/" ID_SEG,
	NULL
};

const char *const linkref_default_bugtrackers[] = {
	/* Any Bugzilla: bugzilla.kernel.org, bugzilla.redhat.com, bz.x/bugzilla/. */
	"^https?://[^/\\s]+/(?:\\S*/)?show_bug\\.cgi\\?(?:\\S*&)?id=\\w",
	"^https?://github\\.com/[^/\\s]+/[^/\\s]+/issues/\\d",
	"^https?://gitlab\\.[^/\\s]+/\\S+/-/issues/\\d",
	"^https?://bugs\\.launchpad\\.net/(?:[^/\\s]+/)*\\+bug/\\d",
	"^https?://syzkaller\\.appspot\\.com/bug\\?",
	"^https?://bugs\\.debian\\.org/(?:cgi-bin/bugreport\\.cgi\\?bug=)?\\d",
	NULL
};

const char *const linkref_old_archives[] = {
	"^https?://(?:www\\.)?lkml\\.org/",
	"^https?://(?:www\\.)?marc\\.info/",
	"^https?://(?:www\\.)?spinics\\.net/",
	"^https?://(?:www\\.)?mail-archive\\.com/",
	"^https?://lists\\.infradead\\.org/pipermail/",
	"^https?://(?:lists\\.)?ozlabs\\.org/pipermail/",
	"^https?://lkml\\.iu\\.edu/hypermail/",
	"^https?://(?:[a-z]+\\.)?gmane\\.org/",
	"^https?://mailman\\.alsa-project\\.org/pipermail/",
	"^https?://lists\\.freedesktop\\.org/archives/dri-devel/",
	NULL
};

char *linkref_percent_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int hi = i + 2 < n ? ascii_hex_value((unsigned char)s[i + 1]) : -1;
		int lo = i + 2 < n ? ascii_hex_value((unsigned char)s[i + 2]) : -1;

		/* %00 stays as written: a NUL would cut the ID short. */
		if (s[i] == '%' && hi >= 0 && lo >= 0 && (hi | lo)) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else if (s[i] != '\0') {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* Removes one pair of surrounding <> (and the white space inside them). */
static void strip_brackets(char *id)
{
	size_t n = strlen(id), a = 0;

	if (n && id[0] == '<')
		a = 1;
	if (n > a && id[n - 1] == '>')
		n--;
	while (a < n && ascii_is_blank(id[a]))
		a++;
	while (n > a && (id[n - 1] == ' ' || id[n - 1] == '\t'))
		n--;
	memmove(id, id + a, n - a);
	id[n - a] = '\0';
}

char *linkref_msgid(const struct pattern_list *archives, const char *url, size_t n)
{
	size_t off, len;
	const char *at;
	char *id;

	if (!archives || !url || pattern_list_match(archives, url, n, &off, &len) < 0)
		return NULL;
	id = linkref_percent_decode(url + off, len);
	strip_brackets(id);
	/* Half an ID ("@x", "x@") names nothing an archive could serve. */
	at = strrchr(id, '@');
	if (!at || at == id || !at[1]) {
		free(id);
		return NULL;
	}
	return id;
}

/* Length of the run of characters of class cls ending just before end. */
static size_t span_back(const char *start, const char *end, bool (*cls)(int))
{
	const char *q = end;

	while (q > start && cls((unsigned char)q[-1]))
		q--;
	return (size_t)(end - q);
}

#define B4_DATE_LEN	8	/* YYYYMMDD */
#define B4_HASH_MIN	3
#define B4_HASH_MAX	40
#define B4_NUM_MAX	4	/* patch number digits */
#define B4_VER_MAX	3	/* version digits */

/*
 * b4 writes <YYYYMMDD>-<change name>-v<N>-<patch number>-<hash>@<domain>;
 * old b4 left out -v1-.  Parsed from the right, since the change name may
 * itself hold dashes and digits.
 */
bool linkref_b4_parse(const char *msgid, char **stem, int *version)
{
	const char *at, *end, *q;
	size_t k, vlen = 0;
	int ver = 1;

	if (!msgid || !(at = strrchr(msgid, '@')) || !at[1])
		return false;
	end = at;
	k = span_back(msgid, end, ascii_is_lxdigit);		/* hash */
	if (k < B4_HASH_MIN || k > B4_HASH_MAX || end - k == msgid || end[-(long)k - 1] != '-')
		return false;
	end -= k + 1;
	k = span_back(msgid, end, ascii_is_digit);		/* patch number */
	if (k < 1 || k > B4_NUM_MAX || end - k == msgid || end[-(long)k - 1] != '-')
		return false;
	end -= k + 1;
	k = span_back(msgid, end, ascii_is_digit);		/* optional vN */
	q = end - k;
	if (k >= 1 && k <= B4_VER_MAX && q - 2 > msgid && (q[-1] == 'v' || q[-1] == 'V') && q[-2] == '-') {
		ver = atoi(q);
		vlen = k + 2;
	}
	end -= vlen;
	/* What is left is <date>-<name>: the name must not be empty. */
	if (end - msgid < B4_DATE_LEN + 2 || msgid[B4_DATE_LEN] != '-' ||
	    span_back(msgid, msgid + B4_DATE_LEN, ascii_is_digit) != B4_DATE_LEN || ver < 1)
		return false;
	if (stem) {
		size_t nlen = (size_t)(end - msgid), dlen = strlen(at);

		*stem = xmalloc(nlen + dlen + 1);
		memcpy(*stem, msgid, nlen);
		memcpy(*stem + nlen, at, dlen + 1);
	}
	if (version)
		*version = ver;
	return true;
}
