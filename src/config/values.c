/*
 * values.c - the typed values of config/: each parser reads one value of
 * the ini file into its field, or names what is wrong with it (the caller
 * adds the file, section and key).
 */
#include "autoconf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/authres.h"
#include "mail/mailmap.h"
#include "lib/ascii.h"
#include "lib/buf.h"
#include "config/config_p.h"

#define MAINTAINER_MAX		254	/* bytes of one maintainers entry */

int cfg_parse_bool(const char *v, void *ptr, struct err *e)
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

int cfg_parse_severity(const char *v, void *ptr, struct err *e)
{
	if (severity_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning, check or off", v);
	return 0;
}

#define WORD_SPACE " \t\r\n"

int cfg_each_word(const char *v, const char *seps, cfg_word_fn *fn, void *arg, struct err *e)
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
int cfg_parse_patterns(const char *v, void *ptr, struct err *e)
{
	struct pattern_list *l = ptr;

	pattern_list_release(l);
	return cfg_each_word(v, WORD_SPACE, add_pattern, l, e);
}

/* ..._add: appended to the defaults (or to the replacement list). */
int cfg_parse_patterns_add(const char *v, void *ptr, struct err *e)
{
	return cfg_each_word(v, WORD_SPACE, add_pattern, ptr, e);
}

int cfg_parse_followers(const char *v, void *ptr, struct err *e)
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

void cfg_set_string(char **field, const char *v)
{
	free(*field);
	*field = *v ? xstrdup(v) : NULL;
}

/* A string key; an empty value means "not set". */
int cfg_parse_str(const char *v, void *ptr, struct err *e)
{
	if (strpbrk(v, "\r\n"))
		return err_set(e, ERR_FINAL, "must be one line");
	cfg_set_string(ptr, v);
	return 0;
}

/* footer: "\n" in the value is a line break, "\\" a backslash. */
int cfg_parse_footer(const char *v, void *ptr, struct err *e)
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

int cfg_parse_port(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 65535, e);
}

int cfg_parse_seconds(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 1, 86400, e);
}

int cfg_parse_grace(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 86400, e);
}

int cfg_parse_batch(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 1, 1000, e);
}

/* max_message_size: bytes, or with a K or M suffix (KiB, MiB). */
int cfg_parse_message_size(const char *v, void *ptr, struct err *e)
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

int cfg_parse_rate(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 1000000, e);
}

int cfg_parse_percent(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 100, e);
}

/* [lookup] rate: transfers started per second, 0 = no limit. */
int cfg_parse_rate_limit(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, 1000, e);
}

int cfg_parse_ttl(const char *v, void *ptr, struct err *e)
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
int cfg_parse_http_url(const char *v, void *ptr, struct err *e)
{
	if (config_url_has_userinfo(v))
		return err_set(e, ERR_FINAL, "credentials in the URL are not accepted "
			       "(the archive is read anonymously)");
	if ((strncasecmp(v, "https://", 8) || !v[8]) && (strncasecmp(v, "http://", 7) || !v[7]))
		return err_set(e, ERR_FINAL, "\"%.200s\" is not an http:// or https:// URL", v);
	return cfg_parse_str(v, ptr, e);
}

/* [sink] url: no '@' anywhere, the rule smtp_check_settings() applies. */
int cfg_parse_smtp_url(const char *v, void *ptr, struct err *e)
{
	if (strchr(v, '@'))
		return err_set(e, ERR_FINAL, "credentials in the URL are not accepted; "
			       "use user and password_file or password_command");
	return cfg_parse_str(v, ptr, e);
}

/* [source] host: a name or an address; "user:password@host" is refused. */
int cfg_parse_host(const char *v, void *ptr, struct err *e)
{
	if (strchr(v, '@'))
		return err_set(e, ERR_FINAL, "a user name or password is not accepted here; "
			       "use user and password_file or password_command");
	return cfg_parse_str(v, ptr, e);
}

/* [lookup] user_agent: printable, sent after "tagbot/VERSION". */
int cfg_parse_user_agent(const char *v, void *ptr, struct err *e)
{
	if (strlen(v) > 200)
		return err_set(e, ERR_FINAL, "longer than 200 bytes");
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p == 0x7f)
			return err_set(e, ERR_FINAL, "has a control character");
	return cfg_parse_str(v, ptr, e);
}

/* A word of a table of names -> an int-sized enum. */
struct name_val {
	const char *name;
	int val;
};

