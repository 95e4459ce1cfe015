/*
 * check_pipeline.c - the daemon's decision path, in process, through the
 * offline daemon `tagbot replay` drives (daemon.h): raw mails in, the
 * decision for each and the replies it would queue out.  The ini file is
 * written into the test's directory, and so is the offline daemon's
 * scratch state ($TMPDIR), which must be gone after it is closed.
 */
#include "autoconf.h"
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "mail/address.h"
#include "mail/maildate.h"
#include "mail/context.h"
#include "mail/message.h"
#include "reply/recipients.h"
#include "reply/reply.h"
#include "testhelp.h"

#define SIGNOFF_ID	"20250311042642.373782-1-craig@mcqueen.au"	/* MISSING_SIGN_OFF */
#define CLEAN_ID	"20250426020454.47059-1-jesse@ponkila.com"
#define REPLY_ID	"20250314110853.GF3890718@google.com"
#define MAXD		16

/* --- what the daemon decided -------------------------------------------- */

struct decided {
	char *key;
	enum store_decision decision;
	char *why;		/* "" unless skipped */
	char *rules;		/* the findings' rule IDs, ","-joined */
};

struct queued {
	char *parent;
	char *raw;		/* the reply, NUL-terminated */
	size_t len;
	char *rcpt;		/* the envelope, ","-joined */
};

struct run {
	struct decided d[MAXD];
	size_t nd;
	struct queued q[MAXD];
	size_t nq;
	char ini[PATH_MAX + 16];
	char tmpdir[PATH_MAX];
};

static struct run run;

static void on_decision(void *arg, const struct daemon_decision *dd)
{
	struct run *r = arg;
	struct decided *d;
	struct buf b;

	ck_assert_uint_lt(r->nd, MAXD);
	d = &r->d[r->nd++];
	d->key = xstrdup(dd->key);
	d->decision = dd->decision;
	d->why = xstrdup(dd->why ? dd->why : "");
	buf_init(&b, 0);
	for (size_t i = 0; dd->f && i < dd->f->n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", dd->f->v[i].rule);
	d->rules = xstrdup(b.len ? b.data : "");
	buf_release(&b);
}

static void on_reply(void *arg, const char *parent, const struct reply *rp)
{
	struct run *r = arg;
	struct queued *q;
	struct buf b;

	ck_assert_uint_lt(r->nq, MAXD);
	q = &r->q[r->nq++];
	q->parent = xstrdup(parent);
	q->raw = xstrndup(rp->raw, rp->len);
	q->len = rp->len;
	buf_init(&b, 0);
	for (size_t i = 0; i < rp->nrcpt; i++)
		buf_printf(&b, "%s%s", i ? "," : "", rp->rcpt[i]);
	q->rcpt = xstrdup(b.len ? b.data : "");
	buf_release(&b);
}

/* --- what one mail's decision derives ------------------------------------ */

/* Counted through the linker (--wrap, Makefile.am): how often the daemon
 * finds whom a reply goes to and a mail's thread context. */
static size_t n_recipients, n_contexts;

int __real_recipients_find(struct recipients *r, const struct patch *p,
			   const struct reply_settings *s);
int __wrap_recipients_find(struct recipients *r, const struct patch *p,
			   const struct reply_settings *s);
void __real_context_from_patch(const struct message *m, const struct patch *p, time_t now,
			       struct msg_context *out);
void __wrap_context_from_patch(const struct message *m, const struct patch *p, time_t now,
			       struct msg_context *out);

int __wrap_recipients_find(struct recipients *r, const struct patch *p,
			   const struct reply_settings *s)
{
	n_recipients++;
	return __real_recipients_find(r, p, s);
}

void __wrap_context_from_patch(const struct message *m, const struct patch *p, time_t now,
			       struct msg_context *out)
{
	n_contexts++;
	__real_context_from_patch(m, p, now, out);
}

/* --- the daemon's file and its directory ---------------------------------- */

static void setup(void)
{
	th_scratch_setup();
	memset(&run, 0, sizeof(run));
	n_recipients = n_contexts = 0;
	ck_assert_ptr_nonnull(realpath(th_dir, run.tmpdir));
	/* the offline daemon's scratch state goes here, not to /tmp */
	setenv("TMPDIR", run.tmpdir, 1);
	snprintf(run.ini, sizeof(run.ini), "%s/tagbot.ini", run.tmpdir);
}

/* Nothing but the ini file is left in the directory: the scratch state
 * went with daemon_offline_close(), the configured state and sink were
 * never made. */
static void teardown(void)
{
	DIR *dir = opendir(run.tmpdir);
	struct dirent *de;
	char left[1024] = "";

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "tagbot.ini"))
			snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s",
				 de->d_name);
	closedir(dir);
	unlink(run.ini);
	for (size_t i = 0; i < run.nd; i++) {
		free(run.d[i].key);
		free(run.d[i].why);
		free(run.d[i].rules);
	}
	for (size_t i = 0; i < run.nq; i++) {
		free(run.q[i].parent);
		free(run.q[i].raw);
		free(run.q[i].rcpt);
	}
	unsetenv("TMPDIR");
	th_scratch_teardown();
	ck_assert_msg(!left[0], "left behind:%s", left);
}

