/*
 * check_rules_signoff.c - tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP: MISSING_SIGN_OFF,
 * NO_AUTHOR_SIGN_OFF, FROM_SIGN_OFF_MISMATCH, BAD_FROM_ADDRESS, BAD_SIGN_OFF,
 * SUBMITTER_SIGN_OFF.
 *
 * Each case is a commit message put into a whole patch mail; the expected
 * count (and line, counted from the first body line) was worked out by
 * reading the case.  MISSING_SIGN_OFF points at the last line of the commit
 * message that is not blank.  Cases marked "unlike checkpatch" would come out
 * differently under checkpatch.pl 6.12.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/mailmap.h"
#include "rules/rules.h"
#include "testhelp.h"

#define ALICE "Alice Example <alice@example.org>"
#define BOB "Bob Builder <bob@example.org>"
#define SOB_ALICE "Signed-off-by: " ALICE "\n"
#define CAROL "Carol Coder <carol@example.com>"
#define FROM_CAROL "From: " CAROL "\n\n"
#define SOB_CAROL "Signed-off-by: " CAROL "\n"
#define DESC "Make the foo driver do bar.\n\n"

#define DIFF "---\n drivers/leds/foo.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n" \
	"diff --git a/drivers/leds/foo.c b/drivers/leds/foo.c\n" \
	"index 1111111..2222222 100644\n--- a/drivers/leds/foo.c\n+++ b/drivers/leds/foo.c\n" \
	"@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int c;\n int d;\n"

#define ANY_LINE ((long)-1)

struct mail_case {
	const char *name;
	const char *from;	/* header From:; NULL = ALICE */
	const char *body;	/* text before DIFF (or the whole text when it has its own) */
	const char *rule;
	size_t count;		/* findings of rule */
	long line;		/* line of the first one (0 = the mail as a whole), or ANY_LINE */
	const char *msg_has;	/* substring of its message, or NULL */
};

/* A patch mail around body; extra headers go before the body (a
 * Message-ID: among them replaces the default one). */
static char *make_mail(const char *from, const char *extra, const char *subject,
		       const char *body, bool diff)
{
	struct buf b;
	bool own_id = extra && strstr(extra, "Message-ID:");

	buf_init(&b, 0);
	buf_printf(&b, "From: %s\nTo: linux-leds@vger.kernel.org\nSubject: %s\n%s"
		   "Date: Wed, 1 Jan 2025 10:00:00 +0000\nMIME-Version: 1.0\n"
		   "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n%s\n%s%s",
		   from ? from : ALICE, subject ? subject : "[PATCH] leds: foo: do bar",
		   own_id ? "" : "Message-ID: <20250101100000.1-1@example.org>\n",
		   extra ? extra : "", body, diff ? DIFF : "");
	return buf_detach(&b, NULL);
}

static const struct finding *first_of(const struct findings *fs, const char *rule)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, rule))
			return &fs->v[i];
	return NULL;
}

static void check_case(const struct mail_case *c, const char *raw, const struct rule_settings *s)
{
	struct findings fs;
	const struct finding *f;

	findings_init(&fs);
	th_check_mail(raw, s, &fs);
	ck_assert_msg(th_count(&fs, c->rule) == c->count, "%s: %s expected %zu, got:\n%s",
		      c->name, c->rule, c->count, th_dump(&fs));
	f = first_of(&fs, c->rule);
	if (f && c->line != ANY_LINE)
		ck_assert_msg((long)f->line == c->line, "%s: line %zu, expected %ld", c->name,
			      f->line, c->line);
	if (f && c->msg_has)
		ck_assert_msg(strstr(f->message, c->msg_has), "%s: message \"%s\" lacks \"%s\"",
			      c->name, f->message, c->msg_has);
	findings_release(&fs);
}

static void run_cases(const struct mail_case *cases, size_t n, size_t i)
{
	const struct mail_case *c = &cases[i];
	char *raw = make_mail(c->from, NULL, NULL, c->body, true);

	(void)n;
	check_case(c, raw, NULL);
	free(raw);
}

/* ---- MISSING_SIGN_OFF ------------------------------------------------ */

