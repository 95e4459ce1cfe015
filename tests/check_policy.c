#include "autoconf.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail/message.h"
#include "mail/patch.h"
#include "reply/policy.h"
#include "rules/rules.h"
#include "testhelp.h"

static const char *const bot_aliases[] = { "Tagbot Alias <bot-alias@example.net>" };

struct mail {
	const char *sender_name, *sender_email;
	const char *author_name, *author_email;	/* NULL: same as the sender */
	enum patch_kind kind;
	const char *hname[3], *hvalue[3];
	int sev[3];	/* findings by severity, 0 ends (SEV_OFF is never a finding here) */
};

struct built {
	struct patch p;
	struct message m;
	struct header h[3];
	struct findings f;
};

static void build(struct built *b, const struct mail *ml)
{
	memset(b, 0, sizeof(*b));
	b->p.kind = ml->kind;
	b->p.sender.name = (char *)ml->sender_name;
	b->p.sender.email = (char *)ml->sender_email;
	b->p.author.name = (char *)(ml->author_email ? ml->author_name : ml->sender_name);
	b->p.author.email = (char *)(ml->author_email ? ml->author_email : ml->sender_email);
	b->p.message_id = "p@example.org";
	b->m.headers = b->h;
	for (size_t i = 0; i < 3 && ml->hname[i]; i++) {
		b->h[i].name = (char *)ml->hname[i];
		b->h[i].value = b->h[i].raw = (char *)ml->hvalue[i];
		b->m.nheaders++;
	}
	b->p.msg = &b->m;
	findings_init(&b->f);
	for (size_t i = 0; i < 3 && ml->sev[i]; i++)
		findings_add(&b->f, "BAD_FIXES_TAG", (enum severity)ml->sev[i], NULL, "doc", "m");
}

static void settings(struct policy_settings *s)
{
	policy_settings_init(s);
	s->from = "tagbot <tagbot@example.org>";
	s->bot_addresses = bot_aliases;
	s->nbot_addresses = 1;
}

/* Decides b under s and checks the verdict and reason want. */
static void expect_decision(struct policy *pol, const struct policy_settings *s,
			    struct built *b, const char *what, enum policy_verdict v,
			    enum policy_reason r)
{
	struct policy_decision d;

	policy_decide(pol, s, &b->p, &b->f, 1000, &d);
	ck_assert_msg(d.verdict == v && d.reason == r, "%s: got %s/%s", what,
		      policy_verdict_name(d.verdict), policy_reason_name(d.reason));
	findings_release(&b->f);
}

#define JANE "Jane Doe", "jane@example.org"
#define W { SEV_WARNING }

