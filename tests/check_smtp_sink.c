/*
 * check_smtp_sink - the SMTP sink.  The "unit" case needs no server: it
 * checks settings and envelopes, and the classification of replies from a
 * scripted fake server on a loopback port.  The "postfix*"
 * cases run against the real Postfix of tests/integration/smtp-sink.sh and
 * are only registered when it has set TAGBOT_SMTP_PORT and friends; the
 * script picks one with CK_RUN_CASE and checks the deliveries itself.
 * Without TAGBOT_SMTP_PORT a run says that it skipped them, and a run
 * asked for one of them (CK_RUN_CASE) is a skip (77), not an empty pass.
 */
#include "autoconf.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "config/secret.h"
#include "transport/smtp_sink.h"
#include "testhelp.h"

static const char *const to_author[] = { "author@example.org" };

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A whole test mail, CRLF; one body line starts with a dot (curl must
 * stuff it, the server unstuffs it). */
static const char *mail(const char *msgid, size_t *len)
{
	static char b[512];
	int n = snprintf(b, sizeof(b),
			 "From: tagbot <bot@example.org>\r\n"
			 "To: author@example.org\r\n"
			 "Subject: smtp-sink test\r\n"
			 "Message-ID: <%s>\r\n"
			 "\r\n"
			 "Hello,\r\n"
			 ".a line that starts with a dot\r\n"
			 "bye\r\n", msgid);

	ck_assert(n > 0 && (size_t)n < sizeof(b));
	*len = (size_t)n;
	return b;
}

static struct smtp_settings settings(const char *url, enum net_tls tls)
{
	struct smtp_settings s;

	smtp_settings_init(&s);
	s.url = url;
	s.tls = tls;
	s.connect_timeout_s = 5;
	s.timeout_s = 10;
	return s;
}

/* --- names, hosts, addresses, settings -------------------------------- */

START_TEST(test_tls_names)
{
	static const struct { const char *s; int rc; enum net_tls t; } cases[] = {
		{ "starttls", 0, NET_TLS_STARTTLS }, { "STARTTLS", 0, NET_TLS_STARTTLS },
		{ "implicit", 0, NET_TLS_IMPLICIT }, { "none", 0, NET_TLS_NONE },
		{ "ssl", -1, 0 }, { "", -1, 0 }, { NULL, -1, 0 },
	};
	enum net_tls t;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		t = (enum net_tls)99;
		ck_assert_int_eq(net_tls_parse(cases[i].s, &t), cases[i].rc);
		if (cases[i].rc == 0) {
			ck_assert_int_eq(t, cases[i].t);
			ck_assert_str_eq(net_tls_name(t), cases[i].s[0] == 'S' ? "starttls" : cases[i].s);
		}
	}
}
END_TEST

