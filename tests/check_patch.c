#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "testhelp.h"
#include "mail/msgid.h"

/* A 7-line unified diff. */
#define DIFF "diff --git a/f.c b/f.c\n" "index 1111111..2222222 100644\n" \
	"--- a/f.c\n" "+++ b/f.c\n" "@@ -1 +1 @@\n" "-a\n" "+b\n"

/* ---- a struct message built by hand (message.c need not exist) ---------- */

/* hdrs: name, value, name, value, ..., NULL.  A NULL value skips the pair. */
static void hm_build(struct message *m, const char *const *hdrs, const char *text, size_t len)
{
	size_t alloc = 0;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; hdrs && hdrs[i]; i += 2) {
		if (!hdrs[i + 1])
			continue;
		ARRAY_GROW(m->headers, alloc, m->nheaders + 1);
		m->headers[m->nheaders].name = xstrdup(hdrs[i]);
		m->headers[m->nheaders].value = xstrdup(hdrs[i + 1]);
		m->headers[m->nheaders].raw = xstrdup(hdrs[i + 1]);
		m->nheaders++;
	}
	m->text = xmalloc(len + 1);
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->text_len = len;
}

static void hm_release(struct message *m)
{
	for (size_t i = 0; i < m->nheaders; i++) {
		free(m->headers[i].name);
		free(m->headers[i].value);
		free(m->headers[i].raw);
	}
	free(m->headers);
	free(m->text);
}

/* Parses a mail with From: and Subject: headers and the given text. */
static struct patch *parse_simple(struct message *m, const char *subject, const char *text,
				  size_t *np)
{
	const char *hdrs[] = { "From", "Jane Doe <jane@x.org>", "Subject", subject, NULL };
	struct patch *p;

	hm_build(m, hdrs, text, strlen(text));
	patch_parse(m, &p, np);
	ck_assert_uint_ge(*np, 1);
	return p;
}

static char *line_str(const struct line *l)
{
	static char s[512];

	snprintf(s, sizeof(s), "%.*s", (int)l->len, l->p);
	return s;
}

/* ---- subjects ----------------------------------------------------------- */