/* How many entries of the directory start with prefix. */
static size_t entries(const char *prefix)
{
	DIR *dir = opendir(run.tmpdir);
	struct dirent *de;
	size_t n = 0;

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(dir);
	return n;
}

/* The daemon's file as tests/lib.sh's replay_ini writes it, and extra. */
static void write_ini(const char *extra)
{
	FILE *f = fopen(run.ini, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "[tagbot]\nstate = %s/state/tagbot.db\n"
		"[source]\ntype = maildir\npath = %s/inbox\n"
		"[sink]\ntype = maildir\npath = %s/replies\n"
		"[reply]\nfrom = tagbot <tagbot@example.org>\n%s",
		run.tmpdir, run.tmpdir, run.tmpdir, extra ? extra : "");
	ck_assert_int_eq(fclose(f), 0);
}

/* --- mails ---------------------------------------------------------------- */

/* tests/data/NAME, malloc'ed and NUL-terminated. */
static char *fixture(const char *name)
{
	size_t len;

	return th_read_data(name, &len);
}

/*
 * raw with the header line of name replaced by line ("Name: value", no
 * line end), or removed when line is NULL; when the header has no such
 * line, line is put first.  Only unfolded lines are handled.  Frees raw.
 */
static char *edit(char *raw, const char *name, const char *line)
{
	size_t n = strlen(name);
	const char *end = strstr(raw, "\n\n"), *p = raw;
	struct buf b;

	ck_assert_ptr_nonnull(end);
	buf_init(&b, 0);
	for (; p <= end; p = strchr(p, '\n') + 1)
		if (!strncasecmp(p, name, n) && p[n] == ':')
			break;
	if (p > end) {
		ck_assert_ptr_nonnull(line);
		buf_printf(&b, "%s\n%s", line, raw);
	} else {
		const char *eol = strchr(p, '\n');

		buf_add(&b, raw, (size_t)(p - raw));
		if (line)
			buf_printf(&b, "%s\n", line);
		buf_addstr(&b, eol + 1);
	}
	free(raw);
	return buf_detach(&b, NULL);
}

/* --- running the daemon --------------------------------------------------- */

/* The Date of raw as the clock, as `tagbot replay` takes it. */
static time_t clock_of(const char *raw)
{
	struct message m;
	struct err e;
	time_t t = 0;
	const char *v;

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, strlen(raw), &e) == 0, "%s", e.msg);
	v = message_header(&m, "Date");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(maildate_parse(v, &t), 0);
	message_release(&m);
	return t;
}

/* Feeds the n mails to one offline daemon over the ini file; each is
 * freed. */
static void feed(char **mails, size_t n)
{
	struct daemon_offline_opts o = {
		.config = run.ini, .on_decision = on_decision, .on_reply = on_reply, .arg = &run,
	};
	struct daemon *d = NULL;
	struct err e;
	int rc;

	err_init(&e);
	rc = daemon_offline_open(&d, &o, &e);
	ck_assert_msg(rc == 0, "open: %s", e.msg);
	ck_assert_uint_eq(entries("tagbot-"), 1);	/* its scratch state is ours */
	log_setup(LOG_TARGET_STDERR, LOGL_ERROR, "check_pipeline");
	for (size_t i = 0; i < n && rc == 0; i++) {
		char name[32];

		snprintf(name, sizeof(name), "mail#%zu", i);
		rc = daemon_offline_take(d, &(struct daemon_mail){ name, mails[i], strlen(mails[i]),
								   clock_of(mails[i]) }, &e);
		ck_assert_msg(rc == 0, "take %zu: %s", i, e.msg);
		free(mails[i]);
	}
	rc = daemon_offline_finish(d, &e);
	ck_assert_msg(rc == 0, "finish: %s", e.msg);
	daemon_offline_close(d);
}

