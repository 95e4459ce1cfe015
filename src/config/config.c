/*
 * config.c - iniparser -> struct config.
 *
 * iniparser lower-cases section names and keys, cuts unquoted values at
 * ';' or '#', joins lines ending in '\' and holds at most 1023 characters
 * per (joined) line.  It keeps entries in file order, a section as a key
 * with a NULL value and "section:key" for the rest, so one walk over the
 * dictionary sees everything the admin wrote, including keys placed before
 * any section (":key"), which the section API would hide.
 *
 * Loading happens into a fresh struct config that replaces the caller's
 * only when everything validated, so a bad reload keeps the old settings.
 */
#include "autoconf.h"
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <iniparser.h>

#include "mail/address.h"
#include "mail/authres.h"
#include "mail/mailmap.h"
#include "lib/buf.h"
#include "config/config.h"
#include "config/secret.h"
#include "lib/utf8.h"
#include "lib/ascii.h"

#define SUGGEST_MAX_LEN		64	/* longer words get no "did you mean" */
#define SUGGEST_MAX_DIST	2
#define CUSTOM_SECTION		"rule "	/* [rule MY_RULE] */
#define LIST_SECTION		"list "	/* [list linux-leds.vger.kernel.org] */
#define DEFAULT_SECTION		"default"
#define SOURCE_SECTION		"source "	/* [source NAME] */
#define MAINTAINER_MAX		254	/* bytes of one maintainers entry */

/* Parses value into the field at ptr; on error fills e with the problem only. */
typedef int (*parse_fn)(const char *value, void *ptr, struct err *e);

/* ---------------------------------------------------------------- parsers */

static int parse_bool(const char *v, void *ptr, struct err *e)
{
	static const struct { const char *word; bool val; } words[] = {
		{ "yes", true }, { "no", false }, { "true", true }, { "false", false },
		{ "on", true }, { "off", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		if (!strcasecmp(v, words[i].word)) {
			*(bool *)ptr = words[i].val;
			return 0;
		}
	}
	return err_set(e, ERR_FINAL, "\"%s\" is not yes or no", v);
}

static int parse_severity(const char *v, void *ptr, struct err *e)
{
	if (severity_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning, check or off", v);
	return 0;
}

#define WORD_SPACE " \t\r\n"

/* Splits v at the characters of seps into words; calls fn on each
 * (NUL-terminated copy). */
static int each_word(const char *v, const char *seps,
		     int (*fn)(const char *w, size_t i, void *arg, struct err *e),
		     void *arg, struct err *e)
{
	size_t i = 0;

	while (*v) {
		size_t n;
		char *w;
		int rc;

		v += strspn(v, seps);
		n = strcspn(v, seps);
		if (!n)
			break;
		w = xstrndup(v, n);
		rc = fn(w, i++, arg, e);
		free(w);
		if (rc < 0)
			return -1;
		v += n;
	}
	return 0;
}

static int add_pattern(const char *w, size_t i, void *arg, struct err *e)
{
	struct pattern_list *l = arg;

	if (l->n >= CONFIG_MAX_PATTERNS)
		return err_set(e, ERR_FINAL, "more than %d patterns", CONFIG_MAX_PATTERNS);
	/* Caseless, like the built-in URL forms: hosts are case-insensitive. */
	if (pattern_list_add(l, w, PATTERN_CASELESS, e) < 0)
		return err_prefix(e, "pattern %zu \"%.80s\"", i + 1, w);
	return 0;
}

/* archive_patterns, bugtracker_patterns: the list replaces the defaults. */
static int parse_patterns(const char *v, void *ptr, struct err *e)
{
	struct pattern_list *l = ptr;

	pattern_list_release(l);
	return each_word(v, WORD_SPACE, add_pattern, l, e);
}

/* ..._add: appended to the defaults (or to the replacement list). */
static int parse_patterns_add(const char *v, void *ptr, struct err *e)
{
	return each_word(v, WORD_SPACE, add_pattern, ptr, e);
}

static int parse_followers(const char *v, void *ptr, struct err *e)
{
	unsigned bits = 0;
	const char *p = v;

	while (*p) {
		size_t n;

		p += strspn(p, " \t,");
		n = strcspn(p, " \t,");
		if (n == 6 && !strncasecmp(p, "closes", n))
			bits |= FOLLOW_CLOSES;
		else if (n == 4 && !strncasecmp(p, "link", n))
			bits |= FOLLOW_LINK;
		else if (n)
			return err_set(e, ERR_FINAL, "\"%.*s\" is not Closes or Link", (int)n, p);
		p += n;
	}
	if (!bits)
		return err_set(e, ERR_FINAL, "expected \"Closes, Link\", \"Closes\" or \"Link\"");
	*(unsigned *)ptr = bits;
	return 0;
}

/* ------------------------------------------------- the daemon's parsers */

static void set_string(char **field, const char *v)
{
	free(*field);
	*field = *v ? xstrdup(v) : NULL;
}

/* A string key; an empty value means "not set". */
static int parse_str(const char *v, void *ptr, struct err *e)
{
	if (strpbrk(v, "\r\n"))
		return err_set(e, ERR_FINAL, "must be one line");
	set_string(ptr, v);
	return 0;
}

/* footer: "\n" in the value is a line break, "\\" a backslash. */
static int parse_footer(const char *v, void *ptr, struct err *e)
{
	struct buf b;

	buf_init(&b, CONFIG_MAX_BYTES);
	for (const char *p = v; *p; p++) {
		if (p[0] == '\\' && (p[1] == 'n' || p[1] == '\\')) {
			buf_addch(&b, p[1] == 'n' ? '\n' : '\\');
			p++;
		} else {
			buf_addch(&b, *p);
		}
	}
	free(*(char **)ptr);
	*(char **)ptr = b.len ? buf_detach(&b, NULL) : NULL;
	buf_release(&b);
	return 0;
}

/* Whole decimal number in [min, max]. */
static int parse_range(const char *v, int *out, long min, long max, struct err *e)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (end == v || *end || errno || n < min || n > max)
		return err_set(e, ERR_FINAL, "\"%s\" is not a number from %ld to %ld", v, min, max);
	*out = (int)n;
	return 0;
}

static int parse_port(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 65535, e);
}

static int parse_seconds(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 1, 86400, e);
}

static int parse_grace(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 86400, e);
}

static int parse_batch(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 1, 1000, e);
}

/* max_message_size: bytes, or with a K or M suffix (KiB, MiB). */
static int parse_message_size(const char *v, void *ptr, struct err *e)
{
	size_t n = strlen(v);
	int unit = 1, k;
	char num[32];

	if (n && (v[n - 1] == 'K' || v[n - 1] == 'k' || v[n - 1] == 'M' || v[n - 1] == 'm')) {
		unit = v[n - 1] == 'K' || v[n - 1] == 'k' ? 1024 : 1024 * 1024;
		n--;
	}
	if (!n || n >= sizeof(num))
		return err_set(e, ERR_FINAL, "\"%s\" is not a size (bytes, or with K or M)", v);
	memcpy(num, v, n);
	num[n] = '\0';
	if (parse_range(num, &k, 1, CONFIG_MAX_MAX_MESSAGE / unit, e) < 0 ||
	    k * unit < CONFIG_MIN_MAX_MESSAGE)
		return err_set(e, ERR_FINAL, "\"%s\" is not a size from %dK to %dM", v,
			       CONFIG_MIN_MAX_MESSAGE / 1024, CONFIG_MAX_MAX_MESSAGE >> 20);
	*(int *)ptr = k * unit;
	return 0;
}

static int parse_rate(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 1000000, e);
}

static int parse_percent(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 100, e);
}

/* [lookup] rate: transfers started per second, 0 = no limit. */
static int parse_rate_limit(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 1000, e);
}

static int parse_ttl(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 30 * 86400, e);
}

/*
 * The URL and host keys refuse a user name or password before anything can
 * quote the value: the message names the key only, so a password never
 * reaches a terminal, a log or `tagbot status`.
 */
bool config_url_has_userinfo(const char *url)
{
	const char *a = strstr(url, "://");

	a = a ? a + 3 : url;
	return memchr(a, '@', strcspn(a, "/?#")) != NULL;
}

/* [lookup] archive_url: an http(s) URL (a public-inbox, lore by default). */
static int parse_http_url(const char *v, void *ptr, struct err *e)
{
	if (config_url_has_userinfo(v))
		return err_set(e, ERR_FINAL, "credentials in the URL are not accepted "
			       "(the archive is read anonymously)");
	if ((strncasecmp(v, "https://", 8) || !v[8]) && (strncasecmp(v, "http://", 7) || !v[7]))
		return err_set(e, ERR_FINAL, "\"%.200s\" is not an http:// or https:// URL", v);
	return parse_str(v, ptr, e);
}

