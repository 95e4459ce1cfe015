#include "autoconf.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "mail/mail.h"
#include "mail/message.h"
#include "testhelp.h"

/* ---------------------------------------------------------------------
 * RFC 2047 and charsets, by table.
 */

static const struct {
	const char *in, *out;
} words[] = {
	{ "=?iso-8859-1?q?J=F6rg?=", "J\xc3\xb6rg" },
	{ "=?UTF-8?B?SsO2cmc=?=", "J\xc3\xb6rg" },
	{ "=?utf-8?b?SsO2cmc?=", "J\xc3\xb6rg" },		/* no padding */
	{ "=?utf-8?q?a?= =?utf-8?q?b?=", "ab" },		/* space between words goes */
	{ "=?utf-8?q?a?=\t  =?ISO-8859-1?q?=E9?=", "a\xc3\xa9" },
	{ "=?utf-8?q?a?= b =?utf-8?q?c?=", "a b c" },		/* space next to text stays */
	{ "x =?utf-8?q?a?=", "x a" },
	{ "=?utf-8?q?a_b?=", "a b" },
	{ "=?utf-8?q?=C3?= =?utf-8?q?=A9?=", "\xc3\xa9" },	/* one character split in two words */
	{ "=?utf-8?b?w6k=?= =?utf-8?b?w6k=?=", "\xc3\xa9\xc3\xa9" },
	{ "=?koi8-r?b?8NLJ18XU?=", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82" }, /* Привет */
	{ "=?gb2312?b?1tDOxA==?=", "\xe4\xb8\xad\xe6\x96\x87" },	/* 中文 */
	{ "=?iso-8859-15?q?=A4?=", "\xe2\x82\xac" },
	{ "=?windows-1252?Q?=80?=", "\xe2\x82\xac" },
	{ "=?x-nonesuch?q?J=C3=B6rg?=", "J\xc3\xb6rg" },	/* unknown: UTF-8 ... */
	{ "=?x-nonesuch?q?J=F6rg?=", "J\xc3\xb6rg" },		/* ... else Latin-1 */
	{ "=?utf-8*de?q?Gr=C3=BC=C3=9Fe?=", "Gr\xc3\xbc\xc3\x9f" "e" },	/* RFC 2231 language */
	{ "=?utf-8?q?bad=ZZ?=", "bad=ZZ" },
	{ "=?utf-8?q?a=FFb?=", "a\xef\xbf\xbd" "b" },
	{ "=?utf-8?q?line=0D=0Abreak?=", "line  break" },	/* no line breaks in a value */
	{ "=?utf-8?q?nul=00?=", "nul" },
	{ "=?UTF-8?Q?Jean-Fran=C3=A7ois=20Lessard?= <j@example.org>", "Jean-Fran\xc3\xa7ois Lessard <j@example.org>" },
	{ "foo=?utf-8?q?bar?=", "foobar" },
	{ "=?utf-8?x?abc?=", "=?utf-8?x?abc?=" },		/* not an encoding */
	{ "=?utf-8?q?unterminated", "=?utf-8?q?unterminated" },
	{ "=?utf-8?q?sp ace?=", "=?utf-8?q?sp ace?=" },	/* encoded text holds no space */
	{ "=??q?a?=", "=??q?a?=" },
	{ "a = b ?= c", "a = b ?= c" },
	{ "J\xc3\xb6rg", "J\xc3\xb6rg" },			/* raw 8-bit: UTF-8 ... */
	{ "J\xf6rg", "J\xc3\xb6rg" },				/* ... else Latin-1 */
	{ "", "" },
};

START_TEST(test_decode_2047)
{
	char *s = message_decode_2047(words[_i].in, strlen(words[_i].in));

	ck_assert_msg(!strcmp(s, words[_i].out), "case %d: \"%s\" gave \"%s\", want \"%s\"", _i,
		      words[_i].in, s, words[_i].out);
	free(s);
}
END_TEST

static const struct {
	const char *charset, *in, *out;
	bool bad;
} charsets[] = {
	{ "utf-8", "J\xc3\xb6rg", "J\xc3\xb6rg", false },
	{ "UTF-8", "a\xff" "b", "a\xef\xbf\xbd" "b", true },
	{ "utf-8", "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", true },	/* overlong '/' */
	{ "utf-8", "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", true }, /* surrogate */
	{ "iso-8859-1", "J\xf6rg", "J\xc3\xb6rg", false },
	{ "\"ISO-8859-1\"", "\xe9", "\xc3\xa9", false },
	{ "windows-1252", "\x80 \x93q\x94", "\xe2\x82\xac \xe2\x80\x9cq\xe2\x80\x9d", false },
	{ "iso-8859-15", "\xa4", "\xe2\x82\xac", false },
	{ "iso-8859-2", "\xb1", "\xc4\x85", false },			/* ą */
	{ "koi8-r", "\xf0\xd2\xc9\xd7\xc5\xd4", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82", false },
	{ "gb2312", "\xd6\xd0\xce\xc4", "\xe4\xb8\xad\xe6\x96\x87", false },
	{ "iso-2022-jp", "\x1b$B$3$s\x1b(B", "\xe3\x81\x93\xe3\x82\x93", false },	/* こん */
	{ "us-ascii", "plain", "plain", false },
	{ "us-ascii", "J\xc3\xb6rg", "J\xc3\xb6rg", false },	/* mislabelled UTF-8 */
	{ NULL, "J\xc3\xb6rg", "J\xc3\xb6rg", false },
	{ NULL, "J\xf6rg", "J\xc3\xb6rg", false },
	{ "x-nonesuch", "J\xf6rg", "J\xc3\xb6rg", true },
	{ "y", "J\xc3\xb6rg", "J\xc3\xb6rg", true },		/* git send-email's "y" */
};

START_TEST(test_to_utf8)
{
	bool bad = false;
	size_t len;
	char *s = message_to_utf8(charsets[_i].in, strlen(charsets[_i].in), charsets[_i].charset, &len, &bad);

	ck_assert_msg(!strcmp(s, charsets[_i].out), "case %d (%s): got \"%s\"", _i,
		      charsets[_i].charset ? charsets[_i].charset : "NULL", s);
	ck_assert_uint_eq(len, strlen(charsets[_i].out));
	ck_assert_msg(bad == charsets[_i].bad, "case %d: bad is %d", _i, bad);
	free(s);
}
END_TEST

/* ---------------------------------------------------------------------
 * Whole mails: fixtures in tests/data and short ones inline.
 */

struct hdr_want {
	const char *name, *value, *raw;	/* raw NULL: not checked */
};

struct mail_case {
	const char *file;		/* a fixture, or */
	const char *raw;		/* an inline mail */
	const char *text;		/* the whole text, or NULL */
	const char *has[4];		/* pieces the text must hold */
	const char *charset;
	unsigned warnings;
	bool attachment;
	const char *filename;		/* text_name; NULL: "" */
	bool quotes;			/* body_quotes */
	struct hdr_want hdr[3];
};

#define SOB "Signed-off-by: A U Thor <a@example.org>\n"

static const struct mail_case mails[] = {
	{ .file = "mail/mime-qp-soft-break.eml",
	  .text = "A line that was too long for the wire, so the encoder broke it at column 76.\n"
		  "J\xc3\xb6rg wrote lower-case hex; 100% sure; =ZZ and =4 stay; a=b.\n"
		  "A soft break with transport padding here.\n" SOB,
	  .charset = "utf-8" },
	{ .file = "mail/mime-base64-body.eml",
	  .text = "Fix the thing.\n\nSigned-off-by: J\xc3\xb6rg R\xc3\xb6" "del <j@example.org>\n",
	  .charset = "utf-8",
	  .hdr = { { "From", "J\xc3\xb6rg <j@example.org>", "J\xc3\xb6rg <j@example.org>" } } },
	{ .file = "mail/mime-cp1252-euro.eml",
	  .text = "It costs 5 \xe2\x82\xac and is \xe2\x80\x9cquoted\xe2\x80\x9d.\n"
		  "Signed-off-by: Ren\xc3\xa9 Dupont <r@example.org>\n",
	  .charset = "windows-1252" },
	{ .file = "mail/mime-flowed-delsp.eml",
	  .text = "This paragraph was wrapped by the client. It ends here.\n\n"
		  " indented by one space, stuffed\n"
		  "> quoted and flowed.\n-- \nA U Thor\n",
	  .charset = "utf-8", .quotes = true },
	{ .file = "mail/mime-crlf.eml",
	  .text = "Line one.\n\n" SOB "---\ndiff --git a/f b/f\n",
	  .charset = "us-ascii",
	  .hdr = { { "Subject", "[PATCH] crlf: a mail with CR LF line ends", "[PATCH] crlf: a mail with CR LF line ends" },
		   { "Message-ID", "<crlf@example.org>", "<crlf@example.org>" } } },
	{ .file = "mail/mime-mixed-x-patch.eml",
	  .text = "Subject: [PATCH] fix it\n\n" SOB "---\ndiff --git a/f b/f\n",
	  .charset = "utf-8", .attachment = true, .filename = "fix.patch" },
	{ .file = "mail/mime-nested-alternative.eml",
	  .text = "Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <j@example.org>\n",
	  .charset = "iso-8859-1" },
	{ .file = "mail/mime-truncated.eml",
	  .text = SOB "---\ndiff --git a/f b/f\n",
	  .charset = "us-ascii", .warnings = MSG_WARN_TRUNCATED_MIME },
	{ .file = "mail/mime-no-boundary.eml",
	  /* The line break before a delimiter belongs to the delimiter. */
	  .text = "Signed-off-by: A U Thor <a@example.org>", .charset = "utf-8", .warnings = MSG_WARN_NO_BOUNDARY },
	{ .file = "mail/mime-nul-bytes.eml",
	  .text = "Line one.\n" SOB, .charset = "utf-8", .warnings = MSG_WARN_NUL_BYTES,
	  .hdr = { { "Subject", "[PATCH] nul bytes", "[PATCH] nul bytes" } } },
	/* Real mails from the corpus, trimmed. */
	{ .file = "mail/mime-corpus-qp-gmx.eml",	/* no Content-Type; "=2D--" hides the separator */
	  .has = { "\nSigned-off-by: Len Bao <len.bao@gmx.us>\n---\n drivers/leds/leds-max77705.c | 2 +-\n",
		   "\n--- a/drivers/leds/leds-max77705.c\n+++ b/drivers/leds/leds-max77705.c\n",
		   "struct device *dev, struct regmap *regmap, struct fw\n \n \t\tret = fwnode_property_read_u32(",
		   "\n-- \n2.43.0\n" },
	  .charset = "us-ascii" },
	{ .file = "mail/mime-corpus-qp-crlf.eml",	/* "=0D" at every line end */
	  .has = { "In preparation to class_find_device_by_of_node() going away switch to\n"
		   "using class_find_device_by_fwnode().\n\n"
		   "Signed-off-by: Dmitry Torokhov <dmitry.torokhov@gmail.com>\n---\n",
		   "\ndiff --git a/drivers/net/wan/framer/framer-core.c b/drivers/net/wan/framer/framer-core.c\n",
		   "\n+\ttarget_dev = class_find_device_by_fwnode(&framer_class, of_fwnode_handle(args->np));\n",
		   "\n-- \n2.53.0.959.g497ff81fa9-goog\n\n" },
	  .charset = "utf-8",
	  .hdr = { { "Subject", "[PATCH net-next 01/10] net: wan: framer: switch to using class_find_device_by_fwnode()" } } },
	{ .file = "mail/mime-corpus-2047-from.eml",
	  .has = { "\nFixes: 2144f6d57d8e (\"arm64: dts: qcom: Add Xiaomi Redmi 3S\")\n"
		   "Signed-off-by: Barnab\xc3\xa1s Cz\xc3\xa9m\xc3\xa1n <barnabas.czeman@mainlining.org>\n---\n" },
	  .charset = "utf-8",
	  .hdr = { { "From", "Barnab\xc3\xa1s Cz\xc3\xa9m\xc3\xa1n <barnabas.czeman@mainlining.org>",
		     "=?utf-8?q?Barnab=C3=A1s_Cz=C3=A9m=C3=A1n?= <barnabas.czeman@mainlining.org>" },
		   { "subject", "[PATCH 4/5] arm64: dts: qcom: msm8937-xiaomi-land: correct wled ovp value" },
		   { "MESSAGE-ID", "<20260107-pmi8950-wled-v1-4-5e52f5caa39c@mainlining.org>" } } },
	{ .file = "mail/mime-corpus-octet-stream-patch.eml",	/* Gmail: octet-stream, name="0001-...patch" */
	  .has = { "From cd749918b9170214e91e21524095388d7c0df364 Mon Sep 17 00:00:00 2001\n"
		   "From: Lorenzo Egidio <lorenzoegidioms@gmail.com>\n",
		   "\n\nSigned-off-by: Lorenzo Egidio <lorenzoegidioms@gmail.com>\n---\n",
		   "\ndiff --git a/drivers/leds/led-test.c b/drivers/leds/led-test.c\n" },
	  .charset = "us-ascii", .attachment = true,
	  .filename = "0001-leds-tests-clarify-name-conflict-test.patch" },

	/* Inline. */
	{ .raw = "Subject: plain\n\nhello\n", .text = "hello\n", .charset = "us-ascii" },
	{ .raw = "From a@b Thu Jan  1 00:00:00 1970\nSubject: mbox\n\nx\n", .text = "x\n", .charset = "us-ascii",
	  .hdr = { { "Subject", "mbox" } } },
	{ .raw = "Subject: folded\n  a\n\tb  \n\nx\n", .text = "x\n", .charset = "us-ascii",
	  .hdr = { { "Subject", "folded  a\tb", "folded  a\tb" } } },
	{ .raw = "Subject : space before colon\n\nx\n", .text = "x\n", .charset = "us-ascii",
	  .hdr = { { "Subject", "space before colon" } } },
	{ .raw = "Subject: J\xf6rg\nFrom: J\xc3\xb6rg <j@x>\n\nx\n", .text = "x\n", .charset = "us-ascii",
	  .hdr = { { "Subject", "J\xc3\xb6rg", "J\xf6rg" }, { "From", "J\xc3\xb6rg <j@x>" } } },
	{ .raw = "Subject: =?utf-8?q?_padded_?=\n\nx\n", .text = "x\n", .charset = "us-ascii",
	  .hdr = { { "Subject", "padded", "=?utf-8?q?_padded_?=" } } },
	/* A line that is no header field starts the body (as git mailinfo). */
	{ .raw = "Subject: s\nnot a header\nmore\n", .text = "not a header\nmore\n", .charset = "us-ascii" },
	{ .raw = "Subject: only headers\n", .text = "", .charset = "us-ascii" },
	{ .raw = "Content-Type: text/plain; format=flowed\n\nfoo \nbar\n-- \nsig \n", .text = "foo bar\n-- \nsig \n",
	  .charset = "us-ascii" },
	{ .raw = "Content-Type: TEXT/PLAIN; CHARSET=ISO-8859-1\n\nRen\xe9\n", .text = "Ren\xc3\xa9\n",
	  .charset = "iso-8859-1" },
	{ .raw = "Content-Type: text/plain; charset=x-nonesuch\n\nRen\xe9\n", .text = "Ren\xc3\xa9\n",
	  .charset = "x-nonesuch", .warnings = MSG_WARN_BAD_CHARSET },
	{ .raw = "Content-Type: text/plain; charset=utf-8\n\nRen\xe9\n", .text = "Ren\xef\xbf\xbd\n",
	  .charset = "utf-8", .warnings = MSG_WARN_BAD_CHARSET },
	{ .raw = "Content-Transfer-Encoding: base64\n\nYWJj\nZA==\nZWY=\n", .text = "abcdef", .charset = "us-ascii" },
	{ .raw = "Content-Transfer-Encoding: BASE64\n\nYW Jj\r\n*ZA\n", .text = "abcd", .charset = "us-ascii" },
	{ .raw = "Content-Transfer-Encoding: quoted-printable\n\na=\r\nb=0D=0Ac=\n", .text = "ab\nc",
	  .charset = "us-ascii" },
	{ .raw = "Content-Type: text/html\n\n<p>hi</p>\n", .text = "", .charset = "us-ascii",
	  .warnings = MSG_WARN_NO_TEXT },
	/* The first text/plain holds the diff: an attachment does not replace it. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\n" SOB "---\ndiff --git a/f b/f\n"
		 "--b\nContent-Type: text/x-diff\n\nother\n--b--\n",
	  .text = SOB "---\ndiff --git a/f b/f", .charset = "us-ascii" },
	/* A diff without "diff --git" counts too; a quoted one does not. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		 "--b\nContent-Type: text/x-patch\n\nother\n--b--\n",
	  .text = "--- a/f\n+++ b/f\n@@ -1 +1 @@", .charset = "us-ascii" },
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\n> diff --git a/f b/f\n"
		 "--b\nContent-Type: text/x-patch\n\nother\n--b--\n",
	  .text = "other", .charset = "us-ascii", .attachment = true, .quotes = true },
	/* Quoted lines: ">", "> x", ">>x"; not mboxrd's ">From ", nor in an attachment. */
	{ .raw = "Subject: q\n\nOn Mon, A wrote:\n>\n", .text = "On Mon, A wrote:\n>\n",
	  .charset = "us-ascii", .quotes = true },
	{ .raw = "Subject: q\n\n>>old\n", .text = ">>old\n", .charset = "us-ascii", .quotes = true },
	/* a lone ">" that ends the text, with or without a CR; not ">" and a CR inside a line */
	{ .raw = "Subject: q\n\nx->y\n>", .text = "x->y\n>", .charset = "us-ascii", .quotes = true },
	{ .raw = "Subject: q\n\nx->y\n>\r", .text = "x->y\n>\r", .charset = "us-ascii", .quotes = true },
	{ .raw = "Subject: q\n\n>\rx\n>x\n", .text = ">\rx\n>x\n", .charset = "us-ascii" },
	{ .raw = "Subject: q\n\n>From the top\na > b\n", .text = ">From the top\na > b\n",
	  .charset = "us-ascii" },
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\nsee attached\n"
		 "--b\nContent-Type: text/x-patch\n\n> other\n--b--\n",
	  .text = "> other", .charset = "us-ascii", .attachment = true },
	/* A name in Content-Type only, the type octet-stream. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nsee attachment\n"
		 "--b\nContent-Type: application/octet-stream; name=\"0001-foo.patch\"\n"
		 "Content-Transfer-Encoding: base64\n\nU2lnbmVkLW9mZi1ieTogQQo=\n--b--\n",
	  .text = "Signed-off-by: A\n", .charset = "us-ascii", .attachment = true,
	  .filename = "0001-foo.patch" },
	/* octet-stream without a patch name is not the text. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n"
		 "--b\nContent-Type: application/octet-stream; name=\"dmesg.log\"\n\nlog\n--b--\n",
	  .text = "hi", .charset = "us-ascii" },
	/* An RFC 2231 file name, and one in RFC 2047 words. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n"
		 "--b\nContent-Type: application/octet-stream\nContent-Disposition: attachment;\n"
		 " filename*0=\"0001-a-very-long-name\"; filename*1=\".diff\"\n\npatch\n--b--\n",
	  .text = "patch", .charset = "us-ascii", .attachment = true },	/* pieces: no name */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n"
		 "--b\nContent-Type: application/octet-stream; name=\"=?utf-8?q?0001-J=C3=B6rg.patch?=\"\n\npatch\n--b--\n",
	  .text = "patch", .charset = "us-ascii", .attachment = true, .filename = "0001-J\xc3\xb6rg.patch" },
	/* A directory in the name is dropped; Content-Disposition's name wins. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n"
		 "--b\nContent-Type: text/x-patch; name=\"old.patch\"\n"
		 "Content-Disposition: attachment; filename=\"C:\\\\tmp\\\\0001-fix.patch\"\n\npatch\n--b--\n",
	  .text = "patch", .charset = "us-ascii", .attachment = true, .filename = "0001-fix.patch" },
	/* text/html first, then text/plain; delimiters with transport padding and CR LF. */
	{ .raw = "Content-Type: multipart/alternative; boundary=\"q\"\r\n\r\npreamble\r\n--q  \r\n"
		 "Content-Type: text/html\r\n\r\n<p>x</p>\r\n--q\r\nContent-Type: text/plain\r\n\r\nplain\r\n--q--\r\nepilogue\r\n",
	  .text = "plain", .charset = "us-ascii" },
	/* A boundary the body never uses: the body is read as text. */
	{ .raw = "Content-Type: multipart/mixed; boundary=nothere\n\n" SOB,
	  .text = SOB, .charset = "us-ascii", .warnings = MSG_WARN_TRUNCATED_MIME },
	/* No boundary and none to guess: the body is read as text. */
	{ .raw = "Content-Type: multipart/mixed\n\n" SOB,
	  .text = SOB, .charset = "us-ascii", .warnings = MSG_WARN_NO_BOUNDARY },
	/* A delimiter that is the first line of the body. */
	{ .raw = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\nfirst\n--b--",
	  .text = "first", .charset = "us-ascii" },
	/* Header fields are kept in order, duplicates included. */
	{ .raw = "Received: one\nReceived: two\nSubject: s\n\nx", .text = "x", .charset = "us-ascii",
	  .hdr = { { "Received", "one" }, { "received", "one", "one" } } },
};

