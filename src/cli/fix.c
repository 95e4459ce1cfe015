/*
 * fix.c - what --fix changes, and the copy that applies it (fix.h).
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "cli/fix.h"
#include "rules/rules.h"
#include "lib/ascii.h"

/* The tags whose spelling has one right answer. */
static const char *const canonical_tags[] = {
	"Signed-off-by", "Co-developed-by", "Acked-by", "Tested-by", "Reviewed-by",
	"Reported-by", "Suggested-by", "Assisted-by", "Fixes", "Link", "Closes", "Cc",
};

void fix_edits_init(struct fix_edits *e)
{
	memset(e, 0, sizeof(*e));
}

void fix_edits_release(struct fix_edits *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].text);
	free(e->v);
	fix_edits_init(e);
}

static void add_edit(struct fix_edits *e, size_t line, enum fix_op op, char *text)
{
	ARRAY_GROW(e->v, e->alloc, e->n + 1);
	e->v[e->n++] = (struct fix_edit){ line, op, text };
}

static bool edited(const struct fix_edits *e, size_t first, size_t line)
{
	for (size_t i = first; i < e->n; i++)
		if (e->v[i].line == line && e->v[i].op != FIX_APPEND)
			return true;
	return false;
}

void fix_edits_shift(struct fix_edits *e, size_t first, size_t delta)
{
	for (size_t i = first; i < e->n; i++)
		e->v[i].line += delta;
}

/* ---- Fixes: from the repository ------------------------------------------ */

/* "Fixes: <12 hex> ("<subject>")" for the Fixes: tag on l, or NULL when
 * the repository does not know its commit or the line is right already
 * (a longer id is right too). */
