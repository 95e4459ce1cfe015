#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "testhelp.h"

static const struct {
	const char *in;
	int rc;
	const char *name, *email;
	const char *rest;	/* what follows the address */
} parse_cases[] = {
	{ "Jane Doe <jane@example.org>", 0, "Jane Doe", "jane@example.org", "" },
	{ "\"Doe, Jane\" <jane@example.org>", 0, "Doe, Jane", "jane@example.org", "" },
	{ "\"Doe, Jane (ACME)\" <jane@acme.com>", 0, "Doe, Jane (ACME)", "jane@acme.com", "" },
	{ "\"a <b@c.org>\" <real@example.org>", 0, "a <b@c.org>", "real@example.org", "" },
	{ "\"Jane \\\"JD\\\" Doe\" <jd@example.org>", 0, "Jane \"JD\" Doe", "jd@example.org", "" },
	{ "jane@example.org (Jane Doe)", 0, "Jane Doe", "jane@example.org", "" },
	{ "<jane@example.org>", 0, "", "jane@example.org", "" },
	{ "jane@example.org", 0, "", "jane@example.org", "" },
	{ "jane+lkml@example.org", 0, "", "jane+lkml@example.org", "" },
	{ "J\xc3\xb6rg M\xc3\xbcller <joerg@example.de>", 0, "J\xc3\xb6rg M\xc3\xbcller", "joerg@example.de", "" },
	{ "  Jane   Doe   <jane@example.org>  ", 0, "Jane Doe", "jane@example.org", "  " },
	{ "Jane Doe <jane@example.org> # for 6.1", 0, "Jane Doe", "jane@example.org", " # for 6.1" },
	{ "stable@vger.kernel.org # v5.10+", 0, "", "stable@vger.kernel.org", " # v5.10+" },
	{ "Jane Doe <jane@example.org> (maintainer)", 0, "Jane Doe", "jane@example.org", " (maintainer)" },
	{ "jane@example.org, bob@example.org", 0, "", "jane@example.org", ", bob@example.org" },
	{ "Jane via Linux-leds <linux-leds@vger.kernel.org>", 0, "Jane via Linux-leds",
	  "linux-leds@vger.kernel.org", "" },
	{ "Jane Doe < jane@example.org >", 0, "Jane Doe", "jane@example.org", "" },
	{ "Jane Doe", -1, "", "", NULL },
	{ "Jane <jane>", -1, "", "", NULL },
	{ "Jane <jane@example.org", -1, "", "", NULL },
	{ "<@example.org>", -1, "", "", NULL },
	{ "<>", -1, "", "", NULL },
	{ "", -1, "", "", NULL },
};

START_TEST(test_parse)
{
	const char *in = parse_cases[_i].in, *rest = NULL;
	struct person p;
	int rc = address_parse(&p, in, strlen(in), &rest);

	ck_assert_msg(rc == parse_cases[_i].rc, "%s: rc %d", in, rc);
	ck_assert_str_eq(p.name, parse_cases[_i].name);
	ck_assert_str_eq(p.email, parse_cases[_i].email);
	if (parse_cases[_i].rest) {
		ck_assert_ptr_nonnull(rest);
		ck_assert_str_eq(rest, parse_cases[_i].rest);
	}
	person_release(&p);
}
END_TEST

/* n bytes only: what lies past n must not be read as part of the address. */
START_TEST(test_parse_bounded)
{
	const char *s = "Jane <jane@example.org>XXXX";
	struct person p;

	ck_assert_int_eq(address_parse(&p, s, 10, NULL), -1);
	person_release(&p);
	ck_assert_int_eq(address_parse(&p, "jane@example.orgXX", 16, NULL), 0);
	ck_assert_str_eq(p.email, "jane@example.org");
	person_release(&p);
}
END_TEST