START_TEST(test_loopback_hosts)
{
	static const struct { const char *host; bool loop; } cases[] = {
		{ "127.0.0.1", true }, { "127.255.255.254", true }, { "127.1.2.3", true },
		{ "localhost", true }, { "LocalHost", true },
		{ "[::1]", true }, { "::1", true }, { "[0:0:0:0:0:0:0:1]", true },
		{ "[::ffff:127.0.0.1]", true },
		{ "128.0.0.1", false }, { "126.255.255.255", false }, { "10.0.0.1", false },
		{ "0.0.0.0", false }, { "[::]", false }, { "[::2]", false },
		{ "[::ffff:10.0.0.1]", false },
		{ "localhost.example.org", false }, { "127.0.0.1.nip.io", false },
		{ "mail.example.org", false }, { "", false }, { "[", false }, { "[]", false },
		{ NULL, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(smtp_host_is_loopback(cases[i].host) == cases[i].loop,
			      "%s", cases[i].host ? cases[i].host : "(null)");
}
END_TEST

START_TEST(test_addresses)
{
	static const struct { const char *a; bool ok; } cases[] = {
		{ "author@example.org", true }, { "a+tag@sub.example.org", true },
		{ "x@[127.0.0.1]", true }, { "j\xc3\xb6rg@example.org", true },
		{ "", false }, { "author", false }, { "@example.org", false },
		{ "author@", false }, { "a@b@c", false },
		{ "author@example.org>", false }, { "<author@example.org", false },
		{ "author @example.org", false }, { "author@exa\tmple.org", false },
		{ "author@example.org\r\nRCPT TO:<evil@example.com", false },
		{ "author@example.org\n", false }, { "a\x7f@example.org", false },
		{ NULL, false },
	};
	char longest[SMTP_ADDR_MAX + 2];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(smtp_addr_ok(cases[i].a) == cases[i].ok, "case %zu", i);
	memset(longest, 'a', sizeof(longest));
	memcpy(longest + SMTP_ADDR_MAX - 12, "@example.org", 13);	/* exactly the cap */
	ck_assert(smtp_addr_ok(longest));
	memset(longest, 'a', sizeof(longest));
	memcpy(longest + SMTP_ADDR_MAX - 11, "@example.org", 13);	/* one over */
	ck_assert(!smtp_addr_ok(longest));
}
END_TEST

static const struct settings_case {
	const char *url;
	enum net_tls tls;
	const char *user;
	const char *password;
	const char *msg;	/* NULL: accepted */
} settings_cases[] = {
	{ "smtp://127.0.0.1:2525", NET_TLS_NONE, NULL, NULL, NULL },
	{ "smtp://127.0.0.1", NET_TLS_NONE, "bot", "pw", NULL },
	{ "smtp://127.1:2525", NET_TLS_NONE, NULL, NULL, NULL },	/* curl reads 127.0.0.1 */
	{ "smtp://localhost:25/tagbot.example.org", NET_TLS_NONE, NULL, NULL, NULL },
	{ "smtp://[::1]:25", NET_TLS_NONE, NULL, NULL, NULL },
	{ "smtp://mail.example.org:587", NET_TLS_STARTTLS, "bot", "pw", NULL },
	{ "SMTP://mail.example.org", NET_TLS_STARTTLS, NULL, NULL, NULL },
	{ "smtps://mail.example.org:465", NET_TLS_IMPLICIT, NULL, NULL, NULL },
	{ "smtp://mail.example.org:25", NET_TLS_NONE, NULL, NULL,
	  "smtp: smtp://mail.example.org:25: tls = none is only allowed for loopback hosts" },
	{ "smtp://192.0.2.1", NET_TLS_NONE, NULL, NULL,
	  "smtp: smtp://192.0.2.1: tls = none is only allowed for loopback hosts" },
	{ "smtp://localhost.example.org", NET_TLS_NONE, NULL, NULL,
	  "smtp: smtp://localhost.example.org: tls = none is only allowed for loopback hosts" },
	{ "smtp://[::2]:25", NET_TLS_NONE, NULL, NULL,
	  "smtp: smtp://[::2]:25: tls = none is only allowed for loopback hosts" },
	{ "smtps://127.0.0.1", NET_TLS_NONE, NULL, NULL,
	  "smtp: smtps://127.0.0.1: tls = none needs a smtp:// url" },
	{ "smtp://mail.example.org", NET_TLS_IMPLICIT, NULL, NULL,
	  "smtp: smtp://mail.example.org: tls = implicit needs a smtps:// url" },
	{ "smtps://mail.example.org", NET_TLS_STARTTLS, NULL, NULL,
	  "smtp: smtps://mail.example.org: tls = starttls needs a smtp:// url" },
	{ "http://mail.example.org", NET_TLS_STARTTLS, NULL, NULL,
	  "smtp: http://mail.example.org: tls = starttls needs a smtp:// url" },
	{ "smtp://bot:hunter2@mail.example.org", NET_TLS_STARTTLS, NULL, NULL,
	  "smtp: the url must not hold a user name or password; use user and password_file" },
	{ "smtp://mail.example.org", NET_TLS_STARTTLS, "bot", NULL,
	  "smtp: smtp://mail.example.org: user is set but no password" },
	{ "smtp://mail example.org", NET_TLS_STARTTLS, NULL, NULL,
	  "smtp: smtp://mail example.org: not a valid URL" },
	{ "mail.example.org", NET_TLS_STARTTLS, NULL, NULL,
	  "smtp: mail.example.org: not a valid URL" },
	{ "", NET_TLS_STARTTLS, NULL, NULL, "smtp: no url" },
	{ NULL, NET_TLS_STARTTLS, NULL, NULL, "smtp: no url" },
};

START_TEST(test_settings_table)
{
	const struct settings_case *c = &settings_cases[_i];
	struct smtp_settings s = settings(c->url, c->tls);
	struct err e;
	int rc;

	s.user = c->user;
	s.password = c->password;
	err_init(&e);
	rc = smtp_check_settings(&s, &e);
	if (!c->msg) {
		ck_assert_msg(rc == 0, "%s: %s", c->url, e.msg);
		return;
	}
	ck_assert_msg(rc == -1, "%s accepted", c->url);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_str_eq(e.msg, c->msg);
	ck_assert_ptr_null(strstr(e.msg, "hunter2"));
}
END_TEST

START_TEST(test_defaults)
{
	struct smtp_settings s;

	memset(&s, 0x5a, sizeof(s));
	smtp_settings_init(&s);
	ck_assert_ptr_null(s.url);
	ck_assert_ptr_null(s.password);
	ck_assert_int_eq(s.tls, NET_TLS_STARTTLS);
	ck_assert_int_eq(s.connect_timeout_s, SMTP_CONNECT_TIMEOUT_S);
	ck_assert_int_eq(s.timeout_s, SMTP_TIMEOUT_S);
}
END_TEST

/*
 * Refusals before any connection: the url points at TEST-NET (192.0.2.1,
 * never routed) or at a loopback port, with a 5 s connect timeout, so a
 * quick answer with our own message shows nothing was tried.
 */
static const char *const rcpt_bad2[] = { "author@example.org", "x@example.org\r\nDATA" };
static const char *const rcpt_null[] = { NULL };

static const struct refuse_case {
	const char *url;
	enum net_tls tls;
	const char *from;
	const char *const *rcpt;
	size_t n;
	const char *data;	/* NULL: a good mail */
	size_t len;
	const char *msg;
} refuse_cases[] = {
	{ "smtp://192.0.2.1:25", NET_TLS_NONE, "bot@example.org", to_author, 1, NULL, 0,
	  "smtp: smtp://192.0.2.1:25: tls = none is only allowed for loopback hosts" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org>\r\nRSET", to_author, 1, NULL, 0,
	  "smtp: smtp://127.0.0.1:9: bad envelope sender" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, NULL, to_author, 1, NULL, 0,
	  "smtp: smtp://127.0.0.1:9: bad envelope sender" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", rcpt_bad2, 2, NULL, 0,
	  "smtp: smtp://127.0.0.1:9: bad recipient address #2" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", rcpt_null, 1, NULL, 0,
	  "smtp: smtp://127.0.0.1:9: bad recipient address #1" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", to_author, 0, NULL, 0,
	  "smtp: smtp://127.0.0.1:9: 0 recipients (1 to 100 allowed)" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", to_author, 1,
	  "Subject: x\r\n\r\nbare\nLF\r\n", 23,
	  "smtp: smtp://127.0.0.1:9: message has a bare LF at offset 18" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", to_author, 1,
	  "Subject: x\r\r\n\r\nbody\r\n", 21,
	  "smtp: smtp://127.0.0.1:9: message has a bare CR at offset 10" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", to_author, 1,
	  "Subject: x\r\n\r\nbo\0dy\r\n", 21,
	  "smtp: smtp://127.0.0.1:9: message has a NUL byte at offset 16" },
	{ "smtp://127.0.0.1:9", NET_TLS_NONE, "bot@example.org", to_author, 1,
	  "Subject: x\r\n\r\nbody\r", 19,
	  "smtp: smtp://127.0.0.1:9: message has a bare CR at offset 18" },
};

START_TEST(test_refused_before_connecting)
{
	const struct refuse_case *c = &refuse_cases[_i];
	struct smtp_settings s = settings(c->url, c->tls);
	const char *data = c->data;
	size_t len = c->len;
	struct err e;
	long t0 = now_ms();

	if (!data)
		data = mail("refused@tagbot.test", &len);
	err_init(&e);
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ c->from, c->rcpt, c->n, data, len }, NULL, &e), -1);
	/* bad settings are the sink's, the rest the reply's */
	ck_assert_int_eq(e.cls, strstr(c->msg, "tls = none") ? ERR_SETUP : ERR_FINAL);
	ck_assert_str_eq(e.msg, c->msg);
	ck_assert_int_lt(now_ms() - t0, 1000);
}
END_TEST

