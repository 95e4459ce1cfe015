#include "autoconf.h"
#include "mail/patch.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/ascii.h"
#include "lib/bytes.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "mail/listid.h"
#include "mail/msgid.h"

#define SUBJECT_MAX_GROUPS	16	/* bracket groups parsed in a subject */
#define SUBJECT_MAX_PREFIXES	16	/* "Re: Re: AW: ..." prefixes stripped */
#define SERIES_MAX_TAGS		32	/* other bracket tags kept */
#define SERIES_MAX_NUMBER	99999	/* larger "v"/"n/m" numbers are tags */
#define INBODY_MAX_LINES	64	/* in-body header lines looked at */
#define PATCH_MAX_REFERENCES	1000	/* References: IDs kept */

_Static_assert(PATCH_MAX_TRAILERS == TRAILER_MAX, "trailers_parse caps at TRAILER_MAX");

static const char *const kind_names[] = {
	[KIND_PATCH] = "patch", [KIND_COVER] = "cover", [KIND_REPLY] = "reply",
	[KIND_PULL] = "pull", [KIND_OTHER] = "other",
};

const char *patch_kind_name(enum patch_kind k)
{
	return (unsigned)k < ARRAY_SIZE(kind_names) ? kind_names[k] : "other";
}

bool patch_checkable(const struct patch *p)
{
	return p->kind == KIND_PATCH || p->kind == KIND_COVER ||
	       (p->kind == KIND_OTHER && p->has_diff);
}

/* ---- small string helpers ---------------------------------------------- */

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* ---- lines -------------------------------------------------------------- */

/* Walks text line by line, counting lines of msg->text from 1. */
struct cursor {
	const char *p, *end;
	size_t lineno;	/* number of the line at p */
};

static bool cursor_next(struct cursor *c, struct line *l)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	l->p = c->p;
	l->len = (size_t)((nl ? nl : c->end) - c->p);
	if (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	l->lineno = c->lineno++;
	c->p = nl ? nl + 1 : c->end;
	return true;
}

static bool line_blank(const struct line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (!ascii_is_lws(l->p[i]))
			return false;
	return true;
}

/* "From <40 hex> ...", the mbox line of git format-patch (and of an mbox
 * git mailsplit splits). */
static bool is_mbox_from(const struct line *l)
{
	if (l->len < 46 || !starts(l->p, l->len, "From ") || l->p[45] != ' ')
		return false;
	for (size_t i = 5; i < 45; i++)
		if (!ascii_is_lxdigit(l->p[i]))
			return false;
	return true;
}

/*
 * A scissors line as git mailinfo reads one (its is_scissors_line()): a
 * perforation of dashes and ">8", "8<", ">%" or "%<" marks, white space
 * inside it counted as gaps, with prose allowed around it ("-- >8 -- cut
 * here -- >8 --").  To be no accident the line shows at least 8 visible
 * characters, the perforation takes more than a third of them, and
 * dashes and marks more than half of the perforation.
 */
static bool is_mark_at(const char *p, size_t len, size_t i)
{
	if (p[i] == '>')
		return i + 1 < len && (p[i + 1] == '8' || p[i + 1] == '%');
	return p[i] == '<' && i > 0 && (p[i - 1] == '8' || p[i - 1] == '%');
}

/*
 * Whether the line holds a mark (">8", "8<", ">%", "%<"): a scissors line
 * has one, and hardly any other line has a '<' or '>' beside an '8' or a
 * '%'.  Every line of every text is asked, the diff's too, so the answer
 * comes eight bytes at a time: '<' is '>' with bit 1 clear.
 */
static bool has_mark(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		size_t end = len - i >= 8 ? i + 8 : len;

		if (end - i == 8 && !bytes_has(bytes_load(p + i) | BYTES_REPEAT(0x02), '>'))
			continue;
		for (size_t j = i; j < end; j++)
			if (is_mark_at(p, len, j))
				return true;
	}
	return false;
}

static bool is_scissors(const char *p, size_t len)
{
	size_t marks = 0, gaps = 0, perf = 0, first = len, last = 0;
	bool in_perf = false;

	/* without a mark the count below finds no scissors */
	if (!has_mark(p, len))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = p[i], d = i + 1 < len ? p[i + 1] : '\0';

		if (ascii_is_space(c)) {
			perf += in_perf;
			gaps += in_perf;
			continue;
		}
		if (first == len)
			first = i;
		last = i;
		if (c == '-') {
			in_perf = true;
			perf++;
		} else if ((c == '>' && (d == '8' || d == '%')) ||
			   ((c == '8' || c == '%') && d == '<')) {
			in_perf = true;
			perf += 2;
			marks++;
			i++;	/* git's line width ends at the mark's first character */
		} else {
			in_perf = false;
		}
	}
	if (!marks || first == len)
		return false;
	return last - first + 1 >= 8 && last - first + 1 < perf * 3 && gaps * 2 < perf;
}

/*
 * The marks of a text, found ahead of the lines that ask for them, not by
 * a scan of each line: all of them by one scan of the text when they are
 * few (a text has none, nearly always), else by a scan of the next
 * MARK_WINDOW bytes, eight bytes at a time.  A mark is a pair of bytes,
 * neither of them a line end, so it lies within one line; it is told by
 * its first byte.
 */
#define MARKS_KEPT	16	/* marks of a text looked up, not scanned for */
#define MARK_WINDOW	1024	/* bytes scanned ahead of a line */

struct mark_list {
	const char *v[MARKS_KEPT];	/* in order */
	size_t n;
	bool all;			/* v holds all of the text's marks */
};

struct marks {
	const struct mark_list *list;	/* foreign; NULL, or the text's */
	const char *end;		/* the text's */
	const char *from, *limit;	/* the span scanned */
	const char *next;		/* its first mark, or limit when none */
};

static void marks_init(struct marks *mk, const struct mark_list *list, const char *end)
{
	*mk = (struct marks){ list && list->all ? list : NULL, end, NULL, NULL, NULL };
}

/*
 * The first mark that starts in [from, limit), else limit; end bounds the
 * bytes looked at.  A mark holds an '8' or a '%', which are rarer in mail
 * and diffs than '<' and '>' (quotes, "->"): the words without either are
 * passed over, only those with one are looked at byte by byte.
 */