static void check_headers(const struct message *m, const struct hdr_want *hw, int i)
{
	for (size_t k = 0; k < 3 && hw[k].name; k++) {
		const char *v = message_header(m, hw[k].name), *r = message_header_raw(m, hw[k].name);

		ck_assert_msg(v != NULL, "case %d: no %s header", i, hw[k].name);
		ck_assert_msg(!strcmp(v, hw[k].value), "case %d: %s is \"%s\", want \"%s\"", i, hw[k].name, v,
			      hw[k].value);
		if (hw[k].raw)
			ck_assert_msg(!strcmp(r, hw[k].raw), "case %d: raw %s is \"%s\"", i, hw[k].name, r);
	}
}

/* message_parse_in_place() on a copy of raw reads the same message as m. */
static void check_in_place(const struct message *m, const char *raw, size_t len, int i)
{
	char *copy = xmalloc(len + 1);
	struct message p;
	struct err e;

	memcpy(copy, raw, len);
	copy[len] = '\0';
	ck_assert_msg(message_parse_in_place(&p, copy, len, &e) == 0, "case %d: %s", i, e.msg);
	ck_assert_uint_eq(p.text_len, m->text_len);
	ck_assert_msg(!memcmp(p.text, m->text, m->text_len + 1), "case %d: in place, text is\n[%s]", i,
		      p.text);
	ck_assert_msg(p.warnings == m->warnings, "case %d: in place, warnings 0x%x", i, p.warnings);
	ck_assert_str_eq(p.text_charset, m->text_charset);
	ck_assert_str_eq(p.text_name, m->text_name);
	ck_assert_int_eq(p.text_is_attachment, m->text_is_attachment);
	ck_assert_int_eq(p.body_quotes, m->body_quotes);
	ck_assert_uint_eq(p.nmore, m->nmore);
	ck_assert_uint_eq(p.nheaders, m->nheaders);
	for (size_t k = 0; k < m->nheaders; k++) {
		ck_assert_str_eq(p.headers[k].name, m->headers[k].name);
		ck_assert_str_eq(message_header_value(&p, &p.headers[k]),
				 message_header_value(m, &m->headers[k]));
		ck_assert_str_eq(message_header_raw_of(&p, &p.headers[k]),
				 message_header_raw_of(m, &m->headers[k]));
	}
	if (p.text_in_raw)
		ck_assert(p.text >= copy && p.text + p.text_len <= copy + len);
	message_release(&p);
	free(copy);
}

