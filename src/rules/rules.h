/*
 * rules.h - the face of rules/: patch + settings + link facts
 * (linkfacts.h) -> findings, no I/O.  rules_p.h is private to the folder.
 *
 *	findings_init(&f);
 *	rules_run_lookups(&p[0], &settings, &facts, &f);	// facts may be NULL
 *	for (size_t i = 0; i < f.n; i++)
 *		printf("%s: %s\n", f.v[i].rule, f.v[i].message);
 *	findings_release(&f);
 *
 * The rule table (tagbot-rules(7)): every rule's ID,
 * default severity and document; running them over a patch; the findings.
 *
 * Families (src/rules/ *.c) each check a group of rules and report through
 * rule_emit(); severities from the configuration are applied there, so a
 * family never needs to know what the admin changed.
 */
#ifndef TAGBOT_RULES_H
#define TAGBOT_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/patch.h"
#include "lib/pattern.h"

struct mailmap;

enum severity {
	SEV_OFF = 0,
	SEV_CHECK,
	SEV_WARNING,
	SEV_ERROR
};

/* "off", "check", "warning", "error". */
const char *severity_name(enum severity s);
/* Parses those names (case-insensitive); -1 when unknown. */
int severity_parse(const char *s, enum severity *out);

/* Built-in rules.  The order is the order of tagbot-rules(7). */
enum rule_id {
	R_MISSING_SIGN_OFF,
	R_NO_AUTHOR_SIGN_OFF,
	R_FROM_SIGN_OFF_MISMATCH,
	R_BAD_FROM_ADDRESS,
	R_BAD_SIGN_OFF,
	R_SUBMITTER_SIGN_OFF,
	R_BAD_REPORTED_BY_LINK,
	R_BAD_FIXES_TAG,
	R_MISSING_FIXES_TAG,
	R_BAD_STABLE_ADDRESS_STYLE,
	R_GIT_COMMIT_ID,
	R_UNKNOWN_COMMIT_ID,
	R_LINK_TO_SELF,
	R_LINK_TO_PREVIOUS_VERSION,
	R_LINK_TO_OWN_SERIES,
	R_LINK_SHOULD_BE_CLOSES,
	R_PROVENANCE_LINK,
	R_LINK_NO_NEW_INFO,
	R_LINK_DEAD,
	R_COMMIT_LOG_WRONG_LINK,
	R_COMMIT_LOG_USE_LINK,
	R_PREFER_LORE_ARCHIVE,
	R_COMMIT_MESSAGE,
	R_COMMIT_LOG_VERSIONING,
	R_BAD_COMMIT_SEPARATOR,
	R_COMMIT_COMMENT_SYMBOL,
	R_GERRIT_CHANGE_ID,
	R_EMAIL_SUBJECT,
	R_PLACEHOLDER_USE,
	R_PASTED_FORMAT_PATCH,
	RULE_COUNT
};

struct rule_def {
	const char *id;			/* "MISSING_SIGN_OFF" */
	enum severity severity;		/* default */
	const char *doc;		/* the document and section it rests on */
	const char *summary;		/* one sentence: what the rule asks */
	bool needs_lookup;		/* LINK_NO_NEW_INFO, LINK_DEAD */
	bool needs_tree;		/* UNKNOWN_COMMIT_ID: only inside a git repository */
};

/* The table, indexed by enum rule_id. */
extern const struct rule_def rule_defs[RULE_COUNT];

/* Index of the built-in rule named id (case-insensitive), or -1. */
int rule_find(const char *id);

/*
 * Whether rule id is about the sender's setup rather than the patch (their
 * From: and sign-off addresses: FROM_SIGN_OFF_MISMATCH, NO_AUTHOR_SIGN_OFF,
 * SUBMITTER_SIGN_OFF): the same mix-up comes back with every patch they
 * send, so a reply says it once, and tells a person once per [reply]
 * repeat_after days.
 */
bool rule_about_setup(const char *id);

/*
 * Whether rule id is told to a person once per [reply] repeat_after days
 * whatever the patch: the setup rules, and MISSING_SIGN_OFF, whose fix is
 * in the sender's workflow too (git commit -s), so patches prepared before
 * the reply would each get the same one.  A reply still names every patch
 * that has it.
 */
