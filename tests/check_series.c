#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "mail/context.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "reply/reply.h"
#include "rules/rules.h"
#include "daemon/series.h"
#include "store/store.h"
#include "testhelp.h"

#define V2C "20250204-must_check-devm_mutex_init-v2-0-7b6271c4b7e6@weissschuh.net"
#define V2P1 "20250204-must_check-devm_mutex_init-v2-1-7b6271c4b7e6@weissschuh.net"
#define V2P2 "20250204-must_check-devm_mutex_init-v2-2-7b6271c4b7e6@weissschuh.net"
#define V3C "20250208-must_check-devm_mutex_init-v3-0-245e417dcc9e@weissschuh.net"
#define V4C "20250301-must_check-devm_mutex_init-v4-0-0123456789ab@weissschuh.net"
#define NC1 "20250106100000.1-nc@example.org"
#define NC2 "20250106100000.2-nc@example.org"
#define T0 1738650000

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

/* --- pure ---------------------------------------------------------------- */

static const struct {
	const char *a, *b;
	bool linked;
} links[] = {
	{ "series/series-v2-1.eml", "series/series-v2-cover.eml", true },	/* answers its cover */
	{ "series/series-v2-cover.eml", "series/series-v2-1.eml", true },	/* symmetric */
	{ "series/series-v2-1.eml", "series/series-v2-2.eml", true },	/* siblings: same In-Reply-To */
	{ "series/series-nocover-2.eml", "series/series-nocover-1.eml", true }, /* no cover: 2/2 answers 1/2 */
	{ "series/series-v4-cover.eml", "series/series-v3-cover.eml", false }, /* v4 answers v3: versions differ */
	{ "series/series-v4-1.eml", "series/series-v3-cover.eml", false },	/* refers to it, other version */
	{ "series/series-v4-1.eml", "series/series-v4-cover.eml", true },
	{ "series/series-v3-1.eml", "series/series-v2-cover.eml", false },
	{ "series/series-unthreaded-1.eml", "series/series-unthreaded-2.eml", false }, /* no threading */
	/* "[PATCH 1/7]" and "[PATCH 7/7]" in a v4 thread: the tag left off */
	{ "series/series-tagless-1.eml", "series/series-tagless-cover.eml", true },
	{ "series/series-tagless-cover.eml", "series/series-tagless-1.eml", true },
	{ "series/series-tagless-7.eml", "series/series-tagless-2.eml", true },	/* siblings */
	{ "series/series-tagless-7.eml", "series/series-tagless-1.eml", true },	/* both untagged */
};

START_TEST(test_linked)
{
	struct msg_context a, b;

	load(links[_i].a, T0, &a);
	load(links[_i].b, T0, &b);
	ck_assert_msg(series_linked(&a, &b) == links[_i].linked, "%s ~ %s", links[_i].a,
		      links[_i].b);
	msg_context_release(&a);
	msg_context_release(&b);
}
END_TEST

/* The untagged part joins only a thread of its shape, sent at once. */
START_TEST(test_tag_left_off_limits)
{
	struct msg_context cover, part;

	load("series/series-tagless-cover.eml", T0, &cover);
	load("series/series-tagless-1.eml", T0 + SERIES_TAGLESS, &part);
	ck_assert(series_linked(&part, &cover));
	part.time = T0 + SERIES_TAGLESS + 1;	/* sent later: a resend, not a part */
	ck_assert(!series_linked(&part, &cover));
	msg_context_release(&part);
	load("series/series-tagless-1.eml", T0 + 1, &part);
	part.total = 6;				/* another series shape */
	ck_assert(!series_linked(&part, &cover));
	msg_context_release(&part);
	/* v1's part and a v2 cover sent in reply to v1's cover: siblings, but
	 * the v2 cover starts its own series */
	load("series/series-tagless-7.eml", T0 + 1, &part);
	free(cover.in_reply_to);
	cover.in_reply_to = strdup(part.in_reply_to);
	free(cover.message_id);
	cover.message_id = strdup("v2-cover@example.org");
	ck_assert(!series_linked(&part, &cover));
	ck_assert(!series_linked(&cover, &part));
	msg_context_release(&part);
	msg_context_release(&cover);
	load("series/series-tagless-cover.eml", T0, &cover);
	load("series/series-tagless-2.eml", T0 + 1, &part); /* an untagged cover is not joined */
	cover.version = 1;
	ck_assert(!series_linked(&part, &cover));
	msg_context_release(&part);
	msg_context_release(&cover);
}
END_TEST

