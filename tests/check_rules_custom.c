#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "config/config.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "rules/rules_p.h"
#include "testhelp.h"

/*
 * A patch built by hand, so the scopes are tested without the parser:
 * lines 1-7 commit message (trailers 5-7), 8 the separator, 9-13 after it.
 */
static const char text[] =
	"Make the frobnicator faster.\n"				/* 1 */
	"\n"								/* 2 */
	"See http://intranet.example.com/bug/1 for details.\n"		/* 3 */
	"\n"								/* 4 */
	"Fixes: 0123456789ab (\"foo: add the frobnicator\")\n"		/* 5 */
	"Reported-by: Rita Reporter <rita@example.org>\n"		/* 6 */
	"Signed-off-by: Ann Author <ann@example.org>\n"			/* 7 */
	"---\n"								/* 8 */
	" drivers/foo.c | 2 +-\n"					/* 9 */
	"\n"								/* 10 */
	"diff --git a/drivers/foo.c b/drivers/foo.c\n"			/* 11 */
	"+\tfoo(); /* http://intranet.example.com/x */\n"		/* 12 */
	"+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n";			/* 13 */

#define COMMIT_LINES	7
#define FIRST_TRAILER	4	/* index of line 5 */

struct fixture {
	struct patch p;
	struct line lines[COMMIT_LINES];
	struct trailer trailers[3];
};

static void build(struct fixture *f, enum patch_kind kind)
{
	static const char *const tokens[] = { "Fixes", "Reported-by", "Signed-off-by" };
	const char *s = text;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < COMMIT_LINES; i++) {
		const char *nl = strchr(s, '\n');

		f->lines[i] = (struct line){ s, (size_t)(nl - s), i + 1 };
		s = nl + 1;
	}
	for (size_t i = 0; i < 3; i++) {
		const struct line *l = &f->lines[FIRST_TRAILER + i];
		struct trailer *t = &f->trailers[i];
		size_t tl = strlen(tokens[i]);

		t->kind = TRAILER_TAG;
		t->line = *l;
		t->in_block = true;
		t->token = (char *)tokens[i];
		t->value = xstrndup(l->p + tl + 2, l->len - tl - 2);
		t->has_colon = true;
		t->space_after_colon = 1;
	}
	f->p.kind = kind;
	f->p.subject = (char *)"[PATCH] foo: make the frobnicator faster";
	f->p.text = text;
	f->p.text_len = strlen(text);
	f->p.first_lineno = 1;
	f->p.lines = f->lines;
	f->p.nlines = COMMIT_LINES;
	f->p.block_start = FIRST_TRAILER;
	f->p.block_end = COMMIT_LINES;
	f->p.trailers = f->trailers;
	f->p.ntrailers = 3;
	f->p.sep = SEP_DASHES;
	f->p.sep_lineno = 8;
	f->p.after = strstr(text, "---\n") + 4;
	f->p.after_len = strlen(f->p.after);
	f->p.has_diff = true;
}

static void unbuild(struct fixture *f)
{
	for (size_t i = 0; i < 3; i++)
		free(f->trailers[i].value);
}

/* Appends a custom rule to s, compiled as config.c does. */
static void add_rule(struct rule_settings *s, const char *id, const char *re,
		     enum custom_scope scope, const char *token, bool must_match, bool caseless,
		     enum severity sev)
{
	struct custom_rule *r;
	struct err e;

	ARRAY_GROW(s->custom, s->custom_alloc, s->ncustom + 1);
	r = &s->custom[s->ncustom++];
	memset(r, 0, sizeof(*r));
	r->id = xstrdup(id);
	r->severity = sev;
	r->scope = scope;
	r->token = token ? xstrdup(token) : NULL;
	r->re = pattern_compile(re, PATTERN_STEPS | (caseless ? PATTERN_CASELESS : 0), &e);
	ck_assert_msg(r->re != NULL, "%s: %s", re, e.msg);
	r->must_match = must_match;
	r->message = xstrdup("Say it differently.");
	r->doc = xstrdup("Local policy");
}

