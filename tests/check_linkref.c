#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "mail/linkref.h"
#include "rules/rules.h"
#include "testhelp.h"
#include "mail/msgid.h"

static struct rule_settings settings;

static void setup(void)
{
	rule_settings_init(&settings);
}

static void teardown(void)
{
	rule_settings_release(&settings);
}

/* Every URL form of tagbot-rules(7) LINKS; NULL: not an archive URL. */
static const struct {
	const char *url;
	const char *id;
} msgid_cases[] = {
	{ "https://lore.kernel.org/r/20250103-leds-fix-v3-2-0a1b2c3d4e5f@kernel.org",
	  "20250103-leds-fix-v3-2-0a1b2c3d4e5f@kernel.org" },
	{ "https://lore.kernel.org/all/CAHk-=wh5AyuvEhNY9a57v-vwyr7EkPVRUKMPwj92yF_K0dJHVg@mail.gmail.com/",
	  "CAHk-=wh5AyuvEhNY9a57v-vwyr7EkPVRUKMPwj92yF_K0dJHVg@mail.gmail.com" },
	{ "https://lore.kernel.org/linux-leds/c6134e26-2e45-4121-aa15-58aaef327201@lunn.ch/T/#m9d6fe81bbcb2",
	  "c6134e26-2e45-4121-aa15-58aaef327201@lunn.ch" },
	{ "https://lore.kernel.org/oe-kbuild-all/202502121512.CmoMg9Q7-lkp@intel.com/",
	  "202502121512.CmoMg9Q7-lkp@intel.com" },
	/* No prefix segment at all. */
	{ "https://lore.kernel.org/87segwyc3p.fsf@trenco.lwn.net", "87segwyc3p.fsf@trenco.lwn.net" },
	{ "http://lore.kernel.org/r/87segwyc3p.fsf@trenco.lwn.net/", "87segwyc3p.fsf@trenco.lwn.net" },
	{ "https://lkml.kernel.org/r/bb5dfd55ea2026303ab2296f4a6df3da7dd64006.1674217480.git.linux@leemhuis.info",
	  "bb5dfd55ea2026303ab2296f4a6df3da7dd64006.1674217480.git.linux@leemhuis.info" },
	{ "https://patch.msgid.link/20260311-led-swnode-name-v1-1-798a49e041c6@gmail.com",
	  "20260311-led-swnode-name-v1-1-798a49e041c6@gmail.com" },
	{ "https://msgid.link/20250101120000.1234-1-a@b.org", "20250101120000.1234-1-a@b.org" },
	{ "https://msgid.link/r/20250101120000.1234-1-a@b.org", "20250101120000.1234-1-a@b.org" },
	{ "https://patchwork.kernel.org/project/linux-leds/patch/20250101120000.1234-1-a@b.org/",
	  "20250101120000.1234-1-a@b.org" },
	/* ozlabs.org's patchwork (netdev, linuxppc-dev, u-boot) names the mail the same way. */
	{ "https://patchwork.ozlabs.org/project/netdev/patch/20200101120000.1234-1-a@b.org/",
	  "20200101120000.1234-1-a@b.org" },
	{ "https://patchwork.ozlabs.org/project/linuxppc-dev/patch/a%2Bb%40c.d/", "a+b@c.d" },
	/* Percent-encoded: %40 '@', %2B '+', %3D '=', %2F '/'. */
	{ "https://lore.kernel.org/r/abc%40example.com", "abc@example.com" },
	{ "https://lore.kernel.org/all/CAHk-%3Dwh%2Bx%2Fy%40mail.gmail.com/", "CAHk-=wh+x/y@mail.gmail.com" },
	{ "https://patchwork.kernel.org/project/netdevbpf/patch/a%2Bb%40c.d/", "a+b@c.d" },
	/* <> wrapped, literally or encoded. */
	{ "https://lore.kernel.org/r/<87segwyc3p.fsf@trenco.lwn.net>", "87segwyc3p.fsf@trenco.lwn.net" },
	{ "https://lore.kernel.org/r/%3C87segwyc3p.fsf%40trenco.lwn.net%3E", "87segwyc3p.fsf@trenco.lwn.net" },
	/* Host case does not matter, the ID keeps its case. */
	{ "HTTPS://LORE.Kernel.ORG/R/AbC@Example.COM", "AbC@Example.COM" },
	{ "https://LKML.kernel.org/r/Foo@Bar", "Foo@Bar" },
	/* Not archive URLs. */
	{ "https://lore.kernel.org/linux-leds/?q=foo@bar", NULL },
	{ "https://lore.kernel.org/linux-leds/", NULL },
	{ "https://patchwork.kernel.org/project/linux-leds/patch/12345678/", NULL },
	{ "https://patchwork.ozlabs.org/patch/1234567/", NULL },
	{ "https://patchwork.example.org/project/x/patch/foo@bar/", NULL },
	{ "https://lkml.org/lkml/2019/1/1/1", NULL },
	{ "https://example.com/r/foo@bar", NULL },
	{ "https://lore.kernel.org.evil.com/r/foo@bar", NULL },
	{ "lore.kernel.org/r/foo@bar", NULL },
	{ "https://lore.kernel.org/r/@bar", NULL },
	{ "https://lore.kernel.org/r/foo@", NULL },
};