/* "[PATCH v5] test" sent between "[PATCH v9 1/4]" and "2/4", answering the
 * v9 cover (trimmed from the corpus): a stray of that send. */
START_TEST(test_stray)
{
	struct msg_context cover, stray, part;

	load("series/series-stray-cover.eml", T0, &cover);
	load("series/series-stray-test.eml", T0 + 2, &stray);
	ck_assert(series_stray(&stray, &cover));
	load("series/series-v2-1.eml", T0 + 2, &part);	/* an n/m part is no stray */
	ck_assert(!series_stray(&part, &cover));
	msg_context_release(&part);
	ck_assert(!series_stray(&cover, &stray));	/* nor a cover letter */
	stray.time = T0 + SERIES_TAGLESS + 1;		/* sent later: a patch of its own */
	ck_assert(!series_stray(&stray, &cover));
	stray.time = T0 + 2;
	free(stray.sender);				/* someone else's patch in the thread */
	stray.sender = strdup("reviewer@example.org");
	ck_assert(!series_stray(&stray, &cover));
	msg_context_release(&stray);
	load("series/series-stray-test.eml", T0 + 2, &stray);
	free(stray.in_reply_to);			/* answering another message */
	stray.in_reply_to = strdup("other@example.org");
	ck_assert(!series_stray(&stray, &cover));
	msg_context_release(&stray);
	msg_context_release(&cover);
}
END_TEST

START_TEST(test_deadline_stretch)
{
	long w = 600;

	/* each part moves the reply to a wait after it ... */
	ck_assert_int_eq(series_deadline(T0, T0 + w, T0 + 300, w), T0 + 300 + w);
	/* ... never past SERIES_STRETCH waits after the first part ... */
	ck_assert_int_eq(series_deadline(T0, T0 + 3000, T0 + 3500, w), T0 + SERIES_STRETCH * w);
	/* ... and never sooner than it was (a rate limit's later deadline) */
	ck_assert_int_eq(series_deadline(T0, T0 + 9000, T0 + 10, w), T0 + 9000);
}
END_TEST

START_TEST(test_window)
{
	struct msg_context a, b, c;

	load("series/series-unthreaded-1.eml", T0, &a);
	load("series/series-unthreaded-2.eml", T0 + 600, &b);
	ck_assert(series_window_match(&a, &b, SERIES_WINDOW));
	ck_assert(series_window_match(&b, &a, SERIES_WINDOW));
	b.time = T0 + SERIES_WINDOW + 1;	/* too late */
	ck_assert(!series_window_match(&a, &b, SERIES_WINDOW));
	load("series/series-unthreaded-1.eml", T0 + 5, &c);	/* the same index twice */
	ck_assert(!series_window_match(&a, &c, SERIES_WINDOW));
	msg_context_release(&c);
	load("series/series-unthreaded-2.eml", T0 + 5, &c);	/* a cover letter is never window-grouped */
	c.index = 0;
	free(c.kind);
	c.kind = strdup("cover");
	ck_assert(!series_window_match(&a, &c, SERIES_WINDOW));
	msg_context_release(&c);
	load("series/series-unthreaded-2.eml", T0 + 5, &c);	/* another list */
	free(c.list_id);
	c.list_id = strdup("linux-kernel.vger.kernel.org");
	ck_assert(!series_window_match(&a, &c, SERIES_WINDOW));
	msg_context_release(&c);
	load("series/series-nocover-2.eml", T0, &c);	/* threaded, other sender */
	ck_assert(!series_window_match(&a, &c, SERIES_WINDOW));
	msg_context_release(&a);
	msg_context_release(&b);
	msg_context_release(&c);
}
END_TEST