static const struct mail_case missing_cases[] = {
	{ "none", NULL, DESC, "MISSING_SIGN_OFF", 1, 1, "no Signed-off-by:" },
	{ "present", NULL, DESC SOB_ALICE, "MISSING_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "wrong case still signs", NULL, DESC "Signed-Off-By: " ALICE "\n",
	  "MISSING_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "typo does not sign", NULL, DESC "Signed-of-by: " ALICE "\n",
	  "MISSING_SIGN_OFF", 1, 3, "this Signed-of-by: is misspelled and does not count: "
	  "write it Signed-off-by:." },
	/* one problem, one item: the typo is MISSING_SIGN_OFF's to tell */
	{ "typo told once", NULL, DESC "Signed-of-by: " ALICE "\n", "BAD_SIGN_OFF", 0, ANY_LINE,
	  NULL },
	{ "typo among other tags told once", NULL, DESC "Reviewed-by: " BOB "\nSigend-off-by: "
	  ALICE "\n", "MISSING_SIGN_OFF", 1, 4, "this Sigend-off-by: is misspelled" },
	{ "typo among other tags, no BAD_SIGN_OFF", NULL, DESC "Reviewed-by: " BOB
	  "\nSigend-off-by: " ALICE "\n", "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	/* a sign-off in a paragraph that is not the last still counts */
	{ "sign-off before a closing note", NULL,
	  DESC SOB_ALICE "\nThis was tested on the Foo board.\n",
	  "MISSING_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "below the separator", NULL,
	  DESC "---\n" SOB_ALICE "v2: rebased\n", "MISSING_SIGN_OFF", 1, 4,
	  "above the --- line; this one is below it, where git am drops it: move it up." },
	/* a quoted commit in the description: indented, not ours */
	{ "quoted indented sign-off", NULL,
	  "This reverts the change below:\n\n    foo: bar\n\n    " "Signed-off-by: " BOB
	  "\n\nIt broke the baz board.\n", "MISSING_SIGN_OFF", 1, 7, NULL },
	{ "indented in the block counts", NULL,
	  DESC "Acked-by: " BOB "\n  Signed-off-by: " ALICE "\n",
	  "MISSING_SIGN_OFF", 0, ANY_LINE, NULL },
};

START_TEST(test_missing)
{
	run_cases(missing_cases, ARRAY_SIZE(missing_cases), (size_t)_i);
}
END_TEST

/* Unlike checkpatch's line scan, a sign-off in the diff (added or context) is not one. */
START_TEST(test_missing_diff_only)
{
	static const char body[] = DESC
		"---\n drivers/leds/foo.c | 1 +\n\n"
		"diff --git a/drivers/leds/foo.c b/drivers/leds/foo.c\n"
		"index 1111111..2222222 100644\n--- a/drivers/leds/foo.c\n+++ b/drivers/leds/foo.c\n"
		"@@ -1,2 +1,3 @@\n Signed-off-by: " ALICE "\n+Signed-off-by: " ALICE "\n int d;\n";
	const struct mail_case c = { "diff only", NULL, body, "MISSING_SIGN_OFF", 1, 1, NULL };
	const struct mail_case c2 = { "diff only", NULL, body, "BAD_SIGN_OFF", 0, 0, NULL };
	char *raw = make_mail(NULL, NULL, NULL, body, false);

	check_case(&c, raw, NULL);
	check_case(&c2, raw, NULL);
	free(raw);
}
END_TEST

START_TEST(test_cover_letter_unchecked)
{
	char *raw = make_mail(NULL, NULL, "[PATCH 0/2] leds: foo: two fixes",
			      "This series fixes two bugs.\n\nSigned-of-by: Alice\n", false);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_uint_eq(th_count(&fs, "MISSING_SIGN_OFF"), 0);
	ck_assert_uint_eq(th_count(&fs, "BAD_SIGN_OFF"), 0);
	ck_assert_uint_eq(th_count(&fs, "NO_AUTHOR_SIGN_OFF"), 0);
	findings_release(&fs);
	free(raw);
}
END_TEST

/* ---- NO_AUTHOR_SIGN_OFF, FROM_SIGN_OFF_MISMATCH ----------------------- */

static const struct mail_case author_cases[] = {
	{ "someone else", NULL, DESC "Signed-off-by: " BOB "\n", "NO_AUTHOR_SIGN_OFF", 1, 0,
	  "alice@example.org" },
	{ "author and another", NULL, DESC SOB_ALICE "Signed-off-by: " BOB "\n",
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "address case", NULL, DESC "Signed-off-by: Alice Example <ALICE@Example.ORG>\n",
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "address case no mismatch", NULL, DESC "Signed-off-by: Alice Example <ALICE@Example.ORG>\n",
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	/* unlike checkpatch (subaddress mismatch): +sub is ignored */
	{ "plus subaddress", "Alice Example <alice+linux@example.org>", DESC SOB_ALICE,
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "plus subaddress signs", "Alice Example <alice+linux@example.org>", DESC SOB_ALICE,
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "no sign-off at all is only missing", NULL, DESC, "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	/* git send-email: the in-body From: is the author */
	{ "in-body author signs", NULL,
	  "From: Carol Coder <carol@example.com>\n\n" DESC "Signed-off-by: Carol Coder <carol@example.com>\n"
	  SOB_ALICE, "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "in-body author missing", NULL,
	  "From: Carol Coder <carol@example.com>\n\n" DESC SOB_ALICE,
	  "NO_AUTHOR_SIGN_OFF", 1, 0, "carol@example.com" },
	{ "same address other name", NULL, DESC "Signed-off-by: Alice Q. Sample <alice@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 1, 3, "Alice Q. Sample" },
	{ "same address other name is signed", NULL,
	  DESC "Signed-off-by: Alice Q. Sample <alice@example.org>\n",
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "same name other address", NULL, DESC "Signed-off-by: Alice Example <alice@work.example.com>\n",
	  "FROM_SIGN_OFF_MISMATCH", 1, 3, "alice@work.example.com" },
	{ "same name other address is no missing", NULL,
	  DESC "Signed-off-by: Alice Example <alice@work.example.com>\n",
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "name case and spacing", NULL, DESC "Signed-off-by: alice  EXAMPLE <alice@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "sign-off without a name", NULL, DESC "Signed-off-by: <alice@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 1, 3, "no name" },
	{ "exact match among others", NULL,
	  DESC "Signed-off-by: Alice Q. Sample <alice@example.org>\n" SOB_ALICE,
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	/* RFC 2047 Latin-1 in From:, UTF-8 in the body (unlike checkpatch) */
	{ "latin-1 encoded From", "=?iso-8859-1?q?J=F6rg_M=FCller?= <joerg@example.org>",
	  DESC "Signed-off-by: J\xc3\xb6rg M\xc3\xbcller <joerg@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	/* NFD (o + U+0308) in the sign-off, NFC in From: */
	{ "decomposed umlaut", "=?utf-8?q?J=C3=B6rg_M=C3=BCller?= <joerg@example.org>",
	  DESC "Signed-off-by: Jo\xcc\x88rg Mu\xcc\x88ller <joerg@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	/* comments, quoting and a nickname's place are no mismatch */
	{ "comment in From", "Jane Doe (Nokia) <jd@example.org>",
	  DESC "Signed-off-by: Jane Doe <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "comment in a quoted From", "\"Jane Doe (Nokia)\" <jd@example.org>",
	  DESC "Signed-off-by: Jane Doe <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "last, first", "\"Doe, Jane\" <jd@example.org>",
	  DESC "Signed-off-by: Jane Doe <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "quoted last, first both sides", "\"Doe, Jane\" <jd@example.org>",
	  DESC "Signed-off-by: \"Doe, Jane\" <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	/* git's user.name = Jane "JD" Doe: From: escapes the inner quotes */
	{ "inner quotes", "\"Jane \\\"JD\\\" Doe\" <jd@example.org>",
	  DESC "Signed-off-by: Jane \"JD\" Doe <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "inner quotes vanished", "\"Jane \\\"JD\\\" Doe\" <jd@example.org>",
	  DESC "Signed-off-by: Jane JD Doe <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "nickname's place", "\"Jane (JD) Doe\" <jd@example.org>",
	  DESC "Signed-off-by: Jane Doe (JD) <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "nickname quoted or parenthesised", "\"Jane \\\"JD\\\" Doe\" <jd@example.org>",
	  DESC "Signed-off-by: Jane Doe (JD) <jd@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "an apostrophe stays", "Sean O'Brien <sob@example.org>",
	  DESC "Signed-off-by: Sean OBrien <sob@example.org>\n", "FROM_SIGN_OFF_MISMATCH", 1,
	  3, NULL },
	{ "really another name", "=?utf-8?q?J=C3=B6rg_M=C3=BCller?= <joerg@example.org>",
	  DESC "Signed-off-by: Jorg Muller <joerg@example.org>\n",
	  "FROM_SIGN_OFF_MISMATCH", 1, 3, NULL },
};

START_TEST(test_author)
{
	run_cases(author_cases, ARRAY_SIZE(author_cases), (size_t)_i);
}
END_TEST

/* b4's web relay: the author is in Reply-To:, the sender is devnull+... */
START_TEST(test_author_b4_relay)
{
	const struct mail_case ok = { "b4 relay", NULL, NULL, "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL };
	const struct mail_case ok2 = { "b4 relay", NULL, NULL, "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL };
	char *raw = make_mail("Alice Example via B4 Relay <devnull+alice.example.org@kernel.org>",
			      "Reply-To: alice@example.org\n", NULL, DESC SOB_ALICE, true);

	check_case(&ok, raw, NULL);
	check_case(&ok2, raw, NULL);
	free(raw);
}
END_TEST

/* A whole mail: Latin-1 body (quoted-printable) and an RFC 2047 Latin-1 From:. */
START_TEST(test_author_latin1_fixture)
{
	char *raw = th_read_data("rules/rules-latin1-from.eml", NULL);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "FROM_SIGN_OFF_MISMATCH") == 0, "%s", th_dump(&fs));
	ck_assert_msg(th_count(&fs, "NO_AUTHOR_SIGN_OFF") == 0, "%s", th_dump(&fs));
	ck_assert_msg(th_count(&fs, "BAD_SIGN_OFF") == 0, "%s", th_dump(&fs));
	findings_release(&fs);
	free(raw);
}
END_TEST

/* ---- BAD_FROM_ADDRESS ------------------------------------------------- */

#define FROM_OPEN_QUOTE "\"Alice Example <alice@example.org>"
#define INBODY_OPEN_QUOTE "From: \"Carol Coder <carol@example.com>\n\n"

/* Each malformed From: with what git mailinfo printed for it. */
static const struct mail_case from_cases[] = {
	/* Author: Alice Example, Email: alice@example.org */
	{ "open quote", FROM_OPEN_QUOTE, DESC SOB_ALICE, "BAD_FROM_ADDRESS", 1, 0,
	  "The From: header is not one well-formed address (From: \"Alice Example "
	  "<alice@example.org>), so git am records the author as Alice Example "
	  "<alice@example.org>; write it as" },
	{ "open quote, the author signed", FROM_OPEN_QUOTE, DESC SOB_ALICE,
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "open quote, the author's name matches", FROM_OPEN_QUOTE, DESC SOB_ALICE,
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "open quote, another signed", FROM_OPEN_QUOTE, DESC "Signed-off-by: " BOB "\n",
	  "NO_AUTHOR_SIGN_OFF", 1, 0, "alice@example.org" },
	/* Author: Alice (AE Example, Email: alice@example.org */
	{ "open comment", "Alice (AE Example <alice@example.org>", DESC SOB_ALICE,
	  "BAD_FROM_ADDRESS", 1, 0, "as Alice (AE Example <alice@example.org>;" },
	/* Author: (Alice Example, Email: alice@example.org */
	{ "open comment after", "alice@example.org (Alice Example", DESC SOB_ALICE,
	  "BAD_FROM_ADDRESS", 1, 0, "as (Alice Example <alice@example.org>;" },
	{ "open comment after, another signed", "alice@example.org (Alice Example",
	  DESC "Signed-off-by: " BOB "\n", "NO_AUTHOR_SIGN_OFF", 1, 0, "alice@example.org" },
	/* Author: Alice Example, Email: alice@example.org */
	{ "missing >", "Alice Example <alice@example.org", DESC SOB_ALICE, "BAD_FROM_ADDRESS", 1, 0,
	  "as Alice Example <alice@example.org>;" },
	/*
	 * The author's own sign-off under a From: git misreads: fixing the
	 * From: is the one thing to do, so no mismatch against the guess.
	 */
	{ "open comment after, the author signed", "alice@example.org (Alice Example",
	  DESC SOB_ALICE, "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "open comment, the author signed", "Alice (AE Example <alice@example.org>",
	  DESC SOB_ALICE, "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	/* Author: Alice Example, Email: alice@example.org@example.com */
	{ "two @, the author signed", "Alice Example <alice@example.org@example.com>",
	  DESC SOB_ALICE, "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "two @, the author signed, no other", "Alice Example <alice@example.org@example.com>",
	  DESC SOB_ALICE, "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	/* Author: Alice@home, Email: Alice@home */
	{ "an @ in the open quote", "\"Alice@home <alice@example.org>", DESC SOB_ALICE,
	  "BAD_FROM_ADDRESS", 1, 0, "as Alice@home <Alice@home>;" },
	{ "an @ in the open quote, the author signed", "\"Alice@home <alice@example.org>",
	  DESC SOB_ALICE, "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	/* Author: Alice Example, Email: alice */
	{ "no @, the author signed", "Alice Example <alice>", DESC SOB_ALICE,
	  "FROM_SIGN_OFF_MISMATCH", 0, ANY_LINE, NULL },
	{ "no @", "Alice Example <alice>", DESC SOB_ALICE, "BAD_FROM_ADDRESS", 1, 0,
	  "as Alice Example <alice>;" },
	/* Author: , Email: (git am stops: empty ident name) */
	{ "no address", "Alice Example", DESC SOB_ALICE, "BAD_FROM_ADDRESS", 1, 0,
	  "(From: Alice Example), and git am finds no author in it and stops" },
	{ "well formed", NULL, DESC SOB_ALICE, "BAD_FROM_ADDRESS", 0, ANY_LINE, NULL },
	{ "quoted, well formed", "\"Example, Alice\" <alice@example.org>", DESC SOB_ALICE,
	  "BAD_FROM_ADDRESS", 0, ANY_LINE, NULL },
	/* Author: Carol Coder, Email: carol@example.com */
	{ "in-body open quote", NULL, INBODY_OPEN_QUOTE DESC SOB_CAROL SOB_ALICE,
	  "BAD_FROM_ADDRESS", 1, 0, "The in-body From: is not one well-formed address "
	  "(From: \"Carol Coder <carol@example.com>), so git am records the author as "
	  "Carol Coder <carol@example.com>;" },
	{ "in-body open quote, the author signed", NULL, INBODY_OPEN_QUOTE DESC SOB_CAROL SOB_ALICE,
	  "NO_AUTHOR_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "in-body open quote, the author did not sign", NULL, INBODY_OPEN_QUOTE DESC SOB_ALICE,
	  "NO_AUTHOR_SIGN_OFF", 1, 0, "carol@example.com" },
};

START_TEST(test_bad_from)
{
	run_cases(from_cases, ARRAY_SIZE(from_cases), (size_t)_i);
}
END_TEST

/* ---- BAD_SIGN_OFF ----------------------------------------------------- */

static const struct mail_case bad_cases[] = {
	{ "clean block", NULL, DESC "Acked-by: " BOB "\nReviewed-by: " BOB "\nTested-by: " BOB
	  "\nSuggested-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	/* non-standard tags */
	{ "typo suggestion", NULL, DESC "Signed-of-by: " ALICE "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "Signed-of-by: is not a standard tag; did you mean Signed-off-by:?" },
	{ "typo two edits", NULL, DESC "Sigend-off-by: " ALICE "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "did you mean Signed-off-by:?" },
	{ "three edits: no suggestion", NULL, DESC "Sgined-of-by: " ALICE "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "is not one of the documented tags" },
	{ "typo reviewed", NULL, DESC "Review-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "did you mean Reviewed-by:?" },
	/* unlike checkpatch, which finds Reported-by: inside it and passes it */
	{ "co-reported-by", NULL, DESC "Co-reported-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "Co-reported-by: is not one of the documented tags" },
	{ "unknown tag, value not checked", NULL, DESC "Generated-by: scripts/coccinelle/foo.cocci\n"
	  SOB_ALICE, "BAD_SIGN_OFF", 1, 3, "is not one of the documented tags" },
	{ "github co-author", NULL, DESC "Co-authored-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "the kernel's is Co-developed-by:." },
	/* maintainer-tip.rst documents Originally-by: */
	{ "originally-by", NULL, DESC "Originally-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 0,
	  ANY_LINE, NULL },
	{ "originally-by typo", NULL, DESC "Orginally-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "did you mean Originally-by:?" },
	/* a mainline tag one edit from Acked-by: is no typo of it */
	{ "nacked-by", NULL, DESC "Nacked-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "is not one of the documented tags" },
	{ "not a -by tag", NULL, DESC "Cc: " BOB " [maintainer]\nLink: https://example.org/x\n"
	  SOB_ALICE, "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	/* case */
	{ "wrong case", NULL, DESC "Reviewed-By: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "should be written Reviewed-by:" },
	{ "all lower", NULL, DESC "signed-off-by: " ALICE "\n", "BAD_SIGN_OFF", 1, 3,
	  "Signed-off-by:" },
	/* white space */
	{ "indented in the block", NULL, DESC SOB_ALICE " Acked-by: " BOB "\n", "BAD_SIGN_OFF", 1, 4,
	  "white space before Acked-by:" },
	{ "indented in prose is a quote", NULL, "As the old commit said:\n\n    Acked-by: " BOB
	  "\n\n" DESC SOB_ALICE, "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "no space after colon", NULL, DESC "Signed-off-by:" ALICE "\n", "BAD_SIGN_OFF", 1, 3,
	  "exactly one space" },
	{ "two spaces after colon", NULL, DESC "Signed-off-by:  " ALICE "\n", "BAD_SIGN_OFF", 1, 3,
	  "exactly one space" },
	{ "tab after colon", NULL, DESC "Signed-off-by:\t" ALICE "\n", "BAD_SIGN_OFF", 1, 3,
	  "exactly one space" },
	{ "space before colon", NULL, DESC "Signed-off-by : " ALICE "\n", "BAD_SIGN_OFF", 1, 3,
	  "before the colon" },
	/* the address */
	{ "no angle brackets", NULL, DESC "Acked-by: Bob Builder bob@example.org\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "cannot be parsed" },
	{ "no address", NULL, DESC "Tested-by: Bob Builder\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "cannot be parsed" },
	{ "empty value", NULL, DESC "Reviewed-by:\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "cannot be parsed" },
	{ "bare address is fine", NULL, DESC "Acked-by: bob@example.org\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "hash comment", NULL, DESC "Acked-by: " BOB " # for the DT part\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "paren comment", NULL, DESC "Acked-by: " BOB " (for the DT part)\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "bracket comment", NULL, DESC "Acked-by: " BOB " [for the DT part]\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "[for the DT part]" },
	{ "bare words after", NULL, DESC "Tested-by: " BOB " on the Foo board\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "# comment" },
	/* a quote or parenthesis left open holds the name: no address either */
	{ "open quote", NULL, DESC "Signed-off-by: \"Alice Example <alice@example.org>\n",
	  "BAD_SIGN_OFF", 1, 3, "cannot be parsed" },
	{ "open parenthesis before", NULL, DESC "Signed-off-by: Alice (AE Example <alice@example.org>\n",
	  "BAD_SIGN_OFF", 1, 3, "cannot be parsed" },
	{ "open parenthesis after", NULL, DESC "Signed-off-by: alice@example.org (Alice Example\n",
	  "BAD_SIGN_OFF", 1, 3, "cannot be parsed" },
	{ "open parenthesis after, one item", NULL,
	  DESC "Signed-off-by: alice@example.org (Alice Example\n", "FROM_SIGN_OFF_MISMATCH", 0,
	  ANY_LINE, NULL },
	{ "open parenthesis after, the author's", NULL,
	  DESC "Signed-off-by: alice@example.org (Alice Example\n", "NO_AUTHOR_SIGN_OFF", 0,
	  ANY_LINE, NULL },
	/* with a name in <> form, it is only text after the address */
	{ "open parenthesis after a name", NULL, DESC "Acked-by: " BOB " (for the DT part\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "# comment" },
	/* duplicates */
	{ "duplicate", NULL, DESC "Acked-by: " BOB "\n" SOB_ALICE "Acked-by: " BOB "\n",
	  "BAD_SIGN_OFF", 1, 5, "repeats line 3" },
	{ "duplicate modulo case and space", NULL, DESC "Reviewed-by: " BOB "\n"
	  "reviewed-by: Bob  Builder <BOB@example.org>\n" SOB_ALICE, "BAD_SIGN_OFF", 2, 4, NULL },
	{ "same person, other tags", NULL, DESC "Acked-by: " BOB "\nTested-by: " BOB "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "prose may repeat", NULL, "Before:\n  foo = 1;\nAfter:\n  foo = 2;\n\nBefore:\n  bar = 1;\n"
	  "After:\n  bar = 2;\n\n" SOB_ALICE, "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	/* Co-developed-by */
	{ "co-developed ok", NULL, DESC "Co-developed-by: " BOB "\nSigned-off-by: " BOB "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	/* the co-developer's sign-off is missing: said on the Co-developed-by:
	 * line, with the line to add (not "the sign-off after it is wrong") */
	{ "co-developed then other sign-off", NULL, DESC "Co-developed-by: " BOB "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "Bob Builder co-developed this patch but has no Signed-off-by: "
	  "here; add \"Signed-off-by: " BOB "\" right below this line." },
	{ "two co-developers, one sign-off", NULL, DESC "Co-developed-by: " BOB "\n"
	  "Co-developed-by: Carol Coder <carol@example.com>\n" SOB_ALICE, "BAD_SIGN_OFF", 2, 3,
	  "Bob Builder co-developed this patch" },
	{ "co-developed then ack", NULL, DESC "Co-developed-by: " BOB "\nAcked-by: " BOB "\n"
	  "Signed-off-by: " BOB "\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 3,
	  "Move Bob Builder's Signed-off-by: (line 5) up to directly after this Co-developed-by:." },
	{ "co-developed last", NULL, DESC SOB_ALICE "Co-developed-by: " BOB "\n", "BAD_SIGN_OFF", 1, 4,
	  "right below this line" },
	{ "co-developed, unparsable", NULL, DESC "Co-developed-by: Bob Builder bob@example.org\n"
	  SOB_ALICE, "BAD_SIGN_OFF", 1, 3, "cannot be parsed" },
	{ "co-developed other address", NULL, DESC "Co-developed-by: " BOB "\n"
	  "Signed-off-by: Bob Builder <bob@other.example.com>\n" SOB_ALICE, "BAD_SIGN_OFF", 1, 4,
	  "same person" },
	{ "co-developed names the author", NULL, DESC "Co-developed-by: " ALICE "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "author" },
	/* combined tags */
	{ "reported-and-tested", NULL, DESC "Reported-and-tested-by: " BOB "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "asks for separate Reported-by: and Tested-by: lines" },
	{ "reviewed-and-tested", NULL, DESC "Reviewed-and-tested-by: " BOB "\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "Reviewed-by: and Tested-by:" },
	/* Assisted-by */
	{ "assisted ok", NULL, DESC "Assisted-by: Claude:claude-3-opus coccinelle sparse\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "assisted model only", NULL, DESC "Assisted-by: Copilot:gpt-4o\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 0, ANY_LINE, NULL },
	{ "assisted by a person", NULL, DESC "Assisted-by: GitHub Copilot <copilot@github.com>\n"
	  SOB_ALICE, "BAD_SIGN_OFF", 1, 3, "names a person or an address, not the tool" },
	/* neither a person nor an address: say what is missing */
	{ "assisted no model", NULL, DESC "Assisted-by: gkh_clanker_2000\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "This Assisted-by: has no :MODEL part after the agent's name; "
	  "write it as Assisted-by: AGENT:MODEL, then any tools used" },
	{ "assisted words, no colon", NULL, DESC "Assisted-by: Claude Sonnet 4.6\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "has no :MODEL part" },
	{ "assisted empty model", NULL, DESC "Assisted-by: Claude:\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "has no MODEL after the colon" },
	{ "assisted no agent", NULL, DESC "Assisted-by: :claude-3-opus\n" SOB_ALICE,
	  "BAD_SIGN_OFF", 1, 3, "has no AGENT name before the colon" },
};

START_TEST(test_bad)
{
	run_cases(bad_cases, ARRAY_SIZE(bad_cases), (size_t)_i);
}
END_TEST

static enum severity severity_of(const char *raw, const struct rule_settings *s, const char *rule)
{
	struct findings fs;
	enum severity sev = SEV_OFF;

	findings_init(&fs);
	th_check_mail(raw, s, &fs);
	ck_assert_msg(th_count(&fs, rule) == 1, "%s", th_dump(&fs));
	sev = first_of(&fs, rule)->severity;
	findings_release(&fs);
	return sev;
}

/* The Assisted-by: form is defined in coding-assistants.rst: cite that. */
START_TEST(test_assisted_doc)
{
	char *raw = make_mail(NULL, NULL, NULL, DESC "Assisted-by: Claude Sonnet 4.6\n" SOB_ALICE,
			      true);
	char *typo = make_mail(NULL, NULL, NULL, DESC "Reveiwed-by: " BOB "\n" SOB_ALICE, true);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "BAD_SIGN_OFF") == 1, "%s", th_dump(&fs));
	ck_assert_str_eq(first_of(&fs, "BAD_SIGN_OFF")->doc,
			 "Documentation/process/coding-assistants.rst");
	findings_release(&fs);
	/* other BAD_SIGN_OFF findings keep the rule's documents */
	findings_init(&fs);
	th_check_mail(typo, NULL, &fs);
	ck_assert_ptr_nonnull(strstr(first_of(&fs, "BAD_SIGN_OFF")->doc, "submitting-patches.rst"));
	findings_release(&fs);
	free(raw);
	free(typo);
}
END_TEST

/* An unparsable address is an error while the admin keeps the default. */
START_TEST(test_bad_address_is_error)
{
	char *bad = make_mail(NULL, NULL, NULL, DESC "Acked-by: Bob Builder bob at example.org\n"
			      SOB_ALICE, true);
	char *typo = make_mail(NULL, NULL, NULL, DESC "Signed-of-by: " ALICE "\n" SOB_ALICE, true);
	static const char *const open[] = {
		"\"Alice Example <alice@example.org>",
		"Alice (AE Example <alice@example.org>",
		"alice@example.org (Alice Example",
	};
	struct rule_settings s;

	for (size_t i = 0; i < ARRAY_SIZE(open); i++) {
		char body[256], *raw;

		snprintf(body, sizeof(body), DESC "Signed-off-by: %s\n", open[i]);
		raw = make_mail(NULL, NULL, NULL, body, true);
		ck_assert_msg(severity_of(raw, NULL, "BAD_SIGN_OFF") == SEV_ERROR, "%s", open[i]);
		free(raw);
	}
	ck_assert_int_eq(severity_of(bad, NULL, "BAD_SIGN_OFF"), SEV_ERROR);
	ck_assert_int_eq(severity_of(typo, NULL, "BAD_SIGN_OFF"), SEV_WARNING);
	rule_settings_init(&s);
	s.severity[R_BAD_SIGN_OFF] = SEV_CHECK;
	ck_assert_int_eq(severity_of(bad, &s, "BAD_SIGN_OFF"), SEV_CHECK);
	rule_settings_release(&s);
	free(bad);
	free(typo);
}
END_TEST

/* BAD_FROM_ADDRESS is a warning. */
START_TEST(test_bad_from_is_warning)
{
	char *raw = make_mail(FROM_OPEN_QUOTE, NULL, NULL, DESC SOB_ALICE, true);

	ck_assert_int_eq(severity_of(raw, NULL, "BAD_FROM_ADDRESS"), SEV_WARNING);
	free(raw);
}
END_TEST

/* tagbot-rules(7) BAD_SIGN_OFF: a typo of a documented tag is a warning; a
 * combined tag and any other unknown -by: tag only a check (never worth a
 * mail). */
START_TEST(test_unknown_tag_is_check)
{
	static const struct {
		const char *tag;
		enum severity sev;
	} cases[] = {
		{ "Debugged-by", SEV_CHECK }, { "Requested-by", SEV_CHECK },
		{ "Bisected-by", SEV_CHECK }, { "Co-authored-by", SEV_CHECK },
		{ "Nacked-by", SEV_CHECK },
		/* combined tags: only the tip tree asks to split them */
		{ "Reported-and-tested-by", SEV_CHECK }, { "Reviewed-and-tested-by", SEV_CHECK },
		{ "Signed-of-by", SEV_WARNING }, { "Reveiwed-by", SEV_WARNING },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf body;
		char *raw;

		buf_init(&body, 0);
		buf_printf(&body, DESC "%s: " BOB "\n" SOB_ALICE, cases[i].tag);
		raw = make_mail(NULL, NULL, NULL, body.data, true);
		ck_assert_msg(severity_of(raw, NULL, "BAD_SIGN_OFF") == cases[i].sev, "%s",
			      cases[i].tag);
		free(raw);
		buf_release(&body);
	}
}
END_TEST

/* tagbot-rules(7): a Co-developed-by: whose sign-off follows later in the block,
 * other tags between, is only a check; one whose sign-off never comes is
 * a warning. */
START_TEST(test_codeveloper_split_is_check)
{
	char *split = make_mail(NULL, NULL, NULL, DESC "Co-developed-by: " BOB "\nAcked-by: "
				"Carol Coder <carol@example.com>\nSigned-off-by: " BOB "\n" SOB_ALICE, true);
	char *other = make_mail(NULL, NULL, NULL, DESC "Co-developed-by: " BOB "\n" SOB_ALICE
				"Acked-by: Carol Coder <carol@example.com>\n", true);
	char *apart = make_mail(NULL, NULL, NULL, DESC "Co-developed-by: " BOB "\n" SOB_ALICE "\n"
				"Signed-off-by: " BOB "\n", true);

	ck_assert_int_eq(severity_of(split, NULL, "BAD_SIGN_OFF"), SEV_CHECK);
	ck_assert_int_eq(severity_of(other, NULL, "BAD_SIGN_OFF"), SEV_WARNING);
	/* a sign-off in another paragraph is not "later in the same block" */
	ck_assert_int_eq(severity_of(apart, NULL, "BAD_SIGN_OFF"), SEV_WARNING);
	free(split);
	free(other);
	free(apart);
}
END_TEST

/* ---- the wording of the author findings: both sides quoted -------------- */

static char *message_of(const char *raw, const char *rule)
{
	struct findings fs;
	char *m;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, rule) == 1, "%s", th_dump(&fs));
	m = strdup(first_of(&fs, rule)->message);
	findings_release(&fs);
	return m;
}

START_TEST(test_mismatch_address_words)
{
	/* No in-body From: either side may change. */
	char *plain = make_mail(NULL, NULL, NULL,
				DESC "Signed-off-by: Alice Example <alice@work.example.com>\n", true);
	/* An in-body From: already: adding one is no advice; the two must agree. */
	char *inbody = make_mail(BOB, NULL, NULL,
				 "From: Carol Coder <carol@example.com>\n\n" DESC
				 "Signed-off-by: Carol Coder <carol@work.example.com>\n"
				 "Signed-off-by: " BOB "\n", true);
	char *m;

	m = message_of(plain, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: has <alice@work.example.com> but From: has "
			 "<alice@example.org>, which git am records as the author; make them one: sign "
			 "off with <alice@example.org>, or, for the patch to be recorded under "
			 "<alice@work.example.com>, put an in-body From: line with it at the top of "
			 "the message.");
	free(m);
	/* Bob sends Carol's patch: the reply goes to Bob, so not "your" */
	m = message_of(inbody, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: has <carol@work.example.com> but the in-body From: "
			 "has <carol@example.com>; make the in-body From: and the author's "
			 "Signed-off-by: the same address.");
	free(m);
	free(inbody);
	/* an unnamed address that signs: the sender's own sign-off */
	inbody = make_mail("<carol@work.example.com>", NULL, NULL,
			   "From: Carol Coder <carol@example.com>\n\n" DESC
			   "Signed-off-by: Carol Coder <carol@work.example.com>\n", true);
	m = message_of(inbody, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_ptr_nonnull(strstr(m, "and your Signed-off-by:"));
	free(m);
	free(inbody);
	/* Carol sends it herself, from the address she signs with */
	inbody = make_mail("Carol Coder <carol@work.example.com>", NULL, NULL,
			   "From: Carol Coder <carol@example.com>\n\n" DESC
			   "Signed-off-by: Carol Coder <carol@work.example.com>\n", true);
	m = message_of(inbody, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: has <carol@work.example.com> but the in-body From: "
			 "has <carol@example.com>; make the in-body From: and your Signed-off-by: "
			 "the same address.");
	free(m);
	free(plain);
	free(inbody);
}
END_TEST

START_TEST(test_mismatch_name_words)
{
	char *other = make_mail(NULL, NULL, NULL,
				DESC "Signed-off-by: Alice Q. Sample <alice@example.org>\n", true);
	char *noname = make_mail(NULL, NULL, NULL, DESC "Signed-off-by: <alice@example.org>\n", true);
	char *inbody = make_mail(BOB, NULL, NULL, "From: Carol Coder <carol@example.com>\n\n" DESC
				 "Signed-off-by: C. Coder <carol@example.com>\nSigned-off-by: " BOB "\n",
				 true);
	char *m;

	m = message_of(other, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: says \"Alice Q. Sample\" but From: says "
			 "\"Alice Example\"; use the same name in both.");
	free(m);
	m = message_of(noname, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: <alice@example.org> has no name, but From: says "
			 "\"Alice Example\"; sign off as \"Alice Example <alice@example.org>\".");
	free(m);
	m = message_of(inbody, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Signed-off-by: says \"C. Coder\" but the in-body From: says "
			 "\"Carol Coder\"; use the same name in both.");
	free(m);
	free(other);
	free(noname);
	free(inbody);
}
END_TEST

/* A mail system added to the name in From:: keep the sign-off, add an
 * in-body From: (tagbot-rules(7) FROM_SIGN_OFF_MISMATCH). */
START_TEST(test_mismatch_mail_system)
{
	char *added = make_mail("Jane Doe - ACME Corp <jd@example.org>", NULL, NULL,
				DESC "Signed-off-by: Jane Doe <jd@example.org>\n", true);
	char *inbody = make_mail(BOB, NULL, NULL, "From: Jane Doe - ACME <jd@example.org>\n\n"
				 DESC "Signed-off-by: Jane Doe <jd@example.org>\n"
				 "Signed-off-by: " BOB "\n", true);
	char *m;

	m = message_of(added, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "From: says \"Jane Doe - ACME Corp\", more than the \"Jane Doe\" you "
			 "sign with, as a mail system adds; keep the sign-off and put an in-body "
			 "\"From: Jane Doe <jd@example.org>\" line at the top of the message, so git "
			 "am records that name.");
	free(m);
	/* git wrote the in-body From: itself: no mail system to blame */
	m = message_of(inbody, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_ptr_nonnull(strstr(m, "use the same name in both"));
	free(m);
	free(added);
	free(inbody);
}
END_TEST

/* Gmail rewrote From: to the account it authenticated and kept the From:
 * the sender wrote in X-Google-Original-From:.  git am records the
 * rewritten one, so the fix is an in-body From:, not a changed sign-off. */
START_TEST(test_mismatch_provider_rewrite)
{
	static const char xgof_carol[] = "X-Google-Original-From: " CAROL "\n";
	/* a forwarded patch: the author's name, the sender's account */
	char *fwd = make_mail("Carol Coder <alice@example.org>", xgof_carol, NULL,
			      DESC SOB_CAROL SOB_ALICE, true);
	/* one's own patch from a second account */
	char *own = make_mail("Carol Coder <carol.home@mail.example.net>", xgof_carol, NULL,
			      DESC SOB_CAROL, true);
	/* what the sender wrote matches no sign-off: no rewrite to tell */
	char *other = make_mail("Carol Coder <carol.home@mail.example.net>",
				"X-Google-Original-From: Carol Coder <cc@elsewhere.example>\n",
				NULL, DESC SOB_CAROL, true);
	/* an in-body From: already names the author */
	char *inbody = make_mail("Carol Coder <alice@example.org>", xgof_carol, NULL,
				 FROM_CAROL DESC SOB_CAROL SOB_ALICE, true);
	char *m;
	struct findings fs;

	m = message_of(fwd, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_str_eq(m, "Your mail provider rewrote From: to <alice@example.org> "
			 "(X-Google-Original-From: keeps <carol@example.com>), and git am records "
			 "From: as the author; keep this sign-off and put an in-body \"From: Carol "
			 "Coder <carol@example.com>\" line at the top of the message.");
	free(m);
	m = message_of(own, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_ptr_nonnull(strstr(m, "rewrote From: to <carol.home@mail.example.net>"));
	free(m);
	m = message_of(other, "FROM_SIGN_OFF_MISMATCH");
	ck_assert_ptr_null(strstr(m, "rewrote"));
	free(m);
	findings_init(&fs);
	th_check_mail(inbody, NULL, &fs);
	ck_assert_msg(th_count(&fs, "FROM_SIGN_OFF_MISMATCH") == 0 &&
		      th_count(&fs, "NO_AUTHOR_SIGN_OFF") == 0, "%s", th_dump(&fs));
	findings_release(&fs);
	free(fwd);
	free(own);
	free(other);
	free(inbody);
}
END_TEST

START_TEST(test_no_author_words)
{
	char *plain = make_mail(NULL, NULL, NULL, DESC "Signed-off-by: " BOB "\n", true);
	char *inbody = make_mail(NULL, NULL, NULL, "From: Carol Coder <carol@example.com>\n\n"
				 DESC SOB_ALICE, true);
	char *m;

	/* From: names the sender as the author: no "the author must add
	 * one", which invites them to claim another's patch; say what to do
	 * for either case */
	m = message_of(plain, "NO_AUTHOR_SIGN_OFF");
	ck_assert_str_eq(m, "No Signed-off-by: is yours (From: Alice Example <alice@example.org>), "
			 "and git am records From: as the author. If you wrote the patch, add your "
			 "Signed-off-by:. If it is someone else's (the first sign-off is Bob Builder "
			 "<bob@example.org>), put an in-body \"From: Bob Builder <bob@example.org>\" "
			 "line at the top of the message, so git am records its author, and add your "
			 "own Signed-off-by: as the last one.");
	free(m);
	m = message_of(inbody, "NO_AUTHOR_SIGN_OFF");
	ck_assert_str_eq(m, "No Signed-off-by: is from the author (in-body From: Carol Coder "
			 "<carol@example.com>); the author must add one.");
	free(m);
	free(plain);
	free(inbody);
}
END_TEST

/* ---- SUBMITTER_SIGN_OFF -------------------------------------------------- */


struct submitter_case {
	const char *name;
	const char *from;	/* header From:; NULL = ALICE */
	const char *extra;	/* more headers, or NULL */
	const char *subject;	/* NULL = a patch */
	const char *body;
	size_t count;
	long line;
	const char *msg;	/* the whole message, or NULL */
};

static const struct submitter_case submitter_cases[] = {
	{ "sender signs last", NULL, NULL, NULL, FROM_CAROL DESC SOB_CAROL SOB_ALICE, 0, 0, NULL },
	{ "sender does not sign", NULL, NULL, NULL, FROM_CAROL DESC SOB_CAROL, 1, 0,
	  "You (Alice Example <alice@example.org>) sent this patch by Carol Coder "
	  "<carol@example.com> without a Signed-off-by: of your own; add yours as the last one." },
	{ "sender only acks", NULL, NULL, NULL, FROM_CAROL DESC SOB_CAROL "Acked-by: " ALICE "\n",
	  1, 0, NULL },
	{ "sender's sign-off not last", NULL, NULL, NULL, FROM_CAROL DESC SOB_ALICE SOB_CAROL, 1, 5,
	  "You (Alice Example <alice@example.org>) sent this patch, so this Signed-off-by: goes "
	  "last, below Carol Coder's." },
	/* submitting-patches.rst: a co-developer who submits signs off last */
	{ "co-developer submits, signs last", NULL, NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL "Co-developed-by: " ALICE "\n" SOB_ALICE, 0, 0, NULL },
	/* the pair moves together: the sign-off alone would break Co-developed-by: */
	{ "co-developer submits, author last", NULL, NULL, NULL,
	  FROM_CAROL DESC "Co-developed-by: " ALICE "\n" SOB_ALICE SOB_CAROL, 1, 5,
	  "You (Alice Example <alice@example.org>) sent this patch, so this Co-developed-by: "
	  "and your Signed-off-by: after it go last, together, below Carol Coder's sign-off." },
	{ "co-developer submits, pair split", NULL, NULL, NULL,
	  FROM_CAROL DESC "Co-developed-by: " ALICE "\nAcked-by: " BOB "\n" SOB_ALICE SOB_CAROL,
	  1, 7, "You (Alice Example <alice@example.org>) sent this patch, so this "
	  "Signed-off-by: goes last, below Carol Coder's." },
	/* a third person's sign-off below the sender's is no sign the sender's
	 * is misplaced (someone who signed after them): silence */
	{ "third person signs after the sender", NULL, NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL SOB_ALICE "Signed-off-by: " BOB "\n", 0, 0, NULL },
	{ "third person after the sender, author", NULL, NULL, NULL,
	  DESC SOB_ALICE "Signed-off-by: " BOB "\n", 0, 0, NULL },
	{ "author and a third person after the sender", NULL, NULL, NULL,
	  FROM_CAROL DESC SOB_ALICE SOB_CAROL "Signed-off-by: " BOB "\n", 1, 5,
	  "You (Alice Example <alice@example.org>) sent this patch, so this Signed-off-by: goes "
	  "last, below Bob Builder's." },
	{ "tags after the last sign-off are fine", NULL, NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL SOB_ALICE "Reviewed-by: " BOB "\n", 0, 0, NULL },
	{ "no sign-off at all is only missing", NULL, NULL, NULL, FROM_CAROL DESC, 0, 0, NULL },
	{ "the sender is the author", NULL, NULL, NULL, DESC SOB_CAROL SOB_ALICE, 0, 0, NULL },
	/* one person, two addresses: the name tells */
	{ "same name, in-body From: at work", "Alice Example <alice@home.example.net>", NULL, NULL,
	  "From: " ALICE "\n\n" DESC SOB_ALICE, 0, 0, NULL },
	{ "same name, sign-off at work", "Alice Example <alice@home.example.net>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL SOB_ALICE, 0, 0, NULL },
	{ "same name, decoded, NFC, any case", "=?utf-8?q?J=C3=B6rg_M=C3=BCller?= <joerg@home.example>",
	  NULL, NULL, FROM_CAROL DESC SOB_CAROL "Signed-off-by: jo\xcc\x88rg mu\xcc\x88ller <jm@work.example>\n",
	  0, 0, NULL },
	{ "other name, other address", "Alice Example <alice@home.example.net>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL "Signed-off-by: Alice Q. Sample <alice@example.org>\n", 1, 0, NULL },
	/* an unnamed second address that spells the name (corpus: <xiaopeitux@...>
	 * sending Pei Xiao's patch); every word must be in it, two at least */
	{ "unnamed address spelling the name", "<coderocarol@mail.example.net>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	/* an unnamed sender tells nothing of who they are: no evidence of
	 * another person (corpus: numeric webmail accounts sending a
	 * colleague's, or their own work address's, patch) */
	{ "unnamed address with one word of it", "<carol99@mail.example.net>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	{ "unnamed address, one-word name", "<carolfan@mail.example.net>", NULL, NULL,
	  "From: Carol <carol@example.com>\n\n" DESC "Signed-off-by: Carol <carol@example.com>\n",
	  0, 0, NULL },
	{ "unnamed numeric account", "<4815162342@mail.example.cn>", NULL, NULL,
	  "From: Wen Li <wen.li@corp.example.com>\n\n" DESC
	  "Signed-off-by: Wen Li <wen.li@corp.example.com>\n", 0, 0, NULL },
	/* ...unless the mail's own Cc names that address: then it is a person
	 * whose name can be compared (corpus: a bare address sending a
	 * colleague's patch, named in Cc as another person) */
	{ "unnamed sender named as another in Cc", "<4815162342@mail.example.cn>",
	  "Cc: Sean Kay <4815162342@mail.example.cn>, Wen Li <wen.li@corp.example.com>\n", NULL,
	  "From: Wen Li <wen.li@corp.example.com>\n\n" DESC
	  "Signed-off-by: Wen Li <wen.li@corp.example.com>\n", 1, 0,
	  "You (Sean Kay <4815162342@mail.example.cn>) sent this patch by Wen Li "
	  "<wen.li@corp.example.com> without a Signed-off-by: of your own; add yours as the last "
	  "one." },
	{ "unnamed sender named as the author in Cc", "<4815162342@mail.example.cn>",
	  "Cc: Wen Li <4815162342@mail.example.cn>\n", NULL,
	  "From: Wen Li <wen.li@corp.example.com>\n\n" DESC
	  "Signed-off-by: Wen Li <wen.li@corp.example.com>\n", 0, 0, NULL },
	{ "unnamed sender named two ways", "<4815162342@mail.example.cn>",
	  "Cc: Sean Kay <4815162342@mail.example.cn>, S. Kay <4815162342@mail.example.cn>\n",
	  NULL, "From: Wen Li <wen.li@corp.example.com>\n\n" DESC
	  "Signed-off-by: Wen Li <wen.li@corp.example.com>\n", 0, 0, NULL },
	/* a provider rewrote From: to the account it authenticated; git
	 * send-email minted the Message-ID for the author's address */
	{ "Message-ID minted for the author", "Dee <dee.personal@mail.example.com>",
	  "Message-ID: <20250604041418.1188792-1-dana.roe@corp.example.com>\n", NULL,
	  "From: Dana Roe <dana.roe@corp.example.com>\n\n" DESC
	  "Signed-off-by: Dana Roe <dana.roe@corp.example.com>\n", 0, 0, NULL },
	{ "Message-ID minted for the sender", "Dee <dee.personal@mail.example.com>",
	  "Message-ID: <20250604041418.1188792-1-dee.personal@mail.example.com>\n", NULL,
	  "From: Dana Roe <dana.roe@corp.example.com>\n\n" DESC
	  "Signed-off-by: Dana Roe <dana.roe@corp.example.com>\n", 1, 0, NULL },
	{ "Message-ID of another form", "Dee <dee.personal@mail.example.com>",
	  "Message-ID: <dana.roe@corp.example.com>\n", NULL,
	  "From: Dana Roe <dana.roe@corp.example.com>\n\n" DESC
	  "Signed-off-by: Dana Roe <dana.roe@corp.example.com>\n", 1, 0, NULL },
	/* the sender's sign-off is found by the Message-ID's address too */
	{ "sign-off of the Message-ID's address", "Dee <dee.personal@mail.example.com>",
	  "Message-ID: <20250604041418.1188792-2-dee@corp.example.com>\n", NULL,
	  FROM_CAROL DESC SOB_CAROL "Signed-off-by: Deirdre Eames <dee@corp.example.com>\n",
	  0, 0, NULL },
	/* a first name for the account, the full name at work */
	{ "one name's words in the other's", "Ravi <ravi.home@mail.example.net>", NULL, NULL,
	  "From: Ravi Kumar <ravi.kumar@corp.example.com>\n\n" DESC
	  "Signed-off-by: Ravi Kumar <ravi.kumar@corp.example.com>\n", 0, 0, NULL },
	{ "a longer name at home", "Jose Luis Vega Ortiz <dev-jlvega@corp.example.com>", NULL, NULL,
	  "From: Luis Vega <jlvega@corp.example.com>\n\n" DESC
	  "Signed-off-by: Luis Vega <jlvega@corp.example.com>\n", 0, 0, NULL },
	{ "a one-letter word is not enough", "J <j@mail.example.net>", NULL, NULL,
	  "From: J Vega <jv@corp.example.com>\n\n" DESC
	  "Signed-off-by: J Vega <jv@corp.example.com>\n", 1, 0, NULL },
	/* local parts that share the name */
	{ "local parts share the name", "Zed.Quill <zed.quill@home.example>", NULL, NULL,
	  "From: Zed Quill <zed.quill.uj@corp.example.com>\n\n" DESC
	  "Signed-off-by: Zed Quill <zed.quill.uj@corp.example.com>\n", 0, 0, NULL },
	/* a comment in the sender's name, quoted as mail systems write it */
	{ "comment in a quoted name, own patch", "\"Pat Lee (OSS)\" <pat.lee@oss.example.com>",
	  NULL, NULL, "From: Pat Lee <pat.lee@example.com>\n\n" DESC
	  "Signed-off-by: Pat Lee <pat.lee@example.com>\n", 0, 0, NULL },
	{ "comment in a quoted name, signs last", "\"Pat Lee (OSS)\" <pat.lee@oss.example.com>",
	  NULL, NULL, FROM_CAROL DESC SOB_CAROL "Signed-off-by: Pat Lee <pat.lee@example.com>\n",
	  0, 0, NULL },
	{ "comment in a quoted name, no sign-off", "\"Pat Lee (OSS)\" <pat.lee@oss.example.com>",
	  NULL, NULL, FROM_CAROL DESC SOB_CAROL, 1, 0,
	  "You (Pat Lee (OSS) <pat.lee@oss.example.com>) sent this patch by Carol Coder "
	  "<carol@example.com> without a Signed-off-by: of your own; add yours as the last one." },
	/* a maintainer resends someone else's patch from a git send-email
	 * set up for themselves: the evidence of another person */
	{ "maintainer resends, own Message-ID", "Mona Maint <mona@example.org>",
	  "Message-ID: <20250604041418.1188792-1-mona@example.org>\n", NULL,
	  FROM_CAROL DESC SOB_CAROL "Acked-by: Mona Maint <mona@example.org>\n", 1, 0, NULL },
	/* B4 Relay: the submitter is behind the devnull+ address */
	{ "b4 relay, submitter does not sign", "Bob Builder via B4 Relay <devnull+bob.example.org@kernel.org>",
	  "Reply-To: bob@example.org\n", NULL, FROM_CAROL DESC SOB_CAROL, 1, 0,
	  "You (Bob Builder <bob@example.org>) sent this patch by Carol Coder <carol@example.com> "
	  "without a Signed-off-by: of your own; add yours as the last one." },
	{ "b4 relay, submitter signs", "Bob Builder via B4 Relay <devnull+bob.example.org@kernel.org>",
	  "X-Original-From: " BOB "\n", NULL, FROM_CAROL DESC SOB_CAROL "Signed-off-by: " BOB "\n",
	  0, 0, NULL },
	{ "b4 relay, own patch", "Bob Builder via B4 Relay <devnull+bob.example.org@kernel.org>",
	  "Reply-To: bob@example.org\n", NULL, DESC "Signed-off-by: " BOB "\n", 0, 0, NULL },
	{ "b4 relay hiding the sender", "Bob Builder via B4 Relay <devnull+bob.example.org@kernel.org>",
	  NULL, NULL, FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	/* bots */
	{ "kernel test robot", "kernel test robot <lkp@intel.com>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	{ "syzbot", "syzbot <syzbot+0123abcd@syzkaller.appspotmail.com>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	{ "a -bot address", "sashiko-bot@kernel.org", NULL, NULL, FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	{ "Auto-Submitted", "CI Runner <ci@example.org>", "Auto-Submitted: auto-generated\n", NULL,
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
	{ "Auto-Submitted: no", "CI Runner <ci@example.org>", "Auto-Submitted: no\n", NULL,
	  FROM_CAROL DESC SOB_CAROL, 1, 0, NULL },
	{ "a name that only holds bot", "Abbot Robotham <ar@example.org>", NULL, NULL,
	  FROM_CAROL DESC SOB_CAROL, 1, 0, NULL },
	/* pull requests are not patches */
	{ "pull request", NULL, NULL, "[GIT PULL] leds: fixes for v6.15",
	  FROM_CAROL DESC SOB_CAROL, 0, 0, NULL },
};

START_TEST(test_submitter)
{
	const struct submitter_case *c = &submitter_cases[_i];
	char *raw = make_mail(c->from, c->extra, c->subject, c->body, true);
	struct findings fs;
	const struct finding *f;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "SUBMITTER_SIGN_OFF") == c->count, "%s: got\n%s", c->name,
		      th_dump(&fs));
	f = first_of(&fs, "SUBMITTER_SIGN_OFF");
	if (f) {
		ck_assert_msg((long)f->line == c->line, "%s: line %zu", c->name, f->line);
		ck_assert_int_eq(f->severity, SEV_WARNING);
		if (c->msg)
			ck_assert_str_eq(f->message, c->msg);
	}
	findings_release(&fs);
	free(raw);
}
END_TEST

/* A mailmap joins two addresses no name or Message-ID joins. */
START_TEST(test_submitter_mailmap)
{
	static const char map[] = "Samuel Wu <samuel.wu@new.example> <swu@old.example>\n";
	char *raw = make_mail("S. Wu <swu@old.example>", NULL, NULL,
			      "From: Samuel Wu <samuel.wu@new.example>\n\n" DESC
			      "Signed-off-by: Samuel Wu <samuel.wu@new.example>\n", true);
	struct rule_settings s;
	struct findings fs;

	rule_settings_init(&s);
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_uint_eq(th_count(&fs, "SUBMITTER_SIGN_OFF"), 1);
	findings_release(&fs);
	s.mailmap = mailmap_new();
	mailmap_parse(s.mailmap, map, strlen(map));
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_msg(th_count(&fs, "SUBMITTER_SIGN_OFF") == 0, "%s", th_dump(&fs));
	findings_release(&fs);
	rule_settings_release(&s);
	free(raw);
}
END_TEST

START_TEST(test_submitter_off)
{
	char *raw = make_mail(NULL, NULL, NULL, FROM_CAROL DESC SOB_CAROL, true);
	struct rule_settings s;
	struct findings fs;

	rule_settings_init(&s);
	s.severity[R_SUBMITTER_SIGN_OFF] = SEV_OFF;
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_uint_eq(th_count(&fs, "SUBMITTER_SIGN_OFF"), 0);
	findings_release(&fs);
	rule_settings_release(&s);
	free(raw);
}
END_TEST

START_TEST(test_rules_off)
{
	char *raw = make_mail(NULL, NULL, NULL, DESC "Signed-of-by: Bob\n", true);
	struct rule_settings s;
	struct findings fs;

	rule_settings_init(&s);
	s.severity[R_BAD_SIGN_OFF] = SEV_OFF;
	s.severity[R_MISSING_SIGN_OFF] = SEV_OFF;
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_uint_eq(th_count(&fs, "BAD_SIGN_OFF"), 0);
	ck_assert_uint_eq(th_count(&fs, "MISSING_SIGN_OFF"), 0);
	findings_release(&fs);
	/* with MISSING_SIGN_OFF off, the typo is BAD_SIGN_OFF's to tell */
	s.severity[R_BAD_SIGN_OFF] = SEV_WARNING;
	free(raw);
	raw = make_mail(NULL, NULL, NULL, DESC "Signed-of-by: " ALICE "\n", true);
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_msg(th_count(&fs, "BAD_SIGN_OFF") == 1, "%s", th_dump(&fs));
	findings_release(&fs);
	rule_settings_release(&s);
	free(raw);
}
END_TEST

/* ---- real mails from the linux-leds corpus (trimmed headers) -------------- */

struct real_case {
	const char *file;
	size_t missing, no_author, mismatch, bad;
	long bad_line;
};

static const struct real_case real_cases[] = {
	/* one author, one sign-off */
	{ "rules/rules-real-clean.eml", 0, 0, 0, 0, ANY_LINE },
	/* header From: brgl@bgdev.pl, in-body From: and sign-off @linaro.org */
	{ "rules/rules-real-reported-closes.eml", 0, 0, 0, 0, ANY_LINE },
	{ "rules/rules-real-fixes-reported-no-link.eml", 0, 0, 0, 0, ANY_LINE },
	/* "Assisted-by: gkh_clanker_2000" on line 10 */
	{ "rules/rules-real-stable-name-assisted.eml", 0, 0, 0, 1, 10 },
};

START_TEST(test_real)
{
	const struct real_case *c = &real_cases[_i];
	char *raw = th_read_data(c->file, NULL);
	struct findings fs;
	const struct finding *f;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "MISSING_SIGN_OFF") == c->missing, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "NO_AUTHOR_SIGN_OFF") == c->no_author, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "FROM_SIGN_OFF_MISMATCH") == c->mismatch, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "BAD_SIGN_OFF") == c->bad, "%s:\n%s", c->file, th_dump(&fs));
	f = first_of(&fs, "BAD_SIGN_OFF");
	if (f && c->bad_line != ANY_LINE)
		ck_assert_int_eq((long)f->line, c->bad_line);
	findings_release(&fs);
	free(raw);
}
END_TEST

/* Hostile input: thousands of identical trailers must not hang or blow up. */
START_TEST(test_many_trailers)
{
	struct buf body;
	char *raw;
	struct findings fs;

	buf_init(&body, 0);
	buf_addstr(&body, DESC);
	for (int i = 0; i < 5000; i++)
		buf_addstr(&body, "Acked-by: " BOB "\n");
	buf_addstr(&body, SOB_ALICE);
	raw = make_mail(NULL, NULL, NULL, body.data, true);
	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_uint_eq(th_count(&fs, "BAD_SIGN_OFF"), 4999);
	findings_release(&fs);
	free(raw);
	buf_release(&body);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rules_signoff");
	TCase *tc = tcase_create("signoff");

	tcase_add_loop_test(tc, test_missing, 0, (int)ARRAY_SIZE(missing_cases));
	tcase_add_test(tc, test_missing_diff_only);
	tcase_add_test(tc, test_cover_letter_unchecked);
	tcase_add_loop_test(tc, test_author, 0, (int)ARRAY_SIZE(author_cases));
	tcase_add_test(tc, test_author_b4_relay);
	tcase_add_test(tc, test_author_latin1_fixture);
	tcase_add_loop_test(tc, test_bad_from, 0, (int)ARRAY_SIZE(from_cases));
	tcase_add_test(tc, test_bad_from_is_warning);
	tcase_add_loop_test(tc, test_bad, 0, (int)ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_bad_address_is_error);
	tcase_add_test(tc, test_assisted_doc);
	tcase_add_test(tc, test_codeveloper_split_is_check);
	tcase_add_test(tc, test_unknown_tag_is_check);
	tcase_add_test(tc, test_mismatch_address_words);
	tcase_add_test(tc, test_mismatch_name_words);
	tcase_add_test(tc, test_mismatch_mail_system);
	tcase_add_test(tc, test_mismatch_provider_rewrite);
	tcase_add_test(tc, test_no_author_words);
	tcase_add_loop_test(tc, test_submitter, 0, (int)ARRAY_SIZE(submitter_cases));
	tcase_add_test(tc, test_submitter_mailmap);
	tcase_add_test(tc, test_submitter_off);
	tcase_add_test(tc, test_rules_off);
	tcase_add_loop_test(tc, test_real, 0, (int)ARRAY_SIZE(real_cases));
	tcase_add_test(tc, test_many_trailers);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
