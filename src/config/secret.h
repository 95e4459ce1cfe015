/*
 * secret.h - passwords for the IMAP source and the SMTP sink, read from a
 * file or printed by a command, never from the ini file itself.
 *
 * A password lives in a malloc'ed, NUL-terminated string that secret_free()
 * overwrites before freeing; the module's own scratch buffers are wiped too.
 * Nothing here logs, and error messages name the file or the command but
 * never quote what was read.  A password is never put on the argv of a child
 * process: password_command is run as `/bin/sh -c COMMAND` and the password
 * only travels back over its stdout.
 *
 * A password holds no NUL, CR or LF (after the one trailing newline is
 * removed) and is never empty: a file or command that yields one of those is
 * an error, since it is always a mistake and would break IMAP LOGIN.
 *
 * All functions return 0 or -1 with e filled, class ERR_FINAL: a missing or
 * unsafe password file is a configuration problem that retrying cannot fix.
 * Run secret_run_command() only where SIGCHLD is not ignored.
 */
#ifndef TAGBOT_SECRET_H
#define TAGBOT_SECRET_H

#include <stddef.h>

#include "lib/err.h"

#define SECRET_MAX			4096	/* bytes of a password */
#define SECRET_OUTPUT_MAX		65536	/* command output read before giving up on it */
#define SECRET_COMMAND_TIMEOUT_MS	10000	/* default for secret_run_command */

/*
 * Reads the password in path: the whole file without one trailing "\n" (or
 * "\r\n").  Refused: a file that is not a regular file (after following
 * symlinks), one whose mode gives group or others any access
 * ("PATH: permissions 0644 are too open; chmod 600 it"), one larger than
 * SECRET_MAX.  *out is set only on success.
 */
int secret_read_file(const char *path, char **out, struct err *e);

/*
 * Runs `/bin/sh -c command` with stdin from /dev/null, its own process
 * group and none of our file descriptors but stdout (a pipe) and stderr,
 * and takes the first line of its stdout (without "\n" or "\r\n").  After
 * timeout_ms (0: SECRET_COMMAND_TIMEOUT_MS) the process group is killed.
 * Errors, naming the command but not its output: it cannot be started,
 * times out, exits non-zero or by a signal, prints nothing, or prints a first
 * line longer than SECRET_MAX.  *out is set only on success.
 */
int secret_run_command(const char *command, long timeout_ms, char **out, struct err *e);

/*
 * The configured way: at most one of password_file and password_command
 * may be set (non-NULL and non-empty); both is an error.  Neither sets *out
 * to NULL and succeeds (no authentication).
 */
int secret_get(const char *password_file, const char *password_command,
	       char **out, struct err *e);

/* Overwrites s (up to its NUL) and frees it; NULL is fine. */
void secret_free(char *s);

/* Overwrites n bytes at p in a way the compiler cannot drop. */
void secret_wipe(void *p, size_t n);

#endif
