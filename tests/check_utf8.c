#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "testhelp.h"
#include "lib/utf8.h"

/* Byte strings with an explicit length, so NUL and truncation can be tested. */
#define S(lit) lit, sizeof(lit) - 1

static const struct {
	const char *s;
	size_t n;
	bool valid;
	size_t first;	/* utf8_seqlen at s */
} seqs[] = {
	{ S(""), true, 0 },
	{ S("abc"), true, 1 },
	{ S("a\0b"), true, 1 },
	{ S("\xc3\xb6rg"), true, 2 },			/* ö */
	{ S("\xe2\x82\xac"), true, 3 },			/* € */
	{ S("\xf0\x9f\x98\x80"), true, 4 },		/* U+1F600 */
	{ S("\xf4\x8f\xbf\xbf"), true, 4 },		/* U+10FFFF */
	{ S("\xc3"), false, 1 },			/* cut short */
	{ S("\xe2\x82"), false, 1 },
	{ S("\xc3("), false, 1 },			/* bad continuation */
	{ S("\xc0\xaf"), false, 1 },			/* overlong '/' */
	{ S("\xe0\x80\xaf"), false, 1 },		/* overlong */
	{ S("\xed\xa0\x80"), false, 1 },		/* surrogate U+D800 */
	{ S("\xf4\x90\x80\x80"), false, 1 },		/* past U+10FFFF */
	{ S("\xff"), false, 1 },
	{ S("\x80"), false, 1 },			/* lone continuation */
	{ S("ok\xf6"), false, 1 },			/* Latin-1 at the end */
};

START_TEST(test_valid_and_seqlen)
{
	ck_assert_msg(utf8_valid(seqs[_i].s, seqs[_i].n) == seqs[_i].valid, "case %d", _i);
	ck_assert_uint_eq(utf8_seqlen(seqs[_i].s, seqs[_i].n), seqs[_i].first);
}
END_TEST

static const struct {
	uint32_t cp;
	const char *utf8;
} encodings[] = {
	{ 'A', "A" },
	{ 0xE9, "\xc3\xa9" },
	{ 0x7FF, "\xdf\xbf" },
	{ 0x800, "\xe0\xa0\x80" },
	{ 0xFFFD, "\xef\xbf\xbd" },
	{ 0x10000, "\xf0\x90\x80\x80" },
	{ 0x10FFFF, "\xf4\x8f\xbf\xbf" },
};

START_TEST(test_encode)
{
	char out[4];
	size_t n = utf8_encode(encodings[_i].cp, out);

	ck_assert_uint_eq(n, strlen(encodings[_i].utf8));
	ck_assert(!memcmp(out, encodings[_i].utf8, n));
}
END_TEST

static const struct {
	const char *in, *out;
} nfc[] = {
	{ "Jo\xcc\x88rg", "J\xc3\xb6rg" },			/* o + U+0308 -> ö */
	{ "Rene\xcc\x81", "Ren\xc3\xa9" },			/* e + U+0301 -> é */
	{ "A\xcc\x8a", "\xc3\x85" },				/* Å */
	{ "c\xcc\xa7", "\xc3\xa7" },				/* ç (U+0327 below) */
	{ "n\xcc\x83", "\xc3\xb1" },				/* ñ */
	{ "Z\xcc\x8c", "\xc5\xbd" },				/* Ž, Latin Extended-A */
	{ "s\xcc\x8c", "\xc5\xa1" },				/* š */
	{ "g\xcc\x86", "\xc4\x9f" },				/* ğ */
	{ "I\xcc\x87", "\xc4\xb0" },				/* İ */
	{ "L\xcc\x8c", "\xc4\xbd" },				/* Ľ */
	{ "U\xcc\x88\xcc\x84", "\xc7\x95" },			/* Ü + macron -> Ǖ, Extended-B */
	{ "a\xcc\x8c", "\xc7\x8e" },				/* ǎ */
	{ "J\xc3\xb6rg", "J\xc3\xb6rg" },			/* already NFC */
	{ "x\xcc\x88", "x\xcc\x88" },				/* nothing precomposed */
	{ "\xcc\x88" "a", "\xcc\x88" "a" },			/* a mark with no base */
	{ "o\xcc\x88\xcc\x88", "\xc3\xb6\xcc\x88" },		/* the second mark stays */
	{ "e\xff\xcc\x81", "e\xff\xcc\x81" },			/* invalid byte copied, blocks */
	{ "", "" },
};

START_TEST(test_nfc)
{
	char *s = utf8_nfc(nfc[_i].in, strlen(nfc[_i].in));

	ck_assert_msg(!strcmp(s, nfc[_i].out), "case %d: got \"%s\", want \"%s\"", _i, s, nfc[_i].out);
	free(s);
}
END_TEST

