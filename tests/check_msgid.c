/*
 * check_msgid.c - msgid.h's contract: trimming, the length limits, the
 * case rule, the header-safety check, the raw header scan and the URL
 * encoding, each against what the header promises.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/msgid.h"
#include "testhelp.h"

/* "<" + n-byte ID ending in "@example.org" + ">", or without the <>. */
static char *long_id(size_t n, bool brackets)
{
	static const char dom[] = "@example.org";
	char *s = malloc(n + 3), *p = s;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_gt(n, sizeof(dom));
	if (brackets)
		*p++ = '<';
	memset(p, 'x', n - (sizeof(dom) - 1));
	memcpy(p + n - (sizeof(dom) - 1), dom, sizeof(dom) - 1);
	p += n;
	if (brackets)
		*p++ = '>';
	*p = '\0';
	return s;
}

/* --- msgid_key ---------------------------------------------------------- */

static const struct {
	const char *in;
	const char *key;	/* NULL: no key */
} key_cases[] = {
	{ " <20250101.1234@Example.ORG> ", "20250101.1234@example.org" },
	{ "<a@b>", "a@b" },
	{ "a@b", "a@b" },				/* no brackets */
	{ "\t\r\n <a@b> \r\n", "a@b" },			/* folding white space */
	{ "\v\f<a@b>\f", "a@b" },			/* C's isspace() set */
	{ "<Jane.Doe@EXAMPLE.org>", "Jane.Doe@example.org" }, /* local part kept */
	{ "<A@B@C.ORG>", "A@B@c.org" },			/* the last '@' starts the domain */
	{ "<NoAt.Here>", "NoAt.Here" },			/* no domain: nothing folded */
	{ "<a@b", "a@b" },				/* '>' missing */
	{ "a@b>", "a@b" },				/* '<' missing */
	{ "<<a@b>>", "<a@b>" },				/* one pair only */
	{ "< a@b >", " a@b " },				/* inside is not changed */
	{ "<a@b> (comment)", "a@b> (comment)" },	/* no comment syntax */
	{ "<a@b> <c@d>", "a@b> <c@d" },			/* not split: ref_key refuses it */
	{ "<\xc3\x84@\xc3\x84XAMPLE.ORG>", "\xc3\x84@\xc3\x84xample.org" }, /* 8-bit kept */
	{ "<a\x01" "b@C>", "a\x01" "b@c" },		/* control bytes kept */
	{ "", NULL },
	{ "   \t\r\n", NULL },
	{ "<>", NULL },
	{ " <> ", NULL },
	{ "<", NULL },
	{ ">", NULL },
};

START_TEST(test_key)
{
	char *k = msgid_key(key_cases[_i].in);

	if (key_cases[_i].key) {
		ck_assert_msg(k != NULL, "no key for '%s'", key_cases[_i].in);
		ck_assert_str_eq(k, key_cases[_i].key);
	} else {
		ck_assert_msg(k == NULL, "'%s' gave key '%s'", key_cases[_i].in, k);
	}
	free(k);
}
END_TEST

START_TEST(test_key_null)
{
	ck_assert_ptr_null(msgid_key(NULL));
}
END_TEST

/* MSGID_MAX bytes of ID is an ID, one more is none; the <> and white space
 * around do not count. */
START_TEST(test_key_length)
{
	char *id = long_id(MSGID_MAX, true), *big = long_id(MSGID_MAX + 1, false);
	char *padded, *k;

	k = msgid_key(id);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(strlen(k), MSGID_MAX);
	ck_assert_int_eq(k[0], 'x');
	free(k);
	padded = malloc(strlen(id) + 5);
	sprintf(padded, "  %s\r\n", id);
	k = msgid_key(padded);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(strlen(k), MSGID_MAX);
	free(k);
	ck_assert_ptr_null(msgid_key(big));
	big[0] = '<';	/* "<" + MSGID_MAX bytes, no '>': still MSGID_MAX */
	k = msgid_key(big);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(strlen(k), MSGID_MAX);
	free(k);
	free(padded);
	free(id);
	free(big);
}
END_TEST

