/*
 * check_ccmode.c - maintainer Cc mode: commands, requests, maintainers,
 * threads, explain texts and the Cc-mode replies (reply_build_cc).
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "reply/ccmode.h"
#include "config/config.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "reply/reply.h"
#include "rules/rules.h"
#include "testhelp.h"

#define BOT "tagbot <tagbot@example.org>"

/* ------------------------------------------------------------ commands */

static const struct {
	const char *text;
	size_t n;		/* commands expected */
	const char *first;	/* "recheck", "explain RULE", "quiet" */
	size_t line;
} command_cases[] = {
	{ "tagbot: recheck\n", 1, "recheck", 1 },
	{ "  TAGBOT:  Recheck  \n", 1, "recheck", 1 },
	{ "tagbot:quiet", 1, "quiet", 1 },
	{ "tagbot: recheck\r\n", 1, "recheck", 1 },
	{ "tagbot: explain bad_fixes_tag\n", 1, "explain BAD_FIXES_TAG", 1 },
	{ "\tTagbot: EXPLAIN  Missing_Sign_Off \n", 1, "explain MISSING_SIGN_OFF", 1 },
	{ "Hello,\n\nthanks.\ntagbot: quiet\n", 1, "quiet", 4 },
	{ "tagbot: recheck\ntagbot: recheck\n", 1, "recheck", 1 },
	/* must not fire */
	{ "> tagbot: recheck\n", 0, NULL, 0 },
	{ ">> tagbot: quiet\n", 0, NULL, 0 },
	{ "  > tagbot: quiet\n", 0, NULL, 0 },
	{ "tagbot: recheck please\n", 0, NULL, 0 },
	{ "Please tagbot: recheck\n", 0, NULL, 0 },
	{ "tagbot: rechecks\n", 0, NULL, 0 },
	{ "tagbot recheck\n", 0, NULL, 0 },
	{ "tagbot: explain\n", 0, NULL, 0 },
	{ "tagbot: explain A B\n", 0, NULL, 0 },
	{ "tagbot: explain BAD-FIXES\n", 0, NULL, 0 },
	{ "tagbot: unknown\n", 0, NULL, 0 },
	{ "-- \ntagbot: recheck\n", 0, NULL, 0 },
	{ "text\n-- \nLee\ntagbot: quiet\n", 0, NULL, 0 },
	{ "", 0, NULL, 0 },
};

static void command_text(const struct cc_command *c, char *out, size_t n)
{
	if (c->kind == CC_EXPLAIN)
		snprintf(out, n, "explain %s", c->arg);
	else
		snprintf(out, n, "%s", cc_command_name(c->kind));
}

START_TEST(test_commands_table)
{
	struct cc_commands cmds;
	char got[128];

	ccmode_parse_commands(command_cases[_i].text, strlen(command_cases[_i].text), &cmds);
	ck_assert_msg(cmds.n == command_cases[_i].n, "case %d: %zu commands", _i, cmds.n);
	if (!cmds.n)
		return;
	command_text(&cmds.v[0], got, sizeof(got));
	ck_assert_str_eq(got, command_cases[_i].first);
	ck_assert_uint_eq(cmds.v[0].line, command_cases[_i].line);
}
END_TEST

START_TEST(test_commands_several)
{
	static const char text[] = "tagbot: explain A\ntagbot: explain B\n> tagbot: explain C\n"
				   "tagbot: quiet\ntagbot: explain A\n";
	struct cc_commands cmds;

	ccmode_parse_commands(text, strlen(text), &cmds);
	ck_assert_uint_eq(cmds.n, 3);
	ck_assert_str_eq(cmds.v[0].arg, "A");
	ck_assert_str_eq(cmds.v[1].arg, "B");
	ck_assert_int_eq(cmds.v[2].kind, CC_QUIET);
	ck_assert(cmds.quiet);
	ck_assert(!cmds.recheck);
	ck_assert_uint_eq(cmds.dropped, 0);
}
END_TEST

START_TEST(test_commands_capped)
{
	struct cc_commands cmds;
	char text[1024] = "";

	for (int i = 0; i < CC_MAX_COMMANDS + 3; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "tagbot: explain R%d\n", i);
	ccmode_parse_commands(text, strlen(text), &cmds);
	ck_assert_uint_eq(cmds.n, CC_MAX_COMMANDS);
	ck_assert_uint_eq(cmds.dropped, 3);
}
END_TEST