START_TEST(test_decisions)
{
	static const struct {
		const char *what;
		struct mail m;
		enum policy_verdict v;
		enum policy_reason r;
	} cases[] = {
		{ "a patch with a warning", { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, W },
		  POLICY_REPLY, REASON_NONE },
		{ "only a check finding", { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, { SEV_CHECK } },
		  POLICY_CLEAN, REASON_CLEAN },
		{ "no findings", { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, {0} },
		  POLICY_CLEAN, REASON_CLEAN },
		{ "an error and a check", { JANE, NULL, NULL, KIND_PATCH, {0}, {0},
					    { SEV_CHECK, SEV_ERROR } }, POLICY_REPLY, REASON_NONE },
		/* The bot itself, however it is written. */
		{ "own From", { "tagbot", "tagbot@example.org", NULL, NULL, KIND_PATCH, {0}, {0}, W },
		  POLICY_SKIP, REASON_OWN_ADDRESS },
		{ "own plus address", { "x", "tagbot+leds@example.org", NULL, NULL, KIND_PATCH,
					{0}, {0}, W }, POLICY_SKIP, REASON_OWN_ADDRESS },
		{ "own, other case", { "x", "TAGBOT@Example.ORG", NULL, NULL, KIND_PATCH, {0}, {0}, W },
		  POLICY_SKIP, REASON_OWN_ADDRESS },
		{ "bot alias as in-body author", { JANE, "Bot", "bot-alias+x@example.net", KIND_PATCH,
						   {0}, {0}, W }, POLICY_SKIP, REASON_OWN_ADDRESS },
		/* RFC 3834. */
		{ "auto-generated", { JANE, NULL, NULL, KIND_PATCH, { "Auto-Submitted" },
				      { "auto-generated" }, W }, POLICY_SKIP, REASON_AUTO_SUBMITTED },
		{ "auto-replied", { JANE, NULL, NULL, KIND_PATCH, { "auto-submitted" },
				    { "auto-replied (vacation)" }, W }, POLICY_SKIP, REASON_AUTO_SUBMITTED },
		{ "empty Auto-Submitted", { JANE, NULL, NULL, KIND_PATCH, { "Auto-Submitted" }, { "" },
					    W }, POLICY_SKIP, REASON_AUTO_SUBMITTED },
		{ "Auto-Submitted: no", { JANE, NULL, NULL, KIND_PATCH, { "Auto-Submitted" }, { "no" },
					  W }, POLICY_REPLY, REASON_NONE },
		{ "Auto-Submitted: No (comment)", { JANE, NULL, NULL, KIND_PATCH, { "Auto-Submitted" },
						    { " No (typed by hand)" }, W }, POLICY_REPLY,
		  REASON_NONE },
		{ "X-Patchwork-Hint: Ignore", { JANE, NULL, NULL, KIND_PATCH, { "X-Patchwork-Hint" },
						{ "Ignore" }, W }, POLICY_SKIP, REASON_PATCHWORK_IGNORE },
		{ "X-Patchwork-Hint: other", { JANE, NULL, NULL, KIND_PATCH, { "X-Patchwork-Hint" },
					       { "comment" }, W }, POLICY_REPLY, REASON_NONE },
		/* Every list copy says Precedence: bulk. */
		{ "Precedence: bulk", { JANE, NULL, NULL, KIND_PATCH, { "Precedence" }, { "bulk" }, W },
		  POLICY_REPLY, REASON_NONE },
		/* The default ignore_senders. */
		{ "kernel test robot", { "kernel test robot", "lkp@intel.com", NULL, NULL, KIND_PATCH,
					 {0}, {0}, W }, POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "kernel test robot, other address", { "kernel test robot", "oliver.sang@intel.com",
							NULL, NULL, KIND_PATCH, {0}, {0}, W },
		  POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "a person at intel.com", { "Jane Roe", "jane.roe@intel.com", NULL, NULL, KIND_PATCH,
					     {0}, {0}, W }, POLICY_REPLY, REASON_NONE },
		{ "syzbot", { "syzbot", "syzbot+2f7c9b1a0e@syzkaller.appspotmail.com", NULL, NULL,
			      KIND_PATCH, {0}, {0}, W }, POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "patchwork-bot", { "", "patchwork-bot+netdevbpf@kernel.org", NULL, NULL, KIND_PATCH,
				     {0}, {0}, W }, POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "pr-tracker-bot", { "", "pr-tracker-bot@kernel.org", NULL, NULL, KIND_PATCH, {0}, {0},
				      W }, POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "sashiko-bot", { "", "Sashiko-Bot@kernel.org", NULL, NULL, KIND_PATCH, {0}, {0}, W },
		  POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "a bounce", { "Mail Delivery System", "MAILER-DAEMON@mail.example.org", NULL, NULL,
				KIND_PATCH, {0}, {0}, W }, POLICY_SKIP, REASON_IGNORED_SENDER },
		{ "a bot-ish name not listed", { "Tester Bot", "tester@example.org", NULL, NULL,
						 KIND_PATCH, {0}, {0}, W }, POLICY_REPLY, REASON_NONE },
		/* Kinds. */
		{ "a reply", { JANE, NULL, NULL, KIND_REPLY, {0}, {0}, W }, POLICY_SKIP, REASON_REPLY },
		{ "a pull request", { JANE, NULL, NULL, KIND_PULL, {0}, {0}, W }, POLICY_SKIP,
		  REASON_PULL },
		{ "other mail", { JANE, NULL, NULL, KIND_OTHER, {0}, {0}, W }, POLICY_SKIP,
		  REASON_NOT_A_PATCH },
		{ "a cover letter with a placeholder", { JANE, NULL, NULL, KIND_COVER, {0}, {0},
							 { SEV_ERROR } }, POLICY_REPLY, REASON_NONE },
		{ "a clean cover letter", { JANE, NULL, NULL, KIND_COVER, {0}, {0}, {0} },
		  POLICY_CLEAN, REASON_CLEAN },
		/* Own address wins over every other reason. */
		{ "own reply", { "tagbot", "tagbot@example.org", NULL, NULL, KIND_REPLY,
				 { "Auto-Submitted" }, { "auto-generated" }, W }, POLICY_SKIP,
		  REASON_OWN_ADDRESS },
	};
	struct policy_settings s;
	struct policy *pol = policy_new();

	settings(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct built b;

		build(&b, &cases[i].m);
		expect_decision(pol, &s, &b, cases[i].what, cases[i].v, cases[i].r);
	}
	policy_free(pol);
}
END_TEST