static const char *next_mark(const char *from, const char *limit, const char *end)
{
	/* a mark starting at limit - 1 has its '8' or '%' at limit */
	const char *stop = limit < end ? limit + 1 : end;

#ifdef __SSE2__
	/*
	 * With SSE2 the pairs themselves are looked for, sixteen starts at a
	 * time: a word test for '8' and '%' is a poor filter in a diff, where
	 * hex numbers are, and every text is scanned so once whole.  A mark
	 * starts before limit and its two bytes lie before end.
	 */
	const char *last;

	if (end - from < 2)
		return limit;
	last = limit < end - 1 ? limit : end - 1;
	for (; end - from >= 17 && from < last; from += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)from);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(from + 1));
		__m128i a8 = _mm_or_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('8')),
					  _mm_cmpeq_epi8(a, _mm_set1_epi8('%')));
		__m128i b8 = _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('8')),
					  _mm_cmpeq_epi8(b, _mm_set1_epi8('%')));
		__m128i m = _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('>')), b8),
					 _mm_and_si128(a8, _mm_cmpeq_epi8(b, _mm_set1_epi8('<'))));
		unsigned hit = (unsigned)_mm_movemask_epi8(m);

		if (hit) {
			const char *q = from + __builtin_ctz(hit);

			return q < last ? q : limit;
		}
	}
	/* the rest as without SSE2: no mark starts before from */
	if (from >= last)
		return limit;
#endif
	for (const char *p = from; p < stop; p += 8) {
		const char *wend = stop - p >= 8 ? p + 8 : stop;

		if (wend - p == 8) {
			uint64_t w = bytes_load(p);

			if (!bytes_has(w, '8') && !bytes_has(w, '%'))
				continue;
		}
		for (const char *q = p; q < wend; q++) {
			if (*q != '8' && *q != '%')
				continue;
			if (q > from && q[-1] == '>')
				return q - 1;
			if (q + 1 < end && q[1] == '<')
				return q < limit ? q : limit;
		}
	}
	return limit;
}

/* The text's marks, when there are no more than MARKS_KEPT. */
static void mark_list_find(struct mark_list *ml, const char *text, size_t len)
{
	const char *end = text + len, *q;

	ml->n = 0;
	ml->all = false;
	for (const char *p = text; (q = next_mark(p, end, end)) < end; p = q + 1) {
		if (ml->n == MARKS_KEPT)
			return;
		ml->v[ml->n++] = q;
	}
	ml->all = true;
}

/* Scans [p, limit) unless what is known answers for [p, want). */
static void marks_scan(struct marks *mk, const char *p, const char *want, const char *limit)
{
	if (mk->list) {
		size_t i = 0;

		while (i < mk->list->n && mk->list->v[i] < p)
			i++;
		mk->from = p;
		mk->next = mk->limit = i < mk->list->n ? mk->list->v[i] : mk->end;
		return;
	}
	if (mk->from && p >= mk->from && mk->next >= p &&
	    (mk->next < mk->limit || mk->limit >= want))
		return;
	mk->from = p;
	mk->limit = limit;
	mk->next = next_mark(p, limit, mk->end);
}

/* The first mark at or after p (walking forward), or the text's end. */
static const char *mark_from(struct marks *mk, const char *p)
{
	marks_scan(mk, p, mk->end, mk->end);
	return mk->next;
}

/* is_scissors(l), asking only a line that holds a mark. */
static bool scissors_line(struct marks *mk, const struct line *l)
{
	const char *lend = l->p + l->len;
	const char *limit = mk->end - l->p > MARK_WINDOW ? l->p + MARK_WINDOW : mk->end;

	marks_scan(mk, l->p, lend, limit > lend ? limit : lend);
	return mk->next < lend && is_scissors(l->p, l->len);
}

static bool is_dashes(const struct line *l)
{
	if (!starts(l->p, l->len, "---"))
		return false;
	for (size_t i = 3; i < l->len; i++)
		if (l->p[i] != ' ' && l->p[i] != '\t')
			return false;
	return true;
}

static bool next_starts(const struct cursor *c, const char *prefix)
{
	struct cursor k = *c;
	struct line l;

	return cursor_next(&k, &l) && starts(l.p, l.len, prefix);
}

/* Where git mailinfo's patchbreak() sees the patch start (a scissors line
 * aside); c stands on the line after l. */
static enum patch_sep patchbreak_kind(const struct line *l, const struct cursor *c)
{
	if (is_dashes(l))
		return SEP_DASHES;
	if (starts(l->p, l->len, "diff -"))
		return SEP_DIFF;
	if (starts(l->p, l->len, "Index: "))
		return SEP_INDEX;
	/* a diff without a "diff" line */
	if (starts(l->p, l->len, "--- ") && next_starts(c, "+++ "))
		return SEP_DIFF;
	return SEP_NONE;
}

/* Which separator line l is; c stands on the line after it. */
static enum patch_sep sep_kind(struct marks *mk, const struct line *l, const struct cursor *c)
{
	if (scissors_line(mk, l))
		return SEP_SCISSORS;
	return patchbreak_kind(l, c);
}

/* A unified diff: "diff --git", or "--- " + "+++ " + "@@ " lines in a row. */
static bool find_diff(const char *p, size_t n, size_t lineno)
{
	struct cursor c = { p, p + n, lineno };
	struct line l;
	int state = 0;	/* 1: after "--- ", 2: after "+++ " */

	while (cursor_next(&c, &l)) {
		if (starts(l.p, l.len, "diff --git "))
			return true;
		if (state == 2 && starts(l.p, l.len, "@@ "))
			return true;
		if (state == 1 && starts(l.p, l.len, "+++ "))
			state = 2;
		else
			state = starts(l.p, l.len, "--- ") ? 1 : 0;
	}
	return false;
}

/* ---- headers ------------------------------------------------------------ */

static const struct header *hdr_find(const struct message *m, const char *name)
{
	for (size_t i = 0; i < m->nheaders; i++)
		if (m->headers[i].name && ascii_streq_ci(m->headers[i].name, name))
			return &m->headers[i];
	return NULL;
}

static const char *hdr_value(const struct message *m, const char *name)
{
	const struct header *h = hdr_find(m, name);

	return h ? message_header_value(m, h) : NULL;
}

/* Message-IDs are ASCII: the undecoded value avoids RFC 2047 surprises. */
static const char *hdr_raw(const struct message *m, const char *name)
{
	const struct header *h = hdr_find(m, name);

	const char *raw;

	if (!h)
		return NULL;
	raw = message_header_raw_of(m, h);
	return raw ? raw : message_header_value(m, h);
}

/* The end of the next ID at s: "<id>" or a bare word. */
static const char *msgid_end(const char *s)
{
	const char *e;

	if (*s == '<') {
		e = strchr(s, '>');
		return e ? e + 1 : s + strlen(s);
	}
	for (e = s; *e && !ascii_is_lws(*e) && *e != '<'; e++)
		;
	return e;
}

/* References: "<a@x> <b@x>", also run together ("<a@x><b@x>"). */
static void parse_references(struct patch *p, const char *s)
{
	size_t alloc = 0;

	while (s && *s && p->nreferences < PATCH_MAX_REFERENCES) {
		const char *e;
		char *word, *id;

		while (ascii_is_lws(*s))
			s++;
		if (!*s)
			break;
		e = msgid_end(s);
		word = xstrndup(s, (size_t)(e - s));
		id = msgid_strip(word);
		free(word);
		s = e;
		if (!*id) {
			free(id);
			continue;
		}
		ARRAY_GROW(p->references, alloc, p->nreferences + 1);
		p->references[p->nreferences++] = id;
	}
}