/* [sink] url: no '@' anywhere, the rule smtp_check_settings() applies. */
static int parse_smtp_url(const char *v, void *ptr, struct err *e)
{
	if (strchr(v, '@'))
		return err_set(e, ERR_FINAL, "credentials in the URL are not accepted; "
			       "use user and password_file or password_command");
	return parse_str(v, ptr, e);
}

/* [source] host: a name or an address; "user:password@host" is refused. */
static int parse_host(const char *v, void *ptr, struct err *e)
{
	if (strchr(v, '@'))
		return err_set(e, ERR_FINAL, "a user name or password is not accepted here; "
			       "use user and password_file or password_command");
	return parse_str(v, ptr, e);
}

/* [lookup] user_agent: printable, sent after "tagbot/VERSION". */
static int parse_user_agent(const char *v, void *ptr, struct err *e)
{
	if (strlen(v) > 200)
		return err_set(e, ERR_FINAL, "longer than 200 bytes");
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p == 0x7f)
			return err_set(e, ERR_FINAL, "has a control character");
	return parse_str(v, ptr, e);
}

/* A word of a table of names -> an int-sized enum. */
struct name_val {
	const char *name;
	int val;
};

static int parse_name(const char *v, int *out, const struct name_val *t, size_t n,
		      const char *expected, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(v, t[i].name)) {
			*out = t[i].val;
			return 0;
		}
	}
	return err_set(e, ERR_FINAL, "\"%s\" is not %s", v, expected);
}

static int parse_source_type(const char *v, void *ptr, struct err *e)
{
	static const struct name_val t[] = {
		{ "maildir", SOURCE_MAILDIR }, { "imap", SOURCE_IMAP }, { "nntp", SOURCE_NNTP },
	};
	int x = 0;

	if (parse_name(v, &x, t, ARRAY_SIZE(t), "imap, nntp or maildir", e) < 0)
		return -1;
	*(enum source_type *)ptr = (enum source_type)x;
	return 0;
}

static int parse_sink_type(const char *v, void *ptr, struct err *e)
{
	static const struct name_val t[] = { { "maildir", SINK_MAILDIR }, { "smtp", SINK_SMTP } };
	int x = 0;

	if (parse_name(v, &x, t, ARRAY_SIZE(t), "smtp or maildir", e) < 0)
		return -1;
	*(enum sink_type *)ptr = (enum sink_type)x;
	return 0;
}

static const struct name_val tls_names[] = {
	{ "default", CONFIG_TLS_DEFAULT }, { "implicit", CONFIG_TLS_IMPLICIT },
	{ "starttls", CONFIG_TLS_STARTTLS }, { "none", CONFIG_TLS_NONE },
};

const char *config_tls_name(enum config_tls t)
{
	return (unsigned)t < ARRAY_SIZE(tls_names) ? tls_names[t].name : "?";
}

static int parse_tls(const char *v, void *ptr, struct err *e)
{
	int x = 0;

	/* "default" is not offered: leaving the key out says that. */
	if (parse_name(v, &x, tls_names + 1, ARRAY_SIZE(tls_names) - 1,
		       "implicit, starttls or none", e) < 0)
		return -1;
	*(enum config_tls *)ptr = (enum config_tls)x;
	return 0;
}