/* An RFC patch or cover letter gets no reply unless answer_rfc is on;
 * a reply that says RFC stays a reply, and the own address still wins. */
START_TEST(test_rfc)
{
	static const struct {
		const char *what;
		struct mail m;
		bool answer_rfc;
		enum policy_verdict v;
		enum policy_reason r;
	} cases[] = {
		{ "an RFC patch", { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, W }, false,
		  POLICY_SKIP, REASON_RFC },
		{ "an RFC cover letter", { JANE, NULL, NULL, KIND_COVER, {0}, {0}, W }, false,
		  POLICY_SKIP, REASON_RFC },
		{ "an RFC patch, answer_rfc", { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, W }, true,
		  POLICY_REPLY, REASON_NONE },
		{ "a reply to an RFC", { JANE, NULL, NULL, KIND_REPLY, {0}, {0}, W }, false,
		  POLICY_SKIP, REASON_REPLY },
		{ "the bot's own RFC", { "tagbot", "tagbot@example.org", NULL, NULL, KIND_PATCH,
					 {0}, {0}, W }, false, POLICY_SKIP, REASON_OWN_ADDRESS },
	};
	struct policy_settings s;
	struct policy *pol = policy_new();

	settings(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct built b;

		build(&b, &cases[i].m);
		b.p.series.rfc = true;
		s.answer_rfc = cases[i].answer_rfc;
		expect_decision(pol, &s, &b, cases[i].what, cases[i].v, cases[i].r);
	}
	ck_assert_str_eq(policy_reason_name(REASON_RFC), "rfc");
	policy_free(pol);
}
END_TEST

START_TEST(test_min_severity_and_count)
{
	struct mail m = { JANE, NULL, NULL, KIND_PATCH, {0}, {0}, { SEV_CHECK, SEV_WARNING, SEV_ERROR } };
	struct policy_settings s;
	struct policy_decision d;
	struct built b;

	settings(&s);
	build(&b, &m);
	policy_decide(NULL, &s, &b.p, &b.f, 0, &d);
	ck_assert_uint_eq(d.nfindings, 2);
	s.min_reply_severity = SEV_CHECK;
	policy_decide(NULL, &s, &b.p, &b.f, 0, &d);
	ck_assert_uint_eq(d.nfindings, 3);
	s.min_reply_severity = SEV_ERROR;
	policy_decide(NULL, &s, &b.p, &b.f, 0, &d);
	ck_assert_uint_eq(d.nfindings, 1);
	ck_assert_int_eq(d.verdict, POLICY_REPLY);
	findings_release(&b.f);
}
END_TEST

/* An admin's list replaces the defaults: globs on addresses, on names. */
START_TEST(test_custom_ignore_list)
{
	static const char *const mine[] = { "*@bots.example.org", "CI *", "" };
	static const struct {
		const char *name, *email;
		enum policy_verdict v;
		const char *matched;
	} cases[] = {
		{ "Runner", "ci@bots.example.org", POLICY_SKIP, "*@bots.example.org" },
		{ "Runner", "ci+job7@BOTS.example.org", POLICY_SKIP, "*@bots.example.org" },
		{ "CI Runner", "runner@example.com", POLICY_SKIP, "CI *" },
		{ "ci nightly", "n@example.com", POLICY_SKIP, "CI *" },
		{ "Jane", "jane@sub.bots.example.org.evil", POLICY_REPLY, NULL },
		{ "kernel test robot", "lkp@intel.com", POLICY_REPLY, NULL },	/* defaults replaced */
	};
	struct policy_settings s;

	settings(&s);
	s.ignore_senders = mine;
	s.nignore_senders = 3;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mail m = { cases[i].name, cases[i].email, NULL, NULL, KIND_PATCH, {0}, {0}, W };
		struct policy_decision d;
		struct built b;

		build(&b, &m);
		policy_decide(NULL, &s, &b.p, &b.f, 0, &d);
		ck_assert_msg(d.verdict == cases[i].v, "case %zu: %s", i, policy_verdict_name(d.verdict));
		if (cases[i].matched)
			ck_assert_str_eq(d.matched, cases[i].matched);
		else
			ck_assert_ptr_null(d.matched);
		findings_release(&b.f);
	}
}
END_TEST