START_TEST(test_commands_nul_and_long)
{
	static const char nul[] = "tagbot: re\0check\ntagbot: quiet\n";
	struct cc_commands cmds;
	char longline[CC_LINE_MAX + 40];

	ccmode_parse_commands(nul, sizeof(nul) - 1, &cmds);
	ck_assert_uint_eq(cmds.n, 1);
	ck_assert_int_eq(cmds.v[0].kind, CC_QUIET);
	ck_assert_uint_eq(cmds.v[0].line, 2);
	memset(longline, ' ', sizeof(longline));
	memcpy(longline + sizeof(longline) - 17, "tagbot: recheck\n", 16);
	ccmode_parse_commands(longline, sizeof(longline) - 1, &cmds);
	ck_assert_uint_eq(cmds.n, 0);
}
END_TEST

/* The fixture: the quoted quiet and the explain below "-- " do not count. */
START_TEST(test_commands_fixture)
{
	size_t len;
	char *raw = th_read_data("cc/cc-request-commands.eml", &len);
	struct message m;
	struct cc_commands cmds;
	struct err e;

	message_init(&m);
	ck_assert_int_eq(message_parse(&m, raw, len, &e), 0);
	ccmode_parse_commands(m.text, m.text_len, &cmds);
	ck_assert_uint_eq(cmds.n, 2);
	ck_assert_int_eq(cmds.v[0].kind, CC_RECHECK);
	ck_assert_int_eq(cmds.v[1].kind, CC_EXPLAIN);
	ck_assert_str_eq(cmds.v[1].arg, "BAD_REPORTED_BY_LINK");
	ck_assert(!cmds.quiet);
	message_release(&m);
	free(raw);
}
END_TEST

/* ----------------------------------------------------------- requests */

static void bot_settings(struct policy_settings *ps)
{
	static const char *const more[] = { "Review Bot <review-bot@lists.example.org>" };

	policy_settings_init(ps);
	ps->from = BOT;
	ps->bot_addresses = more;
	ps->nbot_addresses = 1;
}

static const struct {
	const char *headers;
	bool to_bot;
} address_cases[] = {
	{ "To: tagbot@example.org\n", true },
	{ "To: a@b.org\nCc: \"Tag Bot\" <TagBot+leds@Example.ORG>\n", true },
	{ "To: a@b.org, tagbot <tagbot@example.org>\n", true },
	{ "Cc: x@y.org\nCc: tagbot@example.org\n", true },
	{ "Cc: review-bot@lists.example.org\n", true },
	{ "To: Group: a@b.org, tagbot@example.org;\n", true },
	{ "To: linux-leds@vger.kernel.org\n", false },
	{ "To: \"tagbot@example.org via list\" <list@vger.kernel.org>\n", false },
	{ "To: list@vger.kernel.org\nReply-To: tagbot@example.org\n", false },
	{ "To: tagbot@example.org.evil.com\n", false },
	{ "To: undisclosed-recipients:;\n", false },
	{ "To: nottagbot@example.org\n", false },
	/* an address only an encoded-word spells is no address (RFC 2047 section 5) */
	{ "To: =?utf-8?q?tagbot=40example.org?= <list@vger.kernel.org>\n", false },
	{ "To: Ann <=?utf-8?q?tagbot=40example.org?=>\n", false },
	{ "Cc: =?utf-8?q?x=2C_tagbot=40example.org?= <a@b.org>\n", false },
};

static void parse_headers(struct message *m, const char *headers)
{
	char raw[1024];
	struct err e;

	snprintf(raw, sizeof(raw), "From: Lee Jones <lee@kernel.org>\n%s"
		 "Subject: Re: [PATCH] x\nMessage-ID: <a@b>\nIn-Reply-To: <p@q>\n\nhi\n", headers);
	message_init(m);
	ck_assert_int_eq(message_parse(m, raw, strlen(raw), &e), 0);
}

START_TEST(test_to_bot_table)
{
	struct policy_settings ps;
	struct message m;

	bot_settings(&ps);
	parse_headers(&m, address_cases[_i].headers);
	ck_assert_msg(ccmode_to_bot(&m, &ps) == address_cases[_i].to_bot, "case %d: %s", _i,
		      address_cases[_i].headers);
	message_release(&m);
}
END_TEST

