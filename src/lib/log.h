/*
 * log.h - the process-wide logger: stderr or syslog, four levels.
 *
 * Set up once by main.c (log_setup) and again on SIGHUP when the level or
 * target changes; before that, everything at info or above goes to stderr.
 * Lines about one mail name it first, as "message <id>: ...", through
 * log_message().  Every line is made safe before it is written: control
 * characters (a CR LF in a Subject copied into a line) become '?', and a
 * line is cut at LOG_LINE_MAX bytes, so a hostile mail can neither forge a
 * log line nor flood one.
 *
 * Under systemd (JOURNAL_STREAM names the stderr stream) a stderr line is
 * written "<N>level: text", so the journal files it at syslog priority N
 * (warnings as warnings, not info) and stamps it itself.
 *
 * There is deliberately no function that takes a password or a secret:
 * callers log host names, user names and folder names, never credentials.
 */
#ifndef TAGBOT_LOG_H
#define TAGBOT_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define LOG_LINE_MAX 2048	/* bytes of one line, without the prefix */

/* Not LOG_ERR etc.: <syslog.h> owns those names. */
enum log_level {
	LOGL_ERROR = 0,
	LOGL_WARNING,
	LOGL_INFO,
	LOGL_DEBUG
};

enum log_target {
	LOG_TARGET_STDERR = 0,
	LOG_TARGET_SYSLOG
};

/* "error", "warning", "info", "debug". */
const char *log_level_name(enum log_level l);
/* Parses those names (case-insensitive; "warn" too); -1 when unknown. */
int log_level_parse(const char *s, enum log_level *out);
/* "stderr", "syslog"; -1 when unknown. */
int log_target_parse(const char *s, enum log_target *out);

/*
 * (Re)configures the logger.  ident is the syslog identity ("tagbot";
 * copied).  Lines below level are dropped.  Calling it again closes the old
 * syslog connection first.
 */
void log_setup(enum log_target target, enum log_level level, const char *ident);

/* Closes syslog and returns to the defaults (stderr, info). */
void log_close(void);

/* Sends stderr-target output to f instead (tests); NULL restores stderr. */
void log_set_stream(FILE *f);

/* True when a line at level l would be written (skip expensive formatting). */
bool log_enabled(enum log_level l);

void log_msg(enum log_level l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level l, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* "message <msgid>: " + fmt.  msgid may be given with or without <>; NULL
 * or "" logs "message (no Message-ID): ". */
void log_message(enum log_level l, const char *msgid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