static const struct {
	const char *a, *b;
	bool same;
} same_cases[] = {
	{ "jane@example.org", "jane@example.org", true },
	{ "jane@example.org", "Jane@Example.ORG", true },
	{ "jane+lkml@example.org", "jane@example.org", true },
	{ "jane+a@example.org", "JANE+b@example.org", true },
	{ "jane@example.org", "jane@example.com", false },
	{ "jane@example.org", "janet@example.org", false },
	{ "jan@example.org", "jane@example.org", false },
	{ "j.ne@posteo.net", "devnull+j.ne.posteo.net@kernel.org", false },
	{ "", "", false },
	{ "jane@example.org", "", false },
};

START_TEST(test_same)
{
	ck_assert_msg(address_same(same_cases[_i].a, same_cases[_i].b) == same_cases[_i].same,
		      "%s vs %s", same_cases[_i].a, same_cases[_i].b);
	ck_assert(address_same(same_cases[_i].b, same_cases[_i].a) == same_cases[_i].same);
}
END_TEST

static const struct {
	const char *email;
	bool valid;
} valid_cases[] = {
	{ "jane@example.org", true },
	{ "jane.doe+lkml@mail.example.co.uk", true },
	{ "\"odd name\"@example.org", true },
	{ "a@[127.0.0.1]", true },
	{ "j\xc3\xb6rg@example.de", true },
	{ "o'brien@example.ie", true },
	{ "", false },
	{ "jane", false },
	{ "jane@", false },
	{ "@example.org", false },
	{ "jane@localhost", false },
	{ "jane..doe@example.org", false },
	{ ".jane@example.org", false },
	{ "jane.@example.org", false },
	{ "jane@-example.org", false },
	{ "jane@example-.org", false },
	{ "jane@example..org", false },
	{ "jane@example.org.", false },
	{ "jane doe@example.org", false },
	{ "jane@exa mple.org", false },
	{ "a@b@example.org", false },
	{ "<jane@example.org>", false },
};

START_TEST(test_valid)
{
	ck_assert_msg(address_valid(valid_cases[_i].email) == valid_cases[_i].valid,
		      "%s", valid_cases[_i].email);
}
END_TEST

START_TEST(test_valid_lengths)
{
	char local[80], email[400];

	memset(local, 'a', 64);
	local[64] = '\0';
	snprintf(email, sizeof(email), "%s@example.org", local);
	ck_assert(address_valid(email));
	memset(local, 'a', 65);
	local[65] = '\0';
	snprintf(email, sizeof(email), "%s@example.org", local);
	ck_assert(!address_valid(email));
}
END_TEST

/*
 * Raw header values: the addresses that come out (space-separated), how
 * many elements were not well-formed, and the first one's name.  Every
 * encoded-word trick here would name victim@example.test if the value were
 * decoded before it was parsed.
 */
