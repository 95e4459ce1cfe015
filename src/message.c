#include "autoconf.h"
#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>

#include "buf.h"
#include "message.h"
#include "utf8.h"

#define CHARSET_MAX	64	/* a longer "charset" is garbage */
#define MIME_TYPE_MAX	128	/* "type/subtype" as we keep it */
#define BOUNDARY_MAX	200	/* RFC 2046 says 70; senders are sloppier */
#define ICONV_CHUNK	65536

/* ---------------------------------------------------------------------
 * Small helpers.  Mail is not in the C locale's charset, so no <ctype.h>.
 */

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool is_wsp(int c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* True when the n bytes at s equal the lower-case word w, ignoring case. */
static bool mem_ieq(const char *s, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n && w[i]; i++)
		if (lower((unsigned char)s[i]) != w[i])
			return false;
	return i == n && !w[i];
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && mem_ieq(s + n - k, k, suffix);
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && is_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Copies at most cap - 1 bytes of s, lower-cased and NUL-terminated. */
static void copy_lower(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap; i++)
		dst[i] = (char)lower((unsigned char)s[i]);
	dst[i] = '\0';
}

/* The length of s[0..n) without a UTF-8 sequence cut at its end. */
static size_t utf8_clip(const char *s, size_t n)
{
	size_t lead = n, want;
	unsigned char c;

	while (lead > 0 && n - lead < 4 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return n;
	c = (unsigned char)s[lead - 1];
	want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return want > n - lead + 1 ? lead - 1 : n;
}

/* Drops NULs and turns CR and LF into spaces; returns the new length. */
static size_t sanitize(char *d, size_t n)
{
	size_t j = 0;

	if (!memchr(d, '\0', n) && !memchr(d, '\r', n) && !memchr(d, '\n', n))
		return n;
	for (size_t i = 0; i < n; i++) {
		if (d[i] == '\0')
			continue;
		d[j++] = d[i] == '\r' || d[i] == '\n' ? ' ' : d[i];
	}
	return j;
}

/* ---------------------------------------------------------------------
 * Charsets -> UTF-8.
 */

/* Index of the first byte >= 0x80 in s[i..n), or n. */
static size_t ascii_run(const char *s, size_t i, size_t n)
{
	while (i + 8 <= n) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (w & UINT64_C(0x8080808080808080))
			break;
		i += 8;
	}
	while (i < n && !((unsigned char)s[i] & 0x80))
		i++;
	return i;
}

/* Index of the first byte of s[i..n) that does not start a valid UTF-8
 * sequence, or n. */
static size_t utf8_run(const char *s, size_t i, size_t n)
{
	for (;;) {
		size_t len;

		i = ascii_run(s, i, n);
		if (i == n)
			return n;
		len = utf8_seqlen(s + i, n - i);
		if (len == 1)
			return i;
		i += len;
	}
}

/* windows-1252 0x80..0x9F.  Mail labelled Latin-1 uses these, as browsers
 * assume; the five holes keep their Latin-1 (C1) code point. */
static const uint16_t cp1252_high[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

static void add_cp1252_byte(struct buf *b, unsigned char c)
{
	char out[4];
	uint32_t cp = c >= 0x80 && c < 0xA0 ? cp1252_high[c - 0x80] : c;

	buf_add(b, out, utf8_encode(cp, out));
}

static void add_cp1252(struct buf *b, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = ascii_run(s, i, n);

		buf_add(b, s + i, j - i);
		if (j < n)
			add_cp1252_byte(b, (unsigned char)s[j++]);
		i = j;
	}
}

/*
 * Valid UTF-8 is copied; any other byte is replaced by U+FFFD (and sets
 * *bad) when strict, else read as windows-1252 (the "8-bit header, no
 * charset" case: UTF-8 when it is, else Latin-1).
 */
static void add_utf8(struct buf *b, const char *s, size_t n, bool strict, bool *bad)
{
	size_t i = 0;

	while (i < n) {
		size_t j = utf8_run(s, i, n);

		buf_add(b, s + i, j - i);
		if (j == n)
			break;
		if (strict) {
			buf_add(b, "\xEF\xBF\xBD", 3);
			*bad = true;
		} else {
			add_cp1252_byte(b, (unsigned char)s[j]);
		}
		i = j + 1;
	}
}

static void add_iconv(struct buf *b, iconv_t cd, const char *s, size_t n, bool *bad)
{
	char *in = (char *)s;
	size_t inleft = n;

	while (inleft) {
		char *out;
		size_t outleft;

		if (buf_grow(b, ICONV_CHUNK) < 0)
			return;
		out = b->data + b->len;
		outleft = ICONV_CHUNK;
		if (iconv(cd, &in, &inleft, &out, &outleft) == (size_t)-1 && errno != E2BIG) {
			/* EILSEQ, or EINVAL for a sequence cut at the end. */
			b->len = (size_t)(out - b->data);
			buf_add(b, "\xEF\xBF\xBD", 3);
			*bad = true;
			in++, inleft--;
			iconv(cd, NULL, NULL, NULL, NULL);
			continue;
		}
		b->len = (size_t)(out - b->data);
		b->data[b->len] = '\0';
	}
	if (buf_grow(b, 64) == 0) {
		char *out = b->data + b->len;
		size_t outleft = 64;

		iconv(cd, NULL, NULL, &out, &outleft);
		b->len = (size_t)(out - b->data);
		b->data[b->len] = '\0';
	}
}

