#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* Only to reach below the API: to fake a database of schema version 1. */
#include <sqlite3.h>

#include "lib/buf.h"
#include "config/config.h"
#include "mail/context.h"
#include "transport/lookup.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "store/store.h"
#include "testhelp.h"
#include "daemon/cachestore.h"
#include "daemon/linkstore.h"

/* --- which lines hold a link ------------------------------------------- */

static const struct {
	const char *line;
	const char *url;	/* NULL: no link */
	bool is_link;
} link_cases[] = {
	{ "Link: https://lore.kernel.org/r/a@b", "https://lore.kernel.org/r/a@b", true },
	{ "Closes: https://x.org/bug/1 [1]", "https://x.org/bug/1", false },
	{ "Link: https://x.org/y[1]", "https://x.org/y", true },
	{ "Link: https://x.org/y(v2)", "https://x.org/y", true },
	{ "Link: https://x.org/wiki/A_(b)", "https://x.org/wiki/A_(b)", true },
	{ "Link: https://x.org/y # v1", "https://x.org/y", true },
	{ "link: HTTP://x.org/", "HTTP://x.org/", true },
	{ "Link : https://x.org/z", "https://x.org/z", true },
	{ "Link:\thttps://x.org/t\t", "https://x.org/t", true },
	{ "Link: <https://x.org/y>", NULL, false },
	{ "Link: lore.kernel.org/r/a@b", NULL, false },
	{ "Link: a@b", NULL, false },
	{ "Link: http://", NULL, false },
	{ "Link:", NULL, false },
	{ "Linked: https://x.org/", NULL, false },
	{ " Link: https://x.org/", NULL, false },
	{ "BugLink: https://x.org/", NULL, false },
	{ "See https://x.org/", NULL, false },
};

START_TEST(test_link_line)
{
	const char *s = link_cases[_i].line, *url = NULL;
	struct line l = { s, strlen(s), 1 };
	size_t n = 0;
	bool is_link = false, got = lookup_link_line(&l, &url, &n, &is_link);

	ck_assert_msg(got == (link_cases[_i].url != NULL), "%s", s);
	if (!got)
		return;
	ck_assert_uint_eq(n, strlen(link_cases[_i].url));
	ck_assert_msg(!memcmp(url, link_cases[_i].url, n), "%s -> %.*s", s, (int)n, url);
	ck_assert(is_link == link_cases[_i].is_link);
}
END_TEST

/* --- the archive's URLs -------------------------------------------------- */

static const struct {
	const char *base, *msgid, *suffix, *want;
} url_cases[] = {
	{ "https://lore.kernel.org/all/", "20250101-x-v2-1-abc@kernel.org", "/raw",
	  "https://lore.kernel.org/all/20250101-x-v2-1-abc@kernel.org/raw" },
	{ "https://lore.kernel.org/all", "a@b", "/t.atom", "https://lore.kernel.org/all/a@b/t.atom" },
	{ "http://h/", "a/b%c@d", "/raw", "http://h/a%2Fb%25c@d/raw" },
	{ "http://h/", "x+y=z$!~*'(),;:@q.-_", "", "http://h/x+y=z$!~*'(),;:@q.-_" },
	{ "http://h/", "a b?c#d@e", "/", "http://h/a%20b%3Fc%23d@e/" },
	{ "http://h/", "\xc3\xa9t\xc3\xa9@x", "", "http://h/%C3%A9t%C3%A9@x" },
	{ "http://h/", "<a>\"@\\x", "", "http://h/%3Ca%3E%22@%5Cx" },
};

START_TEST(test_archive_url)
{
	char *u = lookup_archive_url(url_cases[_i].base, url_cases[_i].msgid, url_cases[_i].suffix);

	ck_assert_str_eq(u, url_cases[_i].want);
	free(u);
}
END_TEST

/* --- the thread ---------------------------------------------------------- */

/* Real public-inbox answers (tests/integration/lookup.sh builds the inbox). */
START_TEST(test_atom_real_feeds)
{
	size_t n;
	char *acked = th_read_data("lookup/lookup-thread-acked.atom", &n);
	int entries;

	/* Krzysztof's patch and Lee's Acked-by. */
	ck_assert_int_eq(lookup_atom_others(acked, n, "krzysztof.kozlowski@linaro.org", "", &entries), 1);
	ck_assert_int_eq(entries, 2);
	/* Compared as addresses: case and +sub do not make another person. */
	ck_assert_int_eq(lookup_atom_others(acked, n, "Krzysztof.Kozlowski+dt@LINARO.org", NULL, NULL), 1);
	ck_assert_int_eq(lookup_atom_others(acked, n, "lee@kernel.org", NULL, NULL), 1);
	ck_assert_int_eq(lookup_atom_others(acked, n, "someone@else.org", NULL, NULL), 2);
	free(acked);

	acked = th_read_data("lookup/lookup-thread-unanswered.atom", &n);
	ck_assert_int_eq(lookup_atom_others(acked, n, "eajames@linux.ibm.com", NULL, &entries), 0);
	ck_assert_int_eq(entries, 1);
	free(acked);
}
END_TEST

#define FEED "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">"
#define ENTRY(email) "<entry><author><name>N</name><email>" email "</email></author><title>t</title></entry>"

static const struct {
	const char *name, *xml, *author, *sender;
	int others, entries;
} atom_cases[] = {
	{ "no feed", "<html>challenge</html>", "a@x.org", NULL, -1, 0 },
	{ "empty feed", FEED "</feed>", "a@x.org", NULL, 0, 0 },
	{ "author only", FEED ENTRY("a@x.org") ENTRY("a@x.org") "</feed>", "a@x.org", NULL, 0, 2 },
	{ "a reply", FEED ENTRY("a@x.org") ENTRY("m@y.org") "</feed>", "a@x.org", NULL, 1, 2 },
	{ "relay sender is own", FEED ENTRY("devnull+a.x.org@kernel.org") ENTRY("a@x.org") "</feed>",
	  "a@x.org", "devnull+a.x.org@kernel.org", 0, 2 },
	{ "entity in the address", FEED ENTRY("a&#64;x.org") ENTRY("o&amp;b@x.org") "</feed>",
	  "a@x.org", NULL, 1, 2 },
	{ "entry without email is someone else",
	  FEED ENTRY("a@x.org") "<entry><author><name>anon</name></author></entry></feed>",
	  "a@x.org", NULL, 1, 2 },
	{ "cut inside the second author", FEED ENTRY("a@x.org") "<entry><author><email>m@y",
	  "a@x.org", NULL, 1, 2 },
	{ "unclosed entries", FEED "<entry><author><email>a@x.org</email></author>"
	  "<entry><author><email>m@y.org</email>", "a@x.org", NULL, 1, 2 },
	{ "no author known", FEED ENTRY("a@x.org") "</feed>", NULL, NULL, 1, 1 },
};

