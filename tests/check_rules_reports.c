/*
 * check_rules_reports.c - tagbot-rules(7) REPORTS, FIXES AND STABLE: BAD_REPORTED_BY_LINK,
 * BAD_FIXES_TAG, MISSING_FIXES_TAG, BAD_STABLE_ADDRESS_STYLE, GIT_COMMIT_ID.
 *
 * Each case is a commit message put into a whole patch mail; the expected
 * count (and line, counted from the first body line) was worked out by
 * reading the case.  Cases marked "unlike checkpatch" would come out
 * differently under checkpatch.pl 6.12.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "testhelp.h"

#define ALICE "Alice Example <alice@example.org>"
#define BOB "Bob Builder <bob@example.org>"
#define SOB "Signed-off-by: " ALICE "\n"
#define DESC "Make the foo driver do bar.\n\n"
#define REP "Reported-by: " BOB "\n"
#define CLOSES "Closes: https://lore.kernel.org/r/20250101.1234-1-bob@example.org/\n"
#define LINK "Link: https://bugzilla.kernel.org/show_bug.cgi?id=12345\n"
#define FIX "Fixes: 0123456789ab (\"leds: foo: add bar\")\n"
#define SHA40 "0123456789abcdef0123456789abcdef01234567"

#define DIFF "---\n drivers/leds/foo.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n" \
	"diff --git a/drivers/leds/foo.c b/drivers/leds/foo.c\n" \
	"index 1111111..2222222 100644\n--- a/drivers/leds/foo.c\n+++ b/drivers/leds/foo.c\n" \
	"@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int c;\n int d;\n"

#define ANY_LINE ((long)-1)

struct mail_case {
	const char *name;
	const char *subject;	/* NULL = a plain [PATCH] subject */
	const char *body;	/* the commit message; DIFF is appended */
	const char *rule;
	size_t count;		/* findings of rule */
	long line;		/* line of the first one, or ANY_LINE */
	const char *msg_has;	/* substring of its message, or NULL */
};

static char *make_mail(const char *subject, const char *body)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "From: " ALICE "\nTo: linux-leds@vger.kernel.org\nSubject: %s\n"
		   "Message-ID: <20250101100000.1-1@example.org>\n"
		   "Date: Wed, 1 Jan 2025 10:00:00 +0000\nMIME-Version: 1.0\n"
		   "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n%s"
		   DIFF, subject ? subject : "[PATCH] leds: foo: do bar", body);
	return buf_detach(&b, NULL);
}

static const struct finding *first_of(const struct findings *fs, const char *rule)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, rule))
			return &fs->v[i];
	return NULL;
}

static void check_case(const struct mail_case *c, const struct rule_settings *s)
{
	char *raw = make_mail(c->subject, c->body);
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
	free(raw);
}

/* ---- BAD_REPORTED_BY_LINK -------------------------------------------- */