enum cs_kind { CS_GUESS, CS_UTF8, CS_CP1252, CS_ICONV };

static const struct cs_alias {
	const char *name;
	enum cs_kind kind;
	const char *iconv_name;	/* for CS_ICONV: what glibc calls it */
} cs_aliases[] = {
	{ "us-ascii", CS_GUESS, NULL },
	{ "ascii", CS_GUESS, NULL },
	{ "ansi_x3.4-1968", CS_GUESS, NULL },
	{ "utf-8", CS_UTF8, NULL },
	{ "utf8", CS_UTF8, NULL },
	{ "iso-8859-1", CS_CP1252, NULL },
	{ "iso8859-1", CS_CP1252, NULL },
	{ "iso_8859-1", CS_CP1252, NULL },
	{ "latin1", CS_CP1252, NULL },
	{ "latin-1", CS_CP1252, NULL },
	{ "windows-1252", CS_CP1252, NULL },
	{ "cp1252", CS_CP1252, NULL },
	{ "x-cp1252", CS_CP1252, NULL },
	/* Labels whose real content is a superset glibc knows. */
	{ "gb2312", CS_ICONV, "GB18030" },
	{ "gbk", CS_ICONV, "GB18030" },
	{ "ks_c_5601-1987", CS_ICONV, "CP949" },
	{ "iso-8859-8-i", CS_ICONV, "ISO-8859-8" },
};

/*
 * Appends n bytes in charset to b as UTF-8.  Returns false when the charset
 * is unknown: the bytes are then read as UTF-8, else windows-1252.  A NULL
 * or empty charset is not unknown: it is the same guess.
 */
static bool convert(struct buf *b, const char *s, size_t n, const char *charset, bool *bad)
{
	char name[CHARSET_MAX + 1];
	const char *cs = charset ? charset : "";
	size_t len = strlen(cs);
	const char *iname;
	iconv_t cd;

	while (len && (is_space((unsigned char)*cs) || *cs == '"'))
		cs++, len--;
	len = strcspn(cs, "\"* \t*");
	if (len > CHARSET_MAX) {
		add_utf8(b, s, n, false, bad);
		return false;
	}
	copy_lower(name, sizeof(name), cs, len);
	iname = name;
	if (!name[0]) {
		add_utf8(b, s, n, false, bad);
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cs_aliases); i++) {
		if (strcmp(cs_aliases[i].name, name))
			continue;
		switch (cs_aliases[i].kind) {
		case CS_GUESS:
			add_utf8(b, s, n, false, bad);
			return true;
		case CS_UTF8:
			add_utf8(b, s, n, true, bad);
			return true;
		case CS_CP1252:
			add_cp1252(b, s, n);
			return true;
		case CS_ICONV:
			iname = cs_aliases[i].iconv_name;
			break;
		}
		break;
	}
	cd = iconv_open("UTF-8", iname);
	if (cd == (iconv_t)-1) {
		add_utf8(b, s, n, false, bad);
		return false;
	}
	add_iconv(b, cd, s, n, bad);
	iconv_close(cd);
	return true;
}

char *message_to_utf8(const char *s, size_t n, const char *charset, size_t *out_len, bool *bad)
{
	struct buf b;
	bool dummy = false;

	if (!bad)
		bad = &dummy;
	buf_init(&b, 0);
	if (!convert(&b, s, n, charset, bad))
		*bad = true;
	return buf_detach(&b, out_len);
}

/* ---------------------------------------------------------------------
 * Transfer encodings.
 */

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	return c == '/' ? 63 : -1;
}

/* Skips anything outside the alphabet (white space, garbage); '=' ends a
 * group, so concatenated encodings and missing padding both decode. */
static void decode_base64(struct buf *out, const char *s, size_t n)
{
	uint32_t acc = 0;
	int k = 0;
	char *d;

	if (buf_grow(out, n / 4 * 3 + 3) < 0)
		return;
	d = out->data + out->len;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0) {
			if (s[i] != '=')
				continue;
			if (k >= 2)
				*d++ = (char)(acc >> (k * 6 - 8));
			if (k == 3)
				*d++ = (char)(acc >> (k * 6 - 16));
			acc = 0, k = 0;
			continue;
		}
		acc = acc << 6 | (uint32_t)v;
		if (++k == 4) {
			*d++ = (char)(acc >> 16);
			*d++ = (char)(acc >> 8);
			*d++ = (char)acc;
			acc = 0, k = 0;
		}
	}
	if (k >= 2)
		*d++ = (char)(acc >> (k * 6 - 8));
	if (k == 3)
		*d++ = (char)(acc >> (k * 6 - 16));
	out->len = (size_t)(d - out->data);
	out->data[out->len] = '\0';
}

/* Quoted-printable (RFC 2045 6.7), or the Q encoding of RFC 2047 when q:
 * "_" is a space and there are no soft line breaks.  An "=" that starts
 * no escape is kept as it is. */