START_TEST(test_atom_cases)
{
	const char *x = atom_cases[_i].xml;
	int entries = -5;
	int got = lookup_atom_others(x, strlen(x), atom_cases[_i].author, atom_cases[_i].sender,
				     &entries);

	ck_assert_msg(got == atom_cases[_i].others, "%s: %d", atom_cases[_i].name, got);
	ck_assert_msg(entries == atom_cases[_i].entries, "%s: %d entries", atom_cases[_i].name,
		      entries);
}
END_TEST

/* Only the n bytes given are read: a feed cut before its reply has none. */
START_TEST(test_atom_bounded)
{
	static const char x[] = FEED ENTRY("a@x.org") ENTRY("m@y.org");
	size_t cut = strlen(FEED ENTRY("a@x.org"));

	ck_assert_int_eq(lookup_atom_others(x, cut, "a@x.org", NULL, NULL), 0);
	ck_assert_int_eq(lookup_atom_others(x, cut + 20, "a@x.org", NULL, NULL), 1);
	ck_assert_int_eq(lookup_atom_others(x, 3, "a@x.org", NULL, NULL), -1);
}
END_TEST

/* --- the message --------------------------------------------------------- */

static void result_init(struct lookup_result *r, const char *msgid)
{
	memset(r, 0, sizeof(*r));
	r->msgid = msgid ? xstrdup(msgid) : NULL;
	r->url = xstrdup("https://lore.kernel.org/r/x");
	r->others = -1;
}

static void result_free(struct lookup_result *r)
{
	lookup_result_release(r);
}

static const struct {
	const char *file, *msgid;
	int rc;
	bool is_patch;
	int version;
	const char *subject, *author;
} msg_cases[] = {
	{ "lookup/lookup-raw-unanswered.mbox", "20250130194627.280618-1-eajames@linux.ibm.com", 0, true, 1,
	  "leds: Ensure hardware blinking turns off when requested", "eajames@linux.ibm.com" },
	{ "lookup/lookup-v2-links-v1.eml", "20250725100241.120106-2-krzysztof.kozlowski@LINARO.ORG", 0, true,
	  2, "dt-bindings: Correct indentation and style in DTS example",
	  "krzysztof.kozlowski@linaro.org" },
	{ "lookup/lookup-maintainer-reply.eml", "20250109092429.GC6763@google.com", 0, false, 1,
	  "dt-bindings: Correct indentation and style in DTS example", "lee@kernel.org" },
	{ "lookup/lookup-bug-report.eml", "cc399d9a-1470-494a-a9f9-8f0516a58800@posteo.net", 0, false, 1,
	  "/sys/class/leds missing since kernel 6.18 on PC Engines APU",
	  "ogerhabenschichten@posteo.net" },
	/* The archive answered with another message. */
	{ "lookup/lookup-raw-unanswered.mbox", "20250130194627.280618-2-eajames@linux.ibm.com", -1, false, 0, NULL, NULL },
	/* Local parts compare exactly. */
	{ "lookup/lookup-raw-unanswered.mbox", "20250130194627.280618-1-EAJAMES@linux.ibm.com", -1, false, 0, NULL, NULL },
};

START_TEST(test_parse_message)
{
	struct lookup_result r;
	size_t n;
	char *raw = th_read_data(msg_cases[_i].file, &n);
	struct err e;

	result_init(&r, msg_cases[_i].msgid);
	ck_assert_int_eq(lookup_parse_message(&r, raw, n, &e), msg_cases[_i].rc);
	if (msg_cases[_i].rc == 0) {
		ck_assert(r.is_patch == msg_cases[_i].is_patch);
		ck_assert_int_eq(r.version, msg_cases[_i].version);
		ck_assert_str_eq(r.subject, msg_cases[_i].subject);
		ck_assert_str_eq(r.author, msg_cases[_i].author);
	}
	result_free(&r);
	free(raw);
}
END_TEST

START_TEST(test_parse_message_first_of_two)
{
	struct lookup_result r;
	size_t n;
	char *raw = th_read_data("lookup/lookup-raw-unanswered.mbox", &n);
	struct buf b;
	struct err e;

	buf_init(&b, 0);
	buf_add(&b, raw, n);
	buf_addstr(&b, "\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Other <o@x.org>\n"
		   "Subject: Re: something else\nMessage-ID: <o@x.org>\n\nhi\n");
	result_init(&r, "20250130194627.280618-1-eajames@linux.ibm.com");
	ck_assert_int_eq(lookup_parse_message(&r, b.data, b.len, &e), 0);
	ck_assert_str_eq(r.author, "eajames@linux.ibm.com");
	ck_assert(r.is_patch);
	result_free(&r);
	buf_release(&b);
	free(raw);
}
END_TEST

START_TEST(test_parse_message_garbage)
{
	char junk[4096];
	struct lookup_result r;
	struct err e;

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7 + 3);
	result_init(&r, "a@b");
	ck_assert_int_eq(lookup_parse_message(&r, junk, sizeof(junk), &e), -1);
	ck_assert_int_eq(lookup_parse_message(&r, "", 0, &e), -1);
	ck_assert_int_eq(lookup_parse_message(&r, "<html><body>Making sure you're not a bot",
					      40, &e), -1);
	result_free(&r);
}
END_TEST

/* --- classifying an answer ------------------------------------------------ */

static const struct {
	enum lookup_net net;
	long code;
	enum lookup_status want;
} classify_cases[] = {
	{ LOOKUP_NET_OK, 200, LOOKUP_ALIVE },
	{ LOOKUP_NET_OK, 301, LOOKUP_ALIVE },	/* the redirect limit was hit: it answered */
	{ LOOKUP_NET_OK, 403, LOOKUP_ALIVE },
	{ LOOKUP_NET_OK, 404, LOOKUP_DEAD },
	{ LOOKUP_NET_OK, 410, LOOKUP_DEAD },
	{ LOOKUP_NET_OK, 429, LOOKUP_UNKNOWN },
	{ LOOKUP_NET_OK, 500, LOOKUP_UNKNOWN },
	{ LOOKUP_NET_OK, 503, LOOKUP_UNKNOWN },
	{ LOOKUP_NET_OK, 0, LOOKUP_UNKNOWN },
	{ LOOKUP_NET_NO_HOST, 0, LOOKUP_DEAD },
	{ LOOKUP_NET_FAILED, 0, LOOKUP_UNKNOWN },	/* a timeout */
	{ LOOKUP_NET_FAILED, 404, LOOKUP_UNKNOWN },
};

START_TEST(test_classify)
{
	ck_assert_int_eq(lookup_classify(classify_cases[_i].net, classify_cases[_i].code),
			 classify_cases[_i].want);
}
END_TEST

/* --- the cache ------------------------------------------------------------ */

