#include "autoconf.h"
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "config/secret.h"
#include "testhelp.h"

/* Each test gets a fresh directory under the current (build) directory. */
static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "check_secret.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/password", dir);
}

static void teardown(void)
{
	char p[160];

	unlink(path);
	snprintf(p, sizeof(p), "%s/link", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sub", dir);
	rmdir(p);
	rmdir(dir);
}

static void write_file(const char *p, const char *data, size_t len, mode_t mode)
{
	FILE *f = fopen(p, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(p, mode), 0);	/* not left to the umask */
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- password_file ---------------------------------------------------- */

static const struct file_case {
	mode_t mode;
	const char *data;
	size_t len;		/* 0: strlen(data) */
	const char *want;	/* the password, or NULL for an error */
	const char *msg;	/* the error after "PATH: " */
} file_cases[] = {
	{ 0600, "secret\n", 0, "secret", NULL },
	{ 0400, "secret", 0, "secret", NULL },
	{ 0600, "secret\r\n", 0, "secret", NULL },
	{ 0600, "with spaces and \"quotes\"\n", 0, "with spaces and \"quotes\"", NULL },
	{ 0640, "secret\n", 0, NULL, "permissions 0640 are too open; chmod 600 it" },
	{ 0604, "secret\n", 0, NULL, "permissions 0604 are too open; chmod 600 it" },
	{ 0644, "secret\n", 0, NULL, "permissions 0644 are too open; chmod 600 it" },
	{ 0620, "secret\n", 0, NULL, "permissions 0620 are too open; chmod 600 it" },
	{ 0602, "secret\n", 0, NULL, "permissions 0602 are too open; chmod 600 it" },
	{ 0600, "secret\n\n", 0, NULL, "the password holds a line break or a NUL byte" },
	{ 0600, "two\nlines\n", 0, NULL, "the password holds a line break or a NUL byte" },
	{ 0600, "se\0cret\n", 8, NULL, "the password holds a line break or a NUL byte" },
	{ 0600, "", 0, NULL, "the password is empty" },
	{ 0600, "\n", 0, NULL, "the password is empty" },
	{ 0600, "\r\n", 0, NULL, "the password is empty" },
};

START_TEST(test_file_table)
{
	const struct file_case *c = &file_cases[_i];
	char *pw = NULL, want_msg[256];
	struct err e;
	int rc;

	err_init(&e);
	write_file(path, c->data, c->len ? c->len : strlen(c->data), c->mode);
	rc = secret_read_file(path, &pw, &e);
	if (c->want) {
		ck_assert_msg(rc == 0, "case %d: %s", _i, e.msg);
		ck_assert_str_eq(pw, c->want);
		secret_free(pw);
	} else {
		ck_assert_msg(rc == -1, "case %d: accepted", _i);
		ck_assert_ptr_null(pw);
		ck_assert_int_eq(e.cls, ERR_FINAL);
		snprintf(want_msg, sizeof(want_msg), "%s: %s", path, c->msg);
		ck_assert_str_eq(e.msg, want_msg);
	}
}
END_TEST

/* Sizes around the cap: the password itself may be SECRET_MAX bytes. */
START_TEST(test_file_sizes)
{
	static const struct { size_t len; bool newline; bool ok; } cases[] = {
		{ SECRET_MAX, true, true },
		{ SECRET_MAX, false, true },
		{ SECRET_MAX + 1, false, false },
		{ SECRET_MAX + 1, true, false },
		{ 100000, false, false },
	};
	char *data = malloc(100001), *pw;
	struct err e;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(data, 'x', cases[i].len);
		if (cases[i].newline)
			data[cases[i].len] = '\n';
		write_file(path, data, cases[i].len + cases[i].newline, 0600);
		pw = NULL;
		err_init(&e);
		ck_assert_int_eq(secret_read_file(path, &pw, &e), cases[i].ok ? 0 : -1);
		if (cases[i].ok) {
			ck_assert_uint_eq(strlen(pw), cases[i].len);
			secret_free(pw);
		} else {
			ck_assert_ptr_null(pw);
			ck_assert_msg(strstr(e.msg, "larger than") || strstr(e.msg, "longer than"),
				      "size %zu: %s", cases[i].len, e.msg);
		}
	}
	free(data);
}
END_TEST

START_TEST(test_file_not_regular)
{
	char sub[160], fifo[160], want[256], *pw = NULL;
	struct err e;
	long t0;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(secret_read_file(sub, &pw, &e), -1);
	snprintf(want, sizeof(want), "%s: not a regular file", sub);
	ck_assert_str_eq(e.msg, want);

	/* A FIFO without a writer must not block the open. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	t0 = now_ms();
	ck_assert_int_eq(secret_read_file(fifo, &pw, &e), -1);
	ck_assert_int_lt(now_ms() - t0, 1000);
	snprintf(want, sizeof(want), "%s: not a regular file", fifo);
	ck_assert_str_eq(e.msg, want);

	ck_assert_int_eq(secret_read_file("no/such/file", &pw, &e), -1);
	ck_assert_str_eq(e.msg, "no/such/file: No such file or directory");
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_ptr_null(pw);
}
END_TEST

/* The mode that counts is the target's, as for any open(). */
START_TEST(test_file_symlink)
{
	char link[160], *pw = NULL;
	struct err e;

	snprintf(link, sizeof(link), "%s/link", dir);
	write_file(path, "via-link\n", 9, 0600);
	ck_assert_int_eq(symlink("password", link), 0);
	ck_assert_msg(secret_read_file(link, &pw, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(pw, "via-link");
	secret_free(pw);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(secret_read_file(link, &pw, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "permissions 0644 are too open"));
}
END_TEST

/* --- password_command ------------------------------------------------- */

static const struct cmd_case {
	const char *cmd;
	long timeout_ms;
	const char *want;	/* the password, or NULL for an error */
	const char *msg;	/* the error after "password_command `CMD`: " */
} cmd_cases[] = {
	{ "printf 'hunter2\\n'", 0, "hunter2", NULL },
	{ "printf 'first\\nsecond\\n'", 0, "first", NULL },
	{ "printf 'no-newline'", 0, "no-newline", NULL },
	{ "printf 'crlf\\r\\n'", 0, "crlf", NULL },
	{ "echo from-stderr >&2; echo from-stdout", 0, "from-stdout", NULL },
	{ "exit 1", 0, NULL, "exited with status 1" },
	{ "printf 'le%sed\\n' ak; exit 3", 0, NULL, "exited with status 3" },
	{ "true", 0, NULL, "printed no password" },
	{ "cat", 0, NULL, "printed no password" },	/* stdin is /dev/null */
	{ "printf '\\n'", 0, NULL, "the password is empty" },
	{ "kill -9 $$", 0, NULL, "killed by signal 9" },
	{ "/nonexistent/helper", 0, NULL, "exited with status 127 (not found?)" },
	{ "head -c 5000 /dev/zero | tr '\\0' a", 0, NULL, "the first line is longer than 4096 bytes" },
	{ "yes | head -c 100000", 0, NULL, "printed more than 65536 bytes" },
	{ "sleep 5", 300, NULL, "no password within 300 ms" },
	{ "printf 'late\\n'; sleep 5", 300, NULL, "no password within 300 ms" },
};

START_TEST(test_command_table)
{
	const struct cmd_case *c = &cmd_cases[_i];
	char *pw = NULL, want_msg[256];
	struct err e;
	long t0 = now_ms();
	int rc;

	err_init(&e);
	rc = secret_run_command(c->cmd, c->timeout_ms, &pw, &e);
	if (c->want) {
		ck_assert_msg(rc == 0, "case %d: %s", _i, e.msg);
		ck_assert_str_eq(pw, c->want);
		secret_free(pw);
	} else {
		ck_assert_msg(rc == -1, "case %d (%s): accepted", _i, c->cmd);
		ck_assert_ptr_null(pw);
		ck_assert_int_eq(e.cls, ERR_FINAL);
		snprintf(want_msg, sizeof(want_msg), "password_command `%s`: %s", c->cmd, c->msg);
		ck_assert_str_eq(e.msg, want_msg);
		/* What the command printed is never in the message. */
		ck_assert_ptr_null(strstr(e.msg, "leaked"));
	}
	/* Timeouts are kept: the slow cases stop well before their sleep. */
	if (c->timeout_ms)
		ck_assert_int_lt(now_ms() - t0, c->timeout_ms + 1500);
}
END_TEST

/* A background process keeping stdout open does not hold us up once the
 * command itself has exited. */
START_TEST(test_command_background_holder)
{
	char *pw = NULL;
	struct err e;
	long t0 = now_ms();

	ck_assert_msg(secret_run_command("sleep 3 & printf 'bg\\n'", 2500, &pw, &e) == 0,
		      "%s", e.msg);
	ck_assert_str_eq(pw, "bg");
	ck_assert_int_lt(now_ms() - t0, 1500);
	secret_free(pw);
}
END_TEST

/* Our descriptors (the IMAP socket, the database) are not the command's. */
START_TEST(test_command_no_fd_leak)
{
	char cmd[128], *pw = NULL;
	struct err e;
	int fd = open("/dev/null", O_RDONLY);	/* deliberately without O_CLOEXEC */

	ck_assert_int_ge(fd, 3);
	snprintf(cmd, sizeof(cmd), "if [ -e /proc/self/fd/%d ]; then echo leaked; else echo clean; fi", fd);
	ck_assert_msg(secret_run_command(cmd, 0, &pw, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(pw, "clean");
	secret_free(pw);
	close(fd);
}
END_TEST

START_TEST(test_command_long_name_cut)
{
	char cmd[300], *pw = NULL;
	struct err e;

	memset(cmd, ' ', sizeof(cmd) - 7);
	memcpy(cmd + sizeof(cmd) - 7, "exit 2", 7);
	ck_assert_int_eq(secret_run_command(cmd, 0, &pw, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "...`: exited with status 2"));
	ck_assert_uint_lt(strlen(e.msg), 150);
}
END_TEST

/* --- secret_get -------------------------------------------------------- */

START_TEST(test_get)
{
	char *pw = (char *)"untouched";
	struct err e;

	ck_assert_int_eq(secret_get(NULL, NULL, &pw, &e), 0);
	ck_assert_ptr_null(pw);
	ck_assert_int_eq(secret_get("", "", &pw, &e), 0);
	ck_assert_ptr_null(pw);

	ck_assert_int_eq(secret_get(path, "echo x", &pw, &e), -1);
	ck_assert_str_eq(e.msg, "password_file and password_command are both set");
	ck_assert_ptr_null(pw);

	write_file(path, "from-file\n", 10, 0600);
	ck_assert_int_eq(secret_get(path, NULL, &pw, &e), 0);
	ck_assert_str_eq(pw, "from-file");
	secret_free(pw);
	ck_assert_int_eq(secret_get("", "echo from-command", &pw, &e), 0);
	ck_assert_str_eq(pw, "from-command");
	secret_free(pw);
	secret_free(NULL);
}
END_TEST

START_TEST(test_wipe)
{
	char b[16];

	memcpy(b, "top-secret-value", 16);
	secret_wipe(b, sizeof(b));
	for (size_t i = 0; i < sizeof(b); i++)
		ck_assert_int_eq(b[i], 0);
	secret_wipe(NULL, 3);
}
END_TEST

static Suite *secret_suite(void)
{
	Suite *s = suite_create("secret");
	TCase *f = tcase_create("file"), *c = tcase_create("command");

	tcase_add_checked_fixture(f, setup, teardown);
	tcase_add_loop_test(f, test_file_table, 0, ARRAY_SIZE(file_cases));
	tcase_add_test(f, test_file_sizes);
	tcase_add_test(f, test_file_not_regular);
	tcase_add_test(f, test_file_symlink);
	tcase_add_test(f, test_get);
	tcase_add_test(f, test_wipe);
	suite_add_tcase(s, f);

	tcase_add_loop_test(c, test_command_table, 0, ARRAY_SIZE(cmd_cases));
	tcase_add_test(c, test_command_background_holder);
	tcase_add_test(c, test_command_no_fd_leak);
	tcase_add_test(c, test_command_long_name_cut);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return th_run_suite(secret_suite());
}