static void decode_qp(struct buf *out, const char *s, size_t n, bool q)
{
	size_t i = 0;
	char *d;

	if (buf_grow(out, n) < 0)
		return;
	d = out->data + out->len;
	while (i < n) {
		const char *eq = memchr(s + i, '=', n - i);
		size_t run = eq ? (size_t)(eq - s) - i : n - i, j;

		memcpy(d, s + i, run);
		if (q)
			for (size_t k = 0; k < run; k++)
				if (d[k] == '_')
					d[k] = ' ';
		d += run, i += run;
		if (!eq)
			break;
		if (i + 2 < n && hexval((unsigned char)s[i + 1]) >= 0 && hexval((unsigned char)s[i + 2]) >= 0) {
			*d++ = (char)(hexval((unsigned char)s[i + 1]) << 4 | hexval((unsigned char)s[i + 2]));
			i += 3;
			continue;
		}
		/* A soft line break: "=", transport padding, end of line. */
		for (j = i + 1; !q && j < n && is_wsp((unsigned char)s[j]); j++)
			;
		if (!q && (j == n || s[j] == '\n' || (s[j] == '\r' && (j + 1 == n || s[j + 1] == '\n')))) {
			i = j == n ? n : s[j] == '\n' ? j + 1 : j + 2 > n ? n : j + 2;
			continue;
		}
		*d++ = '=';
		i++;
	}
	out->len = (size_t)(d - out->data);
	out->data[out->len] = '\0';
}

/* ---------------------------------------------------------------------
 * RFC 2047 encoded words.
 */

struct eword {
	const char *cs;		/* charset name, up to '?' */
	size_t cs_len;
	int enc;		/* 'b' or 'q' */
	const char *text;
	size_t text_len;
	size_t end;		/* index after "?=" */
};

/*
 * Parses "=?charset?B?text?=" at s[i].  Encoded text holds no white space.
 * *fail_until remembers where the last search for "?=" gave up: a later
 * search starting before it would give up there too, which keeps a line
 * full of "=?x?q?" openers linear.
 */
static bool parse_eword(const char *s, size_t n, size_t i, size_t *fail_until, struct eword *w)
{
	size_t j = i + 2, k, t;

	if (n - i < 8 || s[i] != '=' || s[i + 1] != '?')
		return false;
	for (k = j; k < n && k - j <= CHARSET_MAX && s[k] != '?'; k++)
		if ((unsigned char)s[k] <= ' ' || s[k] == '=' || s[k] == '"')
			return false;
	if (k == j || k + 3 > n || s[k] != '?' || s[k + 2] != '?')
		return false;
	w->enc = lower((unsigned char)s[k + 1]);
	if (w->enc != 'b' && w->enc != 'q')
		return false;
	t = k + 3;
	if (t < *fail_until)
		return false;
	for (k = t; k < n && !is_space((unsigned char)s[k]); k++) {
		if (s[k] == '?' && k + 1 < n && s[k + 1] == '=') {
			w->cs = s + j;
			w->cs_len = (size_t)(t - 3 - j);
			w->text = s + t;
			w->text_len = k - t;
			w->end = k + 2;
			return true;
		}
	}
	*fail_until = k;
	return false;
}

struct dec2047 {
	struct buf out;
	struct buf word;	/* bytes of adjacent encoded words in one charset */
	char cs[CHARSET_MAX + 1];
};

static void flush_word(struct dec2047 *d)
{
	bool bad = false;

	if (d->word.len)
		convert(&d->out, d->word.data, d->word.len, d->cs, &bad);
	buf_reset(&d->word);
}

/* Appends an encoded word.  Words in one charset are joined before the
 * conversion, since a multi-byte character may be split across two. */
static void add_eword(struct dec2047 *d, const struct eword *w)
{
	size_t cs_len = strcspn(w->cs, "*?");

	if (cs_len > w->cs_len)
		cs_len = w->cs_len;
	if (strlen(d->cs) != cs_len || strncasecmp(d->cs, w->cs, cs_len)) {
		flush_word(d);
		copy_lower(d->cs, sizeof(d->cs), w->cs, cs_len);
	}
	if (w->enc == 'b')
		decode_base64(&d->word, w->text, w->text_len);
	else
		decode_qp(&d->word, w->text, w->text_len, true);
}

char *message_decode_2047(const char *s, size_t n)
{
	struct dec2047 d;
	size_t i = 0, fail_until = 0;
	bool after_word = false, bad = false;
	struct eword w;

	buf_init(&d.out, 0);
	buf_init(&d.word, 0);
	d.cs[0] = '\0';
	while (i < n) {
		size_t j = i + 1;

		if (s[i] == '=' && parse_eword(s, n, i, &fail_until, &w)) {
			add_eword(&d, &w);
			i = w.end;
			after_word = true;
			continue;
		}
		if (is_wsp((unsigned char)s[i])) {
			while (j < n && is_wsp((unsigned char)s[j]))
				j++;
			/* White space between two encoded words is not text. */
			if (after_word && j < n && parse_eword(s, n, j, &fail_until, &w)) {
				i = j;
				continue;
			}
		} else {
			while (j < n && !is_wsp((unsigned char)s[j]) && s[j] != '=')
				j++;
		}
		flush_word(&d);
		after_word = false;
		add_utf8(&d.out, s + i, j - i, false, &bad);
		i = j;
	}
	flush_word(&d);
	buf_release(&d.word);
	/* Header values are single lines of text: no NUL, no line breaks. */
	d.out.len = sanitize(d.out.data, d.out.len);
	d.out.data[d.out.len] = '\0';
	return buf_detach(&d.out, NULL);
}

