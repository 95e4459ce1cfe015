/*
 * check_imap_source - imap_source against a real Dovecot.  Run by
 * tests/integration/imap-source.sh, which starts the server and exports
 * IMAP_PORT, IMAPS_PORT, TEST_CA, TEST_WRONG_CA, SRV_DIR and DOVECOT_CONF;
 * without them the suite skips (77).
 */
#include "autoconf.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "transport/imap_source.h"
#include "testhelp.h"

#define USER		"bot@example.org"
#define PASSWORD	"secret"
#define BAD_PASSWORD	"hunter2-not-the-password"

static int imap_port, imaps_port;
static const char *ca, *wrong_ca, *srv_dir, *dovecot_conf;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		;
}

/* Plain IMAP on loopback, folder as given: the fast setup most cases use. */
static void base(struct imap_settings *s, const char *folder)
{
	imap_settings_init(s);
	s->host = "127.0.0.1";
	s->port = imap_port;
	s->tls = NET_TLS_NONE;
	s->user = USER;
	s->password = PASSWORD;
	s->folder = folder;
	s->timeout_s = 20;
}

static void tls_base(struct imap_settings *s, enum net_tls tls)
{
	base(s, "INBOX");
	s->tls = tls;
	s->port = tls == NET_TLS_IMPLICIT ? imaps_port : imap_port;
	s->ca_file = ca;
}

static struct imap_source *open_ok(const struct imap_settings *s)
{
	struct imap_source *src;
	struct err e;

	err_init(&e);
	ck_assert_msg(imap_open(&src, s, &e) == 0, "imap_open: %s", e.msg);
	ck_assert_ptr_nonnull(src);
	return src;
}

/* imap_open must fail with cls; returns the message (static). */
static const char *open_fails(const struct imap_settings *s, enum err_class cls)
{
	static struct err e;
	struct imap_source *src = (struct imap_source *)1;

	err_init(&e);
	ck_assert_int_eq(imap_open(&src, s, &e), -1);
	ck_assert_ptr_null(src);
	ck_assert_msg(e.cls == cls, "class %d, want %d: %s", e.cls, cls, e.msg);
	ck_assert_msg(!strstr(e.msg, s->password), "password in \"%s\"", e.msg);
	return e.msg;
}

static void assert_prefix(const char *msg, int port)
{
	char want[64];

	snprintf(want, sizeof(want), "imap: 127.0.0.1:%d: ", port);
	ck_assert_msg(!strncmp(msg, want, strlen(want)), "\"%s\" does not start \"%s\"", msg, want);
}

/* Test mail i: CRLF, a Message-ID, a body whose length grows with i. */
static char *mail(const char *tag, int i, size_t *len)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "From: Author <author@example.org>\r\nTo: " USER "\r\n"
		   "Subject: [PATCH] %s %d\r\nMessage-ID: <%s.%d@example.org>\r\n\r\n",
		   tag, i, tag, i);
	for (int k = 0; k <= i; k++)
		buf_printf(&b, "line %d of mail %d\r\n", k, i);
	return buf_detach(&b, len);
}

static void append_ok(struct imap_source *src, const char *folder, const char *raw, size_t len,
		      bool seen)
{
	struct err e;

	err_init(&e);
	ck_assert_msg(imap_append(src, folder, raw, len, seen, &e) == 0, "append: %s", e.msg);
}

/* Appends one mail to folder over a connection of its own. */
static void append_other(const char *folder, const char *tag, int i)
{
	struct imap_settings s;
	struct imap_source *other;
	size_t len;
	char *raw = mail(tag, i, &len);

	base(&s, "INBOX");
	other = open_ok(&s);
	append_ok(other, folder, raw, len, false);
	imap_close(other);
	free(raw);
}

/* Forks a child that waits ms, appends one mail to folder, and exits. */
static pid_t append_later(const char *folder, long ms)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		msleep(ms);
		append_other(folder, "later", 1);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "helper child failed");
}