START_TEST(test_is_part)
{
	struct msg_context c;

	load("series/series-glued-patchv2.eml", T0, &c);	/* [PATCHv2 3/8] */
	ck_assert(series_is_part(&c));
	msg_context_release(&c);
	load("series/series-glued-patch1of8.eml", T0, &c);	/* [PATCH1/8] */
	ck_assert(series_is_part(&c));
	c.total = 0;	/* a single patch */
	ck_assert(!series_is_part(&c));
	c.total = 8;
	free(c.kind);
	c.kind = strdup("reply");
	ck_assert(!series_is_part(&c));
	msg_context_release(&c);
}
END_TEST

/* indexes arrived, total, cover expected -> complete */
static const struct {
	int idx[6];
	size_t n;
	int total;
	bool cover_expected, complete;
} views[] = {
	{ { 0, 1, 2 }, 3, 2, false, true },
	{ { 1, 2 }, 2, 2, false, true },	/* no cover letter */
	{ { 1, 2 }, 2, 2, true, false },	/* the cover is on its way */
	{ { 2, 1, 0 }, 3, 2, true, true },	/* out of order */
	{ { 0, 2 }, 2, 2, false, false },	/* a missing patch */
	{ { 0, 1, 1, 1 }, 4, 2, false, false },	/* a duplicate is no second patch */
	{ { 0, 1, 9 }, 3, 2, false, false },	/* past total */
	{ { 0 }, 1, 1, false, false },
};

START_TEST(test_complete)
{
	struct series_view v = { .total = views[_i].total, .cover_expected = views[_i].cover_expected };
	bool bits[16] = { false };

	for (size_t i = 0; i < views[_i].n; i++)
		series_view_add(&v, bits, views[_i].idx[i]);
	ck_assert_msg(series_complete(&v) == views[_i].complete, "case %d", _i);
}
END_TEST

/* --- with the store ------------------------------------------------------- */

/* Notes each fixture's context (as the daemon does) and assigns it; ids
 * receives the series of each. */
static void arrive(struct store *st, const char *const *files, size_t n, const time_t *t,
		   char **ids)
{
	for (size_t i = 0; i < n; i++) {
		struct msg_context c;
		struct err e;

		load(files[i], t ? t[i] : T0 + (time_t)i, &c);
		ck_assert_msg(store_context_put(st, &c, &e) == 0, "%s", e.msg);
		ck_assert_msg(series_assign(st, &(struct series_arrival){ &c, STORE_SERIES_PENDING,
								       T0 + 3600, "raw", 3, "f" },
					    &ids[i], &e) == 0, "%s: %s", files[i], e.msg);
		msg_context_release(&c);
	}
}

static void free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
}

struct seen_members {
	int idx[16];
	size_t n;
	size_t with_raw;
};

static void collect(void *ctx, const struct store_series_member *m)
{
	struct seen_members *s = ctx;

	if (s->n < 16)
		s->idx[s->n++] = m->index;
	s->with_raw += m->raw != NULL;
}

/* Orders of one series: all land in one series. */
static const char *const orders[][3] = {
	{ "series/series-v2-cover.eml", "series/series-v2-1.eml", "series/series-v2-2.eml" },	/* in order */
	{ "series/series-v2-2.eml", "series/series-v2-1.eml", "series/series-v2-cover.eml" },	/* reversed */
	{ "series/series-v2-1.eml", "series/series-v2-2.eml", "series/series-v2-cover.eml" },	/* late cover */
	{ "series/series-v2-2.eml", "series/series-v2-cover.eml", "series/series-v2-1.eml" },
};

START_TEST(test_orders)
{
	struct store *st = th_store_open();
	struct seen_members sm = { .n = 0 };
	char *ids[3] = { 0 };
	struct err e;

	arrive(st, orders[_i], 3, NULL, ids);
	ck_assert_str_eq(ids[1], ids[0]);
	ck_assert_str_eq(ids[2], ids[0]);
	ck_assert(store_series_members(st, ids[0], collect, &sm, &e) == 0);
	ck_assert_int_eq(sm.n, 3);
	ck_assert_int_eq(sm.idx[0], 0);	/* by index: the cover leads */
	ck_assert_int_eq(sm.idx[1], 1);
	ck_assert_int_eq(sm.idx[2], 2);
	ck_assert_int_eq(sm.with_raw, 3);
	free_ids(ids, 3);
	store_close(st);
}
END_TEST