START_TEST(test_too_many_recipients)
{
	struct smtp_settings s = settings("smtp://127.0.0.1:9", NET_TLS_NONE);
	const char *r[SMTP_RCPT_MAX + 1];
	struct err e;
	size_t len;
	const char *m = mail("many@tagbot.test", &len);

	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		r[i] = "author@example.org";
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "", r, ARRAY_SIZE(r), m, len }, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "smtp: smtp://127.0.0.1:9: 101 recipients (1 to 100 allowed)");
}
END_TEST

/* --- a scripted fake server -------------------------------------------- */

struct fake {
	pid_t pid;
	int port;
	char url[64];
	char transcript[64];	/* what the client sent, one file per test */
};

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			_exit(1);
		s += w;
		n -= (size_t)w;
	}
}

/*
 * replies[0] is the greeting; then one reply per client line, except that
 * after a 354 the message is taken up to its "." first.  When the script
 * is done, a QUIT gets quit_reply (NULL: silence until the client gives up)
 * and anything else a hang-up.
 */
static void fake_serve(int ls, const char *const *replies, const char *quit_reply,
		       const char *transcript)
{
	int c = accept(ls, NULL, NULL);
	FILE *in = c < 0 ? NULL : fdopen(c, "r");
	FILE *log = fopen(transcript, "w");
	char line[1024];
	bool in_data = false;
	size_t i = 1;

	if (!in || !log)
		_exit(1);
	send_all(c, replies[0]);
	while (replies[i] && fgets(line, sizeof(line), in)) {
		fputs(line, log);
		fflush(log);
		if (in_data) {
			in_data = strcmp(line, ".\r\n") != 0;
			if (in_data)
				continue;
		}
		send_all(c, replies[i]);
		in_data = strncmp(replies[i], "354", 3) == 0;
		i++;
	}
	if (!replies[i] && fgets(line, sizeof(line), in)) {
		fputs(line, log);
		fflush(log);
		if (strcmp(line, "QUIT\r\n") == 0 && quit_reply)
			send_all(c, quit_reply);
		else if (strcmp(line, "QUIT\r\n") == 0)
			while (fgets(line, sizeof(line), in))
				;
	}
	fclose(log);
	_exit(0);
}

/* A listening socket on a free loopback port, named in f. */
static int fake_listen(struct fake *f)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(ls, 0);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 2), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	f->port = ntohs(sa.sin_port);
	snprintf(f->url, sizeof(f->url), "smtp://127.0.0.1:%d", f->port);
	snprintf(f->transcript, sizeof(f->transcript), "check_smtp_sink.%d.log", f->port);
	return ls;
}

static void fake_start_quit(struct fake *f, const char *const *replies,
			    const char *quit_reply)
{
	int ls = fake_listen(f);

	f->pid = fork();
	ck_assert_int_ge(f->pid, 0);
	if (f->pid == 0)
		fake_serve(ls, replies, quit_reply, f->transcript);
	close(ls);
}

static void fake_start(struct fake *f, const char *const *replies)
{
	fake_start_quit(f, replies, "221 2.0.0 bye\r\n");
}

/* Stops the fake and returns what the client sent (static). */
static const char *fake_stop(struct fake *f)
{
	static char b[4096];
	FILE *t;
	size_t n = 0;

	/* not SIGTERM: the fake inherited Check's handler, which would take
	 * the whole test's process group down with it */
	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	t = fopen(f->transcript, "r");
	if (t) {
		n = fread(b, 1, sizeof(b) - 1, t);
		fclose(t);
	}
	b[n] = '\0';
	unlink(f->transcript);
	return b;
}

#define R_EHLO	"250-fake.example\r\n250 SIZE 1000000\r\n"
#define R_250	"250 2.0.0 ok\r\n"

static const char *const script_greet_421[] = { "421 4.3.2 busy, try later\r\n", NULL };
static const char *const script_greet_554[] = { "554 5.3.2 no service for you\r\n", NULL };
static const char *const script_rcpt_452[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, "452 4.2.2 mailbox full\r\n", NULL };
static const char *const script_rcpt_550[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, "550 5.1.1 no such user\r\n", NULL };
static const char *const script_mail_553[] = {
	"220 fake ESMTP\r\n", R_EHLO, "553 5.7.1 sender not allowed\r\n", NULL };
static const char *const script_mail_552[] = {
	"220 fake ESMTP\r\n", R_EHLO, "552 5.3.4 message size exceeds limit\r\n", NULL };
static const char *const script_ehlo_554[] = {
	"220 fake ESMTP\r\n", "554 5.7.1 go away\r\n", "554 5.7.1 go away\r\n", NULL };
static const char *const script_data_552[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250, "354 go ahead\r\n",
	"552 5.3.4 message too big\r\n", NULL };
static const char *const script_data_451[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250, "354 go ahead\r\n",
	"451 4.3.0 queue write error\r\n", NULL };
static const char *const script_hangup_after_mail[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, NULL };
static const char *const script_no_starttls[] = { "220 fake ESMTP\r\n", R_EHLO, NULL };
static const char *const script_ok[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250, "354 go ahead\r\n",
	"250 2.0.0 queued as 1234\r\n", NULL };
static const char *const script_ok2[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250, R_250, "354 go ahead\r\n",
	"250 2.0.0 queued as 1235\r\n", NULL };

