/*
 * rules_p.h - private to rules/: the check function of each family of rules.  Each looks at
 * ctx->patch and reports through rule_emit(); rules.c calls them in order.
 * A family must handle both KIND_PATCH and KIND_COVER (most rules apply to
 * patches only: return early for a cover).
 */
#ifndef TAGBOT_RULES_P_H
#define TAGBOT_RULES_P_H

#include "rules/rules.h"

void rules_signoff(struct rule_ctx *ctx);	/* tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP */
void rules_reports(struct rule_ctx *ctx);	/* section 3 */
void rules_links(struct rule_ctx *ctx);		/* section 4 */
void rules_commitlog(struct rule_ctx *ctx);	/* section 5 */
void rules_custom(struct rule_ctx *ctx);	/* section 6 */

/*
 * Section 4, the rules that need lookups; run after the families above by
 * rules_run_lookups(), with what lookup_prefetch() fetched (NULL: nothing)
 * and the index in ctx->out of this patch's first finding.
 */
struct lookup_results;
void rules_lookups(struct rule_ctx *ctx, const struct lookup_results *res, size_t first);

/*
 * Section 3 against the repository (ctx->commits, NULL: nothing to do):
 * UNKNOWN_COMMIT_ID, and the subject a Fixes: tag or a citation gives
 * checked against the commit's; the right form is added to the
 * BAD_FIXES_TAG or GIT_COMMIT_ID finding rules_reports() made on the line
 * (findings from first on), or made one when the subject is all that is wrong.
 */
void rules_commits(struct rule_ctx *ctx, size_t first);

#endif