static struct patch *parse_file(const char *name, struct message *m, size_t *np)
{
	size_t len;
	char *raw = th_read_data(name, &len);
	struct patch *p;
	struct err e;

	message_init(m);
	ck_assert_int_eq(message_parse(m, raw, len, &e), 0);
	free(raw);
	patch_parse(m, &p, np);
	return p;
}

static const struct {
	const char *file;
	bool request;
} request_cases[] = {
	{ "cc/cc-request-plain.eml", true },
	{ "cc/cc-request-clean.eml", true },	/* plus-addressed */
	{ "cc/cc-request-commands.eml", true },
	{ "cc/cc-request-quiet.eml", true },
	{ "cc/cc-request-no-parent.eml", true },
	{ "cc/cc-request-not-to-bot.eml", false },	/* named in a display name, Reply-To, body */
	{ "cc/cc-patch-reported-no-link.eml", false },
	{ "cc/cc-patch-v2-in-quiet-thread.eml", false },
};

START_TEST(test_is_request)
{
	struct policy_settings ps;
	struct message m;
	size_t np;
	struct patch *p;

	bot_settings(&ps);
	p = parse_file(request_cases[_i].file, &m, &np);
	ck_assert_msg(ccmode_is_request(&p[0], &ps) == request_cases[_i].request, "%s",
		      request_cases[_i].file);
	patches_free(p, np);
	message_release(&m);
}
END_TEST

/* A patch sent straight to the bot is checked the normal way. */
START_TEST(test_patch_to_bot_is_no_request)
{
	static const char raw[] = "From: A <a@b.org>\nTo: tagbot@example.org\n"
		"Subject: [PATCH] x: y\nMessage-ID: <p@b.org>\n\nText.\n\n"
		"Signed-off-by: A <a@b.org>\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
	struct policy_settings ps;
	struct message m;
	struct patch *p;
	size_t np;
	struct err e;

	bot_settings(&ps);
	message_init(&m);
	ck_assert_int_eq(message_parse(&m, raw, strlen(raw), &e), 0);
	patch_parse(&m, &p, &np);
	ck_assert_int_eq(p[0].kind, KIND_PATCH);
	ck_assert(ccmode_to_bot(&m, &ps));
	ck_assert(!ccmode_is_request(&p[0], &ps));
	patches_free(p, np);
	message_release(&m);
}
END_TEST

/* -------------------------------------------------------- maintainers */

static const char *const maintainers[] = {
	"lee@kernel.org", "*@linaro.org", "Pavel Machek <pavel@ucw.cz>", "",
};

static const struct {
	const char *addr;
	bool yes;
} maintainer_cases[] = {
	{ "lee@kernel.org", true },
	{ "Lee@Kernel.ORG", true },
	{ "lee+leds@kernel.org", true },
	{ "krzysztof.kozlowski@linaro.org", true },
	{ "krzk+dt@linaro.org", true },
	{ "pavel@ucw.cz", true },
	{ "someone@kernel.org", false },
	{ "x@linaro.org.evil.com", false },
	{ "lee@kernel.org.evil.com", false },
	{ "", false },
	{ "not an address", false },
};

START_TEST(test_maintainers_table)
{
	ck_assert_msg(ccmode_is_maintainer(maintainers, ARRAY_SIZE(maintainers),
					   maintainer_cases[_i].addr) == maintainer_cases[_i].yes,
		      "%s", maintainer_cases[_i].addr);
}
END_TEST

START_TEST(test_maintainers_none)
{
	ck_assert(!ccmode_is_maintainer(NULL, 0, "lee@kernel.org"));
}
END_TEST

/* ------------------------------------------------------------- threads */

START_TEST(test_thread_root_and_parents)
{
	struct message m;
	struct patch *p;
	const char *ids[CC_MAX_PARENTS];
	size_t np, n;

	p = parse_file("cc/cc-request-quiet.eml", &m, &np);
	ck_assert_str_eq(ccmode_thread_root(&p[0]),
			 "20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de");
	n = ccmode_parent_ids(&p[0], ids, CC_MAX_PARENTS);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(ids[0], "aamOejvtN8H1zB0E@black.igk.intel.com");
	ck_assert_str_eq(ids[1],
			 "20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de");
	ck_assert_uint_eq(ccmode_parent_ids(&p[0], ids, 1), 1);
	patches_free(p, np);
	message_release(&m);

	/* No References: the In-Reply-To; neither: the mail itself. */
	p = parse_file("cc/cc-request-other-bot.eml", &m, &np);
	ck_assert_str_eq(ccmode_thread_root(&p[0]),
			 "20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de");
	patches_free(p, np);
	message_release(&m);
	p = parse_file("cc/cc-patch-clean.eml", &m, &np);
	ck_assert_str_eq(ccmode_thread_root(&p[0]), "20250401085002.492904-1-tobias.junghans@inhub.de");
	ck_assert_uint_eq(ccmode_parent_ids(&p[0], ids, CC_MAX_PARENTS), 0);
	patches_free(p, np);
	message_release(&m);
}
END_TEST