static const struct {
	const char *raw;
	const char *emails;	/* space-separated, in order */
	size_t bad;
	const char *name;	/* of the first; NULL: not checked */
} list_cases[] = {
	/* encoded-words: names only */
	{ "=?utf-8?q?Victim_<victim=40example.test>?= <author@example.test>",
	  "author@example.test", 0, "Victim <victim@example.test>" },
	{ "Ann <=?utf-8?q?victim=40example.test?=>", "", 1, NULL },
	{ "=?utf-8?q?victim=40example.test?=", "", 1, NULL },
	{ "=?utf-8?b?VmljdGltIDx2aWN0aW1AZXhhbXBsZS50ZXN0Pg==?= <author@example.test>",
	  "author@example.test", 0, "Victim <victim@example.test>" },
	{ "=?utf-8?q?victim=40example.test=2C?= <author@example.test>",
	  "author@example.test", 0, "victim@example.test," },
	{ "=?utf-8?q?a,victim@example.test?= <author@example.test>",
	  "author@example.test", 0, NULL },
	{ "=?utf-8?q?Victim <victim@example.test>?= <author@example.test>", "", 1, NULL },
	{ "<victim@example.test> <author@example.test>", "", 1, NULL },
	{ "author@example.test (<victim@example.test>)", "author@example.test", 0,
	  "<victim@example.test>" },
	{ "\"Victim <victim@example.test>\" <author@example.test>", "author@example.test", 0,
	  "Victim <victim@example.test>" },
	{ "=?iso-8859-1?q?J=F6rg?= M\xc3\xbcller <joerg@example.de>", "joerg@example.de", 0,
	  "J\xc3\xb6rg M\xc3\xbcller" },
	{ "\"=?utf-8?q?J=C3=B6rg?=\" <joerg@example.de>", "joerg@example.de", 0, "J\xc3\xb6rg" },
	{ "joerg@example.de (=?utf-8?q?J=C3=B6rg?=)", "joerg@example.de", 0, "J\xc3\xb6rg" },
	{ "=?utf-8?q?a=0D=0ABcc:_x=40y.org?= <a@example.org>", "a@example.org", 0,
	  "a Bcc: x@y.org" },
	/* lists, quoting, comments */
	{ "a@example.org, \"Doe, Jane\" <jane@example.org>,b@example.org",
	  "a@example.org jane@example.org b@example.org", 0, "" },
	{ "\"Jane \\\"JD\\\" Doe\" <jd@example.org>", "jd@example.org", 0, "Jane \"JD\" Doe" },
	{ "Jane (the (nested) one) Doe <jane@example.org> (work)", "jane@example.org", 0,
	  "Jane Doe" },
	{ "<jane@example.org>", "jane@example.org", 0, "" },
	{ "Jane Doe < jane@example.org >", "jane@example.org", 0, "Jane Doe" },
	{ "\"odd, name\"@example.org", "\"odd, name\"@example.org", 0, "" },
	{ "a@[192.0.2.1], b@[IPv6:2001:db8::1]", "a@[192.0.2.1] b@[IPv6:2001:db8::1]", 0, "" },
	{ "jane.doe@example.org <jane.doe@example.org>", "jane.doe@example.org", 0,
	  "jane.doe@example.org" },
	{ "Mr. J. Doe <jd@example.org>", "jd@example.org", 0, "Mr. J. Doe" },
	{ "a@example.org,, ,b@example.org", "a@example.org b@example.org", 0, "" },
	/* groups */
	{ "undisclosed-recipients:;", "", 0, NULL },
	{ "Friends: a@example.org, Bob <b@example.org>;, c@example.org",
	  "a@example.org b@example.org c@example.org", 0, "" },
	/* obsolete routes */
	{ "Jane <@relay.example.org,@other.example.org:jane@example.org>", "jane@example.org", 0,
	  "Jane" },
	{ "<@relay.example.org jane@example.org>", "", 1, NULL },
	/* not well formed: counted, never guessed */
	{ "Jane Doe", "", 1, NULL },
	{ "Jane <jane>", "", 1, NULL },
	{ "Jane <jane@example.org", "", 1, NULL },
	{ "Jane <jane@example.org> trailing", "", 1, NULL },
	{ "jane doe@example.org", "", 1, NULL },
	{ "jane..doe@example.org", "", 1, NULL },
	{ "\"unterminated <victim@example.test>", "", 1, NULL },
	{ "Jane (unterminated <victim@example.test>", "", 1, NULL },
	{ "Jane <a@example.org>, <>, b@example.org", "a@example.org b@example.org", 1, "Jane" },
	{ "", "", 0, NULL },
};

static void joined(struct buf *b, const struct address_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		buf_printf(b, "%s%s", i ? " " : "", l->v[i].email);
}

START_TEST(test_list)
{
	const char *raw = list_cases[_i].raw;
	struct address_list l;
	struct buf b;

	address_list_parse(&l, raw, strlen(raw), 50);
	buf_init(&b, 0);
	joined(&b, &l);
	ck_assert_msg(!strcmp(b.data ? b.data : "", list_cases[_i].emails), "%s: got '%s'", raw,
		      b.data ? b.data : "");
	ck_assert_msg(l.bad == list_cases[_i].bad, "%s: bad %zu", raw, l.bad);
	if (list_cases[_i].name && l.n)
		ck_assert_str_eq(l.v[0].name, list_cases[_i].name);
	buf_release(&b);
	address_list_release(&l);
}
END_TEST