START_TEST(test_missing_patch)
{
	static const char *const files[] = { "series/series-v2-cover.eml", "series/series-v2-2.eml" };
	struct store *st = th_store_open();
	struct seen_members sm = { .n = 0 };
	char *ids[2] = { 0 };
	struct err e;

	arrive(st, files, 2, NULL, ids);
	ck_assert_str_eq(ids[0], V2C);
	ck_assert_str_eq(ids[1], V2C);
	ck_assert(store_series_members(st, V2C, collect, &sm, &e) == 0);
	ck_assert_int_eq(sm.n, 2);
	ck_assert_int_eq(sm.idx[0], 0);
	ck_assert_int_eq(sm.idx[1], 2);
	free_ids(ids, 2);
	store_close(st);
}
END_TEST

START_TEST(test_reply_to_other_series)
{
	static const char *const files[] = { "series/series-v3-cover.eml", "series/series-v3-1.eml",
					     "series/series-v4-cover.eml", "series/series-v4-1.eml" };
	struct store *st = th_store_open();
	char *ids[4] = { 0 };

	arrive(st, files, 4, NULL, ids);
	ck_assert_str_eq(ids[0], V3C);
	ck_assert_str_eq(ids[1], V3C);
	ck_assert_str_eq(ids[2], V4C);	/* v4, sent in reply to v3's cover: its own */
	ck_assert_str_eq(ids[3], V4C);
	free_ids(ids, 4);
	store_close(st);
}
END_TEST

START_TEST(test_no_cover)
{
	static const char *const files[] = { "series/series-nocover-2.eml", "series/series-nocover-1.eml" };
	struct store *st = th_store_open();
	char *ids[2] = { 0 };

	arrive(st, files, 2, NULL, ids);
	ck_assert_str_eq(ids[0], NC2);	/* named by the first to arrive */
	ck_assert_str_eq(ids[1], NC2);
	free_ids(ids, 2);
	store_close(st);
}
END_TEST

START_TEST(test_unthreaded_window)
{
	static const char *const files[] = { "series/series-unthreaded-1.eml", "series/series-unthreaded-2.eml" };
	const time_t near[] = { T0, T0 + 600 }, far[] = { T0, T0 + SERIES_WINDOW + 60 };
	struct store *st = th_store_open();
	char *ids[2] = { 0 };
	struct err e;

	arrive(st, files, 2, near, ids);
	ck_assert_str_eq(ids[0], "unthreaded-1@example.org");
	ck_assert_str_eq(ids[1], "unthreaded-1@example.org");
	free_ids(ids, 2);
	store_close(st);
	th_scratch_teardown();
	th_scratch_setup();
	st = th_store_open();
	arrive(st, files, 2, far, ids);
	ck_assert_str_eq(ids[0], "unthreaded-1@example.org");
	ck_assert_str_eq(ids[1], "unthreaded-2@example.org");	/* too far apart */
	(void)e;
	free_ids(ids, 2);
	store_close(st);
}
END_TEST

/* A pending series keeps raw mails until it is done; then it is due no more. */
START_TEST(test_pending_lifecycle)
{
	static const char *const files[] = { "series/series-v2-cover.eml", "series/series-v2-1.eml" };
	struct store *st = th_store_open();
	struct seen_members sm = { .n = 0 };
	char *ids[2] = { 0 }, *due = NULL;
	struct err e;
	time_t when;
	bool found;

	arrive(st, files, 2, NULL, ids);
	ck_assert(store_series_next_time(st, &when, &found, &e) == 0 && found);
	ck_assert_int_eq(when, T0 + 3600);
	ck_assert(store_series_next_due(st, T0 + 3599, &due, &e) == 0);
	ck_assert_ptr_null(due);
	ck_assert(store_series_next_due(st, T0 + 3600, &due, &e) == 0);
	ck_assert_str_eq(due, V2C);
	free(due);
	ck_assert(store_series_set_state(st, V2C, STORE_SERIES_DONE, &e) == 0);
	ck_assert(store_series_next_due(st, T0 + 9999, &due, &e) == 0);
	ck_assert_ptr_null(due);
	ck_assert(store_series_next_time(st, &when, &found, &e) == 0 && !found);
	ck_assert(store_series_members(st, V2C, collect, &sm, &e) == 0);
	ck_assert_int_eq(sm.n, 2);
	ck_assert_int_eq(sm.with_raw, 0);	/* dropped once done */
	free_ids(ids, 2);
	store_close(st);
}
END_TEST

