/*
 * findings.c - the findings API the rule families emit through (rules_p.h:
 * rule_emit() and its kin) and their callers read (rules.h: findings_*,
 * finding_append(), rule_budget_describe()).  rules.c runs the families
 * and each family calls in here, never the other way, so no two files of
 * rules/ call each other.
 */
#include "autoconf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "rules/rules.h"
#include "rules/rules_p.h"

void findings_init(struct findings *f)
{
	memset(f, 0, sizeof(*f));
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].text);
		free(f->v[i].message);
	}
	free(f->v);
	free(f->budgets);
	findings_init(f);
}

struct rule_budget *findings_budget(struct findings *f, const char *id)
{
	struct rule_budget *rb;

	for (size_t i = 0; i < f->nbudgets; i++)
		if (!strcmp(f->budgets[i].rule, id))
			return &f->budgets[i];
	ARRAY_GROW(f->budgets, f->budgets_alloc, f->nbudgets + 1);
	rb = &f->budgets[f->nbudgets++];
	memset(rb, 0, sizeof(*rb));
	rb->rule = id;
	pattern_budget_init(&rb->b, PATTERN_BUDGET_STEPS);
	return rb;
}

static const char *line_name(size_t lineno, char *buf, size_t n)
{
	/* Line 0 is the subject (struct finding). */
	if (!lineno)
		return "the subject";
	snprintf(buf, n, "line %zu", lineno);
	return buf;
}

const char *rule_budget_describe(const struct rule_budget *rb, char *buf, size_t n)
{
	char at[32], hits[64] = "";

	if (rb->b.limited)
		snprintf(hits, sizeof(hits), "%zu line%s hit the match limit",
			 rb->b.limited, rb->b.limited == 1 ? "" : "s");
	if (rb->b.spent)
		snprintf(buf, n, "custom rule %s stopped at %s: its pattern used the %lu steps "
			 "it may take on one message%s%s%s; the rest of the message was not "
			 "checked against it", rb->rule, line_name(rb->stopped_at, at, sizeof(at)),
			 PATTERN_BUDGET_STEPS, *hits ? " (" : "", hits, *hits ? ")" : "");
	else if (rb->b.limited)
		snprintf(buf, n, "custom rule %s: %s (the first: %s) and %s not checked "
			 "against it", rb->rule, hits, line_name(rb->first_limited, at, sizeof(at)),
			 rb->b.limited == 1 ? "was" : "were");
	else
		return NULL;
	return buf;
}

static void findings_vadd(struct findings *f, const char *rule, enum severity sev,
			  const struct line *where, const char *doc,
			  const char *fmt, va_list ap)
{
	struct finding *x;
	struct buf b;

	ARRAY_GROW(f->v, f->alloc, f->n + 1);
	x = &f->v[f->n++];
	x->rule = rule;
	x->severity = sev;
	x->line = where ? where->lineno : 0;
	x->text = where ? xstrndup(where->p, where->len) : xstrdup("");
	x->doc = doc;
	buf_init(&b, 64 * 1024);
	{
		char tmp[1024];
		va_list aq;
		int n;

		va_copy(aq, ap);
		n = vsnprintf(tmp, sizeof(tmp), fmt, aq);
		va_end(aq);
		if (n >= 0 && (size_t)n < sizeof(tmp)) {
			buf_addstr(&b, tmp);
		} else if (n >= 0 && buf_grow(&b, (size_t)n) == 0) {
			vsnprintf(b.data, (size_t)n + 1, fmt, ap);
			b.len = (size_t)n;
		}
	}
	x->message = buf_detach(&b, NULL);
}

void findings_add(struct findings *f, const char *rule, enum severity sev,
		  const struct line *where, const char *doc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	findings_vadd(f, rule, sev, where, doc, fmt, ap);
	va_end(ap);
}

void finding_append(struct finding *x, const char *fmt, ...)
{
	struct buf b;
	va_list ap;

	buf_init(&b, 64 * 1024);
	buf_addstr(&b, x->message);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(x->message);
	x->message = buf_detach(&b, NULL);
}

bool rule_enabled(const struct rule_ctx *c, enum rule_id id)
{
	if (c->settings->severity[id] == SEV_OFF)
		return false;
	return !rule_defs[id].needs_lookup || c->settings->lookups;
}

static void emit(struct rule_ctx *c, enum rule_id id, enum severity sev, const char *doc,
		 const struct line *where, const char *fmt, va_list ap)
{
	enum severity configured = c->settings->severity[id];

	if (!rule_enabled(c, id))
		return;
	/* A per-case default (sev) only applies while the admin kept the rule's. */
	if (configured != rule_defs[id].severity || sev == SEV_OFF)
		sev = configured;
	findings_vadd(c->out, rule_defs[id].id, sev, where, doc ? doc : rule_defs[id].doc, fmt, ap);
}

void rule_emit(struct rule_ctx *c, enum rule_id id, const struct line *where,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(c, id, SEV_OFF, NULL, where, fmt, ap);
	va_end(ap);
}

void rule_emit_sev(struct rule_ctx *c, enum rule_id id, enum severity sev,
		   const struct line *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(c, id, sev, NULL, where, fmt, ap);
	va_end(ap);
}

void rule_emit_doc(struct rule_ctx *c, enum rule_id id, const char *doc,
		   const struct line *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(c, id, SEV_OFF, doc, where, fmt, ap);
	va_end(ap);
}