struct got {
	uint32_t uid[64];
	size_t len[64];
	char *raw[64];
	size_t n;
	int stop_after;		/* > 0: return 1 after that many; < 0: fail then */
};

static int collect(void *arg, const struct imap_msg *m, struct err *e)
{
	struct got *g = arg;

	ck_assert_uint_lt(g->n, 64);
	g->uid[g->n] = m->uid;
	g->len[g->n] = m->len;
	g->raw[g->n] = m->state == IMAP_MSG_OK ? xstrndup(m->raw, m->len) : NULL;
	g->n++;
	if (g->stop_after > 0 && g->n == (size_t)g->stop_after)
		return 1;
	if (g->stop_after < 0 && g->n == (size_t)-g->stop_after)
		return err_set(e, ERR_FINAL, "callback says no");
	return 0;
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->raw[i]);
	memset(g, 0, sizeof(*g));
}

static void fetch_ok(struct imap_source *src, uint32_t first, struct got *g)
{
	struct err e;

	err_init(&e);
	ck_assert_msg(imap_fetch_from(src, first, collect, g, &e) == 0, "fetch: %s", e.msg);
}

/* Whether a file in the folder's Maildir carries flag f (Dovecot keeps
 * flags in the name: "...:2,FLAGS"). */
static size_t files_with_flag(const char *folder, char f, size_t *total)
{
	static const char *const subs[] = { "new", "cur" };
	size_t n = 0;

	*total = 0;
	for (size_t i = 0; i < ARRAY_SIZE(subs); i++) {
		char path[512];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "%s/mail/" USER "/Maildir/.%s/%s", srv_dir, folder,
			 subs[i]);
		dir = opendir(path);
		ck_assert_msg(dir != NULL, "no %s", path);
		while ((d = readdir(dir))) {
			const char *info = strstr(d->d_name, ":2,");

			if (d->d_name[0] == '.')
				continue;
			++*total;
			if (info && strchr(info + 3, f))
				n++;
		}
		closedir(dir);
	}
	return n;
}

/* --- TLS and login -------------------------------------------------------- */

START_TEST(test_implicit_tls_verifies)
{
	struct imap_settings s;
	struct imap_source *src;
	struct imap_stats st;
	uint32_t uv = 0, un = 0;
	struct err e;

	tls_base(&s, NET_TLS_IMPLICIT);
	src = open_ok(&s);
	ck_assert_int_eq(imap_mailbox(src, &uv, &un, &e), 0);
	ck_assert_uint_ne(uv, 0);
	ck_assert_uint_ge(un, 1);
	imap_get_stats(src, &st);
	ck_assert(st.has_idle);
	imap_close(src);

	/* The certificate names localhost too (SAN DNS:localhost). */
	s.tls_name = "localhost";
	imap_close(open_ok(&s));
}
END_TEST

START_TEST(test_starttls_verifies)
{
	struct imap_settings s;

	tls_base(&s, NET_TLS_STARTTLS);
	imap_close(open_ok(&s));
}
END_TEST

/* With a wrong password too: had the login come first, the error would be
 * the refused login, not the certificate. */
START_TEST(test_wrong_ca_refused_before_login)
{
	static const enum net_tls modes[] = { NET_TLS_IMPLICIT, NET_TLS_STARTTLS };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct imap_settings s;
		const char *msg;

		tls_base(&s, modes[i]);
		s.ca_file = wrong_ca;
		s.password = BAD_PASSWORD;
		msg = open_fails(&s, ERR_FINAL);
		assert_prefix(msg, s.port);
		ck_assert_msg(strstr(msg, "certificate verify failed"), "%s", msg);
		ck_assert_msg(!strstr(msg, "refused"), "%s", msg);
	}
}
END_TEST

/* Needs the system CA store (Debian: ca-certificates): it is there, and the
 * test CA is not in it. */
