#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "mail/trailer.h"
#include "testhelp.h"

#define MAX_TEST_LINES 16

static const struct {
	const char *line;
	int kind;
} classify_cases[] = {
	{ "Signed-off-by: Jane Doe <jane@example.org>", TRAILER_TAG },
	{ "Signed-off-by:Jane", TRAILER_TAG },
	{ "Signed-off-by : Jane", TRAILER_TAG },
	{ "Link:", TRAILER_TAG },
	{ "Cc: stable@vger.kernel.org # 6.1+", TRAILER_TAG },
	{ "v2: rebased", TRAILER_TAG },
	{ " continued value", TRAILER_CONTINUATION },
	{ "\tcontinued value", TRAILER_CONTINUATION },
	{ "  Cc: not a sign-off, so a continuation", TRAILER_CONTINUATION },
	{ "  Signed-off-by: Jane <jane@example.org>", TRAILER_TAG },
	{ "[ tglx: Massaged changelog ]", TRAILER_NOTE },
	{ "[jdoe@example.org: fixed a typo]", TRAILER_NOTE },
	{ "[ Upstream commit 0123456789abcdef ]", TRAILER_NOTE },
	{ "[ bp: long note that goes on", TRAILER_NOTE },
	{ "[1] https://example.org/bug", -1 },
	{ "# for the 6.1 backport", TRAILER_COMMENT },
	{ "", -1 },
	{ "   ", -1 },
	{ "https://lore.kernel.org/r/1@example.org", -1 },
	{ "This is prose: it has a colon", -1 },
	{ "Fixes 0123456789ab (\"foo: bar\")", -1 },
	{ "1234: numbers first", -1 },
	{ "X_Y: underscore", -1 },
	{ "-by: dash first", -1 },
};

START_TEST(test_classify)
{
	const char *l = classify_cases[_i].line;

	ck_assert_msg(trailer_classify(l, strlen(l)) == classify_cases[_i].kind,
		      "\"%s\": %d", l, trailer_classify(l, strlen(l)));
}
END_TEST

/* Makes struct lines of a NULL-terminated list, numbered from 1. */
static size_t make_lines(struct line *v, const char *const *text)
{
	size_t n = 0;

	while (n < MAX_TEST_LINES && text[n]) {
		v[n].p = text[n];
		v[n].len = strlen(text[n]);
		v[n].lineno = n + 1;
		n++;
	}
	return n;
}

static const struct {
	const char *name;
	const char *text[MAX_TEST_LINES];
	size_t start;	/* SIZE_MAX: none (nlines) */
} block_cases[] = {
	{ "plain", { "Fix the foo.", "", "Signed-off-by: A <a@x.org>", NULL }, 2 },
	{ "continuation", { "Fix.", "", "Reported-by: R <r@x.org>", "Closes: https://x.org/1",
	  "Link: https://x.org/a", "  continued", "Signed-off-by: A <a@x.org>", NULL }, 2 },
	{ "notes and comments", { "Fix.", "", "Signed-off-by: A <a@x.org>",
	  "[ tglx: Massaged changelog ]", "# for 6.1", "Signed-off-by: T <t@x.org>", NULL }, 2 },
	{ "multi-line note", { "Fix.", "", "Signed-off-by: A <a@x.org>", "[ bp: Drop the",
	  "  unused variable. ]", "Signed-off-by: B <b@x.org>", NULL }, 2 },
	/* 1 trailer, 3 other lines: exactly a quarter, with a sign-off */
	{ "quarter", { "Fix.", "", "Signed-off-by: A <a@x.org>", "cherry picked by hand",
	  "from the vendor tree", "with conflicts", NULL }, 2 },
	{ "under a quarter", { "Fix.", "", "Signed-off-by: A <a@x.org>", "w", "x", "y", "z", NULL },
	  SIZE_MAX },
	{ "quarter, no sign-off", { "Fix.", "", "Acked-by: A <a@x.org>", "x", "y", NULL }, SIZE_MAX },
	{ "prose on top", { "Fix it.", "Signed-off-by: A <a@x.org>", NULL }, 1 },
	{ "indented code on top", { "Fix.", "", "  code();", "Signed-off-by: A <a@x.org>", NULL }, 3 },
	{ "no trailers", { "Fix.", "", "More prose.", NULL }, SIZE_MAX },
	{ "trailing blank lines", { "Fix.", "", "Signed-off-by: A <a@x.org>", "", " ", NULL }, 2 },
	{ "only comments", { "Fix.", "", "# foo", NULL }, SIZE_MAX },
	{ "only trailers", { "Signed-off-by: A <a@x.org>", NULL }, 0 },
	{ "fixes without colon", { "Fix.", "", "Fixes 0123456789ab (\"x\")",
	  "Signed-off-by: A <a@x.org>", NULL }, 2 },
	{ "last paragraph only", { "Fix.", "", "Link: https://x.org/1", "",
	  "Signed-off-by: A <a@x.org>", NULL }, 4 },
	{ "empty", { NULL }, 0 },
};