/* ---------------------------------------------------------------------
 * Header fields.
 */

struct field {
	const char *name;
	size_t name_len;
	const char *val;	/* after the colon up to the end of the field */
	size_t val_len;		/* line ends of continuation lines included */
};

/* Finds the end of the line at s[i]: *eol is where its content ends (CR
 * of CR LF excluded), the return value where the next line starts. */
static size_t line_end(const char *s, size_t n, size_t i, size_t *eol)
{
	const char *nl = memchr(s + i, '\n', n - i);
	size_t e = nl ? (size_t)(nl - s) : n;

	*eol = e > i && s[e - 1] == '\r' ? e - 1 : e;
	return nl ? e + 1 : n;
}

static bool valid_name(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] > '~')
			return false;
	return true;
}

/*
 * Reads the header field at s[*i].  Returns false at the end of the header
 * block, with *i at the first byte of the body: after the blank line, or
 * at a line that is no header field (as git mailinfo does).
 */
static bool next_field(const char *s, size_t n, size_t *i, struct field *f)
{
	for (;;) {
		size_t start = *i, eol, next, name_end;
		const char *colon;

		if (start >= n)
			return false;
		next = line_end(s, n, start, &eol);
		if (eol == start) {
			*i = next;
			return false;
		}
		if (is_wsp((unsigned char)s[start])) {
			*i = next;	/* continues nothing: skip it */
			continue;
		}
		colon = memchr(s + start, ':', eol - start);
		name_end = colon ? (size_t)(colon - s) : start;
		while (name_end > start && is_wsp((unsigned char)s[name_end - 1]))
			name_end--;
		if (!colon || !valid_name(s + start, name_end - start))
			return false;
		f->name = s + start;
		f->name_len = name_end - start;
		f->val = colon + 1;
		while (next < n && is_wsp((unsigned char)s[next]))
			next = line_end(s, n, next, &eol);
		f->val_len = (size_t)(s + next - f->val);
		*i = next;
		return true;
	}
}

/*
 * Unfolds a field value: line breaks before white space go, a stray CR
 * becomes a space, NULs are dropped; the result is trimmed and holds at
 * most MESSAGE_MAX_HEADER_LEN bytes (*cut tells when more were dropped).
 */
static char *unfold(const char *v, size_t n, size_t *out_len, bool *cut)
{
	size_t cap = n < MESSAGE_MAX_HEADER_LEN ? n : MESSAGE_MAX_HEADER_LEN;
	char *d = xmalloc(cap + 1);
	size_t i = 0, j = 0;

	trim(&v, &n);
	/* Line by line, with memchr: a 1 MB header line is one memcpy. */
	while (i < n && j < cap) {
		const char *nl = memchr(v + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - v) : n;
		size_t len = (nl && e > i && v[e - 1] == '\r' ? e - 1 : e) - i;

		if (len > cap - j) {
			memcpy(d + j, v + i, cap - j);
			i += cap - j;
			j = cap;
			break;
		}
		memcpy(d + j, v + i, len);
		j += len;
		i = nl ? e + 1 : n;
	}
	*cut = false;
	for (; i < n && !*cut; i++)
		*cut = !is_space((unsigned char)v[i]) && v[i] != '\0';
	j = sanitize(d, j);
	if (*cut)
		j = utf8_clip(d, j);
	while (j && is_space((unsigned char)d[j - 1]))
		j--;
	d[j] = '\0';
	*out_len = j;
	return d;
}

static bool needs_decoding(const char *s, size_t n)
{
	const char *eq = s;

	if (ascii_run(s, 0, n) < n)
		return true;
	while ((eq = memchr(eq, '=', n - (size_t)(eq - s))) && eq + 1 < s + n)
		if (*++eq == '?')
			return true;
	return false;
}

/* The decoded, capped, trimmed value of an unfolded raw value. */
static char *decode_value(const char *raw, size_t n, bool *cut)
{
	char *v, *t;
	const char *p;
	size_t len;

	if (!needs_decoding(raw, n))
		return xstrndup(raw, n);
	v = message_decode_2047(raw, n);
	len = strlen(v);
	if (len > MESSAGE_MAX_HEADER_LEN) {
		len = utf8_clip(v, MESSAGE_MAX_HEADER_LEN);
		*cut = true;
	}
	p = v;
	trim(&p, &len);
	t = xstrndup(p, len);
	free(v);
	return t;
}

static void add_header(struct message *m, size_t *alloc, const struct field *f)
{
	struct header *h;
	size_t raw_len;
	bool cut = false;

	ARRAY_GROW(m->headers, *alloc, m->nheaders + 1);
	h = &m->headers[m->nheaders++];
	h->name = xstrndup(f->name, f->name_len);
	h->raw = unfold(f->val, f->val_len, &raw_len, &cut);
	h->value = decode_value(h->raw, raw_len, &cut);
	if (cut)
		m->warnings |= MSG_WARN_LONG_HEADER;
}

/* ---------------------------------------------------------------------
 * MIME entities.
 */

enum cte { CTE_IDENTITY, CTE_QP, CTE_BASE64 };