static const struct fake_case {
	const char *const *script;
	enum net_tls tls;
	size_t nrcpt;
	enum err_class cls;
	const char *msg;	/* after "smtp: URL: " */
} fake_cases[] = {
	{ script_greet_421, NET_TLS_NONE, 1, ERR_TEMP, "421 4.3.2 busy, try later" },
	{ script_greet_554, NET_TLS_NONE, 1, ERR_SETUP, "554 5.3.2 no service for you" },
	{ script_ehlo_554, NET_TLS_NONE, 1, ERR_SETUP, "554 5.7.1 go away" },
	{ script_mail_553, NET_TLS_NONE, 1, ERR_SETUP, "553 5.7.1 sender not allowed" },
	{ script_mail_552, NET_TLS_NONE, 1, ERR_FINAL, "552 5.3.4 message size exceeds limit" },
	{ script_rcpt_452, NET_TLS_NONE, 1, ERR_TEMP, "452 4.2.2 mailbox full" },
	{ script_rcpt_550, NET_TLS_NONE, 1, ERR_FINAL, "550 5.1.1 no such user" },
	{ script_data_552, NET_TLS_NONE, 1, ERR_FINAL, "552 5.3.4 message too big" },
	{ script_data_451, NET_TLS_NONE, 1, ERR_TEMP, "451 4.3.0 queue write error" },
	{ script_no_starttls, NET_TLS_STARTTLS, 1, ERR_SETUP, "the server does not offer STARTTLS" },
};

START_TEST(test_fake_replies)
{
	static const char *const two[] = { "author@example.org", "list@example.org" };
	const struct fake_case *c = &fake_cases[_i];
	struct fake f;
	struct smtp_settings s;
	struct err e;
	char want[256];
	size_t len;
	const char *m = mail("fake@tagbot.test", &len), *t;

	fake_start(&f, c->script);
	s = settings(f.url, c->tls);
	err_init(&e);
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", two, c->nrcpt, m, len }, NULL, &e), -1);
	t = fake_stop(&f);
	ck_assert_int_eq(e.cls, c->cls);
	snprintf(want, sizeof(want), "smtp: %s: %s", f.url, c->msg);
	ck_assert_str_eq(e.msg, want);
	/* A refused recipient means no DATA at all: nothing half-sent. */
	if (strstr(c->msg, "no such user") || strstr(c->msg, "mailbox full"))
		ck_assert_ptr_null(strstr(t, "DATA"));
}
END_TEST

START_TEST(test_fake_hangup_is_temporary)
{
	struct fake f;
	struct smtp_settings s;
	struct err e;
	size_t len;
	const char *m = mail("hangup@tagbot.test", &len);

	fake_start(&f, script_hangup_after_mail);
	s = settings(f.url, NET_TLS_NONE);
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", to_author, 1, m, len }, NULL, &e), -1);
	fake_stop(&f);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	ck_assert_msg(strncmp(e.msg, "smtp: smtp://127.0.0.1:", 23) == 0, "%s", e.msg);
}
END_TEST

/*
 * Recipients the server refuses, followed through the dialogue: a refused
 * Cc is dropped and named (a multi-line answer by its last line); the
 * first recipient (the reply's To:) refused ends the session after DATA,
 * before any of the message, so nobody gets it.
 */
static const char *const script_cc_550[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250,
	"550-5.1.1 the first line\r\n550 5.1.1 no such user\r\n", R_250, "354 go ahead\r\n",
	"250 2.0.0 queued as 1236\r\n", NULL };
static const char *const script_first_550[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, "550 5.1.1 no such user\r\n", R_250, R_250,
	"354 go ahead\r\n", "250 2.0.0 queued as 1237\r\n", NULL };
static const char *const script_first_452[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, "452 4.2.2 mailbox full\r\n", R_250, R_250,
	"354 go ahead\r\n", "250 2.0.0 queued as 1238\r\n", NULL };

static const struct rcpt_case {
	const char *const *script;
	int rc;
	enum err_class cls;	/* rc -1 */
	const char *text;	/* rc 0: refused.text; -1: e.msg after "smtp: URL: " */
} rcpt_cases[] = {
	{ script_cc_550, 0, ERR_NONE, "refused recipient, not sent to: list@example.org "
	  "(list@example.org: 550 5.1.1 no such user)" },
	{ script_first_550, -1, ERR_FINAL, "550 5.1.1 no such user" },
	{ script_first_452, -1, ERR_TEMP, "452 4.2.2 mailbox full" },
};

START_TEST(test_fake_refused_recipients)
{
	static const char *const three[] = { "author@example.org", "list@example.org",
					     "bot@example.org" };
	const struct rcpt_case *c = &rcpt_cases[_i];
	struct smtp_refused r;
	struct smtp_settings s;
	struct fake f;
	struct err e;
	char want[256];
	size_t len;
	const char *m = mail("refused@tagbot.test", &len), *t;
	long t0 = now_ms();

	fake_start(&f, c->script);
	s = settings(f.url, NET_TLS_NONE);
	err_init(&e);
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", three, 3, m, len }, &r, &e), c->rc);
	ck_assert_int_lt(now_ms() - t0, 3000);
	t = fake_stop(&f);
	if (c->rc == 0) {
		ck_assert_uint_eq(r.n, 1);
		ck_assert(!r.which[0] && r.which[1] && !r.which[2]);
		ck_assert_str_eq(r.text, c->text);
		ck_assert_msg(strstr(t, "bye\r\n.\r\n") != NULL, "%s", t);
		return;
	}
	ck_assert_int_eq(e.cls, c->cls);
	snprintf(want, sizeof(want), "smtp: %s: %s", f.url, c->text);
	ck_assert_str_eq(e.msg, want);
	/* curl went on to DATA for the other two, and stopped there */
	ck_assert_msg(strstr(t, "RCPT TO:<bot@example.org>\r\nDATA\r\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "Hello,") == NULL && strstr(t, "\r\n.\r\n") == NULL, "%s", t);
}
END_TEST

/* What goes over the wire: the envelope in <>, the null sender, the
 * message dot-stuffed and ended with a lone dot. */
START_TEST(test_fake_transcript)
{
	static const char *const two[] = { "author@example.org", "list@example.org" };
	struct fake f;
	struct smtp_settings s;
	struct err e;
	size_t len;
	const char *m = mail("transcript@tagbot.test", &len), *t;

	fake_start(&f, script_ok2);
	s = settings(f.url, NET_TLS_NONE);
	err_init(&e);
	ck_assert_msg(smtp_send(&s, &(struct smtp_mail){ "", two, 2, m, len }, NULL, &e) == 0, "%s", e.msg);
	t = fake_stop(&f);
	ck_assert_msg(strstr(t, "MAIL FROM:<>") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "RCPT TO:<author@example.org>\r\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "RCPT TO:<list@example.org>\r\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "Message-ID: <transcript@tagbot.test>\r\n\r\nHello,\r\n"
			     "..a line that starts with a dot\r\nbye\r\n.\r\n") != NULL, "%s", t);
}
END_TEST

/* A server that takes the message but never answers QUIT holds us for
 * timeout_s at most (curl would wait 120 s), and the message counts as sent. */
START_TEST(test_fake_silent_quit)
{
	struct fake f;
	struct smtp_settings s;
	struct err e;
	size_t len;
	const char *m = mail("quit@tagbot.test", &len);
	long t0 = now_ms();

	fake_start_quit(&f, script_ok, NULL);
	s = settings(f.url, NET_TLS_NONE);
	s.timeout_s = 1;
	ck_assert_msg(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", to_author, 1, m, len }, NULL, &e) == 0, "%s", e.msg);
	ck_assert_int_lt(now_ms() - t0, 2500);
	fake_stop(&f);
}
END_TEST

/* A server that accepts the connection but never greets: the total
 * timeout ends it, and that is worth a retry. */
START_TEST(test_silent_server_times_out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	char url[64];
	struct smtp_settings s;
	struct err e;
	size_t len;
	const char *m = mail("silent@tagbot.test", &len);
	long t0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 1), 0);	/* the kernel completes the handshake */
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", ntohs(sa.sin_port));
	s = settings(url, NET_TLS_NONE);
	s.timeout_s = 1;
	t0 = now_ms();
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", to_author, 1, m, len }, NULL, &e), -1);
	ck_assert_int_lt(now_ms() - t0, 3000);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	ck_assert_msg(strstr(e.msg, "timed out") != NULL, "%s", e.msg);
	close(ls);
}
END_TEST