START_TEST(test_msgid)
{
	const char *url = msgid_cases[_i].url;
	char *id = linkref_msgid(&settings.archives, url, strlen(url));

	if (msgid_cases[_i].id) {
		ck_assert_msg(id != NULL, "%s: no ID", url);
		ck_assert_str_eq(id, msgid_cases[_i].id);
	} else {
		ck_assert_msg(id == NULL, "%s: unexpected ID %s", url, id);
	}
	free(id);
}
END_TEST

/* The length bounds the match: a URL is often inside a longer line. */
START_TEST(test_msgid_length_bounded)
{
	const char *line = "https://lore.kernel.org/r/abc@example.com # [1]";
	char *id = linkref_msgid(&settings.archives, line, strlen("https://lore.kernel.org/r/abc@ex"));

	ck_assert_str_eq(id, "abc@ex");
	free(id);
	ck_assert_ptr_null(linkref_msgid(&settings.archives, line, 10));
	ck_assert_ptr_null(linkref_msgid(NULL, line, strlen(line)));
}
END_TEST

static const struct {
	const char *a, *b;
	bool same;
} same_cases[] = {
	{ "abc@example.com", "abc@example.com", true },
	{ "abc@example.com", "abc@EXAMPLE.Com", true },
	{ "abc@example.com", "ABC@example.com", false },
	{ "CAHk-=wh@mail.gmail.com", "CAHk-=wH@mail.gmail.com", false },
	{ "a@b@c.d", "a@b@C.D", true },		/* the domain is after the last @ */
	{ "abc@example.com", "abc@example.co", false },
	{ "ab@example.com", "abc@example.com", false },
	{ "noat", "noat", true },
	{ "noat", "NOAT", false },
	{ "noat", "noat@x", false },
};

START_TEST(test_same_msgid)
{
	ck_assert_msg(msgid_same(same_cases[_i].a, same_cases[_i].b) == same_cases[_i].same,
		      "%s vs %s", same_cases[_i].a, same_cases[_i].b);
	ck_assert(msgid_same(same_cases[_i].b, same_cases[_i].a) == same_cases[_i].same);
}
END_TEST

START_TEST(test_same_msgid_null)
{
	ck_assert(!msgid_same(NULL, "a@b"));
	ck_assert(!msgid_same("a@b", NULL));
}
END_TEST