/* --- the series reply ------------------------------------------------------ */

static struct findings one_finding(const char *rule, enum severity sev, size_t line,
				   const char *msg)
{
	struct findings f;

	findings_init(&f);
	ARRAY_GROW(f.v, f.alloc, 1);
	f.v[0].rule = rule;
	f.v[0].severity = sev;
	f.v[0].line = line;
	f.v[0].text = strdup("");
	f.v[0].message = strdup(msg);
	f.v[0].doc = "";
	f.n = 1;
	return f;
}

/* The mail a reply answers, parsed, and the bot's reply settings: what
 * every reply_build_series() test starts from. */
struct lead {
	char *raw;
	struct message m;
	struct patch *p;
	size_t np;
	struct reply_settings rs;
};

static void lead_open(struct lead *l, const char *name)
{
	size_t len;
	struct err e;

	l->raw = th_read_data(name, &len);
	message_init(&l->m);
	ck_assert_msg(message_parse(&l->m, l->raw, len, &e) == 0, "%s: %s", name, e.msg);
	patch_parse(&l->m, &l->p, &l->np);
	reply_settings_init(&l->rs);
	l->rs.from = "tagbot <bot@example.org>";
}

static void lead_close(struct lead *l)
{
	patches_free(l->p, l->np);
	message_release(&l->m);
	free(l->raw);
}

START_TEST(test_reply_series)
{
	struct lead l;
	struct err e;
	struct reply r;
	struct findings f1 = one_finding("MISSING_SIGN_OFF", SEV_ERROR, 7, "Add a sign-off."),
			f0, fcheck = one_finding("MISSING_FIXES_TAG", SEV_CHECK, 3, "Below minimum.");
	struct reply_series_part parts[] = {
		{ 0, "locking/mutex: Mark devm_mutex_init() as __must_check", &f0 },
		{ 1, "leds: st1202: Check for error code from devm_mutex_init() call", &f1 },
		{ 2, NULL, NULL },	/* did not arrive */
		{ 3, "third", &fcheck },	/* only a finding below min_severity */
	};

	findings_init(&f0);
	lead_open(&l, "series/series-v2-cover.eml");
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 4, 3 },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert(strstr(r.raw, "\r\nIn-Reply-To: <" V2C ">\r\n"));
	ck_assert(strstr(r.raw, "Subject: Re: [PATCH v2 0/2] locking/mutex"));
	ck_assert(strstr(r.raw, "X-Tagbot-Rules: MISSING_SIGN_OFF\r\n"));
	ck_assert(strstr(r.raw, "and found 1 thing to look at, patch by patch:"));
	ck_assert(!strstr(r.raw, "Cover letter (0/3)"));	/* nothing to report: counted */
	ck_assert(strstr(r.raw, "Patch 1/3:\r\n    leds: st1202"));
	ck_assert(strstr(r.raw, "1. MISSING_SIGN_OFF (error), line 7:"));
	ck_assert(strstr(r.raw, "\r\nPatch 2/3 was not on the list; not checked.\r\n"));
	ck_assert(!strstr(r.raw, "Patch 2/3:"));
	ck_assert(!strstr(r.raw, "Patch 3/3"));
	/* the cover; not 3/3, whose finding is below min_severity: left out */
	ck_assert(strstr(r.raw, "The other 1 part had nothing to look at."));
	ck_assert(!strstr(r.raw, "MISSING_FIXES_TAG"));
	ck_assert_int_eq(r.nfindings, 1);
	ck_assert_str_eq(r.rcpt[0], "linux@weissschuh.net");
	reply_release(&r);
	/* nothing at or above min_severity anywhere: no reply */
	parts[1].findings = &f0;
	ck_assert_int_eq(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 4, 3 },
					    &l.rs, T0, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	reply_release(&r);
	findings_release(&f1);
	findings_release(&fcheck);
	lead_close(&l);
}
END_TEST