static int parse_log_target(const char *v, void *ptr, struct err *e)
{
	if (log_target_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not stderr or syslog", v);
	return 0;
}

static int parse_log_level(const char *v, void *ptr, struct err *e)
{
	if (log_level_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning, info or debug", v);
	return 0;
}

/* Replies for findings from here up; "off" would mean every finding. */
static int parse_reply_severity(const char *v, void *ptr, struct err *e)
{
	enum severity s;

	if (severity_parse(v, &s) < 0 || s == SEV_OFF)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning or check", v);
	*(enum severity *)ptr = s;
	return 0;
}

static int parse_reply_to(const char *v, void *ptr, struct err *e)
{
	if (reply_to_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not author, author+list or all", v);
	return 0;
}

static const struct name_val reply_modes[] = {
	{ "per-patch", REPLY_PER_PATCH }, { "per-series", REPLY_PER_SERIES },
};

const char *config_reply_mode_name(enum reply_mode m)
{
	return (unsigned)m < ARRAY_SIZE(reply_modes) ? reply_modes[m].name : "?";
}

static int parse_reply_mode(const char *v, void *ptr, struct err *e)
{
	int x = 0;

	if (parse_name(v, &x, reply_modes, ARRAY_SIZE(reply_modes), "per-patch or per-series",
		       e) < 0)
		return -1;
	*(enum reply_mode *)ptr = (enum reply_mode)x;
	return 0;
}

/* [reply] repeat_after: days; 0 = tell every time. */
static int parse_repeat_after(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, CONFIG_MAX_REPEAT_AFTER, e);
}

static int parse_series_wait(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, CONFIG_MAX_SERIES_WAIT, e);
}

static void list_release(struct config_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->set = false;
}

/* Comma-separated values, each trimmed; empty items are dropped. */
static int parse_list(const char *v, void *ptr, struct err *e)
{
	struct config_list *l = ptr;
	size_t alloc = 0;

	list_release(l);
	l->set = true;
	while (*v) {
		size_t n = strcspn(v, ",");
		const char *s = v, *end = v + n;

		while (s < end && ascii_is_space((unsigned char)*s))
			s++;
		while (end > s && ascii_is_space((unsigned char)end[-1]))
			end--;
		if (end > s) {
			if (l->n >= CONFIG_MAX_LIST)
				return err_set(e, ERR_FINAL, "more than %d values", CONFIG_MAX_LIST);
			ARRAY_GROW(l->v, alloc, l->n + 1);
			l->v[l->n++] = xstrndup(s, (size_t)(end - s));
		}
		v += n + (v[n] == ',');
	}
	return 0;
}

/* maintainers: each value an address or a glob with one '@' ("*@kernel.org"). */
static int parse_maintainers(const char *v, void *ptr, struct err *e)
{
	struct config_list *l = ptr;

	if (parse_list(v, ptr, e) < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		const char *m = l->v[i], *at = strchr(m, '@');

		if (!at || strchr(at + 1, '@') || strlen(m) > MAINTAINER_MAX ||
		    strpbrk(m, " \t<>\"(),;") || at == m || !at[1])
			return err_set(e, ERR_FINAL, "\"%.200s\" is not an address or a pattern "
				       "like *@kernel.org", m);
	}
	return 0;
}

/* trusted_authserv_id: an RFC 2045 token (an authserv-id is mostly a host
 * name), so that it is compared with what a header can hold. */
static int parse_authserv_id(const char *v, void *ptr, struct err *e)
{
	for (const char *p = v; *p; p++)
		if (*p <= ' ' || *p >= 127 || strchr("()<>@,;:\\\"/[]?=", *p))
			return err_set(e, ERR_FINAL, "\"%.200s\" is not an authserv-id (a host "
				       "name such as mx.example.org)", v);
	if (strlen(v) > AUTHRES_ID_MAX)
		return err_set(e, ERR_FINAL, "longer than %d bytes", AUTHRES_ID_MAX);
	set_string(ptr, v);
	return 0;
}

int config_read_mailmap(struct mailmap **out, const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t n;

	*out = NULL;
	if (!f)
		return err_set(e, ERR_FINAL, "cannot read %s: %s", path, strerror(errno));
	text = xmalloc(MAILMAP_MAX_BYTES + 1);
	n = fread(text, 1, MAILMAP_MAX_BYTES + 1, f);
	if (ferror(f) || n > MAILMAP_MAX_BYTES) {
		int bad = ferror(f) ? errno : 0;

		fclose(f);
		free(text);
		return bad ? err_set(e, ERR_FINAL, "cannot read %s: %s", path, strerror(bad))
			   : err_set(e, ERR_FINAL, "%s is larger than %d bytes", path,
				     MAILMAP_MAX_BYTES);
	}
	fclose(f);
	*out = mailmap_new();
	mailmap_parse(*out, text, n);
	free(text);
	return 0;
}

/* mailmap = PATH: read now, so a missing file is a configuration error. */
static int parse_mailmap(const char *v, void *ptr, struct err *e)
{
	struct mailmap **mm = ptr, *fresh;

	if (config_read_mailmap(&fresh, v, e) < 0)
		return -1;
	mailmap_free(*mm);
	*mm = fresh;
	return 0;
}

/* -------------------------------------------------------- the key table */

struct key_def {
	const char *section;
	const char *key;
	parse_fn parse;
	size_t offset;		/* into struct config */
};

/*
 * Every key of the fixed sections.  Rows are applied in this order, so a
 * list's replacement comes before its additions wherever they stand in
 * the file.  The daemon's sections are more rows here.
 */
static const struct key_def config_keys[] = {
	{ "rules", "archive_patterns", parse_patterns,
	  offsetof(struct config, rules.archives) },
	{ "rules", "archive_patterns_add", parse_patterns_add,
	  offsetof(struct config, rules.archives) },
	{ "rules", "bugtracker_patterns", parse_patterns,
	  offsetof(struct config, rules.bugtrackers) },
	{ "rules", "bugtracker_patterns_add", parse_patterns_add,
	  offsetof(struct config, rules.bugtrackers) },
	{ "rules", "reported_by_followers", parse_followers,
	  offsetof(struct config, rules.reported_by_followers) },
	{ "rules", "mailmap", parse_mailmap, offsetof(struct config, rules.mailmap) },
	{ "lookup", "enabled", parse_bool, offsetof(struct config, rules.lookups) },
#define ROW(sec, key, fn, field) { sec, key, fn, offsetof(struct config, field) }
	ROW("lookup", "archive_url", parse_http_url, lookup.archive_url),
	ROW("lookup", "timeout", parse_seconds, lookup.timeout),
	ROW("lookup", "concurrency", parse_batch, lookup.concurrency),
	ROW("lookup", "rate", parse_rate_limit, lookup.rate),
	ROW("lookup", "cache_ttl", parse_ttl, lookup.cache_ttl),
	ROW("lookup", "ca_file", parse_str, lookup.ca_file),
	ROW("lookup", "user_agent", parse_user_agent, lookup.user_agent),
	ROW("tagbot", "state", parse_str, tagbot.state),
	ROW("tagbot", "state_password_file", parse_str, tagbot.state_password_file),
	ROW("tagbot", "state_password_command", parse_str, tagbot.state_password_command),
	ROW("tagbot", "log", parse_log_target, tagbot.log),
	ROW("tagbot", "log_level", parse_log_level, tagbot.log_level),
	ROW("tagbot", "min_reply_severity", parse_reply_severity, tagbot.min_reply_severity),
	ROW("tagbot", "dry_run", parse_bool, tagbot.dry_run),
	ROW("source", "type", parse_source_type, source.type),
	ROW("source", "host", parse_host, source.host),
	ROW("source", "port", parse_port, source.port),
	ROW("source", "tls", parse_tls, source.tls),
	ROW("source", "ca_file", parse_str, source.ca_file),
	ROW("source", "user", parse_str, source.user),
	ROW("source", "password_file", parse_str, source.password_file),
	ROW("source", "password_command", parse_str, source.password_command),
	ROW("source", "folder", parse_str, source.folder),
	ROW("source", "idle", parse_bool, source.idle),
	ROW("source", "poll_interval", parse_seconds, source.poll_interval),
	ROW("source", "mark_seen", parse_bool, source.mark_seen),
	ROW("source", "backfill", parse_bool, source.backfill),
	ROW("source", "path", parse_str, source.path),
	ROW("source", "batch", parse_batch, source.batch),
	ROW("source", "timeout", parse_seconds, source.timeout),
	ROW("source", "max_message_size", parse_message_size, source.max_message_size),
	ROW("source", "retry_after", parse_grace, source.retry_after),
	ROW("source", "groups", parse_list, source.groups),
	ROW("sink", "type", parse_sink_type, sink.type),
	ROW("sink", "url", parse_smtp_url, sink.url),
	ROW("sink", "tls", parse_tls, sink.tls),
	ROW("sink", "ca_file", parse_str, sink.ca_file),
	ROW("sink", "user", parse_str, sink.user),
	ROW("sink", "password_file", parse_str, sink.password_file),
	ROW("sink", "password_command", parse_str, sink.password_command),
	ROW("sink", "path", parse_str, sink.path),
	ROW("sink", "copy_to", parse_str, sink.copy_to),
	ROW("sink", "copy_folder", parse_str, sink.copy_folder),
	ROW("sink", "resend_after", parse_grace, sink.resend_after),
	ROW("sink", "connect_timeout", parse_seconds, sink.connect_timeout),
	ROW("reply", "from", parse_str, reply.from),
	ROW("reply", "to", parse_reply_to, reply.to),
	ROW("reply", "reply_to", parse_str, reply.reply_to),
	ROW("reply", "footer", parse_footer, reply.footer),
	ROW("reply", "bot_addresses", parse_list, reply.bot_addresses),
	ROW("reply", "ignore_senders", parse_list, reply.ignore_senders),
	ROW("reply", "max_per_author_per_hour", parse_rate, reply.max_per_author_per_hour),
	ROW("reply", "max_per_minute", parse_rate, reply.max_per_minute),
	ROW("reply", "max_share_per_sender", parse_percent, reply.max_share_per_sender),
	ROW("reply", "reply_mode", parse_reply_mode, reply.reply_mode),
	ROW("reply", "series_wait", parse_series_wait, reply.series_wait),
	ROW("reply", "repeat_after", parse_repeat_after, reply.repeat_after),
	ROW("reply", "maintainers", parse_maintainers, reply.maintainers),
	ROW("reply", "cc_author", parse_bool, reply.cc_author),
	ROW("reply", "answer_rfc", parse_bool, reply.answer_rfc),
	ROW("reply", "trusted_authserv_id", parse_authserv_id, reply.trusted_authserv_id),
#undef ROW
};

/* Path keys: a relative value is taken from the ini file's directory. */
static const struct {
	const char *section;
	const char *key;
	size_t offset;
} path_keys[] = {
	{ "tagbot", "state", offsetof(struct config, tagbot.state) },	/* unless a URL */
	{ "tagbot", "state_password_file", offsetof(struct config, tagbot.state_password_file) },
	{ "source", "ca_file", offsetof(struct config, source.ca_file) },
	{ "source", "password_file", offsetof(struct config, source.password_file) },
	{ "source", "path", offsetof(struct config, source.path) },
	{ "sink", "ca_file", offsetof(struct config, sink.ca_file) },
	{ "sink", "password_file", offsetof(struct config, sink.password_file) },
	{ "sink", "path", offsetof(struct config, sink.path) },
	{ "lookup", "ca_file", offsetof(struct config, lookup.ca_file) },
};

struct draft_where {
	enum custom_scope scope;
	const char *token;	/* for SCOPE_TRAILER */
};

/* A [rule ID] section while it is read; strings point into the dictionary. */
struct rule_draft {
	const char *pattern;
	struct draft_where where;
	enum severity severity;
	bool must_match;
	bool caseless;
	const char *message;
	const char *doc;
};

static int parse_string(const char *v, void *ptr, struct err *e)
{
	*(const char **)ptr = v;
	return 0;
}

static bool is_token(const char *s)
{
	if (!ascii_is_alpha((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!ascii_is_alnum((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

static int parse_where(const char *v, void *ptr, struct err *e)
{
	static const struct { const char *name; enum custom_scope scope; } scopes[] = {
		{ "subject", SCOPE_SUBJECT }, { "commit", SCOPE_COMMIT },
		{ "trailers", SCOPE_TRAILERS }, { "body", SCOPE_BODY }, { "diff", SCOPE_DIFF },
	};
	struct draft_where *w = ptr;

	if (!strncasecmp(v, "trailer:", 8)) {
		if (!is_token(v + 8))
			return err_set(e, ERR_FINAL, "\"%s\": trailer:<Token> needs a token of "
				       "letters, digits and -", v);
		w->scope = SCOPE_TRAILER;
		w->token = v + 8;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(scopes); i++) {
		if (!strcasecmp(v, scopes[i].name)) {
			w->scope = scopes[i].scope;
			w->token = NULL;
			return 0;
		}
	}
	return err_set(e, ERR_FINAL, "\"%s\" is not subject, commit, trailers, "
		       "trailer:<Token>, body or diff", v);
}

struct rule_key_def {
	const char *key;
	parse_fn parse;
	size_t offset;		/* into struct rule_draft */
	bool required;
};

static const struct rule_key_def rule_keys[] = {
	{ "pattern", parse_string, offsetof(struct rule_draft, pattern), true },
	{ "where", parse_where, offsetof(struct rule_draft, where), true },
	{ "severity", parse_severity, offsetof(struct rule_draft, severity), false },
	{ "must_match", parse_bool, offsetof(struct rule_draft, must_match), false },
	{ "caseless", parse_bool, offsetof(struct rule_draft, caseless), false },
	{ "message", parse_string, offsetof(struct rule_draft, message), true },
	{ "doc", parse_string, offsetof(struct rule_draft, doc), false },
};

/* Keys of [default] and [list ID] besides RULE_ID = severity. */
struct policy_key_def {
	const char *key;
	parse_fn parse;
	size_t offset;		/* into struct list_policy */
};

static const struct policy_key_def policy_keys[] = {
	{ "enabled", parse_bool, offsetof(struct list_policy, enabled) },
	{ "to", parse_reply_to, offsetof(struct list_policy, to) },
	{ "reply_mode", parse_reply_mode, offsetof(struct list_policy, reply_mode) },
	{ "min_reply_severity", parse_reply_severity,
	  offsetof(struct list_policy, min_reply_severity) },
	{ "address", parse_str, offsetof(struct list_policy, address) },
};

/* ------------------------------------------------------------ suggestions */

struct suggest {
	const char *word;
	const char *best;	/* NULL when nothing is close */
	size_t dist;
};

static void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = SUGGEST_MAX_DIST + 1;
}

static void suggest_try(struct suggest *s, const char *candidate)
{
	size_t d = utf8_edit_distance(s->word, candidate);

	if (d < s->dist) {
		s->dist = d;
		s->best = candidate;
	}
}

/* ------------------------------------------- rules chosen on a command line */

/* What config_rules_select() works on: one mark per rule, built-in first,
 * then the custom rules in file order. */
struct rule_marks {
	struct config *c;
	bool *marked;		/* owned; RULE_COUNT + ncustom */
};

/* Marks rule id (built-in or custom, any case); an unknown one is an error
 * with the nearest ID, as in the ini file. */
static int mark_rule(const char *id, size_t i, void *arg, struct err *e)
{
	struct rule_marks *m = arg;
	const struct rule_settings *r = &m->c->rules;
	struct suggest sg;
	int k = rule_find(id);

	if (k >= 0) {
		m->marked[k] = true;
		return 0;
	}
	suggest_init(&sg, id);
	for (size_t j = 0; j < r->ncustom; j++) {
		if (!strcasecmp(r->custom[j].id, id)) {
			m->marked[RULE_COUNT + j] = true;
			return 0;
		}
		suggest_try(&sg, r->custom[j].id);
	}
	for (size_t j = 0; j < RULE_COUNT; j++)
		suggest_try(&sg, rule_defs[j].id);
	if (sg.best)
		return err_set(e, ERR_FINAL, "%s: unknown rule ID (did you mean %s?)", id, sg.best);
	return err_set(e, ERR_FINAL, "%s: unknown rule ID", id);
}

/* Sets every rule whose mark is want off. */
static void rules_off(struct rule_settings *r, const bool *marked, bool want)
{
	for (size_t k = 0; k < RULE_COUNT; k++)
		if (marked[k] == want)
			r->severity[k] = SEV_OFF;
	for (size_t j = 0; j < r->ncustom; j++)
		if (marked[RULE_COUNT + j] == want)
			r->custom[j].severity = SEV_OFF;
}

int config_rules_select(struct config *c, const char *list, bool only, struct err *e)
{
	struct rule_marks m = { c, xcalloc(RULE_COUNT + c->rules.ncustom, sizeof(bool)) };
	int rc = each_word(list, ", \t", mark_rule, &m, e);

	if (rc == 0)
		rules_off(&c->rules, m.marked, !only);
	free(m.marked);
	return rc;
}

/* ------------------------------------------------------------- the loader */

struct load {
	const char *path;
	dictionary *d;
	struct config *c;
	struct err *e;
};

static bool is_custom_section(const char *s);

/*
 * "FILE: [section] key: problem", from the problem already in ld->e.  A
 * custom rule's section is shown with its ID upper-cased, as the rule
 * will report it, not as iniparser lower-cased it.
 */
static int fail_at(struct load *ld, const char *section, const char *key)
{
	char shown[128];
	size_t n = 0;

	for (; section[n] && n < sizeof(shown) - 1; n++)
		shown[n] = section[n];
	shown[n] = '\0';
	if (is_custom_section(section))
		for (char *p = shown + strlen(CUSTOM_SECTION) - 1; *p; p++)
			*p = (char)ascii_toupper((unsigned char)*p);
	if (key)
		return err_prefix(ld->e, "%s: [%s] %s", ld->path, shown, key);
	return err_prefix(ld->e, "%s: [%s]", ld->path, shown);
}

static bool is_fixed_section(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].section, s))
			return true;
	return false;
}

static const struct key_def *find_key(const char *section, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].section, section) && !strcmp(config_keys[i].key, key))
			return &config_keys[i];
	return NULL;
}