struct part {
	char type[MIME_TYPE_MAX];	/* "text/plain", lower case */
	char charset[CHARSET_MAX + 1];	/* lower case; "" when not given */
	char *boundary;			/* owned; NULL when not given */
	bool flowed, delsp;
	bool patch_name;		/* its file name ends in .patch or .diff */
	bool have_type, have_cte;
	enum cte cte;
	const char *body;		/* foreign: points into the raw message */
	size_t body_len;
};

static void part_init(struct part *pt)
{
	memset(pt, 0, sizeof(*pt));
	strcpy(pt->type, "text/plain");
}

static bool is_patch_filename(const char *v)
{
	char *d = NULL;
	const char *s = v;
	size_t n;
	bool r;

	if (strstr(v, "=?"))
		s = d = message_decode_2047(v, strlen(v));
	n = strlen(s);
	while (n && (is_space((unsigned char)s[n - 1]) || s[n - 1] == '"'))
		n--;
	r = ends_with_ci(s, n, ".patch") || ends_with_ci(s, n, ".diff");
	free(d);
	return r;
}

/* A "name" or "filename" parameter, or an RFC 2231 piece of one
 * ("filename*1*"): the last piece is the one with the extension. */
static bool is_name_param(const char *name)
{
	size_t n = strcspn(name, "*");

	return mem_ieq(name, n, "name") || mem_ieq(name, n, "filename");
}

static const char *discrete_names[] = {
	[MAILMIME_DISCRETE_TYPE_TEXT] = "text",
	[MAILMIME_DISCRETE_TYPE_IMAGE] = "image",
	[MAILMIME_DISCRETE_TYPE_AUDIO] = "audio",
	[MAILMIME_DISCRETE_TYPE_VIDEO] = "video",
	[MAILMIME_DISCRETE_TYPE_APPLICATION] = "application",
};

static const char *type_name(const struct mailmime_type *t)
{
	if (t->tp_type == MAILMIME_TYPE_DISCRETE_TYPE) {
		const struct mailmime_discrete_type *d = t->tp_data.tp_discrete_type;

		if (d->dt_type == MAILMIME_DISCRETE_TYPE_EXTENSION)
			return d->dt_extension;
		if (d->dt_type > 0 && (size_t)d->dt_type < ARRAY_SIZE(discrete_names))
			return discrete_names[d->dt_type];
		return "";
	}
	switch (t->tp_data.tp_composite_type->ct_type) {
	case MAILMIME_COMPOSITE_TYPE_MESSAGE:
		return "message";
	case MAILMIME_COMPOSITE_TYPE_MULTIPART:
		return "multipart";
	default:
		return t->tp_data.tp_composite_type->ct_token;
	}
}

static void part_param(struct part *pt, const char *name, const char *value)
{
	size_t vl = strlen(value);

	if (!strcasecmp(name, "charset")) {
		copy_lower(pt->charset, sizeof(pt->charset), value, vl);
	} else if (!strcasecmp(name, "boundary")) {
		if (vl && vl <= BOUNDARY_MAX && !pt->boundary)
			pt->boundary = xstrdup(value);
	} else if (!strcasecmp(name, "format")) {
		pt->flowed = mem_ieq(value, vl, "flowed");
	} else if (!strcasecmp(name, "delsp")) {
		pt->delsp = mem_ieq(value, vl, "yes");
	} else if (is_name_param(name) && is_patch_filename(value)) {
		pt->patch_name = true;
	}
}

/*
 * Returns a copy of v with its (comments) replaced by spaces.  libetpan
 * parses comments by recursion, a frame per "(": 64 KB of them overflow a
 * 1 MB stack, so none may reach it.
 */
static char *strip_comments(const char *v, size_t n, size_t *len)
{
	char *d = xmalloc(n + 1);
	size_t j = 0, depth = 0;
	bool quoted = false;

	for (size_t i = 0; i < n; i++) {
		char c = v[i];

		if (c == '\\' && (quoted || depth) && i + 1 < n) {
			if (!depth)
				d[j++] = c, d[j++] = v[i + 1];
			i++;
			continue;
		}
		if (!depth && c == '"')
			quoted = !quoted;
		else if (!quoted && c == '(')
			depth++;
		else if (!quoted && depth && c == ')' && --depth == 0)
			c = ' ';
		if (!depth)
			d[j++] = c;
	}
	d[j] = '\0';
	*len = j;
	return d;
}

/* Content-Type by libetpan's parser; one it cannot read leaves the
 * default, text/plain (RFC 2045 5.2). */
static void part_content_type(struct part *pt, const char *value, size_t vn)
{
	struct mailmime_content *c = NULL;
	size_t idx = 0, n;
	char *v = strip_comments(value, vn, &n);
	const char *t;
	int r = mailmime_content_parse(v, n, &idx, &c);

	free(v);
	if (r != MAILIMF_NO_ERROR)
		return;
	t = type_name(c->ct_type);
	copy_lower(pt->type, sizeof(pt->type), t ? t : "", t ? strlen(t) : 0);
	if (strlen(pt->type) + 1 < sizeof(pt->type) && c->ct_subtype) {
		strcat(pt->type, "/");
		copy_lower(pt->type + strlen(pt->type), sizeof(pt->type) - strlen(pt->type),
			   c->ct_subtype, strlen(c->ct_subtype));
	}
	for (clistiter *it = clist_begin(c->ct_parameters); it; it = clist_next(it)) {
		struct mailmime_parameter *p = clist_content(it);

		part_param(pt, p->pa_name, p->pa_value);
	}
	mailmime_content_free(c);
}