/* Replies a rate limit held for one recipient, folded (REPLY_HELD): the
 * patches by subject, no n/m and no "series", and why they come late. */
START_TEST(test_reply_held_fold)
{
	struct lead l;
	struct err e;
	struct reply r;
	struct findings f1 = one_finding("MISSING_SIGN_OFF", SEV_ERROR, 7, "Add a sign-off."),
			f2 = one_finding("BAD_FIXES_TAG", SEV_WARNING, 9, "Twelve digits.");
	struct reply_series_part parts[] = {
		{ 1, "leds: one: first held", &f1 },
		{ 2, "leds: two: second held", &f2 },
	};

	lead_open(&l, "series/series-v2-cover.eml");
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 2, REPLY_HELD },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert(strstr(r.raw, "and found 2 things to look at, patch by patch:"));
	ck_assert(strstr(r.raw, "Patch:\r\n    leds: one: first held"));
	ck_assert(strstr(r.raw, "Patch:\r\n    leds: two: second held"));
	ck_assert(strstr(r.raw, "its rate limit held\r\nthe replies back"));
	ck_assert(!strstr(r.raw, "your series"));
	ck_assert(!strstr(r.raw, "/0"));
	ck_assert_int_eq(r.nfindings, 2);
	reply_release(&r);
	findings_release(&f1);
	findings_release(&f2);
	lead_close(&l);
}
END_TEST

/* One mail with several patches (attachments): patch by patch under the
 * mail's subject, each titled with its own subject and attachment name. */
START_TEST(test_reply_parts)
{
	struct lead l;
	struct err e;
	struct reply r;
	struct findings f0, f1 = one_finding("MISSING_SIGN_OFF", SEV_ERROR, 0, "Add a sign-off.");
	struct reply_series_part parts[] = {
		{ 1, "leds: core: fix one thing (attachment 0001-a.patch)", &f0 },
		{ 2, "leds: core: fix another thing (attachment 0002-b.patch)", &f1 },
	};

	findings_init(&f0);
	lead_open(&l, "mail/submission-three-attached-patches.eml");
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 2, REPLY_PARTS },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert(strstr(r.raw, "the patches of your mail\r\n\r\n    [PATCH 0/3] leds: three fixes, attached"));
	ck_assert(!strstr(r.raw, "fix one thing"));	/* clean: counted, not listed */
	ck_assert(strstr(r.raw, "The other 1 patch had nothing to look at."));
	ck_assert(strstr(r.raw, "Patch:\r\n    leds: core: fix another thing (attachment 0002-b.patch)"));
	ck_assert(strstr(r.raw, "1. MISSING_SIGN_OFF (error):"));
	ck_assert(!strstr(r.raw, "your series"));
	ck_assert(!strstr(r.raw, "held back"));
	ck_assert_int_eq(r.nfindings, 1);
	reply_release(&r);
	findings_release(&f1);
	lead_close(&l);
}
END_TEST

/* Adds a BAD_FIXES_TAG finding quoting text at line to f. */
static void add_fixes(struct findings *f, const char *text, size_t line, enum severity sev)
{
	findings_add(f, "BAD_FIXES_TAG", SEV_WARNING, &(struct line){ text, strlen(text), line },
		     "doc", "Quote the subject.");
	f->v[f->n - 1].severity = sev;
}

/*
 * One item per distinct finding: the same rule and quoted line (its commit
 * id aside) at two lines of patch 1/4 and in patch 3/4 is said once, at
 * its first part, naming the others; a part whose finding was told before
 * (off) is not counted among those with nothing, which are the ones with
 * no finding at all, and says so in a sentence of its own.
 */