/* A loopback socket whose connections the kernel accepts and nobody
 * answers; its URL into url. */
static int tarpit(char *url, size_t n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 4), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	snprintf(url, n, "smtp://127.0.0.1:%d", ntohs(sa.sin_port));
	return ls;
}

/* connect_timeout_s bounds the wait for the greeting, whatever timeout_s
 * says: a tarpit costs 1 s, not 30. */
START_TEST(test_tarpit_connect_timeout)
{
	char url[64];
	int ls = tarpit(url, sizeof(url));
	struct smtp_settings s = settings(url, NET_TLS_NONE);
	struct err e;
	size_t len;
	const char *m = mail("tarpit@tagbot.test", &len);
	long t0 = now_ms();

	s.connect_timeout_s = 1;
	s.timeout_s = 30;
	ck_assert_int_eq(smtp_send(&s, &(struct smtp_mail){ "bot@example.org", to_author, 1, m, len }, NULL, &e), -1);
	ck_assert_int_lt(now_ms() - t0, 2500);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	ck_assert_msg(strstr(e.msg, "timed out") != NULL, "%s", e.msg);
	close(ls);
}
END_TEST

/* A send in progress is dropped at once when the pool is freed (the
 * daemon's SIGTERM): no QUIT waited for on a session never set up. */
START_TEST(test_pool_free_drops_stuck_send)
{
	char url[64];
	int ls = tarpit(url, sizeof(url));
	struct smtp_settings s = settings(url, NET_TLS_NONE);
	struct smtp_pool *p = smtp_pool_new(2);
	struct err e;
	size_t len;
	const char *m = mail("tarpit-pool@tagbot.test", &len);
	void *got = NULL;
	long t0;
	int a;

	s.connect_timeout_s = 60;
	s.timeout_s = 60;
	ck_assert_msg(smtp_pool_start(p, &s, "bot@example.org", to_author, 1, m, len, &a, &e) == 0,
		      "%s", e.msg);
	t0 = now_ms();
	while (now_ms() - t0 < 500) {
		ck_assert_int_eq(smtp_pool_next(p, false, &got, NULL, &e), SMTP_NEXT_NONE);
		smtp_pool_poll(p, 100);
	}
	ck_assert_uint_eq(smtp_pool_running(p), 1);
	t0 = now_ms();
	smtp_pool_free(p);
	ck_assert_int_lt(now_ms() - t0, 500);
	close(ls);
}
END_TEST

/* --- the pool ---------------------------------------------------------- */

/* Two transactions on one connection: the second one starts at MAIL FROM. */
static const char *const script_ok_twice[] = {
	"220 fake ESMTP\r\n", R_EHLO, R_250, R_250, "354 go ahead\r\n",
	"250 2.0.0 queued as 1\r\n", R_250, R_250, "354 go ahead\r\n",
	"250 2.0.0 queued as 2\r\n", NULL };

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Starts one submission of msgid with tag, and waits for it to end. */
static int pool_one(struct smtp_pool *p, const struct smtp_settings *s, const char *msgid,
		    void *tag, struct err *e)
{
	size_t len;
	const char *m = mail(msgid, &len);
	void *got = NULL;
	size_t idle = smtp_pool_idle(p);
	int rc;

	err_init(e);
	ck_assert_msg(smtp_pool_start(p, s, "bot@example.org", to_author, 1, m, len, tag, e) == 0,
		      "%s", e->msg);
	ck_assert_uint_eq(smtp_pool_idle(p), idle - 1);
	rc = smtp_pool_next(p, true, &got, NULL, e);
	ck_assert_ptr_eq(got, tag);
	ck_assert_uint_eq(smtp_pool_idle(p), idle);
	return rc;
}