/* Keys compare with strcmp() where the IDs are the same under the case rule. */
START_TEST(test_key_compares)
{
	char *a = msgid_key("<x.y@Mail.Gmail.COM>"), *b = msgid_key("x.y@mail.gmail.com");
	char *c = msgid_key("<X.y@mail.gmail.com>");

	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	ck_assert(msgid_same(a, "x.y@MAIL.gmail.com"));
	free(a);
	free(b);
	free(c);
}
END_TEST

/* --- msgid_ref_key ------------------------------------------------------ */

static const struct {
	const char *in;
	const char *key;	/* NULL: no key */
} ref_cases[] = {
	{ "<a@B.org>", "a@b.org" },
	{ "  a@b  ", "a@b" },
	{ "<a@b> <c@d>", NULL },	/* two IDs are no single one */
	{ "a@b c@d", NULL },
	{ "<a b@c>", NULL },
	{ "<a\tb@c>", NULL },
	{ "<a\rb@c>", NULL },
	{ "<a\nb@c>", NULL },
	{ "<a\vb@c>", NULL },		/* white space as trimming reads it */
	{ "<a\fb@c>", NULL },
	{ "<a@b> (comment)", NULL },
	{ "garbage <a@b>", NULL },
	{ " < > ", NULL },
	{ "", NULL },
	{ "<>", NULL },
};

START_TEST(test_ref_key)
{
	char *k = msgid_ref_key(ref_cases[_i].in);

	if (ref_cases[_i].key) {
		ck_assert_msg(k != NULL, "no key for '%s'", ref_cases[_i].in);
		ck_assert_str_eq(k, ref_cases[_i].key);
	} else {
		ck_assert_msg(k == NULL, "'%s' gave key '%s'", ref_cases[_i].in, k);
	}
	free(k);
}
END_TEST

START_TEST(test_ref_key_null_and_length)
{
	char *id = long_id(MSGID_MAX, true), *big = long_id(MSGID_MAX + 1, true), *k;

	ck_assert_ptr_null(msgid_ref_key(NULL));
	k = msgid_ref_key(id);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(strlen(k), MSGID_MAX);
	free(k);
	ck_assert_ptr_null(msgid_ref_key(big));
	free(id);
	free(big);
}
END_TEST

/* --- msgid_strip -------------------------------------------------------- */

static const struct {
	const char *in, *out;
} strip_cases[] = {
	{ "  <a@b>  ", "a@b" },
	{ "<A@B.ORG>", "A@B.ORG" },			/* no case folding */
	{ "x <a@b> <c@d>", "a@b" },			/* the first <...> */
	{ "(comment) <a@b> (more)", "a@b" },
	{ "garbage<a@b>garbage", "a@b" },
	{ "<a@b", "a@b" },				/* to the end without '>' */
	{ "<  a@b  ", "a@b" },
	{ "< a@b >", "a@b" },				/* white space trimmed */
	{ "a@b", "a@b" },				/* no <>: the whole value */
	{ " \t a@b \r\n", "a@b" },
	{ "a@b c@d", "a@b c@d" },
	{ "<>", "" },
	{ "", "" },
	{ "   ", "" },
	{ "<\xc3\xa9@x>", "\xc3\xa9@x" },
};

START_TEST(test_strip)
{
	char *s = msgid_strip(strip_cases[_i].in);

	ck_assert_str_eq(s, strip_cases[_i].out);
	free(s);
}
END_TEST

/* NULL gives ""; no length cap. */
START_TEST(test_strip_null_and_long)
{
	char *id = long_id(MSGID_MAX * 4, true), *s;

	s = msgid_strip(NULL);
	ck_assert_str_eq(s, "");
	free(s);
	s = msgid_strip(id);
	ck_assert_uint_eq(strlen(s), MSGID_MAX * 4);
	ck_assert_int_eq(s[0], 'x');
	free(s);
	free(id);
}
END_TEST

/* --- msgid_same --------------------------------------------------------- */

static const struct {
	const char *a, *b;
	bool same;
} same_cases[] = {
	{ "a@example.org", "a@example.org", true },
	{ "a@example.org", "a@EXAMPLE.ORG", true },
	{ "A@example.org", "a@example.org", false },	/* the local part exactly */
	{ "x@Y@z.org", "x@y@Z.org", false },		/* "x@Y" is the local part */
	{ "x@y@Z.org", "x@y@z.ORG", true },
	{ "a@b", "a@bc", false },
	{ "ab@c", "a@bc", false },
	{ "a@b", "ab@", false },
	{ "noat", "noat", true },
	{ "noat", "NOAT", false },
	{ "noat", "noat@x", false },
	{ "", "", true },
	{ "", "a@b", false },
	{ "\xc3\x84@x", "\xc3\xa4@x", false },
};

