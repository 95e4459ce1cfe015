/*
 * lookup_parse.c - the pure half of the lookups (see lookup.h): which lines
 * hold a link, the archive's URLs, reading an Atom thread and a raw
 * message, classifying an answer, the cache blob.  No I/O, no curl.
 */
#include "autoconf.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "mail/linkref.h"
#include "transport/lookup.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "lib/ascii.h"
#include "mail/msgid.h"

#define LOOKUP_MAX_EMAIL	998	/* bytes of an Atom <email> compared */

static void set_str(char **field, const char *v, size_t n)
{
	free(*field);
	*field = xstrndup(v, n);
}

/* --- which lines hold a link -------------------------------------------- */

/* --- the archive's URLs ------------------------------------------------- */

char *lookup_archive_url(const char *base, const char *msgid, const char *suffix)
{
	size_t bl = strlen(base);
	struct buf b;

	buf_init(&b, 0);
	buf_addstr(&b, base);
	if (!bl || base[bl - 1] != '/')
		buf_addch(&b, '/');
	msgid_url_encode(&b, msgid);
	buf_addstr(&b, suffix);
	return buf_detach(&b, NULL);
}

/* --- the thread: an Atom feed ------------------------------------------- */

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t k = strlen(needle);

	if (s >= end || (size_t)(end - s) < k)
		return NULL;
	return memmem(s, (size_t)(end - s), needle, k);
}

/* The XML entities public-inbox writes: &lt; &gt; &amp; &quot; &apos; &#N; */
static void xml_unescape(const char *s, size_t n, struct buf *out)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; s[i] == '&' && j < ARRAY_SIZE(ents); j++)
			if (ascii_has_prefix_ci(s + i, n - i, ents[j].ent))
				break;
		if (s[i] == '&' && j < ARRAY_SIZE(ents)) {
			buf_addch(out, ents[j].c);
			i += strlen(ents[j].ent) - 1;
		} else if (s[i] == '&' && i + 1 < n && s[i + 1] == '#') {
			size_t k = i + 2;
			int c = 0;

			while (k < n && k - i < 6 && s[k] >= '0' && s[k] <= '9')
				c = c * 10 + (s[k++] - '0');
			if (k < n && s[k] == ';' && k > i + 2 && c > 0 && c < 0x80) {
				buf_addch(out, c);
				i = k;
			} else {
				buf_addch(out, '&');
			}
		} else {
			buf_addch(out, s[i]);
		}
	}
}

/* Whether the entry [s, end) is by author or sender. */
static bool entry_is_own(const char *s, const char *end, const char *author, const char *sender)
{
	const char *a = find(s, end, "<author>"), *em, *close;
	struct buf addr;
	bool own;

	if (!a || !(em = find(a, end, "<email>")))
		return false;
	em += strlen("<email>");
	close = find(em, end, "</email>");
	if (!close || close - em > LOOKUP_MAX_EMAIL)
		return false;
	buf_init(&addr, LOOKUP_MAX_EMAIL + 1);
	xml_unescape(em, (size_t)(close - em), &addr);
	own = address_same(addr.data, author) || address_same(addr.data, sender);
	buf_release(&addr);
	return own;
}

int lookup_atom_others(const char *xml, size_t n, const char *author, const char *sender,
		       int *entries)
{
	const char *end = xml + n, *p, *next;
	int count = 0, others = 0;

	if (entries)
		*entries = 0;
	p = find(xml, end, "<feed");
	if (!p)
		return -1;
	for (p = find(p, end, "<entry>"); p; p = next) {
		const char *stop = find(p + 1, end, "</entry>");

		next = find(p + 1, end, "<entry>");
		if (!stop || (next && next < stop))
			stop = next ? next : end;
		count++;
		if (!entry_is_own(p, stop, author, sender))
			others++;
		if (count == INT_MAX)
			break;
	}
	if (entries)
		*entries = count;
	return others;
}

/* --- the message -------------------------------------------------------- */

/* "[PATCH", "[RFC PATCH v2", "[net-next][PATCH": PATCH in a bracket group
 * of the prefix. */
static bool subject_is_patch(const char *subject)
{
	const char *s = subject;

	while (ascii_is_blank((unsigned char)*s))
		s++;
	while (*s == '[') {
		const char *close = strchr(s, ']');
		size_t n = close ? (size_t)(close - s) : strlen(s);

		for (size_t i = 1; i + 5 <= n; i++)
			if (!strncasecmp(s + i, "PATCH", 5))
				return true;
		if (!close)
			return false;
		for (s = close + 1; ascii_is_blank((unsigned char)*s); s++)
			;
	}
	return false;
}

/* The first message of an mbox answer: public-inbox sends every copy of a
 * Message-ID, each after a "From " line. */
static size_t first_message_len(const char *raw, size_t n)
{
	const char *p = raw, *end = raw + n;

	while ((p = memchr(p, '\n', (size_t)(end - p))) && p + 1 < end) {
		p++;
		if (p > raw + 1 && (size_t)(end - p) >= 5 && !memcmp(p, "From ", 5))
			return (size_t)(p - raw);
	}
	return n;
}

