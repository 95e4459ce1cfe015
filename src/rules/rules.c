#include "autoconf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ascii.h"
#include "lib/buf.h"
#include "mail/linkref.h"
#include "mail/mailmap.h"
#include "rules/rules.h"
#include "rules/rules_p.h"

#define SP "Documentation/process/submitting-patches.rst"
#define PO "Documentation/process/5.Posting.rst"

const struct rule_def rule_defs[RULE_COUNT] = {
	[R_MISSING_SIGN_OFF] = { "MISSING_SIGN_OFF", SEV_ERROR, SP " \"Sign your work\"",
		"A patch needs a Signed-off-by: line in its commit message.", false },
	[R_NO_AUTHOR_SIGN_OFF] = { "NO_AUTHOR_SIGN_OFF", SEV_ERROR, PO "; " SP " \"Sign your work\"",
		"The author of a patch must sign it off.", false },
	[R_FROM_SIGN_OFF_MISMATCH] = { "FROM_SIGN_OFF_MISMATCH", SEV_WARNING, SP " \"Sign your work\"",
		"The author's sign-off should use the same name and address as the From: line.", false },
	[R_BAD_FROM_ADDRESS] = { "BAD_FROM_ADDRESS", SEV_WARNING, SP " \"The canonical patch format\"",
		"The From: line should read Full Name <address>, every quote and parenthesis closed.", false },
	[R_BAD_SIGN_OFF] = { "BAD_SIGN_OFF", SEV_WARNING, SP " \"Sign your work\"; Documentation/process/maintainer-tip.rst",
		"Tags ending in -by: must be standard ones, well formed, and not repeated.", false },
	[R_SUBMITTER_SIGN_OFF] = { "SUBMITTER_SIGN_OFF", SEV_WARNING, SP " \"Sign your work\"",
		"Whoever sends someone else's patch adds their own Signed-off-by:, last.", false },
	[R_BAD_REPORTED_BY_LINK] = { "BAD_REPORTED_BY_LINK", SEV_WARNING, SP " \"Using Reported-by:, Tested-by:, Reviewed-by:, Suggested-by: and Fixes:\"",
		"Reported-by: should be followed by a Closes: or Link: to the report.", false },
	[R_BAD_FIXES_TAG] = { "BAD_FIXES_TAG", SEV_WARNING, SP " \"Describe your changes\"",
		"A Fixes: tag reads Fixes: <12+ hex chars> (\"<subject>\") on one line.", false },
	[R_MISSING_FIXES_TAG] = { "MISSING_FIXES_TAG", SEV_CHECK, SP " \"Describe your changes\"; Documentation/process/maintainer-netdev.rst",
		"A patch that fixes a crash or a report should say what it fixes with Fixes:.", false },
	[R_BAD_STABLE_ADDRESS_STYLE] = { "BAD_STABLE_ADDRESS_STYLE", SEV_WARNING, "Documentation/process/stable-kernel-rules.rst",
		"Cc: stable@vger.kernel.org takes no display name; notes go after \" # \".", false },
	[R_GIT_COMMIT_ID] = { "GIT_COMMIT_ID", SEV_WARNING, SP " \"Describe your changes\"",
		"Cite commits as commit <12+ hex chars> (\"<subject>\").", false },
	[R_UNKNOWN_COMMIT_ID] = { "UNKNOWN_COMMIT_ID", SEV_WARNING, SP " \"Describe your changes\"",
		"A commit cited in Fixes: or as commit <id> must exist in the repository checked in.",
		false, true },
	[R_LINK_TO_SELF] = { "LINK_TO_SELF", SEV_WARNING, "Documentation/process/5.Posting.rst (Link: guidance, 2025)",
		"A Link: to the patch's own posting adds nothing that is not in the commit.", false },
	[R_LINK_TO_PREVIOUS_VERSION] = { "LINK_TO_PREVIOUS_VERSION", SEV_WARNING, PO "; Documentation/process/maintainer-kvm-x86.rst \"Links\"",
		"Links to earlier versions of a patch belong below the --- line or in the cover letter.", false },
	[R_LINK_TO_OWN_SERIES] = { "LINK_TO_OWN_SERIES", SEV_CHECK, "Documentation/process/5.Posting.rst (Link: guidance, 2025)",
		"A Link: to this series' own cover letter or patches adds nothing to the commit.", false },
	[R_LINK_SHOULD_BE_CLOSES] = { "LINK_SHOULD_BE_CLOSES", SEV_CHECK, PO "; " SP " \"Using Reported-by:...\"",
		"A link to a bug report that the patch fixes should be a Closes: tag.", false },
	[R_PROVENANCE_LINK] = { "PROVENANCE_LINK", SEV_CHECK, "Documentation/maintainer/configure-git.rst; " PO,
		"Message-ID: trailers and patch.msgid.link links are added when a patch is applied, not by its author.", false },
	[R_LINK_NO_NEW_INFO] = { "LINK_NO_NEW_INFO", SEV_WARNING, "Documentation/process/5.Posting.rst (Link: guidance, 2025)",
		"A Link: should lead to information that is not already in the commit.", true },
	[R_LINK_DEAD] = { "LINK_DEAD", SEV_WARNING, SP " \"Describe your changes\"",
		"Links in a commit message must lead somewhere.", true },
	[R_COMMIT_LOG_WRONG_LINK] = { "COMMIT_LOG_WRONG_LINK", SEV_WARNING, SP " \"Describe your changes\"",
		"Link: and Closes: take a plain http(s) URL.", false },
	[R_COMMIT_LOG_USE_LINK] = { "COMMIT_LOG_USE_LINK", SEV_WARNING, SP " \"Describe your changes\"",
		"Use Link: or Closes: before a URL, not a made-up tag.", false },
	[R_PREFER_LORE_ARCHIVE] = { "PREFER_LORE_ARCHIVE", SEV_WARNING, SP " \"Describe your changes\"",
		"Point at lore.kernel.org rather than an old mail archive.", false },
	[R_COMMIT_MESSAGE] = { "COMMIT_MESSAGE", SEV_WARNING, SP " \"Describe your changes\"",
		"A patch needs a description besides its tags.", false },
	[R_COMMIT_LOG_VERSIONING] = { "COMMIT_LOG_VERSIONING", SEV_WARNING, SP " \"The canonical patch format\"",
		"Version notes go below the --- line, not in the commit message.", false },
	[R_BAD_COMMIT_SEPARATOR] = { "BAD_COMMIT_SEPARATOR", SEV_WARNING, SP " \"The canonical patch format\"",
		"A commit-message line of \"--- \" and text is where git am starts the diff and cuts the message.", false },
	[R_COMMIT_COMMENT_SYMBOL] = { "COMMIT_COMMENT_SYMBOL", SEV_WARNING, SP " \"The canonical patch format\"",
		"git drops commit-message lines that start with #.", false },
	[R_GERRIT_CHANGE_ID] = { "GERRIT_CHANGE_ID", SEV_ERROR, SP " \"The canonical patch format\"",
		"Gerrit Change-Id: trailers do not belong in kernel patches.", false },
	[R_EMAIL_SUBJECT] = { "EMAIL_SUBJECT", SEV_CHECK, SP " \"The canonical patch format\"",
		"A subject should say what the change does, not which tool found the problem.", false },
	[R_PLACEHOLDER_USE] = { "PLACEHOLDER_USE", SEV_ERROR, SP " \"The canonical patch format\"",
		"The *** SUBJECT HERE *** and *** BLURB HERE *** placeholders must be filled in.", false },
	[R_PASTED_FORMAT_PATCH] = { "PASTED_FORMAT_PATCH", SEV_WARNING, PO " \"Sending the patch\"; " SP " \"The canonical patch format\"",
		"A patch is sent with git send-email (or b4), not pasted into a mail as a format-patch file.", false },
};

