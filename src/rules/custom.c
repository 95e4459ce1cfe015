/*
 * custom.c - the admin's own rules (tagbot-rules(7) CUSTOM RULES): a PCRE2 pattern per
 * rule, applied line by line to one part of the patch.
 *
 * A match limit hit is never a finding, in either direction: with
 * must_match a limit on some line means we cannot say "nothing matched".
 * Each rule spends one budget per message (rules.h, struct rule_budget);
 * once it is spent the rule checks no more lines of that message, the same
 * as a limit hit for must_match, and the caller warns once about it.
 */
#include "autoconf.h"
#include <string.h>

#include "rules/rules_p.h"

#define CUSTOM_MAX_FINDINGS	100	/* per rule and patch: one bad diff is enough */
#define CUSTOM_MAX_LINES	PATCH_MAX_LINES

struct scan {
	struct rule_ctx *ctx;
	const struct custom_rule *rule;
	struct rule_budget *budget;	/* foreign; in ctx->out */
	size_t matched;
	bool limited;
};

static bool spent(const struct scan *s)
{
	return s->budget->b.spent;
}

static void scan_line(struct scan *s, const struct line *where, const char *p, size_t n)
{
	const struct custom_rule *r = s->rule;
	struct rule_budget *rb = s->budget;

	switch (pattern_match_budget(r->re, &rb->b, p, n, NULL, NULL)) {
	case PATTERN_MATCH:
		if (!r->must_match && s->matched < CUSTOM_MAX_FINDINGS)
			findings_add(s->ctx->out, r->id, r->severity, where, r->doc, "%s",
				     r->message);
		s->matched++;
		break;
	case PATTERN_LIMIT:
		if (rb->b.limited == 1)
			rb->first_limited = where->lineno;
		s->limited = true;
		break;
	case PATTERN_SPENT:
		rb->stopped_at = where->lineno;
		s->limited = true;
		break;
	case PATTERN_NOMATCH:
		break;
	}
}

static size_t count_lines(const char *p, size_t n)
{
	size_t lines = 0;
	const char *nl;

	while (n && (nl = memchr(p, '\n', n)) != NULL) {
		lines++;
		n -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	return lines;
}

/* Each line of n bytes at p, the first numbered lineno. */
static void scan_text(struct scan *s, const char *p, size_t n, size_t lineno)
{
	for (size_t i = 0; n && i < CUSTOM_MAX_LINES && !spent(s); i++) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		struct line l = { p, len, lineno + i };

		scan_line(s, &l, p, len);
		if (!nl)
			break;
		n -= len + 1;
		p = nl + 1;
	}
}

static void scan_after(struct scan *s, const struct patch *p)
{
	const char *start = p->text, *end = p->text + p->text_len;

	/* after lies inside text; anything else is a parser bug, not our input. */
	if (!p->after || !p->text || p->after < start || p->after + p->after_len > end)
		return;
	scan_text(s, p->after, p->after_len,
		  p->first_lineno + count_lines(start, (size_t)(p->after - start)));
}

static void scan_trailers(struct scan *s, const struct patch *p, bool values)
{
	const struct custom_rule *r = s->rule;

	for (size_t i = 0; i < p->ntrailers && !spent(s); i++) {
		const struct trailer *t = &p->trailers[i];

		if (t->kind != TRAILER_TAG || !t->in_block)
			continue;
		if (!values)
			scan_line(s, &t->line, t->line.p, t->line.len);
		else if (trailer_is(t, r->token) && t->value)
			scan_line(s, &t->line, t->value, strlen(t->value));
	}
}

static bool applies(const struct custom_rule *r, enum patch_kind kind)
{
	if (r->severity == SEV_OFF || !r->re)
		return false;
	if (kind == KIND_PATCH)
		return true;
	return kind == KIND_COVER && (r->scope == SCOPE_SUBJECT || r->scope == SCOPE_COMMIT);
}

static void run_rule(struct rule_ctx *ctx, const struct custom_rule *r)
{
	const struct patch *p = ctx->patch;
	struct scan s = { ctx, r, findings_budget(ctx->out, r->id), 0, false };
	const char *subj = p->subject ? p->subject : "";
	struct line subject = { subj, strlen(subj), 0 };

	/* Spent on an earlier part of this message: nothing more to say. */
	if (spent(&s))
		return;
	switch (r->scope) {
	case SCOPE_SUBJECT:
		scan_line(&s, &subject, subject.p, subject.len);
		break;
	case SCOPE_COMMIT:
		for (size_t i = 0; i < p->nlines && !spent(&s); i++)
			scan_line(&s, &p->lines[i], p->lines[i].p, p->lines[i].len);
		break;
	case SCOPE_TRAILERS:
	case SCOPE_TRAILER:
		scan_trailers(&s, p, r->scope == SCOPE_TRAILER);
		break;
	case SCOPE_BODY:
		if (p->text)
			scan_text(&s, p->text, p->text_len, p->first_lineno);
		break;
	case SCOPE_DIFF:
		scan_after(&s, p);
		break;
	}
	if (r->must_match && !s.matched && !s.limited)
		findings_add(ctx->out, r->id, r->severity,
			     r->scope == SCOPE_SUBJECT ? &subject : NULL, r->doc, "%s", r->message);
}

void rules_custom(struct rule_ctx *ctx)
{
	const struct rule_settings *set = ctx->settings;

	for (size_t i = 0; i < set->ncustom; i++)
		if (applies(&set->custom[i], ctx->patch->kind))
			run_rule(ctx, &set->custom[i]);
}