START_TEST(test_block_find)
{
	struct line v[MAX_TEST_LINES];
	size_t n = make_lines(v, block_cases[_i].text);
	size_t want = block_cases[_i].start == SIZE_MAX ? n : block_cases[_i].start;

	ck_assert_msg(trailer_block_find(v, n, NULL) == want, "%s: got %zu, want %zu",
		      block_cases[_i].name, trailer_block_find(v, n, NULL), want);
}
END_TEST

/*
 * Below the block, git's trailer code (commit.c ignore_non_trailer()) sets
 * aside a run of empty lines, # comments and old-style conflicts blocks
 * ("Conflicts:", then file names after a TAB).  Each case is the message
 * "leds: fix foo\n\n" + text, and want is what git interpret-trailers
 * --parse printed of it.
 */
static const struct {
	const char *name;
	const char *text[MAX_TEST_LINES];
	const char *want[3];
} tail_cases[] = {
	{ "Conflicts: below a blank line", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "\tdrivers/leds/leds-foo.c", NULL }, { "Signed-off-by: A <a@example.org>" } },
	{ "Conflicts: right below the block", { "Fix foo.", "", "Signed-off-by: A <a@example.org>",
	  "Conflicts:", "\tdrivers/leds/leds-foo.c", "\tdrivers/leds/leds.h", NULL },
	  { "Signed-off-by: A <a@example.org>" } },
	{ "# Conflicts: below a blank line", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "# Conflicts:", "#\tdrivers/leds/leds-foo.c", NULL }, { "Signed-off-by: A <a@example.org>" } },
	{ "# Conflicts: right below the block", { "Fix foo.", "", "Signed-off-by: A <a@example.org>",
	  "# Conflicts:", "#\tdrivers/leds/leds-foo.c", NULL }, { "Signed-off-by: A <a@example.org>" } },
	{ "both, blank lines between", { "Fix foo.", "", "Reviewed-by: R <r@example.org>",
	  "Signed-off-by: A <a@example.org>", "", "Conflicts:", "\tdrivers/leds/leds-foo.c", "", "",
	  "# Conflicts:", "#\tdrivers/leds/leds-foo.c", "#", NULL },
	  { "Reviewed-by: R <r@example.org>", "Signed-off-by: A <a@example.org>" } },
	/* a conflicts block goes on past an empty line; another may follow */
	{ "empty line in the file list", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "\tdrivers/a.c", "", "\tdrivers/b.c", NULL },
	  { "Signed-off-by: A <a@example.org>" } },
	{ "two conflicts blocks", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "\tdrivers/a.c", "Conflicts:", "\tdrivers/b.c", NULL },
	  { "Signed-off-by: A <a@example.org>" } },
	/* with anything else below it, Conflicts: is no tail: it stays in the text */
	{ "Conflicts: in the prose", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "\tdrivers/leds/leds-foo.c", "were fixed by hand.", NULL }, { NULL } },
	{ "Conflicts: above a trailer", { "Fix foo.", "", "Conflicts:", "\tdrivers/leds/leds-foo.c",
	  "Signed-off-by: A <a@example.org>", NULL },
	  { "Conflicts: drivers/leds/leds-foo.c", "Signed-off-by: A <a@example.org>" } },
	{ "only Conflicts:", { "Fix foo.", "", "Conflicts:", "\tdrivers/leds/leds-foo.c", NULL },
	  { NULL } },
	/* a line of spaces is no empty line to git: the tail is "# c" alone */
	{ "a line of spaces ends the run", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "\tdrivers/a.c", "  ", "# c", NULL }, { "Conflicts: drivers/a.c" } },
	/* exactly "Conflicts:" and a TAB, nothing else */
	{ "Conflicts: and a space", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts: ", "\tdrivers/leds/leds-foo.c", NULL }, { "Conflicts: drivers/leds/leds-foo.c" } },
	{ "file names after spaces", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "Conflicts:", "    drivers/leds/leds-foo.c", NULL }, { "Conflicts: drivers/leds/leds-foo.c" } },
	{ "conflicts: in lower case", { "Fix foo.", "", "Signed-off-by: A <a@example.org>", "",
	  "conflicts:", "\tdrivers/leds/leds-foo.c", NULL }, { "conflicts: drivers/leds/leds-foo.c" } },
};

