#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "config/secret.h"

#define COMMAND_NAME_MAX	80	/* bytes of the command quoted in errors */
#define POLL_SLICE_MS		50	/* how often we look whether the child exited */
#define CLOSE_FD_LIMIT		65536	/* fallback when close_range is missing */

/* A plain memset before free() may be dropped as a dead store. */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

void secret_wipe(void *p, size_t n)
{
	if (p && n)
		wipe_memset(p, 0, n);
}

void secret_free(char *s)
{
	if (!s)
		return;
	secret_wipe(s, strlen(s));
	free(s);
}

/*
 * The password in p[0..n): one trailing "\n" or "\r\n" removed, then
 * checked and copied.  The message is left without a prefix for the caller.
 */
static int take_password(const char *p, size_t n, char **out, struct err *e)
{
	if (n && p[n - 1] == '\n') {
		n--;
		if (n && p[n - 1] == '\r')
			n--;
	}
	if (n == 0)
		return err_set(e, ERR_FINAL, "the password is empty");
	if (n > SECRET_MAX)
		return err_set(e, ERR_FINAL, "the password is longer than %d bytes", SECRET_MAX);
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\0' || p[i] == '\r' || p[i] == '\n')
			return err_set(e, ERR_FINAL,
				       "the password holds a line break or a NUL byte");
	*out = xstrndup(p, n);
	return 0;
}

/* --- password_file ---------------------------------------------------- */

static int check_file(int fd, const char *path, struct err *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_FINAL, "%s: not a regular file", path);
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return err_set(e, ERR_FINAL, "%s: permissions %04o are too open; chmod 600 it",
			       path, (unsigned)(st.st_mode & 07777));
	if (st.st_size > SECRET_MAX + 2)
		return err_set(e, ERR_FINAL, "%s: larger than %d bytes", path, SECRET_MAX + 2);
	return 0;
}

/* Reads at most cap bytes; *n > cap - 1 tells the caller the file grew. */
static int read_capped(int fd, char *b, size_t cap, size_t *n)
{
	*n = 0;
	while (*n < cap) {
		ssize_t r = read(fd, b + *n, cap - *n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	return 0;
}

int secret_read_file(const char *path, char **out, struct err *e)
{
	char b[SECRET_MAX + 3];	/* the password, "\r\n", and one byte to see growth */
	size_t n = 0;
	int fd, rc = -1;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
	if (check_file(fd, path, e) < 0)
		goto out;
	if (read_capped(fd, b, sizeof(b), &n) < 0) {
		err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (n == sizeof(b)) {
		err_set(e, ERR_FINAL, "%s: larger than %d bytes", path, SECRET_MAX + 2);
		goto out;
	}
	rc = take_password(b, n, out, e);
	if (rc < 0)
		err_prefix(e, "%s", path);
out:
	secret_wipe(b, sizeof(b));
	close(fd);
	return rc;
}

/* --- password_command ------------------------------------------------- */

static void close_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > CLOSE_FD_LIMIT)
		max = CLOSE_FD_LIMIT;
	for (int fd = lowfd; fd < max; fd++)
		close(fd);
}

/* In the child, after fork: async-signal-safe calls only (curl may have
 * resolver threads running in the parent). */
static void child_exec(const char *command, int out) __attribute__((noreturn));
static void child_exec(const char *command, int out)
{
	struct sigaction dfl;
	int o, null;

	setpgid(0, 0);
	/* Ignored signals stay ignored across exec; the command gets defaults. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGPIPE, &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &dfl.sa_mask, NULL);
	o = fcntl(out, F_DUPFD, 3);	/* out may be 0 or 1 if those were closed */
	null = open("/dev/null", O_RDONLY);
	if (o < 0 || null < 0 || dup2(null, 0) < 0 || dup2(o, 1) < 0)
		_exit(127);
	close_from(3);
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	_exit(127);
}

struct run {
	pid_t pid;
	int fd;			/* read end of the child's stdout; -1 at EOF */
	int status;
	bool exited;
	bool overflow;		/* printed more than SECRET_OUTPUT_MAX */
	size_t total;
	size_t len;
	char line[SECRET_MAX + 2];	/* the start of the output */
};

static int spawn(const char *command, struct run *r, struct err *e)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, ERR_FINAL, "pipe: %s", strerror(errno));
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	r->pid = fork();
	if (r->pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, ERR_FINAL, "fork: %s", strerror(errno));
	}
	if (r->pid == 0)
		child_exec(command, p[1]);
	setpgid(r->pid, r->pid);	/* both sides, so a kill of the group never misses */
	close(p[1]);
	r->fd = p[0];
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_output(struct run *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Reads what is there; keeps the first bytes, counts the rest.  Closes the
 * pipe at EOF, on an error, or once the output is too large to be ours. */
static void read_some(struct run *r)
{
	char scratch[4096];

	while (r->fd >= 0) {
		size_t room = sizeof(r->line) - r->len;
		char *to = room ? r->line + r->len : scratch;
		ssize_t n = read(r->fd, to, room ? room : sizeof(scratch));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			close_output(r);
			break;
		}
		if (room)
			r->len += (size_t)n;
		r->total += (size_t)n;
		if (r->total > SECRET_OUTPUT_MAX) {
			r->overflow = true;
			close_output(r);
		}
	}
	secret_wipe(scratch, sizeof(scratch));
}

