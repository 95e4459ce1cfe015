/*
 * check_commitref.c - the pure parts of the git work: which commits a
 * message names (commitref.c), what the rules make of the repository's
 * answer (rules/commits.c, fed facts by hand), and what --fix plans
 * (fix.c).  Expected values were worked out by reading each case.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/commitref.h"
#include "cli/fix.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "testhelp.h"

#define SOB "Signed-off-by: Alice Example <alice@example.org>\n"
#define OID "0123456789abcdef0123456789abcdef01234567"
#define DIFF "---\n f | 1 +\n 1 file changed, 1 insertion(+)\n\n" \
	"diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n" \
	"@@ -1 +1,2 @@\n a\n+b\n"

/* A parsed patch mail around body; lines of its text count from 1 at body. */
struct mail {
	char *raw;
	struct message m;
	struct patch *p;
	size_t np;
};

static void mail_open(struct mail *x, const char *body)
{
	struct buf b;
	struct err e;

	buf_init(&b, 0);
	buf_printf(&b, "From: Alice Example <alice@example.org>\nSubject: [PATCH] leds: foo: bar\n"
		   "Message-ID: <1@example.org>\nContent-Type: text/plain; charset=UTF-8\n\n%s" DIFF,
		   body);
	x->raw = buf_detach(&b, NULL);
	message_init(&x->m);
	ck_assert_msg(message_parse(&x->m, x->raw, strlen(x->raw), &e) == 0, "parse: %s", e.msg);
	patch_parse(&x->m, &x->p, &x->np);
}

static void mail_close(struct mail *x)
{
	patches_free(x->p, x->np);
	message_release(&x->m);
	free(x->raw);
}

/* ---- commitref_find --------------------------------------------------------- */

static const struct {
	const char *body;
	const char *want;	/* "F|P id subject;" per reference, subject "-" when none */
} find_cases[] = {
	{ "Fix.\n\nFixes: 0123456789ab (\"leds: add foo\")\n" SOB, "F 0123456789ab leds: add foo;" },
	{ "Fix.\n\nfixes 0123456\n" SOB, "F 0123456 -;" },
	{ "Fixes decade-old bug.\n\n" SOB, "" },
	{ "Fix.\n\nFixes: (\"0123456789ab leds: add foo\")\n" SOB, "F 0123456789ab -;" },
	{ "As commit 0123456789ab (\"leds: add foo\") did.\n\n" SOB, "P 0123456789ab leds: add foo;" },
	{ "As commit 0123456789ab (\"leds: add\n foo\") did.\n\n" SOB, "P 0123456789ab leds: add foo;" },
	{ "See commit abcdef1 and commit 1234567890.\n\n" SOB, "P abcdef1 -;P 1234567890 -;" },
	{ "commit " OID " upstream.\n\nFix.\n\n" SOB, "" },
	{ "This reverts commit " OID ".\n\n" SOB, "" },
	{ "commit " OID "\n\nFix.\n\n" SOB, "" },	/* a quoted git log header */
	{ "Fix.\n\nFixes: 0123456789ab (\"a (\"b\") c\")\n" SOB,
	  "F 0123456789ab a (\"b\") c;" },
};

START_TEST(test_find)
{
	struct mail x;
	struct commitrefs r;
	struct buf got;

	mail_open(&x, find_cases[_i].body);
	commitrefs_init(&r);
	commitref_find(x.p[0].lines, x.p[0].nlines, x.p[0].block_start, COMMITREF_MAX_REFS, &r);
	buf_init(&got, 0);
	for (size_t i = 0; i < r.n; i++)
		buf_printf(&got, "%c %s %s;", r.v[i].kind == COMMITREF_FIXES ? 'F' : 'P', r.v[i].id,
			   r.v[i].subject ? r.v[i].subject : "-");
	ck_assert_msg(!strcmp(got.data ? got.data : "", find_cases[_i].want), "case %d: got \"%s\"",
		      _i, got.data ? got.data : "");
	buf_release(&got);
	commitrefs_release(&r);
	mail_close(&x);
}
END_TEST

START_TEST(test_same_subject)
{
	ck_assert(commitref_same_subject("a  b", 4, " a b ", 5));
	ck_assert(commitref_same_subject("a\tb", 3, "a b", 3));
	ck_assert(!commitref_same_subject("a b", 3, "A b", 3));
	ck_assert(!commitref_same_subject("a b", 3, "a bc", 4));
	ck_assert(!commitref_same_subject("ab", 2, "a b", 3));
}
END_TEST

/* ---- the rules with facts -------------------------------------------------------- */

/* Facts: id -> status and subject. */
static void fact(struct commit_facts *f, const char *id, enum commit_status st, const char *subj)
{
	struct commit_fact *x = commit_facts_add(f, id, strlen(id));

	x->status = st;
	snprintf(x->oid, sizeof(x->oid), "%s", OID);
	free(x->subject);
	x->subject = xstrdup(subj);
	if (st == COMMIT_NOT_COMMIT)
		snprintf(x->type, sizeof(x->type), "blob");
}