static enum policy_verdict decide_at(struct policy *pol, const struct policy_settings *s,
				     const char *email, time_t t, enum policy_reason *r)
{
	struct mail m = { "Someone", email, NULL, NULL, KIND_PATCH, {0}, {0}, W };
	struct policy_decision d;
	struct built b;

	build(&b, &m);
	policy_decide(pol, s, &b.p, &b.f, t, &d);
	findings_release(&b.f);
	if (r)
		*r = d.reason;
	return d.verdict;
}

static void note_at(struct policy *pol, const char *email, time_t t)
{
	struct mail m = { "Someone", email, NULL, NULL, KIND_PATCH, {0}, {0}, {0} };
	struct built b;

	struct policy_settings s;

	policy_settings_init(&s);	/* no reply settings: the author's key */
	build(&b, &m);
	policy_note_reply(pol, &s, &b.p, t);
}

/*
 * One sender cannot spend another's rate limit: Mallory's patches naming
 * Victim as in-body author mail Victim as Cc, counted as "victim for
 * mallory": after 3 of them Mallory's next is held, and Victim's own patch
 * is still answered.
 */
START_TEST(test_rate_keys_not_spent_by_another)
{
	struct mail forged = { "Mallory", "mallory@example.org", "Victim", "victim@example.org",
			       KIND_PATCH, {0}, {0}, W };
	struct mail own = { "Victim", "victim@example.org", NULL, NULL, KIND_PATCH, {0}, {0}, W };
	struct policy *pol = policy_new();
	struct reply_settings rs;
	struct policy_settings s;
	struct policy_decision d;
	struct built b;

	settings(&s);
	s.max_per_author_per_hour = 3;
	s.max_per_minute = 0;
	reply_settings_init(&rs);
	rs.from = s.from;
	s.rs = &rs;
	for (int i = 0; i < 3; i++) {
		build(&b, &forged);
		b.p.author_from_body = true;
		policy_decide(pol, &s, &b.p, &b.f, 100 + i, &d);
		ck_assert_int_eq(d.verdict, POLICY_REPLY);
		policy_note_reply(pol, &s, &b.p, 100 + i);
		findings_release(&b.f);
	}
	build(&b, &forged);
	b.p.author_from_body = true;
	policy_decide(pol, &s, &b.p, &b.f, 200, &d);
	ck_assert_int_eq(d.verdict, POLICY_HOLD);
	ck_assert_int_eq(d.reason, REASON_RATE_AUTHOR);
	findings_release(&b.f);
	build(&b, &own);
	policy_decide(pol, &s, &b.p, &b.f, 200, &d);
	ck_assert_int_eq(d.verdict, POLICY_REPLY);
	findings_release(&b.f);
	/* Without reply settings the author's key alone: Victim's was spent. */
	s.rs = NULL;
	for (int i = 0; i < 3; i++) {
		build(&b, &forged);
		policy_note_reply(pol, &s, &b.p, 300 + i);
		findings_release(&b.f);
	}
	build(&b, &own);
	policy_decide(pol, &s, &b.p, &b.f, 400, &d);
	ck_assert_int_eq(d.verdict, POLICY_HOLD);
	findings_release(&b.f);
	policy_free(pol);
}
END_TEST

/* Three replies at 0, 10, 20 with a limit of 3: held until the one at 0
 * leaves the hour, i.e. from t = 3600 (the window is (t - 3600, t]). */
