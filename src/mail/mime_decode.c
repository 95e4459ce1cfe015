#include "autoconf.h"
/* Transfer encodings, charsets and RFC 2047 words: see mime_decode.h. */
#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "mail/message_p.h"
#include "lib/utf8.h"

#define ICONV_CHUNK	65536

/* Copies at most cap - 1 bytes of s, lower-cased and NUL-terminated. */
void mime_copy_lower(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap; i++)
		dst[i] = (char)ascii_tolower((unsigned char)s[i]);
	dst[i] = '\0';
}

/* Drops NULs and turns CR and LF into spaces; returns the new length. */
size_t mime_sanitize(char *d, size_t n)
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
size_t mime_ascii_run(const char *s, size_t i, size_t n)
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

		i = mime_ascii_run(s, i, n);
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
		size_t j = mime_ascii_run(s, i, n);

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
 * How mime_convert() reads charset: CS_ICONV with *iname set to the name
 * iconv_open() is given, or one of the kinds it does itself.  *known is
 * false for a name too long to be one (read as the guess then).
 */
static enum cs_kind charset_kind(const char *charset, char name[CHARSET_MAX + 1],
				 const char **iname, bool *known)
{
	const char *cs = charset ? charset : "";
	size_t len = strlen(cs);

	*known = true;
	while (len && (ascii_is_lws((unsigned char)*cs) || *cs == '"'))
		cs++, len--;
	len = strcspn(cs, "\"* \t*");
	if (len > CHARSET_MAX) {
		*known = false;
		return CS_GUESS;
	}
	mime_copy_lower(name, CHARSET_MAX + 1, cs, len);
	*iname = name;
	if (!name[0])
		return CS_GUESS;
	for (size_t i = 0; i < ARRAY_SIZE(cs_aliases); i++) {
		if (strcmp(cs_aliases[i].name, name))
			continue;
		if (cs_aliases[i].kind == CS_ICONV)
			*iname = cs_aliases[i].iconv_name;
		return cs_aliases[i].kind;
	}
	return CS_ICONV;
}

/*
 * Appends n bytes in charset to b as UTF-8.  Returns false when the charset
 * is unknown: the bytes are then read as UTF-8, else windows-1252.  A NULL
 * or empty charset is not unknown: it is the same guess.
 */