bool rule_told_per_person(const char *id);

/* Where a custom rule's pattern is applied (tagbot-rules(7) CUSTOM RULES). */
enum custom_scope {
	SCOPE_SUBJECT,
	SCOPE_COMMIT,	/* each line of the commit message */
	SCOPE_TRAILERS,	/* each trailer line ("Token: value") */
	SCOPE_TRAILER,	/* each value of trailers named token */
	SCOPE_BODY,	/* each line of the whole text (commit message, notes, diff) */
	SCOPE_DIFF	/* each line after the separator */
};

struct custom_rule {
	char *id;		/* owned; upper case */
	enum severity severity;
	enum custom_scope scope;
	char *token;		/* owned; for SCOPE_TRAILER */
	struct pattern *re;	/* owned */
	bool must_match;	/* finding when nothing matches */
	char *message;		/* owned */
	char *doc;		/* owned; "" when not set */
};

enum {
	FOLLOW_CLOSES = 1 << 0,
	FOLLOW_LINK = 1 << 1
};

/* What the rules need from the configuration; built by config.c. */
struct rule_settings {
	enum severity severity[RULE_COUNT];
	struct pattern_list archives;	 /* archive URL -> Message-ID forms */
	struct pattern_list bugtrackers; /* bug-report URL forms */
	unsigned reported_by_followers;	 /* FOLLOW_* bits; default both */
	struct custom_rule *custom;	 /* owned */
	size_t ncustom, custom_alloc;
	bool lookups;			 /* [lookup] enabled: run needs_lookup rules */
	struct mailmap *mailmap;	 /* owned; NULL: none ([rules] mailmap, or a
					  * kernel tree's .mailmap) */
};

/* The default severities, with the default patterns compiled. */
void rule_settings_init(struct rule_settings *s);
void rule_settings_release(struct rule_settings *s);

struct finding {
	const char *rule;	/* foreign: rule_defs[].id or a custom rule's id */
	enum severity severity;
	size_t line;		/* 1-based line of the decoded text; 0 = the mail as a whole */
	char *text;		/* owned; the offending line, "" when none */
	char *message;		/* owned; what is wrong and how to fix it */
	const char *doc;	/* foreign */
};

/*
 * What a custom rule's pattern could do on one message (pattern.h,
 * budgets): each rule gets PATTERN_BUDGET_STEPS per message, so a pattern
 * that backtracks for ever stops at some line instead of holding the
 * daemon, and the other rules still run.  Kept in the findings, so a
 * message checked part by part into one findings spends one budget.
 */
struct rule_budget {
	const char *rule;	/* foreign: the custom rule's id */
	struct pattern_budget b;
	size_t first_limited;	/* line of the first match-limit hit (b.limited > 0) */
	size_t stopped_at;	/* line where the budget ran out (b.spent) */
};

struct findings {
	struct finding *v;	/* owned */
	size_t n, alloc;
	struct rule_budget *budgets;	/* owned; one per custom rule that ran */
	size_t nbudgets, budgets_alloc;
};

/*
 * What finding f points at, as a key that is the same for the same mistake
 * made again (malloc'ed, at most FINDING_KEY_MAX bytes): "" for a rule told
 * per person (whatever it points at); else its quoted line, lower case,
 * white space collapsed, and its ids normalised -- a hex word of 7 or more
 * digits with a digit in it (a commit id) becomes "#", and every other run
 * of decimal digits "#" (a version, a date, the numbers of a Message-ID;
 * an address in <> is kept: it names someone) -- or, for a finding without a quoted line, what it
 * says, lower case, white space collapsed (the bot's own words).  So the same
 * paragraph pasted into a resend or another patch, or the same commit id
 * (or another one) quoted the same bad way, is one finding; a line that
 * differs in its words is another.  The key of what a person was told
 * ([reply] repeat_after) and of one item of a reply.
 */
#define FINDING_KEY_MAX	1024
char *finding_key(const struct finding *f);
/* What finding f says (its message), normalised as finding_key() does a
 * quoted line: lower case, white space collapsed, ids and numbers "#".
 * Two findings that say the same are one lesson. */
char *finding_said_key(const struct finding *f);

