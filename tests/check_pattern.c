#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/pattern.h"
#include "testhelp.h"

static const struct {
	const char *re;
	unsigned flags;
	const char *subject;
	enum pattern_result want;
	const char *capture;	/* expected capture (group 1 or whole match) */
} match_cases[] = {
	{ "^Signed-off-by: ", 0, "Signed-off-by: A <a@b>", PATTERN_MATCH, "Signed-off-by: " },
	{ "^signed-off-by: ", 0, "Signed-off-by: A <a@b>", PATTERN_NOMATCH, NULL },
	{ "^signed-off-by: ", PATTERN_CASELESS, "Signed-off-by: A", PATTERN_MATCH, "Signed-off-by: " },
	{ "lore\\.kernel\\.org/r/([^/]+)", 0, "https://lore.kernel.org/r/x@y/T/", PATTERN_MATCH, "x@y" },
	{ "^b$", 0, "a\nb", PATTERN_NOMATCH, NULL },
	{ "^b$", PATTERN_MULTILINE, "a\nb", PATTERN_MATCH, "b" },
	/* UTF mode: one code point, not one byte. */
	{ "^J.rgen$", 0, "J\xc3\xbcrgen", PATTERN_MATCH, "J\xc3\xbcrgen" },
	/* Invalid UTF-8 in the subject is no error, just bytes that match nothing. */
	{ "rgen", 0, "J\xfcrgen", PATTERN_MATCH, "rgen" },
	{ "(x)?y", 0, "y", PATTERN_MATCH, "" },
};

START_TEST(test_match_table)
{
	struct err e;
	struct pattern *p = pattern_compile(match_cases[_i].re, match_cases[_i].flags, &e);
	const char *s = match_cases[_i].subject;
	size_t off = 99, len = 99;

	ck_assert_msg(p != NULL, "%s: %s", match_cases[_i].re, e.msg);
	ck_assert_str_eq(pattern_source(p), match_cases[_i].re);
	ck_assert_int_eq(pattern_match(p, s, strlen(s), &off, &len), match_cases[_i].want);
	if (match_cases[_i].capture) {
		ck_assert_uint_eq(len, strlen(match_cases[_i].capture));
		ck_assert(off + len <= strlen(s));
		ck_assert(!memcmp(s + off, match_cases[_i].capture, len));
	}
	pattern_free(p);
}
END_TEST

START_TEST(test_length_is_respected)
{
	struct err e;
	struct pattern *p = pattern_compile("b$", 0, &e);
	/* NUL-safe: the subject is n bytes, not a C string. */
	const char s[] = { 'a', '\0', 'b', 'c' };

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(pattern_match(p, s, 3, NULL, NULL), PATTERN_MATCH);
	ck_assert_int_eq(pattern_match(p, s, 4, NULL, NULL), PATTERN_NOMATCH);
	ck_assert_int_eq(pattern_match(p, s, 0, NULL, NULL), PATTERN_NOMATCH);
	pattern_free(p);
}
END_TEST

static const struct {
	const char *re;
	const char *want;	/* e.msg prefix */
} bad_cases[] = {
	{ "abc(", "offset 4: missing closing parenthesis" },
	{ "a[b", "offset 3: missing terminating ]" },
	{ "*x", "offset 0: quantifier does not follow" },
	{ "(?<n>a)(?<n>b)", "offset 12: two named subpatterns have the same name" },
};

START_TEST(test_compile_errors)
{
	struct err e;

	err_init(&e);
	ck_assert_ptr_null(pattern_compile(bad_cases[_i].re, 0, &e));
	ck_assert_msg(!strncmp(e.msg, bad_cases[_i].want, strlen(bad_cases[_i].want)),
		      "%s: got \"%s\"", bad_cases[_i].re, e.msg);
	ck_assert_int_eq(e.cls, ERR_FINAL);
}
END_TEST