START_TEST(test_reply_series_one_item)
{
	struct lead l;
	struct err e;
	struct reply r;
	struct findings none, f1, f2, f3;
	struct reply_series_part parts[] = {
		{ 0, "the cover", &none },
		{ 1, "leds: a: first", &f1 },
		{ 2, "leds: a: second", &f2 },
		{ 3, "leds: a: third", &f3 },
		{ 4, "leds: a: fourth", &none },
	};

	findings_init(&none);
	findings_init(&f1);
	findings_init(&f2);
	findings_init(&f3);
	add_fixes(&f1, "Fixes: 1234567890ab (leds: a: old)", 12, SEV_WARNING);
	add_fixes(&f1, "Fixes:  1234567890AB (leds: a: old)", 14, SEV_WARNING);
	add_fixes(&f2, "Fixes: 1234567890ab (leds: a: old)", 8, SEV_OFF);	/* told */
	add_fixes(&f3, "Fixes: abcdef012345 (leds: a: old)", 9, SEV_WARNING);
	lead_open(&l, "series/series-v2-cover.eml");
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 5, 4 },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.nfindings, 1);
	ck_assert_msg(strstr(r.raw, "and found 1 thing to look at, patch by patch:\r\n\r\n"
			  "Patch 1/4:\r\n    leds: a: first\r\n\r\n"
			  "1. BAD_FIXES_TAG (warning), lines 12, 14, also in patch 3/4 line 9:\r\n"
			  "\r\n| Fixes: 1234567890ab (leds: a: old)\r\n\r\n"
			  "   Quote the subject.\r\n   See: doc; tagbot-rules(7) BAD_FIXES_TAG\r\n\r\n"
			  "Patch 2/4 has only what you were told before; not said again.\r\n\r\n"
			  "The other 2 parts had nothing to look at.\r\n"), "%s", r.raw);
	ck_assert(!strstr(r.raw, "2. "));
	ck_assert(!strstr(r.raw, "Patch 2/4:"));
	ck_assert(!strstr(r.raw, "Patch 3/4"));
	reply_release(&r);
	/* one reported line in the first part, two parts more: wrapped */
	f1.v[1].severity = SEV_OFF;
	f2.v[0].severity = SEV_WARNING;
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 5, 4 },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert_msg(strstr(r.raw, "\r\n1. BAD_FIXES_TAG (warning), line 12, also in patch 2/4 line 8, patch\r\n"
			  "   3/4 line 9:\r\n"), "%s", r.raw);
	ck_assert(strstr(r.raw, "The other 2 parts had nothing to look at."));
	reply_release(&r);
	findings_release(&f1);
	findings_release(&f2);
	findings_release(&f3);
	lead_close(&l);
}
END_TEST

/*
 * A rule told per person is one item only where it says the same: the
 * patches sent for two authors are two items, each naming its author and
 * only its own parts.  The parts that never came are one sentence, runs as
 * ranges.
 */
START_TEST(test_reply_series_per_person)
{
	struct lead l;
	struct err e;
	struct reply r;
	struct findings none,
		fa = one_finding("SUBMITTER_SIGN_OFF", SEV_WARNING, 0, "You sent this patch by Ann."),
		fb = one_finding("SUBMITTER_SIGN_OFF", SEV_WARNING, 0, "You sent this patch by Bob."),
		fb2 = one_finding("SUBMITTER_SIGN_OFF", SEV_WARNING, 0, "You sent this patch by  BOB.");
	struct reply_series_part parts[] = {
		{ 0, "the cover", &none },
		{ 1, "leds: a: first", &fa },
		{ 2, NULL, NULL },
		{ 3, NULL, NULL },
		{ 4, NULL, NULL },
		{ 5, "leds: a: fifth", &fb },
		{ 6, NULL, NULL },
		{ 7, NULL, NULL },
		{ 8, "leds: a: eighth", &fb2 },	/* two missing: named each */
		{ 9, NULL, NULL },
	};

	findings_init(&none);
	lead_open(&l, "series/series-v2-cover.eml");
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts, 10, 9 },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.nfindings, 2);
	ck_assert_msg(strstr(r.raw, "Patch 1/9:\r\n    leds: a: first\r\n\r\n"
			  "1. SUBMITTER_SIGN_OFF (warning):\r\n\r\n"
			  "   You sent this patch by Ann.\r\n"), "%s", r.raw);
	ck_assert_msg(strstr(r.raw, "Patch 5/9:\r\n    leds: a: fifth\r\n\r\n"
			  "2. SUBMITTER_SIGN_OFF (warning), also in patch 8/9:\r\n\r\n"
			  "   You sent this patch by Bob.\r\n"), "%s", r.raw);
	ck_assert_msg(strstr(r.raw, "\r\nPatches 2/9 to 4/9, 6/9, 7/9 and 9/9 were not on the list; "
			  "not checked.\r\n\r\nThe other 1 part had nothing"), "%s", r.raw);
	ck_assert(!strstr(r.raw, "arrive"));
	reply_release(&r);
	/* two missing alone: "and" between them */
	ck_assert_msg(reply_build_series(&r, &(struct reply_series){ &l.p[0], parts + 5, 3, 9 },
					 &l.rs, T0, &e) == 0, "%s", e.msg);
	ck_assert_msg(strstr(r.raw, "\r\nPatches 6/9 and 7/9 were not on the list; not checked.\r\n"),
		      "%s", r.raw);
	reply_release(&r);
	findings_release(&fa);
	findings_release(&fb);
	findings_release(&fb2);
	lead_close(&l);
}
END_TEST