START_TEST(test_system_store_does_not_know_test_ca)
{
	struct imap_settings s;
	const char *msg;

	tls_base(&s, NET_TLS_IMPLICIT);
	s.ca_file = NULL;
	msg = open_fails(&s, ERR_FINAL);
	ck_assert_msg(!strstr(msg, "no system CA store"),
		      "this machine has no system CA store (install ca-certificates): %s", msg);
	ck_assert_msg(strstr(msg, "certificate verify failed"), "%s", msg);
}
END_TEST

/* Run with the system CA store hidden (imap-source.sh mounts an empty
 * directory over it): the refusal names the missing store and the fix, and
 * does not pass for a certificate that failed to verify. */
START_TEST(test_missing_system_store_named)
{
	static const enum net_tls modes[] = { NET_TLS_IMPLICIT, NET_TLS_STARTTLS };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct imap_settings s;
		const char *msg;

		tls_base(&s, modes[i]);
		s.ca_file = NULL;
		msg = open_fails(&s, ERR_FINAL);
		assert_prefix(msg, s.port);
		ck_assert_msg(strstr(msg, "no system CA store"), "%s", msg);
		ck_assert_msg(strstr(msg, "install ca-certificates, or set ca_file"), "%s", msg);
		ck_assert_msg(!strstr(msg, "certificate verify failed"), "%s", msg);
	}
}
END_TEST

START_TEST(test_wrong_host_name_refused)
{
	static const enum net_tls modes[] = { NET_TLS_IMPLICIT, NET_TLS_STARTTLS };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct imap_settings s;
		const char *msg;

		tls_base(&s, modes[i]);
		s.tls_name = "wronghost";
		msg = open_fails(&s, ERR_FINAL);
		ck_assert_msg(strstr(msg, "certificate verify failed for wronghost"), "%s", msg);
	}
}
END_TEST

START_TEST(test_plain_only_on_loopback)
{
	struct imap_settings s;
	const char *msg;
	double t0;

	base(&s, "INBOX");
	imap_close(open_ok(&s));
	s.host = "localhost";
	imap_close(open_ok(&s));

	/* TEST-NET-1: refused before any connection is tried. */
	s.host = "192.0.2.1";
	s.timeout_s = 5;
	t0 = now();
	msg = open_fails(&s, ERR_FINAL);
	ck_assert_msg(strstr(msg, "not a loopback address"), "%s", msg);
	ck_assert(now() - t0 < 1.0);
}
END_TEST

START_TEST(test_login_and_plain)
{
	static const enum imap_auth auths[] = { IMAP_AUTH_AUTO, IMAP_AUTH_LOGIN, IMAP_AUTH_PLAIN };

	for (size_t i = 0; i < ARRAY_SIZE(auths); i++) {
		struct imap_settings s;

		base(&s, "INBOX");
		s.auth = auths[i];
		imap_close(open_ok(&s));
	}
}
END_TEST

