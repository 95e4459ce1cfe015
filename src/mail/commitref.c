/*
 * commitref.c - Fixes: tags and commit citations, read from memory.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/commitref.h"
#include "lib/ascii.h"

#define CITE_LINE_MAX	1024	/* bytes of each following line joined for a wrapped subject */

static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && ascii_is_blank(*s))
		s++;
	return s;
}

static bool has_digit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ascii_is_digit(s[i]))
			return true;
	return false;
}

bool commitref_fixes_parse(const struct line *l, bool in_block, struct commitref_fixes *f)
{
	const char *s = l->p, *e = l->p + l->len, *q;
	bool colon;

	if (!ascii_has_prefix_ci(s, l->len, "fixes"))
		return false;
	q = skip_blank(s + 5, e);
	colon = q < e && *q == ':';
	if (!colon && q == s + 5)
		return false;
	q = skip_blank(q + colon, e);
	f->commit_word = ascii_has_prefix_ci(q, (size_t)(e - q), "commit") && e - q > 6 && ascii_is_blank(q[6]);
	if (f->commit_word)
		q = skip_blank(q + 6, e);
	/* Fixes: ("<id> <subject>"): the id inside the parentheses */
	f->id_inside = colon && !f->commit_word && e - q > 2 && q[0] == '(' &&
		       (q[1] == '"' || q[1] == '\'');
	if (f->id_inside)
		q += 2;
	/* Fixes: <id> ("<subject>"): the placeholder's brackets kept */
	f->id_bracketed = colon && !f->commit_word && !f->id_inside && q < e &&
			  (*q == '<' || *q == '[');
	for (f->id = q + f->id_bracketed; q + f->id_bracketed < e &&
	     ascii_is_xdigit(q[f->id_bracketed]); q++)
		;
	q += f->id_bracketed;
	f->id_len = (size_t)(q - f->id);
	if (f->id_bracketed) {
		if (q == e || *q != (f->id[-1] == '<' ? '>' : ']') || !has_digit(f->id, f->id_len))
			return false;
		q++;
	}
	if (f->id_len < COMMITREF_ID_MIN || (q < e && !ascii_is_blank(*q) && *q != '('))
		return false;
	if (f->id_inside && (q == e || !ascii_is_blank(*q) || !has_digit(f->id, f->id_len)))
		return false;
	f->rest = q;
	while (e > q && ascii_is_blank(e[-1]))
		e--;
	f->end = e;
	if (!colon && !in_block && skip_blank(q, e) < e && *skip_blank(q, e) != '(')
		return false;
	f->exact_tag = l->len > 7 && !memcmp(s, "Fixes: ", 7) && f->id == s + 7;
	return true;
}

static bool ends_with_ci(const char *s, const char *end, const char *lit)
{
	size_t k = strlen(lit);

	while (end > s && ascii_is_blank(end[-1]))
		end--;
	return (size_t)(end - s) >= k && !strncasecmp(end - k, lit, k) &&
	       (end - k == s || !ascii_is_alnum(*(end - k - 1)));
}

/*
 * Backports and reverts name the commit the way their tools write it:
 * "commit <sha> upstream.", "[ Upstream commit <sha> ]", "(cherry picked
 * from commit <sha>)", "This reverts commit <sha>.".
 */
static bool is_backport_marker(const char *line, const char *at, const char *id_end,
			       const char *end)
{
	const char *after = skip_blank(id_end, end);

	if (ends_with_ci(line, at, "upstream") || ends_with_ci(line, at, "cherry picked from"))
		return true;
	if (ends_with_ci(line, at, "This reverts"))
		return true;
	return ascii_has_prefix_ci(after, (size_t)(end - after), "upstream") &&
	       (end - after == 8 || !ascii_is_alnum(after[8]));
}

bool commitref_cite_at(const char *s, size_t n, size_t i, const char **id, size_t *id_len)
{
	const char *end = s + n, *q = s + i + 6, *h;

	/* asked at every offset of a line: the first letter tells most */
	if (i + 6 > n || ascii_tolower((unsigned char)s[i]) != 'c' ||
	    strncasecmp(s + i, "commit", 6) || (i && ascii_is_alnum(s[i - 1])) ||
	    q == end || !ascii_is_blank(*q))
		return false;
	for (h = q = skip_blank(q, end); q < end && ascii_is_xdigit(*q); q++)
		;
	if (q - h < COMMITREF_ID_MIN || (q < end && ascii_is_alnum(*q)) ||
	    is_backport_marker(s, s + i, q, end))
		return false;
	*id = h;
	*id_len = (size_t)(q - h);
	return true;
}