static void part_disposition(struct part *pt, const char *value, size_t vn)
{
	struct mailmime_disposition *d = NULL;
	size_t idx = 0, n;
	char *v = strip_comments(value, vn, &n);
	int r = mailmime_disposition_parse(v, n, &idx, &d);

	free(v);
	if (r != MAILIMF_NO_ERROR)
		return;
	for (clistiter *it = clist_begin(d->dsp_parms); it; it = clist_next(it)) {
		struct mailmime_disposition_parm *p = clist_content(it);

		if (p->pa_type == MAILMIME_DISPOSITION_PARM_FILENAME && is_patch_filename(p->pa_data.pa_filename))
			pt->patch_name = true;
		else if (p->pa_type == MAILMIME_DISPOSITION_PARM_PARAMETER &&
			 is_name_param(p->pa_data.pa_parameter->pa_name) &&
			 is_patch_filename(p->pa_data.pa_parameter->pa_value))
			pt->patch_name = true;
	}
	mailmime_disposition_free(d);
}

static void part_encoding(struct part *pt, const char *v, size_t n)
{
	trim(&v, &n);
	if (mem_ieq(v, n, "quoted-printable"))
		pt->cte = CTE_QP;
	else if (mem_ieq(v, n, "base64"))
		pt->cte = CTE_BASE64;
	else
		pt->cte = CTE_IDENTITY;
}

/* Feeds one unfolded header to pt; the first of each kind counts. */
static void part_header(struct part *pt, const char *name, size_t nl, const char *v, size_t n)
{
	if (mem_ieq(name, nl, "content-type") && !pt->have_type) {
		pt->have_type = true;
		part_content_type(pt, v, n);
	} else if (mem_ieq(name, nl, "content-transfer-encoding") && !pt->have_cte) {
		pt->have_cte = true;
		part_encoding(pt, v, n);
	} else if (mem_ieq(name, nl, "content-disposition")) {
		part_disposition(pt, v, n);
	}
}

static bool is_mime_field(const struct field *f)
{
	return f->name_len > 8 && mem_ieq(f->name, 8, "content-");
}

/* Reads the headers of a body part into pt; pt->body is what follows. */
static void parse_part(const char *s, size_t n, struct part *pt)
{
	size_t i = 0;
	struct field f;

	part_init(pt);
	while (next_field(s, n, &i, &f)) {
		char *v;
		size_t len;
		bool cut;

		if (!is_mime_field(&f))
			continue;
		v = unfold(f.val, f.val_len, &len, &cut);
		part_header(pt, f.name, f.name_len, v, len);
		free(v);
	}
	pt->body = s + i;
	pt->body_len = n - i;
}

static bool is_patch_part(const struct part *pt)
{
	if (!strcmp(pt->type, "text/x-patch") || !strcmp(pt->type, "text/x-diff"))
		return true;
	return pt->patch_name &&
	       (!strcmp(pt->type, "text/plain") || !strcmp(pt->type, "application/octet-stream"));
}

/* ---------------------------------------------------------------------
 * The text: transfer decoding, charset, NUL and CR LF, format=flowed.
 */

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* A unified diff: "diff --git", or "--- ", "+++ ", "@@ " on three lines. */
static bool has_diff(const char *s, size_t n)
{
	size_t i = 0, state = 0;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), len = eol - i;

		if (starts_with(s + i, len, "diff --git "))
			return true;
		if (state == 2 && starts_with(s + i, len, "@@ "))
			return true;
		if (state == 1 && starts_with(s + i, len, "+++ "))
			state = 2;
		else
			state = starts_with(s + i, len, "--- ") ? 1 : 0;
		i = next;
	}
	return false;
}

/* Drops NULs and turns CR LF into LF, in place. */
static void normalize(struct buf *b, unsigned *warnings)
{
	size_t j = 0;

	if (!memchr(b->data, '\r', b->len) && !memchr(b->data, '\0', b->len))
		return;
	for (size_t i = 0; i < b->len; i++) {
		char c = b->data[i];

		if (c == '\0') {
			*warnings |= MSG_WARN_NUL_BYTES;
			continue;
		}
		if (c == '\r' && i + 1 < b->len && b->data[i + 1] == '\n')
			continue;
		b->data[j++] = c;
	}
	b->len = j;
	b->data[j] = '\0';
}

/*
 * Undoes format=flowed (RFC 3676 4.2): a line ending in a space continues
 * on the next line of the same quote depth; the space goes too with
 * DelSp=yes; a leading space is stuffing; "-- " never flows.
 */
static void unflow(struct buf *out, const char *s, size_t n, bool delsp)
{
	size_t i = 0, para_q = 0;
	bool in_para = false;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), q = 0, c, len;
		bool flowed;

		while (i + q < eol && s[i + q] == '>')
			q++;
		c = i + q;
		if (c < eol && s[c] == ' ')
			c++;
		len = eol - c;
		flowed = len && s[eol - 1] == ' ' && !(len == 3 && !memcmp(s + c, "-- ", 3));
		if (in_para && q != para_q) {
			buf_addch(out, '\n');
			in_para = false;
		}
		if (!in_para && q)
			buf_add(out, s + i, c - i);
		buf_add(out, s + c, flowed && delsp ? len - 1 : len);
		in_para = flowed;
		para_q = q;
		if (!flowed && next > eol)
			buf_addch(out, '\n');
		i = next;
	}
	if (in_para && n && s[n - 1] == '\n')
		buf_addch(out, '\n');
}