START_TEST(test_same)
{
	ck_assert_msg(msgid_same(same_cases[_i].a, same_cases[_i].b) == same_cases[_i].same,
		      "'%s' vs '%s'", same_cases[_i].a, same_cases[_i].b);
	ck_assert_msg(msgid_same(same_cases[_i].b, same_cases[_i].a) == same_cases[_i].same,
		      "'%s' vs '%s'", same_cases[_i].b, same_cases[_i].a);
}
END_TEST

START_TEST(test_same_null)
{
	ck_assert(!msgid_same(NULL, "a@b"));
	ck_assert(!msgid_same("a@b", NULL));
	ck_assert(!msgid_same(NULL, NULL));
}
END_TEST

/* --- msgid_header_safe -------------------------------------------------- */

static const struct {
	const char *id;
	bool safe;
} safe_cases[] = {
	{ "a@b", true },
	{ "20250101.1234-1-jane@example.org", true },
	{ "CAHk-=wh+x/y_z!#$%&'*{|}~^`@mail.gmail.com", true },
	{ "a@[192.0.2.1]", true },
	{ "a=b@c", true },				/* '=' alone is no encoded word */
	{ "a?b@c", true },
	{ "", false },
	{ "@b", false },				/* text on both sides of '@' */
	{ "a@", false },
	{ "ab", false },				/* one '@' */
	{ "a@b@c", false },
	{ "a b@c", false },
	{ "a\tb@c", false },
	{ "a@b\r\nBcc: x@y", false },
	{ "a@b\n", false },
	{ "a\"b@c", false },
	{ "a<b@c", false },
	{ "a@b>", false },
	{ "<a@b>", false },				/* given without the <> */
	{ "a(b)@c", false },
	{ "a\\b@c", false },
	{ "=?utf-8?q?x?=@c", false },
	{ "a@=?utf-8?b?eA==?=", false },
	{ "a\x7f@c", false },
	{ "a\x01@c", false },
	{ "\xc3\xa9@c", false },			/* printable ASCII only */
	{ "a@\xff", false },
};

START_TEST(test_header_safe)
{
	ck_assert_msg(msgid_header_safe(safe_cases[_i].id) == safe_cases[_i].safe, "'%s'",
		      safe_cases[_i].id);
}
END_TEST

START_TEST(test_header_safe_limits)
{
	char *id = long_id(MSGID_HEADER_MAX, false), *big = long_id(MSGID_HEADER_MAX + 1, false);

	ck_assert(!msgid_header_safe(NULL));
	ck_assert(msgid_header_safe(id));
	ck_assert(!msgid_header_safe(big));
	free(id);
	free(big);
}
END_TEST

/* --- msgid_from_raw ----------------------------------------------------- */

/* msgid_from_raw() on the NUL-terminated raw, compared with want (NULL:
 * none expected). */
static void raw_is(const char *raw, const char *want)
{
	char *id = msgid_from_raw(raw, strlen(raw));

	if (want) {
		ck_assert_msg(id != NULL, "no ID in '%s'", raw);
		ck_assert_str_eq(id, want);
	} else {
		ck_assert_msg(id == NULL, "'%s' in '%s'", id, raw);
	}
	free(id);
}