START_TEST(test_rate_per_author)
{
	static const struct {
		time_t t;
		const char *who;
		enum policy_verdict v;
	} cases[] = {
		{ 30, "jane@example.org", POLICY_HOLD },
		{ 30, "Jane+leds@EXAMPLE.org", POLICY_HOLD },	/* the same author */
		{ 30, "john@example.org", POLICY_REPLY },
		{ 3599, "jane@example.org", POLICY_HOLD },
		{ 3600, "jane@example.org", POLICY_REPLY },
	};
	struct policy_settings s;
	struct policy *pol = policy_new();
	enum policy_reason r;

	settings(&s);
	s.max_per_author_per_hour = 3;
	note_at(pol, "jane@example.org", 0);
	note_at(pol, "jane@example.org", 10);
	note_at(pol, "jane@example.org", 20);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum policy_verdict v = decide_at(pol, &s, cases[i].who, cases[i].t, &r);

		ck_assert_msg(v == cases[i].v, "case %zu: %s", i, policy_verdict_name(v));
		if (v == POLICY_HOLD)
			ck_assert_int_eq(r, REASON_RATE_AUTHOR);
	}
	/* Deciding changed nothing: still held at 30. */
	ck_assert_int_eq(decide_at(pol, &s, "jane@example.org", 30, NULL), POLICY_HOLD);
	/* A clean patch is clean, not held. */
	{
		struct mail m = { "Jane", "jane@example.org", NULL, NULL, KIND_PATCH, {0}, {0}, {0} };
		struct policy_decision d;
		struct built b;

		build(&b, &m);
		policy_decide(pol, &s, &b.p, &b.f, 30, &d);
		ck_assert_int_eq(d.verdict, POLICY_CLEAN);
	}
	/* No limit: never held. */
	s.max_per_author_per_hour = 0;
	ck_assert_int_eq(decide_at(pol, &s, "jane@example.org", 30, NULL), POLICY_REPLY);
	policy_free(pol);
}
END_TEST

/* Two replies at 100 and 110 with a global cap of 2 per minute: held
 * until 160, when the first leaves the window (100, 160]. */
START_TEST(test_rate_global)
{
	static const struct {
		time_t t;
		enum policy_verdict v;
	} cases[] = {
		{ 110, POLICY_HOLD }, { 159, POLICY_HOLD }, { 160, POLICY_REPLY }, { 170, POLICY_REPLY },
	};
	struct policy_settings s;
	struct policy *pol = policy_new();
	enum policy_reason r;

	settings(&s);
	s.max_per_minute = 2;
	note_at(pol, "a@example.org", 100);
	note_at(pol, "b@example.org", 110);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum policy_verdict v = decide_at(pol, &s, "c@example.org", cases[i].t, &r);

		ck_assert_msg(v == cases[i].v, "case %zu: %s", i, policy_verdict_name(v));
		if (v == POLICY_HOLD)
			ck_assert_int_eq(r, REASON_RATE_GLOBAL);
	}
	ck_assert_int_eq(decide_at(NULL, &s, "c@example.org", 110, NULL), POLICY_REPLY);
	policy_free(pol);
}
END_TEST

/* Many authors: the table stays bounded and recent authors still count. */
START_TEST(test_rate_many_authors)
{
	struct policy_settings s;
	struct policy *pol = policy_new();
	char email[64];

	settings(&s);
	s.max_per_author_per_hour = 1;
	s.max_per_minute = 0;
	for (int i = 0; i < POLICY_MAX_AUTHORS + 500; i++) {
		snprintf(email, sizeof(email), "a%d@example.org", i);
		note_at(pol, email, i);
	}
	ck_assert_int_eq(decide_at(pol, &s, email, POLICY_MAX_AUTHORS + 500, NULL), POLICY_HOLD);
	ck_assert_int_eq(decide_at(pol, &s, "new@example.org", POLICY_MAX_AUTHORS + 500, NULL),
			 POLICY_REPLY);
	/* Much later everyone has left the window. */
	note_at(pol, "late@example.org", 100000);
	ck_assert_int_eq(decide_at(pol, &s, email, 100000, NULL), POLICY_REPLY);
	policy_free(pol);
}
END_TEST

/* The limits alone, by address: at most 2 per hour to lee (at 100, 130;
 * the second under another spelling), 2 per minute overall (also 140,
 * counted for no address).  lee is held until 100 leaves the hour, at
 * 3700; anyone else until 130 leaves the minute, at 190. */