static const struct rule_key_def *find_rule_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(rule_keys); i++)
		if (!strcmp(rule_keys[i].key, key))
			return &rule_keys[i];
	return NULL;
}

/* The ID of a [rule ID] section, upper-cased into id; -1 with e set when bad. */
static int custom_id(const char *section, char id[CONFIG_MAX_ID + 1], struct err *e)
{
	const char *s = section + strlen(CUSTOM_SECTION) - 1;	/* "rule" alone too */
	size_t n;

	if (*s)
		s++;
	s += strspn(s, " \t");
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a custom rule section needs an ID: [rule MY_RULE]");
	if (n > CONFIG_MAX_ID)
		return err_set(e, ERR_FINAL, "rule ID longer than %d characters", CONFIG_MAX_ID);
	for (size_t i = 0; i < n; i++) {
		id[i] = (char)ascii_toupper((unsigned char)s[i]);
		if (!ascii_is_upper((unsigned char)id[i]) && !ascii_is_digit((unsigned char)id[i]) && id[i] != '_')
			return err_set(e, ERR_FINAL, "rule ID may hold only A-Z, 0-9 and _");
	}
	id[n] = '\0';
	if (rule_find(id) >= 0)
		return err_set(e, ERR_FINAL, "%s is a built-in rule ID; set its severity "
			       "in [rules] or pick another ID", rule_defs[rule_find(id)].id);
	return 0;
}

static bool is_custom_section(const char *s)
{
	return !strncmp(s, CUSTOM_SECTION, strlen(CUSTOM_SECTION)) || !strcmp(s, "rule");
}

static bool is_list_section(const char *s)
{
	return !strncmp(s, LIST_SECTION, strlen(LIST_SECTION)) || !strcmp(s, "list");
}

static bool is_policy_section(const char *s)
{
	return !strcmp(s, DEFAULT_SECTION) || is_list_section(s);
}

/* The ID of a [list ID] section into *id (points into section); -1 with e
 * set when it is missing or malformed. */
static int list_section_id(const char *section, const char **id, struct err *e)
{
	const char *s = section + strlen("list");
	size_t n;

	s += strspn(s, " \t");
	*id = s;
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a list section needs a list ID: "
			       "[list linux-leds.vger.kernel.org]");
	if (n > CONFIG_MAX_LIST_ID)
		return err_set(e, ERR_FINAL, "list ID longer than %d bytes", CONFIG_MAX_LIST_ID);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("<>\":", *p))
			return err_set(e, ERR_FINAL, "a list ID is printable ASCII without "
				       "spaces, <>, quotes or ':' (the id of List-Id)");
	return 0;
}

static bool is_source_section(const char *s)
{
	return !strncmp(s, SOURCE_SECTION, strlen(SOURCE_SECTION));
}

/* The NAME of a [source NAME] section into *name (points into section):
 * it names the source in logs and in `tagbot status`. */
static int source_section_name(const char *section, const char **name, struct err *e)
{
	const char *s = section + strlen(SOURCE_SECTION);
	size_t n;

	s += strspn(s, " \t");
	*name = s;
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a named source needs a name: [source lkml]");
	if (n > CONFIG_MAX_SOURCE_NAME)
		return err_set(e, ERR_FINAL, "source name longer than %d bytes",
			       CONFIG_MAX_SOURCE_NAME);
	for (const char *p = s; *p; p++)
		if (!ascii_is_alnum((unsigned char)*p) && !strchr("-_.", *p))
			return err_set(e, ERR_FINAL, "a source name holds only letters, digits, "
				       "'-', '_' and '.'");
	return 0;
}

static int check_section(struct load *ld, const char *name)
{
	char id[CONFIG_MAX_ID + 1];
	struct suggest sg;
	const char *lid;

	if (is_fixed_section(name))
		return 0;
	if (is_source_section(name))
		return source_section_name(name, &lid, ld->e) < 0 ? fail_at(ld, name, NULL) : 0;
	if (is_custom_section(name))
		return custom_id(name, id, ld->e) < 0 ? fail_at(ld, name, NULL) : 0;
	if (is_policy_section(name)) {
		if (is_list_section(name) && list_section_id(name, &lid, ld->e) < 0)
			return fail_at(ld, name, NULL);
		return 0;
	}
	suggest_init(&sg, name);
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		suggest_try(&sg, config_keys[i].section);
	suggest_try(&sg, DEFAULT_SECTION);
	if (sg.best)
		err_set(ld->e, ERR_FINAL, "unknown section (did you mean [%s]?)", sg.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown section");
	return fail_at(ld, name, NULL);
}

/* An unknown key in [rules]: most likely a misspelt rule ID. */
static int unknown_rules_key(struct load *ld, const char *key)
{
	char upper[SUGGEST_MAX_LEN + 1];
	struct suggest sk, sr;
	size_t n = strlen(key) < SUGGEST_MAX_LEN ? strlen(key) : SUGGEST_MAX_LEN;

	suggest_init(&sk, key);
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].section, "rules"))
			suggest_try(&sk, config_keys[i].key);
	suggest_init(&sr, key);
	for (size_t i = 0; i < RULE_COUNT; i++)
		suggest_try(&sr, rule_defs[i].id);
	if (sk.best && sk.dist < sr.dist) {
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sk.best);
		return fail_at(ld, "rules", key);
	}
	for (size_t i = 0; i < n; i++)
		upper[i] = (char)ascii_toupper((unsigned char)key[i]);
	upper[n] = '\0';
	if (sr.best)
		err_set(ld->e, ERR_FINAL, "unknown rule ID (did you mean %s?)", sr.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown rule ID");
	return fail_at(ld, "rules", upper);
}