START_TEST(test_pathological_hits_limit)
{
	struct err e;
	struct pattern *p = pattern_compile("(a+)+$", 0, &e);
	char s[64];
	clock_t t0;

	ck_assert_ptr_nonnull(p);
	memset(s, 'a', sizeof(s) - 2);
	s[sizeof(s) - 2] = 'b';
	s[sizeof(s) - 1] = '\0';
	t0 = clock();
	ck_assert_int_eq(pattern_match(p, s, strlen(s), NULL, NULL), PATTERN_LIMIT);
	/* Without the limit this takes 2^62 steps; with it, milliseconds. */
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "limit took too long");
	pattern_free(p);
}
END_TEST

START_TEST(test_deep_recursion_hits_limit)
{
	struct err e;
	struct pattern *p = pattern_compile("^(a|b)*(?:c)$", 0, &e);
	size_t n = 1000000;
	char *s = xmalloc(n + 1);
	enum pattern_result r;

	ck_assert_ptr_nonnull(p);
	memset(s, 'a', n);
	s[n] = '\0';
	r = pattern_match(p, s, n, NULL, NULL);
	ck_assert(r == PATTERN_LIMIT || r == PATTERN_NOMATCH);
	free(s);
	pattern_free(p);
}
END_TEST

START_TEST(test_list)
{
	struct pattern_list l;
	struct err e;
	size_t off, len;
	const char *url = "https://patch.msgid.link/20250101-x-v2-1-ab@kernel.org";

	pattern_list_init(&l);
	ck_assert_int_eq(pattern_list_add(&l, "^https?://lore\\.kernel\\.org/r/([^/]+)", 0, &e), 0);
	ck_assert_int_eq(pattern_list_add(&l, "^https?://(?:patch\\.)?msgid\\.link/([^/]+)",
					  PATTERN_CASELESS, &e), 0);
	ck_assert_int_eq(pattern_list_add(&l, "bad(", 0, &e), -1);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_int_eq(pattern_list_match(&l, url, strlen(url), &off, &len), 1);
	ck_assert_uint_eq(off, strlen("https://patch.msgid.link/"));
	ck_assert_uint_eq(len, strlen("20250101-x-v2-1-ab@kernel.org"));
	ck_assert_int_eq(pattern_list_match(&l, "https://example.org/", 20, &off, &len), -1);
	pattern_list_release(&l);
	ck_assert_uint_eq(l.n, 0);
	pattern_list_release(&l);
}
END_TEST

START_TEST(test_list_skips_limit)
{
	struct pattern_list l;
	struct err e;
	char s[40];

	memset(s, 'a', sizeof(s) - 2);
	s[sizeof(s) - 2] = 'b';
	s[sizeof(s) - 1] = '\0';
	pattern_list_init(&l);
	ck_assert_int_eq(pattern_list_add(&l, "(a+)+$", 0, &e), 0);
	ck_assert_int_eq(pattern_list_add(&l, "a(b)", 0, &e), 0);
	ck_assert_int_eq(pattern_list_match(&l, s, strlen(s), NULL, NULL), 1);
	pattern_list_release(&l);
}
END_TEST

/* With PATTERN_STEPS and a budget, every case still answers the same. */
START_TEST(test_match_table_budget)
{
	struct err e;
	struct pattern *p = pattern_compile(match_cases[_i].re,
					    match_cases[_i].flags | PATTERN_STEPS, &e);
	const char *s = match_cases[_i].subject;
	struct pattern_budget b;
	size_t off = 99, len = 99;

	ck_assert_ptr_nonnull(p);
	pattern_budget_init(&b, PATTERN_BUDGET_STEPS);
	ck_assert_int_eq(pattern_match_budget(p, &b, s, strlen(s), &off, &len),
			 match_cases[_i].want);
	if (match_cases[_i].capture) {
		ck_assert_uint_eq(len, strlen(match_cases[_i].capture));
		ck_assert(!memcmp(s + off, match_cases[_i].capture, len));
	}
	ck_assert(!b.spent);
	ck_assert_uint_eq(b.limited, 0);
	pattern_free(p);
}
END_TEST

