#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "rules/rules.h"
#include "testhelp.h"

#define DESC "The bar was computed from the wrong register, so the LED stayed off.\n" \
	     "Read the right one.\n\n"
#define SOB "Signed-off-by: Ann Author <ann@example.org>\n"
#define DIFF "diff --git a/drivers/leds/leds-foo.c b/drivers/leds/leds-foo.c\n" \
	     "--- a/drivers/leds/leds-foo.c\n" \
	     "+++ b/drivers/leds/leds-foo.c\n" \
	     "@@ -1,2 +1,3 @@\n" \
	     " #include <linux/leds.h>\n" \
	     "+#include <linux/module.h>\n" \
	     " static int foo;\n"

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define PASTED "From " SHA " Mon Sep 17 00:00:00 2001\n" \
	       "From: Ann Author <ann@example.org>\n" \
	       "Date: Sun, 5 Jan 2025 10:00:00 +0000\n" \
	       "Subject: [PATCH] leds: foo: fix the bar\n\n"

struct mail {
	const char *subject;	/* NULL: "[PATCH] leds: foo: fix the bar" */
	const char *text;	/* the commit message; NULL: DESC SOB */
	const char *after;	/* after the --- line; NULL: DIFF */
};

static char *build(const struct mail *m)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "From: Ann Author <ann@example.org>\n"
		   "To: linux-leds@vger.kernel.org\n"
		   "Subject: %s\n"
		   "Date: Sun, 05 Jan 2025 10:10:10 +0000\n"
		   "Message-ID: <20250105101010.4242-1-ann@example.org>\n"
		   "MIME-Version: 1.0\n"
		   "Content-Type: text/plain; charset=utf-8\n"
		   "\n%s---\n%s",
		   m->subject ? m->subject : "[PATCH] leds: foo: fix the bar",
		   m->text ? m->text : DESC SOB, m->after ? m->after : DIFF);
	return buf_detach(&b, NULL);
}

static void check_built(const struct mail *m, struct findings *fs)
{
	char *raw = build(m);

	findings_init(fs);
	th_check_mail(raw, NULL, fs);
	free(raw);
}