void findings_init(struct findings *f);
void findings_release(struct findings *f);

/* The budget of custom rule id in f, opened the first time it is asked for. */
struct rule_budget *findings_budget(struct findings *f, const char *id);

/*
 * One sentence for a warning about the message when rb's rule could not
 * check all of it ("custom rule X stopped at line 84: ..."), in buf; NULL
 * when the rule checked every line.  Callers log each, naming the message:
 *
 *	for (size_t i = 0; i < f.nbudgets; i++)
 *		if (rule_budget_describe(&f.budgets[i], why, sizeof(why)))
 *			log_message(LOGL_WARNING, msgid, "%s", why);
 */
const char *rule_budget_describe(const struct rule_budget *rb, char *buf, size_t n);

struct commit_facts;	/* commitref.h */

/* What a family's check function gets. */
struct rule_ctx {
	const struct patch *patch;		/* foreign */
	const struct rule_settings *settings;	/* foreign */
	struct findings *out;			/* foreign */
	const struct commit_facts *commits;	/* foreign; what the repository says of
						 * the cited commits, NULL outside one */
};

/*
 * Reports rule id at line where (NULL: the mail as a whole) with a message
 * built from fmt.  Applies the configured severity; does nothing when the
 * rule is off.  rule_emit_sev() is for the cases tagbot-rules(7) gives a different
 * default (BAD_SIGN_OFF with an unparsable address is an error): sev is used
 * while the admin left the rule at its default.
 */
void rule_emit(struct rule_ctx *c, enum rule_id id, const struct line *where,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rule_emit_sev(struct rule_ctx *c, enum rule_id id, enum severity sev,
		   const struct line *where, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* rule_emit() citing doc (a string that outlives the findings) instead of
 * the rule's documents, for a finding another document defines. */
void rule_emit_doc(struct rule_ctx *c, enum rule_id id, const char *doc,
		   const struct line *where, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The low-level append used by rule_emit() and custom rules: copies text
 * (the offending line, may be NULL) and the formatted message. */
void findings_add(struct findings *f, const char *rule, enum severity sev,
		  const struct line *where, const char *doc, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Appends the formatted text to x's message (a family adding what it
 * learnt to another's finding on the same line). */
void finding_append(struct finding *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* True when rule id is not off (so a family can skip expensive work). */
bool rule_enabled(const struct rule_ctx *c, enum rule_id id);

/*
 * Runs every rule over p and appends findings to out, sorted by line.
 * Only KIND_PATCH and KIND_COVER are checked (cover letters only by the
 * rules that apply to them).
 */
void rules_run(const struct patch *p, const struct rule_settings *s, struct findings *out);

struct lookup_results;	/* lookup.h */

/*
 * rules_run() with what lookup_prefetch() learnt about p's links (may be
 * NULL).  The rules that need it (LINK_NO_NEW_INFO, LINK_DEAD, the archive
 * signal of LINK_TO_PREVIOUS_VERSION) run only when s->lookups is set.
 */
void rules_run_lookups(const struct patch *p, const struct rule_settings *s,
		       const struct lookup_results *lookups, struct findings *out);

/*
 * rules_run_lookups() with what gitrepo_facts() learnt of the commits p
 * cites (NULL outside a repository: UNKNOWN_COMMIT_ID and the subject
 * checks are skipped, never guessed).
 */
void rules_run_facts(const struct patch *p, const struct rule_settings *s,
		     const struct lookup_results *lookups, const struct commit_facts *commits,
		     struct findings *out);

/*
 * What a series' cover letter settles for its parts, whose rules ran one
 * by one without it: turns off (SEV_OFF) the findings of parts[0..n) the
 * cover's text makes moot.  Today: BAD_REPORTED_BY_LINK when the cover
 * says the reports were not public (as the rule reads a patch's own text:
 * private, off-list, directly, or a security fix, reported privately as
 * Documentation/process/security-bugs.rst asks).
 */
void rules_cover_settles(const struct patch *cover, struct findings *parts, size_t n);

/* COMMIT_LOG_VERSIONING's test of one line ("v2:", "v1 -> v2", "Changes in
 * v3", "Changelog:"); --fix moves what it finds. */
bool rules_version_note(const struct line *l);

#endif