/* Steps depend on the pattern and the subject only: the same each time. */
START_TEST(test_budget_counts_steps)
{
	struct err e;
	struct pattern *p = pattern_compile("(foo|bar)_\\w+\\(", PATTERN_STEPS, &e);
	const char *s = "+\tret = foo_bar(dev, &priv->regs);";
	struct pattern_budget b;
	unsigned long once;

	ck_assert_ptr_nonnull(p);
	pattern_budget_init(&b, 1000);
	ck_assert_int_eq(pattern_match_budget(p, &b, s, strlen(s), NULL, NULL), PATTERN_MATCH);
	once = 1000 - b.left;
	ck_assert_uint_gt(once, 0);
	ck_assert_int_eq(pattern_match_budget(p, &b, s, strlen(s), NULL, NULL), PATTERN_MATCH);
	ck_assert_uint_eq(1000 - b.left, 2 * once);
	/* Too few steps for one more: spent, and spent it stays. */
	pattern_budget_init(&b, once - 1);
	ck_assert_int_eq(pattern_match_budget(p, &b, s, strlen(s), NULL, NULL), PATTERN_SPENT);
	ck_assert(b.spent);
	ck_assert_uint_eq(b.left, 0);
	ck_assert_int_eq(pattern_match_budget(p, &b, s, strlen(s), NULL, NULL), PATTERN_SPENT);
	/* pattern_match() knows no budget. */
	ck_assert_int_eq(pattern_match(p, s, strlen(s), NULL, NULL), PATTERN_MATCH);
	pattern_free(p);
}
END_TEST

/*
 * Lines of a's and a '!' under ^(a+)+$: with 80 a's each line hits the
 * match limit, with 14 none does but each takes ~49,000 steps.  Either way
 * the budget stops the pattern long before the last of 5000 lines, in
 * milliseconds rather than minutes.
 */
static size_t lines_until_spent(struct pattern *p, size_t as, struct pattern_budget *b)
{
	char line[128];
	size_t i;

	memset(line, 'a', as);
	line[as] = '!';
	for (i = 0; i < 5000; i++)
		if (pattern_match_budget(p, b, line, as + 1, NULL, NULL) == PATTERN_SPENT)
			break;
	return i;
}

START_TEST(test_budget_stops_catastrophic)
{
	struct err e;
	struct pattern *p = pattern_compile("^(a+)+$", PATTERN_STEPS, &e);
	struct pattern_budget b;
	size_t n;

	ck_assert_ptr_nonnull(p);
	pattern_budget_init(&b, PATTERN_BUDGET_STEPS);
	n = lines_until_spent(p, 80, &b);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, 1000);
	ck_assert_uint_eq(b.limited, n);	/* each line before hit the limit */
	ck_assert(b.spent);

	pattern_budget_init(&b, PATTERN_BUDGET_STEPS);
	n = lines_until_spent(p, 14, &b);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, 1000);
	ck_assert_uint_eq(b.limited, 0);	/* under the limit, still stopped */

	/* The same input spends the same: a fresh budget stops at the same line. */
	pattern_budget_init(&b, PATTERN_BUDGET_STEPS);
	ck_assert_uint_eq(lines_until_spent(p, 14, &b), n);
	pattern_free(p);
}
END_TEST

START_TEST(test_budget_needs_steps_flag)
{
	struct err e;
	struct pattern *p = pattern_compile("^(a+)+$", 0, &e);
	struct pattern_budget b;

	ck_assert_ptr_nonnull(p);
	pattern_budget_init(&b, 1);
	ck_assert_uint_eq(lines_until_spent(p, 10, &b), 5000);
	ck_assert(!b.spent);
	pattern_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pattern");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_match_table, 0, ARRAY_SIZE(match_cases));
	tcase_add_test(tc, test_length_is_respected);
	tcase_add_loop_test(tc, test_compile_errors, 0, ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_pathological_hits_limit);
	tcase_add_test(tc, test_deep_recursion_hits_limit);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_list_skips_limit);
	suite_add_tcase(s, tc);
	tc = tcase_create("budget");
	tcase_add_loop_test(tc, test_match_table_budget, 0, ARRAY_SIZE(match_cases));
	tcase_add_test(tc, test_budget_counts_steps);
	tcase_add_test(tc, test_budget_stops_catastrophic);
	tcase_add_test(tc, test_budget_needs_steps_flag);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