START_TEST(test_wrong_password_final)
{
	static const struct {
		enum imap_auth auth;
		const char *cmd;
	} cases[] = {
		{ IMAP_AUTH_LOGIN, "LOGIN as " USER " refused" },
		{ IMAP_AUTH_PLAIN, "AUTHENTICATE PLAIN as " USER " refused" },
		{ IMAP_AUTH_AUTO, "AUTHENTICATE PLAIN as " USER " refused" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct imap_settings s;
		const char *msg;

		tls_base(&s, NET_TLS_IMPLICIT);
		s.auth = cases[i].auth;
		s.password = BAD_PASSWORD;
		msg = open_fails(&s, ERR_FINAL);
		assert_prefix(msg, imaps_port);
		ck_assert_msg(strstr(msg, cases[i].cmd), "%s", msg);
	}
}
END_TEST

START_TEST(test_connection_refused_temp)
{
	struct imap_settings s;
	const char *msg;

	/* Port 1 on loopback: nothing listens there in the test machine. */
	base(&s, "INBOX");
	s.port = 1;
	msg = open_fails(&s, ERR_TEMP);
	ck_assert_msg(strstr(msg, "cannot connect"), "%s", msg);
}
END_TEST

START_TEST(test_bad_settings_final)
{
	static const char *const folders[] = { "a\r\nX LOGOUT", "f\xc3\xa9", "" };
	struct imap_settings s;

	base(&s, "no-such-folder");
	ck_assert(strstr(open_fails(&s, ERR_FINAL), "cannot open folder no-such-folder"));
	for (size_t i = 0; i < ARRAY_SIZE(folders); i++) {
		base(&s, folders[i]);
		open_fails(&s, ERR_FINAL);
	}
	base(&s, "INBOX");
	s.password = "se\r\ncret";
	open_fails(&s, ERR_FINAL);
	base(&s, "INBOX");
	s.user = NULL;
	open_fails(&s, ERR_FINAL);
}
END_TEST

/* --- fetching ------------------------------------------------------------- */

#define NFETCH 25

/* Appends NFETCH mails to the empty folder t-fetch; they get UIDs 1..25. */
static struct imap_source *fill_fetch_folder(size_t batch, size_t max_message, char **raws,
					     size_t *lens)
{
	struct imap_settings s;
	struct imap_source *src;

	base(&s, "t-fetch");
	s.batch = batch;
	s.max_message = max_message;
	src = open_ok(&s);
	for (int i = 0; i < NFETCH; i++) {
		raws[i] = mail("fetch", i, &lens[i]);
		append_ok(src, "t-fetch", raws[i], lens[i], false);
	}
	return src;
}

START_TEST(test_fetch_in_batches)
{
	char *raws[NFETCH];
	size_t lens[NFETCH], total;
	struct imap_source *src = fill_fetch_folder(10, 0, raws, lens);
	struct imap_stats st;
	struct got g = { 0 };

	fetch_ok(src, 1, &g);
	ck_assert_uint_eq(g.n, NFETCH);
	for (size_t i = 0; i < NFETCH; i++) {
		ck_assert_uint_eq(g.uid[i], i + 1);
		ck_assert_uint_eq(g.len[i], lens[i]);
		ck_assert_mem_eq(g.raw[i], raws[i], lens[i]);
	}
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.body_fetches, 3);	/* 10 + 10 + 5 */
	ck_assert_uint_eq(st.messages, NFETCH);
	got_free(&g);

	/* "26:*" would name UID 25: nothing may come back, no body fetched. */
	fetch_ok(src, NFETCH + 1, &g);
	ck_assert_uint_eq(g.n, 0);
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.body_fetches, 3);

	fetch_ok(src, 11, &g);
	ck_assert_uint_eq(g.n, 15);
	ck_assert_uint_eq(g.uid[0], 11);
	ck_assert_uint_eq(g.uid[14], 25);
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.body_fetches, 5);
	got_free(&g);

	/* BODY.PEEK[] sets no flag. */
	ck_assert_uint_eq(files_with_flag("t-fetch", 'S', &total), 0);
	ck_assert_uint_eq(total, NFETCH);
	imap_close(src);
	for (int i = 0; i < NFETCH; i++)
		free(raws[i]);
}
END_TEST

START_TEST(test_fetch_callback_stops)
{
	struct imap_settings s;
	struct imap_source *src;
	struct got g = { 0 };
	struct imap_stats st;
	unsigned long before;
	struct err e;

	base(&s, "t-fetch");
	s.batch = 10;
	src = open_ok(&s);
	g.stop_after = 3;
	fetch_ok(src, 1, &g);
	ck_assert_uint_eq(g.n, 3);
	got_free(&g);

	/* Going on from where it stopped (the daemon's commit after a batch):
	 * the sizes learnt for UIDs 1..25 hold, so UID SEARCH and one body
	 * FETCH, not the sizes of the whole window again. */
	imap_get_stats(src, &st);
	before = st.commands;
	g.stop_after = 3;
	fetch_ok(src, 4, &g);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.uid[0], 4);
	ck_assert_uint_eq(g.uid[2], 6);
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.commands - before, 2);
	got_free(&g);

	g.stop_after = -2;
	err_init(&e);
	ck_assert_int_eq(imap_fetch_from(src, 1, collect, &g, &e), -1);
	ck_assert_str_eq(e.msg, "callback says no");
	ck_assert_uint_eq(g.n, 2);
	got_free(&g);

	/* The session is still in step after the stop. */
	fetch_ok(src, 24, &g);
	ck_assert_uint_eq(g.n, 2);
	got_free(&g);
	imap_close(src);
}
END_TEST

