/*
 * lookups.c - RULES.md section 4, the rules that need to know what a link
 * points at: LINK_DEAD, LINK_NO_NEW_INFO and the archive signal of
 * LINK_TO_PREVIOUS_VERSION; and, from what the daemon's store knows of
 * the target (linkstore_results), LINK_TO_PREVIOUS_VERSION and
 * LINK_TO_OWN_SERIES, which need no [lookup].  No I/O here: the caller
 * fetched the results and passed them to rules_run_lookups().  A result
 * the lookup could not settle (LOOKUP_UNKNOWN, others < 0) never becomes a
 * finding.
 *
 * One finding per link: a line rules/links.c already reported as a link to
 * the mail itself, its series or an earlier version gets no second one
 * from here.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/linkref.h"
#include "rules/linkfacts.h"
#include "rules/rules_p.h"
#include "lib/ascii.h"

/* Whether rules/links.c reported a link rule on line l of this patch
 * (findings from first on). */
static bool already_reported(const struct rule_ctx *c, size_t first, const struct line *l)
{
	static const enum rule_id link_rules[] = {
		R_LINK_TO_SELF, R_LINK_TO_PREVIOUS_VERSION, R_LINK_TO_OWN_SERIES,
	};

	for (size_t i = first; i < c->out->n; i++) {
		const struct finding *f = &c->out->v[i];

		if (f->line != l->lineno)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(link_rules); k++)
			if (!strcmp(f->rule, rule_defs[link_rules[k]].id))
				return true;
	}
	return false;
}

/* Subjects compared case-insensitively, runs of white space as one. */
static bool same_subject(const char *a, const char *b)
{
	while (ascii_is_blank((unsigned char)*a))
		a++;
	while (ascii_is_blank((unsigned char)*b))
		b++;
	while (*a && *b) {
		if (ascii_is_blank((unsigned char)*a) && ascii_is_blank((unsigned char)*b)) {
			while (ascii_is_blank((unsigned char)*a))
				a++;
			while (ascii_is_blank((unsigned char)*b))
				b++;
			continue;
		}
		if (ascii_tolower((unsigned char)*a) != ascii_tolower((unsigned char)*b))
			return false;
		a++;
		b++;
	}
	while (ascii_is_blank((unsigned char)*a))
		a++;
	while (ascii_is_blank((unsigned char)*b))
		b++;
	return !*a && !*b;
}

/* This mail's version: the subject's, or b4's -vN- in its Message-ID. */
static int own_version(const struct patch *p)
{
	char *stem = NULL;
	int v = p->series.version > 0 ? p->series.version : 1, b4 = 0;

	if (p->message_id && *p->message_id && linkref_b4_parse(p->message_id, &stem, &b4))
		free(stem);
	return b4 > v ? b4 : v;
}

static bool earlier_posting(const struct patch *p, const struct lookup_result *r)
{
	return r->is_patch && r->subject && *r->subject && p->subject_body &&
	       same_subject(r->subject, p->subject_body) && r->version < own_version(p);
}

static void dead(struct rule_ctx *c, const struct line *l, const struct lookup_result *r,
		 bool is_link)
{
	const char *tag = is_link ? "Link" : "Closes";

	if (r->http_code == 404 || r->http_code == 410)
		rule_emit(c, R_LINK_DEAD, l,
			  "This %s: answers %ld (%s): check the address, or drop the tag.", tag,
			  r->http_code, r->http_code == 404 ? "not found" : "gone");
	else
		rule_emit(c, R_LINK_DEAD, l,
			  "The host of this %s: URL does not resolve: check the address, or drop the tag.",
			  tag);
}

static void check_archive_link(struct rule_ctx *c, size_t first, const struct line *l,
			       const struct lookup_result *r)
{
	const struct patch *p = c->patch;

	if (!r->msgid || r->status != LOOKUP_ALIVE || already_reported(c, first, l))
		return;
	if (earlier_posting(p, r))
		rule_emit(c, R_LINK_TO_PREVIOUS_VERSION, l,
			  "This Link: points at v%d of this patch (the archive says so), this mail is v%d: that is history, not information for the commit: move it below the --- line or into the cover letter.",
			  r->version, own_version(p));
	else if (r->is_patch && r->others == 0)
		rule_emit(c, R_LINK_NO_NEW_INFO, l,
			  "This Link: points at a patch posting that nobody but its author answered, so it holds nothing that is not in the commit: drop it, or link to the discussion or report that explains the change.");
}

/* What the store knows: true when that settled the link. */
static bool check_known(struct rule_ctx *c, size_t first, const struct line *l,
			const struct lookup_result *r)
{
	if (!r->earlier_version && !r->same_series)
		return false;
	if (already_reported(c, first, l))
		return true;
	if (r->earlier_version)
		rule_emit(c, R_LINK_TO_PREVIOUS_VERSION, l,
			  "This Link: points at an earlier version of this patch (the bot saw it posted), which is history, not information for the commit: move it below the --- line or into the cover letter.");
	else
		rule_emit(c, R_LINK_TO_OWN_SERIES, l,
			  "This Link: points at another mail of this patch's own series (the bot saw it posted), which adds little to the commit: drop it, or put it below the --- line.");
	return true;
}

void rules_lookups(struct rule_ctx *ctx, const struct lookup_results *res, size_t first)
{
	const struct patch *p = ctx->patch;

	if (p->kind != KIND_PATCH || !res)
		return;
	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++) {
		const struct line *l = &p->lines[i];
		const struct lookup_result *r;
		const char *url;
		size_t n;
		bool is_link;

		if (!lookup_link_line(l, &url, &n, &is_link) ||
		    !(r = lookup_results_find(res, url, n)))
			continue;
		if ((is_link && check_known(ctx, first, l, r)) || !ctx->settings->lookups)
			continue;
		if (r->status == LOOKUP_DEAD)
			dead(ctx, l, r, is_link);
		else if (is_link)
			check_archive_link(ctx, first, l, r);
	}
}