START_TEST(test_mail)
{
	const struct mail_case *c = &mails[_i];
	struct message m;
	struct err e;
	size_t len;
	char *raw = c->file ? th_read_data(c->file, &len) : xstrdup(c->raw);

	if (!c->file)
		len = strlen(raw);
	err_init(&e);
	ck_assert_msg(message_parse(&m, raw, len, &e) == 0, "case %d: %s", _i, e.msg);
	if (c->text)
		ck_assert_msg(!strcmp(m.text, c->text), "case %d (%s): text is\n[%s]\nwant\n[%s]", _i,
			      c->file ? c->file : "inline", m.text, c->text);
	for (size_t k = 0; k < 4 && c->has[k]; k++)
		ck_assert_msg(strstr(m.text, c->has[k]) != NULL, "case %d (%s): text lacks [%s]; text:\n%s", _i,
			      c->file ? c->file : "inline", c->has[k], m.text);
	ck_assert_uint_eq(m.text_len, strlen(m.text));
	ck_assert_msg(!strchr(m.text, '\r') || !strstr(m.text, "\r\n"), "case %d: CR LF left", _i);
	ck_assert_str_eq(m.text_charset, c->charset);
	ck_assert_msg(m.warnings == c->warnings, "case %d: warnings 0x%x, want 0x%x", _i, m.warnings, c->warnings);
	ck_assert_int_eq(m.text_is_attachment, c->attachment);
	ck_assert_str_eq(m.text_name, c->filename ? c->filename : "");
	ck_assert_msg(m.body_quotes == c->quotes, "case %d: body_quotes %d", _i, m.body_quotes);
	check_headers(&m, c->hdr, _i);
	check_in_place(&m, raw, len, _i);
	message_release(&m);
	ck_assert_ptr_null(m.text);
	free(raw);
}
END_TEST