/* settings with one custom rule */
static void one_rule(struct rule_settings *s, const char *re, enum custom_scope scope,
		     const char *token, bool must_match, bool caseless, enum severity sev)
{
	rule_settings_init(s);
	add_rule(s, "MY_RULE", re, scope, token, must_match, caseless, sev);
}

static const struct {
	const char *name;
	const char *re;
	enum custom_scope scope;
	const char *token;
	bool must_match, caseless;
	enum severity sev;
	enum patch_kind kind;
	const char *want;	/* the finding lines, "" for none */
} cases[] = {
	{ "subject", "frobnicator", SCOPE_SUBJECT, NULL, false, false, SEV_WARNING, KIND_PATCH, "0" },
	{ "commit", "intranet\\.example", SCOPE_COMMIT, NULL, false, false, SEV_WARNING, KIND_PATCH, "3" },
	{ "body", "intranet\\.example", SCOPE_BODY, NULL, false, false, SEV_WARNING, KIND_PATCH, "3 12" },
	{ "diff", "intranet\\.example", SCOPE_DIFF, NULL, false, false, SEV_WARNING, KIND_PATCH, "12" },
	{ "diff, first line", "^ drivers/", SCOPE_DIFF, NULL, false, false, SEV_WARNING, KIND_PATCH, "9" },
	{ "trailers", "^Reported-by:", SCOPE_TRAILERS, NULL, false, false, SEV_WARNING, KIND_PATCH, "6" },
	{ "trailers not prose", "^Make", SCOPE_TRAILERS, NULL, false, false, SEV_WARNING, KIND_PATCH, "" },
	{ "trailer value", "^0123456789ab ", SCOPE_TRAILER, "Fixes", false, false, SEV_WARNING, KIND_PATCH, "5" },
	{ "trailer token any case", "^0123", SCOPE_TRAILER, "fixes", false, false, SEV_WARNING, KIND_PATCH, "5" },
	{ "trailer value without token", "^Fixes", SCOPE_TRAILER, "Fixes", false, false, SEV_WARNING, KIND_PATCH, "" },
	{ "trailer other token", "^0123", SCOPE_TRAILER, "Link", false, false, SEV_WARNING, KIND_PATCH, "" },
	{ "must_match missing", "^Tested-by:", SCOPE_TRAILERS, NULL, true, false, SEV_WARNING, KIND_PATCH, "0" },
	{ "must_match present", "^Signed-off-by:", SCOPE_TRAILERS, NULL, true, false, SEV_WARNING, KIND_PATCH, "" },
	{ "must_match subject", "^\\[PATCH v[0-9]", SCOPE_SUBJECT, NULL, true, false, SEV_WARNING, KIND_PATCH, "0" },
	{ "must_match diff", "^\\+zzz", SCOPE_DIFF, NULL, true, false, SEV_WARNING, KIND_PATCH, "0" },
	{ "caseless", "^MAKE THE", SCOPE_COMMIT, NULL, false, true, SEV_WARNING, KIND_PATCH, "1" },
	{ "case kept", "^MAKE THE", SCOPE_COMMIT, NULL, false, false, SEV_WARNING, KIND_PATCH, "" },
	{ "off", "frobnicator", SCOPE_SUBJECT, NULL, false, false, SEV_OFF, KIND_PATCH, "" },
	{ "cover: subject", "frobnicator", SCOPE_SUBJECT, NULL, false, false, SEV_WARNING, KIND_COVER, "0" },
	{ "cover: commit", "^See ", SCOPE_COMMIT, NULL, false, false, SEV_WARNING, KIND_COVER, "3" },
	{ "cover: no body", "intranet", SCOPE_BODY, NULL, false, false, SEV_WARNING, KIND_COVER, "" },
	{ "cover: no must_match trailers", "^Tested-by:", SCOPE_TRAILERS, NULL, true, false, SEV_WARNING, KIND_COVER, "" },
	/* Line 13 makes (a+)+$ hit the match limit: neither a finding nor "nothing matched". */
	{ "limit is no match", "(a+)+$", SCOPE_DIFF, NULL, false, false, SEV_WARNING, KIND_PATCH, "" },
	{ "limit is no must_match", "(a+)+$", SCOPE_DIFF, NULL, true, false, SEV_WARNING, KIND_PATCH, "" },
};

