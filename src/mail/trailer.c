#include "autoconf.h"
#include "mail/trailer.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/ascii.h"

#define FIXES_MIN_HEX	5	/* tagbot-rules(7) BAD_FIXES_TAG: "a hex id of 5 or more" */

/* Where the parts of a "Token: value" line are. */
struct tagpos {
	size_t lead;	/* white space before the token */
	size_t tok_len;
	size_t after_sep; /* first byte after ':' (or after "Fixes") */
	size_t value;	/* first byte of the value */
	bool colon;
};

/* Not-a-trailer classification used internally for "Fixes <hex>" lines. */
#define KIND_FIXES_NOCOLON	100

static bool is_blank_char(char c)
{
	return ascii_is_blank(c) || c == '\r';
}

static size_t skip_blank(const char *p, size_t i, size_t len)
{
	while (i < len && is_blank_char(p[i]))
		i++;
	return i;
}

static bool line_is_blank(const char *p, size_t len)
{
	return skip_blank(p, 0, len) == len;
}

/* "Token: value", possibly with white space before the token and the ':'. */
static bool tag_shape(const char *p, size_t len, struct tagpos *tp)
{
	size_t i = skip_blank(p, 0, len), t;

	tp->lead = i;
	if (i >= len || !ascii_is_alpha(p[i]))
		return false;
	for (t = i; t < len && ascii_is_ldh(p[t]); t++)
		;
	tp->tok_len = t - i;
	t = skip_blank(p, t, len);
	if (t >= len || p[t] != ':')
		return false;
	/* "https://..." is a URL, not a trailer */
	if (t + 2 < len && p[t + 1] == '/' && p[t + 2] == '/')
		return false;
	tp->colon = true;
	tp->after_sep = t + 1;
	tp->value = skip_blank(p, t + 1, len);
	return true;
}

/*
 * "Fixes 0123abcd (...)" without the colon (any case, no leading space).
 * The id must hold a digit: English has all-hex words ("Fixes faded LEDs",
 * "deadbeef"), commit ids nearly never lack a digit.
 */
static bool fixes_shape(const char *p, size_t len, struct tagpos *tp)
{
	size_t i, h;
	bool digit = false;

	/* every line of a commit message is asked: the first letter first */
	if (len < 6 || ascii_tolower((unsigned char)p[0]) != 'f' || strncasecmp(p, "fixes", 5) ||
	    !is_blank_char(p[5]))
		return false;
	i = skip_blank(p, 5, len);
	for (h = i; h < len && ascii_is_xdigit(p[h]); h++)
		digit |= p[h] >= '0' && p[h] <= '9';
	if (!digit || h - i < FIXES_MIN_HEX || (h < len && !is_blank_char(p[h])))
		return false;
	tp->lead = 0;
	tp->tok_len = 5;
	tp->colon = false;
	tp->after_sep = 5;
	tp->value = i;
	return true;
}

static bool ends_with_by(const char *tok, size_t n)
{
	return n > 3 && !strncasecmp(tok + n - 3, "-by", 3);
}

/* "[ tglx: ... ]", "[jdoe@x: ...]", or any line in brackets. */
static bool note_shape(const char *p, size_t len)
{
	size_t e = len, i;

	while (e > 0 && is_blank_char(p[e - 1]))
		e--;
	if (!len || p[0] != '[')
		return false;
	if (p[e - 1] == ']')
		return true;
	i = skip_blank(p, 1, len);
	while (i < len && (ascii_is_ldh(p[i]) || strchr("_.@+", p[i])))
		i++;
	return i < len && p[i] == ':' && i > skip_blank(p, 1, len);
}

int trailer_classify(const char *p, size_t len)
{
	struct tagpos tp;

	if (line_is_blank(p, len))
		return -1;
	if (is_blank_char(p[0])) {
		if (tag_shape(p, len, &tp) && ends_with_by(p + tp.lead, tp.tok_len))
			return TRAILER_TAG;
		return TRAILER_CONTINUATION;
	}
	if (p[0] == '#')
		return TRAILER_COMMENT;
	if (note_shape(p, len))
		return TRAILER_NOTE;
	return tag_shape(p, len, &tp) ? TRAILER_TAG : -1;
}