START_TEST(test_rate_check)
{
	static const struct {
		const char *who;
		time_t t;
		enum policy_verdict v;
		enum policy_reason r;
		time_t free_at;
	} cases[] = {
		{ "lee@kernel.org", 150, POLICY_HOLD, REASON_RATE_AUTHOR, 3700 },
		{ "LEE+leds@kernel.org", 3699, POLICY_HOLD, REASON_RATE_AUTHOR, 3700 },
		{ "lee@kernel.org", 3700, POLICY_REPLY, REASON_NONE, 3700 },
		{ "krzk@linaro.org", 150, POLICY_HOLD, REASON_RATE_GLOBAL, 190 },
		{ NULL, 189, POLICY_HOLD, REASON_RATE_GLOBAL, 190 },
		{ "krzk@linaro.org", 190, POLICY_REPLY, REASON_NONE, 190 },
	};
	struct policy_settings s;
	struct policy *pol = policy_new();
	enum policy_reason r;
	time_t at;

	settings(&s);
	s.max_per_author_per_hour = 2;
	s.max_per_minute = 2;
	policy_note_reply_to(pol, "lee@kernel.org", 100);
	policy_note_reply_to(pol, "Lee+x@Kernel.org", 130);
	policy_note_reply_to(pol, NULL, 140);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum policy_verdict v = policy_rate_check(pol, &s, cases[i].who, cases[i].t, &r, &at);

		ck_assert_msg(v == cases[i].v, "case %zu: %s", i, policy_verdict_name(v));
		ck_assert_msg(r == cases[i].r, "case %zu: %s", i, policy_reason_name(r));
		ck_assert_msg(at == cases[i].free_at, "case %zu: free at %ld", i, (long)at);
	}
	/* The per-patch decision counts the same windows. */
	ck_assert_int_eq(decide_at(pol, &s, "lee@kernel.org", 150, &r), POLICY_HOLD);
	ck_assert_int_eq(r, REASON_RATE_AUTHOR);
	ck_assert_int_eq(policy_rate_check(NULL, &s, "lee@kernel.org", 150, &r, NULL),
			 POLICY_REPLY);
	ck_assert_int_eq(r, REASON_NONE);
	policy_free(pol);
}
END_TEST

/* The last reply to a person, by which held replies take turns: any
 * form of the address, within the hour. */
START_TEST(test_last_reply)
{
	struct policy *pol = policy_new();

	ck_assert_int_eq(policy_last_reply(pol, "lee@kernel.org", 100), 0);
	policy_note_reply_to(pol, "lee@kernel.org", 100);
	policy_note_reply_to(pol, "Lee+x@Kernel.org", 130);
	policy_note_reply_to(pol, "krzk@linaro.org", 120);
	ck_assert_int_eq(policy_last_reply(pol, "LEE@kernel.org", 200), 130);
	ck_assert_int_eq(policy_last_reply(pol, "krzk@linaro.org", 200), 120);
	ck_assert_int_eq(policy_last_reply(pol, "krzk@linaro.org", 120 + 3600), 0);
	ck_assert_int_eq(policy_last_reply(pol, NULL, 200), 0);
	ck_assert_int_eq(policy_last_reply(NULL, "lee@kernel.org", 200), 0);
	policy_free(pol);
}
END_TEST

/* A place for the windows that two policies share (as two daemons share
 * the store's rate events): (key, t) pairs in the order noted; broken
 * answers every count as a failing store does. */
struct shared_events {
	struct { char key[64]; time_t t; } v[32];
	unsigned n;
	bool broken;
};

static unsigned sh_count(void *ctx, const char *key, time_t since)
{
	struct shared_events *x = ctx;
	unsigned c = 0;

	if (x->broken)
		return UINT_MAX;
	for (unsigned i = 0; i < x->n; i++)
		c += !strcmp(x->v[i].key, key) && x->v[i].t > since;
	return c;
}

static time_t sh_nth(void *ctx, const char *key, time_t since, unsigned n)
{
	struct shared_events *x = ctx;

	for (unsigned i = 0; i < x->n; i++)
		if (!strcmp(x->v[i].key, key) && x->v[i].t > since && n-- == 0)
			return x->v[i].t;
	return 0;
}

static time_t sh_last(void *ctx, const char *key, time_t since)
{
	struct shared_events *x = ctx;
	time_t last = 0;

	for (unsigned i = 0; i < x->n; i++)
		if (!strcmp(x->v[i].key, key) && x->v[i].t > since && x->v[i].t > last)
			last = x->v[i].t;
	return last;
}

static void sh_add(void *ctx, const char *key, time_t t)
{
	struct shared_events *x = ctx;

	ck_assert_uint_lt(x->n, 32);
	snprintf(x->v[x->n].key, sizeof(x->v[x->n].key), "%s", key);
	x->v[x->n++].t = t;
}