/* The mail's list, as the per-list policy names it (listid.h). */
static char *list_id(const struct message *m)
{
	char id[MAIL_LIST_ID_MAX + 1];

	if (mail_list_id(message_header_last(m, "List-Id"), hdr_value(m, "X-Mailing-List"), id,
			 sizeof(id)) < 0)
		return xstrdup("");
	return xstrdup(id);
}

static void fill_ids(struct patch *p, const struct message *m)
{
	p->message_id = msgid_strip(hdr_raw(m, "Message-ID"));
	p->in_reply_to = msgid_strip(hdr_raw(m, "In-Reply-To"));
	parse_references(p, hdr_raw(m, "References"));
	p->list_id = list_id(m);
}

/* ---- subject ------------------------------------------------------------ */

/* Reply and forward prefixes of mail clients in many languages. */
static const char *const reply_words[] = {
	"re", "aw", "fwd", "fw", "wg", "sv", "vs", "odp", "antw", "ynt", "rif", "tr",
	"\xe5\x9b\x9e\xe5\xa4\x8d",	/* 回复 */
	"\xe7\xad\x94\xe5\xa4\x8d",	/* 答复 */
	"\xe5\x9b\x9e\xe8\xa6\x86",	/* 回覆 */
	"\xe8\xbd\xac\xe5\x8f\x91",	/* 转发 */
};

/* CJK mail clients end the prefix with a full-width colon, U+FF1A. */
#define FULLWIDTH_COLON "\xef\xbc\x9a"

static size_t colon_at(const char *s)
{
	if (*s == ':')
		return 1;
	return strncmp(s, FULLWIDTH_COLON, 3) ? 0 : 3;
}

static bool known_reply_word(const char *w, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(reply_words); i++)
		if (strlen(reply_words[i]) == n && !strncasecmp(w, reply_words[i], n))
			return true;
	return false;
}

/*
 * One "Word:" prefix at s ("Re:", "RE :", "Re[2]:", "Отв:"): returns its
 * length including the white space after it, 0 if none; *letters gets the
 * number of characters of the word.
 */
static size_t prefix_at(const char *s, size_t *letters, size_t *wlen)
{
	size_t i = 0, n = 0, c;

	while ((ascii_is_alpha(s[i]) || (unsigned char)s[i] >= 0x80) && !colon_at(s + i)) {
		if ((unsigned char)s[i] < 0x80 || (unsigned char)s[i] >= 0xc0)
			n++;
		i++;
	}
	*wlen = i;
	*letters = n;
	if (!n || n > 4)
		return 0;
	if (s[i] == '[' || s[i] == '^') {	/* "Re[2]:", "Re^2:" */
		size_t j = i + 1;

		while (ascii_is_digit(s[j]))
			j++;
		if (j > i + 1 && (s[i] == '^' || s[j++] == ']'))
			i = j;
	}
	while (s[i] == ' ')
		i++;
	if (!(c = colon_at(s + i)))
		return 0;
	for (i += c; ascii_is_lws(s[i]); i++)
		;
	return i;
}

/*
 * Skips reply prefixes.  A known word ("Re", "AW", "Odp") always counts; any
 * other 2-3 letter word ("Ynt", "Odg") only when a '[' follows the run of
 * prefixes, so that "net: fix foo" stays a subject.
 */
static size_t skip_reply(const char *s, bool *reply)
{
	size_t i = 0, sure = 0;

	*reply = false;
	while (ascii_is_lws(s[i]))
		i++;
	sure = i;
	for (int k = 0; k < SUBJECT_MAX_PREFIXES; k++) {
		size_t letters, wlen, n = prefix_at(s + i, &letters, &wlen);
		bool known;

		if (!n)
			break;
		known = known_reply_word(s + i, wlen);
		if (!known && (letters < 2 || letters > 3))
			break;
		i += n;
		if (known)
			sure = i, *reply = true;
	}
	if (i > sure && s[i] == '[') {
		*reply = true;
		return i;
	}
	return sure;
}

bool patch_subject_is_reply(const char *subject)
{
	bool reply;

	skip_reply(subject ? subject : "", &reply);
	return reply;
}

static bool parse_number(const char *s, size_t n, int *out)
{
	int v = 0;

	if (!n || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!ascii_is_digit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > SERIES_MAX_NUMBER)
		return false;
	*out = v;
	return true;
}

/* "v3", "V3" */
static bool parse_version(const char *s, size_t n, struct series *ser)
{
	int v;

	if (n < 2 || (s[0] != 'v' && s[0] != 'V') || !parse_number(s + 1, n - 1, &v) || !v)
		return false;
	ser->version = v;
	return true;
}

/* "2/7", "02/12" */
static bool parse_index(const char *s, size_t n, struct series *ser)
{
	const char *slash = memchr(s, '/', n);
	int a, b;

	if (!slash || !parse_number(s, (size_t)(slash - s), &a) ||
	    !parse_number(slash + 1, n - (size_t)(slash - s) - 1, &b) || !b)
		return false;
	ser->index = a;
	ser->total = b;
	return true;
}

static void add_tag(struct series *ser, const char *s, size_t n)
{
	if (ser->ntags >= SERIES_MAX_TAGS)
		return;
	ser->tags = xrealloc(ser->tags, (ser->ntags + 1) * sizeof(*ser->tags));
	ser->tags[ser->ntags++] = xstrndup(s, n);
}

static bool parse_numbers(const char *s, size_t n, struct series *ser)
{
	return parse_version(s, n, ser) || parse_index(s, n, ser);
}

/* Whether one of the '/'-separated pieces of a word is "RFC" ("RFC/RFT"). */
static bool slashed_rfc(const char *s, size_t n)
{
	const char *end = s + n;

	if (!memchr(s, '/', n))
		return false;
	while (s < end) {
		const char *slash = memchr(s, '/', (size_t)(end - s));
		size_t k = slash ? (size_t)(slash - s) : (size_t)(end - s);

		if (k == 3 && !strncasecmp(s, "RFC", 3))
			return true;
		s += k + (slash != NULL);
	}
	return false;
}

/* One word of a bracket group; *pull is set by "PULL" ("[GIT PULL]"). */
static void parse_word(const char *s, size_t n, struct series *ser, bool *pull)
{
	if (n == 5 && !strncasecmp(s, "PATCH", 5)) {
		ser->prefixed = true;
		return;
	}
	if (n == 3 && !strncasecmp(s, "RFC", 3)) {
		ser->rfc = true;	/* a submission with PATCH or n/m only */
		return;
	}
	if (n == 6 && !strncasecmp(s, "RESEND", 6)) {
		ser->resend = true;
		return;
	}
	if (n == 4 && !strncasecmp(s, "PULL", 4)) {
		*pull = true;
		return;
	}
	if (parse_numbers(s, n, ser))
		return;
	/* "PATCHv2", "PATCH1/8", "RFCv2": a marker glued to a number */
	if (n > 5 && !strncasecmp(s, "PATCH", 5) && parse_numbers(s + 5, n - 5, ser)) {
		ser->prefixed = true;
		return;
	}
	if (n > 3 && !strncasecmp(s, "RFC", 3) && parse_version(s + 3, n - 3, ser)) {
		ser->rfc = true;
		return;
	}
	if (slashed_rfc(s, n)) {	/* "RFC/RFT": a request for comments too */
		ser->rfc = true;
		return;
	}
	add_tag(ser, s, n);
}

