/*
 * check_netconn.c - the stream the IMAP and NNTP sources read through
 * (netconn.h), against a peer this test plays over loopback TCP: the end of
 * the connection in the middle of a line or of a multiline answer, a reset,
 * a peer that stops talking, and a stop flag set by a signal while a read
 * waits.  libetpan's own socket stream spun for good on the first two.
 */
#include "autoconf.h"
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/mailstream.h>
#include <libetpan/mailstream_helper.h>
#include <libetpan/mmapstring.h>

#include "testhelp.h"
#include "transport/netconn.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* A connected pair on 127.0.0.1: *ours goes through net_connect(), *theirs
 * is the server's end. */
static void pair(struct net_peer *p, int timeout_s, int *ours, int *theirs)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct err e;

	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
	*p = (struct net_peer){ .host = "127.0.0.1", .port = ntohs(a.sin_port), .plain = true,
				.timeout_s = timeout_s };
	net_peer_init(p, "test");
	err_init(&e);
	ck_assert_msg(net_connect(p, ours, &e) == 0, "%s", e.msg);
	*theirs = accept(l, NULL, NULL);
	ck_assert_int_ge(*theirs, 0);
	close(l);
}

static mailstream *open_plain(struct net_peer *p, int timeout_s, int *theirs)
{
	mailstream *s;
	struct err e;
	int fd;

	pair(p, timeout_s, &fd, theirs);
	err_init(&e);
	ck_assert_msg(net_plain_open(p, fd, &s, &e) == 0, "%s", e.msg);
	return s;
}

static void say(int fd, const char *text)
{
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

START_TEST(test_fin_mid_line)
{
	struct net_peer p;
	MMAPString *line = mmap_string_new("");
	int srv;
	mailstream *s = open_plain(&p, 30, &srv);
	double t0;

	say(srv, "* OK ready\r\n* 1 FETCH (BODY[] {100}\r\nhalf of it");
	close(srv);
	ck_assert_str_eq(mailstream_read_line_remove_eol(s, line), "* OK ready");
	ck_assert_ptr_null(net_stream_error(s));
	t0 = now();
	ck_assert_str_eq(mailstream_read_line_remove_eol(s, line), "* 1 FETCH (BODY[] {100}");
	ck_assert_ptr_null(mailstream_read_line_remove_eol(s, line));
	ck_assert_str_eq(net_stream_error(s), "server closed the connection");
	/* failed for good: no read reaches the socket again */
	ck_assert_int_eq(mailstream_read(s, line->str, 1), -1);
	ck_assert(now() - t0 < 1);
	mmap_string_free(line);
	mailstream_close(s);
}
END_TEST

/* NNTP's ARTICLE: libetpan's multiline reader appended empty lines forever
 * at end of stream (a read of 0 bytes). */
START_TEST(test_fin_mid_multiline)
{
	struct net_peer p;
	MMAPString *buf = mmap_string_new(""), *text = mmap_string_new("");
	int srv;
	mailstream *s = open_plain(&p, 30, &srv);
	double t0 = now();

	say(srv, "Subject: x\r\n\r\nfirst line\r\nsecond li");
	close(srv);
	ck_assert_ptr_null(mailstream_read_multiline(s, 0, buf, text, 0, NULL, NULL, NULL));
	ck_assert_str_eq(net_stream_error(s), "server closed the connection");
	ck_assert(now() - t0 < 1);
	mmap_string_free(buf);
	mmap_string_free(text);
	mailstream_close(s);
}
END_TEST

START_TEST(test_reset)
{
	struct linger lg = { 1, 0 };
	struct net_peer p;
	MMAPString *line = mmap_string_new("");
	int srv;
	mailstream *s = open_plain(&p, 30, &srv);

	say(srv, "220 part");
	usleep(100 * 1000);
	ck_assert_int_eq(setsockopt(srv, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	close(srv);
	ck_assert_ptr_null(mailstream_read_line_remove_eol(s, line));
	ck_assert_str_eq(net_stream_error(s), "connection reset by peer");
	mmap_string_free(line);
	mailstream_close(s);
}
END_TEST

START_TEST(test_silence_times_out_idle)
{
	struct net_peer p;
	MMAPString *line = mmap_string_new("");
	int srv;
	mailstream *s = open_plain(&p, 1, &srv);
	double t0 = now(), c0 = cpu_seconds(), dt;

	say(srv, "* 1 FETCH (BODY[] {100}\r\nhalf");
	ck_assert_str_eq(mailstream_read_line_remove_eol(s, line), "* 1 FETCH (BODY[] {100}");
	ck_assert_ptr_null(mailstream_read_line_remove_eol(s, line));
	dt = now() - t0;
	ck_assert_str_eq(net_stream_error(s), "no answer for 1 s");
	ck_assert_msg(dt >= 0.9 && dt < 3, "%.2f s", dt);
	ck_assert_msg(cpu_seconds() - c0 < 0.2, "%.2f s of CPU", cpu_seconds() - c0);
	close(srv);
	mmap_string_free(line);
	mailstream_close(s);
}
END_TEST

/* The daemon's way: its signals blocked while it works, let through by the
 * stream's wait; the handler sets the stop flag. */
START_TEST(test_stop_ends_a_wait)
{
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	struct sigaction sa;
	sigset_t block, during;
	struct net_peer p;
	MMAPString *line = mmap_string_new("");
	int srv;
	mailstream *s;
	double t0, dt;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGALRM);
	s = open_plain(&p, 30, &srv);
	stop_flag = 0;
	net_peer_signals(&p, &during, &stop_flag);
	say(srv, "220 part");
	t0 = now();
	setitimer(ITIMER_REAL, &it, NULL);
	ck_assert_ptr_null(mailstream_read_line_remove_eol(s, line));
	dt = now() - t0;
	ck_assert_int_eq(stop_flag, 1);
	ck_assert_str_eq(net_stream_error(s), "stopped while waiting for the server");
	ck_assert_uint_eq(net_stream_signals(s), 1);
	/* 0.2 s to the signal, then at most NET_STOP_GRACE_MS: within a second */
	ck_assert_msg(dt < 1.0, "%.2f s", dt);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	close(srv);
	mmap_string_free(line);
	mailstream_close(s);
}
END_TEST

/* A signal that sets no stop flag (SIGHUP: reload) lets the read go on. */
START_TEST(test_other_signal_goes_on)
{
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };
	struct sigaction sa;
	sigset_t block, during;
	struct net_peer p;
	MMAPString *line = mmap_string_new("");
	int srv;
	mailstream *s;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* sets stop_flag, which the peer does not watch */
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGALRM);
	s = open_plain(&p, 30, &srv);
	net_peer_signals(&p, &during, NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		usleep(400 * 1000);
		say(srv, " and the rest\r\n");
		_exit(0);
	}
	say(srv, "220 part");
	setitimer(ITIMER_REAL, &it, NULL);
	ck_assert_str_eq(mailstream_read_line_remove_eol(s, line), "220 part and the rest");
	ck_assert_ptr_null(net_stream_error(s));
	ck_assert_uint_eq(net_stream_signals(s), 1);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	close(srv);
	mmap_string_free(line);
	mailstream_close(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netconn");
	TCase *tc = tcase_create("stream");

	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_fin_mid_line);
	tcase_add_test(tc, test_fin_mid_multiline);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_silence_times_out_idle);
	tcase_add_test(tc, test_stop_ends_a_wait);
	tcase_add_test(tc, test_other_signal_goes_on);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