static const struct policy_key_def *find_policy_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++)
		if (!strcmp(policy_keys[i].key, key))
			return &policy_keys[i];
	return NULL;
}

/* An unknown key in [default] or [list ID]: a policy key or a rule ID
 * (iniparser lower-cased it; rule IDs are compared upper-cased). */
static int unknown_policy_key(struct load *ld, const char *section, const char *key)
{
	char upper[SUGGEST_MAX_LEN + 1];
	size_t n = strlen(key) < SUGGEST_MAX_LEN ? strlen(key) : SUGGEST_MAX_LEN;
	struct suggest sk, sr;

	for (size_t i = 0; i < n; i++)
		upper[i] = (char)ascii_toupper((unsigned char)key[i]);
	upper[n] = '\0';
	suggest_init(&sk, key);
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++)
		suggest_try(&sk, policy_keys[i].key);
	suggest_init(&sr, upper);
	for (size_t i = 0; i < RULE_COUNT; i++)
		suggest_try(&sr, rule_defs[i].id);
	if (sr.best && sr.dist < sk.dist) {
		/* shown as the rule ID it almost is, like [rules] does */
		err_set(ld->e, ERR_FINAL, "unknown rule ID (did you mean %s?)", sr.best);
		return fail_at(ld, section, upper);
	}
	if (sk.best)
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sk.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown key or rule ID (expected enabled, to, "
			"reply_mode, min_reply_severity, address or a rule ID)");
	return fail_at(ld, section, key);
}

static int unknown_key(struct load *ld, const char *section, const char *key, bool custom)
{
	const char *rows = is_source_section(section) ? "source" : section;
	struct suggest sg;

	if (!strcmp(section, "rules"))
		return unknown_rules_key(ld, key);
	if (is_policy_section(section))
		return unknown_policy_key(ld, section, key);
	suggest_init(&sg, key);
	for (size_t i = 0; i < ARRAY_SIZE(config_keys) && !custom; i++)
		if (!strcmp(config_keys[i].section, rows))
			suggest_try(&sg, config_keys[i].key);
	for (size_t i = 0; i < ARRAY_SIZE(rule_keys) && custom; i++)
		suggest_try(&sg, rule_keys[i].key);
	if (sg.best)
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sg.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown key");
	return fail_at(ld, section, key);
}

/* Entry "section:key": both known?  Sections themselves precede their keys. */
static int check_key(struct load *ld, const char *entry)
{
	const char *colon = strchr(entry, ':');
	char section[256];
	const char *key;
	bool custom;

	if (!colon || (size_t)(colon - entry) >= sizeof(section))
		return err_set(ld->e, ERR_FINAL, "%s: %s: unexpected entry", ld->path, entry);
	key = colon + 1;
	if (colon == entry)
		return err_set(ld->e, ERR_FINAL, "%s: %s: key outside any section", ld->path, key);
	memcpy(section, entry, (size_t)(colon - entry));
	section[colon - entry] = '\0';
	custom = is_custom_section(section);
	if (is_source_section(section))
		return find_key("source", key) ? 0 : unknown_key(ld, section, key, false);
	if (is_policy_section(section))
		return find_policy_key(key) || rule_find(key) >= 0 ? 0
			: unknown_policy_key(ld, section, key);
	if (custom ? find_rule_key(key) != NULL
		   : find_key(section, key) || (!strcmp(section, "rules") && rule_find(key) >= 0))
		return 0;
	return unknown_key(ld, section, key, custom);
}

/* Every section and key of the file is one we know. */
static int check_entries(struct load *ld)
{
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (!k)
			continue;
		if (ld->d->val[i] ? check_key(ld, k) < 0 : check_section(ld, k) < 0)
			return -1;
	}
	return 0;
}

static const char *lookup(const struct load *ld, const char *section, const char *key)
{
	char entry[512];

	snprintf(entry, sizeof(entry), "%s:%s", section, key);
	return iniparser_getstring(ld->d, entry, NULL);
}

static int apply_fixed_keys(struct load *ld)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct key_def *k = &config_keys[i];
		const char *v = lookup(ld, k->section, k->key);

		if (v && k->parse(v, (char *)ld->c + k->offset, ld->e) < 0)
			return fail_at(ld, k->section, k->key);
	}
	return 0;
}

/* [rules] RULE_ID = severity, in file order. */
static int apply_severities(struct load *ld)
{
	static const char prefix[] = "rules:";

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];
		int id;

		if (!k || !ld->d->val[i] || strncmp(k, prefix, sizeof(prefix) - 1))
			continue;
		id = rule_find(k + sizeof(prefix) - 1);
		if (id < 0)
			continue;	/* a table key, applied by apply_fixed_keys() */
		if (parse_severity(ld->d->val[i], &ld->c->rules.severity[id], ld->e) < 0)
			return fail_at(ld, "rules", rule_defs[id].id);
	}
	return 0;
}

static void add_custom(struct rule_settings *s, const char *id, const struct rule_draft *d,
		       struct pattern *re)
{
	struct custom_rule *r;

	ARRAY_GROW(s->custom, s->custom_alloc, s->ncustom + 1);
	r = &s->custom[s->ncustom++];
	r->id = xstrdup(id);
	r->severity = d->severity;
	r->scope = d->where.scope;
	r->token = d->where.token ? xstrdup(d->where.token) : NULL;
	r->re = re;
	r->must_match = d->must_match;
	r->message = xstrdup(d->message);
	r->doc = xstrdup(d->doc ? d->doc : "");
}