static void parse_group(const char *s, size_t n, struct series *ser, bool *pull)
{
	size_t i = 0;

	while (i < n) {
		size_t b;

		while (i < n && (ascii_is_lws(s[i]) || s[i] == ','))
			i++;
		b = i;
		while (i < n && !ascii_is_lws(s[i]) && s[i] != ',')
			i++;
		if (i == b)
			break;
		/* "GIT" only matters in "GIT PULL" */
		if (i - b == 3 && !strncasecmp(s + b, "GIT", 3)) {
			size_t j = i;

			while (j < n && ascii_is_lws(s[j]))
				j++;
			if (ascii_has_prefix_ci(s + j, n - j, "PULL"))
				continue;
		}
		parse_word(s + b, i - b, ser, pull);
	}
}

/*
 * A patch prefix with one bracket missing, as typed by hand: "PATCH] foo",
 * "PATCH v2 1/3] foo", "[PATCH foo".  Only a run of prefix words (PATCH,
 * RFC, RESEND, vN, n/m, glued forms) that makes a patch prefix counts, so
 * "PATCH: foo" or "[RFC v2 foo" is none.  Fills *s and returns the offset
 * of the subject body; returns i (s untouched) when there is no such
 * prefix at i.
 */
static size_t typo_prefix(const char *subject, size_t i, struct series *s)
{
	bool open = subject[i] == '[', pull = false, closed = false;
	struct series t;
	size_t k = i + open, end = k;

	if (open && strchr(subject + i, ']'))
		return i;	/* a whole bracket pair that made no prefix */
	memset(&t, 0, sizeof(t));
	t.version = 1;
	while (!closed) {
		size_t b;

		while (subject[k] == ' ')
			k++;
		for (b = k; subject[k] && !ascii_is_lws(subject[k]) && subject[k] != ']'; k++)
			;
		if (k == b)
			break;
		parse_word(subject + b, k - b, &t, &pull);
		if (t.ntags) {		/* the first word of the subject body */
			free(t.tags[--t.ntags]);
			break;
		}
		if (pull)
			break;
		closed = !open && subject[k] == ']';
		end = closed ? k + 1 : k;
	}
	if (t.rfc && t.total > 0)
		t.prefixed = true;
	if (!t.prefixed || open == closed) {
		series_release(&t);
		return i;
	}
	series_release(s);
	*s = t;
	while (ascii_is_lws(subject[end]))
		end++;
	return end;
}

size_t patch_parse_subject(const char *subject, struct series *s, bool *is_reply, bool *is_pull)
{
	size_t i;
	bool reply, pull = false;

	memset(s, 0, sizeof(*s));
	s->version = 1;
	if (!subject)
		subject = "";
	i = skip_reply(subject, &reply);
	for (int g = 0; g < SUBJECT_MAX_GROUPS && subject[i] == '['; g++) {
		const char *close = strchr(subject + i, ']');

		if (!close)
			break;
		parse_group(subject + i + 1, (size_t)(close - subject - i - 1), s, &pull);
		i = (size_t)(close - subject) + 1;
		while (ascii_is_lws(subject[i]))
			i++;
	}
	if (!s->prefixed && !pull)
		i = typo_prefix(subject, i, s);
	/* "[RFC PATCH]" and "[RFC 1/3]" are patches; a bare "[RFC]" or "[RFC
	 * RESEND]" is a discussion, whatever diff it shows */
	if (s->rfc && s->total > 0)
		s->prefixed = true;
	if (is_reply)
		*is_reply = reply;
	if (is_pull)
		*is_pull = pull;
	return i;
}

void series_release(struct series *s)
{
	for (size_t i = 0; i < s->ntags; i++)
		free(s->tags[i]);
	free(s->tags);
	s->tags = NULL;
	s->ntags = 0;
}

/* ---- in-body headers ---------------------------------------------------- */

struct inbody {
	char *from, *subject;	/* owned; NULL when absent */
	struct buf *cur;	/* the header being read (for folded lines) */
	struct buf from_b, subject_b, other_b;
	bool have_from, have_subject;
};

/* "Name: value" with a header name; returns the offset of the value. */
static size_t header_shape(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && (ascii_is_alpha(l->p[i]) || ascii_is_digit(l->p[i]) || l->p[i] == '-'))
		i++;
	if (!i || i >= l->len || l->p[i] != ':' || !ascii_is_alpha(l->p[0]))
		return 0;
	return i + 1;
}

static bool inbody_name(const struct line *l, size_t vo)
{
	return (vo == 5 && ascii_has_prefix_ci(l->p, l->len, "From:")) ||
	       (vo == 5 && ascii_has_prefix_ci(l->p, l->len, "Date:")) ||
	       (vo == 8 && ascii_has_prefix_ci(l->p, l->len, "Subject:"));
}

static void inbody_start(struct inbody *ib, const struct line *l, size_t vo)
{
	if (vo == 5 && ascii_has_prefix_ci(l->p, l->len, "From:") && !ib->have_from) {
		ib->cur = &ib->from_b;
		ib->have_from = true;
	} else if (vo == 8 && ascii_has_prefix_ci(l->p, l->len, "Subject:") && !ib->have_subject) {
		ib->cur = &ib->subject_b;
		ib->have_subject = true;
	} else {
		ib->cur = &ib->other_b;
	}
	buf_reset(ib->cur);
	buf_add(ib->cur, l->p + vo, l->len - vo);
}

/* git format-patch writes non-ASCII in-body headers RFC 2047 encoded too. */
static char *inbody_value(const struct buf *b)
{
	char *d, *t;

	if (!memmem(b->data, b->len, "=?", 2))
		return xstrndup_trim(b->data, b->len);
	d = message_decode_2047(b->data, b->len);
	t = xstrndup_trim(d, strlen(d));
	free(d);
	return t;
}

/*
 * Reads in-body headers at the top of the text at *c: From:, Date:,
 * Subject: lines (any header when any is set: a pasted mbox message),
 * folded lines joined, ended by a blank line.  Advances *c past them only
 * when there were some.
 */