START_TEST(test_pool_reuses_connection)
{
	struct fake f;
	struct smtp_settings s;
	struct smtp_pool *p = smtp_pool_new(1);
	struct err e;
	int a, b;
	const char *t;
	void *none = &a;

	fake_start(&f, script_ok_twice);
	s = settings(f.url, NET_TLS_NONE);
	ck_assert_msg(pool_one(p, &s, "reuse-1@tagbot.test", &a, &e) == 0, "%s", e.msg);
	ck_assert_msg(pool_one(p, &s, "reuse-2@tagbot.test", &b, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(smtp_pool_connects(p), 1);
	ck_assert_int_eq(smtp_pool_next(p, true, &none, NULL, &e), SMTP_NEXT_NONE);	/* none running */
	smtp_pool_free(p);
	t = fake_stop(&f);
	ck_assert_uint_eq(count_of(t, "EHLO "), 1);
	ck_assert_uint_eq(count_of(t, "MAIL FROM:<bot@example.org>"), 2);
	ck_assert_msg(strstr(t, "Message-ID: <reuse-2@tagbot.test>") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "QUIT\r\n") != NULL, "%s", t);
}
END_TEST

/* A refusal by the server comes back from smtp_pool_next, classified as by
 * smtp_send; one refused before connecting never starts. */
START_TEST(test_pool_outcomes)
{
	struct fake f;
	struct smtp_settings s;
	struct smtp_pool *p = smtp_pool_new(2);
	static const char *const bad[] = { "no-at-sign" };
	struct err e;
	size_t len;
	const char *m = mail("bad@tagbot.test", &len);
	int a;
	void *got = NULL;

	fake_start(&f, script_rcpt_550);
	s = settings(f.url, NET_TLS_NONE);
	ck_assert_int_eq(smtp_pool_start(p, &s, "bot@example.org", bad, 1, m, len, &a, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_uint_eq(smtp_pool_idle(p), 2);
	ck_assert_int_eq(smtp_pool_next(p, true, &got, NULL, &e), SMTP_NEXT_NONE);
	ck_assert_int_eq(pool_one(p, &s, "rcpt-550@tagbot.test", &a, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_msg(strstr(e.msg, "550 5.1.1 no such user") != NULL, "%s", e.msg);
	smtp_pool_free(p);
	fake_stop(&f);
}
END_TEST

/* Two at once need two connections: two fakes on one listening socket take
 * one each.  Had the pool put both on one connection, the second fake would
 * never be reached and the first would hang up at the second MAIL FROM. */
START_TEST(test_pool_parallel)
{
	struct fake f, g;
	struct smtp_settings s;
	struct smtp_pool *p = smtp_pool_new(SMTP_PARALLEL_DEFAULT);
	struct err e;
	size_t len;
	char m[2][512];
	int tags[2], seen[2] = { 0, 0 };
	int ls = fake_listen(&f);
	const char *t;

	g = f;
	snprintf(g.transcript, sizeof(g.transcript), "check_smtp_sink.%d.b.log", f.port);
	for (struct fake *x = &f; x; x = x == &f ? &g : NULL) {
		x->pid = fork();
		ck_assert_int_ge(x->pid, 0);
		if (x->pid == 0)
			fake_serve(ls, script_ok, "221 2.0.0 bye\r\n", x->transcript);
	}
	close(ls);
	s = settings(f.url, NET_TLS_NONE);
	for (int i = 0; i < 2; i++) {
		char id[32];
		const char *one;

		snprintf(id, sizeof(id), "par-%d@tagbot.test", i);
		one = mail(id, &len);
		memcpy(m[i], one, len);
		ck_assert_msg(smtp_pool_start(p, &s, "bot@example.org", to_author, 1, m[i], len,
					      &tags[i], &e) == 0, "%s", e.msg);
	}
	ck_assert_uint_eq(smtp_pool_idle(p), SMTP_PARALLEL_DEFAULT - 2);
	for (int i = 0; i < 2; i++) {
		void *got = NULL;

		ck_assert_msg(smtp_pool_next(p, true, &got, NULL, &e) == 0, "%s", e.msg);
		ck_assert(got == &tags[0] || got == &tags[1]);
		seen[got == &tags[1]]++;
	}
	ck_assert_int_eq(seen[0], 1);
	ck_assert_int_eq(seen[1], 1);
	ck_assert_uint_eq(smtp_pool_connects(p), 2);
	smtp_pool_free(p);
	t = fake_stop(&f);
	ck_assert_uint_eq(count_of(t, "MAIL FROM:"), 1);
	t = fake_stop(&g);
	ck_assert_uint_eq(count_of(t, "MAIL FROM:"), 1);
}
END_TEST

/* A url with a password is refused before anything quotes it, even when
 * every connection is busy (that message names the url). */
START_TEST(test_pool_busy_hides_credentials)
{
	struct fake f;
	struct smtp_settings s, bad;
	struct smtp_pool *p = smtp_pool_new(1);
	struct err e;
	char url[96];
	size_t len;
	const char *m = mail("pool-busy@tagbot.test", &len);
	int a, b;
	void *got = NULL;

	fake_start(&f, script_ok);
	s = settings(f.url, NET_TLS_NONE);
	snprintf(url, sizeof(url), "smtp://bot:hunter2@127.0.0.1:%d", f.port);
	bad = settings(url, NET_TLS_NONE);
	err_init(&e);
	ck_assert_msg(smtp_pool_start(p, &s, "bot@example.org", to_author, 1, m, len, &a, &e) == 0,
		      "%s", e.msg);
	ck_assert_uint_eq(smtp_pool_idle(p), 0);
	ck_assert_int_eq(smtp_pool_start(p, &bad, "bot@example.org", to_author, 1, m, len, &b, &e),
			 -1);
	ck_assert_int_eq(e.cls, ERR_SETUP);
	ck_assert_msg(!strstr(e.msg, "hunter2") && strstr(e.msg, "must not hold a user name"),
		      "%s", e.msg);
	ck_assert_msg(smtp_pool_next(p, true, &got, NULL, &e) == 0, "%s", e.msg);
	ck_assert_ptr_eq(got, &a);
	smtp_pool_free(p);
	fake_stop(&f);
}
END_TEST

/* The QUIT at the end is bounded by timeout_s, as smtp_send's. */
START_TEST(test_pool_silent_quit)
{
	struct fake f;
	struct smtp_settings s;
	struct smtp_pool *p = smtp_pool_new(1);
	struct err e;
	int a;
	long t0;

	fake_start_quit(&f, script_ok, NULL);
	s = settings(f.url, NET_TLS_NONE);
	s.timeout_s = 1;
	ck_assert_msg(pool_one(p, &s, "pool-quit@tagbot.test", &a, &e) == 0, "%s", e.msg);
	t0 = now_ms();
	smtp_pool_free(p);
	ck_assert_int_lt(now_ms() - t0, 2500);
	fake_stop(&f);
}
END_TEST

/* --- the real Postfix (tests/integration/smtp-sink.sh) ----------------- */

static const char *env(const char *name)
{
	const char *v = getenv(name);

	ck_assert_msg(v && *v, "%s is not set", name);
	return v;
}

static const char *url_for(const char *scheme, const char *host, const char *port_var)
{
	static char b[4][96];
	static int next;
	char *u = b[next++ % 4];

	snprintf(u, sizeof(b[0]), "%s://%s:%s", scheme, host, env(port_var));
	return u;
}

/* Sends msgid to author@; prints the outcome, which the script greps for
 * the password (the message must never hold it). */
static int send_refused(struct smtp_settings *s, const char *const *rcpt, size_t n,
			const char *msgid, struct smtp_refused *r, struct err *e)
{
	size_t len;
	const char *m = mail(msgid, &len);
	int rc;

	err_init(e);
	rc = smtp_send(s, &(struct smtp_mail){ "bot@example.org", rcpt, n, m, len }, r, e);
	printf("%s: %s%s%s\n", msgid, rc == 0 ? "sent" : e->msg, rc == 0 && r->n ? ", " : "",
	       rc == 0 && r->n ? r->text : "");
	fflush(stdout);
	return rc;
}

static int send_to(struct smtp_settings *s, const char *const *rcpt, size_t n,
		   const char *msgid, struct err *e)
{
	struct smtp_refused r;

	return send_refused(s, rcpt, n, msgid, &r, e);
}

static void ca(struct smtp_settings *s)
{
	s->ca_file = env("TAGBOT_SMTP_CA");
}

START_TEST(test_pf_starttls_delivers)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct err e;

	ca(&s);
	ck_assert_msg(send_to(&s, to_author, 1, "starttls.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
	/* the certificate names localhost too */
	s.url = url_for("smtp", "localhost", "TAGBOT_SMTP_PORT");
	ck_assert_msg(send_to(&s, to_author, 1, "localhost.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
}
END_TEST

START_TEST(test_pf_implicit_delivers)
{
	struct smtp_settings s = settings(url_for("smtps", "127.0.0.1", "TAGBOT_SMTPS_PORT"),
					  NET_TLS_IMPLICIT);
	struct err e;

	ca(&s);
	ck_assert_msg(send_to(&s, to_author, 1, "implicit.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
}
END_TEST

START_TEST(test_pf_none_on_loopback)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_NONE);
	struct err e;

	ck_assert_msg(send_to(&s, to_author, 1, "none.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
}
END_TEST

START_TEST(test_pf_wrong_ca)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct smtp_settings si = settings(url_for("smtps", "127.0.0.1", "TAGBOT_SMTPS_PORT"),
					   NET_TLS_IMPLICIT);
	char want[128];
	struct err e;

	s.ca_file = si.ca_file = env("TAGBOT_SMTP_WRONG_CA");
	ck_assert_int_eq(send_to(&s, to_author, 1, "wrong-ca.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_SETUP);
	snprintf(want, sizeof(want), "smtp: %s: TLS certificate verification failed", s.url);
	ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);

	ck_assert_int_eq(send_to(&si, to_author, 1, "wrong-ca-implicit.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_SETUP);
	snprintf(want, sizeof(want), "smtp: %s: TLS certificate verification failed", si.url);
	ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
}
END_TEST

/* No ca_file: the system store does not know the test CA either. */
START_TEST(test_pf_system_store_refuses)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct err e;

	ck_assert_int_eq(send_to(&s, to_author, 1, "no-ca.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_SETUP);
	ck_assert_msg(strstr(e.msg, "TLS certificate verification failed") != NULL, "%s", e.msg);
}
END_TEST

START_TEST(test_pf_closed_port)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_CLOSED_PORT"),
					  NET_TLS_STARTTLS);
	char want[96];
	struct err e;

	ca(&s);
	ck_assert_int_eq(send_to(&s, to_author, 1, "closed.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	snprintf(want, sizeof(want), "smtp: %s: ", s.url);
	ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
}
END_TEST

/* The script maps rejected.invalid to REJECT and deferred.invalid to DEFER
 * in smtpd_recipient_restrictions. */
START_TEST(test_pf_5xx_is_final)
{
	static const char *const rejected[] = { "someone@rejected.invalid" };
	static const char *const first[] = { "someone@rejected.invalid", "author@example.org" };
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	char want[192];
	struct err e;

	ca(&s);
	snprintf(want, sizeof(want), "smtp: %s: 554 5.7.1 <someone@rejected.invalid>: "
		 "Recipient address rejected: Access denied", s.url);
	ck_assert_int_eq(send_to(&s, rejected, 1, "rejected.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_str_eq(e.msg, want);
	/* The first recipient (the reply's To:) refused: nobody gets it,
	 * although Postfix took author@ (the script checks). */
	ck_assert_int_eq(send_to(&s, first, 2, "first-refused.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_str_eq(e.msg, want);
}
END_TEST

/* A refused Cc is dropped: the others get the mail (the script checks). */
START_TEST(test_pf_refused_cc_dropped)
{
	static const char *const mixed[] = { "author@example.org", "someone@rejected.invalid",
					     "maint@example.org", "other@deferred.invalid" };
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct smtp_refused r;
	struct err e;

	ca(&s);
	ck_assert_msg(send_refused(&s, mixed, 4, "mixed.smtp-sink@tagbot.test", &r, &e) == 0,
		      "%s", e.msg);
	ck_assert_uint_eq(r.n, 2);
	ck_assert(!r.which[0] && r.which[1] && !r.which[2] && r.which[3]);
	ck_assert_msg(strstr(r.text, "not sent to: someone@rejected.invalid other@deferred.invalid "
			     "(someone@rejected.invalid: 554 5.7.1 <someone@rejected.invalid>:")
		      != NULL, "%s", r.text);
	ck_assert_msg(strstr(r.text, "other@deferred.invalid: 450 4.7.1 ") != NULL, "%s", r.text);
}
END_TEST

START_TEST(test_pf_4xx_is_temporary)
{
	static const char *const deferred[] = { "someone@deferred.invalid" };
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	char want[192];
	struct err e;

	ca(&s);
	snprintf(want, sizeof(want), "smtp: %s: 450 4.7.1 <someone@deferred.invalid>: "
		 "Recipient address rejected: Access denied", s.url);
	ck_assert_int_eq(send_to(&s, deferred, 1, "deferred.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	ck_assert_str_eq(e.msg, want);
}
END_TEST

/* AUTH through Postfix's Dovecot SASL, the password read by the secret
 * module from the harness's 0600 file. */
START_TEST(test_pf_auth)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	char *pw;
	struct err e;

	ca(&s);
	ck_assert_msg(secret_read_file(env("TAGBOT_SMTP_PASSWORD_FILE"), &pw, &e) == 0,
		      "%s", e.msg);
	s.user = "bot@example.org";
	s.password = pw;
	ck_assert_msg(send_to(&s, to_author, 1, "auth.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
	secret_free(pw);
}
END_TEST

#define WRONG_PASSWORD "Wr0ng-pa55-4-tagbot"

START_TEST(test_pf_auth_wrong_password)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct err e;

	ca(&s);
	s.user = "bot@example.org";
	s.password = WRONG_PASSWORD;
	ck_assert_int_eq(send_to(&s, to_author, 1, "auth-wrong.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_SETUP);
	ck_assert_msg(strstr(e.msg, ": 535 ") != NULL, "%s", e.msg);
	ck_assert_ptr_null(strstr(e.msg, WRONG_PASSWORD));
}
END_TEST

/* Run by the script with Postfix stopped, then again once it is back. */
START_TEST(test_pf_down)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct err e;

	ca(&s);
	ck_assert_int_eq(send_to(&s, to_author, 1, "restart.smtp-sink@tagbot.test", &e), -1);
	ck_assert_int_eq(e.cls, ERR_TEMP);
}
END_TEST

START_TEST(test_pf_up)
{
	struct smtp_settings s = settings(url_for("smtp", "127.0.0.1", "TAGBOT_SMTP_PORT"),
					  NET_TLS_STARTTLS);
	struct err e;

	ca(&s);
	ck_assert_msg(send_to(&s, to_author, 1, "restart.smtp-sink@tagbot.test", &e) == 0,
		      "%s", e.msg);
}
END_TEST

static void add_postfix_cases(Suite *s)
{
	TCase *pf = tcase_create("postfix");
	TCase *down = tcase_create("postfix-down"), *up = tcase_create("postfix-up");

	tcase_set_timeout(pf, 60);
	tcase_add_test(pf, test_pf_starttls_delivers);
	tcase_add_test(pf, test_pf_implicit_delivers);
	tcase_add_test(pf, test_pf_none_on_loopback);
	tcase_add_test(pf, test_pf_wrong_ca);
	tcase_add_test(pf, test_pf_system_store_refuses);
	tcase_add_test(pf, test_pf_closed_port);
	tcase_add_test(pf, test_pf_5xx_is_final);
	tcase_add_test(pf, test_pf_4xx_is_temporary);
	tcase_add_test(pf, test_pf_refused_cc_dropped);
	tcase_add_test(pf, test_pf_auth);
	tcase_add_test(pf, test_pf_auth_wrong_password);
	suite_add_tcase(s, pf);
	tcase_set_timeout(down, 60);
	tcase_add_test(down, test_pf_down);
	suite_add_tcase(s, down);
	tcase_set_timeout(up, 60);
	tcase_add_test(up, test_pf_up);
	suite_add_tcase(s, up);
}

static Suite *smtp_suite(void)
{
	Suite *s = suite_create("smtp_sink");
	TCase *u = tcase_create("unit");

	tcase_add_test(u, test_tls_names);
	tcase_add_test(u, test_loopback_hosts);
	tcase_add_test(u, test_addresses);
	tcase_add_loop_test(u, test_settings_table, 0, ARRAY_SIZE(settings_cases));
	tcase_add_test(u, test_defaults);
	tcase_add_loop_test(u, test_refused_before_connecting, 0, ARRAY_SIZE(refuse_cases));
	tcase_add_test(u, test_too_many_recipients);
	tcase_add_loop_test(u, test_fake_replies, 0, ARRAY_SIZE(fake_cases));
	tcase_add_test(u, test_fake_hangup_is_temporary);
	tcase_add_test(u, test_fake_transcript);
	tcase_add_loop_test(u, test_fake_refused_recipients, 0, ARRAY_SIZE(rcpt_cases));
	tcase_add_test(u, test_fake_silent_quit);
	tcase_add_test(u, test_silent_server_times_out);
	tcase_add_test(u, test_tarpit_connect_timeout);
	tcase_add_test(u, test_pool_free_drops_stuck_send);
	tcase_add_test(u, test_pool_reuses_connection);
	tcase_add_test(u, test_pool_outcomes);
	tcase_add_test(u, test_pool_parallel);
	tcase_add_test(u, test_pool_silent_quit);
	tcase_add_test(u, test_pool_busy_hides_credentials);
	suite_add_tcase(s, u);
	if (getenv("TAGBOT_SMTP_PORT"))
		add_postfix_cases(s);
	return s;
}

#define SKIP_EXIT	77	/* automake's "skipped" */

int main(void)
{
	const char *only = getenv("CK_RUN_CASE");

	if (!getenv("TAGBOT_SMTP_PORT")) {
		if (only && !strncmp(only, "postfix", 7)) {
			printf("SKIP: case %s needs the Postfix of tests/integration/smtp-sink.sh "
			       "(TAGBOT_SMTP_PORT is not set)\n", only);
			return SKIP_EXIT;
		}
		printf("SKIP: cases postfix, postfix-down, postfix-up: run by "
		       "tests/integration/smtp-sink.sh (TAGBOT_SMTP_PORT is not set)\n");
		fflush(stdout);
	}
	return th_run_suite_transport(smtp_suite());
}