/* trailer_classify() plus the colon-less Fixes form. */
static int classify_ext(const char *p, size_t len)
{
	struct tagpos tp;
	int k = trailer_classify(p, len);

	if (k < 0 && fixes_shape(p, len, &tp))
		return KIND_FIXES_NOCOLON;
	return k;
}

static bool is_signoff(const struct line *l)
{
	struct tagpos tp;

	return tag_shape(l->p, l->len, &tp) && tp.tok_len == 13 &&
	       !strncasecmp(l->p + tp.lead, "signed-off-by", 13);
}

/* Counts of the last paragraph, in git's terms. */
struct para_count {
	size_t trailers, others;
	size_t first_trailerish;	/* index of the first tag/note/comment */
	bool signoff;
};

static void count_paragraph(const struct line *lines, size_t from, size_t to,
			    struct para_count *c)
{
	bool in_item = false;	/* a continuation may follow */

	memset(c, 0, sizeof(*c));
	c->first_trailerish = to;
	for (size_t i = from; i < to; i++) {
		int k = classify_ext(lines[i].p, lines[i].len);

		if (k == TRAILER_CONTINUATION && in_item)
			continue;
		if (k == TRAILER_TAG) {
			c->trailers++;
			c->signoff |= is_signoff(&lines[i]);
		} else if (k != TRAILER_COMMENT) {
			c->others++;	/* notes too: they are no trailers */
		}
		if (k >= 0 && k != TRAILER_CONTINUATION && c->first_trailerish == to)
			c->first_trailerish = i;
		in_item = k == TRAILER_TAG || k == TRAILER_NOTE || k == KIND_FIXES_NOCOLON;
	}
}

/* True when the paragraph is made only of trailers, notes, comments,
 * with at least one trailer. */
static bool all_trailerish(const struct line *lines, size_t from, size_t to)
{
	bool in_item = false, tag = false;

	for (size_t i = from; i < to; i++) {
		int k = trailer_classify(lines[i].p, lines[i].len);

		if (k < 0 || (k == TRAILER_CONTINUATION && !in_item))
			return false;
		in_item = true;
		tag |= k == TRAILER_TAG;
	}
	return tag;	/* notes and comments alone make no trailer block */
}

/*
 * The first line of the tail git's trailer code ignores (commit.c
 * ignore_non_trailer()), nlines when there is none: a run of empty lines,
 * comments and old-style conflicts blocks that goes on to the end.  Until
 * git 2.3, git merge and cherry-pick wrote "Conflicts:" and the conflicted
 * files, each after a TAB, into the commit message (now it is a comment);
 * an amended commit still carries the list, and git commit -s puts the
 * sign-off above it.  As in git, a line of spaces is no empty line here,
 * and once a conflicts block began, TAB lines count as its file names
 * even after an empty or comment line.
 */
static size_t tail_start(const struct line *lines, size_t nlines)
{
	size_t boc = nlines;	/* the first line of the run; nlines: none */
	bool conflicts = false;

	for (size_t i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];

		if (!l->len || l->p[0] == '#') {
			if (boc == nlines)
				boc = i;
		} else if (l->len == 10 && !memcmp(l->p, "Conflicts:", 10)) {
			conflicts = true;
			if (boc == nlines)
				boc = i;
		} else if (conflicts && l->p[0] == '\t') {
			;	/* a file name in the conflicts block */
		} else {
			boc = nlines;	/* the run did not reach the end */
			conflicts = false;
		}
	}
	return boc;
}

size_t trailer_block_find(const struct line *lines, size_t nlines, size_t *endp)
{
	size_t end = tail_start(lines, nlines), start;
	struct para_count c;

	if (endp)
		*endp = nlines;
	while (end > 0 && line_is_blank(lines[end - 1].p, lines[end - 1].len))
		end--;
	if (end == 0)
		return nlines;
	for (start = end; start > 0; start--)
		if (line_is_blank(lines[start - 1].p, lines[start - 1].len))
			break;
	/*
	 * Like git: a paragraph with some prose (a "(cherry picked from ...)"
	 * line, a wrapped note) is still the trailer block when it carries a
	 * sign-off and at least a quarter of its lines are trailers.
	 */
	if (!all_trailerish(lines, start, end)) {
		count_paragraph(lines, start, end, &c);
		if (!c.signoff || c.trailers * 3 < c.others)
			return nlines;
		start = c.first_trailerish;
	}
	if (endp)
		*endp = end;
	return start;
}