static void inbody_read(struct cursor *c, bool any, struct inbody *ib)
{
	struct cursor k = *c;
	struct line l;
	size_t n = 0, vo;

	memset(ib, 0, sizeof(*ib));
	buf_init(&ib->from_b, MESSAGE_MAX_HEADER_LEN);
	buf_init(&ib->subject_b, MESSAGE_MAX_HEADER_LEN);
	buf_init(&ib->other_b, MESSAGE_MAX_HEADER_LEN);
	while (cursor_next(&k, &l) && line_blank(&l))
		*c = k;
	for (k = *c; n < INBODY_MAX_LINES; n++) {
		if (!cursor_next(&k, &l))
			break;
		if (line_blank(&l)) {
			if (n)
				*c = k;
			break;
		}
		if (n && ib->cur && (l.p[0] == ' ' || l.p[0] == '\t')) {
			buf_add(ib->cur, l.p, l.len);	/* unfold: the WSP stays */
		} else if ((vo = header_shape(&l)) && (any || inbody_name(&l, vo))) {
			inbody_start(ib, &l, vo);
		} else {
			break;	/* prose right after the headers */
		}
		*c = k;
	}
	/* raw: address_parse_mailbox() decodes the name, never the address */
	ib->from = ib->have_from ? xstrndup_trim(ib->from_b.data, ib->from_b.len) : NULL;
	ib->subject = ib->have_subject ? inbody_value(&ib->subject_b) : NULL;
	buf_release(&ib->from_b);
	buf_release(&ib->subject_b);
	buf_release(&ib->other_b);
}

/* ---- people ------------------------------------------------------------- */

/* How many headers are named name. */
static size_t hdr_count(const struct message *m, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nheaders; i++)
		n += m->headers[i].name && ascii_streq_ci(m->headers[i].name, name);
	return n;
}

/*
 * The header From:'s one mailbox, parsed raw (address.h); a value that is
 * not one well-formed mailbox keeps its decoded text as the name and no
 * address.  So does a mail with two From: headers (RFC 5322 allows one):
 * which one a DKIM verifier vouched for, or a reader shows, is anyone's
 * guess.
 */
static void sender_from(struct person *p, const struct message *m)
{
	const char *raw = hdr_raw(m, "From"), *v = hdr_value(m, "From");

	if (raw && hdr_count(m, "From") == 1 && address_parse_mailbox(p, raw, strlen(raw)) == 0)
		return;
	person_release(p);
	p->name = v ? xstrndup_trim(v, strlen(v)) : xstrdup("");
	p->email = xstrdup("");
}

static void person_copy(struct person *dst, const struct person *src)
{
	dst->name = xstrdup(src->name);
	dst->email = xstrdup(src->email);
}

/* " via B4 Relay", " via Linux-leds": where the relay suffix of a name starts. */
static const char *via_suffix(const char *name)
{
	const char *v = NULL, *s = name;

	while ((s = strstr(s, " via ")))
		v = s++;
	return v && v[5] ? v : NULL;
}

static bool is_relay(const struct person *s)
{
	return !strncasecmp(s->email, "devnull+", 8) || via_suffix(s->name);
}

/* name with the relay suffix (" via B4 Relay") cut; malloc'ed. */
static char *name_without_via(const char *name)
{
	char *n = xstrdup(name ? name : "");
	const char *via = via_suffix(n);

	if (via)
		n[via - n] = '\0';
	return n;
}

/*
 * Who is behind a relay's From: sender: X-Original-From:, else Reply-To:
 * (b4's relay sets a bare "Reply-To: addr": then the From: name without
 * " via ..." is theirs).  0 and *out filled; -1 (out empty) when neither
 * holds one well-formed mailbox.
 */
static int relay_original(const struct message *m, const struct person *sender,
			  struct person *out)
{
	static const char *const relay_hdrs[] = { "X-Original-From", "Reply-To" };

	for (size_t i = 0; m && i < ARRAY_SIZE(relay_hdrs); i++) {
		const char *v = hdr_raw(m, relay_hdrs[i]);

		if (!v)
			continue;
		if (address_parse_mailbox(out, v, strlen(v)) == 0) {
			if (!*out->name) {
				free(out->name);
				out->name = name_without_via(sender->name);
			}
			return 0;
		}
		person_release(out);	/* filled with "" even on failure */
	}
	return -1;
}

/*
 * The author of a From: value (RFC 2047 decoded) that is not one
 * well-formed mailbox: git mailinfo still reads one from it, and the
 * author checks are held against what git am commits, not against nothing.
 */
static void author_as_git(struct patch *p, const char *from)
{
	person_release(&p->author);
	address_recover(&p->author, from, strlen(from));
	person_git_ident(&p->author);
	p->bad_from = xstrdup(from);
}

/*
 * The author: in-body From:, else for a relay (b4's web relay, a list that
 * rewrote From: for DMARC) X-Original-From: or Reply-To:, else From:.
 */
static void fill_author(struct patch *p, const struct message *m, const char *inbody_from)
{
	const char *from = hdr_value(m, "From");

	sender_from(&p->sender, m);
	if (inbody_from) {
		char *dec;

		/* git takes the in-body From: whatever it holds */
		p->author_from_body = true;
		if (address_parse_mailbox(&p->author, inbody_from, strlen(inbody_from)) == 0)
			return;
		dec = message_decode_2047(inbody_from, strlen(inbody_from));
		author_as_git(p, dec);
		free(dec);
		return;
	}
	person_release(&p->author);
	if (is_relay(&p->sender) && relay_original(m, &p->sender, &p->author) == 0)
		return;
	if (!*p->sender.email && from && hdr_count(m, "From") == 1) {
		author_as_git(p, from);
		return;
	}
	/* no original address known: at least drop the " via X" from the name */
	p->author.email = xstrdup(p->sender.email);
	p->author.name = name_without_via(p->sender.name);
}

int patch_submitter(const struct patch *p, struct person *out)
{
	const struct person *s = &p->sender;

	if (s->email && *s->email) {
		if (!is_relay(s)) {
			person_copy(out, s);
			return 0;
		}
		if (relay_original(p->msg, s, out) == 0)
			return 0;
	}
	out->name = xstrdup("");
	out->email = xstrdup("");
	return -1;
}

int patch_provider_original(const struct patch *p, struct person *out)
{
	static const char hdr[] = "X-Google-Original-From";
	const char *v = p->msg && hdr_count(p->msg, hdr) == 1 ? hdr_raw(p->msg, hdr) : NULL;

	out->name = out->email = NULL;
	if (v && p->sender.email && *p->sender.email) {
		if (address_parse_mailbox(out, v, strlen(v)) == 0 &&
		    !address_same(out->email, p->sender.email))
			return 0;
		person_release(out);	/* filled with "" even on failure */
	}
	out->name = xstrdup("");
	out->email = xstrdup("");
	return -1;
}

/* ---- the commit message ------------------------------------------------- */

static void add_line(struct patch *p, size_t *alloc, const struct line *l)
{
	ARRAY_GROW(p->lines, *alloc, p->nlines + 1);
	p->lines[p->nlines++] = *l;
}

static void trim_blank_tail(struct patch *p)
{
	while (p->nlines && line_blank(&p->lines[p->nlines - 1]))
		p->nlines--;
}