static const struct {
	const char *a, *b;
	int sign;	/* of utf8_name_cmp(a, b) */
} names[] = {
	{ "J\xc3\xb6rg R\xc3\xb6" "del", "Jo\xcc\x88rg Ro\xcc\x88" "del", 0 },	/* NFC */
	{ "J\xc3\x96RG", "j\xc3\xb6rg", 0 },					/* Ö / ö */
	{ "\xc5\x81ukasz", "\xc5\x82ukasz", 0 },				/* Ł / ł */
	{ "\xc5\xbd" "ak", "\xc5\xbe" "ak", 0 },				/* Ž / ž */
	{ "\xc3\x9f", "\xc3\x9f", 0 },						/* ß */
	{ "\xc7\x84", "\xc7\x86", 0 },						/* Ǆ / ǆ */
	{ "  \"Jane   Doe\" ", "Jane Doe", 0 },
	{ "'Jane Doe'", "Jane Doe", 0 },
	{ "Jane\tDoe", "Jane Doe", 0 },
	{ "Jane\xc2\xa0" "Doe", "Jane Doe", 0 },				/* no-break space */
	{ "JANE DOE", "jane doe", 0 },
	{ "Jane O'Brien", "jane o'brien", 0 },					/* inner quote kept */
	{ "Jane Doe", "Jane Roe", -1 },
	{ "J\xc3\xb6rg", "Jorg", 1 },
	{ "JaneDoe", "Jane Doe", 1 },
	{ "", "", 0 },
	{ "", "a", -1 },
};

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

START_TEST(test_name_cmp)
{
	ck_assert_msg(sign(utf8_name_cmp(names[_i].a, names[_i].b)) == names[_i].sign, "case %d: \"%s\" vs \"%s\"", _i,
		      names[_i].a, names[_i].b);
	ck_assert_int_eq(sign(utf8_name_cmp(names[_i].b, names[_i].a)), -names[_i].sign);
}
END_TEST

/* Every Latin-1 upper-case letter folds to its lower-case partner. */
START_TEST(test_fold_latin1)
{
	for (uint32_t cp = 0xC0; cp <= 0xDE; cp++) {
		char up[5], low[5];

		if (cp == 0xD7)	/* × has no case */
			continue;
		up[utf8_encode(cp, up)] = '\0';
		low[utf8_encode(cp + 0x20, low)] = '\0';
		ck_assert_msg(utf8_name_cmp(up, low) == 0, "U+%04X", cp);
	}
}
END_TEST

/* Distances worked out by hand: the fewest insertions, deletions and
 * substitutions, ASCII case ignored. */
static const struct {
	const char *a, *b;
	size_t d;
} distances[] = {
	{ "", "", 0 },
	{ "", "abc", 3 },
	{ "Signed-off-by", "signed-OFF-BY", 0 },
	{ "Signed-of-by", "Signed-off-by", 1 },		/* one insertion */
	{ "Sigend-off-by", "Signed-off-by", 2 },	/* a transposition is two */
	{ "kitten", "sitting", 3 },
	{ "Acked-by", "Tested-by", 4 },
};

START_TEST(test_edit_distance)
{
	ck_assert_uint_eq(utf8_edit_distance(distances[_i].a, distances[_i].b), distances[_i].d);
	ck_assert_uint_eq(utf8_edit_distance(distances[_i].b, distances[_i].a), distances[_i].d);
}
END_TEST

/* Past UTF8_EDIT_MAX bytes there is no answer, not a stack overflow. */
START_TEST(test_edit_distance_long)
{
	char lng[UTF8_EDIT_MAX + 2];

	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	ck_assert_uint_eq(utf8_edit_distance(lng, "a"), SIZE_MAX);
	lng[UTF8_EDIT_MAX] = '\0';
	ck_assert_uint_eq(utf8_edit_distance(lng, ""), UTF8_EDIT_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_valid_and_seqlen, 0, ARRAY_SIZE(seqs));
	tcase_add_loop_test(tc, test_encode, 0, ARRAY_SIZE(encodings));
	tcase_add_loop_test(tc, test_nfc, 0, ARRAY_SIZE(nfc));
	tcase_add_loop_test(tc, test_name_cmp, 0, ARRAY_SIZE(names));
	tcase_add_test(tc, test_fold_latin1);
	tcase_add_loop_test(tc, test_edit_distance, 0, ARRAY_SIZE(distances));
	tcase_add_test(tc, test_edit_distance_long);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