/* Builds the array; holds the value of the tag being continued. */
struct tparse {
	struct trailer *v;
	size_t n, alloc;
	struct buf value;
	bool open;	/* v[n-1] is a tag whose value is in value */
};

static void close_open(struct tparse *tp)
{
	if (tp->open)
		tp->v[tp->n - 1].value = buf_detach(&tp->value, NULL);
	tp->open = false;
}

static char *dup_trimmed(const char *p, size_t len)
{
	size_t s = skip_blank(p, 0, len);

	while (len > s && is_blank_char(p[len - 1]))
		len--;
	return xstrndup(p + s, len - s);
}

static void add_entry(struct tparse *tp, const struct line *l, int k, bool in_block)
{
	struct trailer *t;
	struct tagpos pos;
	size_t vlen;

	close_open(tp);
	if (tp->n >= TRAILER_MAX)
		return;
	ARRAY_GROW(tp->v, tp->alloc, tp->n + 1);
	t = &tp->v[tp->n++];
	memset(t, 0, sizeof(*t));
	t->line = *l;
	t->in_block = in_block;
	if (k == TRAILER_NOTE || k == TRAILER_COMMENT) {
		t->kind = (enum trailer_kind)k;
		t->token = xstrdup("");
		t->value = dup_trimmed(l->p, l->len);
		return;
	}
	if (!tag_shape(l->p, l->len, &pos))
		fixes_shape(l->p, l->len, &pos);
	t->kind = TRAILER_TAG;
	t->token = xstrndup(l->p + pos.lead, pos.tok_len);
	t->lead_ws = pos.lead;
	t->has_colon = pos.colon;
	t->space_after_colon = pos.value - pos.after_sep;
	vlen = l->len;
	while (vlen > pos.value && is_blank_char(l->p[vlen - 1]))
		vlen--;
	buf_reset(&tp->value);
	buf_add(&tp->value, l->p + pos.value, vlen - pos.value);
	tp->open = true;
}

static void add_continuation(struct tparse *tp, const struct line *l)
{
	char *s;

	if (!tp->open)
		return;
	s = dup_trimmed(l->p, l->len);
	if (tp->value.len)
		buf_addch(&tp->value, ' ');
	buf_addstr(&tp->value, s);
	free(s);
}

void trailers_parse(const struct line *lines, size_t nlines, size_t start,
		    struct trailer **out, size_t *nout)
{
	struct tparse tp = { 0 };

	buf_init(&tp.value, 0);
	for (size_t i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];
		int k = classify_ext(l->p, l->len);

		if (i < start) {
			if (k == TRAILER_TAG || k == KIND_FIXES_NOCOLON) {
				add_entry(&tp, l, k, false);
				close_open(&tp);
			}
		} else if (k == TRAILER_CONTINUATION) {
			add_continuation(&tp, l);
		} else if (k >= 0) {
			add_entry(&tp, l, k, true);
		} else {
			close_open(&tp);
		}
	}
	close_open(&tp);
	buf_release(&tp.value);
	*out = tp.v;
	*nout = tp.n;
}

void trailers_free(struct trailer *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].token);
		free(t[i].value);
	}
	free(t);
}

char *trailer_value_main(const char *value)
{
	size_t n = 0, len = strlen(value);

	/* the main part ends at white space + '#' + white space or the end */
	for (n = 0; n < len; n++)
		if (is_blank_char(value[n]) && value[n + 1] == '#' &&
		    (value[n + 2] == '\0' || is_blank_char(value[n + 2])))
			break;
	return dup_trimmed(value, n);
}

bool trailer_is(const struct trailer *t, const char *name)
{
	return t->kind == TRAILER_TAG && t->token && !strcasecmp(t->token, name);
}