/*
 * The first line of s[0..n) that starts with the k bytes of word, or NULL.
 * A diff's lines start with ' ', '+', '-' and '@' nearly all: with SSE2
 * the line ends followed by word[0] are looked for sixteen at a time, and
 * only those are compared; else memmem() finds word where it stands.
 */
static const char *line_starting(const char *s, size_t n, const char *word, size_t k)
{
	const char *end = s + n, *p = s;

	if (n >= k && !memcmp(s, word, k))
		return s;
#ifdef __SSE2__
	for (; end - p >= 17; p += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
		unsigned hit = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('\n')),
				      _mm_cmpeq_epi8(b, _mm_set1_epi8(word[0]))));

		for (; hit; hit &= hit - 1) {
			const char *q = p + __builtin_ctz(hit) + 1;

			if ((size_t)(end - q) >= k && !memcmp(q, word, k))
				return q;
		}
	}
	for (; p < end; p++)
		if (*p == '\n' && (size_t)(end - p - 1) >= k && !memcmp(p + 1, word, k))
			return p + 1;
#else
	while ((p = memmem(p, (size_t)(end - p), word, k))) {
		if (p == s || p[-1] == '\n')
			return p;
		p++;
	}
#endif
	return NULL;
}

/* b4's footer line "change-id: 20240101-foo-bar-0123456789ab": the first
 * line that starts so, found without a walk through the lines of the
 * whole diff. */
static char *find_change_id(const char *s, size_t n)
{
	static const char word[] = "change-id: ";
	const char *end = s + n, *p = line_starting(s, n, word, sizeof(word) - 1), *nl;

	if (!p)
		return xstrdup("");
	p += sizeof(word) - 1;
	nl = memchr(p, '\n', (size_t)(end - p));
	/* the CR of a CR LF goes with the trimmed white space */
	return xstrndup_trim(p, (size_t)((nl ? nl : end) - p));
}

static void finish_body(struct patch *p)
{
	trim_blank_tail(p);
	p->block_start = trailer_block_find(p->lines, p->nlines, &p->block_end);
	trailers_parse(p->lines, p->block_end, p->block_start, &p->trailers, &p->ntrailers);
	p->has_diff = p->after_len && find_diff(p->after, p->after_len, p->sep_lineno);
	p->change_id = p->after_len ? find_change_id(p->after, p->after_len) : xstrdup("");
}

/* Reads the commit message at *c up to the separator; fills after. */
static void read_body(struct patch *p, struct cursor *c, const struct mark_list *marks)
{
	const char *end = c->end;
	struct marks mk;
	struct line l;
	size_t alloc = 0;

	marks_init(&mk, marks, end);
	p->after = end;
	while (cursor_next(c, &l)) {
		enum patch_sep s = sep_kind(&mk, &l, c);

		if (s != SEP_NONE) {
			p->sep = s;
			p->sep_lineno = l.lineno;
			/* the diff and an Index: line belong to what follows */
			p->after = (s == SEP_DIFF || s == SEP_INDEX) ? l.p : c->p;
			break;
		}
		if ((p->nlines || !line_blank(&l)) && p->nlines < PATCH_MAX_LINES)
			add_line(p, &alloc, &l);
	}
	p->after_len = (size_t)(end - p->after);
	finish_body(p);
}

/* What the mail's own headers say about every part of it (patch.h). */
struct mail_facts {
	bool reply;	/* a reply marker: each part is KIND_REPLY */
	bool prefixed;	/* its Subject opens with a patch prefix */
	bool pull;	/* [GIT PULL], or [GIT] and git request-pull's text */
};

#define REQUEST_PULL_TEXT	"are available in the git repository at"
#define REQUEST_PULL_URL_GAP	16	/* bytes between that text and its URL */

/* git request-pull's "... are available in the Git repository at:" and a
 * URL after it. */
static bool has_request_pull(const char *text, size_t len)
{
	static const char *const schemes[] = { "git://", "https://", "http://", "ssh://" };
	size_t k = strlen(REQUEST_PULL_TEXT);

	for (size_t i = 0; i + k <= len; i++) {
		size_t j = i + k, gap = 0;

		if (ascii_tolower(text[i]) != 'a' || strncasecmp(text + i, REQUEST_PULL_TEXT, k))
			continue;
		while (j < len && gap++ < REQUEST_PULL_URL_GAP && (text[j] == ':' || ascii_is_space(text[j])))
			j++;
		for (size_t m = 0; m < ARRAY_SIZE(schemes); m++)
			if (ascii_has_prefix_ci(text + j, len - j, schemes[m]))
				return true;
	}
	return false;
}

/* "[GIT]": a tag of the subject that request-pull's text makes a pull. */
static bool has_git_tag(const struct series *s)
{
	for (size_t i = 0; i < s->ntags; i++)
		if (!strcasecmp(s->tags[i], "GIT"))
			return true;
	return false;
}

/* "(was: ...)", "[Was: Re: ...]": a thread that changed its subject. */
static bool has_was_marker(const char *s)
{
	for (; *s; s++) {
		size_t i = 1;

		if (*s != '(' && *s != '[')
			continue;
		while (s[i] == ' ')
			i++;
		if (strncasecmp(s + i, "was", 3))
			continue;
		for (i += 3; s[i] == ' '; i++)
			;
		if (colon_at(s + i))
			return true;
	}
	return false;
}

static void mail_facts(const struct message *msg, struct mail_facts *mf)
{
	const char *subj = hdr_value(msg, "Subject"), *irt = hdr_raw(msg, "In-Reply-To");
	struct series s;
	bool reply, pull, marked;

	patch_parse_subject(subj, &s, &reply, &pull);
	mf->pull = pull || (has_git_tag(&s) && msg->text && has_request_pull(msg->text, msg->text_len));
	marked = s.prefixed || mf->pull;
	mf->prefixed = s.prefixed;
	mf->reply = reply || (!marked && subj && has_was_marker(subj)) ||
		    (!marked && irt && *irt && msg->body_quotes);
	series_release(&s);
}

/*
 * A diffstat in front of the diff in after: lines " path | 3 +-" and the
 * summary " 1 file changed, ..." as git format-patch writes them.
 */
static bool has_diffstat(const struct patch *p)
{
	struct cursor c = { p->after, p->after + p->after_len, p->sep_lineno + 1 };
	struct line l;
	bool files = false;

	while (cursor_next(&c, &l)) {
		size_t i = 0;

		if (starts(l.p, l.len, "diff -") || starts(l.p, l.len, "--- "))
			break;
		if (l.len > 3 && l.p[0] == ' ' && memmem(l.p, l.len, " | ", 3))
			files = true;
		while (i < l.len && l.p[i] == ' ')
			i++;
		if (!i || i == l.len || !ascii_is_digit(l.p[i]))
			continue;
		while (i < l.len && ascii_is_digit(l.p[i]))
			i++;
		if (files && (starts(l.p + i, l.len - i, " file changed") ||
			      starts(l.p + i, l.len - i, " files changed")))
			return true;
	}
	return false;
}