/* In place, a single-part mail's text is its own bytes, decoded there;
 * raw_changed tells when they no longer are the mail's.  A text that must
 * lose its CRs while still the mail's is a copy. */
START_TEST(test_in_place)
{
	static const struct {
		const char *raw, *text;
		bool in_raw, changed;
	} cases[] = {
		{ "Subject: s\n\nplain text\n", "plain text\n", true, false },
		{ "Content-Transfer-Encoding: base64\n\ncGxhaW4gdGV4dAo=\n", "plain text\n", true, true },
		{ "Content-Transfer-Encoding: quoted-printable\n\na =3D b\n", "a = b\n", true, true },
		/* decodes to a prefix of itself: the bytes stay the mail's */
		{ "Content-Transfer-Encoding: quoted-printable\n\nno escape=\n", "no escape", true, false },
		{ "Subject: s\r\n\r\nline\r\n", "line\n", false, false },
		{ "Content-Transfer-Encoding: base64\n\nbGluZQ0K\n", "line\n", true, true },
		{ "Content-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n", "caf\xc3\xa9\n", false, false },
		{ "Content-Type: text/plain; format=flowed\n\nab \ncd\n", "ab cd\n", false, false },
		{ "Content-Type: multipart/mixed; boundary=b\n\n--b\n\npart\n--b--\n", "part", false, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = strlen(cases[i].raw);
		char *raw = xstrdup(cases[i].raw);
		struct message m;
		struct err e;

		ck_assert_int_eq(message_parse_in_place(&m, raw, len, &e), 0);
		ck_assert_msg(!strcmp(m.text, cases[i].text), "case %zu: text [%s]", i, m.text);
		ck_assert_msg(m.text_in_raw == cases[i].in_raw, "case %zu: text_in_raw %d", i,
			      m.text_in_raw);
		ck_assert_msg(m.raw_changed == cases[i].changed, "case %zu: raw_changed %d", i,
			      m.raw_changed);
		/* unchanged up to the text's end (a NUL may follow it) */
		if (m.text_in_raw && !m.raw_changed)
			ck_assert_msg(!memcmp(raw, cases[i].raw, (size_t)(m.text - raw) + m.text_len),
				      "case %zu: raw changed", i);
		if (!m.text_in_raw && !m.raw_changed)
			ck_assert_msg(!memcmp(raw, cases[i].raw, len), "case %zu: raw changed", i);
		message_release(&m);
		free(raw);
	}
}
END_TEST

/* Every patch attachment is kept, named, in MIME order; a diff in the
 * mail's own text keeps them out. */
START_TEST(test_attachments)
{
	static const char two[] =
		"Content-Type: multipart/mixed; boundary=b\n\n--b\n\nsee attached\n"
		"--b\nContent-Type: text/x-patch; name=\"0001-a.patch\"\n\none\n"
		"--b\nContent-Type: text/plain\nContent-Disposition: attachment; filename=\"0002-b.diff\"\n\ntwo\n"
		"--b\nContent-Type: application/octet-stream; name=\"log.txt\"\n\nlog\n"
		"--b\nContent-Type: application/octet-stream; name=\"=?utf-8?q?0003-J=C3=B6rg.patch?=\"\n"
		"Content-Transfer-Encoding: base64\n\ndGhyZWUK\n--b--\n";
	static const char inline_diff[] =
		"Content-Type: multipart/mixed; boundary=b\n\n--b\n\ndiff --git a/f b/f\n"
		"--b\nContent-Type: text/x-patch; name=\"0001-a.patch\"\n\none\n"
		"--b\nContent-Type: text/x-patch; name=\"0002-b.patch\"\n\ntwo\n--b--\n";
	struct message m;
	struct err e;

	ck_assert_int_eq(message_parse(&m, two, strlen(two), &e), 0);
	ck_assert(m.text_is_attachment);
	ck_assert_str_eq(m.text, "one");
	ck_assert_str_eq(m.text_name, "0001-a.patch");
	ck_assert_uint_eq(m.nmore, 2);
	ck_assert_str_eq(m.more[0].name, "0002-b.diff");
	ck_assert_str_eq(m.more[0].text, "two");
	ck_assert_uint_eq(m.more[0].len, 3);
	ck_assert_str_eq(m.more[1].name, "0003-J\xc3\xb6rg.patch");
	ck_assert_str_eq(m.more[1].text, "three\n");
	message_release(&m);
	ck_assert_ptr_null(m.more);

	ck_assert_int_eq(message_parse(&m, inline_diff, strlen(inline_diff), &e), 0);
	ck_assert(!m.text_is_attachment);
	ck_assert_str_eq(m.text_name, "");
	ck_assert_uint_eq(m.nmore, 0);
	message_release(&m);
}
END_TEST

START_TEST(test_header_order)
{
	static const char raw[] = "Received: one\nReceived: two\n  folded\nX-Empty:\nSubject: s\n\nx";
	static const char *want[][2] = {
		{ "Received", "one" }, { "Received", "two  folded" }, { "X-Empty", "" }, { "Subject", "s" },
	};
	struct message m;
	struct err e;

	ck_assert_int_eq(message_parse(&m, raw, strlen(raw), &e), 0);
	ck_assert_uint_eq(m.nheaders, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_str_eq(m.headers[i].name, want[i][0]);
		ck_assert_str_eq(message_header_value(&m, &m.headers[i]), want[i][1]);
	}
	ck_assert_ptr_null(message_header(&m, "Cc"));
	message_release(&m);
}
END_TEST

/* What unfolding makes of the odd bytes of a header value: a NUL goes, a
 * stray CR is a space, the CR of a folding CR LF goes with the LF; an
 * encoded word whose "=?" a NUL split is still one, and a value with
 * nothing to decode is its raw string. */
START_TEST(test_header_odd_bytes)
{
	static const char raw[] = "Subject: a\0b\r c\r\n\td\r\n"
				  "X-Word: =\0?utf-8?q?J=C3=B6rg?=\n"
				  "X-Plain: plain = ? =\n ?\n"
				  "From: J\xc3\xb6rg <j@example.org>\n\nbody\n";
	struct message m;
	struct err e;
	const struct header *h;

	ck_assert_int_eq(message_parse(&m, raw, sizeof(raw) - 1, &e), 0);
	ck_assert_uint_eq(m.nheaders, 4);
	h = m.headers;
	ck_assert_str_eq(message_header_raw_of(&m, &h[0]), "ab  c\td");
	ck_assert_ptr_eq(message_header_value(&m, &h[0]), h[0].raw);
	ck_assert_str_eq(message_header_raw_of(&m, &h[1]), "=?utf-8?q?J=C3=B6rg?=");
	ck_assert_str_eq(message_header_value(&m, &h[1]), "J\xc3\xb6rg");
	ck_assert_str_eq(message_header_raw_of(&m, &h[2]), "plain = ? = ?");
	ck_assert_ptr_eq(message_header_value(&m, &h[2]), h[2].raw);
	ck_assert_str_eq(message_header_value(&m, &h[3]), "J\xc3\xb6rg <j@example.org>");
	ck_assert_uint_eq(m.warnings & MSG_WARN_LONG_HEADER, 0);
	message_release(&m);
}
END_TEST

/* Fields end where a line break is followed by no blank, wherever the
 * break falls, CR LF or LF, and the blank line ends the block. */
START_TEST(test_header_field_ends)
{
	static const char dots[] = "................................";

	for (int k = 0; k < 32; k++) {
		char raw[512];
		struct message m;
		struct err e;

		snprintf(raw, sizeof(raw), "Subject: %.*s\r\n\tmore\r\n x\r\nX-A:%.*s\n"
			 "X-B : b\n\r\nbody\n", k, dots, k % 7, dots);
		ck_assert_int_eq(message_parse(&m, raw, strlen(raw), &e), 0);
		ck_assert_uint_eq(m.nheaders, 3);
		ck_assert_str_eq(m.headers[0].name, "Subject");
		ck_assert_uint_eq(strlen(message_header_raw_of(&m, &m.headers[0])), k ? (size_t)k + 7 : 6);
		ck_assert_uint_eq(strlen(message_header(&m, "x-a")), (size_t)(k % 7));
		ck_assert_str_eq(message_header(&m, "X-B"), "b");
		ck_assert_str_eq(m.text, "body\n");
		message_release(&m);
	}
}
END_TEST

/* A name is printable ASCII without spaces; blanks before its colon are
 * allowed.  A line with another name is no field: the body starts there. */
START_TEST(test_header_names)
{
	static const char *const bad[] = { "Bad Name: x", "B\x7f: x", "B\xc3\xa9: x", ": x" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char raw[128], want[64];
		struct message m;
		struct err e;

		snprintf(raw, sizeof(raw), "X-Trail \t: v\n%s\nX-No: y\n\nbody\n", bad[i]);
		snprintf(want, sizeof(want), "%s\nX-No: y\n\nbody\n", bad[i]);
		ck_assert_int_eq(message_parse(&m, raw, strlen(raw), &e), 0);
		ck_assert_uint_eq(m.nheaders, 1);
		ck_assert_str_eq(m.headers[0].name, "X-Trail");
		ck_assert_str_eq(message_header(&m, "X-Trail"), "v");
		ck_assert_msg(!strcmp(m.text, want), "%zu: text [%s]", i, m.text);
		message_release(&m);
	}
}
END_TEST

/* The usual Content-Type shapes, and their near misses, read as
 * libetpan reads them. */
START_TEST(test_content_type_shapes)
{
	static const struct {
		const char *type, *charset, *text;
	} cases[] = {
		{ "text/plain; charset=\"UTF-8\"", "utf-8", "a \nb\n" },
		{ "TEXT/Plain;charset=ISO-8859-1", "iso-8859-1", "a \nb\n" },
		{ "text/plain", "us-ascii", "a \nb\n" },
		{ " text/plain ;\tcharset=x-unknown_1.0 ", "x-unknown_1.0", "a \nb\n" },
		{ "text/plain; charset=\"utf-8\" (by hand)", "utf-8", "a \nb\n" },
		{ "text/plain; charset=utf-8; format=flowed", "utf-8", "a b\n" },
		{ "text/plain; charset=utf-8;", "utf-8", "a \nb\n" },
		{ "text/plain; charset=\"utf-8", "us-ascii", "a \nb\n" },
		{ "text/plainx; charset=utf-8", "us-ascii", "" },
		{ "text/plain; charset=", "us-ascii", "a \nb\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char raw[256];
		struct message m;
		struct err e;

		snprintf(raw, sizeof(raw), "Content-Type: %s\n\na \nb\n", cases[i].type);
		ck_assert_int_eq(message_parse(&m, raw, strlen(raw), &e), 0);
		ck_assert_msg(!strcmp(m.text_charset, cases[i].charset), "%s: charset %s", cases[i].type,
			      m.text_charset);
		ck_assert_msg(!strcmp(m.text, cases[i].text), "%s: text [%s]", cases[i].type, m.text);
		message_release(&m);
	}
}
END_TEST

/*
 * A header value is decoded when asked for, not before: the fields no one
 * reads cost no copy.  message_parse()'s caller may reuse its buffer at
 * once, so a value asked for later still reads the mail's bytes; a
 * Content- field is read by the parse itself.
 */
START_TEST(test_header_decoded_when_asked)
{
	static const char mail[] = "Received: from a by b\n"
				   "Subject: =?utf-8?q?J=C3=B6rg?=\n"
				   "Content-Type: text/plain; charset=utf-8\n\nbody\n";
	char raw[sizeof(mail)];
	struct message m;
	struct err e;

	memcpy(raw, mail, sizeof(mail));
	ck_assert_int_eq(message_parse(&m, raw, sizeof(raw) - 1, &e), 0);
	memset(raw, 'x', sizeof(raw));
	ck_assert_uint_eq(m.nheaders, 3);
	ck_assert_ptr_null(m.headers[0].raw);
	ck_assert_ptr_null(m.headers[1].value);
	ck_assert_ptr_nonnull(m.headers[2].raw);
	ck_assert_str_eq(message_header(&m, "subject"), "J\xc3\xb6rg");
	ck_assert_str_eq(m.headers[1].value, "J\xc3\xb6rg");
	ck_assert_ptr_null(m.headers[0].raw);
	ck_assert_str_eq(message_header_raw_of(&m, &m.headers[0]), "from a by b");
	ck_assert_str_eq(m.headers[0].raw, "from a by b");
	message_release(&m);
}
END_TEST

/* message_bytes() counts what parsing kept: a header value 100 bytes longer
 * is 200 more (its decoded and its raw copy), a text 1000 bytes longer is
 * 1000 more, and the count covers at least the text and the headers. */
START_TEST(test_bytes)
{
	char raw[2048];
	struct message a, b, c;
	struct err e;
	size_t na, nb, nc;

	snprintf(raw, sizeof(raw), "Subject: s\nFrom: a@b\n\nbody\n");
	ck_assert_int_eq(message_parse(&a, raw, strlen(raw), &e), 0);
	snprintf(raw, sizeof(raw), "Subject: s%0100d\nFrom: a@b\n\nbody\n", 0);
	ck_assert_int_eq(message_parse(&b, raw, strlen(raw), &e), 0);
	snprintf(raw, sizeof(raw), "Subject: s\nFrom: a@b\n\nbody\n%01000d", 0);
	ck_assert_int_eq(message_parse(&c, raw, strlen(raw), &e), 0);
	na = message_bytes(&a);
	nb = message_bytes(&b);
	nc = message_bytes(&c);
	ck_assert_uint_ge(na, a.text_len + strlen("Subject") + strlen("s") + strlen("From") +
			  strlen("a@b"));
	ck_assert_uint_eq(nb - na, 200);
	ck_assert_uint_eq(c.text_len - a.text_len, 1000);
	ck_assert_uint_eq(nc - na, 1000);
	message_release(&a);
	message_release(&b);
	message_release(&c);
}
END_TEST

/* ---------------------------------------------------------------------
 * Hostile input: generated.
 */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void parse_ok(const char *raw, size_t len, struct message *m, double max_seconds)
{
	struct err e;
	double t0 = now();

	err_init(&e);
	ck_assert_msg(message_parse(m, raw, len, &e) == 0, "parse: %s", e.msg);
	ck_assert_msg(now() - t0 < max_seconds, "took %.3f s", now() - t0);
}

/* depth multipart/mixed levels, text/plain "deep" at the bottom. */
static char *nested(int depth, bool close)
{
	struct buf b;

	buf_init(&b, 0);
	buf_addstr(&b, "Subject: nested\n");
	for (int i = 0; i < depth; i++)
		buf_printf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i);
	buf_addstr(&b, "Content-Type: text/plain\n\ndeep\n");
	for (int i = depth - 1; close && i >= 0; i--)
		buf_printf(&b, "--b%d--\n", i);
	return buf_detach(&b, NULL);
}

START_TEST(test_nested_1000)
{
	char *raw = nested(1000, true);
	struct message m;

	parse_ok(raw, strlen(raw), &m, 1.0);
	ck_assert_uint_eq(m.warnings, MSG_WARN_TOO_DEEP | MSG_WARN_NO_TEXT);
	ck_assert_str_eq(m.text, "");
	message_release(&m);
	free(raw);
}
END_TEST

START_TEST(test_nested_within_limit)
{
	char *raw = nested(MESSAGE_MAX_MIME_DEPTH, false);
	struct message m;

	parse_ok(raw, strlen(raw), &m, 1.0);
	ck_assert_str_eq(m.text, "deep\n");
	ck_assert_uint_eq(m.warnings, MSG_WARN_TRUNCATED_MIME);
	message_release(&m);
	free(raw);
}
END_TEST

/* One 1 MB line of filler in a header: cut, flagged, fast. */
START_TEST(test_long_header_line)
{
	static const char *fill[] = { "a", "=?a?q?", "=?utf-8?q?=C3=B6?= ", "\xf6", " " };
	const size_t big = 1024 * 1024;
	struct buf b;
	struct message m;
	const char *v;

	buf_init(&b, 0);
	buf_addstr(&b, "Subject: ");
	while (b.len < big)
		buf_addstr(&b, fill[_i]);
	buf_addstr(&b, "\nX-After: yes\n\n" SOB);
	parse_ok(b.data, b.len, &m, 1.0);
	v = message_header(&m, "Subject");
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_le(strlen(v), MESSAGE_MAX_HEADER_LEN);
	ck_assert_uint_le(strlen(message_header_raw(&m, "Subject")), MESSAGE_MAX_HEADER_LEN);
	ck_assert_str_eq(message_header(&m, "X-After"), "yes");
	ck_assert_str_eq(m.text, SOB);
	/* Only white space: nothing was cut. */
	ck_assert_uint_eq(m.warnings, _i == 4 ? 0 : MSG_WARN_LONG_HEADER);
	message_release(&m);
	buf_release(&b);
}
END_TEST

/* 1 MB of continuation lines. */
START_TEST(test_many_continuations)
{
	struct buf b;
	struct message m;

	buf_init(&b, 0);
	buf_addstr(&b, "To: x");
	while (b.len < 1024 * 1024)
		buf_addstr(&b, ",\n y");
	buf_addstr(&b, "\n\nbody\n");
	parse_ok(b.data, b.len, &m, 1.0);
	ck_assert_uint_eq(m.nheaders, 1);
	ck_assert_uint_eq(strlen(message_header(&m, "To")), MESSAGE_MAX_HEADER_LEN);
	ck_assert_str_eq(m.text, "body\n");
	message_release(&m);
	buf_release(&b);
}
END_TEST

START_TEST(test_too_many_headers)
{
	struct buf b;
	struct message m;

	buf_init(&b, 0);
	for (int i = 0; i < MESSAGE_MAX_HEADERS + 10; i++)
		buf_printf(&b, "X-H%d: %d\n", i, i);
	buf_addstr(&b, "\nbody\n");
	parse_ok(b.data, b.len, &m, 1.0);
	ck_assert_uint_eq(m.nheaders, MESSAGE_MAX_HEADERS);
	ck_assert_str_eq(m.text, "body\n");
	message_release(&m);
	buf_release(&b);
}
END_TEST

START_TEST(test_many_parts)
{
	struct buf b;
	struct message m;

	buf_init(&b, 0);
	buf_addstr(&b, "Content-Type: multipart/mixed; boundary=p\n\n");
	for (int i = 0; i < 20000; i++)
		buf_addstr(&b, "--p\nContent-Type: image/png\n\nx\n");
	buf_addstr(&b, "--p\n\n" SOB "--p--\n");
	parse_ok(b.data, b.len, &m, 1.0);
	/* Parts past MESSAGE_MAX_PARTS are not visited. */
	ck_assert_uint_eq(m.warnings, MSG_WARN_NO_TEXT);
	message_release(&m);
	buf_release(&b);
}
END_TEST

/* NUL bytes everywhere: in names, values, boundaries, base64. */
START_TEST(test_nul_everywhere)
{
	static const char raw[] = "Sub\0ject: a\nSubject: b\0c\nContent-Type: multipart/mixed; boundary=\"xy\"\n\n"
				  "--x\0y\n\nnot a delimiter\n--xy\nContent-Transfer-Encoding: base64\n\nYW\0Jj\n--xy--\n";
	struct message m;

	parse_ok(raw, sizeof(raw) - 1, &m, 1.0);
	/* "Sub\0ject" is no header name: the body starts there. */
	ck_assert_uint_eq(m.nheaders, 0);
	ck_assert_uint_eq(m.text_len, strlen(m.text));
	message_release(&m);

	parse_ok(raw + 12, sizeof(raw) - 13, &m, 1.0);
	ck_assert_str_eq(message_header(&m, "Subject"), "bc");
	ck_assert_str_eq(m.text, "abc");
	message_release(&m);
}
END_TEST

struct parse_job {
	const char *raw;
	size_t len;
	struct message m;
	int r;
};

static void *parse_thread(void *arg)
{
	struct parse_job *j = arg;
	struct err e;

	j->r = message_parse(&j->m, j->raw, j->len, &e);
	return NULL;
}

/* 60,000 nested comments in MIME fields, parsed on a 256 KB stack: libetpan
 * would recurse once per "(". */
START_TEST(test_deep_comments)
{
	struct parse_job j;
	pthread_attr_t attr;
	pthread_t t;
	struct buf b;

	buf_init(&b, 0);
	buf_addstr(&b, "Content-Type: text/plain; charset=iso-8859-1 ");
	for (int i = 0; i < 60000; i++)
		buf_addch(&b, '(');
	buf_addstr(&b, "\nContent-Disposition: attachment; filename=\"a.txt\" ");
	for (int i = 0; i < 60000; i++)
		buf_addch(&b, '(');
	buf_addstr(&b, "\n\nRen\xe9\n");
	j.raw = b.data;
	j.len = b.len;
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
	ck_assert_int_eq(pthread_create(&t, &attr, parse_thread, &j), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(j.r, 0);
	ck_assert_str_eq(j.m.text, "Ren\xc3\xa9\n");
	ck_assert_str_eq(j.m.text_charset, "iso-8859-1");
	message_release(&j.m);
	pthread_attr_destroy(&attr);
	buf_release(&b);
}
END_TEST

/* A 100 MB patch mail parses, quickly. */
START_TEST(test_100mb)
{
	const size_t size = 100 * 1024 * 1024;
	struct buf b;
	struct message m;

	buf_init(&b, 0);
	buf_addstr(&b, "Subject: [PATCH] big\n\n" SOB "---\ndiff --git a/f b/f\n");
	while (b.len < size)
		buf_addstr(&b, "+ a line of the diff, with some length to it, to fill the megabytes\n");
	parse_ok(b.data, b.len, &m, 5.0);
	ck_assert_uint_eq(m.text_len, b.len - strlen("Subject: [PATCH] big\n\n"));
	ck_assert_uint_eq(m.warnings, 0);
	message_release(&m);
	buf_release(&b);
}
END_TEST

START_TEST(test_refused)
{
	static const char small[] = "Subject: x\n\ny\n";
	struct message m;
	struct err e;

	err_init(&e);
	/* The size is checked before a byte is read. */
	ck_assert_int_eq(message_parse(&m, small, MESSAGE_MAX_SIZE + 1, &e), -1);
	ck_assert_str_eq(e.msg, "message is 134217729 bytes, over the 128 MiB limit");
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_ptr_null(m.text);
	ck_assert_uint_eq(m.nheaders, 0);
	message_release(&m);

	err_init(&e);
	ck_assert_int_eq(message_parse(&m, small, 0, &e), -1);
	ck_assert_str_eq(e.msg, "message is empty");
	message_release(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("message");
	TCase *tc = tcase_create("decode");
	TCase *tm = tcase_create("mails");
	TCase *th = tcase_create("hostile");

	tcase_add_loop_test(tc, test_decode_2047, 0, ARRAY_SIZE(words));
	tcase_add_loop_test(tc, test_to_utf8, 0, ARRAY_SIZE(charsets));
	suite_add_tcase(s, tc);

	tcase_add_loop_test(tm, test_mail, 0, ARRAY_SIZE(mails));
	tcase_add_test(tm, test_in_place);
	tcase_add_test(tm, test_header_order);
	tcase_add_test(tm, test_header_odd_bytes);
	tcase_add_test(tm, test_header_field_ends);
	tcase_add_test(tm, test_content_type_shapes);
	tcase_add_test(tm, test_header_names);
	tcase_add_test(tm, test_header_decoded_when_asked);
	tcase_add_test(tm, test_bytes);
	tcase_add_test(tm, test_attachments);
	suite_add_tcase(s, tm);

	tcase_set_timeout(th, 60);
	tcase_add_test(th, test_nested_1000);
	tcase_add_test(th, test_nested_within_limit);
	tcase_add_loop_test(th, test_long_header_line, 0, 5);
	tcase_add_test(th, test_many_continuations);
	tcase_add_test(th, test_too_many_headers);
	tcase_add_test(th, test_many_parts);
	tcase_add_test(th, test_nul_everywhere);
	tcase_add_test(th, test_deep_comments);
	tcase_add_test(th, test_100mb);
	tcase_add_test(th, test_refused);
	suite_add_tcase(s, th);
	return th_run_suite(s);
}