static void lines_of(const struct findings *fs, char *out, size_t n)
{
	size_t off = 0;

	out[0] = '\0';
	for (size_t i = 0; i < fs->n && off < n; i++)
		off += (size_t)snprintf(out + off, n - off, "%s%zu", i ? " " : "", fs->v[i].line);
}

START_TEST(test_scopes)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;
	char got[256];

	build(&f, cases[_i].kind);
	one_rule(&s, cases[_i].re, cases[_i].scope, cases[_i].token, cases[_i].must_match,
		 cases[_i].caseless, cases[_i].sev);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	lines_of(&fs, got, sizeof(got));
	ck_assert_msg(!strcmp(got, cases[_i].want), "%s: want lines \"%s\", got \"%s\"",
		      cases[_i].name, cases[_i].want, got);
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
}
END_TEST

START_TEST(test_finding_fields)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;

	build(&f, KIND_PATCH);
	one_rule(&s, "intranet", SCOPE_COMMIT, NULL, false, false, SEV_ERROR);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_eq(fs.n, 1);
	ck_assert_str_eq(fs.v[0].rule, "MY_RULE");
	ck_assert_int_eq(fs.v[0].severity, SEV_ERROR);
	ck_assert_uint_eq(fs.v[0].line, 3);
	ck_assert_str_eq(fs.v[0].text, "See http://intranet.example.com/bug/1 for details.");
	ck_assert_str_eq(fs.v[0].message, "Say it differently.");
	ck_assert_str_eq(fs.v[0].doc, "Local policy");
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
}
END_TEST

START_TEST(test_subject_finding_text)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;

	build(&f, KIND_PATCH);
	one_rule(&s, "^\\[PATCH v", SCOPE_SUBJECT, NULL, true, false, SEV_WARNING);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_eq(fs.n, 1);
	ck_assert_uint_eq(fs.v[0].line, 0);
	ck_assert_str_eq(fs.v[0].text, "[PATCH] foo: make the frobnicator faster");
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
}
END_TEST

/* A diff of many matching lines reports a bounded number of findings. */
START_TEST(test_findings_are_capped)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;
	struct buf b;

	buf_init(&b, 0);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(buf_addstr(&b, "+bad\n"), 0);
	build(&f, KIND_PATCH);
	f.p.text = b.data;
	f.p.text_len = b.len;
	f.p.after = b.data;
	f.p.after_len = b.len;
	f.p.nlines = 0;
	f.p.ntrailers = 0;
	one_rule(&s, "^\\+bad$", SCOPE_DIFF, NULL, false, false, SEV_WARNING);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_gt(fs.n, 0);
	ck_assert_uint_le(fs.n, 1000);
	ck_assert_uint_eq(fs.v[0].line, 1);
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
	buf_release(&b);
}
END_TEST

/* ---------------------------------------------------------- budgets */

/* The sentences a caller would log for fs, one per line. */
static void budget_warnings(const struct findings *fs, char *out, size_t n)
{
	size_t off = 0;
	char why[512];

	out[0] = '\0';
	for (size_t i = 0; i < fs->nbudgets && off < n; i++)
		if (rule_budget_describe(&fs->budgets[i], why, sizeof(why)))
			off += (size_t)snprintf(out + off, n - off, "%s\n", why);
}

START_TEST(test_limit_hit_is_reported)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;
	char got[1024];

	build(&f, KIND_PATCH);
	one_rule(&s, "(a+)+$", SCOPE_DIFF, NULL, false, false, SEV_WARNING);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_eq(fs.n, 0);
	budget_warnings(&fs, got, sizeof(got));
	ck_assert_str_eq(got, "custom rule MY_RULE: 1 line hit the match limit (the first: "
			 "line 13) and was not checked against it\n");
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
}
END_TEST

#define AAAA_LINES	3000