START_TEST(test_encode_decode)
{
	struct lookup_result r, back;
	char *blob;

	result_init(&r, "a@b");
	r.http_code = 200;
	r.is_patch = true;
	r.version = 3;
	r.others = 0;
	r.subject = xstrdup("leds: x: a subject\nX-Injected: yes");
	r.author = xstrdup("a@x.org");
	r.sender = xstrdup("");
	blob = lookup_result_encode(&r);
	result_init(&back, "a@b");
	ck_assert_int_eq(lookup_result_decode(&back, blob, strlen(blob)), 0);
	ck_assert_int_eq(back.http_code, 200);
	ck_assert(back.is_patch);
	ck_assert_int_eq(back.version, 3);
	ck_assert_int_eq(back.others, 0);
	/* A line break cannot smuggle a second field. */
	ck_assert_str_eq(back.subject, "leds: x: a subject X-Injected: yes");
	ck_assert_str_eq(back.author, "a@x.org");
	ck_assert_str_eq(back.sender, "");
	free(blob);
	result_free(&r);
	result_free(&back);
}
END_TEST

static const struct {
	const char *blob;
	int rc;
} decode_cases[] = {
	{ "", 0 },
	{ "http=404\n", 0 },
	{ "http=404\nfuture=whatever\n", 0 },	/* a newer tagbot's field */
	{ "http=404", 0 },
	{ "garbage", -1 },
	{ "=x\n", -1 },
	{ "http=abc\n", -1 },
	{ "http=99999\n", -1 },
	{ "patch=2\n", -1 },
	{ "others=-2\n", -1 },
	{ "version=99999999999999999999\n", -1 },
};

START_TEST(test_decode_cases)
{
	struct lookup_result r;

	result_init(&r, NULL);
	ck_assert_int_eq(lookup_result_decode(&r, decode_cases[_i].blob, strlen(decode_cases[_i].blob)),
			 decode_cases[_i].rc);
	result_free(&r);
}
END_TEST

static const struct {
	time_t fetched, now;
	int ttl;
	bool fresh;
} fresh_cases[] = {
	{ 1000, 1000, 60, true },
	{ 1000, 1059, 60, true },
	{ 1000, 1060, 60, false },
	{ 1000, 5000, 60, false },
	{ 1000, 999, 60, false },	/* the clock went back: fetch again */
	{ 1000, 1000, 0, false },	/* ttl 0: no cache */
};

START_TEST(test_fresh)
{
	ck_assert(lookup_cache_fresh(fresh_cases[_i].fetched, fresh_cases[_i].now,
				     fresh_cases[_i].ttl) == fresh_cases[_i].fresh);
}
END_TEST

static void put(struct store *st, const char *key, int status, time_t at, const char *data)
{
	struct store_cache_entry ce = { status, at, (char *)data, strlen(data) };
	struct err e;

	ck_assert_msg(store_cache_put(st, key, &ce, &e) == 0, "put: %s", e.msg);
}