static const struct {
	const char *id;
	const char *stem;	/* NULL: not b4-style */
	int version;
} b4_cases[] = {
	{ "20250103-leds-fix-v3-2-0a1b2c3d4e5f@kernel.org", "20250103-leds-fix@kernel.org", 3 },
	{ "20240115-topic-name-v3-2-0123abcd@domain", "20240115-topic-name@domain", 3 },
	{ "20250108-starqltechn_integration_upstream-v14-0-f6e84ec20d96@gmail.com",
	  "20250108-starqltechn_integration_upstream@gmail.com", 14 },
	{ "20260311-led-swnode-name-v1-1-798a49e041c6@gmail.com", "20260311-led-swnode-name@gmail.com", 1 },
	{ "20250103-foo-v3-1-abc@x", "20250103-foo@x", 3 },
	{ "20241201-foo-v2-1-abc@x", "20241201-foo@x", 2 },
	/* Old b4: no -vN- part means version 1. */
	{ "20240115-topic-name-2-0123abcd@domain", "20240115-topic-name@domain", 1 },
	/* A change name that ends in something version-like keeps it. */
	{ "20240115-fix-v2-v4-1-0123abcd@d", "20240115-fix-v2@d", 4 },
	{ "20240115-rev2-1-0123abcd@d", "20240115-rev2@d", 1 },
	/* Not b4. */
	{ "20250117-cordial-hopeful-leopard-4b7ad9@krzk-bin", NULL, 0 },
	{ "20250107131456.247610-1-krzysztof.kozlowski@linaro.org", NULL, 0 },
	{ "87segwyc3p.fsf@trenco.lwn.net", NULL, 0 },
	{ "20250103-v3-1-abc@x", NULL, 0 },		/* no change name */
	{ "2025013-foo-v3-1-abc@x", NULL, 0 },		/* 7-digit date */
	{ "20250103-foo-v3-1-ab@x", NULL, 0 },		/* hash too short */
	{ "20250103-foo-v3-1-ABCDEF@x", NULL, 0 },	/* b4 hashes are lower case */
	{ "20250103-foo-v3-1-abc", NULL, 0 },
	{ "20250103-foo-v3-1-abc@", NULL, 0 },
	{ "-1-abc@x", NULL, 0 },
	{ "", NULL, 0 },
};

START_TEST(test_b4_parse)
{
	char *stem = NULL;
	int version = -1;
	bool ok = linkref_b4_parse(b4_cases[_i].id, &stem, &version);

	if (b4_cases[_i].stem) {
		ck_assert_msg(ok, "%s: not parsed", b4_cases[_i].id);
		ck_assert_str_eq(stem, b4_cases[_i].stem);
		ck_assert_int_eq(version, b4_cases[_i].version);
	} else {
		ck_assert_msg(!ok, "%s: parsed as %s v%d", b4_cases[_i].id, stem, version);
	}
	free(stem);
}
END_TEST

START_TEST(test_b4_parse_null_outputs)
{
	ck_assert(linkref_b4_parse("20250103-foo-v3-1-abc@x", NULL, NULL));
	ck_assert(!linkref_b4_parse(NULL, NULL, NULL));
}
END_TEST

static const struct {
	const char *in;
	const char *out;
} decode_cases[] = {
	{ "a%40b", "a@b" },
	{ "%2b%2B%3d%3D%2f%2F", "++==//" },
	{ "100%", "100%" },		/* a lone % stays */
	{ "%4", "%4" },
	{ "%zz%4g", "%zz%4g" },
	{ "a%00b", "a%00b" },		/* never a NUL */
	{ "%E2%9C%93", "\xe2\x9c\x93" },
	{ "", "" },
};

START_TEST(test_percent_decode)
{
	char *s = linkref_percent_decode(decode_cases[_i].in, strlen(decode_cases[_i].in));

	ck_assert_str_eq(s, decode_cases[_i].out);
	free(s);
}
END_TEST

/* A NUL inside the input is dropped, not copied into the C string. */
START_TEST(test_percent_decode_nul)
{
	char *s = linkref_percent_decode("a\0b%40c", 7);

	ck_assert_str_eq(s, "ab@c");
	free(s);
}
END_TEST