static char *fixes_line(const struct line *l, bool in_block, const struct commit_facts *cf)
{
	struct commitref_fixes f;
	const struct commit_fact *x;
	const char *subj;
	size_t n;
	struct buf b;
	char *id;

	if (!cf || !commitref_fixes_parse(l, in_block, &f))
		return NULL;
	id = xstrndup(f.id, f.id_len);
	x = commit_facts_find(cf, id);
	free(id);
	if (!x || x->status != COMMIT_FOUND || !*x->subject)
		return NULL;
	/* a subject wrapped onto the next line: the human joins it */
	if (!commitref_subject(f.rest, f.end, true, &subj, &n) && memchr(f.rest, '(', (size_t)(f.end - f.rest)))
		return NULL;
	buf_init(&b, 0);
	buf_printf(&b, "Fixes: %.*s (\"%s\")",
		   (int)(f.id_len >= COMMITREF_SHA_MIN && f.id_len <= COMMITREF_SHA_MAX &&
			 !strncmp(f.id, x->oid, f.id_len) ? f.id_len : COMMITREF_SHA_MIN),
		   x->oid, x->subject);
	if (b.len == l->len && !memcmp(b.data, l->p, l->len)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* ---- tags ------------------------------------------------------------------- */

static const char *canonical(const char *token)
{
	for (size_t i = 0; i < ARRAY_SIZE(canonical_tags); i++)
		if (!strcasecmp(token, canonical_tags[i]))
			return canonical_tags[i];
	return NULL;
}

/* The raw text after the token's colon on the trailer's first line. */
static const char *after_colon(const struct trailer *t, size_t *n)
{
	const struct line *l = &t->line;
	const char *c = memchr(l->p + t->lead_ws, ':', l->len - t->lead_ws);
	const char *v = c ? c + 1 : NULL, *e = l->p + l->len;

	while (v && v < e && ascii_is_blank(*v))
		v++;
	*n = v ? (size_t)(e - v) : 0;
	return v;
}

/* "Token: value" with the token spelled right, one space, or NULL. */
static char *tag_line(const struct trailer *t)
{
	const char *tok = canonical(t->token), *v;
	size_t n;
	char *out;

	if (!tok || !t->has_colon || !(v = after_colon(t, &n)) || !n)
		return NULL;
	out = xmalloc(strlen(tok) + n + 3);
	sprintf(out, "%s: %.*s", tok, (int)n, v);
	if (strlen(out) == t->line.len && !memcmp(out, t->line.p, t->line.len)) {
		free(out);
		return NULL;
	}
	return out;
}

static bool is_stable(const char *email)
{
	return !strcasecmp(email, "stable@vger.kernel.org") || !strcasecmp(email, "stable@kernel.org");
}

/* "Cc: stable@vger.kernel.org # note (Name)" for a stable Cc: with a name. */
static char *stable_line(const struct trailer *t)
{
	const char *v, *rest = NULL, *end;
	struct person who;
	struct buf b;
	size_t n;

	if (strcasecmp(t->token, "Cc") || !t->has_colon || !(v = after_colon(t, &n)))
		return NULL;
	end = v + n;
	if (address_parse(&who, v, n, &rest) < 0 || !is_stable(who.email) || !who.name[0]) {
		person_release(&who);
		return NULL;
	}
	if (!rest || rest < v || rest > end)
		rest = end;
	while (rest < end && ascii_is_blank(*rest))
		rest++;
	if (rest < end && *rest == '#')
		for (rest++; rest < end && ascii_is_blank(*rest); rest++)
			;
	buf_init(&b, 0);
	if (rest < end)
		buf_printf(&b, "Cc: %s # %.*s (%s)", who.email, (int)(end - rest), rest, who.name);
	else
		buf_printf(&b, "Cc: %s # %s", who.email, who.name);
	person_release(&who);
	return buf_detach(&b, NULL);
}

/* "Reported-by: X\nTested-by: X" for "Reported-and-tested-by: X". */
static char *split_line(const struct trailer *t)
{
	const char *v;
	size_t n;
	struct buf b;

	if (strcasecmp(t->token, "Reported-and-tested-by") || !t->has_colon ||
	    !(v = after_colon(t, &n)) || !n)
		return NULL;
	buf_init(&b, 0);
	buf_printf(&b, "Reported-by: %.*s\nTested-by: %.*s", (int)n, v, (int)n, v);
	return buf_detach(&b, NULL);
}

static void plan_trailers(const struct patch *p, size_t first, struct fix_edits *out)
{
	for (size_t i = 0; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i];
		char *text;

		if (t->kind != TRAILER_TAG || !t->in_block || edited(out, first, t->line.lineno))
			continue;
		if ((text = split_line(t)) || (text = stable_line(t)) || (text = tag_line(t))) {
			add_edit(out, t->line.lineno, FIX_REPLACE, text);
			out->fixes++;
		}
	}
}

/* ---- version notes ------------------------------------------------------------ */

static bool blank_line(const struct line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (!ascii_is_blank(l->p[i]))
			return false;
	return true;
}

/* Moves each paragraph that opens with a version note to below "---". */
static void plan_notes(const struct patch *p, struct fix_edits *out)
{
	size_t end = p->block_start < p->nlines ? p->block_start : p->nlines;
	struct buf moved;

	if (p->sep != SEP_DASHES || !p->sep_lineno)
		return;
	buf_init(&moved, 0);
	for (size_t i = 0; i < end; i++) {
		if (!rules_version_note(&p->lines[i]))
			continue;
		for (; i < end && !blank_line(&p->lines[i]); i++) {
			buf_add(&moved, p->lines[i].p, p->lines[i].len);
			buf_addch(&moved, '\n');
			add_edit(out, p->lines[i].lineno, FIX_DELETE, NULL);
		}
		/* the blank line after it, so no two blank lines are left */
		if (i < end)
			add_edit(out, p->lines[i].lineno, FIX_DELETE, NULL);
		out->fixes++;
	}
	/* the moved lines and, from their last LF, a blank line before the diffstat */
	if (moved.len)
		add_edit(out, p->sep_lineno, FIX_APPEND, buf_detach(&moved, NULL));
	buf_release(&moved);
}

void fix_plan(const struct patch *p, const struct commit_facts *commits, struct fix_edits *out)
{
	size_t first = out->n;

	if (p->kind != KIND_PATCH)
		return;
	for (size_t i = 0; i < p->nlines; i++) {
		char *text = fixes_line(&p->lines[i], i >= p->block_start, commits);

		if (text) {
			add_edit(out, p->lines[i].lineno, FIX_REPLACE, text);
			out->fixes++;
		}
	}
	plan_trailers(p, first, out);
	plan_notes(p, out);
}

/* ---- the copy ------------------------------------------------------------------ */

static int edit_cmp(const void *a, const void *b)
{
	const struct fix_edit *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (int)x->op - (int)y->op;	/* REPLACE/DELETE before APPEND */
}

/* Writes the lines of text (split at LF: "a\n" is "a" and a blank line),
 * each ended by eol. */
static void put_lines(FILE *out, const char *text, const char *eol)
{
	for (;;) {
		size_t n = strcspn(text, "\n");

		fwrite(text, 1, n, out);
		fputs(eol, out);
		if (!text[n])
			return;
		text += n + 1;
	}
}

int fix_write(FILE *in, FILE *out, struct fix_edits *edits)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0, k = 0;
	ssize_t n;

	if (edits->n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(edits->v, edits->n, sizeof(*edits->v), edit_cmp);
	while ((n = getline(&line, &cap, in)) > 0) {
		const char *eol = n >= 2 && line[n - 2] == '\r' ? "\r\n" : "\n";
		const struct fix_edit *change = NULL, *append = NULL;

		lineno++;
		for (; k < edits->n && edits->v[k].line <= lineno; k++) {
			const struct fix_edit *x = &edits->v[k];

			if (x->line < lineno)
				continue;
			if (x->op == FIX_APPEND && !append)
				append = x;
			else if (x->op != FIX_APPEND && !change)
				change = x;
		}
		if (!change)
			fwrite(line, 1, (size_t)n, out);
		else if (change->op == FIX_REPLACE)
			put_lines(out, change->text, eol);
		if (append)
			put_lines(out, append->text, eol);
	}
	free(line);
	return ferror(in) || ferror(out) ? -1 : 0;
}