/* Two policies on one place for the windows keep the limits together:
 * what one counted, the other sees; a place that fails holds the reply. */
START_TEST(test_shared_events)
{
	static struct shared_events x;
	const struct policy_events ev = { sh_count, sh_nth, sh_last, sh_add, &x };
	struct policy_settings s;
	struct policy *a = policy_new(), *b = policy_new();
	enum policy_reason r;
	time_t at;

	memset(&x, 0, sizeof(x));
	settings(&s);
	s.max_per_author_per_hour = 2;
	s.max_per_minute = 3;
	s.max_share_per_sender = 0;
	policy_set_events(a, &ev);
	policy_set_events(b, &ev);
	policy_note_reply_to(a, "Lee+x@Kernel.org", 100);
	policy_note_reply_to(b, "krzk@linaro.org", 110);
	ck_assert_int_eq(x.n, 4);	/* the global key and the person's, each */
	ck_assert_int_eq(policy_rate_check(b, &s, "lee@kernel.org", 120, &r, &at), POLICY_REPLY);
	policy_note_reply_to(b, "lee@kernel.org", 120);
	/* a's check counts b's replies: the minute is full (3), and lee's hour */
	ck_assert_int_eq(policy_rate_check(a, &s, "ann@x.org", 130, &r, &at), POLICY_HOLD);
	ck_assert_int_eq(r, REASON_RATE_GLOBAL);
	ck_assert_int_eq(at, 160);
	ck_assert_int_eq(policy_rate_check(a, &s, "lee@kernel.org", 200, &r, &at), POLICY_HOLD);
	ck_assert_int_eq(r, REASON_RATE_AUTHOR);
	ck_assert_int_eq(at, 3700);
	ck_assert_int_eq(policy_last_reply(a, "LEE@kernel.org", 200), 120);
	x.broken = true;
	ck_assert_int_eq(policy_rate_check(a, &s, "ann@x.org", 5000, &r, &at), POLICY_HOLD);
	policy_free(a);
	policy_free(b);
}
END_TEST

START_TEST(test_author_address)
{
	struct patch p;

	memset(&p, 0, sizeof(p));
	ck_assert_ptr_null(policy_author_address(&p));
	p.sender.email = "sender@example.org";
	ck_assert_str_eq(policy_author_address(&p), "sender@example.org");
	p.author.email = "";
	ck_assert_str_eq(policy_author_address(&p), "sender@example.org");
	p.author.email = "author@example.org";
	ck_assert_str_eq(policy_author_address(&p), "author@example.org");
}
END_TEST

START_TEST(test_names_and_bot_address)
{
	struct policy_settings s;

	ck_assert_str_eq(policy_reason_name(REASON_RATE_AUTHOR), "rate-limit-author");
	ck_assert_str_eq(policy_reason_name(REASON_AUTO_SUBMITTED), "auto-submitted");
	ck_assert_str_eq(policy_reason_name(REASON_NONE), "");
	ck_assert_str_eq(policy_verdict_name(POLICY_HOLD), "hold");
	settings(&s);
	ck_assert(policy_is_bot_address(&s, "tagbot@example.org"));
	ck_assert(policy_is_bot_address(&s, "tagbot+x@EXAMPLE.org"));
	ck_assert(policy_is_bot_address(&s, "bot-alias@example.net"));
	ck_assert(!policy_is_bot_address(&s, "tagbotx@example.org"));
	ck_assert(!policy_is_bot_address(&s, "tagbot@example.org.evil"));
	ck_assert(!policy_is_bot_address(&s, ""));
	ck_assert(!policy_is_bot_address(&s, NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decisions);
	tcase_add_test(tc, test_rfc);
	tcase_add_test(tc, test_min_severity_and_count);
	tcase_add_test(tc, test_custom_ignore_list);
	tcase_add_test(tc, test_rate_per_author);
	tcase_add_test(tc, test_rate_keys_not_spent_by_another);
	tcase_add_test(tc, test_rate_global);
	tcase_add_test(tc, test_rate_many_authors);
	tcase_add_test(tc, test_rate_check);
	tcase_add_test(tc, test_last_reply);
	tcase_add_test(tc, test_shared_events);
	tcase_add_test(tc, test_author_address);
	tcase_add_test(tc, test_names_and_bot_address);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