static const struct {
	const char *url;
	bool bug;
} bug_cases[] = {
	{ "https://bugzilla.kernel.org/show_bug.cgi?id=219999", true },
	{ "https://bugzilla.redhat.com/show_bug.cgi?id=2012345", true },
	{ "https://bz.apache.org/bugzilla/show_bug.cgi?id=1", true },
	{ "https://github.com/lm-sensors/lm-sensors/issues/508", true },
	{ "https://gitlab.freedesktop.org/drm/amd/-/issues/3456", true },
	{ "https://bugs.launchpad.net/ubuntu/+source/linux/+bug/2051234", true },
	{ "https://bugs.launchpad.net/bugs/+bug/1", true },
	{ "https://syzkaller.appspot.com/bug?extid=0123456789abcdef0123", true },
	{ "https://bugs.debian.org/1012345", true },
	{ "https://bugs.debian.org/cgi-bin/bugreport.cgi?bug=1012345", true },
	{ "HTTPS://GitHub.com/a/b/issues/1", true },
	{ "https://github.com/LineageOS/android_kernel_samsung_d2/blob/stable/Makefile#L51", false },
	{ "https://github.com/a/b/pull/12", false },
	{ "https://lore.kernel.org/oe-kbuild-all/202502121512.CmoMg9Q7-lkp@intel.com/", false },
	{ "https://www.ti.com/lit/gpn/tps92380", false },
};

START_TEST(test_bugtrackers)
{
	const char *u = bug_cases[_i].url;

	ck_assert_msg((pattern_list_match(&settings.bugtrackers, u, strlen(u), NULL, NULL) >= 0) ==
		      bug_cases[_i].bug, "%s", u);
}
END_TEST

static const struct {
	const char *url;
	bool old;
} old_cases[] = {
	{ "https://lkml.org/lkml/2019/1/1/1", true },
	{ "http://www.lkml.org/lkml/2019/1/1/1", true },
	{ "https://marc.info/?l=linux-kernel&m=1", true },
	{ "https://www.spinics.net/lists/linux-leds/msg1.html", true },
	{ "https://www.mail-archive.com/linux-kernel@vger.kernel.org/msg1.html", true },
	{ "http://lists.infradead.org/pipermail/linux-arm-kernel/2019-May/1.html", true },
	{ "https://lists.ozlabs.org/pipermail/linuxppc-dev/2019-May/1.html", true },
	{ "https://lkml.iu.edu/hypermail/linux/kernel/1901.0/1.html", true },
	{ "http://article.gmane.org/gmane.linux.kernel/1", true },
	{ "https://lkml.kernel.org/r/a@b", false },
	{ "https://lore.kernel.org/lkml/a@b/", false },
	{ "https://lists.infradead.org/mailman/listinfo/linux-arm-kernel", false },
	{ "https://notlkml.org/x", false },
};

START_TEST(test_old_archives)
{
	struct pattern_list l;
	struct err e;
	const char *u = old_cases[_i].url;

	pattern_list_init(&l);
	for (const char *const *s = linkref_old_archives; *s; s++)
		ck_assert_msg(pattern_list_add(&l, *s, PATTERN_CASELESS, &e) == 0, "%s: %s", *s, e.msg);
	ck_assert_msg((pattern_list_match(&l, u, strlen(u), NULL, NULL) >= 0) == old_cases[_i].old,
		      "%s", u);
	pattern_list_release(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linkref");
	TCase *tc = tcase_create("linkref");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_msgid, 0, (int)ARRAY_SIZE(msgid_cases));
	tcase_add_test(tc, test_msgid_length_bounded);
	tcase_add_loop_test(tc, test_same_msgid, 0, (int)ARRAY_SIZE(same_cases));
	tcase_add_test(tc, test_same_msgid_null);
	tcase_add_loop_test(tc, test_b4_parse, 0, (int)ARRAY_SIZE(b4_cases));
	tcase_add_test(tc, test_b4_parse_null_outputs);
	tcase_add_loop_test(tc, test_percent_decode, 0, (int)ARRAY_SIZE(decode_cases));
	tcase_add_test(tc, test_percent_decode_nul);
	tcase_add_loop_test(tc, test_bugtrackers, 0, (int)ARRAY_SIZE(bug_cases));
	tcase_add_loop_test(tc, test_old_archives, 0, (int)ARRAY_SIZE(old_cases));
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