static void run_facts(const char *body, const struct commit_facts *cf, struct findings *fs)
{
	struct rule_settings s;
	struct mail x;

	mail_open(&x, body);
	rule_settings_init(&s);
	findings_init(fs);
	rules_run_facts(&x.p[0], &s, NULL, cf, fs);
	rule_settings_release(&s);
	mail_close(&x);
}

static const struct finding *only(const struct findings *fs, const char *rule)
{
	ck_assert_msg(th_count(fs, rule) == 1, "%s: %s", rule, th_dump(fs));
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, rule))
			return &fs->v[i];
	return NULL;
}

START_TEST(test_rules_unknown)
{
	struct commit_facts cf;
	struct findings fs;

	commit_facts_init(&cf);
	fact(&cf, "0123456789ab", COMMIT_MISSING, "");
	run_facts("Fix.\n\nFixes: 0123456789ab (\"leds: add foo\")\n" SOB, &cf, &fs);
	ck_assert_uint_eq(only(&fs, "UNKNOWN_COMMIT_ID")->line, 3);
	ck_assert_uint_eq(th_count(&fs, "BAD_FIXES_TAG"), 0);
	findings_release(&fs);
	/* outside a repository (no facts) nothing is guessed */
	run_facts("Fix.\n\nFixes: 0123456789ab (\"leds: add foo\")\n" SOB, NULL, &fs);
	ck_assert_uint_eq(th_count(&fs, "UNKNOWN_COMMIT_ID"), 0);
	findings_release(&fs);
	commit_facts_release(&cf);
}
END_TEST

START_TEST(test_rules_not_commit_and_unsettled)
{
	struct commit_facts cf;
	struct findings fs;

	commit_facts_init(&cf);
	fact(&cf, "0123456789ab", COMMIT_NOT_COMMIT, "");
	fact(&cf, "abcdef012345", COMMIT_UNSETTLED, "");
	run_facts("As commit 0123456789ab (\"x\") and commit abcdef012345 (\"y\") did.\n\n" SOB,
		  &cf, &fs);
	ck_assert_ptr_nonnull(strstr(only(&fs, "UNKNOWN_COMMIT_ID")->message, "names a blob"));
	findings_release(&fs);
	commit_facts_release(&cf);
}
END_TEST

START_TEST(test_rules_subject)
{
	struct commit_facts cf;
	struct findings fs;

	commit_facts_init(&cf);
	fact(&cf, "0123456789ab", COMMIT_FOUND, "leds: add foo");
	fact(&cf, "0123456", COMMIT_FOUND, "leds: add foo");
	run_facts("Fix.\n\nFixes: 0123456789ab (\"leds: add  foo\")\n" SOB, &cf, &fs);
	ck_assert_uint_eq(fs.n, 0);	/* white space runs compare as one */
	findings_release(&fs);
	run_facts("Fix.\n\nFixes: 0123456789ab (\"leds: add bar\")\n" SOB, &cf, &fs);
	ck_assert_str_eq(only(&fs, "BAD_FIXES_TAG")->message,
			 "The subject given for commit 0123456789ab is not that commit's; it reads: "
			 "Fixes: 0123456789ab (\"leds: add foo\")");
	findings_release(&fs);
	run_facts("Fix.\n\nFixes: 0123456\n" SOB, &cf, &fs);
	ck_assert_ptr_nonnull(strstr(only(&fs, "BAD_FIXES_TAG")->message,
				     "too short; please use at least 12 characters of the SHA-1: "
				     "Fixes: <id> (\"<subject>\"). In this repository: "
				     "Fixes: 0123456789ab (\"leds: add foo\")"));
	findings_release(&fs);
	run_facts("As commit 0123456789ab (\"leds: add bar\") did.\n\n" SOB, &cf, &fs);
	ck_assert_ptr_nonnull(strstr(only(&fs, "GIT_COMMIT_ID")->message,
				     "it reads: commit 0123456789ab (\"leds: add foo\")"));
	findings_release(&fs);
	commit_facts_release(&cf);
}
END_TEST

/* ---- fix_plan ----------------------------------------------------------------- */