static const struct mail_case reported_cases[] = {
	{ "closes", NULL, DESC REP CLOSES SOB, "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	/* unlike checkpatch 6.12, which wants Closes: only */
	{ "link", NULL, DESC REP LINK SOB, "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "plain http", NULL, DESC REP "Link: http://example.org/bug/1\n" SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "alone", NULL, DESC REP SOB, "BAD_REPORTED_BY_LINK", 1, 3,
	  "Reported-by: is not followed by a Closes: (or Link:) with the report's URL; if the "
	  "report is public, add one right after this line." },
	{ "last line", NULL, DESC SOB REP, "BAD_REPORTED_BY_LINK", 1, 4, NULL },
	/* several reporters of one report */
	{ "group", NULL, DESC REP "Reported-by: Carol Coder <carol@example.com>\n" CLOSES SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "group without link", NULL, DESC REP "Reported-by: Carol Coder <carol@example.com>\n" SOB,
	  "BAD_REPORTED_BY_LINK", 1, 4, NULL },
	{ "two reports", NULL, DESC REP CLOSES "Reported-by: Carol Coder <carol@example.com>\n"
	  "Closes: https://github.com/foo/bar/issues/3\n" SOB, "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "second report unlinked", NULL, DESC REP CLOSES "Reported-by: Carol Coder <carol@example.com>\n"
	  SOB, "BAD_REPORTED_BY_LINK", 1, 5, NULL },
	{ "several links", NULL, DESC REP CLOSES LINK SOB, "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	/* the link may come later in the trailer block, before the next report */
	{ "link after a fixes", NULL, DESC REP FIX CLOSES SOB, "BAD_REPORTED_BY_LINK", 0, ANY_LINE,
	  NULL },
	{ "link after the sign-off", NULL, DESC REP SOB CLOSES, "BAD_REPORTED_BY_LINK", 0, ANY_LINE,
	  NULL },
	{ "link only before", NULL, DESC CLOSES REP SOB, "BAD_REPORTED_BY_LINK", 1, 4, NULL },
	{ "link only after the next report", NULL, DESC REP FIX "Reported-by: Carol Coder "
	  "<carol@example.com>\n" CLOSES SOB, "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	/* the author says the report is not on the web */
	{ "private, in the notes", NULL, DESC REP SOB "---\nNote: no Closes tag, the issue was "
	  "reported on a private chat.\n", "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "off-list, in the message", NULL, DESC "Bob reported this to me off-list.\n\n" REP SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "directly, in the notes", NULL, DESC REP SOB "---\nThe bug was reported directly to "
	  "me.\n", "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	/* a reporter the version notes credit reviewed an earlier version */
	{ "reporter credited in the notes", NULL, DESC REP SOB "---\nChanges in v3:\n- Fix up "
	  "issues as pointed out by Bob Builder\n", "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "reporter's address in the notes", NULL, DESC REP SOB "---\nv2: thanks to "
	  "bob@example.org for the review\n", "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "someone else credited in the notes", NULL, DESC REP SOB "---\nChanges in v2:\n- as "
	  "pointed out by Carol Coder\n", "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	/* b4 and git send-email list the Cc's below ---: not a credit */
	{ "reporter in the Cc list below ---", NULL, DESC REP SOB "---\nCC: " BOB "\n"
	  "Cc: linux-leds@vger.kernel.org\n", "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "reporter named in the message only", NULL, "Bob Builder saw foo crash.\n\n" REP SOB,
	  "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "a security fix", NULL, "Fix a buffer overflow; this is a security fix.\n\n" REP SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "the security module, no fix", NULL, "Speed up the security module hooks.\n\n" REP SOB,
	  "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "private, no report word", NULL, "Make the private data of foo static.\n\n" REP SOB,
	  "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "internal reporter address", NULL, DESC "Reported-by: Bob Builder <bob@internal.example.org>"
	  "\n" SOB, "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "closes without url", NULL, DESC REP "Closes: #123\n" SOB, "BAD_REPORTED_BY_LINK", 1, 3, NULL },
	{ "angle-bracketed url", NULL, DESC REP "Closes: <https://example.org/bug/1>\n" SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "lower-case tag", NULL, DESC "reported-by: " BOB "\n" SOB, "BAD_REPORTED_BY_LINK", 1, 3,
	  "reported-by:" },
	{ "reported-and-tested", NULL, DESC "Reported-and-tested-by: " BOB "\n" SOB,
	  "BAD_REPORTED_BY_LINK", 1, 3, "Reported-and-tested-by:" },
	{ "reported-and-tested linked", NULL, DESC "Reported-and-tested-by: " BOB "\n" CLOSES SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "quoted in prose", NULL, "As Linus put it:\n\n> Reported-by: " BOB "\n\n" DESC SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
	{ "suggested-by is no report", NULL, DESC "Suggested-by: " BOB "\n" SOB,
	  "BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL },
};

START_TEST(test_reported)
{
	check_case(&reported_cases[_i], NULL);
}
END_TEST

/* reported_by_followers = Closes (checkpatch 6.12) or Link only. */
START_TEST(test_reported_followers)
{
	const struct mail_case link = { "closes only: link", NULL, DESC REP LINK SOB,
		"BAD_REPORTED_BY_LINK", 1, 3, "not followed by a Closes: with" };
	const struct mail_case closes = { "closes only: closes", NULL, DESC REP CLOSES SOB,
		"BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL };
	const struct mail_case link2 = { "link only: link", NULL, DESC REP LINK SOB,
		"BAD_REPORTED_BY_LINK", 0, ANY_LINE, NULL };
	const struct mail_case closes2 = { "link only: closes", NULL, DESC REP CLOSES SOB,
		"BAD_REPORTED_BY_LINK", 1, 3, "not followed by a Link: with" };
	struct rule_settings s;

	rule_settings_init(&s);
	s.reported_by_followers = FOLLOW_CLOSES;
	check_case(&link, &s);
	check_case(&closes, &s);
	s.reported_by_followers = FOLLOW_LINK;
	check_case(&link2, &s);
	check_case(&closes2, &s);
	rule_settings_release(&s);
}
END_TEST

/* ---- BAD_FIXES_TAG ------------------------------------------------------ */

static const struct mail_case fixes_cases[] = {
	{ "good", NULL, DESC FIX SOB, "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "good 40", NULL, DESC "Fixes: " SHA40 " (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "good, quotes in subject", NULL, DESC "Fixes: 0123456789ab (\"Revert \"leds: foo\"\")\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "good in prose", NULL, "Make foo do bar.\nFixes: 0123456789ab (\"leds: foo: add bar\")\n\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "short id", NULL, DESC "Fixes: 0123456 (\"leds: foo: add bar\")\n" SOB, "BAD_FIXES_TAG", 1, 3,
	  "at least 12 characters" },
	{ "id of 5", NULL, DESC "Fixes: 01234\n" SOB, "BAD_FIXES_TAG", 1, 3, "too short" },
	{ "too long", NULL, DESC "Fixes: " SHA40 "8 (\"leds: foo\")\n" SOB, "BAD_FIXES_TAG", 1, 3,
	  "longer than a SHA-1" },
	{ "upper case id", NULL, DESC "Fixes: 0123456789AB (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "lower case" },
	{ "no subject", NULL, DESC "Fixes: 0123456789ab\n" SOB, "BAD_FIXES_TAG", 1, 3,
	  "add the subject" },
	{ "lower-case tag", NULL, DESC "fixes: 0123456789ab (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "spelled \"Fixes:\"" },
	{ "no colon in block", NULL, DESC "Fixes 0123456789ab (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, NULL },
	{ "no colon in prose, tag-like", NULL, "Make foo do bar.\nFixes 0123456789ab (\"leds: foo\")\n\n"
	  SOB, "BAD_FIXES_TAG", 1, 2, NULL },
	{ "id inside the quotes", NULL, DESC "Fixes: (\"0123456789ab leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "goes before the parentheses" },
	/* the documents' placeholder <id> copied with its brackets */
	{ "id in angle brackets", NULL, DESC "Fixes: <0123456789ab> (\"leds: foo: add bar\")\n"
	  SOB, "BAD_FIXES_TAG", 1, 3, "drop the brackets" },
	{ "id in square brackets", NULL, DESC "Fixes: [0123456789abcdef] (\"leds: foo: add bar\")\n"
	  SOB, "BAD_FIXES_TAG", 1, 3, "drop the brackets" },
	{ "a bracketed word is no id", NULL, DESC "Fixes: [regression] (\"leds: foo\")\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "an unclosed bracket is no tag", NULL, DESC "Fixes: <0123456789ab (\"leds: foo\")\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "a subject in parentheses only", NULL, DESC "Fixes: (\"facade: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "word commit", NULL, DESC "Fixes: commit 0123456789ab (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "drop the word" },
	{ "two spaces after colon", NULL, DESC "Fixes:  0123456789ab (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, NULL },
	{ "two spaces before subject", NULL, DESC "Fixes: 0123456789ab  (\"leds: foo: add bar\")\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "one space" },
	/* the real mail in the corpus had this */
	{ "subject not quoted", NULL, DESC "Fixes: 0123456789ab (leds: foo: add bar)\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "double quotes" },
	{ "single quotes", NULL, DESC "Fixes: 0123456789ab ('leds: foo: add bar')\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "double quotes" },
	{ "wrapped subject", NULL, DESC "Fixes: 0123456789ab (\"leds: foo: add a rather long\n"
	  "  subject that wraps\")\n" SOB, "BAD_FIXES_TAG", 1, 3, "on one line" },
	{ "unclosed subject", NULL, DESC "Fixes: 0123456789ab (\"leds: foo: add bar\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "close the subject" },
	{ "trailing text", NULL, DESC "Fixes: 0123456789ab (\"leds: foo: add bar\") in v6.1\n" SOB,
	  "BAD_FIXES_TAG", 1, 3, "Nothing should follow" },
	/* prose, not tags (unlike checkpatch: "decade" is hex followed by a word boundary) */
	{ "prose decade-old", NULL, "Fixes decade-old bug in the foo driver.\n\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "decade-old with a colon", NULL, "Make foo do bar.\nFixes: decade-old bug in probe\n\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "prose the crash", NULL, "Fixes the crash on probe.\n\n" SOB, "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "prose id then words", NULL, "Make foo do bar.\nfixes 0123456 which broke probe.\n\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "fixes with a url", NULL, DESC "Fixes: https://bugzilla.kernel.org/show_bug.cgi?id=1\n" SOB,
	  "BAD_FIXES_TAG", 0, ANY_LINE, NULL },
};

START_TEST(test_fixes)
{
	check_case(&fixes_cases[_i], NULL);
}
END_TEST

/* ---- MISSING_FIXES_TAG ---------------------------------------------- */

static const struct mail_case missing_fixes_cases[] = {
	{ "kasan", NULL, "Avoid a use-after-free:\n\n BUG: KASAN: slab-use-after-free in foo_probe\n\n" SOB,
	  "MISSING_FIXES_TAG", 1, 3, "BUG: KASAN:" },
	{ "kasan with fixes", NULL, "Avoid a use-after-free:\n\n BUG: KASAN: slab-use-after-free in foo\n\n"
	  FIX SOB, "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "call trace", NULL, "The probe oopses:\n\n  Call Trace:\n   foo_probe+0x10/0x20\n\n" SOB,
	  "MISSING_FIXES_TAG", 1, 3, "Call Trace:" },
	{ "ubsan", NULL, "UBSAN: shift-out-of-bounds in drivers/leds/foo.c:12\n\n" SOB,
	  "MISSING_FIXES_TAG", 1, 1, "UBSAN:" },
	{ "syzbot", NULL, DESC "Reported-by: syzbot+0123abcd@syzkaller.appspotmail.com\n"
	  "Closes: https://syzkaller.appspot.com/bug?extid=0123abcd\n" SOB, "MISSING_FIXES_TAG", 1, 3,
	  NULL },
	{ "cc stable", NULL, DESC "Cc: stable@vger.kernel.org\n" SOB, "MISSING_FIXES_TAG", 1, 3,
	  "Cc: stable" },
	{ "cc stable, bad fixes still a fixes", NULL, DESC "Fixes: 0123456\nCc: stable@vger.kernel.org\n"
	  SOB, "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "noautosel is no fix marker", NULL, DESC "Cc: stable+noautosel@kernel.org # needs new API\n" SOB,
	  "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "revert subject", "[PATCH] Revert \"leds: foo: add bar\"",
	  "It oopses:\n\n  Call Trace:\n   foo_probe+0x10/0x20\n\n" SOB, "MISSING_FIXES_TAG", 0,
	  ANY_LINE, NULL },
	{ "revert body", NULL, "This reverts commit " SHA40 ".\n\nCc: stable@vger.kernel.org\n" SOB,
	  "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "plain change", NULL, DESC SOB, "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
	{ "trace only below separator", NULL, DESC SOB "---\nv2: Call Trace: in the notes\n",
	  "MISSING_FIXES_TAG", 0, ANY_LINE, NULL },
};

START_TEST(test_missing_fixes)
{
	check_case(&missing_fixes_cases[_i], NULL);
}
END_TEST

START_TEST(test_missing_fixes_is_check)
{
	char *raw = make_mail(NULL, DESC "Cc: stable@vger.kernel.org\n" SOB);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_int_eq(first_of(&fs, "MISSING_FIXES_TAG")->severity, SEV_CHECK);
	findings_release(&fs);
	free(raw);
}
END_TEST

/* ---- BAD_STABLE_ADDRESS_STYLE --------------------------------------- */

static const struct mail_case stable_cases[] = {
	{ "plain", NULL, DESC FIX "Cc: stable@vger.kernel.org\n" SOB, "BAD_STABLE_ADDRESS_STYLE", 0,
	  ANY_LINE, NULL },
	{ "angle and note", NULL, DESC FIX "Cc: <stable@vger.kernel.org> # 6.1+\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 0, ANY_LINE, NULL },
	{ "kernel.org with prerequisite note", NULL, DESC FIX
	  "Cc: stable@kernel.org # 5.10.x: 0123456789ab: leds: foo\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 0, ANY_LINE, NULL },
	{ "display name", NULL, DESC FIX "Cc: stable <stable@kernel.org>\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 4, "no display name" },
	{ "team name", NULL, DESC FIX "Cc: Stable Team <stable@vger.kernel.org> # 6.1\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 4, "\"Stable Team\"" },
	{ "bracket note", NULL, DESC FIX "Cc: stable@vger.kernel.org [5.10+]\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 4, "\"# note\"" },
	{ "bare note", NULL, DESC FIX "Cc: stable@vger.kernel.org 5.10+\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 4, NULL },
	{ "paren note", NULL, DESC FIX "Cc: stable@vger.kernel.org (5.10+)\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 4, NULL },
	{ "noautosel without reason", NULL, DESC "Cc: stable+noautosel@kernel.org\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 1, 3, "reason" },
	{ "noautosel with reason", NULL, DESC "Cc: stable+noautosel@kernel.org # needs the new API\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 0, ANY_LINE, NULL },
	{ "other list", NULL, DESC "Cc: linux-leds@vger.kernel.org [the list]\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 0, ANY_LINE, NULL },
	{ "stable in another tag", NULL, DESC "Reviewed-by: stable <stable@vger.kernel.org>\n" SOB,
	  "BAD_STABLE_ADDRESS_STYLE", 0, ANY_LINE, NULL },
};

START_TEST(test_stable)
{
	check_case(&stable_cases[_i], NULL);
}
END_TEST

/* A display name alone is only a check (the tools find the address, and
 * "stable <stable@kernel.org>" is the stable maintainers' own form); a
 * note not written as "# note" stays a warning, display name or not. */
START_TEST(test_stable_severity)
{
	static const struct {
		const char *trailer;
		enum severity sev;
		const char *msg_has;
	} cases[] = {
		{ "Cc: stable <stable@kernel.org>\n", SEV_CHECK, "no display name" },
		{ "Cc: Stable Team <stable@vger.kernel.org> # 6.1\n", SEV_CHECK, "\"Stable Team\"" },
		{ "Cc: Stable Team <stable@vger.kernel.org> [6.1+]\n", SEV_WARNING, "\"# note\"" },
		{ "Cc: stable <stable+noautosel@kernel.org>\n", SEV_WARNING, "reason" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf body;
		char *raw;
		struct findings fs;
		const struct finding *f;

		buf_init(&body, 0);
		buf_printf(&body, DESC FIX "%s" SOB, cases[i].trailer);
		raw = make_mail(NULL, body.data);
		findings_init(&fs);
		th_check_mail(raw, NULL, &fs);
		ck_assert_msg(th_count(&fs, "BAD_STABLE_ADDRESS_STYLE") == 1, "%s: %s",
			      cases[i].trailer, th_dump(&fs));
		f = first_of(&fs, "BAD_STABLE_ADDRESS_STYLE");
		ck_assert_msg(f->severity == cases[i].sev, "%s: severity %d", cases[i].trailer,
			      (int)f->severity);
		ck_assert_msg(strstr(f->message, cases[i].msg_has), "%s: %s", cases[i].trailer,
			      f->message);
		findings_release(&fs);
		free(raw);
		buf_release(&body);
	}
}
END_TEST

/* ---- GIT_COMMIT_ID -------------------------------------------------- */

static const struct mail_case commit_cases[] = {
	{ "good", NULL, "As commit 0123456789ab (\"leds: foo: add bar\") did, do bar.\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "good capital", NULL, "Commit 0123456789ab (\"leds: foo: add bar\") broke baz.\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "short", NULL, "Since commit 0123456 (\"leds: foo\") the LED stays on.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, "commit 0123456 with at least 12" },
	{ "no subject", NULL, "Make foo do bar.\nCommit 0123456789ab broke it.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 2, "commit 0123456789ab (\"<subject>\")" },
	{ "upper case", NULL, "Since commit 0123456789AB (\"leds: foo\") it is off.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, "lower case" },
	{ "single quotes", NULL, "Since commit 0123456789ab ('leds: foo') it is off.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, "double quotes" },
	{ "subject wraps", NULL, "The bug came with commit 0123456789ab (\"leds: foo: add a\n"
	  "rather long subject\").\n\n" SOB, "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "id on next line", NULL, "The bug came with commit\n0123456789ab (\"leds: foo: add bar\").\n\n"
	  SOB, "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "id on next line, no subject", NULL, "The bug came with commit\n0123456789ab and stayed.\n\n"
	  SOB, "GIT_COMMIT_ID", 1, 1, NULL },
	{ "unclosed", NULL, "Since commit 0123456789ab (\"leds: foo: add bar it is off.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, "close the subject" },
	{ "two on a line, second bad", NULL,
	  "Commits 0123456789ab and commit 0123456 (\"x\") broke it.\n\n" SOB, "GIT_COMMIT_ID", 1, 1,
	  "0123456" },
	/* the subject given elsewhere in the message */
	{ "subject in the fixes line", NULL, "When commit 0123456789ab added bar, foo broke.\n\n"
	  FIX SOB, "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "subject in an earlier citation", NULL, "Commit 0123456789ab (\"leds: foo: add bar\") "
	  "added bar.\n\nSince commit 0123456789ab foo is off.\n\n" SOB, "GIT_COMMIT_ID", 0,
	  ANY_LINE, NULL },
	{ "fixes names another commit", NULL, "When commit 0123456789ac added bar, foo broke.\n\n"
	  FIX SOB, "GIT_COMMIT_ID", 1, 1, NULL },
	{ "short id, subject in the fixes line", NULL, "When commit 0123456 added bar, foo broke.\n\n"
	  FIX SOB, "GIT_COMMIT_ID", 1, 1, "at least 12" },
	/* a commit of another repository */
	{ "vendor tree by reference", NULL, "Taken from the vendor tree [1] at commit 824b817f8\n"
	  "(a 5.10 kernel).\n\n[1] https://github.example.com/vendor/sdk\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "vendor tree URL in the paragraph", NULL, "Taken from commit 824b817f8 of\n"
	  "https://gitlab.example.org/vendor/linux.\n\n" SOB, "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "a kernel.org URL is the kernel", NULL, "Since commit 0123456 of\n"
	  "https://git.kernel.org/pub/scm/linux/kernel/git/foo/bar.git it is off.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, NULL },
	{ "a reference to lore is the kernel", NULL, "Since commit 0123456 [1] it is off.\n\n"
	  "[1]: https://lore.kernel.org/r/20250101.1234-1-bob@example.org/\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, NULL },
	{ "a foreign URL in another paragraph", NULL, "Since commit 0123456 it is off.\n\n"
	  "See https://github.example.com/vendor/sdk for the tool.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, NULL },
	/* backports and reverts: unlike checkpatch */
	{ "stable upstream line", NULL, "commit " SHA40 " upstream.\n\n" DESC SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "upstream bracket", NULL, "[ Upstream commit " SHA40 " ]\n\n" DESC SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "cherry-pick -x", NULL, DESC "(cherry picked from commit " SHA40 ")\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "this reverts", NULL, "This reverts commit " SHA40 ".\n\n" DESC SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "other reverts", NULL, "This patch partially reverts commit 0123456.\n\n" SOB,
	  "GIT_COMMIT_ID", 1, 1, NULL },
	{ "quoted log header", NULL, "git log shows:\n\n    commit " SHA40 "\n    Author: Bob\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	/* not citations */
	{ "fixes line", NULL, DESC "Fixes: commit 0123456 (\"leds: foo\")\n" SOB, "GIT_COMMIT_ID", 0,
	  ANY_LINE, NULL },
	{ "prose commit", NULL, "We commit to keeping the ABI and commit deadlines.\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "url", NULL, DESC "Link: https://git.kernel.org/linus/c/commit/?id=0123456\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "commits plural", NULL, "The commits 0123456 and 789abcd did this.\n\n" SOB,
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
	{ "below separator", NULL, DESC SOB "---\nv2: rebased on commit 0123456\n",
	  "GIT_COMMIT_ID", 0, ANY_LINE, NULL },
};

START_TEST(test_commit_id)
{
	check_case(&commit_cases[_i], NULL);
}
END_TEST

START_TEST(test_cover_letter_unchecked)
{
	static const char raw[] =
		"From: " ALICE "\nTo: linux-leds@vger.kernel.org\n"
		"Subject: [PATCH 0/2] leds: foo: two fixes\n"
		"Message-ID: <20250101100000.1-0@example.org>\nDate: Wed, 1 Jan 2025 10:00:00 +0000\n\n"
		"Since commit 0123456 the LED is off.\n\n" REP "Fixes: 0123456\nCc: stable <stable@kernel.org>\n";
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_uint_eq(th_count(&fs, "BAD_REPORTED_BY_LINK"), 0);
	ck_assert_uint_eq(th_count(&fs, "BAD_FIXES_TAG"), 0);
	ck_assert_uint_eq(th_count(&fs, "MISSING_FIXES_TAG"), 0);
	ck_assert_uint_eq(th_count(&fs, "BAD_STABLE_ADDRESS_STYLE"), 0);
	ck_assert_uint_eq(th_count(&fs, "GIT_COMMIT_ID"), 0);
	findings_release(&fs);
}
END_TEST

/*
 * A series' parts were checked one by one; its cover letter can settle a
 * BAD_REPORTED_BY_LINK of theirs: a cover saying the fixes are for a
 * security report (reported in private, security-bugs.rst) turns them
 * off; a cover that says nothing of the kind, or a patch, does not.
 */
START_TEST(test_cover_settles)
{
	static const struct {
		const char *subject, *body;
		enum severity want;
	} cases[] = {
		{ "[PATCH 0/2] foo: fixes", "This includes some urgent security fixes.\n", SEV_OFF },
		{ "[PATCH 0/2] foo: fixes", "Bob reported these to me off-list.\n", SEV_OFF },
		{ "[PATCH 0/2] foo: fixes", "Two fixes for bugs Bob reported.\n", SEV_WARNING },
		{ "[PATCH 0/2] foo: fixes", "Make the security module's hooks faster.\n", SEV_WARNING },
		{ "[PATCH 1/2] foo: fix", "This includes some urgent security fixes.\n", SEV_WARNING },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct findings part;
		struct message m;
		struct patch *p;
		size_t np;
		struct err e;
		struct buf raw;

		buf_init(&raw, 0);
		buf_printf(&raw, "From: " ALICE "\nSubject: %s\nMessage-ID: <c@example.org>\n\n%s\n"
			   "Alice Example (2):\n  foo: a\n  foo: b\n", cases[i].subject, cases[i].body);
		message_init(&m);
		ck_assert(message_parse(&m, raw.data, raw.len, &e) == 0);
		patch_parse(&m, &p, &np);
		findings_init(&part);
		findings_add(&part, "BAD_REPORTED_BY_LINK", SEV_WARNING, NULL, "doc", "add a link");
		findings_add(&part, "BAD_FIXES_TAG", SEV_WARNING, NULL, "doc", "quote it");
		rules_cover_settles(&p[0], &part, 1);
		ck_assert_msg(part.v[0].severity == cases[i].want, "case %zu: severity %d", i,
			      (int)part.v[0].severity);
		ck_assert_int_eq(part.v[1].severity, SEV_WARNING);
		findings_release(&part);
		patches_free(p, np);
		message_release(&m);
		buf_release(&raw);
	}
}
END_TEST

/* ---- real mails from the linux-leds corpus (trimmed headers) -------------- */

struct real_case {
	const char *file;
	size_t reported, bad_fixes, missing_fixes, stable, commit_id;
	long line;	/* line of the single finding, when there is one */
};

static const struct real_case real_cases[] = {
	{ "rules/rules-real-clean.eml", 0, 0, 0, 0, 0, ANY_LINE },
	/* kernel test robot + Closes: to the kbuild report */
	{ "rules/rules-real-reported-closes.eml", 0, 0, 0, 0, 0, ANY_LINE },
	/* a good Fixes: on line 9, Reported-by: on line 10 followed by Signed-off-by: */
	{ "rules/rules-real-fixes-reported-no-link.eml", 1, 0, 0, 0, 0, 10 },
};

START_TEST(test_real)
{
	const struct real_case *c = &real_cases[_i];
	char *raw = th_read_data(c->file, NULL);
	struct findings fs;
	const struct finding *f;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "BAD_REPORTED_BY_LINK") == c->reported, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "BAD_FIXES_TAG") == c->bad_fixes, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "MISSING_FIXES_TAG") == c->missing_fixes, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "BAD_STABLE_ADDRESS_STYLE") == c->stable, "%s:\n%s", c->file, th_dump(&fs));
	ck_assert_msg(th_count(&fs, "GIT_COMMIT_ID") == c->commit_id, "%s:\n%s", c->file, th_dump(&fs));
	f = first_of(&fs, "BAD_REPORTED_BY_LINK");
	if (f && c->line != ANY_LINE)
		ck_assert_int_eq((long)f->line, c->line);
	findings_release(&fs);
	free(raw);
}
END_TEST

/* Greg's "Cc: stable <stable@kernel.org>" (line 11) and no Fixes: tag. */
START_TEST(test_real_stable_name)
{
	char *raw = th_read_data("rules/rules-real-stable-name-assisted.eml", NULL);
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "BAD_STABLE_ADDRESS_STYLE") == 1, "%s", th_dump(&fs));
	ck_assert_uint_eq(first_of(&fs, "BAD_STABLE_ADDRESS_STYLE")->line, 11);
	ck_assert_msg(th_count(&fs, "MISSING_FIXES_TAG") == 1, "%s", th_dump(&fs));
	ck_assert_uint_eq(first_of(&fs, "MISSING_FIXES_TAG")->line, 11);
	ck_assert_uint_eq(th_count(&fs, "BAD_REPORTED_BY_LINK"), 0);
	ck_assert_uint_eq(th_count(&fs, "BAD_FIXES_TAG"), 0);
	ck_assert_uint_eq(th_count(&fs, "GIT_COMMIT_ID"), 0);
	findings_release(&fs);
	free(raw);
}
END_TEST

/* Hostile input: one huge line full of "commit" must stay linear. */
START_TEST(test_long_line)
{
	struct buf body;
	char *raw;
	struct findings fs;

	buf_init(&body, 0);
	for (int i = 0; i < 100000; i++)
		buf_addstr(&body, "commit 01234 ");
	buf_addstr(&body, "\n\n" SOB);
	raw = make_mail(NULL, body.data);
	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_uint_eq(th_count(&fs, "GIT_COMMIT_ID"), 1);
	findings_release(&fs);
	free(raw);
	buf_release(&body);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rules_reports");
	TCase *tc = tcase_create("reports");

	tcase_add_loop_test(tc, test_reported, 0, (int)ARRAY_SIZE(reported_cases));
	tcase_add_test(tc, test_reported_followers);
	tcase_add_loop_test(tc, test_fixes, 0, (int)ARRAY_SIZE(fixes_cases));
	tcase_add_loop_test(tc, test_missing_fixes, 0, (int)ARRAY_SIZE(missing_fixes_cases));
	tcase_add_test(tc, test_missing_fixes_is_check);
	tcase_add_loop_test(tc, test_stable, 0, (int)ARRAY_SIZE(stable_cases));
	tcase_add_test(tc, test_stable_severity);
	tcase_add_loop_test(tc, test_commit_id, 0, (int)ARRAY_SIZE(commit_cases));
	tcase_add_test(tc, test_cover_letter_unchecked);
	tcase_add_test(tc, test_cover_settles);
	tcase_add_loop_test(tc, test_real, 0, (int)ARRAY_SIZE(real_cases));
	tcase_add_test(tc, test_real_stable_name);
	tcase_add_test(tc, test_long_line);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
