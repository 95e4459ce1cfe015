#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "lib/log.h"

static const struct {
	const char *name;
	int syslog_prio;
} levels[] = {
	[LOGL_ERROR] = { "error", LOG_ERR },
	[LOGL_WARNING] = { "warning", LOG_WARNING },
	[LOGL_INFO] = { "info", LOG_INFO },
	[LOGL_DEBUG] = { "debug", LOG_DEBUG },
};

static struct {
	enum log_target target;
	enum log_level level;
	char ident[64];
	FILE *stream;	/* NULL: stderr */
	bool syslog_open;
} logger = { LOG_TARGET_STDERR, LOGL_INFO, "tagbot", NULL, false };

const char *log_level_name(enum log_level l)
{
	return (unsigned)l <= LOGL_DEBUG ? levels[l].name : "?";
}

int log_level_parse(const char *s, enum log_level *out)
{
	for (size_t i = 0; i <= LOGL_DEBUG; i++) {
		if (!strcasecmp(s, levels[i].name)) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	if (!strcasecmp(s, "warn")) {
		*out = LOGL_WARNING;
		return 0;
	}
	return -1;
}

int log_target_parse(const char *s, enum log_target *out)
{
	if (!strcasecmp(s, "stderr"))
		*out = LOG_TARGET_STDERR;
	else if (!strcasecmp(s, "syslog"))
		*out = LOG_TARGET_SYSLOG;
	else
		return -1;
	return 0;
}

void log_setup(enum log_target target, enum log_level level, const char *ident)
{
	if (logger.syslog_open) {
		closelog();
		logger.syslog_open = false;
	}
	snprintf(logger.ident, sizeof(logger.ident), "%s", ident ? ident : "tagbot");
	logger.target = target;
	logger.level = level;
	if (target == LOG_TARGET_SYSLOG) {
		/* openlog keeps the pointer: logger.ident is static storage. */
		openlog(logger.ident, LOG_PID, LOG_MAIL);
		logger.syslog_open = true;
	}
}

void log_close(void)
{
	log_setup(LOG_TARGET_STDERR, LOGL_INFO, "tagbot");
}

void log_set_stream(FILE *f)
{
	logger.stream = f;
}

bool log_enabled(enum log_level l)
{
	return l <= logger.level;
}

/* Control bytes (C0, DEL) become '?': one log line stays one line. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/*
 * Whether f is the journal's stream: systemd sets JOURNAL_STREAM to the
 * "DEVICE:INODE" of the stderr it hands a service, and a line that starts
 * "<N>" then gets syslog priority N there (and the journal stamps it).
 */
static bool to_journal(FILE *f)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int fd = fileno(f);

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fd < 0 || fstat(fd, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static void emit(enum log_level l, char *line)
{
	FILE *f = logger.stream ? logger.stream : stderr;
	char stamp[32];
	struct tm tm;
	time_t now;

	sanitize(line);
	if (logger.target == LOG_TARGET_SYSLOG) {
		syslog(levels[l].syslog_prio, "%s", line);
		return;
	}
	if (to_journal(f)) {
		fprintf(f, "<%d>%s: %s\n", levels[l].syslog_prio, levels[l].name, line);
		fflush(f);
		return;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%s %s: %s: %s\n", stamp, logger.ident, levels[l].name, line);
	fflush(f);
}

void log_vmsg(enum log_level l, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];

	if ((unsigned)l > LOGL_DEBUG || !log_enabled(l))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	emit(l, line);
}

void log_msg(enum log_level l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(l, fmt, ap);
	va_end(ap);
}

void log_message(enum log_level l, const char *msgid, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	size_t off, idlen;
	va_list ap;

	if ((unsigned)l > LOGL_DEBUG || !log_enabled(l))
		return;
	if (msgid && *msgid == '<')
		msgid++;
	idlen = msgid ? strcspn(msgid, ">") : 0;
	if (idlen)
		snprintf(line, sizeof(line), "message <%.*s>: ", (int)(idlen > 300 ? 300 : idlen), msgid);
	else
		snprintf(line, sizeof(line), "message (no Message-ID): ");
	off = strlen(line);
	va_start(ap, fmt);
	vsnprintf(line + off, sizeof(line) - off, fmt, ap);
	va_end(ap);
	emit(l, line);
}
