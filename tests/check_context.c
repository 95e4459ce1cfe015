#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mail/context.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "store/store.h"
#include "testhelp.h"
#include "daemon/linkstore.h"

#define V2C "20250204-must_check-devm_mutex_init-v2-0-7b6271c4b7e6@weissschuh.net"
#define V2P1 "20250204-must_check-devm_mutex_init-v2-1-7b6271c4b7e6@weissschuh.net"
#define V2P2 "20250204-must_check-devm_mutex_init-v2-2-7b6271c4b7e6@weissschuh.net"
#define V3C "20250208-must_check-devm_mutex_init-v3-0-245e417dcc9e@weissschuh.net"
#define V3P1 "20250208-must_check-devm_mutex_init-v3-1-245e417dcc9e@weissschuh.net"
#define V4C "20250301-must_check-devm_mutex_init-v4-0-0123456789ab@weissschuh.net"
#define V4P1 "20250301-must_check-devm_mutex_init-v4-1-0123456789ab@weissschuh.net"
#define SLUG "must_check-devm_mutex_init"
#define T0 1738650000

/* The context of a fixture's first part at time t. */
static void load(const char *name, time_t t, struct msg_context *c)
{
	size_t len;
	char *raw = th_read_data(name, &len);
	struct message m;
	struct patch *p;
	size_t np;
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, len, &e) == 0, "%s: %s", name, e.msg);
	patch_parse(&m, &p, &np);
	msg_context_init(c);
	context_from_patch(&m, &p[0], t, c);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}

static void put(struct store *st, const char *name, time_t t)
{
	struct msg_context c;
	struct err e;

	load(name, t, &c);
	ck_assert_msg(store_context_put(st, &c, &e) == 0, "%s", e.msg);
	msg_context_release(&c);
}

#define ck_str_or_null(a, b) \
	do { if (b) ck_assert_str_eq((a) ? (a) : "(null)", (b)); else ck_assert_ptr_null(a); } while (0)

/* What each fixture's headers say, worked out by reading them. */
static const struct {
	const char *file, *msgid, *subject, *sender, *kind;
	int version, index, total;
	const char *change_id, *irt, *refs, *list_id;
} cases[] = {
	{ "series/series-v2-cover.eml", V2C, "locking/mutex: Mark devm_mutex_init() as __must_check",
	  "linux@weissschuh.net", "cover", 2, 0, 2, SLUG, NULL, NULL, "linux-leds.vger.kernel.org" },
	{ "series/series-v2-1.eml", V2P1, "leds: st1202: Check for error code from devm_mutex_init() call",
	  "linux@weissschuh.net", "patch", 2, 1, 2, SLUG, V2C, V2C, "linux-leds.vger.kernel.org" },
	{ "series/series-v4-1.eml", V4P1, "leds: st1202: Check for error code from devm_mutex_init() call",
	  "linux@weissschuh.net", "patch", 4, 1, 2, SLUG, V4C, V3C " " V4C,
	  "linux-leds.vger.kernel.org" },
	{ "series/series-glued-patchv2.eml", "glued-v2-3@example.org", "leds: baz: use the right mask",
	  "jane@example.org", "patch", 2, 3, 8, NULL, NULL, NULL, "linux-leds.vger.kernel.org" },
	{ "series/series-glued-patch1of8.eml", "glued-1-8@example.org", "leds: baz: add the header",
	  "jane@example.org", "patch", 1, 1, 8, NULL, NULL, NULL, "linux-leds.vger.kernel.org" },
	{ "series/series-nocover-2.eml", "20250106100000.2-nc@example.org",
	  "leds: foo: drop the dead store", "jane@example.org", "patch", 1, 2, 2, NULL,
	  "20250106100000.1-nc@example.org", "20250106100000.1-nc@example.org",
	  "linux-leds.vger.kernel.org" },
};

START_TEST(test_from_patch)
{
	struct msg_context c;

	load(cases[_i].file, T0, &c);
	ck_str_or_null(c.message_id, cases[_i].msgid);
	ck_assert_str_eq(c.subject, cases[_i].subject);
	ck_assert_str_eq(c.sender, cases[_i].sender);
	ck_assert_str_eq(c.kind, cases[_i].kind);
	ck_assert_int_eq(c.version, cases[_i].version);
	ck_assert_int_eq(c.index, cases[_i].index);
	ck_assert_int_eq(c.total, cases[_i].total);
	ck_str_or_null(c.change_id, cases[_i].change_id);
	ck_str_or_null(c.in_reply_to, cases[_i].irt);
	ck_str_or_null(c.references, cases[_i].refs);
	ck_str_or_null(c.list_id, cases[_i].list_id);
	ck_assert_int_eq(c.time, T0);
	msg_context_release(&c);
}
END_TEST