/*
 * A diff of AAAA_LINES lines "+aaa...a!" (80 a's), then "+bad" on line
 * AAAA_LINES + 1; ^\+(a+)+$ hits the match limit on each a-line.
 */
static void aaaa_patch(struct fixture *f, struct buf *b)
{
	char line[84];

	line[0] = '+';
	memset(line + 1, 'a', 80);
	memcpy(line + 81, "!\n", 3);
	buf_init(b, 0);
	for (int i = 0; i < AAAA_LINES; i++)
		ck_assert_int_eq(buf_addstr(b, line), 0);
	ck_assert_int_eq(buf_addstr(b, "+bad\n"), 0);
	build(f, KIND_PATCH);
	f->p.text = b->data;
	f->p.text_len = b->len;
	f->p.after = b->data;
	f->p.after_len = b->len;
	f->p.nlines = 0;
	f->p.ntrailers = 0;
}

static void aaaa_rules(struct rule_settings *s)
{
	rule_settings_init(s);
	add_rule(s, "SLOW", "^\\+(a+)+$", SCOPE_BODY, NULL, false, false, SEV_WARNING);
	add_rule(s, "SLOW_MUST", "^\\+(a+)+$", SCOPE_DIFF, NULL, true, false, SEV_WARNING);
	add_rule(s, "BAD", "^\\+bad$", SCOPE_BODY, NULL, false, false, SEV_ERROR);
}

/*
 * The slow rules stop early, each reported once; the rule after them still
 * finds line AAAA_LINES + 1; a must_match rule that stopped is no finding.
 */