START_TEST(test_block_above_tail)
{
	struct line v[MAX_TEST_LINES];
	size_t n = make_lines(v, tail_cases[_i].text), start, end, nt, k = 0;
	struct trailer *t;

	start = trailer_block_find(v, n, &end);
	ck_assert(start < end || (start == n && end == n));
	trailers_parse(v, end, start, &t, &nt);
	for (size_t i = 0; i < nt; i++) {
		char got[256];

		if (!t[i].in_block || t[i].kind != TRAILER_TAG)
			continue;
		snprintf(got, sizeof(got), "%s: %s", t[i].token, t[i].value);
		ck_assert_msg(k < ARRAY_SIZE(tail_cases[_i].want) && tail_cases[_i].want[k],
			      "%s: more than git: %s", tail_cases[_i].name, got);
		ck_assert_msg(!strcmp(got, tail_cases[_i].want[k]), "%s: got %s, want %s",
			      tail_cases[_i].name, got, tail_cases[_i].want[k]);
		k++;
	}
	ck_assert_msg(k == ARRAY_SIZE(tail_cases[_i].want) || !tail_cases[_i].want[k],
		      "%s: missing %s", tail_cases[_i].name, tail_cases[_i].want[k]);
	trailers_free(t, nt);
}
END_TEST

static const char *const parse_text[] = {
	"Fix the frobnicator when it is cold.",		/* 1 */
	"Signed-off-by: Prose Person <p@x.org>",	/* 2: tag-shaped prose */
	"and more prose here: really.",			/* 3 */
	"",						/* 4 */
	"Fixes 0123456789ab (\"foo: bar\")",		/* 5: no colon */
	"Fixes decade-old bug in the frobnicator.",	/* 6: prose */
	"",						/* 7 */
	"Link: https://lore.kernel.org/r/1@x.org",	/* 8 */
	"  # v1",					/* 9: continuation */
	"Reported-by: Some One",			/* 10 */
	"\t<some@x.org>",				/* 11 */
	"[ tglx: Massaged changelog ]",			/* 12 */
	"# for stable",					/* 13 */
	"Signed-off-by:  Two Spaces <two@x.org>  ",	/* 14 */
	" Signed-off-by: Lead Ws <lead@x.org>",		/* 15 */
	NULL
};

