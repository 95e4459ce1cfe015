#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "rules/rules.h"
#include "testhelp.h"

/*
 * A mail built from parts: the defaults make a clean single patch from a
 * git send-email run, so each case only writes what it is about.
 */
struct mail {
	const char *subject;	/* NULL: "[PATCH] leds: foo: fix the bar" */
	const char *msgid;	/* NULL: DEFAULT_ID; "" no Message-ID header */
	const char *headers;	/* extra header lines, each ending in \n */
	const char *body;	/* the commit message after the description */
	const char *after;	/* NULL: a diffstat and a small diff */
};

#define DEFAULT_ID "20250105101010.4242-1-ann@example.org"

static const char default_after[] =
	" drivers/leds/leds-foo.c | 1 +\n"
	" 1 file changed, 1 insertion(+)\n"
	"\n"
	"diff --git a/drivers/leds/leds-foo.c b/drivers/leds/leds-foo.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/leds/leds-foo.c\n"
	"+++ b/drivers/leds/leds-foo.c\n"
	"@@ -1,3 +1,4 @@\n"
	" #include <linux/leds.h>\n"
	"+#include <linux/module.h>\n"
	" \n"
	" static int foo;\n";

static char *build(const struct mail *m)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "From: Ann Author <ann@example.org>\n"
		   "To: linux-leds@vger.kernel.org\n"
		   "Subject: %s\n"
		   "Date: Sun, 05 Jan 2025 10:10:10 +0000\n",
		   m->subject ? m->subject : "[PATCH] leds: foo: fix the bar");
	if (!m->msgid || *m->msgid)
		buf_printf(&b, "Message-ID: <%s>\n", m->msgid ? m->msgid : DEFAULT_ID);
	buf_printf(&b, "%sMIME-Version: 1.0\n"
		   "Content-Type: text/plain; charset=utf-8\n"
		   "\n"
		   "The bar was computed from the wrong register, so the LED stayed off.\n"
		   "Read the right one.\n"
		   "\n"
		   "%s---\n%s",
		   m->headers ? m->headers : "", m->body ? m->body : "",
		   m->after ? m->after : default_after);
	return buf_detach(&b, NULL);
}

static void check_built(const struct mail *m, struct findings *fs)
{
	char *raw = build(m);

	findings_init(fs);
	th_check_mail(raw, NULL, fs);
	free(raw);
}

#define SOB "Signed-off-by: Ann Author <ann@example.org>\n"