/*
 * A git format-patch body: a Signed-off-by: in the trailer block, the
 * "---" separator, a diffstat and the diff.  Older git send-email and
 * format-patch -k send it without a [PATCH] prefix.
 */
static bool format_patch_body(const struct patch *p)
{
	bool signed_off = false;

	for (size_t i = 0; i < p->ntrailers; i++)
		signed_off |= p->trailers[i].in_block && trailer_is(&p->trailers[i], "Signed-off-by");
	return signed_off && p->sep == SEP_DASHES && p->has_diff && has_diffstat(p);
}

static enum patch_kind decide_kind(const struct patch *p, bool reply, bool pull,
				   const struct mail_facts *mf)
{
	if (reply || mf->reply)
		return KIND_REPLY;	/* a reply that quotes a diff is never a patch */
	if (pull || mf->pull)
		return KIND_PULL;
	if (!mf->prefixed)	/* no submission, unless format-patch wrote it */
		return format_patch_body(p) ? KIND_PATCH : KIND_OTHER;
	if (p->has_diff)
		return KIND_PATCH;
	if (p->series.index == 0 && p->series.total > 0)
		return KIND_COVER;
	return KIND_OTHER;
}

/*
 * Where the commit title starts, as git mailinfo's cleanup_subject() finds
 * it: white space, colons, bracket groups and reply prefixes are stripped
 * from the front until none is left, so "Re: [EXT] Re: [PATCH v3 3/4] x"
 * and "[External] : [PATCH 1/3] x" are titled "x".
 */
static size_t title_start(const char *s, size_t i)
{
	for (;;) {
		const char *close;
		size_t r;
		bool reply;

		if (s[i] == ':' || ascii_is_lws(s[i])) {
			i++;
		} else if (s[i] == '[' && (close = strchr(s + i, ']')) != NULL) {
			i = (size_t)(close - s) + 1;
		} else if ((r = skip_reply(s + i, &reply)) != 0 && reply) {
			i += r;
		} else {
			return i;
		}
	}
}

static void fill_subject(struct patch *p, const char *subject, bool *reply, bool *pull)
{
	size_t off;

	p->subject = xstrndup_trim(subject ? subject : "", subject ? strlen(subject) : 0);
	off = title_start(p->subject, patch_parse_subject(p->subject, &p->series, reply, pull));
	p->subject_body = xstrndup_trim(p->subject + off, strlen(p->subject + off));
}

/* ---- splitting ---------------------------------------------------------- */

struct part {
	const char *p, *end;
	size_t lineno;
	bool mbox;	/* starts after a "From <sha>" line: a whole pasted mail */
	struct line from;	/* that line (when mbox) */
	bool chat;	/* ends at a scissors line above its own patch start */
	const char *attachment;	/* foreign: the file name of the text it is in */
};

/* After a scissors line: does an in-body From:/Subject:/Date: follow? */
static bool inbody_follows(const struct cursor *c)
{
	struct cursor k = *c;
	struct line l;
	size_t vo;

	while (cursor_next(&k, &l))
		if (!line_blank(&l))
			return (vo = header_shape(&l)) && inbody_name(&l, vo);
	return false;
}

/* The first line at or after p (a line start) that starts with "From ", or
 * end. */
static const char *next_from_line(const char *p, const char *end)
{
	const char *from = line_starting(p, (size_t)(end - p), "From ", 5);

	return from ? from : end;
}

/* The start of the line that holds q (c->p at the latest; c->end for
 * c->end). */
static const char *line_start(const struct cursor *c, const char *q)
{
	if (q == c->end)
		return q;
	while (q > c->p && q[-1] != '\n')
		q--;
	return q;
}

static size_t count_lines(const char *p, const char *end)
{
	size_t n = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n;
}

/*
 * Splits text into up to max parts at v.  As git am --scissors does, a
 * scissors line above a part's patch start cuts the part: what is above
 * is chat, the commit message starts below.  Further down (in a diff,
 * where "+-- >8 --" is a changed line) only a scissors line that an
 * in-body header follows starts a new patch.
 *
 * Below a patch start only a From_ line or a line with a scissors mark
 * can start a part, so the walk goes from one of those to the next, a
 * diff's other lines unread; their number is counted only when a part
 * starts after them (from skipped, whose line is skipped_lineno).
 */
static size_t split_parts(const char *text, size_t len, const struct mark_list *marks,
			  struct part *v, size_t max)
{
	struct cursor c = { text, text + len, 1 };
	const char *skipped = NULL;
	size_t n = 1, skipped_lineno = 0;
	bool in_msg = true;	/* above the current part's patch start */
	struct marks mk;
	struct line l;

	marks_init(&mk, marks, c.end);
	v[0] = (struct part){ c.p, c.end, 1, false, { NULL, 0, 0 }, false, "" };
	/* Without a mark and a From_ line no line can start a part: the
	 * walk below would find none (a text is one part, nearly always). */
	if (marks->all && !marks->n && next_from_line(text, c.end) == c.end)
		return 1;
	while (n < max) {
		bool mbox, cut = false;

		if (!in_msg) {
			const char *from = next_from_line(c.p, c.end);
			const char *mark = mark_from(&mk, c.p);

			if (!skipped) {
				skipped = c.p;
				skipped_lineno = c.lineno;
			}
			c.p = line_start(&c, from < mark ? from : mark);
		}
		if (!cursor_next(&c, &l))
			break;
		mbox = is_mbox_from(&l);
		if (!mbox && scissors_line(&mk, &l))
			cut = in_msg || inbody_follows(&c);
		if (!mbox && !cut) {
			if (in_msg && patchbreak_kind(&l, &c) != SEP_NONE)
				in_msg = false;
			continue;
		}
		if (skipped) {
			c.lineno = skipped_lineno + count_lines(skipped, c.p);
			l.lineno = c.lineno - 1;
			skipped = NULL;
		}
		v[n - 1].end = l.p;
		v[n - 1].chat = cut && in_msg;
		v[n++] = (struct part){ c.p, c.end, c.lineno, mbox, l, false, "" };
		in_msg = true;
	}
	return n;
}

/* The date git format-patch writes on every mbox line it makes. */
#define FORMAT_PATCH_DATE	" Mon Sep 17 00:00:00 2001"

/* A git format-patch file pasted into the mail's text (not attached): its
 * mbox line, then From: and Subject:. */
static bool pasted_format_patch(const struct part *pt, const struct inbody *ib)
{
	size_t k = strlen(FORMAT_PATCH_DATE);

	return pt->mbox && !*pt->attachment && pt->from.len == 45 + k && !memcmp(pt->from.p + 45, FORMAT_PATCH_DATE, k) &&
	       ib->have_from && ib->have_subject;
}

