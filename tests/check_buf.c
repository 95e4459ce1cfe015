#include "autoconf.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/lib.h"
#include "lib/err.h"
#include "testhelp.h"

START_TEST(test_add_and_detach)
{
	struct buf b;
	size_t len;
	char *s;

	buf_init(&b, 0);
	ck_assert_str_eq(b.data, "");
	ck_assert_int_eq(buf_addstr(&b, "Signed-off-by"), 0);
	ck_assert_int_eq(buf_addch(&b, ':'), 0);
	ck_assert_int_eq(buf_printf(&b, " %s <%s>", "A U Thor", "a@example.org"), 0);
	ck_assert_str_eq(b.data, "Signed-off-by: A U Thor <a@example.org>");
	s = buf_detach(&b, &len);
	ck_assert_uint_eq(len, strlen("Signed-off-by: A U Thor <a@example.org>"));
	ck_assert_str_eq(b.data, "");
	free(s);
	buf_release(&b);
}
END_TEST

START_TEST(test_cap_refuses_and_keeps_content)
{
	struct buf b;

	buf_init(&b, 8);
	ck_assert_int_eq(buf_addstr(&b, "12345678"), 0);
	ck_assert_int_eq(buf_addch(&b, '9'), -1);
	ck_assert_int_eq(buf_printf(&b, "%d", 42), -1);
	ck_assert_str_eq(b.data, "12345678");
	ck_assert_uint_eq(b.len, 8);
	buf_release(&b);
}
END_TEST

START_TEST(test_grow_large)
{
	struct buf b;

	buf_init(&b, 0);
	for (int i = 0; i < 100000; i++)
		ck_assert_int_eq(buf_addstr(&b, "0123456789"), 0);
	ck_assert_uint_eq(b.len, 1000000);
	ck_assert_int_eq(b.data[999999], '9');
	ck_assert_int_eq(b.data[1000000], '\0');
	buf_release(&b);
}
END_TEST

START_TEST(test_err_prefix)
{
	struct err e;

	err_init(&e);
	ck_assert_int_eq(err_set(&e, ERR_FINAL, "bad %s", "boundary"), -1);
	err_prefix(&e, "message <%s>", "x@y");
	ck_assert_str_eq(e.msg, "message <x@y>: bad boundary");
	ck_assert_int_eq(e.cls, ERR_FINAL);
}
END_TEST

/* BUG() says where and what on stderr, then aborts: a child calls it. */
START_TEST(test_bug)
{
	char out[256] = "";
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		BUG("%d parts, %s", 3, "two expected");
	}
	close(fds[1]);
	/* stderr is unbuffered: the message comes in several writes */
	for (size_t got = 0; (n = read(fds[0], out + got, sizeof(out) - 1 - got)) > 0;)
		got += (size_t)n;
	close(fds[0]);
	ck_assert_int_ge(n, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	ck_assert_msg(!strncmp(out, "tagbot: BUG: ", 13) && strstr(out, "check_buf.c:") &&
		      strstr(out, ": 3 parts, two expected\n"), "%s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_add_and_detach);
	tcase_add_test(tc, test_cap_refuses_and_keeps_content);
	tcase_add_test(tc, test_grow_large);
	tcase_add_test(tc, test_err_prefix);
	tcase_add_test(tc, test_bug);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