static const struct {
	const char *subject;
	int version, index, total;
	bool rfc, resend, reply, pull;
	const char *tags;	/* joined with ',' */
	const char *body;
} subject_cases[] = {
	{ "[RFC PATCH v3 02/12] leds: foo", 3, 2, 12, true, false, false, false, "", "leds: foo" },
	{ "[PATCH RFC/RFT v2] leds: foo", 2, 0, 0, true, false, false, false, "", "leds: foo" },
	{ "[PATCH RFT/rfc] leds: foo", 1, 0, 0, true, false, false, false, "", "leds: foo" },
	{ "[PATCH RFT] leds: foo", 1, 0, 0, false, false, false, false, "RFT", "leds: foo" },
	{ "[PATCHv2 1/8] leds: foo", 2, 1, 8, false, false, false, false, "", "leds: foo" },
	{ "[PATCH net-next] net: foo", 1, 0, 0, false, false, false, false, "net-next", "net: foo" },
	{ "[PATCH 6.1 03/12] leds: foo", 1, 3, 12, false, false, false, false, "6.1", "leds: foo" },
	{ "[PATCH RESEND v2] leds: foo", 2, 0, 0, false, true, false, false, "", "leds: foo" },
	{ "[PATCH v2 RESEND 3/3] leds: foo", 2, 3, 3, false, true, false, false, "", "leds: foo" },
	{ "[PATCH V3] leds: foo", 3, 0, 0, false, false, false, false, "", "leds: foo" },
	{ "[PATCH 1/8] leds: foo", 1, 1, 8, false, false, false, false, "", "leds: foo" },
	{ "[PATCH1/8] leds: foo", 1, 1, 8, false, false, false, false, "", "leds: foo" },
	{ "[PATCH 2/7 v2] leds: foo", 2, 2, 7, false, false, false, false, "", "leds: foo" },
	{ "[PATCH 0/5] leds: cover", 1, 0, 5, false, false, false, false, "", "leds: cover" },
	{ "[PATCH v4 00/12] leds: cover", 4, 0, 12, false, false, false, false, "", "leds: cover" },
	{ "[RFCv2 PATCH] leds: foo", 2, 0, 0, true, false, false, false, "", "leds: foo" },
	{ "[RFC] leds: foo", 1, 0, 0, true, false, false, false, "", "leds: foo" },
	{ "[net-next PATCH v2 1/2] net: foo", 2, 1, 2, false, false, false, false, "net-next", "net: foo" },
	{ "[PATCH AUTOSEL 6.12 01/20] leds: foo", 1, 1, 20, false, false, false, false,
	  "AUTOSEL,6.12", "leds: foo" },
	{ "[PATCH 5.15.y] leds: foo", 1, 0, 0, false, false, false, false, "5.15.y", "leds: foo" },
	{ "[PATCH v2 stable] leds: foo", 2, 0, 0, false, false, false, false, "stable", "leds: foo" },
	{ "[PATCH] [media] foo", 1, 0, 0, false, false, false, false, "media", "foo" },
	{ "[PATCH v123456] foo", 1, 0, 0, false, false, false, false, "v123456", "foo" },
	{ "[GIT PULL] LEDs for v6.17", 1, 0, 0, false, false, false, true, "", "LEDs for v6.17" },
	{ "[PATCH] net: foo", 1, 0, 0, false, false, false, false, "", "net: foo" },
	/* one bracket of the prefix missing: still the prefix */
	{ "PATCH] leds: foo", 1, 0, 0, false, false, false, false, "", "leds: foo" },
	{ "PATCH v2 1/3] leds: foo", 2, 1, 3, false, false, false, false, "", "leds: foo" },
	{ "[PATCH v2 leds: foo", 2, 0, 0, false, false, false, false, "", "leds: foo" },
	{ "[RFC PATCH leds: foo [bar", 1, 0, 0, true, false, false, false, "", "leds: foo [bar" },
	{ "Re: PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "PATCH: leds foo", 1, 0, 0, false, false, false, false, "", "PATCH: leds foo" },
	{ "PATCH leds foo] x", 1, 0, 0, false, false, false, false, "", "PATCH leds foo] x" },
	{ "[RFC v2 leds: foo", 1, 0, 0, false, false, false, false, "", "[RFC v2 leds: foo" },
	{ "[GIT] leds: fixes", 1, 0, 0, false, false, false, false, "GIT", "leds: fixes" },
	{ "net: fix foo", 1, 0, 0, false, false, false, false, "", "net: fix foo" },
	{ "leds: [RFC] foo", 1, 0, 0, false, false, false, false, "", "leds: [RFC] foo" },
	{ "Re: [PATCH v2 1/3] leds: foo", 2, 1, 3, false, false, true, false, "", "leds: foo" },
	{ "RE: [PATCH] leds: foo", 1, 0, 0, false, false, true, false, "", "leds: foo" },
	{ "Aw: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "AW: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Fwd: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Fw: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "WG: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "SV: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "VS: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Odp: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Odg: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "RE : [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Re[2]: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Re: Re: AW: [PATCH] x", 1, 0, 0, false, false, true, false, "", "x" },
	{ "Re: net: foo", 1, 0, 0, false, false, true, false, "", "net: foo" },
	{ "Re: [GIT PULL] LEDs", 1, 0, 0, false, false, true, true, "", "LEDs" },
	{ "   [PATCH]   padded  ", 1, 0, 0, false, false, false, false, "", "padded" },
	{ "[PATCH unclosed", 1, 0, 0, false, false, false, false, "", "unclosed" },	/* a typo, still the prefix */
	{ "", 1, 0, 0, false, false, false, false, "", "" },
};

START_TEST(test_subject)
{
	const char *subj = subject_cases[_i].subject;
	struct series s;
	bool reply = !subject_cases[_i].reply, pull = !subject_cases[_i].pull;
	size_t off = patch_parse_subject(subj, &s, &reply, &pull);
	char tags[256] = "", body[256];
	size_t n;

	for (size_t i = 0; i < s.ntags; i++)
		snprintf(tags + strlen(tags), sizeof(tags) - strlen(tags), "%s%s", i ? "," : "",
			 s.tags[i]);
	snprintf(body, sizeof(body), "%s", subj + off);
	for (n = strlen(body); n && body[n - 1] == ' '; n--)
		body[n - 1] = '\0';
	ck_assert_msg(s.version == subject_cases[_i].version, "%s: version %d", subj, s.version);
	ck_assert_msg(s.index == subject_cases[_i].index, "%s: index %d", subj, s.index);
	ck_assert_msg(s.total == subject_cases[_i].total, "%s: total %d", subj, s.total);
	ck_assert_msg(s.rfc == subject_cases[_i].rfc, "%s: rfc", subj);
	ck_assert_msg(s.resend == subject_cases[_i].resend, "%s: resend", subj);
	ck_assert_msg(reply == subject_cases[_i].reply, "%s: reply", subj);
	ck_assert_msg(pull == subject_cases[_i].pull, "%s: pull", subj);
	ck_assert_msg(!strcmp(tags, subject_cases[_i].tags), "%s: tags [%s]", subj, tags);
	ck_assert_msg(!strcmp(body, subject_cases[_i].body), "%s: body [%s]", subj, body);
	ck_assert(patch_subject_is_reply(subj) == subject_cases[_i].reply);
	series_release(&s);
}
END_TEST

START_TEST(test_subject_hostile)
{
	struct buf b;
	struct series s;
	size_t off;

	buf_init(&b, 0);
	for (int i = 0; i < 20000; i++)
		buf_addstr(&b, "[x] ");
	for (int i = 0; i < 20000; i++)
		buf_addstr(&b, "Re: ");
	off = patch_parse_subject(b.data, &s, NULL, NULL);
	ck_assert_uint_le(s.ntags, 32);
	ck_assert_uint_gt(off, 0);
	series_release(&s);
	ck_assert(!patch_subject_is_reply(NULL));
	ck_assert(!patch_subject_is_reply(b.data));	/* starts with "[x]" */
	buf_release(&b);
}
END_TEST

static const struct {
	const char *in, *out;
} msgid_cases[] = {
	{ "<a@b.c>", "a@b.c" },
	{ "  <a@b.c>  ", "a@b.c" },
	{ "a@b.c", "a@b.c" },
	{ "  a@b.c\t", "a@b.c" },
	{ "<a@b.c> (Jane's message of Mon)", "a@b.c" },
	{ "< a@b.c >", "a@b.c" },
	{ "<a@b.c", "a@b.c" },
	{ "", "" },
};

START_TEST(test_msgid)
{
	char *s = msgid_strip(msgid_cases[_i].in);

	ck_assert_str_eq(s, msgid_cases[_i].out);
	free(s);
	s = msgid_strip(NULL);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(test_kind_names)
{
	ck_assert_str_eq(patch_kind_name(KIND_PATCH), "patch");
	ck_assert_str_eq(patch_kind_name(KIND_COVER), "cover");
	ck_assert_str_eq(patch_kind_name(KIND_REPLY), "reply");
	ck_assert_str_eq(patch_kind_name(KIND_PULL), "pull");
	ck_assert_str_eq(patch_kind_name(KIND_OTHER), "other");
}
END_TEST

/* ---- kinds -------------------------------------------------------------- */

static const struct {
	const char *subject, *text;
	enum patch_kind kind;
	bool has_diff;
} kind_cases[] = {
	{ "[PATCH] leds: foo", "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n f.c | 2 +-\n\n" DIFF,
	  KIND_PATCH, true },
	{ "[PATCH] leds: foo", "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n--- a/f.c\n+++ b/f.c\n"
	  "@@ -1 +1 @@\n-a\n+b\n", KIND_PATCH, true },
	{ "[PATCH] leds: foo", "Fix.\n\nIndex: f.c\n=====\n--- f.c\n+++ f.c\n@@ -1 +1 @@\n-a\n+b\n",
	  KIND_PATCH, true },
	{ "[PATCH 0/2] leds: series", "This series fixes it.\n\nA (2):\n  one\n  two\n\n"
	  " f.c | 2 +-\n", KIND_COVER, false },
	{ "[PATCH v2 00/12] leds: series", "Cover.\n", KIND_COVER, false },
	{ "[PATCH 0/2] leds: odd", "Fix.\n---\n" DIFF, KIND_PATCH, true },
	{ "Re: [PATCH] leds: foo", "On Mon, A wrote:\n> Fix.\n>\n> ---\n> " "diff --git a/f.c b/f.c\n"
	  "> --- a/f.c\n> +++ b/f.c\n> @@ -1 +1 @@\n\nLooks good.\n", KIND_REPLY, false },
	{ "Re: [PATCH] leds: foo", "How about this:\n\n" DIFF, KIND_REPLY, true },
	{ "[GIT PULL] LEDs for v6.17", "The following changes since commit abc:\n\n"
	  " f.c | 2 +-\n", KIND_PULL, false },
	{ "hello", "just text\n", KIND_OTHER, false },
	{ "[PATCH] leds: foo", "No diff here.\n", KIND_OTHER, false },
	{ "[PATCH] leds: foo", "Fix.\n---\n--- a/f.c\nnot a diff\n", KIND_OTHER, false },
};

START_TEST(test_kind)
{
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, kind_cases[_i].subject, kind_cases[_i].text, &np);

	ck_assert_uint_eq(np, 1);
	ck_assert_msg(p->kind == kind_cases[_i].kind, "%s: %s", kind_cases[_i].subject,
		      patch_kind_name(p->kind));
	ck_assert(p->has_diff == kind_cases[_i].has_diff);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* ---- the mail decides for every part (patch.h (a)-(c)) ----------------- */

#define FMT_PATCH "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n" \
	"From: A <a@x.org>\nSubject: [PATCH] leds: foo\n\nFix.\n\n" \
	"Signed-off-by: A <a@x.org>\n---\n" DIFF

#define DIFFSTAT " f.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
#define FMT_BODY "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFFSTAT DIFF

static const struct {
	const char *subject, *in_reply_to;
	bool quotes;		/* message.h body_quotes */
	const char *text;
	enum patch_kind kind;
} mail_kind_cases[] = {
	/* (a) reply markers, whatever the part holds */
	{ "Re: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "RE: leds: foo", NULL, false, "Try:\n\n" DIFF, KIND_REPLY },
	{ "Aw: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "Fwd: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "FW: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "Sv: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "Antw: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "\xe5\x9b\x9e\xe5\xa4\x8d: [PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "\xe5\x9b\x9e\xe5\xa4\x8d\xef\xbc\x9a[PATCH] leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "\xe7\xad\x94\xe5\xa4\x8d\xef\xbc\x9a leds: foo", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "leds: a new idea [Was: Re: [PATCH] leds: foo]", NULL, false, FMT_PATCH, KIND_REPLY },
	{ "leds: a new idea (was: leds: foo)", NULL, false, "Try:\n\n" DIFF, KIND_REPLY },
	{ "leds: foo crashes", "<p@x.org>", true, "> quoted\n\nTry:\n\n" DIFF, KIND_REPLY },
	/* a renamed patch keeps its prefix: a submission */
	{ "[PATCH v2] leds: foo (was: leds: bar)", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	/* a patch posted in a thread: prefixed, so quotes do not matter */
	{ "[PATCH v2] leds: foo", "<p@x.org>", true, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[RFC PATCH] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[RFC 1/2] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[PATCH RFC v2] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	/* a bare [RFC] is a discussion, as the question with a debugging diff
	 * in the corpus ("[RFC RESEND] leds: lp55xx: ...") is */
	{ "[RFC] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_OTHER },
	{ "[RFC RESEND] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_OTHER },
	{ "[RFCv2] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_OTHER },
	{ "[net-next PATCH v2 1/2] net: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[PATCHv2] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[PATCH 6.1.y] leds: foo", NULL, false, "commit abc upstream.\n---\n" DIFF, KIND_PATCH },
	{ "[PATCH] leds: two", NULL, false, FMT_PATCH, KIND_PATCH },
	/* (b) no patch prefix: no submission, whatever it holds */
	{ "leds: foo crashes", "<p@x.org>", false, "Try:\n\n" DIFF, KIND_OTHER },
	{ "leds: foo crashes", NULL, true, "> quoted\n\nTry:\n\n" DIFF, KIND_OTHER },
	{ "use-after-free in foo", NULL, false, "Trace.\n\n----\n" DIFF, KIND_OTHER },
	{ "Apply 0123456789ab to 6.1", NULL, false, FMT_PATCH, KIND_OTHER },
	{ "[STABLE BACKPORT] leds: foo", NULL, false, FMT_PATCH, KIND_OTHER },
	{ "MAINTAINERS: update my address", NULL, false, "Move.\n---\n" DIFF, KIND_OTHER },
	{ NULL, NULL, false, "Fix.\n---\n" DIFF, KIND_OTHER },
	{ "[GIT PULL] LEDs for v6.17", "<p@x.org>", true, "> quoted\n", KIND_PULL },
	/* a format-patch body without the prefix (format-patch -k, older git
	 * send-email) is a patch; a reply never */
	{ "leds: foo: fix the bar", NULL, false, FMT_BODY, KIND_PATCH },
	{ "leds: foo: fix the bar", "<p@x.org>", false, FMT_BODY, KIND_PATCH },
	{ "[v2 1/3] leds: foo: fix the bar", "<c@x.org>", false, FMT_BODY, KIND_PATCH },
	{ "Re: leds: foo: fix the bar", NULL, false, FMT_BODY, KIND_REPLY },
	{ "leds: foo: fix the bar", "<p@x.org>", true, "> quoted\n\n" FMT_BODY, KIND_REPLY },
	{ "leds: foo (was: leds: bar)", NULL, false, FMT_BODY, KIND_REPLY },
	{ "leds: foo", NULL, false, "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFF, KIND_OTHER },
	{ "leds: foo", NULL, false, "Fix.\n\nReviewed-by: A <a@x.org>\n---\n" DIFFSTAT DIFF, KIND_OTHER },
	{ "leds: foo", NULL, false, "Fix.\n\nSigned-off-by: A <a@x.org>\n\n" DIFFSTAT DIFF, KIND_OTHER },
	{ "leds: foo", NULL, false, "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFFSTAT, KIND_OTHER },
	/* a typo'd prefix is a prefix */
	{ "PATCH] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	{ "[PATCH v2 leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_PATCH },
	/* [GIT] and git request-pull's text: a pull request */
	{ "[GIT] LEDs fixes", NULL, false, "The following changes since commit abc:\n\n"
	  "are available in the Git repository at:\n\n"
	  "  git://git.example.org/leds.git tags/leds-fixes\n\n" DIFFSTAT, KIND_PULL },
	{ "[GIT] LEDs fixes", NULL, false, "Please pull; they are available in the git "
	  "repository at https://git.example.org/leds.git\n", KIND_PULL },
	{ "[GIT] LEDs fixes", NULL, false, "They are available in the Git repository at "
	  "the usual place.\n", KIND_OTHER },
	{ "[GIT] leds: foo", NULL, false, "Fix.\n---\n" DIFF, KIND_OTHER },
};

START_TEST(test_mail_kind)
{
	const char *hdrs[] = { "From", "Jane Doe <jane@x.org>", "Subject", mail_kind_cases[_i].subject,
			       "In-Reply-To", mail_kind_cases[_i].in_reply_to, NULL };
	const char *text = mail_kind_cases[_i].text;
	struct message m;
	struct patch *p;
	size_t np;

	hm_build(&m, hdrs, text, strlen(text));
	m.body_quotes = mail_kind_cases[_i].quotes;
	patch_parse(&m, &p, &np);
	ck_assert_uint_eq(np, 1);
	ck_assert_msg(p->kind == mail_kind_cases[_i].kind, "%s: %s",
		      mail_kind_cases[_i].subject ? mail_kind_cases[_i].subject : "(none)",
		      patch_kind_name(p->kind));
	/* tagbot check still runs the rules on a diff that is no submission */
	ck_assert(patch_checkable(p) == (p->kind == KIND_PATCH || (p->kind == KIND_OTHER && p->has_diff)));
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* ---- separators --------------------------------------------------------- */

static const struct {
	const char *text;
	enum patch_sep sep;
	size_t nlines, first_lineno, sep_lineno;
	const char *after;
} sep_cases[] = {
	{ "Fix.\n\nSigned-off-by: A <a@x.org>\n---\nnotes\n", SEP_DASHES, 3, 1, 4, "notes\n" },
	{ "Fix.\n---   \nnotes\n", SEP_DASHES, 1, 1, 2, "notes\n" },
	{ "Fix.\r\n---\r\nnotes\r\n", SEP_DASHES, 1, 1, 2, "notes\r\n" },
	{ "Fix.\ndiff -u a b\n--- a\n", SEP_DIFF, 1, 1, 2, "diff -u a b\n--- a\n" },
	{ "Fix.\nIndex: f.c\n", SEP_INDEX, 1, 1, 2, "Index: f.c\n" },
	{ "Fix.\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n", SEP_DIFF, 1, 1, 2,
	  "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n" },
	/* a scissors line (git mailinfo's is_scissors_line()) cuts the chat
	 * above it off: the commit message is what follows */
	{ "Chat.\n-- >8 --\nFix.\n", SEP_NONE, 1, 3, 0, "" },
	{ "Chat.\n--- >8 ---\nFix.\n", SEP_NONE, 1, 3, 0, "" },
	{ "Chat.\n--8<--------\nFix.\n", SEP_NONE, 1, 3, 0, "" },
	{ "Chat.\n- - - - %< - - - -\nFix.\n", SEP_NONE, 1, 3, 0, "" },
	{ "Chat.\n-- >8 -- cut here -- >8 --\nFix.\n---\nnotes\n", SEP_DASHES, 1, 3, 4, "notes\n" },
	{ "Chat.\n\t-----   >8   -----  cut\n\nFix.\n", SEP_NONE, 1, 4, 0, "" },
	/* too short, too much prose, too many gaps: no scissors line */
	{ "Fix.\n-->8--\nrest\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\n-- >8 -- this line is prose more than it is a cut\nrest\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\n-   -   >8   -   -\nrest\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\nHeat >8 W is too much\n", SEP_NONE, 2, 1, 0, "" },
	/* longer runs of dashes stay in the message, as git keeps them */
	{ "Title\n------\nmore\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\n----------+          +--------------+\nmore\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\n--- not a diff\nmore\n", SEP_NONE, 3, 1, 0, "" },
	{ "Fix.\n---text\n", SEP_NONE, 2, 1, 0, "" },
	{ "Fix.\n-- \nsignature\n", SEP_NONE, 3, 1, 0, "" },
	{ "\n\nFix.\n\n\n---\n", SEP_DASHES, 1, 3, 6, "" },
	{ "Fix.", SEP_NONE, 1, 1, 0, "" },
	{ "", SEP_NONE, 0, 0, 0, "" },
};

START_TEST(test_separator)
{
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] x", sep_cases[_i].text, &np);

	ck_assert_int_eq(p->sep, sep_cases[_i].sep);
	ck_assert_uint_eq(p->nlines, sep_cases[_i].nlines);
	if (p->nlines)
		ck_assert_uint_eq(p->lines[0].lineno, sep_cases[_i].first_lineno);
	ck_assert_uint_eq(p->sep_lineno, sep_cases[_i].sep_lineno);
	ck_assert_uint_eq(p->after_len, strlen(sep_cases[_i].after));
	ck_assert(!memcmp(p->after, sep_cases[_i].after, p->after_len));
	ck_assert(p->after + p->after_len == m.text + m.text_len);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* ---- in-body headers and authors ---------------------------------------- */

/*
 * The sender and the in-body author are read from the raw text by RFC 5322
 * (address_parse_mailbox): an address only an encoded-word spells is none,
 * and a mail with two From: headers has no sender.  Such a From: is no
 * mailbox, so the author is what git makes of it once decoded
 * (test_malformed_from), never the sender.
 */
START_TEST(test_people_raw)
{
	static const struct {
		const char *from, *from2, *body_from;
		const char *sender, *author;	/* author NULL: not checked */
		bool from_body;
	} c[] = {
		{ "=?utf-8?q?Victim_<victim=40x.org>?= <mallory@x.org>", NULL, NULL,
		  "mallory@x.org", "mallory@x.org", false },
		/* hm_build() does not decode: see test_malformed_from_decoded */
		{ "Ann <=?utf-8?q?victim=40x.org?=>", NULL, NULL, "", NULL, false },
		{ "mallory@x.org", "victim@x.org", NULL, "", "", false },
		{ "Maint <maint@x.org>", NULL, "=?utf-8?q?Victim_<victim=40x.org>?= <author@x.org>",
		  "maint@x.org", "author@x.org", true },
		{ "Maint <maint@x.org>", NULL, "Ann <=?utf-8?q?victim=40x.org?=>",
		  "maint@x.org", "victim@x.org", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		const char *hdrs[] = { "From", c[i].from, "From", c[i].from2,
				       "Subject", "[PATCH] leds: x", NULL };
		char text[512];
		struct message m;
		struct patch *p;
		size_t np;

		snprintf(text, sizeof(text), "%s%s%sDesc.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFF,
			 c[i].body_from ? "From: " : "", c[i].body_from ? c[i].body_from : "",
			 c[i].body_from ? "\n\n" : "");
		hm_build(&m, hdrs, text, strlen(text));
		patch_parse(&m, &p, &np);
		ck_assert_msg(!strcmp(p->sender.email, c[i].sender), "case %zu: sender %s", i,
			      p->sender.email);
		ck_assert_msg(!c[i].author || !strcmp(p->author.email, c[i].author),
			      "case %zu: author %s", i, p->author.email);
		ck_assert_msg(p->author_from_body == c[i].from_body, "case %zu", i);
		patches_free(p, np);
		hm_release(&m);
	}
}
END_TEST

/*
 * A From: that is not one well-formed mailbox (header or in-body) still
 * gives the author git am records, read as git mailinfo reads it; the
 * sender stays unknown.  The in-body From: wins even then, as in git.
 * Each comment is what git mailinfo printed.
 */
static const struct {
	const char *from, *body_from;
	const char *name, *email, *sender;
	bool from_body;
	const char *bad;	/* bad_from; NULL: none */
} malformed_from_cases[] = {
	/* Author: Jane Doe, Email: jane@x.org */
	{ "\"Jane Doe <jane@x.org>", NULL, "Jane Doe", "jane@x.org", "", false,
	  "\"Jane Doe <jane@x.org>" },
	/* Author: Jane (JD Doe, Email: jane@x.org */
	{ "Jane (JD Doe <jane@x.org>", NULL, "Jane (JD Doe", "jane@x.org", "", false,
	  "Jane (JD Doe <jane@x.org>" },
	/* Author: (Jane Doe, Email: jane@x.org */
	{ "jane@x.org (Jane Doe", NULL, "(Jane Doe", "jane@x.org", "", false,
	  "jane@x.org (Jane Doe" },
	/* Author: Jane Doe, Email: jane@x.org */
	{ "Jane Doe <jane@x.org", NULL, "Jane Doe", "jane@x.org", "", false, "Jane Doe <jane@x.org" },
	/* Author: jane@x.org,, Email: jane@x.org,; git am commits jane@x.org */
	{ "jane@x.org, joe@x.org", NULL, "jane@x.org", "jane@x.org", "", false,
	  "jane@x.org, joe@x.org" },
	/* Author: Jane Doe, Email: jane@x.org */
	{ "Maint <maint@x.org>", "\"Jane Doe <jane@x.org>", "Jane Doe", "jane@x.org",
	  "maint@x.org", true, "\"Jane Doe <jane@x.org>" },
	/* Author: (Jane Doe, Email: jane@x.org */
	{ "Maint <maint@x.org>", "jane@x.org (Jane Doe", "(Jane Doe", "jane@x.org",
	  "maint@x.org", true, "jane@x.org (Jane Doe" },
	/* Author: Ann, Email: victim@x.org: git decodes, then reads */
	{ "Maint <maint@x.org>", "Ann <=?utf-8?q?victim=40x.org?=>", "Ann", "victim@x.org",
	  "maint@x.org", true, "Ann <victim@x.org>" },
	/* Author: , Email: ; git am stops (empty ident name) */
	{ "Maint <maint@x.org>", "no address here", "", "", "maint@x.org", true,
	  "no address here" },
	/* well formed: as ever */
	{ "Jane Doe <jane@x.org>", NULL, "Jane Doe", "jane@x.org", "jane@x.org", false, NULL },
	{ "\"Doe, Jane\" <jane@x.org>", NULL, "Doe, Jane", "jane@x.org", "jane@x.org", false, NULL },
};

START_TEST(test_malformed_from)
{
	const char *hdrs[] = { "From", malformed_from_cases[_i].from, "Subject", "[PATCH] leds: x",
			       NULL };
	const char *bf = malformed_from_cases[_i].body_from, *bad = malformed_from_cases[_i].bad;
	char text[512];
	struct message m;
	struct patch *p;
	size_t np;

	snprintf(text, sizeof(text), "%s%s%sDesc.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFF,
		 bf ? "From: " : "", bf ? bf : "", bf ? "\n\n" : "");
	hm_build(&m, hdrs, text, strlen(text));
	patch_parse(&m, &p, &np);
	ck_assert_int_eq(p->kind, KIND_PATCH);
	ck_assert_str_eq(p->author.name, malformed_from_cases[_i].name);
	ck_assert_str_eq(p->author.email, malformed_from_cases[_i].email);
	ck_assert(p->author_from_body == malformed_from_cases[_i].from_body);
	ck_assert_str_eq(p->sender.email, malformed_from_cases[_i].sender);
	if (bad)
		ck_assert_pstr_eq(p->bad_from, bad);
	else
		ck_assert_ptr_null(p->bad_from);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* A header From: is read decoded, as git reads it: "Ann <victim@x.org>"
 * is the author git records, while the raw value has no sender to mail. */
START_TEST(test_malformed_from_decoded)
{
	static const char mail[] =
		"From: Ann <=?utf-8?q?victim=40x.org?=>\n"
		"Subject: [PATCH] leds: x\n"
		"\n"
		"Desc.\n"
		"\n"
		"Signed-off-by: Ann <ann@x.org>\n"
		"---\n" DIFF;
	struct message m;
	struct patch *p;
	size_t np;
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, mail, strlen(mail), &e) == 0, "%s", e.msg);
	patch_parse(&m, &p, &np);
	ck_assert_str_eq(p->sender.email, "");
	ck_assert_str_eq(p->author.name, "Ann");
	ck_assert_str_eq(p->author.email, "victim@x.org");
	ck_assert_pstr_eq(p->bad_from, "Ann <victim@x.org>");
	patches_free(p, np);
	message_release(&m);
}
END_TEST

START_TEST(test_inbody)
{
	static const char text[] =
		"\n\n"						/* 1, 2 */
		"From: Author Name <author@x.org>\n"		/* 3 */
		"Date: Mon, 1 Jan 2024 00:00:00 +0000\n"	/* 4 */
		"Subject: [PATCH v2 3/4] leds: the real\n"	/* 5 */
		" subject\n"					/* 6 */
		"\n"						/* 7 */
		"Desc.\n"					/* 8 */
		"\n"						/* 9 */
		"Signed-off-by: Author Name <author@x.org>\n"	/* 10 */
		"---\n"						/* 11 */
		DIFF;
	const char *hdrs[] = { "From", "Sender <sender@x.org>", "Subject", "[PATCH 1/1] wrong", NULL };
	struct message m;
	struct patch *p;
	size_t np;

	hm_build(&m, hdrs, text, strlen(text));
	patch_parse(&m, &p, &np);
	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_PATCH);
	ck_assert_str_eq(p->author.name, "Author Name");
	ck_assert_str_eq(p->author.email, "author@x.org");
	ck_assert(p->author_from_body);
	ck_assert_str_eq(p->sender.name, "Sender");
	ck_assert_str_eq(p->sender.email, "sender@x.org");
	ck_assert_str_eq(p->subject, "[PATCH v2 3/4] leds: the real subject");
	ck_assert_str_eq(p->subject_body, "leds: the real subject");
	ck_assert_int_eq(p->series.version, 2);
	ck_assert_int_eq(p->series.index, 3);
	ck_assert_int_eq(p->series.total, 4);
	ck_assert_uint_eq(p->nlines, 3);
	ck_assert_uint_eq(p->lines[0].lineno, 8);
	ck_assert_str_eq(line_str(&p->lines[0]), "Desc.");
	ck_assert_uint_eq(p->block_start, 2);
	ck_assert_uint_eq(p->ntrailers, 1);
	ck_assert_uint_eq(p->trailers[0].line.lineno, 10);
	ck_assert_uint_eq(p->sep_lineno, 11);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

static const struct {
	const char *text;
	const char *name, *email;
	bool from_body;
	const char *first;	/* first commit-message line */
} inbody_cases[] = {
	{ "From: A <a@x.org>\nDesc.\n", "A", "a@x.org", true, "Desc." },
	{ "from: A <a@x.org>\n\nDesc.\n", "A", "a@x.org", true, "Desc." },
	{ "Subject: only a subject\n\nDesc.\n", "Jane Doe", "jane@x.org", false, "Desc." },
	/* git mailinfo: no Author:, no Email: (and git am stops) */
	{ "From: no address here\n\nDesc.\n", "", "", true, "Desc." },
	{ "Desc.\nFrom: A <a@x.org>\n", "Jane Doe", "jane@x.org", false, "Desc." },
	{ "Fromage: A <a@x.org>\n\nDesc.\n", "Jane Doe", "jane@x.org", false, "Fromage: A <a@x.org>" },
	{ "Cc: A <a@x.org>\n\nDesc.\n", "Jane Doe", "jane@x.org", false, "Cc: A <a@x.org>" },
	{ "From: =?UTF-8?q?J=C3=B6rg_M=C3=BCller?= <j@x.org>\n\nDesc.\n", "J\xc3\xb6rg M\xc3\xbcller",
	  "j@x.org", true, "Desc." },
};

START_TEST(test_inbody_forms)
{
	struct message m;
	size_t np;
	struct patch *p;
	char text[512];

	/* in-body headers count in a mail that carries a patch */
	snprintf(text, sizeof(text), "%s---\n" DIFF, inbody_cases[_i].text);
	p = parse_simple(&m, "[PATCH] x", text, &np);

	ck_assert_str_eq(p->author.name, inbody_cases[_i].name);
	ck_assert_str_eq(p->author.email, inbody_cases[_i].email);
	ck_assert(p->author_from_body == inbody_cases[_i].from_body);
	ck_assert_uint_ge(p->nlines, 1);
	ck_assert_str_eq(line_str(&p->lines[0]), inbody_cases[_i].first);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/*
 * As git mailinfo: in-body headers name the author and the title only
 * when something follows the patch separator (a diff, a diffstat); above
 * a cover letter or a note without one they are the mail's.  Each case
 * is what git mailinfo printed for the same mail.
 */
static const struct {
	const char *subject, *text;
	const char *name, *title, *first;
	bool from_body;
} inbody_patch_cases[] = {
	{ "[PATCH 0/2] leds: two", "From: A <a@x.org>\n\nCover.\n", "Jane Doe", "leds: two",
	  "Cover.", false },
	{ "[PATCH 0/2] leds: two", "From: A <a@x.org>\nSubject: [PATCH 0/2] other\n\nCover.\n",
	  "Jane Doe", "leds: two", "Cover.", false },
	{ "[PATCH 0/2] leds: two",
	  "From: A <a@x.org>\nSubject: [PATCH 0/2] other\n\nCover.\n---\n f | 1 +\n",
	  "A", "other", "Cover.", true },
	{ "Re: [PATCH] leds: x", "From: A <a@x.org>\n\nApplied, thanks!\n", "Jane Doe",
	  "leds: x", "Applied, thanks!", false },
};

START_TEST(test_inbody_needs_patch)
{
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, inbody_patch_cases[_i].subject,
				       inbody_patch_cases[_i].text, &np);

	ck_assert_str_eq(p->author.name, inbody_patch_cases[_i].name);
	ck_assert_str_eq(p->subject_body, inbody_patch_cases[_i].title);
	ck_assert(p->author_from_body == inbody_patch_cases[_i].from_body);
	ck_assert_str_eq(line_str(&p->lines[0]), inbody_patch_cases[_i].first);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* The title, as git mailinfo's cleanup_subject() makes it (each case what
 * git printed): reply prefixes, bracket groups and colons in any order. */
static const struct {
	const char *subject, *title;
} cleanup_cases[] = {
	{ "Re: [EXT] Re: [PATCH v13 3/4] gpio: rpmsg: add driver", "gpio: rpmsg: add driver" },
	{ "Re: [External] : [PATCH 1/3] platform/x86: Add driver", "platform/x86: Add driver" },
	{ "[PATCH] [net] net: fix it", "net: fix it" },
	{ "[PATCH v2] leds: fix: the colon stays", "leds: fix: the colon stays" },
	{ "[PATCH]:: leds: x", "leds: x" },
};

START_TEST(test_title_cleanup)
{
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, cleanup_cases[_i].subject, "Text.\n", &np);

	ck_assert_str_eq(p->subject_body, cleanup_cases[_i].title);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

static const struct {
	const char *from, *xorig, *reply_to;
	const char *name, *email;
} relay_cases[] = {
	{ "Jane Doe via B4 Relay <devnull+jane.x.org@kernel.org>", "Jane Doe <jane@x.org>",
	  "jane@x.org", "Jane Doe", "jane@x.org" },
	{ "Jane Doe via B4 Relay <devnull+jane.x.org@kernel.org>", NULL, "jane@x.org",
	  "Jane Doe", "jane@x.org" },
	{ "Jane Doe via Linux-leds <linux-leds@vger.kernel.org>", NULL, "Jane Doe <jane@x.org>",
	  "Jane Doe", "jane@x.org" },
	{ "Relay <devnull+jane.x.org@kernel.org>", "Jane Doe <jane@x.org>", NULL,
	  "Jane Doe", "jane@x.org" },
	{ "\"Doe, Jane via B4 Relay\" <devnull+jane.x.org@kernel.org>", "\"Doe, Jane\" <jane@x.org>",
	  NULL, "Doe, Jane", "jane@x.org" },
	{ "Jane Doe via B4 Relay <devnull+jane.x.org@kernel.org>", NULL, NULL,
	  "Jane Doe", "devnull+jane.x.org@kernel.org" },
	{ "Jane Doe via B4 Relay <devnull+jane.x.org@kernel.org>", "garbage", "also garbage",
	  "Jane Doe", "devnull+jane.x.org@kernel.org" },
	{ "Plain Person <p@x.org>", NULL, "other@x.org", "Plain Person", "p@x.org" },
	{ "Plain Person <p@x.org>", "Other <o@x.org>", NULL, "Plain Person", "p@x.org" },
	{ NULL, NULL, NULL, "", "" },
};

START_TEST(test_relay_author)
{
	const char *hdrs[] = { "From", relay_cases[_i].from, "X-Original-From", relay_cases[_i].xorig,
			       "Reply-To", relay_cases[_i].reply_to, "Subject", "[PATCH] x", NULL };
	struct message m;
	struct patch *p;
	size_t np;

	struct person sub;
	bool unknown;

	hm_build(&m, hdrs, "Fix.\n", 5);
	patch_parse(&m, &p, &np);
	ck_assert_str_eq(p->author.name, relay_cases[_i].name);
	ck_assert_str_eq(p->author.email, relay_cases[_i].email);
	ck_assert(!p->author_from_body);
	/* Without an in-body From:, the submitter is the author; a relay that
	 * hides who sent it gives nobody. */
	unknown = !*relay_cases[_i].email || !strncmp(relay_cases[_i].email, "devnull+", 8);
	ck_assert_int_eq(patch_submitter(p, &sub), unknown ? -1 : 0);
	ck_assert_str_eq(sub.name, unknown ? "" : relay_cases[_i].name);
	ck_assert_str_eq(sub.email, unknown ? "" : relay_cases[_i].email);
	person_release(&sub);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* ---- IDs ---------------------------------------------------------------- */

START_TEST(test_ids)
{
	const char *h1[] = { "Message-Id", "<m1@x.org>", "In-Reply-To", "<p@x.org> (Jane's message of Mon)",
			     "References", "<a@x.org> <b@x.org>\t<c@x.org><d@x.org>",
			     "List-Id", "Linux LEDs <linux-leds.vger.kernel.org>", NULL };
	const char *h2[] = { "X-Mailing-List", "linux-leds@vger.kernel.org", NULL };
	static const char *const refs[] = { "a@x.org", "b@x.org", "c@x.org", "d@x.org" };
	struct message m;
	struct patch *p;
	size_t np;

	hm_build(&m, h1, "x\n", 2);
	patch_parse(&m, &p, &np);
	ck_assert_str_eq(p->message_id, "m1@x.org");
	ck_assert_str_eq(p->in_reply_to, "p@x.org");
	ck_assert_uint_eq(p->nreferences, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_str_eq(p->references[i], refs[i]);
	ck_assert_str_eq(p->list_id, "linux-leds.vger.kernel.org");
	ck_assert_str_eq(p->subject, "");
	ck_assert_str_eq(p->sender.email, "");
	patches_free(p, np);
	hm_release(&m);

	hm_build(&m, h2, "x\n", 2);
	patch_parse(&m, &p, &np);
	ck_assert_str_eq(p->list_id, "linux-leds@vger.kernel.org");
	ck_assert_str_eq(p->message_id, "");
	ck_assert_str_eq(p->in_reply_to, "");
	ck_assert_uint_eq(p->nreferences, 0);
	ck_assert_str_eq(p->change_id, "");
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* ---- commit message, trailers, footer ----------------------------------- */

START_TEST(test_trailers_in_patch)
{
	static const char text[] =
		"Fix the frob.\n"				/* 1 */
		"\n"						/* 2 */
		"Fixes decade-old bug in the frob.\n"		/* 3 */
		"\n"						/* 4 */
		"Fixes: 0123456789ab (\"leds: add frob\")\n"	/* 5 */
		"Cc: stable@vger.kernel.org # 6.1+\n"		/* 6 */
		"Signed-off-by: A <a@x.org>\n"			/* 7 */
		"[ tglx: Massaged changelog ]\n"		/* 8 */
		"Signed-off-by: Thomas <t@x.org>\n"		/* 9 */
		"---\n"						/* 10 */
		" f.c | 2 +-\n"					/* 11 */
		"Signed-off-by: below the line <b@x.org>\n"	/* 12 */
		"\n" DIFF;
	static const size_t want_lines[] = { 5, 6, 7, 8, 9 };
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] leds: frob", text, &np);

	ck_assert_uint_eq(p->nlines, 9);
	ck_assert_uint_eq(p->block_start, 4);
	ck_assert_uint_eq(p->block_end, 9);
	ck_assert_uint_eq(p->ntrailers, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(p->trailers[i].line.lineno, want_lines[i]);
		ck_assert(p->trailers[i].in_block);
	}
	ck_assert_int_eq(p->trailers[3].kind, TRAILER_NOTE);
	ck_assert_str_eq(p->trailers[1].value, "stable@vger.kernel.org # 6.1+");
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* An amended merge's old "Conflicts:" list and git's "# Conflicts:" below
 * the trailers stay commit-message lines, but are no part of the block. */
START_TEST(test_trailers_above_conflicts)
{
	static const char text[] =
		"Fix the frob.\n"				/* 1 */
		"\n"						/* 2 */
		"Reviewed-by: R <r@x.org>\n"			/* 3 */
		"Signed-off-by: A <a@x.org>\n"			/* 4 */
		"Conflicts:\n"					/* 5 */
		"\tdrivers/leds/leds-foo.c\n"			/* 6 */
		"\n"						/* 7 */
		"# Conflicts:\n"				/* 8 */
		"#\tdrivers/leds/leds-foo.c\n"			/* 9 */
		"---\n" DIFF;
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] leds: frob", text, &np);

	ck_assert_uint_eq(p->nlines, 9);
	ck_assert_uint_eq(p->block_start, 2);
	ck_assert_uint_eq(p->block_end, 4);
	ck_assert_uint_eq(p->ntrailers, 2);
	ck_assert_str_eq(p->trailers[1].token, "Signed-off-by");
	ck_assert(p->trailers[1].in_block);
	ck_assert_uint_eq(p->trailers[1].line.lineno, 4);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

START_TEST(test_change_id)
{
	static const char with[] = "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n" DIFF "\n---\n"
		"base-commit: 0123456789abcdef0123456789abcdef01234567\n"
		"change-id: 20240101-foo-bar-0123456789ab\n\nBest regards,\n";
	static const char in_commit[] = "Fix.\nchange-id: 20240101-not-this-0123456789ab\n\n"
		"Signed-off-by: A <a@x.org>\n---\n" DIFF;
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] x", with, &np);

	ck_assert_str_eq(p->change_id, "20240101-foo-bar-0123456789ab");
	patches_free(p, np);
	hm_release(&m);
	p = parse_simple(&m, "[PATCH] x", in_commit, &np);
	ck_assert_str_eq(p->change_id, "");
	patches_free(p, np);
	hm_release(&m);
	/* at any offset, and at the end of the text; not inside a line */
	for (int k = 0; k < 40; k++) {
		char text[256], want[32];

		snprintf(text, sizeof(text), "Fix.\n\nSigned-off-by: A <a@x.org>\n---\n%.*s"
			 "xchange-id: no\n change-id: no\nchange-id: id-%d", k,
			 "........................................", k);
		snprintf(want, sizeof(want), "id-%d", k);
		p = parse_simple(&m, "[PATCH] x", text, &np);
		ck_assert_str_eq(p->change_id, want);
		patches_free(p, np);
		hm_release(&m);
	}
}
END_TEST

/* 10,000 sign-offs through the whole model, in well under a second. */
START_TEST(test_many_trailers)
{
	struct buf b;
	struct message m;
	struct patch *p;
	size_t np;
	clock_t t0;

	buf_init(&b, 0);
	buf_addstr(&b, "Fix.\n\n");
	for (int i = 0; i < PATCH_MAX_TRAILERS + 100; i++)
		buf_printf(&b, "Signed-off-by: Person %d <p%d@x.org>\n", i, i);
	buf_addstr(&b, "---\n" DIFF);
	t0 = clock();
	p = parse_simple(&m, "[PATCH] x", b.data, &np);
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "too slow");
	ck_assert_uint_eq(p->nlines, PATCH_MAX_TRAILERS + 102);
	ck_assert_uint_eq(p->block_start, 2);
	ck_assert_uint_eq(p->ntrailers, PATCH_MAX_TRAILERS);
	ck_assert_str_eq(p->trailers[PATCH_MAX_TRAILERS - 1].value, "Person 9999 <p9999@x.org>");
	ck_assert_int_eq(p->kind, KIND_PATCH);
	patches_free(p, np);
	hm_release(&m);
	buf_release(&b);
}
END_TEST

/* ---- splitting ---------------------------------------------------------- */

/* A reply that proposes a patch after a scissors line: git am --scissors
 * splits it as for any mail, but the mail's Re: makes the part a reply too
 * (patch.h (a)): a reviewer's sketch is not a submission to answer. */
START_TEST(test_scissors_split)
{
	static const char text[] =
		"On Mon, Jane wrote:\n"				/* 1 */
		"> Fix it the old way.\n"			/* 2 */
		"\n"						/* 3 */
		"How about this instead?\n"			/* 4 */
		"\n"						/* 5 */
		"-- >8 --\n"					/* 6 */
		"From: Helper Person <h@x.org>\n"		/* 7 */
		"Subject: [PATCH] leds: foo: better approach\n"	/* 8 */
		"\n"						/* 9 */
		"Do it better.\n"				/* 10 */
		"\n"						/* 11 */
		"Signed-off-by: Helper Person <h@x.org>\n"	/* 12 */
		"---\n"						/* 13 */
		DIFF;
	const char *hdrs[] = { "From", "Helper <h@x.org>", "Subject", "Re: [PATCH] leds: foo: old way",
			       "Message-ID", "<r1@x.org>", NULL };
	struct message m;
	struct patch *p;
	size_t np;

	hm_build(&m, hdrs, text, strlen(text));
	patch_parse(&m, &p, &np);
	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_REPLY);
	ck_assert_str_eq(p->subject, "[PATCH] leds: foo: better approach");
	ck_assert_str_eq(p->author.name, "Helper Person");
	ck_assert(p->author_from_body);
	ck_assert_str_eq(p->message_id, "r1@x.org");
	ck_assert_uint_eq(p->first_lineno, 7);
	ck_assert(!strncmp(p->text, "From: Helper", 12));
	ck_assert(p->text + p->text_len == m.text + m.text_len);
	ck_assert_uint_eq(p->lines[0].lineno, 10);
	ck_assert_uint_eq(p->ntrailers, 1);
	ck_assert_uint_eq(p->trailers[0].line.lineno, 12);
	ck_assert_uint_eq(p->sep_lineno, 13);
	ck_assert(p->msg == &m);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* A patch, then a second one after a scissors line: both kept. */
START_TEST(test_scissors_two_patches)
{
	static const char text[] =
		"First.\n"					/* 1 */
		"\n"						/* 2 */
		"Signed-off-by: A <a@x.org>\n"			/* 3 */
		"---\n"						/* 4 */
		DIFF						/* 5-11 */
		"\n"						/* 12 */
		"--- >8 ---\n"					/* 13 */
		"\n"						/* 14 */
		"Subject: [PATCH 2/2] leds: second\n"		/* 15 */
		"\n"						/* 16 */
		"Second.\n"					/* 17 */
		"\n"						/* 18 */
		"Signed-off-by: A <a@x.org>\n"			/* 19 */
		"---\n"						/* 20 */
		DIFF;
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH 1/2] leds: first", text, &np);

	ck_assert_uint_eq(np, 2);
	ck_assert_int_eq(p[0].kind, KIND_PATCH);
	ck_assert_int_eq(p[1].kind, KIND_PATCH);
	ck_assert_str_eq(p[0].subject, "[PATCH 1/2] leds: first");
	ck_assert_str_eq(p[1].subject, "[PATCH 2/2] leds: second");
	ck_assert_int_eq(p[1].series.index, 2);
	ck_assert_str_eq(p[1].author.email, "jane@x.org");	/* no in-body From: */
	ck_assert(!p[1].author_from_body);
	/* the first part's diff runs up to the scissors line */
	ck_assert_uint_eq(p[0].after_len, strlen(DIFF "\n"));
	ck_assert(!memcmp(p[0].after, DIFF "\n", p[0].after_len));
	ck_assert(p[0].text + p[0].text_len == strstr(m.text, "--- >8 ---"));
	ck_assert_uint_eq(p[1].first_lineno, 14);
	ck_assert_uint_eq(p[1].lines[0].lineno, 17);
	ck_assert_uint_eq(p[1].trailers[0].line.lineno, 19);
	ck_assert_uint_eq(p[1].sep_lineno, 20);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

/* A scissors mark is seen wherever it falls in the words the text is
 * scanned in, above the patch start and in a diff, and the parts after it
 * are numbered by the lines of the whole text. */
START_TEST(test_scissors_any_offset)
{
	static const char pad[] = "................";

	for (int k = 0; k < 16; k++) {
		char text[1024];
		struct message m;
		size_t np;
		struct patch *p;

		snprintf(text, sizeof(text), "Chat%.*s\n-- 8< --\nFix.\n", k, pad);
		p = parse_simple(&m, "[PATCH] leds: fix", text, &np);
		ck_assert_uint_eq(np, 1);
		ck_assert_uint_eq(p[0].first_lineno, 3);
		ck_assert_str_eq(line_str(&p[0].lines[0]), "Fix.");
		patches_free(p, np);
		hm_release(&m);

		/* more marks than a text keeps a list of: found as the lines come */
		snprintf(text, sizeof(text), "%s%.*s\n-- 8< --\nFix.\n",
			 "a 8<b\nc>8 d\ne >%f\ng%<h\na 8<b\nc>8 d\ne >%f\ng%<h\n"
			 "a 8<b\nc>8 d\ne >%f\ng%<h\na 8<b\nc>8 d\ne >%f\ng%<h\nx 8<8<\n", k, pad);
		p = parse_simple(&m, "[PATCH] leds: fix", text, &np);
		ck_assert_uint_eq(np, 1);
		ck_assert_uint_eq(p[0].first_lineno, 20);
		ck_assert_str_eq(line_str(&p[0].lines[0]), "Fix.");
		patches_free(p, np);
		hm_release(&m);

		snprintf(text, sizeof(text),
			 "First.\n---\n" DIFF "+%.*s\n\n-- >%% --\n\n"	/* 1-13 */
			 "Subject: [PATCH 2/2] leds: second\n\nSecond.\n---\n" DIFF, k, pad);
		p = parse_simple(&m, "[PATCH 1/2] leds: first", text, &np);
		ck_assert_uint_eq(np, 2);
		ck_assert_str_eq(p[1].subject, "[PATCH 2/2] leds: second");
		ck_assert_uint_eq(p[1].first_lineno, 13);
		ck_assert_uint_eq(p[1].lines[0].lineno, 16);
		ck_assert_uint_eq(p[1].sep_lineno, 17);
		patches_free(p, np);
		hm_release(&m);
	}
}
END_TEST

/* Chat above a scissors line is no commit message, even when no in-body
 * header follows it; a "+-- >8 --" line in the diff cuts nothing. */
START_TEST(test_scissors_chat)
{
	static const char text[] =
		"Hi, this fixes the crash you saw.\n"		/* 1 */
		"\n"						/* 2 */
		"Signed-off-by: Not This <n@x.org>\n"		/* 3 */
		"\n"						/* 4 */
		"-- >8 --\n"					/* 5 */
		"Fix the crash.\n"				/* 6 */
		"\n"						/* 7 */
		"Signed-off-by: A <a@x.org>\n"			/* 8 */
		"---\n"						/* 9 */
		"diff --git a/f.c b/f.c\n"			/* 10 */
		"--- a/f.c\n"					/* 11 */
		"+++ b/f.c\n"					/* 12 */
		"@@ -1 +1,2 @@\n"				/* 13 */
		" a\n"						/* 14 */
		"+-- >8 --\n"					/* 15 */
		"+Subject: b\n";				/* 16 */
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] leds: fix the crash", text, &np);

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_PATCH);
	ck_assert_uint_eq(p->first_lineno, 6);
	ck_assert_uint_eq(p->lines[0].lineno, 6);
	ck_assert_uint_eq(p->ntrailers, 1);
	ck_assert_str_eq(p->trailers[0].value, "A <a@x.org>");
	ck_assert_int_eq(p->sep, SEP_DASHES);
	ck_assert(p->has_diff);
	ck_assert(p->after + p->after_len == m.text + m.text_len);
	patches_free(p, np);
	hm_release(&m);
}
END_TEST

#define SHA1 "0123456789abcdef0123456789abcdef01234567"
#define SHA2 "89abcdef0123456789abcdef0123456789abcdef"

static const char mbox_text[] =
	"From " SHA1 " Mon Sep 17 00:00:00 2001\n"		/* 1 */
	"From: Alice A <alice@x.org>\n"				/* 2 */
	"Date: Mon, 1 Jan 2024 00:00:00 +0000\n"		/* 3 */
	"Subject: [PATCH 1/2] leds: one\n"			/* 4 */
	"\n"							/* 5 */
	"First.\n"						/* 6 */
	"\n"							/* 7 */
	"Signed-off-by: Alice A <alice@x.org>\n"		/* 8 */
	"---\n"							/* 9 */
	DIFF							/* 10-16 */
	"-- \n"							/* 17 */
	"2.43.0\n"						/* 18 */
	"\n"							/* 19 */
	"From " SHA2 " Mon Sep 17 00:00:00 2001\n"		/* 20 */
	"From: Bob B <bob@x.org>\n"				/* 21 */
	"Date: Mon, 1 Jan 2024 00:00:01 +0000\n"		/* 22 */
	"Subject: [PATCH 2/2] leds: two\n"			/* 23 */
	"MIME-Version: 1.0\n"					/* 24 */
	"\n"							/* 25 */
	"Second.\n"						/* 26 */
	"\n"							/* 27 */
	"Reported-by: R <r@x.org>\n"				/* 28 */
	"Signed-off-by: Bob B <bob@x.org>\n"			/* 29 */
	"---\n"							/* 30 */
	DIFF;

static void check_mbox_parts(const struct patch *p, size_t np, size_t shift)
{
	ck_assert_uint_eq(np, 2);
	ck_assert_str_eq(p[0].subject, "[PATCH 1/2] leds: one");
	ck_assert_str_eq(p[0].author.name, "Alice A");
	ck_assert_str_eq(p[0].author.email, "alice@x.org");
	ck_assert_uint_eq(p[0].first_lineno, 2 + shift);
	ck_assert_uint_eq(p[0].pasted.lineno, 1 + shift);	/* a pasted format-patch file */
	ck_assert(!strncmp(p[0].pasted.p, "From " SHA1, 45));
	ck_assert_uint_eq(p[1].pasted.lineno, 20 + shift);
	ck_assert_uint_eq(p[0].lines[0].lineno, 6 + shift);
	ck_assert_uint_eq(p[0].ntrailers, 1);
	ck_assert_uint_eq(p[0].trailers[0].line.lineno, 8 + shift);
	ck_assert_int_eq(p[0].kind, KIND_PATCH);
	ck_assert_str_eq(p[1].subject, "[PATCH 2/2] leds: two");
	ck_assert_int_eq(p[1].series.index, 2);
	ck_assert_str_eq(p[1].author.name, "Bob B");
	ck_assert(p[1].author_from_body);
	ck_assert_uint_eq(p[1].first_lineno, 21 + shift);
	ck_assert_uint_eq(p[1].lines[0].lineno, 26 + shift);
	ck_assert_uint_eq(p[1].ntrailers, 2);
	ck_assert_uint_eq(p[1].trailers[1].line.lineno, 29 + shift);
	ck_assert_uint_eq(p[1].sep_lineno, 30 + shift);
	ck_assert_int_eq(p[1].kind, KIND_PATCH);
}

START_TEST(test_mbox_split)
{
	struct message m;
	size_t np;
	struct patch *p = parse_simple(&m, "[PATCH] pasted", mbox_text, &np);
	struct buf b;

	check_mbox_parts(p, np, 0);
	patches_free(p, np);
	hm_release(&m);

	/* chat above the first "From <sha>" line is dropped */
	buf_init(&b, 0);
	buf_addstr(&b, "Here are the two patches:\n\n");
	buf_addstr(&b, mbox_text);
	p = parse_simple(&m, "[PATCH] pasted", b.data, &np);
	check_mbox_parts(p, np, 2);
	patches_free(p, np);
	hm_release(&m);
	buf_release(&b);
}
END_TEST

/* Only git format-patch's own mbox line, then From: and Subject:, make a
 * pasted format-patch file. */
START_TEST(test_pasted_or_not)
{
	static const struct {
		const char *text;
		bool pasted;
	} c[] = {
		{ "From " SHA1 " Mon Sep 17 00:00:00 2001\nFrom: A <a@x.org>\nDate: Mon, 1 Jan 2024\n"
		  "Subject: [PATCH] x\n\nFix.\n---\n" DIFF, true },
		{ "\nFrom " SHA1 " Mon Sep 17 00:00:00 2001\r\nFrom: A <a@x.org>\r\n"
		  "Subject: [PATCH] x\r\n\r\nFix.\r\n---\r\n" DIFF, true },
		{ "From " SHA1 " Thu Jan  1 00:00:00 1970\nFrom: A <a@x.org>\n"
		  "Subject: [PATCH] x\n\nFix.\n---\n" DIFF, false },
		{ "From " SHA1 " Mon Sep 17 00:00:00 2001\nFrom: A <a@x.org>\n\nFix.\n---\n" DIFF, false },
		{ "Fix.\n---\n" DIFF, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct message m;
		size_t np;
		struct patch *p = parse_simple(&m, "[PATCH] x", c[i].text, &np);

		ck_assert_uint_eq(np, 1);
		ck_assert_msg((p->pasted.len > 0) == c[i].pasted, "case %zu", i);
		ck_assert_msg(!c[i].pasted || !strcmp(p->author.email, "a@x.org"), "case %zu", i);
		patches_free(p, np);
		hm_release(&m);
	}
}
END_TEST

START_TEST(test_too_many_parts)
{
	struct buf b;
	struct message m;
	struct patch *p;
	size_t np;

	buf_init(&b, 0);
	for (int i = 0; i < 200; i++)
		buf_addstr(&b, "From " SHA1 " Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\nFix.\n---\n" DIFF);
	p = parse_simple(&m, "[PATCH] many", b.data, &np);
	ck_assert_uint_le(np, PATCH_MAX_PARTS);
	ck_assert_uint_ge(np, PATCH_MAX_PARTS - 1);
	ck_assert(p[np - 1].text + p[np - 1].text_len == m.text + m.text_len);
	patches_free(p, np);
	hm_release(&m);
	buf_release(&b);
}
END_TEST

/* ---- hostile text ------------------------------------------------------- */

START_TEST(test_hostile)
{
	static const char nul_text[] = "Fix.\0\n\nSigned-off-by: A\0 <a@x.org>\n---\n\0\0\n";
	const char *hdrs[] = { "Subject", "[PATCH] x", NULL };
	struct message m;
	struct patch *p;
	size_t np;
	struct buf b;

	hm_build(&m, hdrs, nul_text, sizeof(nul_text) - 1);
	patch_parse(&m, &p, &np);
	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->sep, SEP_DASHES);
	ck_assert_uint_eq(p->nlines, 3);
	patches_free(p, np);
	hm_release(&m);

	p = parse_simple(&m, "[PATCH] x", "", &np);
	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_OTHER);
	ck_assert_uint_eq(p->nlines, 0);
	ck_assert_uint_eq(p->block_start, 0);
	ck_assert_uint_eq(p->ntrailers, 0);
	patches_free(p, np);
	hm_release(&m);

	/* more lines than PATCH_MAX_LINES: capped, separator still found */
	buf_init(&b, 0);
	for (int i = 0; i < PATCH_MAX_LINES + 10; i++)
		buf_addstr(&b, "x\n");
	buf_addstr(&b, "---\n" DIFF);
	p = parse_simple(&m, "[PATCH] x", b.data, &np);
	ck_assert_uint_eq(p->nlines, PATCH_MAX_LINES);
	ck_assert_uint_eq(p->sep_lineno, PATCH_MAX_LINES + 11);
	ck_assert_int_eq(p->kind, KIND_PATCH);
	patches_free(p, np);
	hm_release(&m);
	buf_release(&b);
}
END_TEST

/* ---- bare commit messages (--commit-msg) -------------------------------- */

START_TEST(test_commit_msg)
{
	static const char text[] =
		"# leading comment\n"				/* 1 */
		"leds: fix the frob\n"				/* 2 */
		"\n"						/* 3 */
		"# Please enter the commit message\n"		/* 4 */
		"Body text.\n"					/* 5 */
		"\n"						/* 6 */
		"Signed-off-by: A <a@x.org>\n"			/* 7 */
		"# On branch main\n"				/* 8 */
		"# ------------------------ >8 ------------------------\n" /* 9 */
		"# Do not modify or remove the line above.\n"	/* 10 */
		DIFF;
	struct message m;
	struct patch p;

	hm_build(&m, NULL, text, strlen(text));
	patch_parse_commit_msg(&m, &p);
	ck_assert_int_eq(p.kind, KIND_PATCH);
	ck_assert_str_eq(p.subject, "leds: fix the frob");
	ck_assert_str_eq(p.subject_body, "leds: fix the frob");
	ck_assert_uint_eq(p.nlines, 3);
	ck_assert_uint_eq(p.lines[0].lineno, 5);
	ck_assert_uint_eq(p.lines[2].lineno, 7);
	ck_assert_uint_eq(p.block_start, 2);
	ck_assert_uint_eq(p.ntrailers, 1);
	ck_assert_int_eq(p.sep, SEP_SCISSORS);
	ck_assert_uint_eq(p.sep_lineno, 9);
	ck_assert(p.has_diff);
	ck_assert_str_eq(p.author.email, "");
	ck_assert_str_eq(p.message_id, "");
	{
		struct patch *q = xmalloc(sizeof(*q));

		*q = p;
		patches_free(q, 1);
	}
	hm_release(&m);

	/* "---" does not end a commit message in a commit-msg file */
	hm_build(&m, NULL, "subject\n\nBody.\n---\nmore\n", strlen("subject\n\nBody.\n---\nmore\n"));
	patch_parse_commit_msg(&m, &p);
	ck_assert_uint_eq(p.nlines, 3);
	ck_assert_int_eq(p.sep, SEP_NONE);
	ck_assert(!p.has_diff);
	{
		struct patch *q = xmalloc(sizeof(*q));

		*q = p;
		patches_free(q, 1);
	}
	hm_release(&m);
}
END_TEST

/*
 * The title is the whole first paragraph, its lines joined by one space
 * (git log --format=%s of the commit git commit makes of the text from
 * the editor, comments stripped; %b is what lines hold).
 */
static const struct {
	const char *text;
	const char *subject;
	size_t nlines, first_lineno;
} title_cases[] = {
	{ "line one\nline two\n\nBody.\n", "line one line two", 1, 4 },
	/* comments go first; each line's trailing white space is dropped */
	{ "\n# c\nline one  \n# between\n   line two\t\n\n\nBody.\n\nSigned-off-by: A <a@x.org>\n",
	  "line one    line two", 3, 8 },
	{ "a\nb\nc\n", "a b c", 0, 0 },
	{ "only a title\n", "only a title", 0, 0 },
	/* a line of white space ends the paragraph */
	{ "line one\n   \nBody.\n", "line one", 1, 3 },
	/* the cut line of git commit --verbose ends the title too */
	{ "line one\n# ------------------------ >8 ------------------------\nline two\n", "line one", 0, 0 },
};

START_TEST(test_commit_msg_title)
{
	struct message m;
	struct patch *p = xmalloc(sizeof(*p));

	hm_build(&m, NULL, title_cases[_i].text, strlen(title_cases[_i].text));
	patch_parse_commit_msg(&m, p);
	ck_assert_str_eq(p->subject, title_cases[_i].subject);
	ck_assert_str_eq(p->subject_body, title_cases[_i].subject);
	ck_assert_uint_eq(p->nlines, title_cases[_i].nlines);
	if (p->nlines)
		ck_assert_uint_eq(p->lines[0].lineno, title_cases[_i].first_lineno);
	patches_free(p, 1);
	hm_release(&m);
}
END_TEST

/* ---- real mails through message_parse() (needs message.c) --------------- */

static struct patch *parse_fixture(const char *name, struct message *m, size_t *np, char **raw)
{
	size_t len;
	struct err e;
	struct patch *p;

	*raw = th_read_data(name, &len);
	message_init(m);
	ck_assert_msg(message_parse(m, *raw, len, &e) == 0, "%s: %s", name, e.msg);
	patch_parse(m, &p, np);
	ck_assert_uint_ge(*np, 1);
	return p;
}

/* A real b4 web relay mail: encoded "via B4 Relay" From:, in-body From:. */
START_TEST(test_fixture_b4_relay)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-b4-relay.eml", &m, &np, &raw);
	struct person sub;

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_PATCH);
	ck_assert_str_eq(p->sender.name, "J. Neusch\xc3\xa4" "fer via B4 Relay");
	ck_assert_str_eq(p->sender.email, "devnull+j.ne.posteo.net@kernel.org");
	ck_assert_str_eq(p->author.name, "J. Neusch\xc3\xa4" "fer");
	ck_assert_str_eq(p->author.email, "j.ne@posteo.net");
	ck_assert(p->author_from_body);
	/* The submitter is the relay's original sender, not the in-body From:. */
	ck_assert_int_eq(patch_submitter(p, &sub), 0);
	ck_assert_str_eq(sub.name, "J. Neusch\xc3\xa4" "fer");
	ck_assert_str_eq(sub.email, "j.ne@posteo.net");
	person_release(&sub);
	ck_assert_str_eq(p->subject_body, "dt-bindings: leds: Allow differently named multicolor leds");
	ck_assert_str_eq(p->message_id, "20250209-multi-led-v1-1-5aebccbd2db7@posteo.net");
	ck_assert_str_eq(p->list_id, "linux-leds.vger.kernel.org");
	ck_assert_str_eq(p->change_id, "20250209-multi-led-9991e205befd");
	ck_assert_uint_eq(p->nlines, 7);
	ck_assert_uint_eq(p->lines[0].lineno, 3);
	ck_assert_uint_eq(p->ntrailers, 1);
	ck_assert_uint_eq(p->trailers[0].line.lineno, 9);
	ck_assert_uint_eq(p->sep_lineno, 10);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

/* A real review (trimmed): its text opens with "Subject: s/led/LED/", a
 * suggestion, not an in-body header; the Re: of the mail decides. */
START_TEST(test_fixture_reply_opens_with_subject)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-reply-opens-with-subject.eml", &m, &np, &raw);

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_REPLY);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

/* A real b4 relay cover letter: no in-body From:, so X-Original-From: wins. */
START_TEST(test_fixture_b4_relay_cover)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-b4-relay-cover.eml", &m, &np, &raw);

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_COVER);
	ck_assert_int_eq(p->series.total, 2);
	ck_assert_str_eq(p->subject,
			 "[PATCH 0/2] leds: flash: leds-qcom-flash: update torch current clamp setting");
	ck_assert_str_eq(p->author.name, "Fenglin Wu");
	ck_assert_str_eq(p->author.email, "fenglin.wu@oss.qualcomm.com");
	ck_assert(!p->author_from_body);
	ck_assert_str_eq(p->change_id, "20250725-fix-torch-clamp-issue-ca25212aa224");
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

/* A real review reply that quotes the patch, diff and sign-off included. */
START_TEST(test_fixture_reply)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-reply-quotes-diff.eml", &m, &np, &raw);

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_REPLY);
	ck_assert(!p->has_diff);
	ck_assert_int_eq(p->series.version, 4);
	ck_assert_int_eq(p->series.index, 2);
	ck_assert_str_eq(p->subject_body, "backlight: dwi_bl: Add Apple DWI backlight driver");
	ck_assert_str_eq(p->in_reply_to, "20241211113512.19009-3-towinchenmi@gmail.com");
	ck_assert_uint_eq(p->nreferences, 2);
	ck_assert_str_eq(p->references[0], "20241211113512.19009-1-towinchenmi@gmail.com");
	ck_assert_str_eq(p->author.email, "danielt@kernel.org");
	for (size_t i = 0; i < p->ntrailers; i++)
		ck_assert(!trailer_is(&p->trailers[i], "Signed-off-by"));
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

START_TEST(test_fixture_scissors)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-scissors-second-patch.eml", &m, &np, &raw);

	ck_assert_uint_eq(np, 1);
	ck_assert_int_eq(p->kind, KIND_REPLY);	/* the mail's Re: decides (patch.h (a)) */
	ck_assert_str_eq(p->subject, "[PATCH] leds: core: take the lock in led_set_brightness()");
	ck_assert_str_eq(p->author.name, "Jane Reviewer");
	ck_assert_uint_eq(p->first_lineno, 10);
	ck_assert_uint_eq(p->ntrailers, 2);
	ck_assert_uint_eq(p->trailers[0].line.lineno, 16);
	ck_assert_uint_eq(p->sep_lineno, 18);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

START_TEST(test_fixture_pasted_mbox)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/model-pasted-mbox-two-patches.eml", &m, &np, &raw);

	check_mbox_parts(p, np, 2);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

/* Real mails (trimmed) and one hand-made: the kind of every part. */
static const struct {
	const char *file;
	size_t nparts;
	enum patch_kind kind;	/* of each part */
	bool has_diff;		/* of the first part */
} submission_cases[] = {
	/* (a) a reply attaching two format-patch files it does not submit */
	{ "mail/submission-reply-attached-patches.eml", 2, KIND_REPLY, true },
	/* (a) a reply pasting a format-patch to test ("please test this") */
	{ "mail/submission-reply-pasted-patch.eml", 1, KIND_REPLY, true },
	/* (a) In-Reply-To, no Re:, no patch prefix, quotes: a debug hack attached */
	{ "mail/submission-irt-no-prefix-quoted.eml", 1, KIND_REPLY, true },
	/* (b) a bug report with a tentative diff, no patch prefix */
	{ "mail/submission-bug-report-diff.eml", 1, KIND_OTHER, true },
	/* (b) "Apply <commit> to 5.15, 6.1, and 6.6", the backport attached */
	{ "mail/submission-stable-request-attached.eml", 1, KIND_OTHER, true },
	/* a stable backport with a patch prefix is a submission */
	{ "mail/submission-stable-backport-patch.eml", 1, KIND_PATCH, true },
	/* (d) a submission with three patch attachments: each a part */
	{ "mail/submission-three-attached-patches.eml", 3, KIND_PATCH, true },
};

/* (d): each attachment is parsed on its own and named. */
START_TEST(test_fixture_three_attachments)
{
	static const char *const names[] = {
		"0001-leds-core-fix-one-thing.patch", "0002-leds-core-fix-another-thing.patch",
		"0003-leds-class-fix-a-third-thing.diff",
	};
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture("mail/submission-three-attached-patches.eml", &m, &np, &raw);

	ck_assert_uint_eq(np, 3);
	ck_assert_uint_eq(m.nmore, 2);
	for (size_t i = 0; i < np; i++) {
		ck_assert_str_eq(p[i].attachment, names[i]);
		ck_assert_int_eq(p[i].series.index, (int)i + 1);
		ck_assert_int_eq(p[i].series.total, 3);
		ck_assert_str_eq(p[i].author.email, "ann@example.org");
		ck_assert(p[i].author_from_body);
		ck_assert_uint_eq(p[i].first_lineno, 2);	/* after the "From <sha>" line */
		ck_assert_uint_eq(p[i].lines[0].lineno, 6);
		ck_assert(p[i].has_diff);
	}
	ck_assert(p[1].text >= m.more[0].text && p[1].text < m.more[0].text + m.more[0].len);
	ck_assert_str_eq(p[1].subject, "[PATCH 2/3] leds: core: fix another thing");
	ck_assert_uint_eq(p[0].ntrailers, 1);
	ck_assert_uint_eq(p[1].ntrailers, 0);
	ck_assert_uint_eq(p[2].ntrailers, 2);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

START_TEST(test_fixture_submissions)
{
	struct message m;
	size_t np;
	char *raw;
	struct patch *p = parse_fixture(submission_cases[_i].file, &m, &np, &raw);

	ck_assert_msg(np == submission_cases[_i].nparts, "%s: %zu parts", submission_cases[_i].file, np);
	for (size_t i = 0; i < np; i++)
		ck_assert_msg(p[i].kind == submission_cases[_i].kind, "%s part %zu: %s",
			      submission_cases[_i].file, i, patch_kind_name(p[i].kind));
	ck_assert(p[0].has_diff == submission_cases[_i].has_diff);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("patch");
	TCase *pure = tcase_create("pure");
	TCase *model = tcase_create("model");
	TCase *mail = tcase_create("mail");

	tcase_add_loop_test(pure, test_subject, 0, ARRAY_SIZE(subject_cases));
	tcase_add_test(pure, test_subject_hostile);
	tcase_add_loop_test(pure, test_msgid, 0, ARRAY_SIZE(msgid_cases));
	tcase_add_test(pure, test_kind_names);
	suite_add_tcase(s, pure);

	tcase_add_loop_test(model, test_kind, 0, ARRAY_SIZE(kind_cases));
	tcase_add_loop_test(model, test_mail_kind, 0, ARRAY_SIZE(mail_kind_cases));
	tcase_add_loop_test(model, test_separator, 0, ARRAY_SIZE(sep_cases));
	tcase_add_test(model, test_inbody);
	tcase_add_test(model, test_people_raw);
	tcase_add_loop_test(model, test_inbody_forms, 0, ARRAY_SIZE(inbody_cases));
	tcase_add_loop_test(model, test_inbody_needs_patch, 0, ARRAY_SIZE(inbody_patch_cases));
	tcase_add_loop_test(model, test_title_cleanup, 0, ARRAY_SIZE(cleanup_cases));
	tcase_add_loop_test(model, test_relay_author, 0, ARRAY_SIZE(relay_cases));
	tcase_add_loop_test(model, test_malformed_from, 0, ARRAY_SIZE(malformed_from_cases));
	tcase_add_test(model, test_malformed_from_decoded);
	tcase_add_test(model, test_ids);
	tcase_add_test(model, test_trailers_in_patch);
	tcase_add_test(model, test_trailers_above_conflicts);
	tcase_add_test(model, test_change_id);
	tcase_add_test(model, test_many_trailers);
	tcase_add_test(model, test_scissors_split);
	tcase_add_test(model, test_scissors_two_patches);
	tcase_add_test(model, test_scissors_any_offset);
	tcase_add_test(model, test_scissors_chat);
	tcase_add_test(model, test_pasted_or_not);
	tcase_add_test(model, test_mbox_split);
	tcase_add_test(model, test_too_many_parts);
	tcase_add_test(model, test_hostile);
	tcase_add_test(model, test_commit_msg);
	tcase_add_loop_test(model, test_commit_msg_title, 0, ARRAY_SIZE(title_cases));
	suite_add_tcase(s, model);

	tcase_add_test(mail, test_fixture_b4_relay);
	tcase_add_test(mail, test_fixture_b4_relay_cover);
	tcase_add_test(mail, test_fixture_reply);
	tcase_add_test(mail, test_fixture_reply_opens_with_subject);
	tcase_add_test(mail, test_fixture_scissors);
	tcase_add_test(mail, test_fixture_pasted_mbox);
	tcase_add_loop_test(mail, test_fixture_submissions, 0, ARRAY_SIZE(submission_cases));
	tcase_add_test(mail, test_fixture_three_attachments);
	suite_add_tcase(s, mail);
	return th_run_suite(s);
}