/* Decodes a leaf part into UTF-8 text with LF line ends. */
static char *decode_text(const struct part *pt, size_t *len, unsigned *warnings)
{
	struct buf raw, u;
	const char *s = pt->body;
	size_t n = pt->body_len;
	bool bad = false;

	buf_init(&raw, 0);
	if (pt->cte == CTE_QP)
		decode_qp(&raw, s, n, false);
	else if (pt->cte == CTE_BASE64)
		decode_base64(&raw, s, n);
	if (pt->cte != CTE_IDENTITY)
		s = raw.data, n = raw.len;
	buf_init(&u, 0);
	if (!convert(&u, s, n, pt->charset, &bad) || bad)
		*warnings |= MSG_WARN_BAD_CHARSET;
	buf_release(&raw);
	normalize(&u, warnings);
	if (pt->flowed) {
		struct buf f;

		buf_init(&f, 0);
		unflow(&f, u.data, u.len, pt->delsp);
		buf_release(&u);
		u = f;
	}
	return buf_detach(&u, len);
}

/* ---------------------------------------------------------------------
 * Walking the MIME tree for the text.
 */

struct walk {
	struct message *m;
	size_t nparts;
	bool stop;
	bool have_text, have_patch;
	struct part text, patch;	/* boundary always NULL */
	char *text_data;		/* owned: the decoded text part */
	size_t text_len;
	bool text_diff;
};

static void walk_entity(struct walk *w, struct part *pt, int depth);

/* A delimiter line "--boundary" or "--boundary--" (RFC 2046 5.1.1). */
struct delim {
	size_t start;	/* the line break before it: where the previous part ends */
	size_t next;	/* the first byte after its line */
	bool close;
};

/* Checks for a delimiter whose "--" is at s[at]; needle is "\n--boundary". */
static bool delim_at(const char *s, size_t n, size_t at, size_t blen, struct delim *d)
{
	size_t j = at + 2 + blen, k;

	d->close = j + 1 < n && s[j] == '-' && s[j + 1] == '-';
	if (d->close)
		j += 2;
	for (k = j; k < n && is_wsp((unsigned char)s[k]); k++)
		;
	if (k < n && s[k] != '\n' && !(s[k] == '\r' && (k + 1 == n || s[k + 1] == '\n')))
		return false;
	d->start = at == 0 ? 0 : at >= 2 && s[at - 2] == '\r' ? at - 2 : at - 1;
	d->next = k == n ? n : s[k] == '\n' ? k + 1 : k + 2 > n ? n : k + 2;
	return true;
}

static bool find_delim(const char *s, size_t n, size_t from, const char *needle, size_t nl, struct delim *d)
{
	size_t pos = from;

	if (from == 0 && n >= nl - 1 && !memcmp(s, needle + 1, nl - 1) && delim_at(s, n, 0, nl - 3, d))
		return true;
	while (pos < n) {
		const char *hit = memmem(s + pos, n - pos, needle, nl);
		size_t at;

		if (!hit)
			return false;
		at = (size_t)(hit - s) + 1;
		if (delim_at(s, n, at, nl - 3, d))
			return true;
		pos = at;
	}
	return false;
}

/*
 * Without a boundary parameter: the first "--token" line that is followed
 * by a Content- header is taken for the boundary.
 */
static char *guess_boundary(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), e2, len = eol - i;

		while (len > 2 && is_wsp((unsigned char)s[i + len - 1]))
			len--;
		if (len > 2 && len - 2 <= BOUNDARY_MAX && s[i] == '-' && s[i + 1] == '-' && next < n) {
			line_end(s, n, next, &e2);
			if (e2 - next > 8 && mem_ieq(s + next, 8, "content-") &&
			    !memchr(s + i + 2, ' ', len - 2) && !memchr(s + i + 2, '\t', len - 2))
				return xstrndup(s + i + 2, len - 2);
		}
		i = next;
	}
	return NULL;
}

/* The body of a multipart that cannot be split is read as text. */
static void walk_as_text(struct walk *w, const struct part *pt, int depth)
{
	struct part tp = *pt;

	tp.boundary = NULL;
	strcpy(tp.type, "text/plain");
	walk_entity(w, &tp, depth + 1);
}