static const struct {
	const char *raw, *id;
} raw_cases[] = {
	{ "From: a@b\nMessage-ID: <x@Y.org>\nSubject: s\n\nbody\n", "x@Y.org" }, /* no folding */
	{ "Message-Id: <x@y>\n\n", "x@y" },			/* name in any case */
	{ "MESSAGE-ID:<x@y>\n", "x@y" },
	{ "Subject: s\r\nMessage-ID: <x@y>\r\n\r\n", "x@y" },	/* CRLF */
	{ "Message-ID:   x@y   \n", "x@y" },			/* no brackets */
	{ "Message-ID: <x@y>\nMessage-ID: <z@w>\n", "x@y" },	/* the first */
	{ "X-Message-ID: <z@w>\nMessage-ID: <x@y>\n", "x@y" },	/* the name exactly */
	{ "Message-IDs: <z@w>\nMessage-ID: <x@y>\n", "x@y" },
	{ "Subject: s\n Message-ID: <z@w>\nMessage-ID: <x@y>\n", "x@y" }, /* a continuation */
	{ "Message-ID: <x@y>", "x@y" },				/* no line end */
	{ "Message-ID: <a b@c>\n", "a b@c" },			/* inside kept */
	{ "Message-ID: <\xc3\xa9@x>\n", "\xc3\xa9@x" },
	{ "Subject: s\n\nMessage-ID: <x@y>\n", NULL },		/* the body is no header */
	{ "Subject: s\r\n\r\nMessage-ID: <x@y>\r\n", NULL },
	{ "\nMessage-ID: <x@y>\n", NULL },
	{ "Message-ID:\n <x@y>\n", NULL },			/* folded: not followed */
	{ "Message-ID: <>\n", NULL },
	{ "Message-ID:   \n", NULL },
	{ "Message-ID <x@y>\n", NULL },
	{ "Subject: no id\n\n", NULL },
	{ "", NULL },
};

START_TEST(test_from_raw)
{
	raw_is(raw_cases[_i].raw, raw_cases[_i].id);
}
END_TEST

/* len bounds the read: nothing past it is looked at. */
START_TEST(test_from_raw_len)
{
	static const char text[] = "Message-ID: <x@y>";
	char *raw = malloc(sizeof(text) - 1), *id;

	memcpy(raw, text, sizeof(text) - 1);	/* no NUL after it */
	id = msgid_from_raw(raw, sizeof(text) - 1);
	ck_assert_str_eq(id, "x@y");
	free(id);
	id = msgid_from_raw(raw, strlen("Message-ID: <x@"));
	ck_assert_str_eq(id, "x@");
	free(id);
	ck_assert_ptr_null(msgid_from_raw(raw, 0));
	free(raw);
}
END_TEST

/* A NUL in the value: no ID; a NUL in another header is no matter. */
START_TEST(test_from_raw_nul)
{
	static const char in_value[] = "Message-ID: <x\0y@z>\n\n";
	static const char elsewhere[] = "Subject: a\0b\nMessage-ID: <x@y>\n\n";
	char *id;

	ck_assert_ptr_null(msgid_from_raw(in_value, sizeof(in_value) - 1));
	id = msgid_from_raw(elsewhere, sizeof(elsewhere) - 1);
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(id, "x@y");
	free(id);
}
END_TEST

START_TEST(test_from_raw_length)
{
	char *id = long_id(MSGID_MAX, true), *big = long_id(MSGID_MAX + 1, true);
	struct buf b;
	char *got;

	buf_init(&b, 0);
	buf_printf(&b, "Message-ID: %s\n\n", id);
	got = msgid_from_raw(b.data, b.len);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(strlen(got), MSGID_MAX);
	free(got);
	buf_reset(&b);
	buf_printf(&b, "Message-ID: %s\n\n", big);
	ck_assert_ptr_null(msgid_from_raw(b.data, b.len));
	buf_release(&b);
	free(id);
	free(big);
}
END_TEST

/* A header of filler lines of which the last ends at byte off. */
static void filler(struct buf *b, size_t off)
{
	while (b->len < off) {
		size_t line = off - b->len > 1000 ? 900 : off - b->len;

		ck_assert_uint_ge(line, 5);
		buf_addstr(b, "X-F:");
		while (--line > 4)
			buf_addch(b, 'f');
		buf_addch(b, '\n');
	}
	ck_assert_uint_eq(b->len, off);
}

/* Only the first MSGID_SCAN_MAX bytes are looked at. */
START_TEST(test_from_raw_scan_limit)
{
	struct buf b;
	char *id;

	buf_init(&b, 0);
	filler(&b, MSGID_SCAN_MAX - 100);
	buf_addstr(&b, "Message-ID: <inside@example.org>\n\n");
	id = msgid_from_raw(b.data, b.len);
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(id, "inside@example.org");
	free(id);
	buf_reset(&b);
	filler(&b, MSGID_SCAN_MAX);
	buf_addstr(&b, "Message-ID: <outside@example.org>\n\n");
	ck_assert_ptr_null(msgid_from_raw(b.data, b.len));
	buf_release(&b);
}
END_TEST