static const struct {
	const char *name;
	struct mail m;
	const char *rule;
	size_t count;
} cases[] = {
	/* LINK_TO_SELF */
	{ "self via lore/r", { .body = "Link: https://lore.kernel.org/r/" DEFAULT_ID "\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self via Closes and %40", { .body = "Closes: https://lore.kernel.org/all/20250105101010.4242-1-ann%40example.org/\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self, domain case differs", { .body = "Link: https://patch.msgid.link/20250105101010.4242-1-ann@EXAMPLE.org\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self, <> in the URL", { .body = "Link: https://lore.kernel.org/r/%3C" DEFAULT_ID "%3E\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self via patchwork.ozlabs.org", { .body = "Link: https://patchwork.ozlabs.org/project/netdev/patch/" DEFAULT_ID "/\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self with a # comment", { .body = "Link: https://lore.kernel.org/r/" DEFAULT_ID " # [1]\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "self with [1] against the URL", { .body = "Link: https://lore.kernel.org/r/" DEFAULT_ID "[1]\n" SOB },
	  "LINK_TO_SELF", 1 },
	{ "not self: local part case differs", { .body = "Link: https://lore.kernel.org/r/20250105101010.4242-1-ANN@example.org\n" SOB },
	  "LINK_TO_SELF", 0 },
	{ "not self: another mail", { .body = "Link: https://lore.kernel.org/r/20250101000000.1-1-bob@example.org\n" SOB },
	  "LINK_TO_SELF", 0 },
	{ "not self: no Message-ID", { .msgid = "", .body = "Link: https://lore.kernel.org/r/" DEFAULT_ID "\n" SOB },
	  "LINK_TO_SELF", 0 },
	{ "not self: below ---", { .body = SOB, .after = "Link: https://lore.kernel.org/r/" DEFAULT_ID "\n\n"
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" },
	  "LINK_TO_SELF", 0 },

	/* LINK_TO_PREVIOUS_VERSION: b4 stems */
	{ "b4 v3 links its v2", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
		.body = "Link: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "b4 v3 links its v1 cover on lkml.kernel.org", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar",
		.msgid = "20250103-foo-v3-1-0a1b2c3d4e5f@kernel.org",
		.body = "Link: https://lkml.kernel.org/r/20241101-foo-v1-0-ffffeeeedddd@KERNEL.org\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "own b4 ID without -vN-, subject says v3", { .subject = "[PATCH v3] leds: foo: fix the bar",
		.msgid = "20250103-foo-1-abc@x", .body = "Link: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "b4 change-id footer, own ID from git send-email", { .subject = "[PATCH v2] leds: foo: fix the bar",
		.body = "Link: https://lore.kernel.org/r/20241201-foo-v1-1-abc@x\n" SOB,
		.after = " x | 1 +\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\n---\n"
			 "base-commit: 0123456789abcdef0123456789abcdef01234567\n"
			 "change-id: 20241201-foo-0123456789ab\n" },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "b4 same version is no earlier posting", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar",
		.msgid = "20250103-foo-v3-1-abc@x", .body = "Link: https://lore.kernel.org/r/20250103-foo-v3-2-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "b4 other change", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
		.body = "Link: https://lore.kernel.org/r/20241201-foobar-v2-1-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "b4 same name, other domain", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
		.body = "Link: https://lore.kernel.org/r/20241201-foo-v2-1-abc@y\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "b4 later version", { .subject = "[PATCH v2 1/2] leds: foo: fix the bar", .msgid = "20241201-foo-v2-1-abc@x",
		.body = "Link: https://lore.kernel.org/r/20250103-foo-v3-1-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "b4 v2 below --- is right", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
		.body = SOB, .after = "Link to v2: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x\n\n"
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	/* a reference the text cites: what it holds matters, not which posting it is */
	{ "b4 v7 cites its v6 cover as [1]", { .subject = "[PATCH v7 4/9] leds: foo: fix the bar",
		.msgid = "20250103-foo-v7-4-abc@x", .body = "This needs the bar support of [1].\n\n"
		"Link: https://lore.kernel.org/r/20241201-foo-v6-0-abc@x/ [1]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "b4 v7 labels its v6 [1], the text does not cite it", {
		.subject = "[PATCH v7 4/9] leds: foo: fix the bar", .msgid = "20250103-foo-v7-4-abc@x",
		.body = "This needs the bar support.\n\n"
		"Link: https://lore.kernel.org/r/20241201-foo-v6-0-abc@x/ [1]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "Closes: is never a previous version", { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
		.body = "Closes: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },

	/* LINK_TO_PREVIOUS_VERSION: labels, which are comments after the URL (unlike checkpatch) */
	{ "label # v1", { .subject = "[PATCH v2] leds: foo: fix the bar",
		.body = "Link: https://lore.kernel.org/r/20241201101010.1-1-ann@example.org # v1\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "label [v2]", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ [v2]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "label (v1) after a space", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ (v1)\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "label (v1) against the URL", { .body = "Link: https://lore.kernel.org/all/abc@example.org/(v1)\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "label [PATCH v2]", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ # [PATCH v2]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 1 },
	{ "label # [1] is a footnote", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ # [1]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "label [1] is a footnote", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ [1]\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "label # v6.1 is a release", { .body = "Link: https://lore.kernel.org/all/abc@example.org/ # v6.1\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "vN inside the URL is no label", { .body = "Link: https://example.org/docs/v2\n" SOB },
	  "LINK_TO_PREVIOUS_VERSION", 0 },
	{ "a URL ending in (text) keeps it", { .body = "Link: https://en.wikipedia.org/wiki/PWM_(disambiguation)\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 0 },

	/* LINK_TO_OWN_SERIES */
	{ "git send-email: patch 2/3 links its cover", { .subject = "[PATCH 2/3] leds: foo: fix the bar",
		.msgid = "20250105101010.4242-3-ann@example.org",
		.headers = "In-Reply-To: <20250105101010.4242-1-ann@example.org>\nReferences: <20250105101010.4242-1-ann@example.org>\n",
		.body = "Link: https://lore.kernel.org/r/20250105101010.4242-1-ann@example.org\n" SOB },
	  "LINK_TO_OWN_SERIES", 1 },
	{ "b4: links patch 1 of its series, no References", { .subject = "[PATCH v3 2/2] leds: foo: fix the bar",
		.msgid = "20250103-foo-v3-2-abc@x", .body = "Link: https://lore.kernel.org/r/20250103-foo-v3-1-abc@x\n" SOB },
	  "LINK_TO_OWN_SERIES", 1 },
	{ "format-patch --thread: links its cover", { .subject = "[PATCH 1/2] leds: foo: fix the bar",
		.msgid = "0123456789abcdef0123456789abcdef01234567.1752334655.git.ann@example.org",
		.headers = "In-Reply-To: <cover.1752334655.git.ann@example.org>\n",
		.body = "Link: https://lore.kernel.org/r/cover.1752334655.git.ann@example.org\n" SOB },
	  "LINK_TO_OWN_SERIES", 1 },
	{ "unknown tool: an ancestor below the root", { .subject = "[PATCH 3/3] leds: foo: fix the bar",
		.msgid = "p3.xyz@example.org",
		.headers = "In-Reply-To: <cover.xyz@example.org>\nReferences: <report.q@example.com> <cover.xyz@example.org>\n",
		.body = "Link: https://lore.kernel.org/r/cover.xyz@example.org\n" SOB },
	  "LINK_TO_OWN_SERIES", 1 },
	{ "unknown tool: the series answers a report", { .subject = "[PATCH 3/3] leds: foo: fix the bar",
		.msgid = "p3.xyz@example.org",
		.headers = "In-Reply-To: <cover.xyz@example.org>\nReferences: <report.q@example.com> <cover.xyz@example.org>\n",
		.body = "Link: https://lore.kernel.org/r/report.q@example.com\n" SOB },
	  "LINK_TO_OWN_SERIES", 0 },
	{ "a single patch answers a discussion", {
		.headers = "In-Reply-To: <reply2@example.com>\nReferences: <report@example.com> <reply1@example.com> <reply2@example.com>\n",
		.body = "Link: https://lore.kernel.org/r/reply1@example.com\n" SOB },
	  "LINK_TO_OWN_SERIES", 0 },
	{ "another run of git send-email", { .subject = "[PATCH 2/3] leds: foo: fix the bar",
		.msgid = "20250105101010.4242-3-ann@example.org",
		.body = "Link: https://lore.kernel.org/r/20241205101010.777-1-ann@example.org\n" SOB },
	  "LINK_TO_OWN_SERIES", 0 },

	/* LINK_SHOULD_BE_CLOSES */
	{ "Link: to bugzilla", { .body = "Link: https://bugzilla.kernel.org/show_bug.cgi?id=219999\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 1 },
	{ "Link: to a GitHub issue, footnote after it", { .body = "Link: https://github.com/lm-sensors/lm-sensors/issues/508 [1]\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 1 },
	{ "Link: to bugzilla, [1] against the URL", { .body = "Link: https://bugzilla.kernel.org/show_bug.cgi?id=1[1]\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 1 },
	{ "Link: to syzkaller", { .body = "Link: https://syzkaller.appspot.com/bug?extid=0123456789abcdef\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 1 },
	{ "Closes: to bugzilla is right", { .body = "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=219999\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 0 },
	{ "Link: after Reported-by: to a lore report is accepted", {
		.body = "Reported-by: kernel test robot <lkp@intel.com>\n"
			"Link: https://lore.kernel.org/oe-kbuild-all/202502121512.CmoMg9Q7-lkp@intel.com/\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 0 },
	{ "Link: to a GitHub blob", { .body = "Link: https://github.com/LineageOS/android_kernel_samsung_d2/blob/stable/Makefile#L51\n" SOB },
	  "LINK_SHOULD_BE_CLOSES", 0 },

	/* PROVENANCE_LINK */
	{ "Link: to patch.msgid.link", { .body = SOB "Link: https://patch.msgid.link/20241201-foo-v1-1-abc@x\n" },
	  "PROVENANCE_LINK", 1 },
	{ "Message-ID: trailer", { .body = SOB "Message-ID: <87segwyc3p.fsf@trenco.lwn.net>\n" },
	  "PROVENANCE_LINK", 1 },
	{ "Message-Id: trailer", { .body = SOB "Message-Id: <87segwyc3p.fsf@trenco.lwn.net>\n" },
	  "PROVENANCE_LINK", 1 },
	{ "stable backport [PATCH 6.1]", { .subject = "[PATCH 6.1] leds: foo: fix the bar",
		.body = SOB "Link: https://patch.msgid.link/20241201-foo-v1-1-abc@x\n" },
	  "PROVENANCE_LINK", 0 },
	{ "stable backport [PATCH 5.15.y]", { .subject = "[PATCH 5.15.y 2/4] leds: foo: fix the bar",
		.body = SOB "Message-ID: <87segwyc3p.fsf@trenco.lwn.net>\n" },
	  "PROVENANCE_LINK", 0 },
	{ "AUTOSEL", { .subject = "[PATCH AUTOSEL 6.14 157/642] leds: foo: fix the bar",
		.body = SOB "Link: https://patch.msgid.link/20241201-foo-v1-1-abc@x\n" },
	  "PROVENANCE_LINK", 0 },
	{ "commit <sha> upstream.", { .subject = "[PATCH] leds: foo: fix the bar",
		.body = "commit 4f530c65487636dc1536b3fa1041f9a877a66a7f upstream.\n\n"
			SOB "Link: https://patch.msgid.link/20241201-foo-v1-1-abc@x\n" },
	  "PROVENANCE_LINK", 0 },
	{ "Link: to lore is not provenance", { .body = SOB "Link: https://lore.kernel.org/r/20241201-foo-v1-1-abc@x\n" },
	  "PROVENANCE_LINK", 0 },

	/* COMMIT_LOG_WRONG_LINK, in the whole message (unlike checkpatch) */
	{ "<https://...>", { .body = "Link: <https://lore.kernel.org/r/abc@example.org>\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "no scheme", { .body = "Link: lore.kernel.org/r/abc@example.org\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "bare Message-ID", { .body = "Link: 20241201101010.1-1-bob@example.org\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "<bare Message-ID>", { .body = "Closes: <20241201101010.1-1-bob@example.org>\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "Closes: #123", { .body = "Closes: #123\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "empty Link:", { .body = "Link:\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "after the sign-off too", { .body = SOB "Link: <https://lore.kernel.org/r/abc@example.org>\n" },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "in the prose too", { .body = "Link: www.example.org/page\n\nMore prose.\n\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 1 },
	{ "URL with comment", { .body = "Link: https://example.org/page # [1]\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 0 },
	{ "URL with other stuff (5.Posting.rst)", { .body = "Link: https://example.com/somewhere.html  optional-other-stuff\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 0 },
	{ "upper-case scheme", { .body = "Link: HTTPS://example.org/page\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 0 },
	{ "indented lines are quotes", { .body = "    Link: lore.kernel.org/r/abc@example.org\n\n" SOB },
	  "COMMIT_LOG_WRONG_LINK", 0 },
	{ "the diff is not checked", { .body = SOB, .after = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+Link: foo\n" },
	  "COMMIT_LOG_WRONG_LINK", 0 },

	/* COMMIT_LOG_USE_LINK */
	{ "BugLink:", { .body = "BugLink: https://bugs.launchpad.net/bugs/+bug/1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "Bug:", { .body = "Bug: https://example.org/1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "Bugzilla:", { .body = "Bugzilla: https://bugzilla.kernel.org/show_bug.cgi?id=1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "References:", { .body = "References: https://example.org/1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "URL:", { .body = "URL: https://example.org/1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "Patchwork:", { .body = "Patchwork: https://patchwork.kernel.org/project/x/patch/1/\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "Bug-Link:", { .body = "Bug-Link: <https://example.org/1>\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "lower-case link:", { .body = "link: https://example.org/1\n" SOB }, "COMMIT_LOG_USE_LINK", 1 },
	{ "Link: is right", { .body = "Link: https://example.org/1\n" SOB }, "COMMIT_LOG_USE_LINK", 0 },
	{ "References: without a URL", { .body = "References: the data sheet, table 3\n" SOB }, "COMMIT_LOG_USE_LINK", 0 },

	/* PREFER_LORE_ARCHIVE */
	{ "Link: to lkml.org", { .body = "Link: https://lkml.org/lkml/2019/1/1/1\n" SOB }, "PREFER_LORE_ARCHIVE", 1 },
	{ "marc.info in the prose", { .body = "As discussed in https://marc.info/?l=linux-leds&m=1 and\n"
		"http://lists.infradead.org/pipermail/linux-arm-kernel/2019-May/1.html.\n\n" SOB },
	  "PREFER_LORE_ARCHIVE", 2 },
	{ "two old URLs on one line: one finding", { .body = "See https://lkml.org/lkml/1 and https://marc.info/?m=2\n\n" SOB },
	  "PREFER_LORE_ARCHIVE", 1 },
	{ "lore and lkml.kernel.org are fine", { .body = "Link: https://lore.kernel.org/lkml/abc@x/\n"
		"Link: https://lkml.kernel.org/r/abc@x\n" SOB },
	  "PREFER_LORE_ARCHIVE", 0 },
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

/* The finding names the offending line and says how to fix it. */
static const struct finding *first_of(const struct findings *fs, const char *rule)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, rule))
			return &fs->v[i];
	ck_abort_msg("no %s in:\n%s", rule, th_dump(fs));
	return NULL;
}

START_TEST(test_finding_text_and_line)
{
	struct mail m = { .subject = "[PATCH v3 1/2] leds: foo: fix the bar", .msgid = "20250103-foo-v3-1-abc@x",
			  .body = "Link: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x\n" SOB };
	const struct finding *f;
	struct findings fs;

	check_built(&m, &fs);
	f = first_of(&fs, "LINK_TO_PREVIOUS_VERSION");
	/* Lines 1-2 description, 3 blank, 4 the Link:. */
	ck_assert_uint_eq(f->line, 4);
	ck_assert_str_eq(f->text, "Link: https://lore.kernel.org/r/20241201-foo-v2-1-abc@x");
	ck_assert_ptr_nonnull(strstr(f->message, "move it below the --- line"));
	ck_assert_ptr_nonnull(strstr(f->message, "v2"));
	ck_assert_int_eq(f->severity, SEV_WARNING);
	findings_release(&fs);
}
END_TEST

START_TEST(test_messages)
{
	static const struct {
		const char *body, *rule, *want;
	} t[] = {
		{ "Link: 20241201101010.1-1-bob@example.org\n" SOB, "COMMIT_LOG_WRONG_LINK",
		  "https://lore.kernel.org/r/20241201101010.1-1-bob@example.org" },
		{ "Closes: <20241201101010.1-1-bob@example.org>\n" SOB, "COMMIT_LOG_WRONG_LINK",
		  "Closes: https://lore.kernel.org/r/20241201101010.1-1-bob@example.org" },
		{ "Link: <https://example.org/x>\n" SOB, "COMMIT_LOG_WRONG_LINK", "Link: https://example.org/x" },
		{ "Link: lore.kernel.org/r/a@b\n" SOB, "COMMIT_LOG_WRONG_LINK", "https://lore.kernel.org/r/a@b" },
		{ "Link: https://bugzilla.kernel.org/show_bug.cgi?id=1\n" SOB, "LINK_SHOULD_BE_CLOSES",
		  "if this patch fixes that report, use Closes:" },
		{ "BugLink: https://example.org/1\n" SOB, "COMMIT_LOG_USE_LINK", "\"BugLink:\"" },
		{ "Link: https://lkml.org/lkml/1\n" SOB, "PREFER_LORE_ARCHIVE", "lore.kernel.org" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mail m = { .body = t[i].body };
		struct findings fs;
		const struct finding *f;

		check_built(&m, &fs);
		f = first_of(&fs, t[i].rule);
		ck_assert_msg(strstr(f->message, t[i].want), "%s: message \"%s\" lacks \"%s\"",
			      t[i].rule, f->message, t[i].want);
		findings_release(&fs);
	}
}
END_TEST

/* Links in a cover letter are where they belong. */
START_TEST(test_cover_letter_not_checked)
{
	static const char raw[] =
		"From: Ann Author <ann@example.org>\n"
		"Subject: [PATCH v3 0/2] leds: foo: fixes\n"
		"Message-ID: <20250103-foo-v3-0-abc@x>\n"
		"\n"
		"Two fixes.\n"
		"\n"
		"Link: https://lore.kernel.org/r/20241201-foo-v2-0-abc@x\n"
		"link: https://lkml.org/lkml/1\n"
		"Link: lore.kernel.org/r/a@b\n"
		"\n"
		"Ann Author (2):\n"
		"  leds: foo: fix the bar\n"
		"  leds: foo: fix the baz\n";
	struct findings fs;

	findings_init(&fs);
	th_check_mail(raw, NULL, &fs);
	ck_assert_msg(th_count(&fs, "LINK_TO_PREVIOUS_VERSION") + th_count(&fs, "COMMIT_LOG_USE_LINK") +
		      th_count(&fs, "PREFER_LORE_ARCHIVE") + th_count(&fs, "COMMIT_LOG_WRONG_LINK") == 0,
		      "%s", th_dump(&fs));
	findings_release(&fs);
}
END_TEST

START_TEST(test_rule_off)
{
	struct mail m = { .body = "Link: https://bugzilla.kernel.org/show_bug.cgi?id=1\n" SOB };
	struct rule_settings s;
	struct findings fs;
	char *raw = build(&m);

	rule_settings_init(&s);
	s.severity[R_LINK_SHOULD_BE_CLOSES] = SEV_OFF;
	findings_init(&fs);
	th_check_mail(raw, &s, &fs);
	ck_assert_uint_eq(th_count(&fs, "LINK_SHOULD_BE_CLOSES"), 0);
	findings_release(&fs);
	rule_settings_release(&s);
	free(raw);
}
END_TEST

/* Long and repetitive lines: bounded work, one finding per line, short messages. */
START_TEST(test_hostile_lines)
{
	struct buf body;
	struct findings fs;
	struct mail m = { 0 };

	buf_init(&body, 0);
	buf_addstr(&body, "Link: https://lore.kernel.org/r/");
	for (int i = 0; i < 20000; i++)
		buf_addstr(&body, "a%40");
	buf_addstr(&body, "@x # v1\n");
	for (int i = 0; i < 5000; i++)
		buf_addstr(&body, "https://lkml.org/ http:// ");
	buf_addstr(&body, "\nLink: <");
	for (int i = 0; i < 20000; i++)
		buf_addstr(&body, "<<@@");
	buf_addstr(&body, "\n" SOB);
	m.body = body.data;
	check_built(&m, &fs);
	ck_assert_msg(th_count(&fs, "PREFER_LORE_ARCHIVE") == 1, "%s", th_dump(&fs));
	ck_assert_uint_eq(th_count(&fs, "LINK_TO_PREVIOUS_VERSION"), 1);
	ck_assert_uint_eq(th_count(&fs, "COMMIT_LOG_WRONG_LINK"), 1);
	for (size_t i = 0; i < fs.n; i++)
		ck_assert_uint_lt(strlen(fs.v[i].message), 1024);
	findings_release(&fs);
	buf_release(&body);
}
END_TEST

/* ---- trimmed real mails from the linux-leds corpus ---------------------- */

/* Returns s with the first from replaced by to; from must be there. */
static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	struct buf b;

	ck_assert_msg(at != NULL, "fixture lacks \"%s\"", from);
	buf_init(&b, 0);
	buf_add(&b, s, (size_t)(at - s));
	buf_addstr(&b, to);
	buf_addstr(&b, at + strlen(from));
	return buf_detach(&b, NULL);
}

static void check_raw(const char *raw, struct findings *fs)
{
	findings_init(fs);
	th_check_mail(raw, NULL, fs);
}

static const char *const link_rules[] = {
	"LINK_TO_SELF", "LINK_TO_PREVIOUS_VERSION", "LINK_TO_OWN_SERIES", "LINK_SHOULD_BE_CLOSES",
	"PROVENANCE_LINK", "COMMIT_LOG_WRONG_LINK", "COMMIT_LOG_USE_LINK", "PREFER_LORE_ARCHIVE",
};

static size_t link_findings(const struct findings *fs)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(link_rules); i++)
		n += th_count(fs, link_rules[i]);
	return n;
}

/* Clean real mails: a Closes: to a kbuild report, a Link: to the
 * discussion behind a revert (lore /<list>/<id>/T/#m... form). */
START_TEST(test_real_clean)
{
	static const char *const files[] = {
		"rules/links-closes-kbuild-report.eml", "rules/links-revert-discussion-link.eml",
		"rules/links-v2-unlabelled-link-to-v1.eml",
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *raw = th_read_data(files[i], NULL);
		struct findings fs;

		check_raw(raw, &fs);
		ck_assert_msg(link_findings(&fs) == 0, "%s:\n%s", files[i], th_dump(&fs));
		findings_release(&fs);
		free(raw);
	}
}
END_TEST

/* The same real mail, had it been sent with the report's Message-ID. */
START_TEST(test_real_closes_self)
{
	char *raw = th_read_data("rules/links-closes-kbuild-report.eml", NULL);
	char *mod = replace(raw, "Message-ID: <20250212085918.6902-1-brgl@bgdev.pl>",
			    "Message-ID: <202502121512.CmoMg9Q7-lkp@INTEL.COM>");
	struct findings fs;

	check_raw(mod, &fs);
	ck_assert_msg(th_count(&fs, "LINK_TO_SELF") == 1, "%s", th_dump(&fs));
	/* Closes: is on line 7 of the text (after the in-body From: header). */
	ck_assert_uint_eq(first_of(&fs, "LINK_TO_SELF")->line, 7);
	findings_release(&fs);
	free(mod);
	free(raw);
}
END_TEST

/*
 * Krzysztof's v2 links his v1 (a git send-email ID): nothing offline says
 * it is an earlier version, so no finding (the bot's memory or a lookup
 * would).  Labelled "# v1", it is one.
 */
START_TEST(test_real_v2_link_labelled)
{
	char *raw = th_read_data("rules/links-v2-unlabelled-link-to-v1.eml", NULL);
	char *mod = replace(raw, "20250107131456.247610-1-krzysztof.kozlowski@linaro.org\n",
			    "20250107131456.247610-1-krzysztof.kozlowski@linaro.org # v1\n");
	struct findings fs;

	check_raw(mod, &fs);
	ck_assert_msg(th_count(&fs, "LINK_TO_PREVIOUS_VERSION") == 1, "%s", th_dump(&fs));
	ck_assert_uint_eq(first_of(&fs, "LINK_TO_PREVIOUS_VERSION")->line, 12);
	findings_release(&fs);
	free(mod);
	free(raw);
}
END_TEST

/*
 * An AUTOSEL backport carries the maintainer's patch.msgid.link: not the
 * author's doing.  Each of AUTOSEL, the stable version tag and the
 * "[ Upstream commit ]" line alone makes it a backport; with none left it
 * reads as a fresh posting and the link is a finding.
 */
START_TEST(test_real_autosel_provenance)
{
	static const struct {
		const char *subject;
		bool marker;
		size_t want;
	} t[] = {
		{ "[PATCH AUTOSEL 7.0-6.18]", true, 0 },
		{ "[PATCH AUTOSEL 7.0-6.18]", false, 0 },
		{ "[PATCH 6.18]", false, 0 },
		{ "[PATCH]", true, 0 },
		{ "[PATCH]", false, 1 },
	};
	char *raw = th_read_data("rules/links-autosel-backport-msgid-link.eml", NULL);

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *a = replace(raw, "[PATCH AUTOSEL 7.0-6.18]", t[i].subject);
		char *b = t[i].marker ? xstrdup(a)
			: replace(a, "[ Upstream commit 4f530c65487636dc1536b3fa1041f9a877a66a7f ]\n\n", "");
		struct findings fs;

		check_raw(b, &fs);
		ck_assert_msg(th_count(&fs, "PROVENANCE_LINK") == t[i].want, "%s marker=%d:\n%s",
			      t[i].subject, t[i].marker, th_dump(&fs));
		ck_assert_uint_eq(link_findings(&fs), t[i].want);
		findings_release(&fs);
		free(a);
		free(b);
	}
	free(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rules_links");
	TCase *tc = tcase_create("cases");
	TCase *real = tcase_create("real");

	tcase_add_loop_test(tc, test_case, 0, (int)ARRAY_SIZE(cases));
	tcase_add_test(tc, test_finding_text_and_line);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_cover_letter_not_checked);
	tcase_add_test(tc, test_rule_off);
	tcase_add_test(tc, test_hostile_lines);
	suite_add_tcase(s, tc);
	tcase_add_test(real, test_real_clean);
	tcase_add_test(real, test_real_closes_self);
	tcase_add_test(real, test_real_v2_link_labelled);
	tcase_add_test(real, test_real_autosel_provenance);
	suite_add_tcase(s, real);
	return th_run_suite(s);
}