/* The value v names in t[0..n) (all >= 0), or -1 with e saying what was
 * expected. */
static int parse_name(const char *v, const struct name_val *t, size_t n, const char *expected,
		      struct err *e)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(v, t[i].name))
			return t[i].val;
	return err_set(e, ERR_FINAL, "\"%s\" is not %s", v, expected);
}

int cfg_parse_source_type(const char *v, void *ptr, struct err *e)
{
	static const struct name_val t[] = {
		{ "maildir", SOURCE_MAILDIR }, { "imap", SOURCE_IMAP }, { "nntp", SOURCE_NNTP },
	};
	int x = parse_name(v, t, ARRAY_SIZE(t), "imap, nntp or maildir", e);

	if (x < 0)
		return -1;
	*(enum source_type *)ptr = (enum source_type)x;
	return 0;
}

int cfg_parse_sink_type(const char *v, void *ptr, struct err *e)
{
	static const struct name_val t[] = { { "maildir", SINK_MAILDIR }, { "smtp", SINK_SMTP } };
	int x = parse_name(v, t, ARRAY_SIZE(t), "smtp or maildir", e);

	if (x < 0)
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

int cfg_parse_tls(const char *v, void *ptr, struct err *e)
{
	/* "default" is not offered: leaving the key out says that. */
	int x = parse_name(v, tls_names + 1, ARRAY_SIZE(tls_names) - 1,
			   "implicit, starttls or none", e);

	if (x < 0)
		return -1;
	*(enum config_tls *)ptr = (enum config_tls)x;
	return 0;
}

int cfg_parse_log_target(const char *v, void *ptr, struct err *e)
{
	if (log_target_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not stderr or syslog", v);
	return 0;
}

int cfg_parse_log_level(const char *v, void *ptr, struct err *e)
{
	if (log_level_parse(v, ptr) < 0)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning, info or debug", v);
	return 0;
}

/* Replies for findings from here up; "off" would mean every finding. */
int cfg_parse_reply_severity(const char *v, void *ptr, struct err *e)
{
	enum severity s;

	if (severity_parse(v, &s) < 0 || s == SEV_OFF)
		return err_set(e, ERR_FINAL, "\"%s\" is not error, warning or check", v);
	*(enum severity *)ptr = s;
	return 0;
}

int cfg_parse_reply_to(const char *v, void *ptr, struct err *e)
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

int cfg_parse_reply_mode(const char *v, void *ptr, struct err *e)
{
	int x = parse_name(v, reply_modes, ARRAY_SIZE(reply_modes), "per-patch or per-series", e);

	if (x < 0)
		return -1;
	*(enum reply_mode *)ptr = (enum reply_mode)x;
	return 0;
}

/* [reply] repeat_after: days; 0 = tell every time. */
int cfg_parse_repeat_after(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, CONFIG_MAX_REPEAT_AFTER, e);
}

int cfg_parse_series_wait(const char *v, void *ptr, struct err *e)
{
	return parse_range(v, ptr, 0, CONFIG_MAX_SERIES_WAIT, e);
}

void cfg_list_release(struct config_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->set = false;
}

/* Comma-separated values, each trimmed; empty items are dropped. */
int cfg_parse_list(const char *v, void *ptr, struct err *e)
{
	struct config_list *l = ptr;
	size_t alloc = 0;

	cfg_list_release(l);
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
int cfg_parse_maintainers(const char *v, void *ptr, struct err *e)
{
	struct config_list *l = ptr;

	if (cfg_parse_list(v, ptr, e) < 0)
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
int cfg_parse_authserv_id(const char *v, void *ptr, struct err *e)
{
	for (const char *p = v; *p; p++)
		if (*p <= ' ' || *p >= 127 || strchr("()<>@,;:\\\"/[]?=", *p))
			return err_set(e, ERR_FINAL, "\"%.200s\" is not an authserv-id (a host "
				       "name such as mx.example.org)", v);
	if (strlen(v) > AUTHRES_ID_MAX)
		return err_set(e, ERR_FINAL, "longer than %d bytes", AUTHRES_ID_MAX);
	cfg_set_string(ptr, v);
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
int cfg_parse_mailmap(const char *v, void *ptr, struct err *e)
{
	struct mailmap **mm = ptr, *fresh;

	if (config_read_mailmap(&fresh, v, e) < 0)
		return -1;
	mailmap_free(*mm);
	*mm = fresh;
	return 0;
}