START_TEST(test_fetch_too_large_is_announced)
{
	struct imap_settings s;
	struct imap_source *src;
	struct imap_stats st;
	struct got g = { 0 };
	size_t len;
	char *raw;

	/* The first few mails of mail() are under 300 bytes, the rest over. */
	base(&s, "t-fetch");
	s.max_message = 300;
	src = open_ok(&s);
	fetch_ok(src, 1, &g);
	ck_assert_uint_eq(g.n, NFETCH);
	for (size_t i = 0; i < NFETCH; i++) {
		raw = mail("fetch", (int)i, &len);
		ck_assert_uint_eq(g.len[i], len);
		ck_assert_msg((g.raw[i] == NULL) == (len > 300), "mail %zu (%zu bytes)", i, len);
		free(raw);
	}
	imap_get_stats(src, &st);
	ck_assert_uint_ge(st.body_fetches, 1);
	got_free(&g);
	imap_close(src);
}
END_TEST

START_TEST(test_mark_seen)
{
	struct imap_settings s;
	struct imap_source *src, *ro;
	uint32_t uv, un;
	struct got g = { 0 };
	size_t len, total;
	char *raw = mail("seen", 1, &len);
	struct err e;

	base(&s, "t-seen");
	s.mark_seen = true;
	src = open_ok(&s);
	ck_assert_int_eq(imap_mailbox(src, &uv, &un, &e), 0);
	append_ok(src, "t-seen", raw, len, false);
	fetch_ok(src, un, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(files_with_flag("t-seen", 'S', &total), 0);
	err_init(&e);
	ck_assert_msg(imap_mark_seen(src, g.uid[0], &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(files_with_flag("t-seen", 'S', &total), 1);
	ck_assert_uint_eq(total, 1);

	/* EXAMINE: read-only, refused before anything is sent. */
	s.mark_seen = false;
	ro = open_ok(&s);
	ck_assert_int_eq(imap_mark_seen(ro, g.uid[0], &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	imap_close(ro);
	got_free(&g);
	imap_close(src);
	free(raw);
}
END_TEST

START_TEST(test_find_msgid_in_sent)
{
	static const struct {
		const char *msgid;
		bool found;
	} cases[] = {
		{ "<reply-1.7f3a@tagbot.example.org>", true },
		{ "reply-1.7f3a@tagbot.example.org", true },
		{ " <reply-1.7f3a@tagbot.example.org> ", true },
		{ "<eply-1.7f3a@tagbot.example.org>", false },	/* no substring match */
		{ "<reply-1.7f3a@tagbot.example.or>", false },
		{ "<reply-2.7f3a@tagbot.example.org>", false },
	};
	const char *reply = "From: tagbot <bot@example.org>\r\nTo: author@example.org\r\n"
		"Subject: Re: [PATCH] x\r\nMessage-ID: <reply-1.7f3a@tagbot.example.org>\r\n"
		"\r\nHello\r\n";
	struct imap_settings s;
	struct imap_source *src;
	uint32_t uv, un, uv2, un2;
	struct got g = { 0 };
	struct err e;

	base(&s, "t-fetch");
	src = open_ok(&s);
	ck_assert_int_eq(imap_mailbox(src, &uv, &un, &e), 0);
	append_ok(src, "Sent", reply, strlen(reply), true);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bool found = !cases[i].found;

		err_init(&e);
		ck_assert_msg(imap_find_msgid(src, "Sent", cases[i].msgid, &found, &e) == 0,
			      "%s", e.msg);
		ck_assert_msg(found == cases[i].found, "%s", cases[i].msgid);
	}
	/* Back on the watched folder, same UIDVALIDITY, fetching works. */
	ck_assert_int_eq(imap_mailbox(src, &uv2, &un2, &e), 0);
	ck_assert_uint_eq(uv2, uv);
	fetch_ok(src, NFETCH, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.uid[0], NFETCH);
	got_free(&g);

	/* The watched folder itself is searched without leaving it. */
	{
		bool found = false;

		ck_assert_int_eq(imap_find_msgid(src, "t-fetch", "<fetch.3@example.org>", &found,
						 &e), 0);
		ck_assert(found);
	}
	imap_close(src);
}
END_TEST

START_TEST(test_append_and_search_refusals)
{
	struct imap_settings s;
	struct imap_source *src;
	bool found;
	struct err e;

	base(&s, "INBOX");
	src = open_ok(&s);
	ck_assert_int_eq(imap_append(src, "no-such-folder", "a\r\n\r\nb\r\n", 7, true, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_msg(strstr(e.msg, "APPEND to no-such-folder refused"), "%s", e.msg);
	ck_assert_int_eq(imap_append(src, "Sent", "a\r\n\0b\r\n", 7, true, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_int_eq(imap_append(src, "Sent\r\nX", "a\r\n\r\nb\r\n", 7, true, &e), -1);
	ck_assert_int_eq(imap_find_msgid(src, "Sent", "<a\r\n@b>", &found, &e), -1);
	ck_assert_int_eq(imap_find_msgid(src, "Sent", "<>", &found, &e), -1);
	ck_assert_int_eq(imap_find_msgid(src, "no-such-folder", "<a@b>", &found, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	/* None of that broke the session. */
	ck_assert_int_eq(imap_find_msgid(src, "Sent", "<a@b>", &found, &e), 0);
	ck_assert(!found);
	imap_close(src);
}
END_TEST

/* --- waiting -------------------------------------------------------------- */

static struct imap_source *open_wait(const char *folder, bool idle, int idle_max_s,
				     const sigset_t *mask)
{
	struct imap_settings s;

	base(&s, folder);
	s.idle = idle;
	s.idle_max_s = idle_max_s;
	s.wait_sigmask = mask;
	return open_ok(&s);
}

START_TEST(test_idle_wakes_on_append)
{
	struct imap_source *src = open_wait("t-wait", true, 0, NULL);
	struct imap_stats st;
	uint32_t uv, un;
	bool activity = false;
	struct got g = { 0 };
	pid_t pid;
	double t0;
	struct err e;

	ck_assert_int_eq(imap_mailbox(src, &uv, &un, &e), 0);
	t0 = now();
	pid = append_later("t-wait", 300);
	err_init(&e);
	ck_assert_msg(imap_wait(src, 20, &activity, &e) == 0, "%s", e.msg);
	ck_assert(activity);
	/* 0.3 s until the APPEND, Dovecot announces within about 0.5 s. */
	ck_assert_msg(now() - t0 < 2.5, "woke after %.2f s", now() - t0);
	reap(pid);
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.idles, 1);
	fetch_ok(src, un, &g);
	ck_assert_uint_eq(g.n, 1);
	got_free(&g);
	imap_close(src);
}
END_TEST

START_TEST(test_idle_times_out_and_caps)
{
	static const struct {
		int idle_max_s, max_s;
	} cases[] = {
		{ 0, 1 },	/* the caller's limit */
		{ 1, 30 },	/* idle_max_s caps it */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct imap_source *src = open_wait("t-wait", true, cases[i].idle_max_s, NULL);
		bool activity = true;
		double t0 = now(), dt;
		struct err e;

		ck_assert_int_eq(imap_wait(src, cases[i].max_s, &activity, &e), 0);
		dt = now() - t0;
		ck_assert(!activity);
		ck_assert_msg(dt > 0.9 && dt < 5, "case %zu: %.2f s", i, dt);
		/* DONE was sent: the session still answers. */
		ck_assert_int_eq(imap_wait(src, 1, &activity, &e), 0);
		imap_close(src);
	}
}
END_TEST

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

START_TEST(test_idle_interrupted_by_signal)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { 0, 300000 } };
	struct imap_source *src = open_wait("t-wait", true, 0, NULL);
	bool activity = true;
	struct got g = { 0 };
	double t0;
	struct err e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, NULL);
	got_signal = 0;
	t0 = now();
	setitimer(ITIMER_REAL, &it, NULL);
	ck_assert_int_eq(imap_wait(src, 20, &activity, &e), 0);
	ck_assert(!activity);
	ck_assert_int_eq(got_signal, SIGALRM);
	ck_assert_msg(now() - t0 < 3, "%.2f s", now() - t0);
	fetch_ok(src, 1, &g);	/* out of IDLE, in step */
	got_free(&g);
	imap_close(src);
}
END_TEST

/* The pselect() pattern: SIGUSR1 is blocked, arrives before imap_wait, and
 * is delivered by its sleep at once instead of being slept through. */
START_TEST(test_wait_sigmask_closes_the_race)
{
	sigset_t block, during;
	struct sigaction sa;
	struct imap_source *src;
	bool activity = true;
	double t0;
	struct err e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGUSR1);
	src = open_wait("t-wait", true, 0, &during);
	got_signal = 0;
	raise(SIGUSR1);
	ck_assert_int_eq(got_signal, 0);
	t0 = now();
	ck_assert_int_eq(imap_wait(src, 20, &activity, &e), 0);
	ck_assert_int_eq(got_signal, SIGUSR1);
	ck_assert(!activity);
	ck_assert_msg(now() - t0 < 2, "%.2f s", now() - t0);
	imap_close(src);
}
END_TEST

START_TEST(test_poll_without_idle)
{
	struct imap_source *src = open_wait("t-poll", false, 0, NULL);
	struct imap_stats st;
	bool activity = false;
	pid_t pid = append_later("t-poll", 200);
	double t0 = now(), dt;
	struct err e;

	err_init(&e);
	ck_assert_msg(imap_wait(src, 2, &activity, &e) == 0, "%s", e.msg);
	dt = now() - t0;
	ck_assert(activity);
	ck_assert_msg(dt > 1.8 && dt < 5, "%.2f s", dt);
	reap(pid);
	imap_get_stats(src, &st);
	ck_assert_uint_eq(st.idles, 0);
	ck_assert(st.has_idle);	/* offered, but not used */
	imap_close(src);
}
END_TEST

/* --- the server goes away ------------------------------------------------- */

static void dovecot_stop(void)
{
	char path[512];
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/dovecot/run/master.pid", srv_dir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 1)
		_exit(3);
	fclose(f);
	kill(pid, SIGTERM);
}

START_TEST(test_server_stops_while_idling)
{
	struct imap_settings s;
	struct imap_source *src = open_wait("t-wait", true, 0, NULL), *again = NULL;
	bool activity = true;
	struct got g = { 0 };
	char cmd[600];
	pid_t pid;
	double t0;
	struct err e;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		msleep(300);
		dovecot_stop();
		_exit(0);
	}
	t0 = now();
	err_init(&e);
	ck_assert_int_eq(imap_wait(src, 20, &activity, &e), -1);
	ck_assert_msg(e.cls == ERR_TEMP, "%s", e.msg);
	assert_prefix(e.msg, imap_port);
	/* Dovecot's master gives its imap processes 10 s before they say BYE. */
	ck_assert_msg(now() - t0 < 20, "%.2f s", now() - t0);
	reap(pid);
	/* Dead from now on, at once. */
	ck_assert_int_eq(imap_fetch_from(src, 1, collect, &g, &e), -1);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	imap_close(src);

	snprintf(cmd, sizeof(cmd), "dovecot -c '%s'", dovecot_conf);
	ck_assert_int_eq(system(cmd), 0);
	base(&s, "t-wait");
	for (int i = 0; i < 100 && !again; i++) {
		if (imap_open(&again, &s, &e) < 0) {
			ck_assert_msg(e.cls == ERR_TEMP, "%s", e.msg);
			msleep(100);
		}
	}
	ck_assert_msg(again != NULL, "no reconnect: %s", e.msg);
	fetch_ok(again, 1, &g);
	ck_assert_uint_ge(g.n, 1);
	got_free(&g);
	imap_close(again);
}
END_TEST

static int env_int(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

/* Run with the system CA store hidden (imap-source.sh): that case alone. */
static int run_no_system_store(Suite *s)
{
	TCase *nostore = tcase_create("no_system_store");

	tcase_set_timeout(nostore, 60);
	tcase_add_test(nostore, test_missing_system_store_named);
	suite_add_tcase(s, nostore);
	return th_run_suite(s);
}

int main(void)
{
	Suite *s;
	TCase *tls, *fetch, *wait, *down;

	imap_port = env_int("IMAP_PORT");
	imaps_port = env_int("IMAPS_PORT");
	ca = getenv("TEST_CA");
	wrong_ca = getenv("TEST_WRONG_CA");
	srv_dir = getenv("SRV_DIR");
	dovecot_conf = getenv("DOVECOT_CONF");
	if (!imap_port || !imaps_port || !ca || !wrong_ca || !srv_dir || !dovecot_conf) {
		puts("SKIP: run through tests/integration/imap-source.sh (needs Dovecot)");
		return 77;
	}
	s = suite_create("imap_source");
	if (env_int("TEST_NO_SYSTEM_STORE"))
		return run_no_system_store(s);	/* no other case is made: none leaks */
	tls = tcase_create("tls_login");
	fetch = tcase_create("fetch");
	wait = tcase_create("wait");
	down = tcase_create("server_down");
	/* TLS handshakes and IDLE take real time on a loaded machine. */
	tcase_set_timeout(tls, 60);
	tcase_set_timeout(fetch, 60);
	tcase_set_timeout(wait, 60);
	tcase_set_timeout(down, 60);
	tcase_add_test(tls, test_implicit_tls_verifies);
	tcase_add_test(tls, test_starttls_verifies);
	tcase_add_test(tls, test_wrong_ca_refused_before_login);
	tcase_add_test(tls, test_system_store_does_not_know_test_ca);
	tcase_add_test(tls, test_wrong_host_name_refused);
	tcase_add_test(tls, test_plain_only_on_loopback);
	tcase_add_test(tls, test_login_and_plain);
	tcase_add_test(tls, test_wrong_password_final);
	tcase_add_test(tls, test_connection_refused_temp);
	tcase_add_test(tls, test_bad_settings_final);
	/* In order: the first fills t-fetch, the others read it. */
	tcase_add_test(fetch, test_fetch_in_batches);
	tcase_add_test(fetch, test_fetch_callback_stops);
	tcase_add_test(fetch, test_fetch_too_large_is_announced);
	tcase_add_test(fetch, test_mark_seen);
	tcase_add_test(fetch, test_find_msgid_in_sent);
	tcase_add_test(fetch, test_append_and_search_refusals);
	tcase_add_test(wait, test_idle_wakes_on_append);
	tcase_add_test(wait, test_idle_times_out_and_caps);
	tcase_add_test(wait, test_idle_interrupted_by_signal);
	tcase_add_test(wait, test_wait_sigmask_closes_the_race);
	tcase_add_test(wait, test_poll_without_idle);
	tcase_add_test(down, test_server_stops_while_idling);
	suite_add_tcase(s, tls);
	suite_add_tcase(s, fetch);
	suite_add_tcase(s, wait);
	suite_add_tcase(s, down);
	return th_run_suite(s);
}