static void fill_from_patch(struct lookup_result *r, const struct message *msg,
			    const struct patch *p)
{
	const char *subject = message_header(msg, "Subject");
	struct series s;
	size_t off;
	bool reply = false;

	memset(&s, 0, sizeof(s));
	subject = subject ? subject : "";
	off = patch_parse_subject(subject, &s, &reply, NULL);
	r->is_patch = !reply && subject_is_patch(subject);
	r->version = s.version > 0 ? s.version : 1;
	set_str(&r->subject, subject + off, strlen(subject + off));
	series_release(&s);
	set_str(&r->author, p->author.email ? p->author.email : "",
		p->author.email ? strlen(p->author.email) : 0);
	set_str(&r->sender, p->sender.email ? p->sender.email : "",
		p->sender.email ? strlen(p->sender.email) : 0);
	r->others = -1;
}

int lookup_parse_message(struct lookup_result *r, const char *raw, size_t n, struct err *e)
{
	struct message msg;
	struct patch *p = NULL;
	size_t np = 0;
	int rc = 0;

	message_init(&msg);
	if (message_parse(&msg, raw, first_message_len(raw, n), e) < 0) {
		message_release(&msg);
		return -1;
	}
	patch_parse(&msg, &p, &np);
	if (!np || !p[0].message_id || !*p[0].message_id)
		rc = err_set(e, ERR_FINAL, "the answer is no mail (no Message-ID)");
	else if (r->msgid && !msgid_same(p[0].message_id, r->msgid))
		rc = err_set(e, ERR_FINAL, "the answer is another message");
	else
		fill_from_patch(r, &msg, &p[0]);
	patches_free(p, np);
	message_release(&msg);
	return rc;
}

enum lookup_status lookup_classify(enum lookup_net net, long http_code)
{
	if (net == LOOKUP_NET_NO_HOST)
		return LOOKUP_DEAD;
	if (net != LOOKUP_NET_OK || http_code < 100 || http_code >= 500 || http_code == 429)
		return LOOKUP_UNKNOWN;
	if (http_code == 404 || http_code == 410)
		return LOOKUP_DEAD;
	return LOOKUP_ALIVE;
}

/* --- the cache blob ----------------------------------------------------- */

static void add_field(struct buf *b, const char *key, const char *v)
{
	buf_addstr(b, key);
	buf_addch(b, '=');
	for (; v && *v; v++)
		buf_addch(b, *v == '\n' || *v == '\r' ? ' ' : *v);
	buf_addch(b, '\n');
}

char *lookup_result_encode(const struct lookup_result *r)
{
	struct buf b;

	buf_init(&b, LOOKUP_CACHE_DATA_MAX);
	buf_printf(&b, "http=%ld\npatch=%d\nversion=%d\nothers=%d\n", r->http_code,
		   r->is_patch ? 1 : 0, r->version, r->others);
	add_field(&b, "author", r->author);
	add_field(&b, "sender", r->sender);
	add_field(&b, "subject", r->subject);
	return buf_detach(&b, NULL);
}

static int decode_num(const char *v, size_t n, long min, long max, long *out)
{
	char tmp[24], *end;

	if (!n || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	errno = 0;
	*out = strtol(tmp, &end, 10);
	return *end || errno || *out < min || *out > max ? -1 : 0;
}

/* One "key=value" line; unknown keys are skipped (a newer tagbot's rows). */
static int decode_field(struct lookup_result *r, const char *k, size_t kn, const char *v, size_t vn)
{
	static const char *const strs[] = { "author", "sender", "subject" };
	char **fields[] = { &r->author, &r->sender, &r->subject };
	long x;

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		if (kn == strlen(strs[i]) && !memcmp(k, strs[i], kn)) {
			set_str(fields[i], v, vn);
			return 0;
		}
	if (kn == 4 && !memcmp(k, "http", 4))
		return decode_num(v, vn, 0, 999, &r->http_code);
	if (kn == 5 && !memcmp(k, "patch", 5)) {
		if (decode_num(v, vn, 0, 1, &x) < 0)
			return -1;
		r->is_patch = x;
	} else if (kn == 7 && !memcmp(k, "version", 7)) {
		if (decode_num(v, vn, 0, INT_MAX, &x) < 0)
			return -1;
		r->version = (int)x;
	} else if (kn == 6 && !memcmp(k, "others", 6)) {
		if (decode_num(v, vn, -1, INT_MAX, &x) < 0)
			return -1;
		r->others = (int)x;
	}
	return 0;
}

int lookup_result_decode(struct lookup_result *r, const char *blob, size_t n)
{
	const char *p = blob, *end = blob + n;

	if (n > LOOKUP_CACHE_DATA_MAX || memchr(blob, '\0', n))
		return -1;
	r->others = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eq;
		const char *le = nl ? nl : end;

		eq = memchr(p, '=', (size_t)(le - p));
		if (!eq || eq == p || decode_field(r, p, (size_t)(eq - p), eq + 1,
						   (size_t)(le - eq - 1)) < 0)
			return -1;
		p = le + (nl != NULL);
	}
	return 0;
}

bool lookup_cache_fresh(time_t fetched_at, time_t now, int ttl)
{
	return ttl > 0 && now >= fetched_at && now - fetched_at < (time_t)ttl;
}