static void feed1(char *mail)
{
	feed(&mail, 1);
}

/* The decisions, "KEY: DECISION[ WHY][ (RULES)]" lines, for messages. */
static const char *decisions(void)
{
	static const char *const names[] = {
		[STORE_REPLIED] = "replied", [STORE_CLEAN] = "clean",
		[STORE_SKIPPED] = "skipped", [STORE_ERROR] = "error",
	};
	static char out[4096];

	out[0] = '\0';
	for (size_t i = 0; i < run.nd; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s: %s%s%s%s%s%s\n",
			 run.d[i].key, names[run.d[i].decision], *run.d[i].why ? " " : "",
			 run.d[i].why, *run.d[i].rules ? " (" : "", run.d[i].rules,
			 *run.d[i].rules ? ")" : "");
	return out;
}

/* --- tests ---------------------------------------------------------------- */

START_TEST(test_clean_patch)
{
	write_ini(NULL);
	feed1(fixture("cli/cli-clean.eml"));
	ck_assert_str_eq(decisions(), CLEAN_ID ": clean\n");
	ck_assert_uint_eq(run.nq, 0);
}
END_TEST

/* The reply to a patch without its author's sign-off: one, to the author,
 * threaded under the patch, naming the rule. */
START_TEST(test_missing_signoff)
{
	struct message m;
	struct address_list to;
	struct err e;
	const char *v;

	write_ini(NULL);
	feed1(fixture("cli/cli-missing-signoff.eml"));
	ck_assert_str_eq(decisions(), SIGNOFF_ID ": replied (MISSING_SIGN_OFF)\n");
	ck_assert_uint_eq(run.nq, 1);
	ck_assert_str_eq(run.q[0].parent, SIGNOFF_ID);
	ck_assert_str_eq(run.q[0].rcpt, "craig@mcqueen.au");
	message_init(&m);
	ck_assert_msg(message_parse(&m, run.q[0].raw, run.q[0].len, &e) == 0, "%s", e.msg);
	v = message_header_raw(&m, "To");
	ck_assert_ptr_nonnull(v);
	address_list_parse(&to, v, strlen(v), 10);
	ck_assert_uint_eq(to.n, 1);
	ck_assert_uint_eq(to.bad, 0);
	ck_assert_str_eq(to.v[0].email, "craig@mcqueen.au");
	address_list_release(&to);
	ck_assert_ptr_null(message_header_raw(&m, "Cc"));
	ck_assert_str_eq(message_header_raw(&m, "In-Reply-To"), "<" SIGNOFF_ID ">");
	v = message_header_raw(&m, "References");
	ck_assert_ptr_nonnull(v);
	ck_assert_msg(strstr(v, "<" SIGNOFF_ID ">"), "References: %s", v);
	ck_assert_str_eq(message_header(&m, "Subject"), "Re: [PATCH] leds: uleds documentation fixes");
	ck_assert_ptr_nonnull(message_header(&m, "Auto-Submitted"));
	ck_assert_msg(strstr(m.text, "MISSING_SIGN_OFF"), "%s", m.text);
	message_release(&m);
}
END_TEST

/* The list's copy and the Cc'd copy carry one Message-ID: one reply. */
START_TEST(test_same_msgid_twice)
{
	char *mails[3];

	write_ini(NULL);
	mails[0] = fixture("cli/cli-missing-signoff.eml");	/* the list's copy */
	mails[1] = edit(fixture("cli/cli-missing-signoff.eml"), "List-Id", NULL);
	mails[1] = edit(mails[1], "To", "To: craig@mcqueen.au");	/* the Cc copy */
	mails[2] = fixture("cli/cli-missing-signoff.eml");
	feed(mails, 3);
	ck_assert_str_eq(decisions(), SIGNOFF_ID ": replied (MISSING_SIGN_OFF)\n"
			 SIGNOFF_ID ": skipped seen\n" SIGNOFF_ID ": skipped seen\n");
	ck_assert_uint_eq(run.nq, 1);
}
END_TEST

/* The Message-ID in any case of its domain and without the <> of the
 * header's own form is still the same mail. */