static const struct {
	int kind;
	size_t lineno;
	bool in_block, colon;
	const char *token, *value;
	size_t lead, space;
} parse_want[] = {
	{ TRAILER_TAG, 2, false, true, "Signed-off-by", "Prose Person <p@x.org>", 0, 1 },
	{ TRAILER_TAG, 5, false, false, "Fixes", "0123456789ab (\"foo: bar\")", 0, 1 },
	{ TRAILER_TAG, 8, true, true, "Link", "https://lore.kernel.org/r/1@x.org # v1", 0, 1 },
	{ TRAILER_TAG, 10, true, true, "Reported-by", "Some One <some@x.org>", 0, 1 },
	{ TRAILER_NOTE, 12, true, false, "", "[ tglx: Massaged changelog ]", 0, 0 },
	{ TRAILER_COMMENT, 13, true, false, "", "# for stable", 0, 0 },
	{ TRAILER_TAG, 14, true, true, "Signed-off-by", "Two Spaces <two@x.org>", 0, 2 },
	{ TRAILER_TAG, 15, true, true, "Signed-off-by", "Lead Ws <lead@x.org>", 1, 1 },
};

START_TEST(test_parse)
{
	struct line v[MAX_TEST_LINES];
	size_t n = make_lines(v, parse_text), start, end, nt;
	struct trailer *t;

	start = trailer_block_find(v, n, &end);
	ck_assert_uint_eq(start, 7);
	ck_assert_uint_eq(end, n);
	trailers_parse(v, n, start, &t, &nt);
	ck_assert_uint_eq(nt, ARRAY_SIZE(parse_want));
	for (size_t i = 0; i < nt; i++) {
		ck_assert_int_eq(t[i].kind, parse_want[i].kind);
		ck_assert_uint_eq(t[i].line.lineno, parse_want[i].lineno);
		ck_assert(t[i].line.p == parse_text[parse_want[i].lineno - 1]);
		ck_assert(t[i].in_block == parse_want[i].in_block);
		ck_assert_str_eq(t[i].token, parse_want[i].token);
		ck_assert_str_eq(t[i].value, parse_want[i].value);
		if (t[i].kind != TRAILER_TAG)
			continue;
		ck_assert(t[i].has_colon == parse_want[i].colon);
		ck_assert_uint_eq(t[i].lead_ws, parse_want[i].lead);
		ck_assert_uint_eq(t[i].space_after_colon, parse_want[i].space);
	}
	ck_assert(trailer_is(&t[3], "reported-BY"));
	ck_assert(!trailer_is(&t[3], "Reported"));
	ck_assert(!trailer_is(&t[4], ""));
	trailers_free(t, nt);
}
END_TEST

START_TEST(test_parse_empty)
{
	struct trailer *t = (struct trailer *)1;
	size_t nt = 99;

	trailers_parse(NULL, 0, 0, &t, &nt);
	ck_assert_uint_eq(nt, 0);
	ck_assert_ptr_null(t);
	trailers_free(t, nt);
}
END_TEST

/* Colon-less "Fixes <id>": which prose lines are taken for one. */
static const struct {
	const char *line;
	bool tag;
} fixes_cases[] = {
	{ "Fixes 0123456789ab (\"leds: add frob\")", true },
	{ "fixes 0123456789ab", true },
	{ "Fixes\t12345 (\"x\")", true },
	{ "Fixes 1234 (\"too short\")", false },
	{ "Fixes decade-old bug.", false },
	{ "Fixes faded LEDs.", false },
	{ "Fixes deadbeef handling.", false },
	{ "Fixes 0123456789abz", false },
	{ " Fixes 0123456789ab", false },
	{ "Fixesabc 0123456789ab", false },
};

START_TEST(test_fixes_no_colon)
{
	struct line l = { fixes_cases[_i].line, strlen(fixes_cases[_i].line), 1 };
	struct trailer *t;
	size_t nt;

	trailers_parse(&l, 1, 1, &t, &nt);
	ck_assert_msg(nt == (fixes_cases[_i].tag ? 1u : 0u), "%s: %zu", l.p, nt);
	if (nt) {
		ck_assert(!t[0].has_colon);
		ck_assert(!t[0].in_block);
		ck_assert(trailer_is(&t[0], "Fixes"));
	}
	trailers_free(t, nt);
}
END_TEST

/* "Fix.", "", then n sign-offs (or n continuation lines " wordN"). */
static struct line *gen_lines(size_t ntrailers, char **storage, bool cont)
{
	struct line *v = xcalloc(ntrailers + 2, sizeof(*v));
	struct buf b;
	size_t *off = xcalloc(ntrailers + 2, sizeof(*off));