/* The series reply is queued once: a second flush of the same lead (a
 * restart that lost the done mark, a merged series) queues nothing. */
START_TEST(test_queue_once)
{
	static const char *const files[] = { "series/series-v2-cover.eml", "series/series-v2-1.eml" };
	struct store *st = th_store_open();
	struct store_message m = { .msgid = V2C, .source = "maildir:x", .folder = "",
				   .kind = "cover", .decision = STORE_SKIPPED, .why = "series",
				   .time = T0 };
	const char *rcpt[] = { "linux@weissschuh.net" };
	struct store_outgoing out = { .reply_msgid = "r1@bot.org", .parent_msgid = V2C,
				      .envelope_from = "bot@bot.org", .rcpt = rcpt, .nrcpt = 1,
				      .raw = "x", .len = 1 };
	struct store_counts c;
	enum store_enqueue res;
	char *ids[2] = { 0 };
	struct err e;

	arrive(st, files, 2, NULL, ids);
	ck_assert(store_record_message(st, &m, NULL, &e) == 0);
	ck_assert_msg(store_series_queue_reply(st, V2C, &out, T0, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res, STORE_QUEUED);
	out.reply_msgid = "r2@bot.org";
	ck_assert(store_series_queue_reply(st, V2C, &out, T0, &res, &e) == 0);
	ck_assert_int_eq(res, STORE_ALREADY_QUEUED);
	ck_assert(store_counts(st, &c, &e) == 0);
	ck_assert_int_eq(c.queued, 1);
	ck_assert_int_eq(c.replied, 1);	/* the lead's row says replied */
	free_ids(ids, 2);
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, th_scratch_setup, th_scratch_teardown);
	tcase_add_loop_test(tc, test_linked, 0, sizeof(links) / sizeof(links[0]));
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_tag_left_off_limits);
	tcase_add_test(tc, test_deadline_stretch);
	tcase_add_test(tc, test_stray);
	tcase_add_test(tc, test_is_part);
	tcase_add_loop_test(tc, test_complete, 0, sizeof(views) / sizeof(views[0]));
	tcase_add_loop_test(tc, test_orders, 0, sizeof(orders) / sizeof(orders[0]));
	tcase_add_test(tc, test_missing_patch);
	tcase_add_test(tc, test_reply_to_other_series);
	tcase_add_test(tc, test_no_cover);
	tcase_add_test(tc, test_unthreaded_window);
	tcase_add_test(tc, test_pending_lifecycle);
	tcase_add_test(tc, test_reply_series);
	tcase_add_test(tc, test_reply_series_one_item);
	tcase_add_test(tc, test_reply_series_per_person);
	tcase_add_test(tc, test_reply_held_fold);
	tcase_add_test(tc, test_reply_parts);
	tcase_add_test(tc, test_queue_once);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