static void parse_part(const struct message *msg, const struct mail_facts *mf,
		       const struct mark_list *marks, const struct part *pt, struct patch *p)
{
	struct cursor c = { pt->p, pt->end, pt->lineno };
	struct inbody ib;
	bool reply, pull, patched;

	memset(p, 0, sizeof(*p));
	p->msg = msg;
	p->text = pt->p;
	p->text_len = (size_t)(pt->end - pt->p);
	p->first_lineno = pt->lineno;
	p->attachment = pt->attachment;
	inbody_read(&c, pt->mbox, &ib);
	if (pasted_format_patch(pt, &ib))
		p->pasted = pt->from;
	fill_ids(p, msg);
	read_body(p, &c, marks);
	/* As git mailinfo: in-body headers name the author and the subject
	 * only when something follows the patch separator (a diff, a
	 * diffstat); a cover letter's or a reply's are the mail's. */
	patched = p->sep != SEP_NONE && p->after_len;
	fill_author(p, msg, patched ? ib.from : NULL);
	fill_subject(p, ib.subject && patched ? ib.subject : hdr_value(msg, "Subject"),
		     &reply, &pull);
	p->kind = decide_kind(p, reply, pull, mf);
	free(ib.from);
	free(ib.subject);
}

static void patch_release(struct patch *p)
{
	free(p->subject);
	free(p->subject_body);
	free(p->message_id);
	free(p->in_reply_to);
	for (size_t i = 0; i < p->nreferences; i++)
		free(p->references[i]);
	free(p->references);
	free(p->list_id);
	person_release(&p->author);
	person_release(&p->sender);
	free(p->bad_from);
	series_release(&p->series);
	free(p->lines);
	trailers_free(p->trailers, p->ntrailers);
	free(p->change_id);
}

/* Parses one text (the mail's, or an attachment's) into v[0..max); how
 * many. */
static size_t parse_text(const struct message *msg, const struct mail_facts *mf,
			 const struct attachment *a, struct patch *v, size_t max)
{
	struct part parts[PATCH_MAX_PARTS];
	struct mark_list marks;
	size_t n;

	mark_list_find(&marks, a->text, a->len);
	n = split_parts(a->text, a->len, &marks, parts, max);
	for (size_t i = 0; i < n; i++) {
		parts[i].attachment = a->name ? a->name : "";
		parse_part(msg, mf, &marks, &parts[i], &v[i]);
	}
	/* like git am --scissors: the chat above a cut, and above the first
	 * patch, is dropped */
	for (size_t i = n; i-- > 0;) {
		if (n > 1 && !v[i].has_diff && (parts[i].chat || i == 0)) {
			patch_release(&v[i]);
			memmove(v + i, v + i + 1, (n - i - 1) * sizeof(*v));
			n--;
		}
	}
	return n;
}

void patch_parse(const struct message *msg, struct patch **out, size_t *nout)
{
	/* Room for the most parts, on the stack: a mail has one part nearly
	 * always, and zeroing PATCH_MAX_PARTS of them on the heap for each
	 * mail cost more than parsing the mail's text.  parse_part() clears
	 * the ones it fills. */
	struct patch v[PATCH_MAX_PARTS];
	/* The mail's own text, parsed as its attachments are. */
	const struct attachment body = { msg->text_name, msg->text, msg->text_len };
	struct mail_facts mf;
	size_t n;

	mail_facts(msg, &mf);
	n = parse_text(msg, &mf, &body, v, PATCH_MAX_PARTS);
	for (size_t i = 0; i < msg->nmore && n < PATCH_MAX_PARTS; i++)
		n += parse_text(msg, &mf, &msg->more[i], v + n, PATCH_MAX_PARTS - n);
	*out = xmalloc(n * sizeof(*v));
	memcpy(*out, v, n * sizeof(*v));
	*nout = n;
}

void patches_free(struct patch *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		patch_release(&p[i]);
	free(p);
}

/* ---- bare commit messages ----------------------------------------------- */

/* git commit --verbose: "# ------------------------ >8 ------------------------" */
static bool is_git_cut_line(const struct line *l)
{
	return l->len > 2 && l->p[0] == '#' && is_scissors(l->p + 1, l->len - 1);
}

/* git log's %s: the lines of the first paragraph, each without its
 * trailing white space, joined by one space (git's format_subject()). */
static void title_add(struct buf *t, const struct line *l)
{
	size_t n = l->len;

	while (n && ascii_is_space(l->p[n - 1]))
		n--;
	if (t->len)
		buf_addch(t, ' ');
	buf_add(t, l->p, n);
}

void patch_parse_commit_msg(const struct message *msg, struct patch *p)
{
	struct cursor c = { msg->text, msg->text + msg->text_len, 1 };
	struct line l;
	struct buf title;
	size_t alloc = 0;
	bool titled = false;	/* the blank line below the title was read */
	bool reply, pull;

	memset(p, 0, sizeof(*p));
	p->msg = msg;
	p->kind = KIND_PATCH;
	p->text = msg->text;
	p->text_len = msg->text_len;
	p->first_lineno = 1;
	p->attachment = "";
	p->after = c.end;
	buf_init(&title, 0);
	while (cursor_next(&c, &l)) {
		if (is_git_cut_line(&l)) {
			p->sep = SEP_SCISSORS;
			p->sep_lineno = l.lineno;
			p->after = c.p;
			break;
		}
		if (l.len && l.p[0] == '#')
			continue;	/* git strips comments when it commits */
		if (!titled) {
			/* git makes one subject of the whole first paragraph, so a
			 * title wrapped in the editor is one long title */
			if (!line_blank(&l))
				title_add(&title, &l);
			else
				titled = title.len > 0;
		} else if ((p->nlines || !line_blank(&l)) && p->nlines < PATCH_MAX_LINES) {
			add_line(p, &alloc, &l);
		}
	}
	p->after_len = (size_t)(c.end - p->after);
	p->subject = xstrndup_trim(title.data, title.len);
	buf_release(&title);
	p->subject_body = xstrdup(p->subject + patch_parse_subject(p->subject, &p->series, &reply, &pull));
	p->message_id = xstrdup("");
	p->in_reply_to = xstrdup("");
	p->list_id = xstrdup("");
	p->author.name = xstrdup("");
	p->author.email = xstrdup("");
	person_copy(&p->sender, &p->author);
	finish_body(p);
}

bool patch_trailers_adjacent(const struct patch *p, const struct trailer *a,
			     const struct trailer *b)
{
	size_t base;

	if (!p->nlines || b->line.lineno <= a->line.lineno)
		return false;
	base = p->lines[0].lineno;
	for (size_t k = a->line.lineno + 1; k < b->line.lineno; k++) {
		const struct line *l;
		size_t j = 0;

		if (k < base || k - base >= p->nlines || p->lines[k - base].lineno != k)
			return a->in_block && b->in_block;	/* numbering gap: trust the block */
		l = &p->lines[k - base];
		while (j < l->len && (l->p[j] == ' ' || l->p[j] == '\t'))
			j++;
		if (j == l->len || (j == 0 && l->p[0] != '#'))
			return false;
	}
	return true;
}