START_TEST(test_budget_stops_one_rule)
{
	struct rule_settings s;
	struct findings fs;
	struct fixture f;
	struct buf b;
	char got[2048], want[2048];
	size_t at;

	aaaa_patch(&f, &b);
	aaaa_rules(&s);
	findings_init(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_msg(fs.n == 1, "%s", th_dump(&fs));
	ck_assert_str_eq(fs.v[0].rule, "BAD");
	ck_assert_uint_eq(fs.v[0].line, AAAA_LINES + 1);
	ck_assert_uint_eq(fs.nbudgets, 3);
	at = fs.budgets[0].stopped_at;
	ck_assert(fs.budgets[0].b.spent);
	ck_assert_uint_gt(at, 1);
	ck_assert_uint_lt(at, AAAA_LINES / 10);
	ck_assert_uint_eq(fs.budgets[0].b.limited, at - 1);
	ck_assert_uint_eq(fs.budgets[1].stopped_at, at);
	ck_assert(!fs.budgets[2].b.spent);
	budget_warnings(&fs, got, sizeof(got));
	snprintf(want, sizeof(want),
		 "custom rule SLOW stopped at line %zu: its pattern used the %lu steps it may "
		 "take on one message (%zu lines hit the match limit); the rest of the message "
		 "was not checked against it\n"
		 "custom rule SLOW_MUST stopped at line %zu: its pattern used the %lu steps it "
		 "may take on one message (%zu lines hit the match limit); the rest of the "
		 "message was not checked against it\n",
		 at, PATTERN_BUDGET_STEPS, at - 1, at, PATTERN_BUDGET_STEPS, at - 1);
	ck_assert_str_eq(got, want);

	/* A second part of the same message: the rules stay stopped. */
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_eq(fs.n, 2);
	ck_assert_uint_eq(fs.nbudgets, 3);
	ck_assert_uint_eq(fs.budgets[0].b.limited, at - 1);
	ck_assert_uint_eq(fs.budgets[0].stopped_at, at);

	/* The next message has budgets of its own: the same stop, once more. */
	findings_release(&fs);
	rules_custom(&(struct rule_ctx){ .patch = &f.p, .settings = &s, .out = &fs });
	ck_assert_uint_eq(fs.n, 1);
	ck_assert_uint_eq(fs.nbudgets, 3);
	ck_assert_uint_eq(fs.budgets[0].stopped_at, at);
	findings_release(&fs);
	rule_settings_release(&s);
	unbuild(&f);
	buf_release(&b);
}
END_TEST

/* ------------------------------------- through the parser and config.c */

/* Lines of the findings of rule id, as "1 6 20". */
static void lines_for(const struct findings *fs, const char *id, char *out, size_t n)
{
	size_t off = 0;

	out[0] = '\0';
	for (size_t i = 0; i < fs->n && off < n; i++)
		if (!strcmp(fs->v[i].rule, id))
			off += (size_t)snprintf(out + off, n - off, "%s%zu", off ? " " : "",
						fs->v[i].line);
}

/*
 * mail/patch-reported-closes-fixes.eml, decoded text: 1-2 description, 4
 * Reported-by, 5 Closes, 6 Fixes (mentions "regulator"), 7 Signed-off-by,
 * 8 ---, 20 the removed line "- * @regulator: LED supply regulator pointer".
 */
static const struct {
	const char *id;
	const char *want;
} mail_cases[] = {
	{ "E2E_SUBJECT", "0" },
	{ "E2E_COMMIT", "1 6" },
	{ "E2E_TRAILERS", "5" },
	{ "E2E_TRAILER", "4" },
	{ "E2E_BODY", "1 6 20" },
	{ "E2E_DIFF", "20" },
	{ "E2E_MUST", "0" },
	{ "E2E_MUST_OK", "" },
};

START_TEST(test_real_mail)
{
	char *raw = th_read_data("mail/patch-reported-closes-fixes.eml", NULL);
	char path[4096], got[256];
	struct findings fs;
	struct config c;
	struct err e;

	snprintf(path, sizeof(path), "%s/config/config-custom-scopes.ini", TEST_DATA);
	config_init(&c);
	ck_assert_msg(config_load(&c, path, &e) == 0, "%s", e.msg);
	findings_init(&fs);
	th_check_mail(raw, &c.rules, &fs);
	lines_for(&fs, mail_cases[_i].id, got, sizeof(got));
	ck_assert_msg(!strcmp(got, mail_cases[_i].want), "%s: want \"%s\", got \"%s\"\n%s",
		      mail_cases[_i].id, mail_cases[_i].want, got, th_dump(&fs));
	findings_release(&fs);
	config_release(&c);
	free(raw);
}
END_TEST

START_TEST(test_real_mail_must_match_finding)
{
	char *raw = th_read_data("mail/patch-reported-closes-fixes.eml", NULL);
	char path[4096];
	struct findings fs;
	struct config c;
	struct err e;
	size_t i;

	snprintf(path, sizeof(path), "%s/config/config-custom-scopes.ini", TEST_DATA);
	config_init(&c);
	ck_assert_msg(config_load(&c, path, &e) == 0, "%s", e.msg);
	findings_init(&fs);
	th_check_mail(raw, &c.rules, &fs);
	for (i = 0; i < fs.n && strcmp(fs.v[i].rule, "E2E_MUST"); i++)
		;
	ck_assert_uint_lt(i, fs.n);
	ck_assert_int_eq(fs.v[i].severity, SEV_ERROR);
	ck_assert_str_eq(fs.v[i].message, "Patches here need a Tested-by: trailer.");
	ck_assert_str_eq(fs.v[i].text, "");
	ck_assert_str_eq(fs.v[i].doc, "");
	findings_release(&fs);
	config_release(&c);
	free(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rules_custom");
	TCase *tc = tcase_create("scopes");

	tcase_add_loop_test(tc, test_scopes, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, test_finding_fields);
	tcase_add_test(tc, test_subject_finding_text);
	tcase_add_test(tc, test_findings_are_capped);
	suite_add_tcase(s, tc);
	tc = tcase_create("budget");
	tcase_add_test(tc, test_limit_hit_is_reported);
	tcase_add_test(tc, test_budget_stops_one_rule);
	suite_add_tcase(s, tc);
	tc = tcase_create("mail");
	tcase_add_loop_test(tc, test_real_mail, 0, ARRAY_SIZE(mail_cases));
	tcase_add_test(tc, test_real_mail_must_match_finding);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
