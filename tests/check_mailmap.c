/*
 * check_mailmap.c - git's .mailmap format: the four line forms, comments,
 * addresses without case, the name-specific form, and a large table.
 * Each expected value comes from reading gitmailmap(5) against the line.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/mailmap.h"
#include "testhelp.h"

static const char text[] =
	"# a comment line <not@an.entry> <never@mapped.example>\n"
	"Jane Doe <jane@example.org>\n"
	"<jane@example.org> <jd@old.example.com>\n"
	"Jane Doe <jane@example.org> <Jane.Doe@Corp.Example>\n"
	"Bob Builder <bob@example.org> Bob B <shared@lab.example>\n"
	"Carol Coder <carol@example.com> <carol@old.example> # moved in 2024\n"
	"\n"
	"   \n"
	"no address here at all\n"
	"Dan <dan@example.net> <dan-unterminated@example.net\n";

static const struct {
	const char *name, *email, *proper;
} lookups[] = {
	/* the name-only form maps no address */
	{ NULL, "jane@example.org", "jane@example.org" },
	/* <proper> <commit> */
	{ NULL, "jd@old.example.com", "jane@example.org" },
	/* Name <proper> <commit>, addresses compared without case */
	{ NULL, "jane.doe@corp.example", "jane@example.org" },
	{ "Whoever", "JANE.DOE@CORP.EXAMPLE", "jane@example.org" },
	/* Name <proper> Commit Name <commit>: only under that name */
	{ "Bob B", "shared@lab.example", "bob@example.org" },
	{ "bob b", "shared@lab.example", "bob@example.org" },
	{ "Someone Else", "shared@lab.example", "shared@lab.example" },
	{ NULL, "shared@lab.example", "shared@lab.example" },
	/* a trailing comment after the last address */
	{ NULL, "carol@old.example", "carol@example.com" },
	/* comment lines, lines without an address, an unterminated one */
	{ NULL, "never@mapped.example", "never@mapped.example" },
	{ NULL, "dan-unterminated@example.net", "dan-unterminated@example.net" },
	{ NULL, "nobody@example.org", "nobody@example.org" },
};

START_TEST(test_lookup)
{
	struct mailmap *mm = mailmap_new();

	mailmap_parse(mm, text, strlen(text));
	ck_assert_str_eq(mailmap_lookup(mm, lookups[_i].name, lookups[_i].email),
			 lookups[_i].proper);
	mailmap_free(mm);
}
END_TEST

START_TEST(test_count)
{
	struct mailmap *mm = mailmap_new();

	mailmap_parse(mm, text, strlen(text));
	/* jd@old, Jane.Doe@Corp, shared@lab (Bob B), carol@old */
	ck_assert_uint_eq(mailmap_count(mm), 4);
	mailmap_free(mm);
}
END_TEST

START_TEST(test_same)
{
	struct mailmap *mm = mailmap_new();

	mailmap_parse(mm, text, strlen(text));
	/* both map to one proper address */
	ck_assert(mailmap_same(mm, NULL, "jd@old.example.com", NULL, "Jane.Doe@corp.example"));
	/* one maps to the other */
	ck_assert(mailmap_same(mm, NULL, "jd@old.example.com", NULL, "jane@example.org"));
	ck_assert(mailmap_same(mm, NULL, "JANE@example.org", NULL, "jd@old.example.com"));
	/* strangers */
	ck_assert(!mailmap_same(mm, NULL, "jd@old.example.com", NULL, "carol@example.com"));
	ck_assert(!mailmap_same(mm, NULL, "a@example.org", NULL, "b@example.org"));
	/* the name-specific form joins only under its name */
	ck_assert(mailmap_same(mm, "Bob B", "shared@lab.example", "Bob Builder", "bob@example.org"));
	ck_assert(!mailmap_same(mm, "Eve", "shared@lab.example", "Bob Builder", "bob@example.org"));
	/* no table, empty addresses */
	ck_assert(!mailmap_same(NULL, NULL, "jd@old.example.com", NULL, "jane@example.org"));
	ck_assert(!mailmap_same(mm, NULL, "", NULL, ""));
	mailmap_free(mm);
}
END_TEST

/* Two files add up; an entry of the second is found like one of the first. */
START_TEST(test_two_parses)
{
	static const char more[] = "Eve Example <eve@example.org> <eve@old.example>";
	struct mailmap *mm = mailmap_new();

	mailmap_parse(mm, text, strlen(text));
	mailmap_parse(mm, more, strlen(more));
	ck_assert_str_eq(mailmap_lookup(mm, NULL, "eve@old.example"), "eve@example.org");
	ck_assert_str_eq(mailmap_lookup(mm, NULL, "carol@old.example"), "carol@example.com");
	mailmap_free(mm);
}
END_TEST

/* A file the size of the kernel's and more: every entry is found. */
START_TEST(test_large)
{
	struct mailmap *mm = mailmap_new();
	struct buf b;
	char old[64], proper[64];

	buf_init(&b, 0);
	for (int i = 5000; i-- > 0;)
		buf_printf(&b, "Person %d <p%d@example.org> <old%d@example.net>\n", i, i, i);
	mailmap_parse(mm, b.data, b.len);
	ck_assert_uint_eq(mailmap_count(mm), 5000);
	for (int i = 0; i < 5000; i += 7) {
		snprintf(old, sizeof(old), "OLD%d@example.net", i);
		snprintf(proper, sizeof(proper), "p%d@example.org", i);
		ck_assert_str_eq(mailmap_lookup(mm, NULL, old), proper);
	}
	buf_release(&b);
	mailmap_free(mm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mailmap");
	TCase *tc = tcase_create("mailmap");

	tcase_add_loop_test(tc, test_lookup, 0, (int)ARRAY_SIZE(lookups));
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_same);
	tcase_add_test(tc, test_two_parses);
	tcase_add_test(tc, test_large);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