START_TEST(test_list_max_and_bounds)
{
	const char *s = "a@example.org, b@example.org, c@example.org";
	struct address_list l;

	address_list_parse(&l, s, strlen(s), 2);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.dropped, 1);
	address_list_release(&l);
	/* n bytes only: "a@example.or" */
	address_list_parse(&l, s, 12, 5);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].email, "a@example.or");
	address_list_release(&l);
}
END_TEST

/* The one mailbox of a From:: anything but exactly one is none. */
START_TEST(test_mailbox)
{
	static const struct {
		const char *raw;
		int rc;
		const char *email;
	} c[] = {
		{ "Ann <ann@example.org>", 0, "ann@example.org" },
		{ "=?utf-8?q?Victim_<victim=40example.test>?= <ann@example.org>", 0,
		  "ann@example.org" },
		{ "victim@example.test, ann@example.org", -1, "" },
		{ "Ann <ann@example.org>, garbage", -1, "" },
		{ "Ann <=?utf-8?q?victim=40example.test?=>", -1, "" },
		{ "", -1, "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct person p;

		ck_assert_msg(address_parse_mailbox(&p, c[i].raw, strlen(c[i].raw)) == c[i].rc,
			      "%s", c[i].raw);
		ck_assert_str_eq(p.email, c[i].email);
		person_release(&p);
	}
}
END_TEST

/*
 * From: values that are not one well-formed mailbox, and what git makes
 * of them: the Author: and Email: lines "git mailinfo" printed (its
 * handle_from()), then the author "git am" recorded from the same mail
 * (git log --format='%an <%ae>'), NULL where git am stopped ("empty ident
 * name (for <>) not allowed").
 */
static const struct {
	const char *in;
	int rc;
	const char *name, *email;	/* git mailinfo */
	const char *commit;		/* git am */
} recover_cases[] = {
	/* A quote or comment left open runs to the end. */
	{ "\"Jane Doe <jane@example.org>", 0,
	  "Jane Doe", "jane@example.org", "Jane Doe <jane@example.org>" },
	{ "Jane (JD Doe <jane@example.org>", 0,
	  "Jane (JD Doe", "jane@example.org", "Jane (JD Doe <jane@example.org>" },
	{ "jane@example.org (Jane Doe", 0,
	  "(Jane Doe", "jane@example.org", "(Jane Doe <jane@example.org>" },
	{ "Jane (JD (x) Doe <jane@example.org>", 0,
	  "Jane (JD (x) Doe", "jane@example.org", "Jane (JD (x) Doe <jane@example.org>" },
	{ "\"Jane \\\"JD\\\" Doe <jane@example.org>", 0,
	  "Jane \"JD\" Doe", "jane@example.org", "Jane \"JD\" Doe <jane@example.org>" },
	{ "\"Doe, Jane <jane@example.org>", 0,
	  "Doe, Jane", "jane@example.org", "Doe, Jane <jane@example.org>" },
	{ "\"Jane (JD\" Doe <jane@example.org", 0,
	  "Jane (JD Doe", "jane@example.org", "Jane (JD Doe <jane@example.org>" },
	/* The address is the word around the first '@', quoted or not. */
	{ "\"Jane@home <jane@example.org>", 0,
	  "Jane@home", "Jane@home", "Jane@home <Jane@home>" },
	{ "Jane <jane@example.org> (jd@example.com", 0,
	  "jane@example.org", "jane@example.org", "jane@example.org <jane@example.org>" },
	{ "Jane Doe <jane@example.org@example.com>", 0,
	  "Jane Doe", "jane@example.org@example.com", "Jane Doe <jane@example.org@example.com>" },
	{ "jane@example.org, joe@example.org", 0,
	  "jane@example.org,", "jane@example.org,", "jane@example.org <jane@example.org>" },
	/* A missing '>' or '<', a name with no <> around the address. */
	{ "Jane Doe <jane@example.org", 0,
	  "Jane Doe", "jane@example.org", "Jane Doe <jane@example.org>" },
	{ "<jane@example.org", 0,
	  "jane@example.org", "jane@example.org", "jane@example.org <jane@example.org>" },
	{ "Jane Doe <<jane@example.org>", 0,
	  "jane@example.org", "jane@example.org", "jane@example.org <jane@example.org>" },
	{ "Jane Doe jane@example.org", 0,
	  "Jane Doe", "jane@example.org", "Jane Doe <jane@example.org>" },
	{ "Jane\tDoe  <jane@example.org", 0,
	  "Jane Doe", "jane@example.org", "Jane Doe <jane@example.org>" },
	/* Trailing text: the commit loses what git calls crud at the ends. */
	{ "Jane Doe <jane@example.org>,", 0,
	  "Jane Doe ,", "jane@example.org", "Jane Doe <jane@example.org>" },
	{ "Jane Doe <jane@example.org.>", 0,
	  "Jane Doe", "jane@example.org.", "Jane Doe <jane@example.org>" },
	{ "jane@example.org (Jane Doe)x", 0,
	  "(Jane Doe)x", "jane@example.org", "(Jane Doe)x <jane@example.org>" },
	{ "Jane \\(JD <jane@example.org>", 0,
	  "Jane \\(JD", "jane@example.org", "Jane \\(JD <jane@example.org>" },
	/* A name over 60 bytes is the address. */
	{ "A very long name that goes on and on and on for more than sixty bytes <x@example.org", 0,
	  "x@example.org", "x@example.org", "x@example.org <x@example.org>" },
	/* No '@': only "name <address>" is taken, quotes and all. */
	{ "Jane Doe <jane>", -1, "Jane Doe", "jane", "Jane Doe <jane>" },
	{ "\"Jane Doe\" <jane>", -1, "\"Jane Doe\"", "jane", "Jane Doe <jane>" },
	{ "Jane <>", -1, "Jane", "", "Jane <>" },
	{ "\"Jane Doe", -1, "", "", NULL },
	{ "Jane Doe", -1, "", "", NULL },
	{ "", -1, "", "", NULL },
};

START_TEST(test_recover)
{
	const char *in = recover_cases[_i].in;
	struct person p;
	int rc = address_recover(&p, in, strlen(in));
	char commit[256];

	ck_assert_msg(rc == recover_cases[_i].rc, "%s: rc %d", in, rc);
	ck_assert_str_eq(p.name, recover_cases[_i].name);
	ck_assert_str_eq(p.email, recover_cases[_i].email);
	person_git_ident(&p);
	snprintf(commit, sizeof(commit), "%s <%s>", p.name, p.email);
	if (recover_cases[_i].commit)
		ck_assert_str_eq(commit, recover_cases[_i].commit);
	else
		ck_assert_msg(!*p.name && !*p.email, "%s: %s", in, commit);
	person_release(&p);
}
END_TEST

/* n bytes only, and a value git would see cut there. */
START_TEST(test_recover_bounded)
{
	const char *s = "\"Jane <jane@example.org>XXXX";
	struct person p;

	ck_assert_int_eq(address_recover(&p, s, 23), 0);
	ck_assert_str_eq(p.name, "Jane");
	ck_assert_str_eq(p.email, "jane@example.org");
	person_release(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("address");
	TCase *tc = tcase_create("address");

	tcase_add_loop_test(tc, test_parse, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(tc, test_parse_bounded);
	tcase_add_loop_test(tc, test_same, 0, ARRAY_SIZE(same_cases));
	tcase_add_loop_test(tc, test_valid, 0, ARRAY_SIZE(valid_cases));
	tcase_add_test(tc, test_valid_lengths);
	tcase_add_loop_test(tc, test_list, 0, ARRAY_SIZE(list_cases));
	tcase_add_test(tc, test_list_max_and_bounds);
	tcase_add_test(tc, test_mailbox);
	tcase_add_loop_test(tc, test_recover, 0, ARRAY_SIZE(recover_cases));
	tcase_add_test(tc, test_recover_bounded);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