/* -------------------------------------------------------------- explain */

START_TEST(test_explain_builtin)
{
	struct reply_explain x;

	ck_assert_int_eq(ccmode_explain("bad_reported_by_link", NULL, &x), 0);
	ck_assert(x.known);
	ck_assert_str_eq(x.id, "BAD_REPORTED_BY_LINK");
	ck_assert_str_eq(x.severity, "warning");
	ck_assert_str_eq(x.doc, rule_defs[R_BAD_REPORTED_BY_LINK].doc);
	ck_assert_ptr_nonnull(strstr(x.fix, "Closes:"));
	ck_assert_int_eq(ccmode_explain("NO_SUCH_RULE", NULL, &x), -1);
	ck_assert(!x.known);
	ck_assert_str_eq(x.id, "NO_SUCH_RULE");
}
END_TEST

START_TEST(test_explain_every_rule)
{
	struct reply_explain x;

	for (int i = 0; i < RULE_COUNT; i++) {
		ck_assert_int_eq(ccmode_explain(rule_defs[i].id, NULL, &x), 0);
		ck_assert_msg(x.checks && *x.checks && x.why && *x.why && x.fix && *x.fix,
			      "%s has no text", rule_defs[i].id);
	}
}
END_TEST

START_TEST(test_explain_configured)
{
	struct config c;
	struct reply_explain x;
	struct err e;
	char path[4096];

	config_init(&c);
	snprintf(path, sizeof(path), "%s/config/config-custom.ini", TEST_DATA);
	ck_assert_msg(config_load(&c, path, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(ccmode_explain("no_internal_url", &c.rules, &x), 0);
	ck_assert(x.known);
	ck_assert_str_eq(x.id, "NO_INTERNAL_URL");
	ck_assert_ptr_nonnull(x.fix);
	config_release(&c);
}
END_TEST

/* -------------------------------------------------------------- replies */

static const char *header_of(const char *raw, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);

	for (const char *p = raw; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p == '\r')
			break;
		if (!strncmp(p, name, k) && p[k] == ':') {
			const char *end = p + k + 1;

			/* unfolded: continuation lines joined by one space */
			size_t o = 0;
			while (*end && o + 1 < n) {
				if (end[0] == '\r' && end[1] == '\n' && (end[2] == ' ' || end[2] == '\t')) {
					end += 2;
					continue;
				}
				if (*end == '\r' || *end == '\n')
					break;
				out[o++] = *end++;
			}
			out[o] = '\0';
			return out + (out[0] == ' ');
		}
	}
	return NULL;
}

struct cc_fixture {
	struct message rm, pm;
	struct patch *rq, *pt;
	size_t nrq, npt;
	struct findings f;
};

static void fixture_load(struct cc_fixture *x, const char *request, const char *patch)
{
	memset(x, 0, sizeof(*x));
	findings_init(&x->f);
	x->rq = parse_file(request, &x->rm, &x->nrq);
	if (patch) {
		struct rule_settings rs;

		x->pt = parse_file(patch, &x->pm, &x->npt);
		rule_settings_init(&rs);
		rules_run(&x->pt[0], &rs, &x->f);
		rule_settings_release(&rs);
	}
}

static void fixture_release(struct cc_fixture *x)
{
	findings_release(&x->f);
	patches_free(x->rq, x->nrq);
	message_release(&x->rm);
	if (x->pt) {
		patches_free(x->pt, x->npt);
		message_release(&x->pm);
	}
}

static void cc_settings(struct reply_settings *s)
{
	reply_settings_init(s);
	s->from = BOT;
}