static const struct {
	const char *in, *footer, *msgid;
} slugs[] = {
	{ "20241031-must_check-devm_mutex_init-cac583bda8fe", SLUG, NULL },
	{ "20250204-must_check-devm_mutex_init-v2-1-7b6271c4b7e6@weissschuh.net", NULL, SLUG },
	{ "<20250209-multi-led-v1-1-5aebccbd2db7@posteo.net>", NULL, "multi-led" },
	{ "20250106100000.1-nc@example.org", "20250106100000.1-nc@example.org", NULL },
	{ "20250209-multi-led-1-5aebccbd2db7@posteo.net", NULL, NULL },	/* no -vN */
	{ "20250209-multi-led-v1-1-xyz@posteo.net", NULL, NULL },		/* no hash */
	{ "my-own-change-id", "my-own-change-id", NULL },
	{ "", NULL, NULL },
};

START_TEST(test_slugs)
{
	char *f = context_change_slug_footer(slugs[_i].in);
	char *m = context_change_slug_msgid(slugs[_i].in);

	if (strchr(slugs[_i].in, '@'))
		ck_str_or_null(m, slugs[_i].msgid);
	else
		ck_str_or_null(f, slugs[_i].footer);
	if (!strchr(slugs[_i].in, '@'))
		ck_assert_ptr_null(m);
	free(f);
	free(m);
}
END_TEST

START_TEST(test_thread_root)
{
	struct msg_context c;
	char *r;

	load("series/series-v4-1.eml", T0, &c);
	r = context_thread_root(&c);
	ck_assert_str_eq(r, V3C);	/* the first References entry */
	free(r);
	ck_assert(context_refers_to(&c, V4C));
	ck_assert(context_refers_to(&c, V3C));
	ck_assert(!context_refers_to(&c, V2C));
	ck_assert(!context_refers_to(&c, "0123456789ab@weissschuh.net"));
	msg_context_release(&c);
	load("series/series-v2-cover.eml", T0, &c);
	r = context_thread_root(&c);
	ck_assert_str_eq(r, V2C);	/* no threading: the message itself */
	free(r);
	msg_context_release(&c);
}
END_TEST

/* series/series-outlook-7.eml: Outlook folds the Message-ID: header and writes the
 * domain in capitals; the context keys it with the domain lower-cased, so
 * only context_is_of() matches the header's own form (with a plain string
 * compare the daemon did not see such a patch as a series part, so it was
 * never held for the series reply). */
#define OUTLOOK_LOCAL "WA0P291MB0385BB677EFA22D85EED8A36C5052"
#define OUTLOOK_DOMAIN "WA0P291MB0385.POLP291.PROD.OUTLOOK.COM"
static const struct {
	const char *msgid;
	bool same;
} is_of[] = {
	{ OUTLOOK_LOCAL "@" OUTLOOK_DOMAIN, true },	/* as patch.h reads the header */
	{ "<" OUTLOOK_LOCAL "@" OUTLOOK_DOMAIN ">", true },
	{ " <" OUTLOOK_LOCAL "@wa0p291mb0385.polp291.prod.outlook.com> ", true },
	{ "wa0p291mb0385bb677efa22d85eed8a36c5052@" OUTLOOK_DOMAIN, false }, /* local part exact */
	{ "WA0P291MB03850F4E9B4EC7389FE89779C5052@" OUTLOOK_DOMAIN, false }, /* the cover */
	{ "", false },
	{ NULL, false },
};

START_TEST(test_is_of)
{
	struct msg_context c;

	load("series/series-outlook-7.eml", T0, &c);
	ck_assert_str_eq(c.message_id, OUTLOOK_LOCAL "@wa0p291mb0385.polp291.prod.outlook.com");
	ck_assert_msg(context_is_of(&c, is_of[_i].msgid) == is_of[_i].same, "%s",
		      is_of[_i].msgid ? is_of[_i].msgid : "(null)");
	msg_context_release(&c);
}
END_TEST

START_TEST(test_store_roundtrip)
{
	struct store *st = th_store_open();
	struct msg_context a, b;
	struct err e;
	bool found;

	load("series/series-v4-1.eml", T0, &a);
	ck_assert(store_context_put(st, &a, &e) == 0);
	msg_context_init(&b);
	ck_assert(store_context_get(st, "<" V4P1 ">", &b, &found, &e) == 0);
	ck_assert(found);
	ck_assert_str_eq(b.message_id, a.message_id);
	ck_assert_str_eq(b.subject, a.subject);
	ck_assert_str_eq(b.sender, a.sender);
	ck_assert_str_eq(b.kind, "patch");
	ck_assert_int_eq(b.version, 4);
	ck_assert_int_eq(b.index, 1);
	ck_assert_int_eq(b.total, 2);
	ck_assert_str_eq(b.change_id, SLUG);
	ck_assert_str_eq(b.in_reply_to, V4C);
	ck_assert_str_eq(b.references, V3C " " V4C);
	ck_assert_str_eq(b.list_id, "linux-leds.vger.kernel.org");
	ck_assert_int_eq(b.time, T0);
	ck_assert(store_context_get(st, "nobody@example.org", &b, &found, &e) == 0);
	ck_assert(!found);
	msg_context_release(&a);
	msg_context_release(&b);
	store_close(st);
}
END_TEST