static const char *const severity_names[] = {
	[SEV_OFF] = "off", [SEV_CHECK] = "check", [SEV_WARNING] = "warning", [SEV_ERROR] = "error",
};

const char *severity_name(enum severity s)
{
	return (unsigned)s < ARRAY_SIZE(severity_names) ? severity_names[s] : "?";
}

int severity_parse(const char *s, enum severity *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(severity_names); i++) {
		if (!strcasecmp(s, severity_names[i])) {
			*out = (enum severity)i;
			return 0;
		}
	}
	return -1;
}

bool rule_about_setup(const char *id)
{
	static const char *const setup[] = {
		"FROM_SIGN_OFF_MISMATCH", "NO_AUTHOR_SIGN_OFF", "SUBMITTER_SIGN_OFF",
	};

	for (size_t i = 0; id && i < ARRAY_SIZE(setup); i++)
		if (!strcmp(id, setup[i]))
			return true;
	return false;
}

bool rule_told_per_person(const char *id)
{
	return rule_about_setup(id) || (id && !strcmp(id, "MISSING_SIGN_OFF"));
}

/* Appends the word s[0..n) (letters and digits) to b, lower case, its ids
 * normalised when ids. */
static void key_word(struct buf *b, const char *s, size_t n, bool ids)
{
	bool hex = ids && n >= 7, digit = false;

	for (size_t i = 0; i < n; i++) {
		hex &= ascii_is_xdigit((unsigned char)s[i]);
		digit |= ascii_is_digit((unsigned char)s[i]);
	}
	if (hex && digit) {
		buf_addch(b, '#');
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!ids || !ascii_is_digit((unsigned char)s[i]))
			buf_addch(b, (char)ascii_tolower((unsigned char)s[i]));
		else if (!i || !ascii_is_digit((unsigned char)s[i - 1]))
			buf_addch(b, '#');
	}
}