static const struct {
	const char *name;
	struct mail m;
	const char *rule;
	size_t count;
} cases[] = {
	/* COMMIT_MESSAGE */
	{ "only trailers", { .text = SOB "Cc: Bob <bob@example.org>\n" }, "COMMIT_MESSAGE", 1 },
	{ "nothing at all", { .text = "" }, "COMMIT_MESSAGE", 1 },
	{ "one line of description", { .text = "Read the right register.\n\n" SOB }, "COMMIT_MESSAGE", 0 },
	{ "description, no trailer block", { .text = "Read the right register.\n" }, "COMMIT_MESSAGE", 0 },
	{ "the default mail", { .text = NULL }, "COMMIT_MESSAGE", 0 },
	/* a paragraph of tags above the trailer block is no description */
	{ "a lone Assisted-by: paragraph", { .text = "Assisted-by: Agent:model-1\n\n" SOB },
	  "COMMIT_MESSAGE", 1 },
	{ "a Fixes: paragraph", { .text = "Fixes: 0123456789ab (\"leds: foo: add bar\")\n"
	  "Reported-by: Bob <bob@example.org>\n\n" SOB }, "COMMIT_MESSAGE", 1 },
	{ "a Note: paragraph is prose", { .text = "Note: the bar needs this.\n\n" SOB },
	  "COMMIT_MESSAGE", 0 },
	{ "a tag, then prose", { .text = "Assisted-by: Agent:model-1\nRead the right register.\n\n"
	  SOB }, "COMMIT_MESSAGE", 0 },
	{ "an RFC with only trailers", { .subject = "[RFC PATCH 2/3] leds: foo: fix the bar",
	  .text = SOB }, "COMMIT_MESSAGE", 0 },
	{ "an RFC with nothing", { .subject = "[PATCH RFC] leds: foo: fix the bar", .text = "" },
	  "COMMIT_MESSAGE", 0 },
	{ "a v2 with only trailers", { .subject = "[PATCH v2] leds: foo: fix the bar", .text = SOB },
	  "COMMIT_MESSAGE", 1 },

	/* COMMIT_LOG_VERSIONING: one finding for a block of notes */
	{ "v2:", { .text = DESC "v2: read the register once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "V3 : and more notes", { .text = DESC "V3 : rebase\nv2: read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "v1 -> v2", { .text = DESC "v1 -> v2\n - read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "v1->v2:", { .text = DESC "v1->v2: read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "Changes in v2", { .text = DESC "Changes in v2:\n- read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "Changes since v1", { .text = DESC "Changes since v1\n- read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "changes from v3", { .text = DESC "changes from v3: none\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "Changelog:", { .text = DESC "Changelog:\n- read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "- v2: as a bullet", { .text = DESC "- v2: read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 1 },
	{ "IPv4: is prose", { .text = DESC "IPv4: the address is kept.\n\n" SOB }, "COMMIT_LOG_VERSIONING", 0 },
	{ "v4l2: is prose", { .text = DESC "v4l2: the buffer is kept.\n\n" SOB }, "COMMIT_LOG_VERSIONING", 0 },
	{ "v2 of the spec", { .text = DESC "v2 of the spec says so.\n\n" SOB }, "COMMIT_LOG_VERSIONING", 0 },
	{ "Changelogs are", { .text = DESC "Changelogs are nice.\n\n" SOB }, "COMMIT_LOG_VERSIONING", 0 },
	{ "notes below --- are right", { .text = DESC SOB, .after = "v2: read it once\n\n" DIFF },
	  "COMMIT_LOG_VERSIONING", 0 },

	/* BAD_COMMIT_SEPARATOR */
	{ "--- heading ---", { .text = DESC "--- Pattern sequence not stopped ---\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 1 },
	{ "--- see below", { .text = DESC "--- see below\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 1 },
	/* git keeps longer runs of dashes (mailinfo.c patchbreak()) */
	{ "RST underline", { .text = "Notes\n-----\n\n" DESC SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "two underlines", { .text = "One\n----\nTwo\n-------\n\n" DESC SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "ASCII art", { .text = DESC "  +-------+\n----------+          +--------------+\n\n" SOB },
	  "BAD_COMMIT_SEPARATOR", 0 },
	{ "---text", { .text = DESC "---text\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "--- and a tab", { .text = DESC "---\ttext\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "-- and - are fine", { .text = DESC "-- see below\n- item\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "indented --- is fine", { .text = DESC "  ---------\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 0 },
	{ "a quoted diff header is no underline", {
		.text = DESC "Like this:\n--- a/x.c\n+++ b/x.c\n\n" SOB }, "BAD_COMMIT_SEPARATOR", 0 },

	/* COMMIT_COMMENT_SYMBOL */
	{ "#include in the prose", { .text = "Add the missing\n#include <linux/module.h>\n\n" SOB },
	  "COMMIT_COMMENT_SYMBOL", 1 },
	/* a run of # lines is one finding */
	{ "# lines in the prose", { .text = DESC "# first\n# second\n\n" SOB }, "COMMIT_COMMENT_SYMBOL", 1 },
	{ "two runs of # lines", { .text = DESC "# Conflicts:\n#\tdrivers/leds/leds-foo.c\n\n"
	  "More prose.\n# again\n\n" SOB }, "COMMIT_COMMENT_SYMBOL", 2 },
	/* below the block, as git's trailer code sets them aside: leftovers too */
	{ "# Conflicts: below the trailer block", { .text = DESC SOB "\n# Conflicts:\n"
	  "#\tdrivers/leds/leds-foo.c\n" }, "COMMIT_COMMENT_SYMBOL", 1 },
	{ "# Conflicts: right below the trailer block", { .text = DESC SOB "# Conflicts:\n"
	  "#\tdrivers/leds/leds-foo.c\n" }, "COMMIT_COMMENT_SYMBOL", 1 },
	{ "# Conflicts: below an old Conflicts: list", { .text = DESC SOB "\nConflicts:\n"
	  "\tdrivers/leds/leds-foo.c\n\n# Conflicts:\n#\tdrivers/leds/leds-foo.c\n" },
	  "COMMIT_COMMENT_SYMBOL", 1 },
	{ "# comment in the trailer block", { .text = DESC "Acked-by: Bob <bob@example.org>\n# for the DT part\n" SOB },
	  "COMMIT_COMMENT_SYMBOL", 0 },
	{ "indented #define", { .text = DESC "  #define FOO 1\n\n" SOB }, "COMMIT_COMMENT_SYMBOL", 0 },
	{ "# in the diff", { .text = DESC SOB, .after = DIFF "+# comment\n" }, "COMMIT_COMMENT_SYMBOL", 0 },

	/* GERRIT_CHANGE_ID */
	{ "Change-Id: trailer", { .text = DESC "Change-Id: I0123456789abcdef0123456789abcdef01234567\n" SOB },
	  "GERRIT_CHANGE_ID", 1 },
	{ "change-id: in the prose", { .text = "change-id: I0123456789abcdef\n\n" DESC SOB }, "GERRIT_CHANGE_ID", 1 },
	{ "b4's change-id: footer below ---", { .text = DESC SOB,
		.after = DIFF "\n---\nbase-commit: 0123456789abcdef0123456789abcdef01234567\nchange-id: 20250105-foo-0123456789ab\n" },
	  "GERRIT_CHANGE_ID", 0 },

	/* EMAIL_SUBJECT */
	{ "fix checkpatch warnings", { .subject = "[PATCH] staging: foo: fix checkpatch warnings" }, "EMAIL_SUBJECT", 1 },
	{ "Fix sparse warnings", { .subject = "[PATCH v2 3/5] leds: foo: Fix sparse warnings" }, "EMAIL_SUBJECT", 1 },
	{ "make sparse happy", { .subject = "[PATCH] leds: foo: make sparse happy" }, "EMAIL_SUBJECT", 1 },
	{ "smatch error", { .subject = "[PATCH] leds: foo: silence a smatch error" }, "EMAIL_SUBJECT", 1 },
	{ "coccinelle cleanups", { .subject = "[PATCH] leds: apply coccinelle cleanups" }, "EMAIL_SUBJECT", 1 },
	{ "checkpatch.pl issues", { .subject = "[PATCH] leds: foo: fix checkpatch.pl issues" }, "EMAIL_SUBJECT", 1 },
	{ "a patch to checkpatch", { .subject = "[PATCH] checkpatch: warn about Link: to v1" }, "EMAIL_SUBJECT", 0 },
	{ "a patch to scripts/checkpatch.pl", { .subject = "[PATCH] scripts/checkpatch.pl: fix a typo" }, "EMAIL_SUBJECT", 0 },
	{ "sparse files", { .subject = "[PATCH] btrfs: fix sparse file handling" }, "EMAIL_SUBJECT", 0 },
	{ "mm/sparse", { .subject = "[PATCH] mm/sparse: fix a leak" }, "EMAIL_SUBJECT", 0 },
	/* A real subject (linux-leds corpus): a patch to the coccinelle scripts. */
	{ "Coccinelle: prefix", { .subject = "[PATCH 01/61] Coccinelle: Prefer IS_ERR_OR_NULL over manual NULL  check" },
	  "EMAIL_SUBJECT", 0 },
	{ "tool name inside a word", { .subject = "[PATCH] leds: foo: drop unsmatched checkpatched bits" },
	  "EMAIL_SUBJECT", 0 },

	/* PASTED_FORMAT_PATCH */
	{ "pasted format-patch file", { .text = PASTED DESC SOB }, "PASTED_FORMAT_PATCH", 1 },
	{ "pasted after a greeting", { .text = "Hi,\n\n" PASTED DESC SOB }, "PASTED_FORMAT_PATCH", 1 },
	{ "pasted in a reply", { .subject = "Re: [PATCH] leds: foo: fix the bar", .text = PASTED DESC SOB },
	  "PASTED_FORMAT_PATCH", 0 },
	{ "another mbox line", { .text = "From " SHA " Thu Jan  1 00:00:00 1970\n"
	  "From: Ann Author <ann@example.org>\nSubject: [PATCH] leds: foo: fix the bar\n\n" DESC SOB },
	  "PASTED_FORMAT_PATCH", 0 },
	{ "sent as it should be", { .text = NULL }, "PASTED_FORMAT_PATCH", 0 },

	/* PLACEHOLDER_USE in a patch */
	{ "blurb in a patch", { .text = "*** BLURB HERE ***\n\n" SOB }, "PLACEHOLDER_USE", 1 },
	{ "subject placeholder in a patch", { .subject = "[PATCH] *** SUBJECT HERE ***" }, "PLACEHOLDER_USE", 1 },
	{ "no placeholder", { .text = NULL }, "PLACEHOLDER_USE", 0 },
};

START_TEST(test_case)
{
	struct findings fs;

	check_built(&cases[_i].m, &fs);
	ck_assert_msg(th_count(&fs, cases[_i].rule) == cases[_i].count, "%s: want %zu %s, got:\n%s",
		      cases[_i].name, cases[_i].count, cases[_i].rule, th_dump(&fs));
	findings_release(&fs);
}
END_TEST

static const char *const my_rules[] = {
	"COMMIT_MESSAGE", "COMMIT_LOG_VERSIONING", "BAD_COMMIT_SEPARATOR", "COMMIT_COMMENT_SYMBOL",
	"GERRIT_CHANGE_ID", "EMAIL_SUBJECT", "PLACEHOLDER_USE", "PASTED_FORMAT_PATCH",
	"LINK_TO_SELF", "LINK_TO_PREVIOUS_VERSION", "LINK_TO_OWN_SERIES", "LINK_SHOULD_BE_CLOSES",
	"PROVENANCE_LINK", "COMMIT_LOG_WRONG_LINK", "COMMIT_LOG_USE_LINK", "PREFER_LORE_ARCHIVE",
};

static size_t my_findings(const struct findings *fs)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(my_rules); i++)
		n += th_count(fs, my_rules[i]);
	return n;
}

static const struct finding *first_of(const struct findings *fs, const char *rule)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, rule))
			return &fs->v[i];
	ck_abort_msg("no %s in:\n%s", rule, th_dump(fs));
	return NULL;
}

START_TEST(test_clean_mail)
{
	struct mail m = { 0 };
	struct findings fs;

	check_built(&m, &fs);
	ck_assert_msg(my_findings(&fs) == 0, "%s", th_dump(&fs));
	findings_release(&fs);
}
END_TEST

START_TEST(test_lines_and_text)
{
	static const struct {
		struct mail m;
		const char *rule;
		size_t line;
		const char *text;
	} t[] = {
		{ { .text = DESC "v2: read it once\n\n" SOB }, "COMMIT_LOG_VERSIONING", 4, "v2: read it once" },
		{ { .text = "Notes\n--- see below\n\n" DESC SOB }, "BAD_COMMIT_SEPARATOR", 2, "--- see below" },
		{ { .text = "Add the missing\n#include <x.h>\n\n" SOB }, "COMMIT_COMMENT_SYMBOL", 2, "#include <x.h>" },
		{ { .text = DESC "Change-Id: I01234567\n" SOB }, "GERRIT_CHANGE_ID", 4, "Change-Id: I01234567" },
		{ { .text = "Hi,\n\n" PASTED DESC SOB }, "PASTED_FORMAT_PATCH", 3,
		  "From " SHA " Mon Sep 17 00:00:00 2001" },
		/* No description: the finding points at the trailer block. */
		{ { .text = SOB }, "COMMIT_MESSAGE", 1, "Signed-off-by: Ann Author <ann@example.org>" },
		/* The subject is the mail as a whole: line 0, the subject as text. */
		{ { .subject = "[PATCH] foo: fix checkpatch warnings" }, "EMAIL_SUBJECT", 0, "" },
		{ { .subject = "[PATCH] *** SUBJECT HERE ***" }, "PLACEHOLDER_USE", 0, "[PATCH] *** SUBJECT HERE ***" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct finding *f;
		struct findings fs;

		check_built(&t[i].m, &fs);
		f = first_of(&fs, t[i].rule);
		ck_assert_msg(f->line == t[i].line, "%s: line %zu, want %zu", t[i].rule, f->line, t[i].line);
		ck_assert_str_eq(f->text, t[i].text);
		ck_assert_msg(f->message && strlen(f->message) > 20, "%s: no message", t[i].rule);
		findings_release(&fs);
	}
}
END_TEST

START_TEST(test_message_names_tool)
{
	struct mail m = { .subject = "[PATCH] leds: foo: fix smatch warning" };
	struct findings fs;

	check_built(&m, &fs);
	ck_assert_ptr_nonnull(strstr(first_of(&fs, "EMAIL_SUBJECT")->message, "smatch"));
	ck_assert_int_eq(first_of(&fs, "EMAIL_SUBJECT")->severity, SEV_CHECK);
	findings_release(&fs);
}
END_TEST

/* The words of a reply: what is wrong and the fix, in one sentence. */
START_TEST(test_message_words)
{
	static const struct {
		struct mail m;
		const char *rule, *msg;
	} w[] = {
		{ { .text = SOB }, "COMMIT_MESSAGE",
		  "The commit message holds only tags; say what the patch changes and why." },
		{ { .subject = "[PATCH] leds: tests: clarify the test It is a good practice to use "
			       "a fresh instance when testing the name conflict rather than "
			       "re-registering", .text = SOB }, "COMMIT_MESSAGE",
		  "The commit message holds only tags, and the 133-character subject looks like the "
		  "title and the description run together: put a blank line after the title." },
		{ { .text = "" }, "COMMIT_MESSAGE",	/* no tags either: not "only tags" */
		  "The commit message is empty below the subject; say what the patch changes and "
		  "why." },
		{ { .text = DESC "v2: read the register once\n\n" SOB }, "COMMIT_LOG_VERSIONING",
		  "Move version notes below the --- line, where git am drops them." },
		{ { .text = DESC "Table\n--- here\n\n" SOB }, "BAD_COMMIT_SEPARATOR",
		  "git am takes a line starting with \"--- \" for the start of the diff and drops "
		  "the rest of the commit message; please reword or indent this line." },
		{ { .text = "Add the missing\n#include <x.h>\n\n" SOB }, "COMMIT_COMMENT_SYMBOL",
		  "git drops commit-message lines that start with #, so this line would vanish: "
		  "delete it, or indent it if it is meant to stay." },
		{ { .text = DESC "# Conflicts:\n#\tdrivers/leds/leds-foo.c\n#\tdrivers/leds/leds.h\n\n"
		    SOB }, "COMMIT_COMMENT_SYMBOL",
		  "git drops commit-message lines that start with #, so this line and the 2 after "
		  "it would vanish: delete them, or indent them if they are meant to stay." },
		{ { .text = PASTED DESC SOB }, "PASTED_FORMAT_PATCH",
		  "This is a git format-patch file pasted into a mail: please send the patch with "
		  "git send-email (or b4) instead." },
	};

	for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
		struct findings fs;
		const struct finding *f;

		check_built(&w[i].m, &fs);
		f = first_of(&fs, w[i].rule);
		ck_assert_msg(f != NULL, "%s:\n%s", w[i].rule, th_dump(&fs));
		ck_assert_str_eq(f->message, w[i].msg);
		findings_release(&fs);
	}
}
END_TEST

/* git format-patch --cover-letter, sent as written. */
static const char cover_template[] =
	"From: Ann Author <ann@example.org>\n"
	"To: linux-leds@vger.kernel.org\n"
	"Subject: [PATCH 0/2] %s\n"
	"Message-ID: <20250105101010.4242-0-ann@example.org>\n"
	"\n"
	"%s\n"
	"\n"
	"Ann Author (2):\n"
	"  leds: foo: fix the bar\n"
	"  leds: foo: fix the baz\n"
	"\n"
	" drivers/leds/leds-foo.c | 4 ++--\n"
	" 1 file changed, 2 insertions(+), 2 deletions(-)\n"
	"\n"
	"-- \n"
	"2.47.1\n";

static void check_cover(const char *subject, const char *blurb, struct findings *fs)
{
	char raw[2048];

	snprintf(raw, sizeof(raw), cover_template, subject, blurb);
	findings_init(fs);
	th_check_mail(raw, NULL, fs);
}

START_TEST(test_cover_placeholders)
{
	struct findings fs;
	const struct finding *blurb = NULL;

	check_cover("*** SUBJECT HERE ***", "*** BLURB HERE ***", &fs);
	ck_assert_msg(th_count(&fs, "PLACEHOLDER_USE") == 2, "%s", th_dump(&fs));
	for (size_t i = 0; i < fs.n; i++)
		if (!strcmp(fs.v[i].rule, "PLACEHOLDER_USE") && fs.v[i].line)
			blurb = &fs.v[i];
	ck_assert_ptr_nonnull(blurb);
	ck_assert_uint_eq(blurb->line, 1);
	ck_assert_str_eq(blurb->text, "*** BLURB HERE ***");
	ck_assert_int_eq(blurb->severity, SEV_ERROR);
	findings_release(&fs);

	check_cover("leds: foo: two fixes", "*** BLURB HERE ***", &fs);
	ck_assert_uint_eq(th_count(&fs, "PLACEHOLDER_USE"), 1);
	findings_release(&fs);

	check_cover("leds: foo: two fixes", "Two fixes for the foo driver.", &fs);
	ck_assert_uint_eq(th_count(&fs, "PLACEHOLDER_USE"), 0);
	findings_release(&fs);
}
END_TEST

/* A cover letter is no commit; of this family only its subject is read. */
START_TEST(test_cover_not_a_commit)
{
	struct findings fs;

	check_cover("leds: foo: fix checkpatch warnings", "v2: rebased\n# note\n-----\nChange-Id: I0123", &fs);
	ck_assert_msg(th_count(&fs, "EMAIL_SUBJECT") == 1, "%s", th_dump(&fs));
	ck_assert_msg(my_findings(&fs) == 1, "%s", th_dump(&fs));
	findings_release(&fs);
}
END_TEST

/*
 * A real v5 (linux-leds corpus, trimmed): the author kept his v2..v5 notes
 * above the --- line, from line 11 on.  Its Link: points at a message that
 * is not part of this series: no link finding.
 */
START_TEST(test_real_version_notes)
{
	char *raw = th_read_data("rules/commitlog-version-notes-above-separator.eml", NULL);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "COMMIT_LOG_VERSIONING") == 1, "%s", th_dump(&fs));
	ck_assert_uint_eq(first_of(&fs, "COMMIT_LOG_VERSIONING")->line, 11);
	ck_assert_str_eq(first_of(&fs, "COMMIT_LOG_VERSIONING")->text,
			 "v2: Integrated Armins feedback and fixed kernel test robot warnings.");
	ck_assert_msg(my_findings(&fs) == 1, "%s", th_dump(&fs));
	findings_release(&fs);
	free(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rules_commitlog");
	TCase *tc = tcase_create("cases");

	tcase_add_loop_test(tc, test_case, 0, (int)ARRAY_SIZE(cases));
	tcase_add_test(tc, test_clean_mail);
	tcase_add_test(tc, test_lines_and_text);
	tcase_add_test(tc, test_message_names_tool);
	tcase_add_test(tc, test_message_words);
	tcase_add_test(tc, test_cover_placeholders);
	tcase_add_test(tc, test_cover_not_a_commit);
	tcase_add_test(tc, test_real_version_notes);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