static const struct {
	const char *body;
	bool with_facts;	/* 0123456 is "leds: add foo" */
	const char *want;	/* "LINE OP text;" per edit, R/D/A, text "\n" as "|" */
} fix_cases[] = {
	{ "Fix.\n\n" SOB, false, "" },
	{ "Fix.\n\nsigned-off-by :  Alice <a@b.org>\n", false, "3 R Signed-off-by: Alice <a@b.org>;" },
	{ "Fix.\n\nReported-and-tested-by: Bob <b@b.org>\n" SOB, false,
	  "3 R Reported-by: Bob <b@b.org>|Tested-by: Bob <b@b.org>;" },
	{ "Fix.\n\nCc: Stable <stable@vger.kernel.org>\n" SOB, false,
	  "3 R Cc: stable@vger.kernel.org # Stable;" },
	{ "Fix.\n\nCc: \"S T\" <stable@kernel.org> # 6.1+\n" SOB, false,
	  "3 R Cc: stable@kernel.org # 6.1+ (S T);" },
	{ "Fix.\n\nCc: Bob <bob@example.org>\n" SOB, false, "" },
	{ "Fix.\n\nFixes: 0123456 (\"wrong\")\n" SOB, false, "" },
	{ "Fix.\n\nFixes: 0123456 (\"wrong\")\n" SOB, true,
	  "3 R Fixes: 0123456789ab (\"leds: add foo\");" },
	{ "Fix.\n\nfixes: 0123456\n" SOB, true, "3 R Fixes: 0123456789ab (\"leds: add foo\");" },
	{ "Fix.\n\nFixes: (\"0123456 leds: add foo\")\n" SOB, true,
	  "3 R Fixes: 0123456789ab (\"leds: add foo\");" },
	{ "Fix.\n\nFixes: 0123456 (\"leds: add\n  foo\")\n" SOB, true, "" },	/* wrapped: the human */
	{ "Fix.\n\nv2: rebased\nv1: first\n\n" SOB, false, "3 D;4 D;5 D;7 A v2: rebased|v1: first|;" },
	/* in a paragraph that is not only notes, only from the note on */
	{ "Fix.\nChanges in v2:\n- this\n\n" SOB, false, "2 D;3 D;4 D;6 A Changes in v2:|- this|;" },
};

START_TEST(test_fix_plan)
{
	struct commit_facts cf;
	struct fix_edits e;
	struct mail x;
	struct buf got;

	commit_facts_init(&cf);
	fact(&cf, "0123456", COMMIT_FOUND, "leds: add foo");
	mail_open(&x, fix_cases[_i].body);
	fix_edits_init(&e);
	fix_plan(&x.p[0], fix_cases[_i].with_facts ? &cf : NULL, &e);
	buf_init(&got, 0);
	for (size_t i = 0; i < e.n; i++) {
		buf_printf(&got, "%zu %c", e.v[i].line, "RDA"[e.v[i].op]);
		if (e.v[i].text) {
			buf_addch(&got, ' ');
			for (const char *c = e.v[i].text; *c; c++)
				buf_addch(&got, *c == '\n' ? '|' : *c);
		}
		buf_addch(&got, ';');
	}
	ck_assert_msg(!strcmp(got.data ? got.data : "", fix_cases[_i].want), "case %d: got \"%s\"",
		      _i, got.data ? got.data : "");
	buf_release(&got);
	fix_edits_release(&e);
	mail_close(&x);
	commit_facts_release(&cf);
}
END_TEST

START_TEST(test_fix_write)
{
	static const char in[] = "a\r\nb\r\nc\r\n";
	struct fix_edits e;
	char out[128] = "";
	FILE *fi = fmemopen((void *)in, sizeof(in) - 1, "r");
	FILE *fo = fmemopen(out, sizeof(out), "w");

	fix_edits_init(&e);
	ARRAY_GROW(e.v, e.alloc, 3);
	e.v[e.n++] = (struct fix_edit){ 3, FIX_APPEND, xstrdup("n1\n") };
	e.v[e.n++] = (struct fix_edit){ 1, FIX_REPLACE, xstrdup("x\ny") };
	e.v[e.n++] = (struct fix_edit){ 2, FIX_DELETE, NULL };
	ck_assert_int_eq(fix_write(fi, fo, &e), 0);
	fclose(fo);
	fclose(fi);
	ck_assert_str_eq(out, "x\r\ny\r\nc\r\nn1\r\n\r\n");
	fix_edits_release(&e);
}
END_TEST

/* Nothing to fix (a mail from standard input is copied all the same): the
 * copy is the input; the empty edit list was qsort(NULL, 0), undefined
 * (found by fuzz/run's --fix check). */
START_TEST(test_fix_write_nothing)
{
	static const char in[] = "a\nb\n";
	struct fix_edits e;
	char out[64] = "";
	FILE *fi = fmemopen((void *)in, sizeof(in) - 1, "r");
	FILE *fo = fmemopen(out, sizeof(out), "w");

	fix_edits_init(&e);
	ck_assert_int_eq(fix_write(fi, fo, &e), 0);
	fclose(fo);
	fclose(fi);
	ck_assert_str_eq(out, in);
	fix_edits_release(&e);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("commitref");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_find, 0, (int)ARRAY_SIZE(find_cases));
	tcase_add_test(tc, test_same_subject);
	tcase_add_test(tc, test_rules_unknown);
	tcase_add_test(tc, test_rules_not_commit_and_unsettled);
	tcase_add_test(tc, test_rules_subject);
	tcase_add_loop_test(tc, test_fix_plan, 0, (int)ARRAY_SIZE(fix_cases));
	tcase_add_test(tc, test_fix_write);
	tcase_add_test(tc, test_fix_write_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return th_run_suite(suite());
}