/* s lower case, white space collapsed, its ids normalised when ids. */
static char *key_of(const char *s, bool ids)
{
	struct buf b;

	buf_init(&b, FINDING_KEY_MAX);	/* what passes it is left out */
	while (*s && b.len < FINDING_KEY_MAX) {
		size_t n = 0;

		if (ascii_is_space((unsigned char)*s)) {
			n = strspn(s, " \t\r\n\f\v");
			if (b.len && s[n])
				buf_addch(&b, ' ');
		} else if (ascii_is_alnum((unsigned char)*s)) {
			while (ascii_is_alnum((unsigned char)s[n]))
				n++;
			key_word(&b, s, n, ids);
		} else {
			buf_addch(&b, (char)*s);
			n = 1;
		}
		s += n;
	}
	return buf_detach(&b, NULL);
}

char *finding_key(const struct finding *f)
{
	bool ids = f->text && *f->text;

	if (rule_told_per_person(f->rule))
		return key_of("", false);
	return key_of(ids ? f->text : f->message ? f->message : "", ids);
}

char *finding_said_key(const struct finding *f)
{
	return key_of(f->message ? f->message : "", true);
}

int rule_find(const char *id)
{
	for (int i = 0; i < RULE_COUNT; i++)
		if (!strcasecmp(rule_defs[i].id, id))
			return i;
	return -1;
}

static void add_defaults(struct pattern_list *l, const char *const *src)
{
	struct err e;

	for (; *src; src++) {
		/* The defaults are ours: a failure is a bug caught by the tests. */
		if (pattern_list_add(l, *src, PATTERN_CASELESS, &e) < 0)
			BUG("built-in pattern %s: %s", *src, e.msg);
	}
}

void rule_settings_init(struct rule_settings *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < RULE_COUNT; i++)
		s->severity[i] = rule_defs[i].severity;
	pattern_list_init(&s->archives);
	pattern_list_init(&s->bugtrackers);
	add_defaults(&s->archives, linkref_default_archives);
	add_defaults(&s->bugtrackers, linkref_default_bugtrackers);
	s->reported_by_followers = FOLLOW_CLOSES | FOLLOW_LINK;
}

void rule_settings_release(struct rule_settings *s)
{
	pattern_list_release(&s->archives);
	pattern_list_release(&s->bugtrackers);
	for (size_t i = 0; i < s->ncustom; i++) {
		struct custom_rule *r = &s->custom[i];

		free(r->id);
		free(r->token);
		free(r->message);
		free(r->doc);
		pattern_free(r->re);
	}
	free(s->custom);
	mailmap_free(s->mailmap);
	memset(s, 0, sizeof(*s));
}

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->rule, y->rule);
}

static void (*const families[])(struct rule_ctx *) = {
	rules_signoff,
	rules_reports,
	rules_links,
	rules_commitlog,
	rules_custom,
};

void rules_run(const struct patch *p, const struct rule_settings *s, struct findings *out)
{
	rules_run_facts(p, s, NULL, NULL, out);
}

void rules_run_lookups(const struct patch *p, const struct rule_settings *s,
		       const struct lookup_results *lookups, struct findings *out)
{
	rules_run_facts(p, s, lookups, NULL, out);
}

void rules_run_facts(const struct patch *p, const struct rule_settings *s,
		     const struct lookup_results *lookups, const struct commit_facts *commits,
		     struct findings *out)
{
	struct rule_ctx ctx = { p, s, out, commits };
	size_t first = out->n;

	if (p->kind != KIND_PATCH && p->kind != KIND_COVER)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		families[i](&ctx);
	/* Not in the table: it needs what was fetched, and reads what
	 * rules_links found (one finding per link). */
	rules_lookups(&ctx, lookups, first);
	/* Also after the others: it adds the repository's answer to the
	 * BAD_FIXES_TAG and GIT_COMMIT_ID findings rules_reports made. */
	rules_commits(&ctx, first);
	/* Stable sort is not needed: ties are ordered by rule ID. */
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), finding_cmp);
}
