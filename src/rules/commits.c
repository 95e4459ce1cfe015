/*
 * commits.c - tagbot-rules(7) REPORTS, FIXES AND STABLE with the repository's answer: a cited
 * commit that does not exist (UNKNOWN_COMMIT_ID), and a subject that is not
 * the commit's (BAD_FIXES_TAG for a Fixes: tag, GIT_COMMIT_ID in prose).
 * No I/O here: gitrepo_facts() asked git before the rules ran.  An id git
 * could not settle (ambiguous, git failed) is never a finding.
 */
#include "autoconf.h"
#include <string.h>

#include "mail/commitref.h"
#include "rules/rules_p.h"

/* rule's finding on line l among this patch's findings (from first on). */
static struct finding *finding_on(const struct rule_ctx *c, size_t first, enum rule_id rule,
				  const struct line *l)
{
	for (size_t i = first; i < c->out->n; i++) {
		struct finding *f = &c->out->v[i];

		if (f->line == l->lineno && !strcmp(f->rule, rule_defs[rule].id))
			return f;
	}
	return NULL;
}

static void unknown(struct rule_ctx *c, const struct line *l, const struct commit_fact *x)
{
	if (x->status == COMMIT_MISSING)
		rule_emit(c, R_UNKNOWN_COMMIT_ID, l,
			  "Unknown commit id '%s': this repository has no such commit; maybe it was rebased, or the tree is not pulled?",
			  x->id);
	else
		rule_emit(c, R_UNKNOWN_COMMIT_ID, l,
			  "'%s' names a %s in this repository, not a commit.", x->id, x->type);
}

static void check_found(struct rule_ctx *c, size_t first, const struct commitref *r,
			const struct line *l, const struct commit_fact *x)
{
	bool fixes = r->kind == COMMITREF_FIXES;
	enum rule_id rule = fixes ? R_BAD_FIXES_TAG : R_GIT_COMMIT_ID;
	const char *form = fixes ? "Fixes:" : "commit";
	struct finding *f = finding_on(c, first, rule, l);

	if (f) {
		finding_append(f, " In this repository: %s %.12s (\"%s\")", form, x->oid, x->subject);
		return;
	}
	if (r->subject && !commitref_same_subject(r->subject, strlen(r->subject), x->subject,
						  strlen(x->subject)))
		rule_emit(c, rule, l,
			  "The subject given for commit %s is not that commit's; it reads: %s %.12s (\"%s\")",
			  r->id, form, x->oid, x->subject);
}

void rules_commits(struct rule_ctx *ctx, size_t first)
{
	const struct patch *p = ctx->patch;
	struct commitrefs refs;

	if (!ctx->commits || p->kind != KIND_PATCH)
		return;
	commitrefs_init(&refs);
	commitref_find(p->lines, p->nlines, p->block_start, COMMITREF_MAX_REFS, &refs);
	for (size_t i = 0; i < refs.n; i++) {
		const struct commit_fact *x = commit_facts_find(ctx->commits, refs.v[i].id);
		const struct line *l = &p->lines[refs.v[i].line];

		if (!x || x->status == COMMIT_UNSETTLED)
			continue;
		if (x->status == COMMIT_FOUND)
			check_found(ctx, first, &refs.v[i], l, x);
		else
			unknown(ctx, l, x);
	}
	commitrefs_release(&refs);
}