/* One [rule ID] section -> settings->custom. */
static int apply_custom(struct load *ld, const char *section)
{
	struct rule_draft d = { .severity = SEV_WARNING };
	char id[CONFIG_MAX_ID + 1];
	struct pattern *re;

	if (custom_id(section, id, ld->e) < 0)
		return fail_at(ld, section, NULL);
	if (ld->c->rules.ncustom >= CONFIG_MAX_CUSTOM) {
		err_set(ld->e, ERR_FINAL, "more than %d custom rules", CONFIG_MAX_CUSTOM);
		return fail_at(ld, section, NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(rule_keys); i++) {
		const struct rule_key_def *k = &rule_keys[i];
		const char *v = lookup(ld, section, k->key);

		if (!v && k->required) {
			err_set(ld->e, ERR_FINAL, "missing (required)");
			return fail_at(ld, section, k->key);
		}
		if (v && k->parse(v, (char *)&d + k->offset, ld->e) < 0)
			return fail_at(ld, section, k->key);
	}
	if (!*d.message) {
		err_set(ld->e, ERR_FINAL, "must not be empty");
		return fail_at(ld, section, "message");
	}
	/* PATTERN_STEPS: each custom rule has a budget per message (rules.h). */
	re = pattern_compile(d.pattern, PATTERN_STEPS | (d.caseless ? PATTERN_CASELESS : 0),
			     ld->e);
	if (!re)
		return fail_at(ld, section, "pattern");
	add_custom(&ld->c->rules, id, &d, re);
	return 0;
}

static int apply_custom_rules(struct load *ld)
{
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && is_custom_section(k) && apply_custom(ld, k) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------ per-list policy */

/* Layer 1 of config.h: what the global keys say. */
static void policy_from_globals(const struct config *c, struct list_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
	p->to = c->reply.to;
	p->reply_mode = c->reply.reply_mode;
	p->min_reply_severity = c->tagbot.min_reply_severity;
	memcpy(p->severity, c->rules.severity, sizeof(p->severity));
}

/* The ID in v: inside <> when it has them, else all of v; trimmed, lower
 * case, into out.  -1 when empty, too long or not printable ASCII. */
static int list_id_of(const char *v, char *out, size_t size)
{
	const char *lt = strchr(v, '<'), *end;
	size_t n;

	if (lt) {
		v = lt + 1;
		end = strchr(v, '>');
		if (!end)
			return -1;
	} else {
		end = v + strlen(v);
	}
	while (v < end && ascii_is_space((unsigned char)*v))
		v++;
	while (end > v && ascii_is_space((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - v);
	if (!n || n > CONFIG_MAX_LIST_ID || n >= size)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return -1;
		out[i] = (char)ascii_tolower((unsigned char)v[i]);
	}
	out[n] = '\0';
	return 0;
}

int config_mail_list_id(const char *list_id, const char *x_mailing_list, char *out,
			size_t size)
{
	if (list_id && list_id_of(list_id, out, size) == 0)
		return 0;
	if (x_mailing_list && list_id_of(x_mailing_list, out, size) == 0)
		return 0;
	return -1;
}

/* a and b (lower case) name the same list: the first '@' of each is a '.'. */
static bool same_list(const char *a, const char *b)
{
	bool at_a = false, at_b = false;

	for (;; a++, b++) {
		char ca = *a, cb = *b;

		if (ca == '@' && !at_a) {
			ca = '.';
			at_a = true;
		}
		if (cb == '@' && !at_b) {
			cb = '.';
			at_b = true;
		}
		if (ca != cb)
			return false;
		if (!ca)
			return true;
	}
}

const struct list_policy *config_policy_for(const struct config *c, const char *list_id)
{
	char want[CONFIG_MAX_LIST_ID + 1];

	if (!list_id || list_id_of(list_id, want, sizeof(want)) < 0)
		return &c->lists.dflt;
	for (size_t i = 0; i < c->lists.n; i++)
		if (same_list(c->lists.v[i].id, want))
			return &c->lists.v[i];
	return &c->lists.dflt;
}

static bool per_series(const struct list_policy *p)
{
	return p->enabled && p->reply_mode == REPLY_PER_SERIES;
}

bool config_answers_per_series(const struct config *c)
{
	if (per_series(&c->lists.dflt))
		return true;
	for (size_t i = 0; i < c->lists.n; i++)
		if (per_series(&c->lists.v[i]))
			return true;
	return false;
}

/* One "KEY = value" of a policy section into p. */
static int apply_policy_entry(struct load *ld, const char *section, const char *key,
			      const char *v, struct list_policy *p)
{
	const struct policy_key_def *k = find_policy_key(key);
	int id;

	if (k && !strcmp(key, "address") && !p->id) {
		err_set(ld->e, ERR_FINAL, "a list's address belongs in its [list ID] section");
		return fail_at(ld, section, key);
	}
	if (k) {
		if (k->parse(v, (char *)p + k->offset, ld->e) < 0)
			return fail_at(ld, section, key);
		return 0;
	}
	id = rule_find(key);
	if (id < 0)	/* check_entries() let nothing else through */
		return unknown_policy_key(ld, section, key);
	if (parse_severity(v, &p->severity[id], ld->e) < 0)
		return fail_at(ld, section, rule_defs[id].id);
	return 0;
}

/* The keys of section, in file order, over p. */
static int apply_policy_section(struct load *ld, const char *section, struct list_policy *p)
{
	size_t n = strlen(section);

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (!k || !ld->d->val[i] || strncmp(k, section, n) || k[n] != ':')
			continue;
		if (apply_policy_entry(ld, section, k + n + 1, ld->d->val[i], p) < 0)
			return -1;
	}
	return 0;
}

/* One [list ID] section: the [default] layer, then its own keys. */
static int add_list(struct load *ld, const char *section)
{
	struct config_lists *l = &ld->c->lists;
	struct list_policy *p;
	const char *id;

	if (list_section_id(section, &id, ld->e) < 0)
		return fail_at(ld, section, NULL);
	for (size_t i = 0; i < l->n; i++) {
		if (same_list(l->v[i].id, id)) {
			err_set(ld->e, ERR_FINAL, "names the same list as [list %s]", l->v[i].id);
			return fail_at(ld, section, NULL);
		}
	}
	if (l->n >= CONFIG_MAX_LISTS) {
		err_set(ld->e, ERR_FINAL, "more than %d list sections", CONFIG_MAX_LISTS);
		return fail_at(ld, section, NULL);
	}
	ARRAY_GROW(l->v, l->alloc, l->n + 1);
	p = &l->v[l->n];
	*p = l->dflt;
	p->id = xstrdup(id);
	l->n++;		/* owned by l now, released with it on failure */
	return apply_policy_section(ld, section, p);
}

/* Each [list ID] address, checked as a header address, gathered for
 * reply_settings. */
static int list_addresses(struct load *ld)
{
	struct config_lists *l = &ld->c->lists;
	char section[CONFIG_MAX_LIST_ID + 8];

	l->addresses = xcalloc(l->n + 1, sizeof(*l->addresses));
	for (size_t i = 0; i < l->n; i++) {
		const char *a = l->v[i].address;

		if (!a)
			continue;
		if (!address_header_safe(a)) {
			snprintf(section, sizeof(section), "list %s", l->v[i].id);
			err_set(ld->e, ERR_FINAL, "\"%.200s\" is not a plain mail address "
				"(local@domain, no name)", a);
			return fail_at(ld, section, "address");
		}
		l->addresses[l->naddresses++] = a;
	}
	return 0;
}

/* Runs after the global keys: layers 1 to 3 of config.h. */
static int apply_lists(struct load *ld)
{
	struct config *c = ld->c;

	policy_from_globals(c, &c->lists.dflt);
	if (apply_policy_section(ld, DEFAULT_SECTION, &c->lists.dflt) < 0)
		return -1;
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && is_list_section(k) && add_list(ld, k) < 0)
			return -1;
	}
	return list_addresses(ld);
}

static void source_defaults(struct config_source *s)
{
	memset(s, 0, sizeof(*s));
	s->type = SOURCE_MAILDIR;
	s->folder = xstrdup("INBOX");
	s->idle = true;
	s->poll_interval = 60;
	s->batch = 50;
	s->timeout = CONFIG_DEFAULT_SOURCE_TIMEOUT;
	s->max_message_size = CONFIG_DEFAULT_MAX_MESSAGE;
	s->retry_after = CONFIG_DEFAULT_RETRY_AFTER;
}

/* The owned strings of a struct config_source. */
static const size_t source_strings[] = {
	offsetof(struct config_source, name), offsetof(struct config_source, host),
	offsetof(struct config_source, ca_file), offsetof(struct config_source, user),
	offsetof(struct config_source, password_file),
	offsetof(struct config_source, password_command),
	offsetof(struct config_source, folder), offsetof(struct config_source, path),
};

static void source_release(struct config_source *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(source_strings); i++) {
		char **f = (char **)((char *)s + source_strings[i]);

		free(*f);
		*f = NULL;
	}
	list_release(&s->groups);
}

/* Whether the file sets a key of section (a bare header, as the bundled
 * file has, sets nothing). */
static bool has_section(const struct load *ld, const char *section)
{
	return iniparser_getsecnkeys(ld->d, section) > 0;
}

/* One [source NAME]: the defaults of [source], then the rows of [source]
 * read from this section, into the same fields of its own struct. */
static int add_source(struct load *ld, const char *section, size_t *alloc)
{
	struct config *c = ld->c;
	struct config_source *s;
	const char *name;

	if (source_section_name(section, &name, ld->e) < 0)
		return fail_at(ld, section, NULL);
	if (c->nsources >= CONFIG_MAX_SOURCES) {
		err_set(ld->e, ERR_FINAL, "more than %d source sections", CONFIG_MAX_SOURCES);
		return fail_at(ld, section, NULL);
	}
	ARRAY_GROW(c->sources, *alloc, c->nsources + 1);
	s = &c->sources[c->nsources++];	/* released with c on failure */
	source_defaults(s);
	s->name = xstrdup(name);
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct key_def *k = &config_keys[i];
		const char *v;

		if (strcmp(k->section, "source") || !(v = lookup(ld, section, k->key)))
			continue;
		if (k->parse(v, (char *)s + k->offset - offsetof(struct config, source), ld->e) < 0)
			return fail_at(ld, section, k->key);
	}
	return 0;
}

static int apply_sources(struct load *ld)
{
	size_t alloc = 0;

	ld->c->source_set = has_section(ld, "source");
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && is_source_section(k) && add_source(ld, k, &alloc) < 0)
			return -1;
	}
	return 0;
}

static void lists_release(struct config_lists *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].id);
		free(l->v[i].address);
	}
	free(l->v);
	free(l->addresses);
	memset(l, 0, sizeof(*l));
}

/* ------------------------------------------------------------ validation */