START_TEST(test_same_msgid_other_spelling)
{
	char *mails[2];

	write_ini(NULL);
	mails[0] = fixture("cli/cli-missing-signoff.eml");
	mails[1] = edit(fixture("cli/cli-missing-signoff.eml"), "Message-ID",
			"Message-Id:  <20250311042642.373782-1-craig@MCQUEEN.AU>");
	feed(mails, 2);
	ck_assert_uint_eq(run.nd, 2);
	ck_assert_int_eq(run.d[1].decision, STORE_SKIPPED);
	ck_assert_str_eq(run.d[1].why, "seen");
	ck_assert_uint_eq(run.nq, 1);
}
END_TEST

/* Mail of the bot itself or of other bots is never answered. */
static const struct {
	const char *name, *line;	/* a header line to set */
	const char *why;		/* NULL: answered */
} bot_cases[] = {
	{ "From", "From: tagbot <tagbot@example.org>", "own-address" },
	{ "From", "From: Tagbot <TAGBOT+leds@example.org>", "own-address" },
	{ "Auto-Submitted", "Auto-Submitted: auto-generated", "auto-submitted" },
	{ "Auto-Submitted", "Auto-Submitted: auto-replied", "auto-submitted" },
	{ "Auto-Submitted", "Auto-Submitted: auto-generated (tagbot)", "auto-submitted" },
	{ "Auto-Submitted", "Auto-Submitted: no", NULL },
	{ "From", "From: kernel test robot <lkp@intel.com>", "ignored-sender" },
	{ "From", "From: kernel test robot <oliver.sang@intel.com>", "ignored-sender" },
	{ "From", "From: syzbot <syzbot+0123abcd@syzkaller.appspotmail.com>", "ignored-sender" },
	{ "From", "From: patchwork-bot+netdevbpf@kernel.org", "ignored-sender" },
	{ "From", "From: MAILER-DAEMON@mail.example.org", "ignored-sender" },
	{ "X-Patchwork-Hint", "X-Patchwork-Hint: ignore", "patchwork-ignore" },
};

START_TEST(test_bots)
{
	write_ini(NULL);
	feed1(edit(fixture("cli/cli-missing-signoff.eml"), bot_cases[_i].name, bot_cases[_i].line));
	ck_assert_uint_eq(run.nd, 1);
	if (bot_cases[_i].why) {
		ck_assert_msg(run.d[0].decision == STORE_SKIPPED, "%s: %s", bot_cases[_i].line,
			      decisions());
		ck_assert_str_eq(run.d[0].why, bot_cases[_i].why);
		ck_assert_uint_eq(run.nq, 0);
	} else {
		ck_assert_int_eq(run.d[0].decision, STORE_REPLIED);
		ck_assert_uint_eq(run.nq, 1);
	}
}
END_TEST

/* [reply] bot_addresses and ignore_senders from the file count too. */
START_TEST(test_bots_configured)
{
	char *mails[2];

	write_ini("bot_addresses = checker@example.net\n"
		  "ignore_senders = *@ci.example.com\n");
	mails[0] = edit(fixture("cli/cli-missing-signoff.eml"), "From",
			"From: Checker <checker@example.net>");
	mails[1] = edit(fixture("cli/cli-clean.eml"), "From", "From: CI <runner@ci.example.com>");
	feed(mails, 2);
	ck_assert_str_eq(decisions(), SIGNOFF_ID ": skipped own-address (MISSING_SIGN_OFF)\n"
			 CLEAN_ID ": skipped ignored-sender (NO_AUTHOR_SIGN_OFF)\n");
	ck_assert_uint_eq(run.nq, 0);
}
END_TEST

/* The bot's own reply, read back from the list, is not answered. */
START_TEST(test_own_reply_back)
{
	char *mails[1];

	write_ini(NULL);
	feed1(fixture("cli/cli-missing-signoff.eml"));
	ck_assert_uint_eq(run.nq, 1);
	/* as the list hands it out: LF lines, a List-Id */
	{
		struct buf b;

		buf_init(&b, 0);
		buf_addstr(&b, "List-Id: <linux-leds.vger.kernel.org>\n");
		for (const char *p = run.q[0].raw; *p; p++)
			if (*p != '\r')
				buf_addch(&b, *p);
		mails[0] = buf_detach(&b, NULL);
	}
	feed(mails, 1);
	ck_assert_uint_eq(run.nd, 2);
	ck_assert_int_eq(run.d[1].decision, STORE_SKIPPED);
	ck_assert_uint_eq(run.nq, 1);
}
END_TEST