bool commitref_subject(const char *rest, const char *end, bool last, const char **subj,
		       size_t *len)
{
	const char *q = skip_blank(rest, end), *close = NULL;

	if (end - q < 4 || q[0] != '(' || q[1] != '"')
		return false;
	for (const char *c = q + 2; c + 1 < end; c++) {
		if (c[0] == '"' && c[1] == ')') {
			close = c;
			if (!last)
				break;
		}
	}
	if (!close)
		return false;
	*subj = q + 2;
	*len = (size_t)(close - *subj);
	return true;
}

bool commitref_same_subject(const char *a, size_t alen, const char *b, size_t blen)
{
	const char *ae = a + alen, *be = b + blen;

	a = skip_blank(a, ae);
	b = skip_blank(b, be);
	while (a < ae && b < be) {
		if (ascii_is_blank(*a) && ascii_is_blank(*b)) {
			a = skip_blank(a, ae);
			b = skip_blank(b, be);
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return skip_blank(a, ae) == ae && skip_blank(b, be) == be;
}

bool commitref_log_header(const struct line *l)
{
	const char *s = skip_blank(l->p, l->p + l->len), *e = l->p + l->len;

	while (e > s && ascii_is_blank(e[-1]))
		e--;
	if (e - s != 7 + COMMITREF_SHA_MAX || memcmp(s, "commit ", 7))
		return false;
	for (s += 7; s < e; s++)
		if (!ascii_is_xdigit(*s))
			return false;
	return true;
}

void commitrefs_init(struct commitrefs *r)
{
	memset(r, 0, sizeof(*r));
}

void commitrefs_release(struct commitrefs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].id);
		free(r->v[i].subject);
	}
	free(r->v);
	commitrefs_init(r);
}

static void add(struct commitrefs *out, enum commitref_kind kind, size_t line, const char *id,
		size_t id_len, const char *subj, size_t subj_len)
{
	struct commitref *r;

	ARRAY_GROW(out->v, out->alloc, out->n + 1);
	r = &out->v[out->n++];
	r->kind = kind;
	r->line = line;
	r->id = xstrndup(id, id_len);
	r->subject = subj ? xstrndup(subj, subj_len) : NULL;
}

void commitref_join(const struct line *lines, size_t nlines, size_t i, struct buf *b)
{
	buf_reset(b);
	buf_add(b, lines[i].p, lines[i].len);
	for (size_t k = i + 1; k < nlines && k <= i + COMMITREF_LOOKAHEAD; k++) {
		const char *s = skip_blank(lines[k].p, lines[k].p + lines[k].len);
		size_t n = (size_t)(lines[k].p + lines[k].len - s);

		if (!n)
			break;
		buf_addch(b, ' ');
		buf_add(b, s, n < CITE_LINE_MAX ? n : CITE_LINE_MAX);
	}
}

/* The citations starting on line i (its first len bytes of the joined b). */
static void find_cites(const struct buf *b, size_t len, size_t i, size_t max,
		       struct commitrefs *out)
{
	const char *id, *subj;
	size_t id_len, subj_len;

	for (size_t k = 0; k + 6 <= len && out->n < max; k++) {
		if (!commitref_cite_at(b->data, b->len, k, &id, &id_len))
			continue;
		if (!commitref_subject(id + id_len, b->data + b->len, false, &subj, &subj_len))
			subj = NULL;
		add(out, COMMITREF_PROSE, i, id, id_len, subj, subj_len);
		k = (size_t)(id + id_len - b->data);
	}
}

void commitref_find(const struct line *lines, size_t nlines, size_t block_start, size_t max,
		    struct commitrefs *out)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < nlines && out->n < max; i++) {
		struct commitref_fixes f;
		const char *subj;
		size_t subj_len;

		if (commitref_fixes_parse(&lines[i], i >= block_start, &f)) {
			if (!commitref_subject(f.rest, f.end, true, &subj, &subj_len))
				subj = NULL;
			add(out, COMMITREF_FIXES, i, f.id, f.id_len, subj, subj_len);
			continue;
		}
		if (commitref_log_header(&lines[i]))
			continue;
		commitref_join(lines, nlines, i, &b);
		find_cites(&b, lines[i].len, i, max, out);
	}
	buf_release(&b);
}

void commit_facts_init(struct commit_facts *f)
{
	memset(f, 0, sizeof(*f));
}

void commit_facts_release(struct commit_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].id);
		free(f->v[i].subject);
	}
	free(f->v);
	commit_facts_init(f);
}

struct commit_fact *commit_facts_add(struct commit_facts *f, const char *id, size_t n)
{
	struct commit_fact *x;

	ARRAY_GROW(f->v, f->alloc, f->n + 1);
	x = &f->v[f->n++];
	memset(x, 0, sizeof(*x));
	x->id = xstrndup(id, n);
	x->subject = xstrdup("");
	return x;
}

const struct commit_fact *commit_facts_find(const struct commit_facts *f, const char *id)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!strcmp(f->v[i].id, id))
			return &f->v[i];
	return NULL;
}