	buf_init(&b, 0);
	buf_addstr(&b, "Fix.\n\n");
	off[1] = 5;
	for (size_t i = 0; i < ntrailers; i++) {
		off[i + 2] = b.len;
		if (cont)
			buf_printf(&b, " word%zu", i);
		else
			buf_printf(&b, "Signed-off-by: Person %zu <p%zu@x.org>", i, i);
		buf_addch(&b, '\n');
	}
	*storage = buf_detach(&b, NULL);
	for (size_t i = 0; i < ntrailers + 2; i++) {
		v[i].p = *storage + off[i];
		v[i].len = strcspn(v[i].p, "\n");
		v[i].lineno = i + 1;
	}
	free(off);
	return v;
}

/* 10,000 trailers (and more) must be parsed fast and capped. */
START_TEST(test_many_trailers)
{
	size_t n = TRAILER_MAX + 500, nt;
	char *storage;
	struct line *v = gen_lines(n, &storage, false);
	struct trailer *t;
	clock_t t0 = clock();

	ck_assert_uint_eq(trailer_block_find(v, n + 2, NULL), 2);
	trailers_parse(v, n + 2, 2, &t, &nt);
	ck_assert_uint_eq(nt, TRAILER_MAX);
	ck_assert_str_eq(t[9999].value, "Person 9999 <p9999@x.org>");
	ck_assert_uint_eq(t[9999].line.lineno, 10002);
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0, "too slow");
	trailers_free(t, nt);
	free(v);
	free(storage);
}
END_TEST

/* One trailer continued over 10,000 lines: joining must not be quadratic. */
START_TEST(test_long_continuation)
{
	size_t n = 10000, nt;
	char *storage;
	struct line *v = gen_lines(n, &storage, true);
	struct trailer *t;
	clock_t t0 = clock();

	v[2].p = "Link: https://x.org/";
	v[2].len = strlen(v[2].p);
	ck_assert_uint_eq(trailer_block_find(v, n + 2, NULL), 2);
	trailers_parse(v, n + 2, 2, &t, &nt);
	ck_assert_uint_eq(nt, 1);
	ck_assert(!strncmp(t[0].value, "https://x.org/ word1 word2 ", 27));
	ck_assert(strstr(t[0].value, " word9999") != NULL);
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0, "too slow");
	trailers_free(t, nt);
	free(v);
	free(storage);
}
END_TEST

static const struct {
	const char *value, *main;
} main_cases[] = {
	{ "https://lore.kernel.org/r/1@x.org # v1", "https://lore.kernel.org/r/1@x.org" },
	{ "Jane <jane@x.org> # 6.1+", "Jane <jane@x.org>" },
	{ "stable@vger.kernel.org\t# 5.10", "stable@vger.kernel.org" },
	{ "https://x.org/a#frag", "https://x.org/a#frag" },
	{ "a@x.org #nospace", "a@x.org #nospace" },
	{ "a@x.org #", "a@x.org" },
	{ "  padded  ", "padded" },
	{ "", "" },
};

START_TEST(test_value_main)
{
	char *m = trailer_value_main(main_cases[_i].value);

	ck_assert_str_eq(m, main_cases[_i].main);
	free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trailer");
	TCase *tc = tcase_create("trailer");

	tcase_add_loop_test(tc, test_classify, 0, ARRAY_SIZE(classify_cases));
	tcase_add_loop_test(tc, test_block_find, 0, ARRAY_SIZE(block_cases));
	tcase_add_loop_test(tc, test_block_above_tail, 0, ARRAY_SIZE(tail_cases));
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_empty);
	tcase_add_loop_test(tc, test_fixes_no_colon, 0, ARRAY_SIZE(fixes_cases));
	tcase_add_test(tc, test_many_trailers);
	tcase_add_test(tc, test_long_continuation);
	tcase_add_loop_test(tc, test_value_main, 0, ARRAY_SIZE(main_cases));
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