bool config_host_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (!host)
		return false;
	if (!strcasecmp(host, "localhost") || !strcasecmp(host, "localhost.localdomain"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int config_url_host(const char *url, char *out, size_t size)
{
	const char *h, *end;

	if (!url)
		return -1;
	if (!strncasecmp(url, "smtp://", 7))
		h = url + 7;
	else if (!strncasecmp(url, "smtps://", 8))
		h = url + 8;
	else
		return -1;
	if (strchr(h, '@') && strchr(h, '@') < h + strcspn(h, "/"))
		return -1;	/* credentials belong in user and password_file */
	if (*h == '[') {
		end = strchr(++h, ']');
		if (!end)
			return -1;
	} else {
		end = h + strcspn(h, ":/");
	}
	if (end == h || (size_t)(end - h) >= size)
		return -1;
	memcpy(out, h, (size_t)(end - h));
	out[end - h] = '\0';
	return 0;
}

static int need(struct load *ld, const char *section, const char *key, const char *value,
		const char *why)
{
	if (value && *value)
		return 0;
	err_set(ld->e, ERR_FINAL, "not set (needed %s)", why);
	return fail_at(ld, section, key);
}

/* One of password_file and password_command, needed when user is set (a
 * login without a password only fails later, at the server); a file must
 * be private. */
static int check_password(struct load *ld, const char *section, const char *user,
			  const char *file, const char *command)
{
	char *secret = NULL;

	if (file && command) {
		err_set(ld->e, ERR_FINAL, "give password_file or password_command, not both");
		return fail_at(ld, section, "password_command");
	}
	if (user && *user && !(file && *file) && !(command && *command)) {
		err_set(ld->e, ERR_FINAL, "not set (needed for user = %s: give password_file "
			"or password_command)", user);
		return fail_at(ld, section, "password_file");
	}
	if (file) {
		if (secret_read_file(file, &secret, ld->e) < 0)
			return fail_at(ld, section, "password_file");
		secret_free(secret);
	}
	return 0;
}

static int check_tls_none(struct load *ld, const char *section, enum config_tls tls,
			  const char *host)
{
	if (tls != CONFIG_TLS_NONE || config_host_is_loopback(host))
		return 0;
	err_set(ld->e, ERR_FINAL, "none is refused: %s is not a loopback address "
		"(127.0.0.1, ::1, localhost); use implicit or starttls",
		host ? host : "the host");
	return fail_at(ld, section, "tls");
}

/* Group names and wildmats (RFC 3977 4.1) go into commands as they are:
 * printable ASCII without spaces, bounded. */
static int check_groups(struct load *ld, const char *section, const struct config_list *g)
{
	if (!g->n) {
		err_set(ld->e, ERR_FINAL, "not set (needed for type = nntp: group names or "
			"wildmats, such as org.kernel.vger.linux-*)");
		return fail_at(ld, section, "groups");
	}
	for (size_t i = 0; i < g->n; i++) {
		const char *v = g->v[i];

		if (strlen(v) > CONFIG_MAX_GROUP) {
			err_set(ld->e, ERR_FINAL, "a group longer than %d bytes", CONFIG_MAX_GROUP);
			return fail_at(ld, section, "groups");
		}
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f) {
				err_set(ld->e, ERR_FINAL, "\"%.200s\" is not a group name or "
					"wildmat (printable ASCII, no spaces)", v);
				return fail_at(ld, section, "groups");
			}
	}
	return 0;
}

/* The section of s as fail_at() names it: "source" or "source NAME". */
static const char *section_of(const struct config_source *s, char *out, size_t size)
{
	if (!s->name)
		return "source";
	snprintf(out, size, "%s%s", SOURCE_SECTION, s->name);
	return out;
}

static int check_source(struct load *ld, const struct config_source *s)
{
	char buf[CONFIG_MAX_SOURCE_NAME + 16];
	const char *sec = section_of(s, buf, sizeof(buf));
	const char *why = s->type == SOURCE_NNTP ? "for type = nntp" : "for type = imap";

	if (s->type == SOURCE_MAILDIR)
		return need(ld, sec, "path", s->path, "for type = maildir");
	if (need(ld, sec, "host", s->host, why) < 0)
		return -1;
	if (s->type == SOURCE_IMAP && need(ld, sec, "user", s->user, why) < 0)
		return -1;
	if (s->type == SOURCE_NNTP && check_groups(ld, sec, &s->groups) < 0)
		return -1;
	if (check_tls_none(ld, sec, s->tls, s->host) < 0)
		return -1;
	return check_password(ld, sec, s->user, s->password_file, s->password_command);
}

/* A key the file gives that an NNTP source has no use for, or groups for
 * another type: a mistake (folder = where groups = was meant).  IMAP and
 * Maildir sources keep accepting each other's keys, as they always did. */
static int check_type_keys(struct load *ld, const struct config_source *s)
{
	static const char *const not_nntp[] = { "folder", "idle", "mark_seen", "path" };
	char buf[CONFIG_MAX_SOURCE_NAME + 16];
	const char *sec = section_of(s, buf, sizeof(buf)), *v;

	if (s->type != SOURCE_NNTP) {
		if (!(v = lookup(ld, sec, "groups")) || !*v)
			return 0;
		err_set(ld->e, ERR_FINAL, "only for type = nntp");
		return fail_at(ld, sec, "groups");
	}
	for (size_t i = 0; i < ARRAY_SIZE(not_nntp); i++) {
		if (!lookup(ld, sec, not_nntp[i]))
			continue;
		err_set(ld->e, ERR_FINAL, "not a key of type = nntp");
		return fail_at(ld, sec, not_nntp[i]);
	}
	return 0;
}

static int check_sink(struct load *ld, const struct config_sink *s)
{
	char host[256];
	bool smtps;

	if (s->type == SINK_MAILDIR)
		return need(ld, "sink", "path", s->path, "for type = maildir");
	if (need(ld, "sink", "url", s->url, "for type = smtp") < 0)
		return -1;
	if (config_url_host(s->url, host, sizeof(host)) < 0) {
		err_set(ld->e, ERR_FINAL, "\"%s\" is not smtp://HOST[:PORT] or smtps://HOST[:PORT]",
			s->url);
		return fail_at(ld, "sink", "url");
	}
	smtps = !strncasecmp(s->url, "smtps://", 8);
	if ((smtps && s->tls != CONFIG_TLS_DEFAULT && s->tls != CONFIG_TLS_IMPLICIT) ||
	    (!smtps && s->tls == CONFIG_TLS_IMPLICIT)) {
		err_set(ld->e, ERR_FINAL, "%s does not go with a %s URL (implicit TLS is smtps://)",
			config_tls_name(s->tls), smtps ? "smtps://" : "smtp://");
		return fail_at(ld, "sink", "tls");
	}
	if (check_tls_none(ld, "sink", s->tls, host) < 0)
		return -1;
	return check_password(ld, "sink", s->user, s->password_file, s->password_command);
}

/* An address key: "Name <a@b>" or "a@b", the addr-spec strict enough for a
 * header (reply.h). */
static int check_address(struct load *ld, const char *section, const char *key,
			 const char *value)
{
	struct person p = { NULL, NULL };
	bool ok;

	if (!value)
		return 0;
	ok = address_parse(&p, value, strlen(value), NULL) == 0 && address_header_safe(p.email);
	person_release(&p);
	if (!ok) {
		err_set(ld->e, ERR_FINAL, "\"%.200s\" is not a mail address", value);
		return fail_at(ld, section, key);
	}
	return 0;
}

static int check_reply(struct load *ld, const struct config *c)
{
	if (check_address(ld, "reply", "from", c->reply.from) < 0 ||
	    check_address(ld, "reply", "reply_to", c->reply.reply_to) < 0 ||
	    check_address(ld, "sink", "copy_to", c->sink.copy_to) < 0)
		return -1;
	for (size_t i = 0; i < c->reply.bot_addresses.n; i++)
		if (check_address(ld, "reply", "bot_addresses", c->reply.bot_addresses.v[i]) < 0)
			return -1;
	return 0;
}

/* A PostgreSQL state's password, as the source's and the sink's; a file or
 * command for an SQLite file is a mistake worth naming. */
static int check_state(struct load *ld, const struct config_tagbot *t)
{
	bool url = t->state && (!strncmp(t->state, "postgresql://", 13) ||
				!strncmp(t->state, "postgres://", 11));

	if (!url && (t->state_password_file || t->state_password_command)) {
		err_set(ld->e, ERR_FINAL, "only for a postgresql:// state (an SQLite file has no "
			"password)");
		return fail_at(ld, "tagbot", t->state_password_file ? "state_password_file"
								     : "state_password_command");
	}
	if (t->state_password_file && t->state_password_command) {
		err_set(ld->e, ERR_FINAL, "give state_password_file or state_password_command, "
			"not both");
		return fail_at(ld, "tagbot", "state_password_command");
	}
	if (t->state_password_file) {
		char *secret = NULL;

		if (secret_read_file(t->state_password_file, &secret, ld->e) < 0)
			return fail_at(ld, "tagbot", "state_password_file");
		secret_free(secret);
	}
	return 0;
}

/* Checks what the file set; a [source] or [sink] it fills must be whole. */
static int validate(struct load *ld)
{
	const struct config *c = ld->c;

	if (check_state(ld, &c->tagbot) < 0)
		return -1;
	if (has_section(ld, "source") &&
	    (check_source(ld, &c->source) < 0 || check_type_keys(ld, &c->source) < 0))
		return -1;
	for (size_t i = 0; i < c->nsources; i++)
		if (check_source(ld, &c->sources[i]) < 0 || check_type_keys(ld, &c->sources[i]) < 0)
			return -1;
	if (has_section(ld, "sink") && check_sink(ld, &c->sink) < 0)
		return -1;
	return check_reply(ld, c);
}

int config_check_daemon(const struct config *c, struct err *e)
{
	struct load ld = { c->path ? c->path : "(built-in defaults)", NULL, (struct config *)c, e };
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	size_t n = config_sources(c, v, ARRAY_SIZE(v));

	for (size_t i = 0; i < n; i++)
		if (check_source(&ld, v[i]) < 0)
			return -1;
	return check_sink(&ld, &c->sink);
}

size_t config_sources(const struct config *c, const struct config_source **out, size_t max)
{
	size_t n = 0;

	if ((c->source_set || !c->nsources) && n < max)
		out[n++] = &c->source;
	for (size_t i = 0; i < c->nsources && n < max; i++)
		out[n++] = &c->sources[i];
	return n;
}

const char *config_source_label(const struct config_source *s, char *out, size_t size)
{
	if (s->name)
		snprintf(out, size, "[%s%s]", SOURCE_SECTION, s->name);
	else
		snprintf(out, size, "[source]");
	return out;
}

/* The directory part of path, "." when it has none. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Removes "." and "dir/.." segments from an absolute path, in place. */
static void tidy_path(char *path)
{
	char *out = path, *p = path;

	if (*path != '/')
		return;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			/* drop it */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else if (n) {
			*out++ = '/';
			memmove(out, p, n);
			out += n;
		}
		p += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/* *field, the value of section's key, taken from dir when relative. */
static void resolve_one(struct load *ld, const char *dir, const char *section,
			const char *key, char **field)
{
	struct buf b;

	if (!*field || **field == '/' || strstr(*field, "://") || !lookup(ld, section, key))
		return;
	buf_init(&b, 0);
	buf_printf(&b, "%s/%s", dir, *field);
	free(*field);
	*field = buf_detach(&b, NULL);
	tidy_path(*field);
}

static void resolve_paths(struct load *ld)
{
	char *dir = dir_of(ld->path), *real = realpath(dir, NULL);

	/* Absolute, so a log line or `tagbot status` names the real place. */
	if (real) {
		free(dir);
		dir = real;
	}

	for (size_t i = 0; i < ARRAY_SIZE(path_keys); i++)
		resolve_one(ld, dir, path_keys[i].section, path_keys[i].key,
			    (char **)((char *)ld->c + path_keys[i].offset));
	/* a [source NAME] has the path keys of [source] */
	for (size_t k = 0; k < ld->c->nsources; k++) {
		struct config_source *s = &ld->c->sources[k];
		char sec[CONFIG_MAX_SOURCE_NAME + 16];

		section_of(s, sec, sizeof(sec));
		for (size_t i = 0; i < ARRAY_SIZE(path_keys); i++)
			if (!strcmp(path_keys[i].section, "source"))
				resolve_one(ld, dir, sec, path_keys[i].key, (char **)((char *)s +
					    path_keys[i].offset - offsetof(struct config, source)));
	}
	free(dir);
}

/* --------------------------------------------------------- reading the file */

/* iniparser reports through a printf-like callback with no user pointer. */
static char ini_error[ERR_MSG_MAX];

static int ini_error_cb(const char *fmt, ...)
{
	char tmp[ERR_MSG_MAX];
	va_list ap;
	char *p;

	if (ini_error[0])
		return 0;	/* keep the first one */
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	p = tmp;
	if (!strncmp(p, "iniparser: ", 11))
		p += 11;
	for (char *q = p; *q; q++)
		if (*q == '\n')
			*q = ' ';
	snprintf(ini_error, sizeof(ini_error), "%s", p);
	for (size_t n = strlen(ini_error); n && ini_error[n - 1] == ' '; n--)
		ini_error[n - 1] = '\0';
	return 0;
}

static int ini_read(const char *path, dictionary **out, struct err *e)
{
	struct stat st;
	FILE *f;

	if (stat(path, &st) < 0)
		return err_set(e, ERR_FINAL, "%s: cannot read: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_FINAL, "%s: not a regular file", path);
	if (st.st_size > CONFIG_MAX_BYTES)
		return err_set(e, ERR_FINAL, "%s: larger than %d bytes", path, CONFIG_MAX_BYTES);
	f = fopen(path, "r");
	if (!f)
		return err_set(e, ERR_FINAL, "%s: cannot read: %s", path, strerror(errno));
	fclose(f);
	ini_error[0] = '\0';
	iniparser_set_error_callback(ini_error_cb);
	*out = iniparser_load(path);
	iniparser_set_error_callback(NULL);
	if (!*out || ini_error[0]) {
		if (*out)
			iniparser_freedict(*out);
		*out = NULL;
		return err_set(e, ERR_FINAL, "%s: %s", path,
			       ini_error[0] ? ini_error : "cannot parse");
	}
	return 0;
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	rule_settings_init(&c->rules);
	c->tagbot.state = xstrdup(CONFIG_DEFAULT_STATE);
	c->tagbot.log = LOG_TARGET_STDERR;
	c->tagbot.log_level = LOGL_INFO;
	c->tagbot.min_reply_severity = SEV_WARNING;
	source_defaults(&c->source);
	c->sink.type = SINK_MAILDIR;
	c->sink.copy_folder = xstrdup("INBOX");
	c->sink.resend_after = CONFIG_DEFAULT_RESEND_AFTER;
	c->sink.connect_timeout = CONFIG_DEFAULT_CONNECT_TIMEOUT;
	c->reply.from = xstrdup("tagbot <tagbot@localhost.localdomain>");
	c->reply.to = REPLY_TO_AUTHOR;
	c->reply.cc_author = true;
	c->reply.max_per_author_per_hour = 10;
	c->reply.max_per_minute = 30;
	c->reply.max_share_per_sender = 50;
	lookup_settings_init(&c->lookup);
	c->reply.reply_mode = REPLY_PER_SERIES;
	c->reply.series_wait = CONFIG_DEFAULT_SERIES_WAIT;
	c->reply.repeat_after = CONFIG_MAX_REPEAT_AFTER;
	policy_from_globals(c, &c->lists.dflt);
}

/* Every owned string of the daemon's sections, for config_release(). */
static const size_t string_fields[] = {
	offsetof(struct config, tagbot.state), offsetof(struct config, tagbot.state_password_file),
	offsetof(struct config, tagbot.state_password_command),
	offsetof(struct config, sink.url), offsetof(struct config, sink.ca_file),
	offsetof(struct config, sink.user), offsetof(struct config, sink.password_file),
	offsetof(struct config, sink.password_command), offsetof(struct config, sink.path),
	offsetof(struct config, sink.copy_to), offsetof(struct config, sink.copy_folder),
	offsetof(struct config, reply.from), offsetof(struct config, reply.reply_to),
	offsetof(struct config, reply.footer), offsetof(struct config, reply.trusted_authserv_id),
};

void config_release(struct config *c)
{
	free(c->path);
	rule_settings_release(&c->rules);
	for (size_t i = 0; i < ARRAY_SIZE(string_fields); i++) {
		char **f = (char **)((char *)c + string_fields[i]);

		free(*f);
		*f = NULL;
	}
	lookup_settings_release(&c->lookup);
	source_release(&c->source);
	for (size_t i = 0; i < c->nsources; i++)
		source_release(&c->sources[i]);
	free(c->sources);
	c->sources = NULL;
	c->nsources = 0;
	list_release(&c->reply.bot_addresses);
	list_release(&c->reply.ignore_senders);
	list_release(&c->reply.maintainers);
	lists_release(&c->lists);
	c->path = NULL;
}

int config_load(struct config *c, const char *path, struct err *e)
{
	struct config fresh;
	struct load ld = { path, NULL, &fresh, e };
	int rc;

	if (ini_read(path, &ld.d, e) < 0)
		return -1;
	config_init(&fresh);
	rc = check_entries(&ld);
	if (!rc)
		rc = apply_fixed_keys(&ld);
	if (!rc)
		rc = apply_severities(&ld);
	if (!rc)
		rc = apply_custom_rules(&ld);
	if (!rc)
		rc = apply_lists(&ld);
	if (!rc)
		rc = apply_sources(&ld);
	if (!rc) {
		resolve_paths(&ld);
		rc = validate(&ld);
	}
	iniparser_freedict(ld.d);
	if (rc < 0) {
		config_release(&fresh);
		return -1;
	}
	fresh.path = xstrdup(path);
	config_release(c);
	*c = fresh;
	return 0;
}