/* A Message-ID: line the limit cuts is not within it: its first bytes are
 * not the mail's ID. */
START_TEST(test_from_raw_scan_limit_cuts_line)
{
	struct buf b;
	char *id;

	buf_init(&b, 0);
	filler(&b, MSGID_SCAN_MAX - 20);
	buf_addstr(&b, "Message-ID: <cut-here@example.org>\n\n");
	id = msgid_from_raw(b.data, b.len);
	ck_assert_msg(id == NULL, "the cut line gave '%s'", id);
	buf_reset(&b);
	/* the line ends on the limit's last byte: whole, and read */
	filler(&b, MSGID_SCAN_MAX - strlen("Message-ID: <end@example.org>\n"));
	buf_addstr(&b, "Message-ID: <end@example.org>\n\n");
	id = msgid_from_raw(b.data, b.len);
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(id, "end@example.org");
	free(id);
	buf_release(&b);
}
END_TEST

/* --- msgid_url_encode --------------------------------------------------- */

static const struct {
	const char *id, *url;
} url_cases[] = {
	{ "a@b", "a@b" },
	{ "AZaz09-._~!$&'()*+,;=:@", "AZaz09-._~!$&'()*+,;=:@" },
	{ "a/b%c?d#e@f", "a%2Fb%25c%3Fd%23e@f" },
	{ "a b<c>\"d", "a%20b%3Cc%3E%22d" },
	{ "\r\n\t", "%0D%0A%09" },
	{ "\xc3\xa9\xff\x80\x7f", "%C3%A9%FF%80%7F" },
	{ "[]{}|\\^`", "%5B%5D%7B%7D%7C%5C%5E%60" },
	{ "", "" },
};

START_TEST(test_url_encode)
{
	struct buf b;

	buf_init(&b, 0);
	buf_addstr(&b, "https://lore/r/");	/* appended to what is there */
	msgid_url_encode(&b, url_cases[_i].id);
	ck_assert_str_eq(b.data + strlen("https://lore/r/"), url_cases[_i].url);
	ck_assert(!strncmp(b.data, "https://lore/r/", strlen("https://lore/r/")));
	buf_release(&b);
}
END_TEST

static Suite *msgid_suite(void)
{
	Suite *s = suite_create("msgid");
	TCase *t = tcase_create("key");

	tcase_add_loop_test(t, test_key, 0, ARRAY_SIZE(key_cases));
	tcase_add_test(t, test_key_null);
	tcase_add_test(t, test_key_length);
	tcase_add_test(t, test_key_compares);
	tcase_add_loop_test(t, test_ref_key, 0, ARRAY_SIZE(ref_cases));
	tcase_add_test(t, test_ref_key_null_and_length);
	suite_add_tcase(s, t);
	t = tcase_create("strip");
	tcase_add_loop_test(t, test_strip, 0, ARRAY_SIZE(strip_cases));
	tcase_add_test(t, test_strip_null_and_long);
	suite_add_tcase(s, t);
	t = tcase_create("same");
	tcase_add_loop_test(t, test_same, 0, ARRAY_SIZE(same_cases));
	tcase_add_test(t, test_same_null);
	suite_add_tcase(s, t);
	t = tcase_create("header_safe");
	tcase_add_loop_test(t, test_header_safe, 0, ARRAY_SIZE(safe_cases));
	tcase_add_test(t, test_header_safe_limits);
	suite_add_tcase(s, t);
	t = tcase_create("from_raw");
	tcase_add_loop_test(t, test_from_raw, 0, ARRAY_SIZE(raw_cases));
	tcase_add_test(t, test_from_raw_len);
	tcase_add_test(t, test_from_raw_nul);
	tcase_add_test(t, test_from_raw_length);
	tcase_add_test(t, test_from_raw_scan_limit);
	tcase_add_test(t, test_from_raw_scan_limit_cuts_line);
	suite_add_tcase(s, t);
	t = tcase_create("url");
	tcase_add_loop_test(t, test_url_encode, 0, ARRAY_SIZE(url_cases));
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(msgid_suite());
}