START_TEST(test_store_cache)
{
	struct store *st = th_store_open();
	struct store_cache_entry ce;
	bool found = true;
	long deleted = -1;
	struct err e;

	ck_assert_int_eq(store_cache_get(st, "http://x/a", &ce, &found, &e), 0);
	ck_assert(!found);
	put(st, "http://x/a", LOOKUP_DEAD, 1000, "http=404\n");
	put(st, "http://x/b", LOOKUP_ALIVE, 2000, "http=200\n");
	put(st, "http://x/a", LOOKUP_ALIVE, 3000, "http=200\nothers=2\n");	/* replaced */
	ck_assert_int_eq(store_cache_get(st, "http://x/a", &ce, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(ce.status, LOOKUP_ALIVE);
	ck_assert_int_eq(ce.fetched_at, 3000);
	ck_assert_str_eq(ce.data, "http=200\nothers=2\n");
	free(ce.data);
	ck_assert_int_eq(store_cache_prune(st, 2500, &deleted, &e), 0);
	ck_assert_int_eq(deleted, 1);
	ck_assert_int_eq(store_cache_get(st, "http://x/b", &ce, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_cache_get(st, "", &ce, &found, &e), -1);
	store_close(st);
}
END_TEST

static void drop_newer_tables(sqlite3 *db)
{
	static const char *const v1[] = { "messages", "checkpoints", "outbox" };
	char *names[32];
	size_t n = 0;
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'",
					    -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && n < ARRAY_SIZE(names))
		names[n++] = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	for (size_t i = 0; i < n; i++) {
		bool keep = false;
		char sql[128];

		for (size_t k = 0; k < ARRAY_SIZE(v1); k++)
			keep |= !strcmp(names[i], v1[k]);
		snprintf(sql, sizeof(sql), "DROP TABLE \"%s\"", names[i]);
		if (!keep)
			ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		free(names[i]);
	}
}

/* A database of schema version 1 (before the cache) is migrated, and what
 * it held is kept. */
START_TEST(test_store_migrates_from_1)
{
	struct store_message m = {
		.msgid = "<old@x.org>", .source = "maildir:in", .folder = "", .kind = "patch",
		.decision = STORE_CLEAN, .time = 1,
	};
	struct store *st = th_store_open();
	sqlite3 *db;
	bool seen = false;
	struct err e;

	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	/* Every table but schema 1's (messages, checkpoints, outbox) goes. */
	drop_newer_tables(db);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	st = th_store_open();
	ck_assert_int_eq(store_seen(st, "old@x.org", &seen, &e), 0);
	ck_assert(seen);
	put(st, "http://x/a", LOOKUP_DEAD, 1000, "http=404\n");
	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	{
		sqlite3_stmt *s;
		ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int(s, 0), STORE_SCHEMA_VERSION);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
}
END_TEST

/* --- the rules, fed results by hand ------------------------------------- */

struct checked {
	char *raw;
	struct message m;
	struct patch *p;
	size_t np;
	struct rule_settings s;
	struct lookup_results res;
	struct findings fs;
};

static void checked_open(struct checked *c, const char *file, const char *raw)
{
	struct err e;

	memset(c, 0, sizeof(*c));
	c->raw = file ? th_read_data(file, NULL) : xstrdup(raw);
	message_init(&c->m);
	ck_assert_msg(message_parse(&c->m, c->raw, strlen(c->raw), &e) == 0, "%s", e.msg);
	patch_parse(&c->m, &c->p, &c->np);
	rule_settings_init(&c->s);
	c->s.lookups = true;
	lookup_results_init(&c->res);
	findings_init(&c->fs);
}

static void checked_close(struct checked *c)
{
	findings_release(&c->fs);
	lookup_results_release(&c->res);
	rule_settings_release(&c->s);
	patches_free(c->p, c->np);
	message_release(&c->m);
	free(c->raw);
}

/* A result as lookup_prefetch() would leave it. */
static struct lookup_result *add(struct checked *c, const char *url, const char *msgid,
				 enum lookup_status st, long code)
{
	struct lookup_result *r;

	ARRAY_GROW(c->res.v, c->res.alloc, c->res.n + 1);
	r = &c->res.v[c->res.n++];
	memset(r, 0, sizeof(*r));
	r->url = xstrdup(url);
	r->msgid = msgid ? xstrdup(msgid) : NULL;
	r->status = st;
	r->http_code = code;
	r->version = 1;
	r->others = -1;
	r->subject = xstrdup("");
	r->author = xstrdup("");
	r->sender = xstrdup("");
	return r;
}

static void posting(struct lookup_result *r, int version, const char *subject, int others)
{
	r->is_patch = true;
	r->version = version;
	free(r->subject);
	r->subject = xstrdup(subject);
	r->others = others;
}

static void run(struct checked *c)
{
	rules_run_lookups(&c->p[0], &c->s, &c->res, &c->fs);
}

/* The finding of rule on the line holding needle, or NULL. */
static const struct finding *on_line(const struct checked *c, const char *rule, const char *needle)
{
	for (size_t i = 0; i < c->fs.n; i++)
		if (!strcmp(c->fs.v[i].rule, rule) && strstr(c->fs.v[i].text, needle))
			return &c->fs.v[i];
	return NULL;
}

#define U_UNANSWERED "https://lore.kernel.org/r/20250130194627.280618-1-eajames@linux.ibm.com"
#define M_UNANSWERED "20250130194627.280618-1-eajames@linux.ibm.com"
#define U_ACKED "https://lore.kernel.org/all/20250107131456.247610-1-krzysztof.kozlowski@linaro.org/"
#define M_ACKED "20250107131456.247610-1-krzysztof.kozlowski@linaro.org"
#define U_BUG "https://lore.kernel.org/linux-leds/cc399d9a-1470-494a-a9f9-8f0516a58800@posteo.net/"
#define U_MISSING "https://lore.kernel.org/r/20251224-no-such-posting-v1-1-0123456789ab@example.org"

START_TEST(test_rules_archive)
{
	struct checked c;

	checked_open(&c, "lookup/lookup-links-archive.eml", NULL);
	posting(add(&c, U_UNANSWERED, M_UNANSWERED, LOOKUP_ALIVE, 200), 1,
		"leds: Ensure hardware blinking turns off when requested", 0);
	posting(add(&c, U_ACKED, M_ACKED, LOOKUP_ALIVE, 200), 1,
		"dt-bindings: Correct indentation and style in DTS example", 1);
	add(&c, U_BUG, "cc399d9a-1470-494a-a9f9-8f0516a58800@posteo.net", LOOKUP_ALIVE, 200)->others = 0;
	add(&c, U_MISSING, "20251224-no-such-posting-v1-1-0123456789ab@example.org", LOOKUP_DEAD, 404);
	run(&c);
	ck_assert_msg(on_line(&c, "LINK_NO_NEW_INFO", M_UNANSWERED), "%s", th_dump(&c.fs));
	ck_assert_msg(on_line(&c, "LINK_DEAD", "no-such-posting"), "%s", th_dump(&c.fs));
	ck_assert_msg(strstr(on_line(&c, "LINK_DEAD", "no-such-posting")->message, "404"), "message");
	ck_assert_uint_eq(th_count(&c.fs, "LINK_NO_NEW_INFO"), 1);
	ck_assert_uint_eq(th_count(&c.fs, "LINK_DEAD"), 1);
	ck_assert_uint_eq(th_count(&c.fs, "LINK_TO_PREVIOUS_VERSION"), 0);
	checked_close(&c);
}
END_TEST

/* What must never become a finding. */
START_TEST(test_rules_no_finding)
{
	static const struct {
		const char *name;
		enum lookup_status st;
		int others;
		bool lookups_on;
	} cases[] = {
		{ "thread unknown", LOOKUP_ALIVE, -1, true },
		{ "lookup failed", LOOKUP_UNKNOWN, 0, true },
		{ "replied", LOOKUP_ALIVE, 3, true },
		{ "lookups off", LOOKUP_ALIVE, 0, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct checked c;

		checked_open(&c, "lookup/lookup-links-archive.eml", NULL);
		c.s.lookups = cases[i].lookups_on;
		posting(add(&c, U_UNANSWERED, M_UNANSWERED, cases[i].st, 200), 1, "x", cases[i].others);
		add(&c, U_MISSING, "x@y", cases[i].lookups_on ? LOOKUP_UNKNOWN : LOOKUP_DEAD, 404);
		run(&c);
		ck_assert_msg(th_count(&c.fs, "LINK_NO_NEW_INFO") == 0, "%s: %s", cases[i].name,
			      th_dump(&c.fs));
		ck_assert_msg(th_count(&c.fs, "LINK_DEAD") == 0, "%s", cases[i].name);
		checked_close(&c);
	}
}
END_TEST

START_TEST(test_rules_severity_off)
{
	struct checked c;

	checked_open(&c, "lookup/lookup-links-archive.eml", NULL);
	c.s.severity[R_LINK_NO_NEW_INFO] = SEV_OFF;
	c.s.severity[R_LINK_DEAD] = SEV_CHECK;
	posting(add(&c, U_UNANSWERED, M_UNANSWERED, LOOKUP_ALIVE, 200), 1, "x", 0);
	add(&c, U_MISSING, "x@y", LOOKUP_DEAD, 410);
	run(&c);
	ck_assert_uint_eq(th_count(&c.fs, "LINK_NO_NEW_INFO"), 0);
	ck_assert_uint_eq(th_count(&c.fs, "LINK_DEAD"), 1);
	ck_assert_int_eq(on_line(&c, "LINK_DEAD", "no-such")->severity, SEV_CHECK);
	checked_close(&c);
}
END_TEST

#define U_V1 "https://lore.kernel.org/r/20250107131456.247610-1-krzysztof.kozlowski@linaro.org"
#define V1_SUBJECT "dt-bindings: Correct indentation and style in DTS example"

/* The real v2 links its v1 with an ID that says nothing of versions. */
START_TEST(test_rules_previous_version)
{
	static const struct {
		int version;
		const char *subject;
		int others;
		const char *want;	/* rule on the Link:, NULL none */
	} cases[] = {
		{ 1, V1_SUBJECT, 4, "LINK_TO_PREVIOUS_VERSION" },
		{ 1, "DT-BINDINGS:  correct indentation and style in DTS example ", 4,
		  "LINK_TO_PREVIOUS_VERSION" },
		{ 1, V1_SUBJECT, 0, "LINK_TO_PREVIOUS_VERSION" },	/* not both */
		{ 2, V1_SUBJECT, 4, NULL },			/* same version: no */
		{ 3, V1_SUBJECT, 4, NULL },
		{ 1, "dt-bindings: something else", 4, NULL },
		{ 1, "dt-bindings: something else", 0, "LINK_NO_NEW_INFO" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct checked c;
		const char *other = cases[i].want && !strcmp(cases[i].want, "LINK_NO_NEW_INFO")
				    ? "LINK_TO_PREVIOUS_VERSION" : "LINK_NO_NEW_INFO";

		checked_open(&c, "lookup/lookup-v2-links-v1.eml", NULL);
		posting(add(&c, U_V1, M_ACKED, LOOKUP_ALIVE, 200), cases[i].version, cases[i].subject,
			cases[i].others);
		run(&c);
		if (cases[i].want)
			ck_assert_msg(on_line(&c, cases[i].want, M_ACKED), "case %zu: %s", i,
				      th_dump(&c.fs));
		else
			ck_assert_msg(!on_line(&c, "LINK_TO_PREVIOUS_VERSION", M_ACKED), "case %zu", i);
		ck_assert_msg(!on_line(&c, other, M_ACKED), "case %zu: %s", i, th_dump(&c.fs));
		checked_close(&c);
	}
}
END_TEST

static const char labelled[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH v2] leds: foo: fix the bar\n"
	"Message-ID: <20250105101010.4242-1-ann@example.org>\n"
	"\n"
	"The bar was read from the wrong register.\n"
	"\n"
	"Link: https://lore.kernel.org/r/20241205101010.4242-1-ann@example.org # v1\n"
	"Closes: https://lore.kernel.org/r/20241201101010.1-1-ann@example.org\n"
	"Link: https://lore.kernel.org/r/20250105101010.4242-1-ann@example.org\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/x b/x\n";

/* rules/links.c already said it (a "# v1" label, LINK_TO_SELF): one
 * finding per link; and Closes: is never LINK_NO_NEW_INFO. */
START_TEST(test_rules_one_finding_per_link)
{
	struct checked c;

	checked_open(&c, NULL, labelled);
	posting(add(&c, "https://lore.kernel.org/r/20241205101010.4242-1-ann@example.org",
		    "20241205101010.4242-1-ann@example.org", LOOKUP_ALIVE, 200), 1,
		"leds: foo: fix the bar", 0);
	posting(add(&c, "https://lore.kernel.org/r/20241201101010.1-1-ann@example.org",
		    "20241201101010.1-1-ann@example.org", LOOKUP_ALIVE, 200), 1, "leds: other", 0);
	posting(add(&c, "https://lore.kernel.org/r/20250105101010.4242-1-ann@example.org",
		    "20250105101010.4242-1-ann@example.org", LOOKUP_ALIVE, 200), 2,
		"leds: foo: fix the bar", 0);
	run(&c);
	ck_assert_msg(th_count(&c.fs, "LINK_TO_PREVIOUS_VERSION") == 1, "%s", th_dump(&c.fs));
	ck_assert_msg(th_count(&c.fs, "LINK_TO_SELF") == 1, "%s", th_dump(&c.fs));
	ck_assert_msg(th_count(&c.fs, "LINK_NO_NEW_INFO") == 0, "%s", th_dump(&c.fs));
	checked_close(&c);
}
END_TEST

/* --- prefetch without leaving the machine -------------------------------- */

static const char refusals[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH 2/2] leds: foo: fix the bar\n"
	"Message-ID: <20250105101010.4242-3-ann@example.org>\n"
	"In-Reply-To: <20250105101010.4242-1-ann@example.org>\n"
	"\n"
	"The bar was read from the wrong register.\n"
	"\n"
	"Link: http://127.0.0.1:9/metadata\n"
	"Link: http://10.1.2.3/internal\n"
	"Link: http://[::1]:9/x\n"
	"Link: http://127.0.0.1:9/metadata\n"
	"Link: https://lore.kernel.org/r/20250105101010.4242-1-ann@example.org\n"
	"Link: https://lore.kernel.org/r/20250105101010.4242-3-ann@example.org\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/x b/x\n";

/* A mail cannot make the bot probe its own network, and links to its own
 * thread (which the archive may not have yet) are not asked at all. */
START_TEST(test_prefetch_refuses_local_addresses)
{
	struct lookup_settings ls;
	struct lookup *lk;
	struct checked c;
	struct err e;

	checked_open(&c, NULL, refusals);
	lookup_settings_init(&ls);
	ls.rate = 0;
	ls.timeout = 2;
	ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
	ck_assert_int_eq(lookup_prefetch(lk, &c.p[0], &c.s.archives, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 3);	/* duplicates once, own thread not at all */
	for (size_t i = 0; i < c.res.n; i++)
		ck_assert_msg(c.res.v[i].status == LOOKUP_UNKNOWN, "%s: %s", c.res.v[i].url,
			      lookup_status_name(c.res.v[i].status));
	run(&c);
	ck_assert_uint_eq(th_count(&c.fs, "LINK_DEAD"), 0);
	lookup_free(lk);
	lookup_settings_release(&ls);
	checked_close(&c);
}
END_TEST

static const char unresolvable[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH] leds: foo: fix the bar\n"
	"Message-ID: <20250105101010.4242-1-ann@example.org>\n"
	"\n"
	"The bar was read from the wrong register.\n"
	"\n"
	"Link: https://lore.kernel.org/r/20241205101010.1-1-ann@example.org\n"
	"Closes: http://bugs.example.invalid/42\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/x b/x\n";

/*
 * A host under .invalid never resolves.  It is a dead link while the
 * archive's host resolves (here an address whose port is closed: an
 * answer of sorts); when the archive's does not either, nothing is dead.
 */
START_TEST(test_prefetch_unresolvable)
{
	static const struct {
		const char *archive;
		enum lookup_status link, closes;
	} cases[] = {
		{ "http://127.0.0.1:9/all/", LOOKUP_UNKNOWN, LOOKUP_DEAD },
		{ "http://archive.example.invalid/all/", LOOKUP_UNKNOWN, LOOKUP_UNKNOWN },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lookup_settings ls;
		struct lookup *lk;
		struct checked c;
		struct err e;

		checked_open(&c, NULL, unresolvable);
		lookup_settings_init(&ls);
		ls.archive_url = xstrdup(cases[i].archive);
		ls.rate = 0;
		ls.timeout = 5;
		ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
		ck_assert_int_eq(lookup_prefetch(lk, &c.p[0], &c.s.archives, &c.res, &e), 0);
		ck_assert_uint_eq(c.res.n, 2);
		ck_assert_msg(c.res.v[0].status == cases[i].link, "%s: link %s", cases[i].archive,
			      lookup_status_name(c.res.v[0].status));
		ck_assert_msg(c.res.v[1].status == cases[i].closes, "%s: closes %s", cases[i].archive,
			      lookup_status_name(c.res.v[1].status));
		run(&c);
		ck_assert_uint_eq(th_count(&c.fs, "LINK_DEAD"), cases[i].closes == LOOKUP_DEAD);
		lookup_free(lk);
		lookup_settings_release(&ls);
		checked_close(&c);
	}
}
END_TEST

/* A mail full of links asks about LOOKUP_MAX_URLS of them, no more. */
START_TEST(test_prefetch_capped)
{
	struct lookup_settings ls;
	struct lookup *lk;
	struct checked c;
	struct buf b;
	struct err e;

	buf_init(&b, 0);
	buf_addstr(&b, "From: Ann Author <ann@example.org>\nSubject: [PATCH] leds: x\n"
		   "Message-ID: <1@example.org>\n\nText.\n\n");
	for (int i = 0; i < LOOKUP_MAX_URLS + 8; i++)
		buf_printf(&b, "Link: http://10.0.0.%d/x\n", i + 1);
	buf_addstr(&b, "Signed-off-by: Ann Author <ann@example.org>\n---\ndiff --git a/x b/x\n");
	checked_open(&c, NULL, b.data);
	lookup_settings_init(&ls);
	ls.rate = 0;
	ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
	ck_assert_int_eq(lookup_prefetch(lk, &c.p[0], &c.s.archives, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, LOOKUP_MAX_URLS);
	ck_assert_str_eq(c.res.v[LOOKUP_MAX_URLS - 1].url, "http://10.0.0.32/x");
	ck_assert_ptr_nonnull(lookup_results_find(&c.res, "http://10.0.0.1/x", 17));
	ck_assert_ptr_null(lookup_results_find(&c.res, "http://10.0.0.1/", 16));
	lookup_free(lk);
	lookup_settings_release(&ls);
	checked_close(&c);
	buf_release(&b);
}
END_TEST

START_TEST(test_prefetch_nothing_to_do)
{
	struct lookup_settings ls;
	struct lookup *lk;
	struct checked c;
	struct err e;

	checked_open(&c, "lookup/lookup-patch-unanswered.eml", NULL);
	lookup_settings_init(&ls);
	ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
	ck_assert_int_eq(lookup_prefetch(lk, &c.p[0], &c.s.archives, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 0);
	lookup_free(lk);
	lookup_settings_release(&ls);
	checked_close(&c);
}
END_TEST

/* --- one deadline for the whole set --------------------------------------- */

/* A loopback port that accepts connections (the kernel does) and never
 * answers: nothing calls accept(). */
static int silent_listen(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(ls, 0);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 128), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return ls;
}

/* Mail k: LOOKUP_MAX_URLS links to the silent port, half of them archive
 * links (two transfers each: /raw and /t.atom), half plain URLs. */
static void silent_mail(struct buf *b, int k, int port)
{
	buf_printf(b, "From: Ann Author <ann@example.org>\nSubject: [PATCH] leds: x%d\n"
		   "Message-ID: <%d@example.org>\n\nText.\n\n", k, k);
	for (int i = 0; i < LOOKUP_MAX_URLS; i++)
		if (i % 2)
			buf_printf(b, "Link: http://127.0.0.1:%d/%d/%d\n", port, k, i);
		else
			buf_printf(b, "Link: https://lore.kernel.org/r/%d.%d@example.org\n", k, i);
	buf_addstr(b, "Signed-off-by: Ann Author <ann@example.org>\n---\ndiff --git a/x b/x\n");
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Three mails of LOOKUP_MAX_URLS links each against a server that never
 * answers, at most 4 transfers at once: 144 transfers in 36 rounds.  With a
 * timeout per transfer that is 72 s; the set shares one deadline, so it
 * ends after about one timeout (2 s), every link "unknown", no finding.
 * The bound is no speed measure: it tells one timeout from many.
 */
START_TEST(test_fetch_one_deadline)
{
	struct lookup_settings ls;
	struct lookup_request rq[3];
	struct checked c[3];
	struct lookup *lk;
	struct timespec t0;
	struct err e;
	double took;
	int port, sock = silent_listen(&port);
	char archive[64];

	snprintf(archive, sizeof(archive), "http://127.0.0.1:%d/all/", port);
	for (int k = 0; k < 3; k++) {
		struct buf b;

		buf_init(&b, 0);
		silent_mail(&b, k, port);
		checked_open(&c[k], NULL, b.data);
		buf_release(&b);
		rq[k] = (struct lookup_request){ c[k].p, c[k].np, &c[k].res };
	}
	lookup_settings_init(&ls);
	ls.archive_url = xstrdup(archive);
	ls.timeout = 2;
	ls.concurrency = 4;
	ls.rate = 0;
	ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(lookup_fetch(lk, rq, 3, &c[0].s.archives, &e), 0);
	took = seconds_since(&t0);
	ck_assert_msg(took < 6.0, "144 stuck transfers took %.1f s, not about one timeout (2 s)",
		      took);
	for (int k = 0; k < 3; k++) {
		ck_assert_uint_eq(c[k].res.n, LOOKUP_MAX_URLS);
		for (size_t i = 0; i < c[k].res.n; i++)
			ck_assert_msg(c[k].res.v[i].status == LOOKUP_UNKNOWN, "%s: %s",
				      c[k].res.v[i].url, lookup_status_name(c[k].res.v[i].status));
		run(&c[k]);
		ck_assert_uint_eq(th_count(&c[k].fs, "LINK_DEAD"), 0);
		ck_assert_uint_eq(th_count(&c[k].fs, "LINK_NO_NEW_INFO"), 0);
		checked_close(&c[k]);
	}
	lookup_free(lk);
	lookup_settings_release(&ls);
	close(sock);
}
END_TEST

/* An archive URL with a user name or password is refused, unquoted: every
 * URL fetched (and logged) starts with it. */
START_TEST(test_new_refuses_credentials)
{
	static const char *const urls[] = {
		"https://bot:hunter2@lore.example.org/all/",
		"https://hunter2@lore.example.org/all/",
		"https://:hunter2@lore.example.org/all/",
	};
	struct lookup_settings ls;
	struct lookup *lk;
	struct err e;

	for (size_t i = 0; i < ARRAY_SIZE(urls); i++) {
		lookup_settings_init(&ls);
		ls.archive_url = xstrdup(urls[i]);
		err_init(&e);
		ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), -1);
		ck_assert_ptr_null(lk);
		ck_assert_int_eq(e.cls, ERR_FINAL);
		ck_assert_str_eq(e.msg, "lookup: the archive URL must not hold a user name or password");
		lookup_settings_release(&ls);
	}
	lookup_settings_init(&ls);
	ls.archive_url = xstrdup("https://lore.example.org/all/?q=a@b");
	ck_assert_msg(lookup_new(&lk, &ls, NULL, &e) == 0, "%s", e.msg);
	lookup_free(lk);
	lookup_settings_release(&ls);
}
END_TEST

/* --- what the store knows of a link's target ------------------------------ */

START_TEST(test_rules_store_signals)
{
	static const struct {
		bool earlier, series, lookups;
		enum lookup_status status;
		int others;
		const char *want;	/* the one rule on the Link:, NULL none */
	} cases[] = {
		{ true, false, false, LOOKUP_UNKNOWN, -1, "LINK_TO_PREVIOUS_VERSION" },
		{ false, true, false, LOOKUP_UNKNOWN, -1, "LINK_TO_OWN_SERIES" },
		{ true, true, false, LOOKUP_UNKNOWN, -1, "LINK_TO_PREVIOUS_VERSION" },
		/* One finding per link: the store's word wins over the archive's. */
		{ false, true, true, LOOKUP_ALIVE, 0, "LINK_TO_OWN_SERIES" },
		{ false, true, true, LOOKUP_DEAD, -1, "LINK_TO_OWN_SERIES" },
		/* Without the store's word, the archive's needs lookups on. */
		{ false, false, false, LOOKUP_DEAD, -1, NULL },
		{ false, false, true, LOOKUP_DEAD, -1, "LINK_DEAD" },
	};
	static const char *const rules[] = {
		"LINK_TO_PREVIOUS_VERSION", "LINK_TO_OWN_SERIES", "LINK_DEAD", "LINK_NO_NEW_INFO",
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct checked c;
		struct lookup_result *r;
		size_t n = 0;

		checked_open(&c, "lookup/lookup-v2-links-v1.eml", NULL);
		c.s.lookups = cases[i].lookups;
		r = add(&c, U_V1, M_ACKED, cases[i].status, cases[i].status == LOOKUP_DEAD ? 404 : 0);
		r->earlier_version = cases[i].earlier;
		r->same_series = cases[i].series;
		r->others = cases[i].others;
		run(&c);
		for (size_t k = 0; k < ARRAY_SIZE(rules); k++)
			n += on_line(&c, rules[k], M_ACKED) != NULL;
		ck_assert_msg(n == (cases[i].want ? 1u : 0u), "case %zu: %s", i, th_dump(&c.fs));
		if (cases[i].want)
			ck_assert_msg(on_line(&c, cases[i].want, M_ACKED), "case %zu: %s", i,
				      th_dump(&c.fs));
		checked_close(&c);
	}
}
END_TEST

/* The context of the first part of a fixture, as the daemon keeps it. */
static void remember(struct store *st, const char *file, time_t t)
{
	struct msg_context mc;
	struct checked c;
	struct err e;

	checked_open(&c, file, NULL);
	msg_context_init(&mc);
	context_from_patch(&c.m, &c.p[0], t, &mc);
	ck_assert_msg(store_context_put(st, &mc, &e) == 0, "%s", e.msg);
	msg_context_release(&mc);
	checked_close(&c);
}

START_TEST(test_from_store)
{
	struct store *st = th_store_open();
	struct checked c;
	struct err e;

	checked_open(&c, "lookup/lookup-v2-links-v1.eml", NULL);
	/* The store does not know the target: nothing. */
	ck_assert_int_eq(linkstore_results(&(struct linkstore){ st, &c.s.archives, time(NULL) },
					   c.p, c.np, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 0);
	/* It knows v1 (same subject and sender, version 1 < 2). */
	remember(st, "lookup/lookup-v1-maintainer-acked.eml", time(NULL) - 3600);
	ck_assert_int_eq(linkstore_results(&(struct linkstore){ st, &c.s.archives, time(NULL) },
					   c.p, c.np, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 1);
	ck_assert_str_eq(c.res.v[0].msgid, M_ACKED);
	ck_assert(c.res.v[0].earlier_version);
	ck_assert(!c.res.v[0].same_series);
	ck_assert_int_eq(c.res.v[0].status, LOOKUP_UNKNOWN);
	/* Found once: a second call (or a lookup) adds nothing for that URL. */
	ck_assert_int_eq(linkstore_results(&(struct linkstore){ st, &c.s.archives, time(NULL) },
					   c.p, c.np, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 1);
	/* The rule, with lookups off. */
	c.s.lookups = false;
	run(&c);
	ck_assert_msg(on_line(&c, "LINK_TO_PREVIOUS_VERSION", M_ACKED), "%s", th_dump(&c.fs));
	checked_close(&c);
	store_close(st);
}
END_TEST

/* An unthreaded series mate is one within the series window of the clock
 * linkstore_results() is given (the mail's date under replay), not of the
 * wall clock. */
START_TEST(test_from_store_clock)
{
	static const time_t sent = 1768039200;	/* the fixtures' Date: 2026-01-10 10:00 */
	struct store *st = th_store_open();
	struct checked c;
	struct err e;

	remember(st, "lookup/lookup-store-series-1.eml", sent);
	checked_open(&c, "lookup/lookup-store-series-2.eml", NULL);
	ck_assert_int_eq(linkstore_results(&(struct linkstore){ st, &c.s.archives,
									 sent + 10 * 24 * 3600 },
					   c.p, c.np, &c.res, &e), 0);
	ck_assert_uint_eq(c.res.n, 0);	/* ten days later: no mate */
	ck_assert_int_eq(linkstore_results(&(struct linkstore){ st, &c.s.archives,
									 sent + 60 },
					   c.p, c.np, &c.res, &e),
			 0);
	ck_assert_uint_eq(c.res.n, 1);
	ck_assert_str_eq(c.res.v[0].msgid, "a1b2c3d4@eve.example.org");
	ck_assert(c.res.v[0].same_series);
	checked_close(&c);
	store_close(st);
}
END_TEST

/* --- what lookup_cached() finds without any network --------------------- */

START_TEST(test_cached)
{
	static const char id[] = "20250107131456.247610-1-krzysztof.kozlowski@linaro.org";
	struct lookup_result r = { .status = LOOKUP_ALIVE, .http_code = 200, .is_patch = true,
				   .version = 1, .subject = "leds: x", .author = "a@b",
				   .sender = "a@b", .others = 2 };
	struct lookup_settings ls;
	struct store *st = th_store_open();
	struct store_cache_entry ce = { LOOKUP_ALIVE, time(NULL), NULL, 0 };
	struct lookup_cache lc;
	struct lookup *lk;
	struct checked c;
	char *key;
	struct err e;

	checked_open(&c, "lookup/lookup-v2-links-v1.eml", NULL);
	lookup_settings_init(&ls);
	ck_assert_int_eq(lookup_new(&lk, &ls, cachestore_init(&lc, st), &e), 0);
	/* Not cached: a transfer is needed, nothing is appended. */
	ck_assert(!lookup_cached(lk, c.p, c.np, &c.s.archives, &c.res));
	ck_assert_uint_eq(c.res.n, 0);
	key = lookup_archive_url(LOOKUP_DEFAULT_ARCHIVE, id, "/");
	ce.data = lookup_result_encode(&r);
	ce.len = strlen(ce.data);
	ck_assert_int_eq(store_cache_put(st, key, &ce, &e), 0);
	ck_assert(lookup_cached(lk, c.p, c.np, &c.s.archives, &c.res));
	ck_assert_uint_eq(c.res.n, 1);
	ck_assert(c.res.v[0].cached);
	ck_assert_int_eq(c.res.v[0].status, LOOKUP_ALIVE);
	ck_assert_int_eq(c.res.v[0].others, 2);
	ck_assert_str_eq(c.res.v[0].msgid, id);
	free(ce.data);
	free(key);
	lookup_free(lk);
	lookup_settings_release(&ls);
	checked_close(&c);
	store_close(st);
}
END_TEST

/* A patch with no link needs nothing: true at once, even with no cache. */
START_TEST(test_cached_no_links)
{
	struct lookup_settings ls;
	struct lookup *lk;
	struct checked c;
	struct err e;

	checked_open(&c, "lookup/lookup-daemon-no-links.eml", NULL);
	lookup_settings_init(&ls);
	ck_assert_int_eq(lookup_new(&lk, &ls, NULL, &e), 0);
	ck_assert(lookup_cached(lk, c.p, c.np, &c.s.archives, &c.res));
	ck_assert_uint_eq(c.res.n, 0);
	lookup_free(lk);
	lookup_settings_release(&ls);
	checked_close(&c);
}
END_TEST

/* --- [lookup] in the ini file -------------------------------------------- */

static const char *data_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA, name);
	return path;
}

START_TEST(test_config_keys)
{
	struct config c;
	struct err e;
	const char *ca;

	config_init(&c);
	ck_assert(!c.rules.lookups);
	ck_assert_ptr_null(c.lookup.archive_url);
	ck_assert_int_eq(c.lookup.timeout, 10);
	ck_assert_int_eq(c.lookup.concurrency, 4);
	ck_assert_int_eq(c.lookup.rate, 5);
	ck_assert_int_eq(c.lookup.cache_ttl, 21600);
	ck_assert_msg(config_load(&c, data_path("lookup/lookup-config.ini"), &e) == 0, "%s", e.msg);
	ck_assert(c.rules.lookups);
	ck_assert_str_eq(c.lookup.archive_url, "http://archive.example.org/leds/");
	ck_assert_int_eq(c.lookup.timeout, 3);
	ck_assert_int_eq(c.lookup.concurrency, 8);
	ck_assert_int_eq(c.lookup.rate, 0);
	ck_assert_int_eq(c.lookup.cache_ttl, 60);
	/* Relative to the ini file's directory. */
	ca = c.lookup.ca_file;
	ck_assert_ptr_nonnull(strstr(ca, "/tests/data/lookup/certs/ca.pem"));
	ck_assert_int_eq(ca[0], '/');
	ck_assert_str_eq(c.lookup.user_agent, "bot of example.org, admin@example.org");
	config_release(&c);
}
END_TEST

static const struct {
	const char *file;
	const char *error;	/* what the message must hold */
} bad_config_cases[] = {
	{ "lookup/lookup-config-bad-url.ini", "[lookup] archive_url: \"lore.kernel.org/all/\" is not an http:// or https:// URL" },
	{ "lookup/lookup-config-bad-timeout.ini", "[lookup] timeout: \"0\" is not a number from 1 to 86400" },
	{ "lookup/lookup-config-bad-concurrency.ini", "[lookup] concurrency: \"1001\" is not a number from 1 to 1000" },
	{ "lookup/lookup-config-bad-rate.ini", "[lookup] rate: \"-1\" is not a number from 0 to 1000" },
	{ "lookup/lookup-config-bad-ttl.ini", "[lookup] cache_ttl: \"2592001\" is not a number from 0 to 2592000" },
	{ "lookup/lookup-config-typo.ini", "[lookup] user_agnet: unknown key (did you mean user_agent?)" },
};

START_TEST(test_config_bad)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_load(&c, data_path(bad_config_cases[_i].file), &e), -1);
	ck_assert_msg(strstr(e.msg, bad_config_cases[_i].error), "%s: got \"%s\"",
		      bad_config_cases[_i].file, e.msg);
	/* Left as config_init() made it. */
	ck_assert_int_eq(c.lookup.timeout, 10);
	config_release(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lookup");
	TCase *pure = tcase_create("pure");
	TCase *store = tcase_create("store");
	TCase *rules = tcase_create("rules");
	TCase *deadline = tcase_create("deadline");

	tcase_add_loop_test(pure, test_link_line, 0, ARRAY_SIZE(link_cases));
	tcase_add_loop_test(pure, test_archive_url, 0, ARRAY_SIZE(url_cases));
	tcase_add_test(pure, test_atom_real_feeds);
	tcase_add_loop_test(pure, test_atom_cases, 0, ARRAY_SIZE(atom_cases));
	tcase_add_test(pure, test_atom_bounded);
	tcase_add_loop_test(pure, test_parse_message, 0, ARRAY_SIZE(msg_cases));
	tcase_add_test(pure, test_parse_message_first_of_two);
	tcase_add_test(pure, test_parse_message_garbage);
	tcase_add_loop_test(pure, test_classify, 0, ARRAY_SIZE(classify_cases));
	tcase_add_test(pure, test_encode_decode);
	tcase_add_loop_test(pure, test_decode_cases, 0, ARRAY_SIZE(decode_cases));
	tcase_add_loop_test(pure, test_fresh, 0, ARRAY_SIZE(fresh_cases));
	suite_add_tcase(s, pure);

	tcase_add_checked_fixture(store, th_scratch_setup, th_scratch_teardown);
	tcase_add_test(store, test_store_cache);
	tcase_add_test(store, test_store_migrates_from_1);
	tcase_add_test(store, test_cached);
	tcase_add_test(store, test_from_store);
	tcase_add_test(store, test_from_store_clock);
	tcase_add_test(pure, test_rules_store_signals);
	tcase_add_test(pure, test_cached_no_links);
	tcase_add_test(pure, test_config_keys);
	tcase_add_loop_test(pure, test_config_bad, 0, ARRAY_SIZE(bad_config_cases));
	suite_add_tcase(s, store);

	tcase_add_test(rules, test_rules_archive);
	tcase_add_test(rules, test_rules_no_finding);
	tcase_add_test(rules, test_rules_severity_off);
	tcase_add_test(rules, test_rules_previous_version);
	tcase_add_test(rules, test_rules_one_finding_per_link);
	tcase_add_test(rules, test_prefetch_refuses_local_addresses);
	tcase_add_test(rules, test_prefetch_unresolvable);
	tcase_add_test(rules, test_prefetch_capped);
	tcase_add_test(rules, test_prefetch_nothing_to_do);
	tcase_add_test(rules, test_new_refuses_credentials);
	suite_add_tcase(s, rules);

	/* Check's own limit is not the test: on the old code it ran 72 s. */
	tcase_set_timeout(deadline, 30);
	tcase_add_test(deadline, test_fetch_one_deadline);
	suite_add_tcase(s, deadline);
	return th_run_suite_transport(s);
}