START_TEST(test_prune)
{
	struct store *st = th_store_open();
	struct msg_context b;
	struct err e;
	bool found;
	long n = -1;

	put(st, "series/series-v2-cover.eml", T0);
	put(st, "series/series-v3-cover.eml", T0 + 100);
	ck_assert(store_context_prune(st, T0 + 50, &n, &e) == 0);
	ck_assert_int_eq(n, 1);
	msg_context_init(&b);
	ck_assert(store_context_get(st, V2C, &b, &found, &e) == 0 && !found);
	ck_assert(store_context_get(st, V3C, &b, &found, &e) == 0 && found);
	msg_context_release(&b);
	store_close(st);
}
END_TEST

START_TEST(test_thread_quiet)
{
	struct store *st = th_store_open();
	struct err e;
	bool q = true;

	ck_assert(store_thread_quiet_get(st, V3C, &q, &e) == 0 && !q);
	ck_assert(store_thread_quiet_set(st, "<" V3C ">", T0, &e) == 0);
	ck_assert(store_thread_quiet_get(st, V3C, &q, &e) == 0 && q);
	ck_assert(store_thread_quiet_get(st, V2C, &q, &e) == 0 && !q);
	store_close(st);
	st = th_store_open();	/* it survives a restart */
	ck_assert(store_thread_quiet_get(st, V3C, &q, &e) == 0 && q);
	store_close(st);
}
END_TEST

/* c (a fixture) against a target key: is it an earlier version? */
static const struct {
	const char *file, *target;
	bool earlier;
} versions[] = {
	{ "series/series-v3-1.eml", V2P1, true },	/* same subject, sender; 2 < 3 */
	{ "series/series-v3-cover.eml", V2C, true },	/* same change-id */
	{ "series/series-v3-cover.eml", V2P1, true },	/* change-id of b4's Message-ID */
	{ "series/series-v2-1.eml", V3P1, false },	/* a later version */
	{ "series/series-v3-1.eml", V3C, false },	/* same version */
	{ "series/series-v3-1.eml", "unknown@example.org", false },
	{ "series/series-nocover-1.eml", V2P1, false },	/* another work */
};

START_TEST(test_earlier_version)
{
	struct store *st = th_store_open();
	static const char *const known[] = { "series/series-v2-cover.eml", "series/series-v2-1.eml",
					     "series/series-v3-cover.eml", "series/series-v3-1.eml" };
	struct msg_context c;
	struct err e;
	bool yes = !versions[_i].earlier;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		put(st, known[i], T0 + (time_t)i);
	load(versions[_i].file, T0 + 10, &c);
	ck_assert(linkstore_earlier_version(st, &c, versions[_i].target, &yes, &e) == 0);
	ck_assert_msg(yes == versions[_i].earlier, "%s -> %s", versions[_i].file,
		      versions[_i].target);
	msg_context_release(&c);
	store_close(st);
}
END_TEST

static const struct {
	const char *file, *target;
	bool same;
} same_series[] = {
	{ "series/series-v2-2.eml", V2C, true },	/* its cover letter */
	{ "series/series-v2-2.eml", V2P1, true },	/* a sibling */
	{ "series/series-v2-cover.eml", V2P2, true },	/* the cover's own patch */
	{ "series/series-v2-2.eml", V3P1, false },	/* another version */
	{ "series/series-v4-1.eml", V3C, false },	/* v4 answers v3's cover: not v3's series */
	{ "series/series-v2-2.eml", "unknown@example.org", false },
};

START_TEST(test_same_series)
{
	struct store *st = th_store_open();
	static const char *const known[] = { "series/series-v2-cover.eml", "series/series-v2-1.eml",
					     "series/series-v2-2.eml", "series/series-v3-cover.eml",
					     "series/series-v3-1.eml" };
	struct msg_context c;
	struct err e;
	bool yes = !same_series[_i].same;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		put(st, known[i], T0 + (time_t)i);
	load(same_series[_i].file, T0 + 10, &c);
	ck_assert(linkstore_same_series(st, &c, same_series[_i].target, &yes, &e) == 0);
	ck_assert_msg(yes == same_series[_i].same, "%s -> %s", same_series[_i].file,
		      same_series[_i].target);
	msg_context_release(&c);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("context");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, th_scratch_setup, th_scratch_teardown);
	tcase_add_loop_test(tc, test_from_patch, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, test_slugs, 0, sizeof(slugs) / sizeof(slugs[0]));
	tcase_add_test(tc, test_thread_root);
	tcase_add_loop_test(tc, test_is_of, 0, sizeof(is_of) / sizeof(is_of[0]));
	tcase_add_test(tc, test_store_roundtrip);
	tcase_add_test(tc, test_prune);
	tcase_add_test(tc, test_thread_quiet);
	tcase_add_loop_test(tc, test_earlier_version, 0, sizeof(versions) / sizeof(versions[0]));
	tcase_add_loop_test(tc, test_same_series, 0, sizeof(same_series) / sizeof(same_series[0]));
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
