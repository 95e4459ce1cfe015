#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "address.h"
#include "buf.h"
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

int main(void)
{
	Suite *s = suite_create("address");
	TCase *tc = tcase_create("address");

	tcase_add_loop_test(tc, test_parse, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(tc, test_parse_bounded);
	tcase_add_loop_test(tc, test_same, 0, ARRAY_SIZE(same_cases));
	tcase_add_loop_test(tc, test_valid, 0, ARRAY_SIZE(valid_cases));
	tcase_add_test(tc, test_valid_lengths);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