START_TEST(test_reply_findings)
{
	struct cc_fixture x;
	struct reply_settings s;
	struct reply_cc c = { 0 };
	struct reply r;
	struct err e;
	char h[2048];

	fixture_load(&x, "cc/cc-request-plain.eml", "cc/cc-patch-reported-no-link.eml");
	ck_assert_uint_eq(th_count(&x.f, "BAD_REPORTED_BY_LINK"), 1);
	cc_settings(&s);
	c.request = &x.rq[0];
	c.patch = &x.pt[0];
	c.findings = &x.f;
	ck_assert_msg(reply_build_cc(&r, &c, &s, 1770000000, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(header_of(r.raw, "To", h, sizeof(h)),
			 "Andy Shevchenko <andriy.shevchenko@intel.com>");
	/* to = author: the author only, never the list or the bot */
	ck_assert_str_eq(header_of(r.raw, "Cc", h, sizeof(h)), "m.tretter@pengutronix.de");
	ck_assert_str_eq(header_of(r.raw, "In-Reply-To", h, sizeof(h)),
			 "<aamOejvtN8H1zB0E@black.igk.intel.com>");
	ck_assert_str_eq(header_of(r.raw, "References", h, sizeof(h)),
			 "<20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de> "
			 "<aamOejvtN8H1zB0E@black.igk.intel.com>");
	ck_assert_str_eq(header_of(r.raw, "Subject", h, sizeof(h)),
			 "Re: [PATCH] leds: multicolor: limit intensity to max_brightness of LED");
	ck_assert_str_eq(header_of(r.raw, "X-Tagbot-Rules", h, sizeof(h)), "BAD_REPORTED_BY_LINK");
	ck_assert_str_eq(header_of(r.raw, "Auto-Submitted", h, sizeof(h)), "auto-generated");
	ck_assert_uint_eq(r.nrcpt, 2);
	ck_assert_str_eq(r.rcpt[0], "andriy.shevchenko@intel.com");
	ck_assert_str_eq(r.rcpt[1], "m.tretter@pengutronix.de");
	ck_assert_uint_eq(r.nfindings, 1);
	ck_assert_ptr_nonnull(strstr(r.raw, "Hello Andy Shevchenko,"));
	ck_assert_ptr_nonnull(strstr(r.raw, "by Michael Tretter <m.tretter@pengutronix.de>."));
	/* the tenth line of the decoded text */
	ck_assert_msg(strstr(r.raw, "1. BAD_REPORTED_BY_LINK (warning), line 10:") != NULL, "%s", r.raw);
	ck_assert_ptr_null(strstr(r.raw, "No tag problems found"));
	reply_release(&r);
	fixture_release(&x);
}
END_TEST

START_TEST(test_reply_clean_list)
{
	struct cc_fixture x;
	struct reply_settings s;
	struct reply_cc c = { 0 };
	struct reply r;
	struct err e;
	char h[2048];

	fixture_load(&x, "cc/cc-request-clean.eml", "cc/cc-patch-clean.eml");
	ck_assert_uint_eq(x.f.n, 0);
	cc_settings(&s);
	s.to = REPLY_TO_AUTHOR_LIST;
	s.list_address = "linux-leds@vger.kernel.org";	/* [list ID] address */
	c.request = &x.rq[0];
	c.patch = &x.pt[0];
	c.findings = &x.f;
	ck_assert_msg(reply_build_cc(&r, &c, &s, 1770000000, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(header_of(r.raw, "To", h, sizeof(h)), "Lee Jones <lee@kernel.org>");
	ck_assert_str_eq(header_of(r.raw, "Cc", h, sizeof(h)),
			 "tobias.junghans@inhub.de, linux-leds@vger.kernel.org");
	ck_assert_ptr_nonnull(strstr(r.raw, "\r\nNo tag problems found.\r\n"));
	ck_assert_ptr_null(header_of(r.raw, "X-Tagbot-Rules", h, sizeof(h)));
	ck_assert_uint_eq(r.nfindings, 0);
	reply_release(&r);
	fixture_release(&x);
}
END_TEST

START_TEST(test_reply_explain_only)
{
	struct cc_fixture x;
	struct reply_settings s;
	struct reply_cc c = { 0 };
	struct reply_explain ex[2];
	struct reply r;
	struct err e;
	char h[2048];

	fixture_load(&x, "cc/cc-request-commands.eml", NULL);
	ccmode_explain("BAD_REPORTED_BY_LINK", NULL, &ex[0]);
	ccmode_explain("NO_SUCH_RULE", NULL, &ex[1]);
	cc_settings(&s);
	c.request = &x.rq[0];
	c.explain = ex;
	c.nexplain = 2;
	ck_assert_msg(reply_build_cc(&r, &c, &s, 1770000000, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(header_of(r.raw, "To", h, sizeof(h)), "Lee Jones <lee@kernel.org>");
	/* No patch: no author to Cc; the bot in the request's To is never Cc'd. */
	ck_assert_ptr_null(header_of(r.raw, "Cc", h, sizeof(h)));
	ck_assert_ptr_nonnull(strstr(r.raw, "BAD_REPORTED_BY_LINK (warning here):"));
	ck_assert_ptr_nonnull(strstr(r.raw, "   How to fix: add \"Closes: <URL of the report>\""));
	ck_assert_ptr_nonnull(strstr(r.raw, "There is no rule NO_SUCH_RULE here."));
	/* The manual page that explains each rule is named, with the rule. */
	ck_assert_ptr_nonnull(strstr(r.raw, "finding; the rules are explained in tagbot-rules(7)."));
	ck_assert_ptr_nonnull(strstr(r.raw, "and Fixes:\";\r\n   tagbot-rules(7) BAD_REPORTED_BY_LINK\r\n"));
	ck_assert_ptr_null(strstr(r.raw, "tagbot checked"));
	reply_release(&r);
	fixture_release(&x);
}
END_TEST

START_TEST(test_reply_all_and_errors)
{
	struct cc_fixture x;
	struct reply_settings s;
	struct reply_cc c = { 0 };
	struct reply r;
	struct err e;
	char h[2048];

	fixture_load(&x, "cc/cc-request-plain.eml", "cc/cc-patch-reported-no-link.eml");
	cc_settings(&s);
	s.to = REPLY_TO_ALL;
	s.list_address = "linux-leds@vger.kernel.org";	/* [list ID] address */
	c.request = &x.rq[0];
	c.patch = &x.pt[0];
	c.findings = &x.f;
	ck_assert_int_eq(reply_build_cc(&r, &c, &s, 1770000000, &e), 0);
	ck_assert_str_eq(header_of(r.raw, "Cc", h, sizeof(h)),
			 "m.tretter@pengutronix.de, linux-leds@vger.kernel.org, lee@kernel.org, "
			 "pavel@kernel.org");
	reply_release(&r);
	/* Nothing to say; no valid sender. */
	c.findings = NULL;
	c.patch = NULL;
	ck_assert_int_eq(reply_build_cc(&r, &c, &s, 1770000000, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	c.note = "x";
	free(x.rq[0].sender.email);
	x.rq[0].sender.email = strdup("not an address");
	ck_assert_int_eq(reply_build_cc(&r, &c, &s, 1770000000, &e), -1);
	fixture_release(&x);
}
END_TEST

static Suite *ccmode_suite(void)
{
	Suite *s = suite_create("ccmode");
	TCase *t = tcase_create("commands");

	tcase_add_loop_test(t, test_commands_table, 0, ARRAY_SIZE(command_cases));
	tcase_add_test(t, test_commands_several);
	tcase_add_test(t, test_commands_capped);
	tcase_add_test(t, test_commands_nul_and_long);
	tcase_add_test(t, test_commands_fixture);
	suite_add_tcase(s, t);
	t = tcase_create("requests");
	tcase_add_loop_test(t, test_to_bot_table, 0, ARRAY_SIZE(address_cases));
	tcase_add_loop_test(t, test_is_request, 0, ARRAY_SIZE(request_cases));
	tcase_add_test(t, test_patch_to_bot_is_no_request);
	tcase_add_loop_test(t, test_maintainers_table, 0, ARRAY_SIZE(maintainer_cases));
	tcase_add_test(t, test_maintainers_none);
	tcase_add_test(t, test_thread_root_and_parents);
	suite_add_tcase(s, t);
	t = tcase_create("explain");
	tcase_add_test(t, test_explain_builtin);
	tcase_add_test(t, test_explain_every_rule);
	tcase_add_test(t, test_explain_configured);
	suite_add_tcase(s, t);
	t = tcase_create("replies");
	tcase_add_test(t, test_reply_findings);
	tcase_add_test(t, test_reply_clean_list);
	tcase_add_test(t, test_reply_explain_only);
	tcase_add_test(t, test_reply_all_and_errors);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(ccmode_suite());
}