static void walk_multipart(struct walk *w, struct part *pt, int depth)
{
	const char *s = pt->body;
	size_t n = pt->body_len, nl, cur;
	struct delim d;
	char *needle, *b;

	if (depth >= MESSAGE_MAX_MIME_DEPTH) {
		w->m->warnings |= MSG_WARN_TOO_DEEP;
		return;
	}
	b = pt->boundary;
	if (!b) {
		w->m->warnings |= MSG_WARN_NO_BOUNDARY;
		b = guess_boundary(s, n);
	}
	if (!b) {
		walk_as_text(w, pt, depth);
		return;
	}
	nl = strlen(b) + 3;
	needle = xmalloc(nl + 1);
	snprintf(needle, nl + 1, "\n--%s", b);
	if (!find_delim(s, n, 0, needle, nl, &d)) {
		w->m->warnings |= MSG_WARN_TRUNCATED_MIME;
		walk_as_text(w, pt, depth);
		d.close = true;
	}
	while (!d.close && !w->stop) {
		struct part child;
		size_t end;

		cur = d.next;
		if (!find_delim(s, n, cur, needle, nl, &d)) {
			w->m->warnings |= MSG_WARN_TRUNCATED_MIME;
			d.close = true;
			d.start = n;
		}
		end = d.start > cur ? d.start : cur;
		parse_part(s + cur, end - cur, &child);
		walk_entity(w, &child, depth + 1);
		free(child.boundary);
	}
	free(needle);
	if (b != pt->boundary)
		free(b);
}

static void take_leaf(struct walk *w, const struct part *pt)
{
	if (!w->have_text && !strcmp(pt->type, "text/plain")) {
		w->have_text = true;
		w->text = *pt;
		w->text.boundary = NULL;
		w->text_data = decode_text(pt, &w->text_len, &w->m->warnings);
		w->text_diff = has_diff(w->text_data, w->text_len);
		w->stop = w->text_diff || w->have_patch;
	} else if (!w->have_patch && is_patch_part(pt)) {
		w->have_patch = true;
		w->patch = *pt;
		w->patch.boundary = NULL;
		w->stop = w->have_text;
	}
}

static void walk_entity(struct walk *w, struct part *pt, int depth)
{
	if (w->stop)
		return;
	if (++w->nparts > MESSAGE_MAX_PARTS) {
		w->stop = true;
		return;
	}
	if (!strncmp(pt->type, "multipart/", 10))
		walk_multipart(w, pt, depth);
	else
		take_leaf(w, pt);
}

/* Puts the chosen text into m (RULES.md 1: the first text/plain part,
 * unless it holds no diff and a patch attachment does). */
static void choose_text(struct walk *w)
{
	struct message *m = w->m;
	const struct part *pt;

	if (w->have_patch && !w->text_diff) {
		free(w->text_data);
		m->text = decode_text(&w->patch, &m->text_len, &m->warnings);
		pt = &w->patch;
	} else if (w->have_text) {
		m->text = w->text_data;
		m->text_len = w->text_len;
		pt = &w->text;
	} else {
		m->text = xstrdup("");
		m->text_charset = xstrdup("us-ascii");
		m->warnings |= MSG_WARN_NO_TEXT;
		return;
	}
	m->text_is_attachment = is_patch_part(pt);
	m->text_charset = xstrdup(pt->charset[0] ? pt->charset : "us-ascii");
}

/* ---------------------------------------------------------------------
 * The interface.
 */

void message_init(struct message *m)
{
	memset(m, 0, sizeof(*m));
}

/* Reads the top-level header block into m and its MIME fields into top. */
static size_t parse_headers(struct message *m, const char *raw, size_t len, struct part *top)
{
	size_t i = 0, alloc = 0;
	struct field f;

	part_init(top);
	while (next_field(raw, len, &i, &f)) {
		const struct header *h;

		if (m->nheaders >= MESSAGE_MAX_HEADERS)
			continue;
		add_header(m, &alloc, &f);
		h = &m->headers[m->nheaders - 1];
		if (is_mime_field(&f))
			part_header(top, h->name, strlen(h->name), h->raw, strlen(h->raw));
	}
	return i;
}

int message_parse(struct message *m, const char *raw, size_t len, struct err *e)
{
	struct walk w;
	struct part top;
	size_t body;

	message_init(m);
	if (len > MESSAGE_MAX_SIZE)
		return err_set(e, ERR_FINAL, "message is %zu bytes, over the %zu MiB limit", len,
			       MESSAGE_MAX_SIZE >> 20);
	if (!raw || !len)
		return err_set(e, ERR_FINAL, "message is empty");
	if (len >= 5 && !memcmp(raw, "From ", 5)) {
		const char *nl = memchr(raw, '\n', len);

		body = nl ? (size_t)(nl - raw) + 1 : len;
		raw += body, len -= body;
	}
	body = parse_headers(m, raw, len, &top);
	top.body = raw + body;
	top.body_len = len - body;
	memset(&w, 0, sizeof(w));
	w.m = m;
	walk_entity(&w, &top, 0);
	free(top.boundary);
	choose_text(&w);
	return 0;
}

static const struct header *find_header(const struct message *m, const char *name)
{
	for (size_t i = 0; i < m->nheaders; i++)
		if (!strcasecmp(m->headers[i].name, name))
			return &m->headers[i];
	return NULL;
}

const char *message_header(const struct message *m, const char *name)
{
	const struct header *h = find_header(m, name);

	return h ? h->value : NULL;
}

const char *message_header_raw(const struct message *m, const char *name)
{
	const struct header *h = find_header(m, name);

	return h ? h->raw : NULL;
}

void message_release(struct message *m)
{
	for (size_t i = 0; i < m->nheaders; i++) {
		free(m->headers[i].name);
		free(m->headers[i].value);
		free(m->headers[i].raw);
	}
	free(m->headers);
	free(m->text);
	free(m->text_charset);
	message_init(m);
}