static void reap(struct run *r, bool block)
{
	pid_t w;

	do
		w = waitpid(r->pid, &r->status, block ? 0 : WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == r->pid || (w < 0 && errno == ECHILD))
		r->exited = true;
}

/*
 * Until the child exited and its output is read, or the deadline.  Once it
 * has exited, what it wrote is in the pipe: we take that and stop, even if
 * a background process it left behind still holds the write end.
 */
static bool wait_child(struct run *r, long timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	while (!r->exited || r->fd >= 0) {
		long left = deadline - now_ms();
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

		if (r->exited) {
			read_some(r);
			close_output(r);
			break;
		}
		if (left <= 0)
			return false;
		/* with fd -1 (EOF already) poll just sleeps */
		if (poll(&pfd, 1, left > POLL_SLICE_MS ? POLL_SLICE_MS : (int)left) > 0)
			read_some(r);
		reap(r, false);
	}
	return true;
}

static int command_result(struct run *r, long timeout_ms, bool done, char **out,
			  struct err *e)
{
	const char *nl;

	if (!done)
		return err_set(e, ERR_FINAL, "no password within %ld ms", timeout_ms);
	/* before the status: closing the pipe on it may have killed it (SIGPIPE) */
	if (r->overflow)
		return err_set(e, ERR_FINAL, "printed more than %d bytes", SECRET_OUTPUT_MAX);
	if (WIFSIGNALED(r->status))
		return err_set(e, ERR_FINAL, "killed by signal %d", WTERMSIG(r->status));
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0)
		return err_set(e, ERR_FINAL, "exited with status %d%s", WEXITSTATUS(r->status),
			       WEXITSTATUS(r->status) == 127 ? " (not found?)" : "");
	if (r->len == 0)
		return err_set(e, ERR_FINAL, "printed no password");
	nl = memchr(r->line, '\n', r->len);
	if (!nl && r->len == sizeof(r->line))
		return err_set(e, ERR_FINAL, "the first line is longer than %d bytes", SECRET_MAX);
	return take_password(r->line, nl ? (size_t)(nl - r->line) + 1 : r->len, out, e);
}

int secret_run_command(const char *command, long timeout_ms, char **out, struct err *e)
{
	struct run r = { .fd = -1 };
	bool done;
	int rc;

	if (timeout_ms <= 0)
		timeout_ms = SECRET_COMMAND_TIMEOUT_MS;
	rc = spawn(command, &r, e);
	if (rc == 0) {
		done = wait_child(&r, timeout_ms);
		if (!done) {
			kill(-r.pid, SIGKILL);
			kill(r.pid, SIGKILL);
			if (!r.exited)
				reap(&r, true);
			close_output(&r);
		}
		rc = command_result(&r, timeout_ms, done, out, e);
	}
	secret_wipe(r.line, sizeof(r.line));
	if (rc < 0)
		err_prefix(e, "password_command `%.*s%s`", COMMAND_NAME_MAX, command,
			   strlen(command) > COMMAND_NAME_MAX ? "..." : "");
	return rc;
}

int secret_get(const char *password_file, const char *password_command,
	       char **out, struct err *e)
{
	bool file = password_file && *password_file;
	bool cmd = password_command && *password_command;

	*out = NULL;
	if (file && cmd)
		return err_set(e, ERR_FINAL, "password_file and password_command are both set");
	if (file)
		return secret_read_file(password_file, out, e);
	if (cmd)
		return secret_run_command(password_command, 0, out, e);
	return 0;
}
