/*
 * pattern.c - PCRE2 behind our own types.
 *
 * Subjects are mail text: usually UTF-8, but not always valid.  We compile
 * with PCRE2_MATCH_INVALID_UTF so a stray Latin-1 byte simply never matches
 * a character instead of making pcre2_match() fail for the whole line.
 * No JIT: the JIT ignores the depth limit, and the limits are the point.
 */
#include "autoconf.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/pattern.h"

struct pattern {
	pcre2_code *code;		/* owned */
	pcre2_match_context *mctx;	/* owned; carries the limits */
	char *source;			/* owned */
	uint32_t ncaptures;
};

static int compile_error(struct err *e, int code, PCRE2_SIZE offset)
{
	PCRE2_UCHAR msg[256];

	if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
		strcpy((char *)msg, "unknown PCRE2 error");
	return err_set(e, ERR_FINAL, "offset %zu: %s", (size_t)offset, (const char *)msg);
}

static pcre2_match_context *limits_context(void)
{
	pcre2_match_context *m = pcre2_match_context_create(NULL);

	if (!m)
		die_oom();
	pcre2_set_match_limit(m, PATTERN_MATCH_LIMIT);
	pcre2_set_depth_limit(m, PATTERN_DEPTH_LIMIT);
	pcre2_set_heap_limit(m, PATTERN_HEAP_LIMIT);
	return m;
}

struct pattern *pattern_compile(const char *re, unsigned flags, struct err *e)
{
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C;
	struct pattern *p;
	PCRE2_SIZE offset;
	pcre2_code *code;
	int code_err;

	if (strlen(re) > PATTERN_MAX_SOURCE) {
		err_set(e, ERR_FINAL, "offset %d: pattern longer than %d bytes",
			PATTERN_MAX_SOURCE, PATTERN_MAX_SOURCE);
		return NULL;
	}
	if (flags & PATTERN_CASELESS)
		opts |= PCRE2_CASELESS;
	if (flags & PATTERN_MULTILINE)
		opts |= PCRE2_MULTILINE;
	if (flags & PATTERN_STEPS)
		opts |= PCRE2_AUTO_CALLOUT;
	code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, opts,
			     &code_err, &offset, NULL);
	if (!code) {
		compile_error(e, code_err, offset);
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->code = code;
	p->mctx = limits_context();
	p->source = xstrdup(re);
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &p->ncaptures);
	return p;
}

void pattern_free(struct pattern *p)
{
	if (!p)
		return;
	pcre2_code_free(p->code);
	pcre2_match_context_free(p->mctx);
	free(p->source);
	free(p);
}

const char *pattern_source(const struct pattern *p)
{
	return p->source;
}

static void report_capture(const struct pattern *p, const PCRE2_SIZE *ov,
			   size_t *cap_off, size_t *cap_len)
{
	size_t off = ov[0], len = ov[1] - ov[0];

	if (p->ncaptures >= 1) {
		/* An unset group 1 reports an empty capture at the match start. */
		if (ov[2] == PCRE2_UNSET) {
			len = 0;
		} else {
			off = ov[2];
			len = ov[3] - ov[2];
		}
	}
	if (cap_off)
		*cap_off = off;
	if (cap_len)
		*cap_len = len;
}

static enum pattern_result match_in(const struct pattern *p, pcre2_match_context *mctx,
				    const char *s, size_t n, size_t *cap_off, size_t *cap_len)
{
	/* Match data per call keeps a const pattern safe to share. */
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->code, NULL);
	enum pattern_result r;
	int rc;

	if (!md)
		die_oom();
	rc = pcre2_match(p->code, (PCRE2_SPTR)(s ? s : ""), n, 0, 0, md, mctx);
	if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH) {
		r = rc >= 0 ? PATTERN_MATCH : PATTERN_NOMATCH;
		if (r == PATTERN_MATCH)
			report_capture(p, pcre2_get_ovector_pointer(md), cap_off, cap_len);
	} else if (rc == PCRE2_ERROR_CALLOUT) {
		/* Only count_step() returns it: PCRE2 never does. */
		r = PATTERN_SPENT;
	} else {
		/* Match, depth or heap limit, or any other run-time failure:
		 * never a match, never a stall. */
		r = PATTERN_LIMIT;
	}
	pcre2_match_data_free(md);
	return r;
}

enum pattern_result pattern_match(const struct pattern *p, const char *s, size_t n,
				  size_t *cap_off, size_t *cap_len)
{
	/* No callout function: the automatic callouts of PATTERN_STEPS are skipped. */
	return match_in(p, p->mctx, s, n, cap_off, cap_len);
}

void pattern_budget_init(struct pattern_budget *b, unsigned long steps)
{
	b->left = steps;
	b->limited = 0;
	b->spent = false;
}

/* The automatic callout before each pattern item: one step. */
static int count_step(pcre2_callout_block *cb, void *data)
{
	unsigned long *left = data;

	(void)cb;
	if (!*left)
		return PCRE2_ERROR_CALLOUT;	/* abandons the match */
	(*left)--;
	return 0;
}

enum pattern_result pattern_match_budget(const struct pattern *p, struct pattern_budget *b,
					 const char *s, size_t n,
					 size_t *cap_off, size_t *cap_len)
{
	pcre2_match_context *mctx;
	enum pattern_result r;

	if (b->spent)
		return PATTERN_SPENT;
	/* A copy, so the pattern's own context never points at a budget. */
	mctx = pcre2_match_context_copy(p->mctx);
	if (!mctx)
		die_oom();
	pcre2_set_callout(mctx, count_step, &b->left);
	r = match_in(p, mctx, s, n, cap_off, cap_len);
	pcre2_match_context_free(mctx);
	if (r == PATTERN_LIMIT)
		b->limited++;
	else if (r == PATTERN_SPENT)
		b->spent = true;
	return r;
}

void pattern_list_init(struct pattern_list *l)
{
	l->v = NULL;
	l->n = l->alloc = 0;
}

int pattern_list_add(struct pattern_list *l, const char *re, unsigned flags, struct err *e)
{
	struct pattern *p = pattern_compile(re, flags, e);

	if (!p)
		return -1;
	ARRAY_GROW(l->v, l->alloc, l->n + 1);
	l->v[l->n++] = p;
	return 0;
}

void pattern_list_release(struct pattern_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		pattern_free(l->v[i]);
	free(l->v);
	pattern_list_init(l);
}

int pattern_list_match(const struct pattern_list *l, const char *s, size_t n,
		       size_t *cap_off, size_t *cap_len)
{
	for (size_t i = 0; i < l->n; i++)
		if (pattern_match(l->v[i], s, n, cap_off, cap_len) == PATTERN_MATCH)
			return (int)i;
	return -1;
}