bool mime_convert(struct buf *b, const char *s, size_t n, const char *charset, bool *bad)
{
	char name[CHARSET_MAX + 1];
	const char *iname;
	bool known;
	iconv_t cd;

	switch (charset_kind(charset, name, &iname, &known)) {
	case CS_GUESS:
		add_utf8(b, s, n, false, bad);
		return known;
	case CS_UTF8:
		add_utf8(b, s, n, true, bad);
		return true;
	case CS_CP1252:
		add_cp1252(b, s, n);
		return true;
	case CS_ICONV:
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

bool mime_convert_keeps(const char *s, size_t n, const char *charset, bool *known)
{
	char name[CHARSET_MAX + 1];
	const char *iname;

	switch (charset_kind(charset, name, &iname, known)) {
	case CS_GUESS:
	case CS_UTF8:
		return utf8_run(s, 0, n) == n;
	case CS_CP1252:
		return mime_ascii_run(s, 0, n) == n;
	case CS_ICONV:
		break;
	}
	return false;
}

char *message_to_utf8(const char *s, size_t n, const char *charset, size_t *out_len, bool *bad)
{
	struct buf b;
	bool dummy = false;

	if (!bad)
		bad = &dummy;
	buf_init(&b, 0);
	if (!mime_convert(&b, s, n, charset, bad))
		*bad = true;
	return buf_detach(&b, out_len);
}

/* ---------------------------------------------------------------------
 * Transfer encodings.
 */

/* Each base64 digit's value plus one, 0 for the other bytes: a table,
 * since a base64 body is decoded a byte at a time. */
static const unsigned char b64_values[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6,
	['G'] = 7, ['H'] = 8, ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12,
	['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18,
	['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
	['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,
	['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
	['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
	['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54,
	['2'] = 55, ['3'] = 56, ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60,
	['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};

static int b64val(unsigned char c)
{
	return b64_values[c] - 1;
}

/* Puts c at *d, noting in *changed (when not NULL) a byte that was
 * different there: decoding in place tells whether it changed anything. */
static inline void put_byte(char **d, char c, bool *changed)
{
	if (changed && !*changed && **d != c)
		*changed = true;
	*(*d)++ = c;
}

/* Skips anything outside the alphabet (white space, garbage); '=' ends a
 * group, so concatenated encodings and missing padding both decode.
 * Writes to d, which may be s: each output byte goes behind the input
 * read.  Returns the length. */
static size_t base64_to(char *d, const char *s, size_t n, bool *changed)
{
	char *start = d;
	uint32_t acc = 0;
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0) {
			if (s[i] != '=')
				continue;
			if (k >= 2)
				put_byte(&d, (char)(acc >> (k * 6 - 8)), changed);
			if (k == 3)
				put_byte(&d, (char)(acc >> (k * 6 - 16)), changed);
			acc = 0, k = 0;
			continue;
		}
		acc = acc << 6 | (uint32_t)v;
		if (++k == 4) {
			put_byte(&d, (char)(acc >> 16), changed);
			put_byte(&d, (char)(acc >> 8), changed);
			put_byte(&d, (char)acc, changed);
			acc = 0, k = 0;
		}
	}
	if (k >= 2)
		put_byte(&d, (char)(acc >> (k * 6 - 8)), changed);
	if (k == 3)
		put_byte(&d, (char)(acc >> (k * 6 - 16)), changed);
	return (size_t)(d - start);
}

void mime_decode_base64(struct buf *out, const char *s, size_t n)
{
	if (buf_grow(out, n / 4 * 3 + 3) < 0)
		return;
	out->len += base64_to(out->data + out->len, s, n, NULL);
	out->data[out->len] = '\0';
}

size_t mime_decode_base64_in_place(char *s, size_t n, bool *changed)
{
	*changed = false;
	return base64_to(s, s, n, changed);
}

/* Quoted-printable (RFC 2045 6.7), or the Q encoding of RFC 2047 when q:
 * "_" is a space and there are no soft line breaks.  An "=" that starts
 * no escape is kept as it is.  Writes to d, which may be s (never ahead
 * of the input read: an escape is three bytes for one, a soft break
 * none); returns the length. */
static size_t qp_to(char *d, const char *s, size_t n, bool q, bool *changed)
{
	char *start = d;
	size_t i = 0, j;

	while (i < n) {
		const char *eq = memchr(s + i, '=', n - i);
		size_t run = eq ? (size_t)(eq - s) - i : n - i;

		if (d != s + i) {
			if (changed && !*changed && memcmp(d, s + i, run))
				*changed = true;
			memmove(d, s + i, run);
		}
		if (q)
			for (size_t k = 0; k < run; k++)
				if (d[k] == '_')
					d[k] = ' ';
		d += run, i += run;
		if (!eq)
			break;
		if (i + 2 < n && ascii_hex_value((unsigned char)s[i + 1]) >= 0 && ascii_hex_value((unsigned char)s[i + 2]) >= 0) {
			put_byte(&d, (char)(ascii_hex_value((unsigned char)s[i + 1]) << 4 |
					   ascii_hex_value((unsigned char)s[i + 2])), changed);
			i += 3;
			continue;
		}
		/* A soft line break: "=", transport padding, end of line. */
		for (j = i + 1; !q && j < n && ascii_is_blank((unsigned char)s[j]); j++)
			;
		if (!q && (j == n || s[j] == '\n' || (s[j] == '\r' && (j + 1 == n || s[j + 1] == '\n')))) {
			i = j == n ? n : s[j] == '\n' ? j + 1 : j + 2 > n ? n : j + 2;
			continue;
		}
		put_byte(&d, '=', changed);
		i++;
	}
	return (size_t)(d - start);
}

void mime_decode_qp(struct buf *out, const char *s, size_t n, bool q)
{
	if (buf_grow(out, n) < 0)
		return;
	out->len += qp_to(out->data + out->len, s, n, q, NULL);
	out->data[out->len] = '\0';
}

size_t mime_decode_qp_in_place(char *s, size_t n, bool *changed)
{
	*changed = false;
	return qp_to(s, s, n, false, changed);
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
	w->enc = ascii_tolower((unsigned char)s[k + 1]);
	if (w->enc != 'b' && w->enc != 'q')
		return false;
	t = k + 3;
	if (t < *fail_until)
		return false;
	for (k = t; k < n && !ascii_is_lws((unsigned char)s[k]); k++) {
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
		mime_convert(&d->out, d->word.data, d->word.len, d->cs, &bad);
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
		mime_copy_lower(d->cs, sizeof(d->cs), w->cs, cs_len);
	}
	if (w->enc == 'b')
		mime_decode_base64(&d->word, w->text, w->text_len);
	else
		mime_decode_qp(&d->word, w->text, w->text_len, true);
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
		const char *eq;
		size_t j;

		if (s[i] == '=' && parse_eword(s, n, i, &fail_until, &w)) {
			add_eword(&d, &w);
			i = w.end;
			after_word = true;
			continue;
		}
		if (after_word && ascii_is_blank((unsigned char)s[i])) {
			for (j = i + 1; j < n && ascii_is_blank((unsigned char)s[j]); j++)
				;
			/* White space between two encoded words is not text. */
			if (j < n && parse_eword(s, n, j, &fail_until, &w)) {
				i = j;
				continue;
			}
		}
		/* Text, up to the next '=' (where a word may start), in one piece:
		 * it is cut at ASCII bytes only, so no UTF-8 sequence is split. */
		eq = memchr(s + i + 1, '=', n - i - 1);
		j = eq ? (size_t)(eq - s) : n;
		flush_word(&d);
		after_word = false;
		add_utf8(&d.out, s + i, j - i, false, &bad);
		i = j;
	}
	flush_word(&d);
	buf_release(&d.word);
	/* Header values are single lines of text: no NUL, no line breaks. */
	d.out.len = mime_sanitize(d.out.data, d.out.len);
	d.out.data[d.out.len] = '\0';
	return buf_detach(&d.out, NULL);
}