/* A reply is not checked, even one carrying a diff without sign-off. */
START_TEST(test_reply_not_checked)
{
	char *mails[2];

	write_ini(NULL);
	mails[0] = fixture("cli/cli-reply.eml");
	mails[1] = edit(fixture("cli/cli-missing-signoff.eml"), "Subject",
			"Subject: Re: [PATCH] leds: uleds documentation fixes");
	mails[1] = edit(mails[1], "Message-ID", "Message-ID: <re-with-diff@example.org>");
	mails[1] = edit(mails[1], "In-Reply-To", "In-Reply-To: <" SIGNOFF_ID ">");
	feed(mails, 2);
	ck_assert_str_eq(decisions(), REPLY_ID ": skipped reply\n"
			 "re-with-diff@example.org: skipped reply\n");
	ck_assert_uint_eq(run.nq, 0);
}
END_TEST

/* The list is Cc'd only for a mail its List-Id ties to its [list] section. */
START_TEST(test_list_cc)
{
	char *mails[2];

	/* repeat_after = 0: the second mail tells Craig the same again */
	write_ini("repeat_after = 0\n[list linux-leds.vger.kernel.org]\nto = author+list\n"
		  "address = linux-leds@vger.kernel.org\n");
	mails[0] = fixture("cli/cli-missing-signoff.eml");
	mails[1] = edit(fixture("cli/cli-missing-signoff.eml"), "List-Id",
			"List-Id: <linux-gpio.vger.kernel.org>");
	mails[1] = edit(mails[1], "Message-ID", "Message-ID: <other-list@mcqueen.au>");
	feed(mails, 2);
	ck_assert_msg(run.nq == 2, "%s", decisions());
	ck_assert_str_eq(run.q[0].parent, SIGNOFF_ID);
	ck_assert_str_eq(run.q[0].rcpt, "craig@mcqueen.au,linux-leds@vger.kernel.org");
	ck_assert_str_eq(run.q[1].parent, "other-list@mcqueen.au");
	ck_assert_str_eq(run.q[1].rcpt, "craig@mcqueen.au");
}
END_TEST

/* A list switched off is checked and recorded, never answered. */
START_TEST(test_list_disabled)
{
	write_ini("[list linux-leds.vger.kernel.org]\nenabled = no\n");
	feed1(fixture("cli/cli-missing-signoff.eml"));
	ck_assert_uint_eq(run.nd, 1);
	ck_assert_int_eq(run.d[0].decision, STORE_SKIPPED);
	ck_assert_str_eq(run.d[0].rules, "MISSING_SIGN_OFF");
	ck_assert_uint_eq(run.nq, 0);
}
END_TEST

/* One mail's decision is made of one record: whom a reply goes to and the
 * thread context are found once, whatever the steps that read them (the
 * told memory, the rate limits, the series, the reply). */
START_TEST(test_decided_once)
{
	write_ini("max_per_author_per_hour = 5\nrepeat_after = 30\n");
	feed1(fixture("cli/cli-missing-signoff.eml"));
	ck_assert_str_eq(decisions(), SIGNOFF_ID ": replied (MISSING_SIGN_OFF)\n");
	ck_assert_uint_eq(run.nq, 1);
	ck_assert_uint_eq(n_recipients, 1);
	ck_assert_uint_eq(n_contexts, 1);
}
END_TEST

/* A clean patch: the same record, its findings empty. */
START_TEST(test_decided_once_clean)
{
	write_ini("max_per_author_per_hour = 5\nrepeat_after = 30\n");
	feed1(fixture("cli/cli-clean.eml"));
	ck_assert_str_eq(decisions(), CLEAN_ID ": clean\n");
	ck_assert_uint_le(n_recipients, 1);
	ck_assert_uint_eq(n_contexts, 1);
}
END_TEST

static Suite *pipeline_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *t = tcase_create("offline");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_clean_patch);
	tcase_add_test(t, test_missing_signoff);
	tcase_add_test(t, test_same_msgid_twice);
	tcase_add_test(t, test_same_msgid_other_spelling);
	tcase_add_loop_test(t, test_bots, 0, ARRAY_SIZE(bot_cases));
	tcase_add_test(t, test_bots_configured);
	tcase_add_test(t, test_own_reply_back);
	tcase_add_test(t, test_reply_not_checked);
	tcase_add_test(t, test_list_cc);
	tcase_add_test(t, test_list_disabled);
	tcase_add_test(t, test_decided_once);
	tcase_add_test(t, test_decided_once_clean);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(pipeline_suite());
}
