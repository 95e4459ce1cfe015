/*
 * check.c - what holds across the keys of a section (config.h lists the
 * checks): made after every value is read, so a daemon never starts (or
 * reloads) half-right.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "config/config_p.h"
#include "config/secret.h"

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
	return cfg_fail_at(ld, section, key);
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
		return cfg_fail_at(ld, section, "password_command");
	}
	if (user && *user && !(file && *file) && !(command && *command)) {
		err_set(ld->e, ERR_FINAL, "not set (needed for user = %s: give password_file "
			"or password_command)", user);
		return cfg_fail_at(ld, section, "password_file");
	}
	if (file) {
		if (secret_read_file(file, &secret, ld->e) < 0)
			return cfg_fail_at(ld, section, "password_file");
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
	return cfg_fail_at(ld, section, "tls");
}

/* Group names and wildmats (RFC 3977 4.1) go into commands as they are:
 * printable ASCII without spaces, bounded. */
static int check_groups(struct load *ld, const char *section, const struct config_list *g)
{
	if (!g->n) {
		err_set(ld->e, ERR_FINAL, "not set (needed for type = nntp: group names or "
			"wildmats, such as org.kernel.vger.linux-*)");
		return cfg_fail_at(ld, section, "groups");
	}
	for (size_t i = 0; i < g->n; i++) {
		const char *v = g->v[i];

		if (strlen(v) > CONFIG_MAX_GROUP) {
			err_set(ld->e, ERR_FINAL, "a group longer than %d bytes", CONFIG_MAX_GROUP);
			return cfg_fail_at(ld, section, "groups");
		}
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f) {
				err_set(ld->e, ERR_FINAL, "\"%.200s\" is not a group name or "
					"wildmat (printable ASCII, no spaces)", v);
				return cfg_fail_at(ld, section, "groups");
			}
	}
	return 0;
}

/* Each check that does not depend on a key found wrong goes on: the host's
 * TLS check needs the host. */
static int check_source(struct load *ld, const struct config_source *s)
{
	char buf[CONFIG_MAX_SOURCE_NAME + 16];
	const char *sec = cfg_section_of(s, buf, sizeof(buf));
	const char *why = s->type == SOURCE_NNTP ? "for type = nntp" : "for type = imap";
	int rc = 0;

	if (s->type == SOURCE_MAILDIR)
		return need(ld, sec, "path", s->path, "for type = maildir");
	if (need(ld, sec, "host", s->host, why) < 0)
		rc = -1;
	else if (check_tls_none(ld, sec, s->tls, s->host) < 0)
		rc = -1;
	if (s->type == SOURCE_IMAP && need(ld, sec, "user", s->user, why) < 0)
		rc = -1;
	if (s->type == SOURCE_NNTP && check_groups(ld, sec, &s->groups) < 0)
		rc = -1;
	if (check_password(ld, sec, s->user, s->password_file, s->password_command) < 0)
		rc = -1;
	return rc;
}

/* A key the file gives that an NNTP source has no use for, or groups for
 * another type: a mistake (folder = where groups = was meant).  IMAP and
 * Maildir sources keep accepting each other's keys, as they always did. */
static int check_type_keys(struct load *ld, const struct config_source *s)
{
	static const char *const not_nntp[] = { "folder", "idle", "mark_seen", "path" };
	char buf[CONFIG_MAX_SOURCE_NAME + 16];
	const char *sec = cfg_section_of(s, buf, sizeof(buf)), *v;

	if (s->type != SOURCE_NNTP) {
		if (!(v = cfg_lookup(ld, sec, "groups")) || !*v)
			return 0;
		err_set(ld->e, ERR_FINAL, "only for type = nntp");
		return cfg_fail_at(ld, sec, "groups");
	}
	for (size_t i = 0; i < ARRAY_SIZE(not_nntp); i++) {
		if (!cfg_lookup(ld, sec, not_nntp[i]))
			continue;
		err_set(ld->e, ERR_FINAL, "not a key of type = nntp");
		return cfg_fail_at(ld, sec, not_nntp[i]);
	}
	return 0;
}

/* The checks of the URL and its TLS need the URL; the password's do not. */
static int check_sink_url(struct load *ld, const struct config_sink *s)
{
	char host[256];
	bool smtps;

	if (need(ld, "sink", "url", s->url, "for type = smtp") < 0)
		return -1;
	if (config_url_host(s->url, host, sizeof(host)) < 0) {
		err_set(ld->e, ERR_FINAL, "\"%s\" is not smtp://HOST[:PORT] or smtps://HOST[:PORT]",
			s->url);
		return cfg_fail_at(ld, "sink", "url");
	}
	smtps = !strncasecmp(s->url, "smtps://", 8);
	if ((smtps && s->tls != CONFIG_TLS_DEFAULT && s->tls != CONFIG_TLS_IMPLICIT) ||
	    (!smtps && s->tls == CONFIG_TLS_IMPLICIT)) {
		err_set(ld->e, ERR_FINAL, "%s does not go with a %s URL (implicit TLS is smtps://)",
			config_tls_name(s->tls), smtps ? "smtps://" : "smtp://");
		return cfg_fail_at(ld, "sink", "tls");
	}
	return check_tls_none(ld, "sink", s->tls, host);
}

static int check_sink(struct load *ld, const struct config_sink *s)
{
	int rc;

	if (s->type == SINK_MAILDIR)
		return need(ld, "sink", "path", s->path, "for type = maildir");
	rc = check_sink_url(ld, s);
	if (check_password(ld, "sink", s->user, s->password_file, s->password_command) < 0)
		rc = -1;
	return rc;
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
		return cfg_fail_at(ld, section, key);
	}
	return 0;
}

/* Every address key, each on its own. */
static int check_reply(struct load *ld, const struct config *c)
{
	int rc = 0;

	if (check_address(ld, "reply", "from", c->reply.from) < 0)
		rc = -1;
	if (check_address(ld, "reply", "reply_to", c->reply.reply_to) < 0)
		rc = -1;
	if (check_address(ld, "sink", "copy_to", c->sink.copy_to) < 0)
		rc = -1;
	for (size_t i = 0; i < c->reply.bot_addresses.n; i++)
		if (check_address(ld, "reply", "bot_addresses", c->reply.bot_addresses.v[i]) < 0)
			rc = -1;
	return rc;
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
		return cfg_fail_at(ld, "tagbot", t->state_password_file ? "state_password_file"
								     : "state_password_command");
	}
	if (t->state_password_file && t->state_password_command) {
		err_set(ld->e, ERR_FINAL, "give state_password_file or state_password_command, "
			"not both");
		return cfg_fail_at(ld, "tagbot", "state_password_command");
	}
	if (t->state_password_file) {
		char *secret = NULL;

		if (secret_read_file(t->state_password_file, &secret, ld->e) < 0)
			return cfg_fail_at(ld, "tagbot", "state_password_file");
		secret_free(secret);
	}
	return 0;
}

/* The checks across the keys of one source, unless a key of it is wrong
 * already (its field then holds the default, not what the file meant). */
static int check_source_keys(struct load *ld, const struct config_source *s)
{
	char buf[CONFIG_MAX_SOURCE_NAME + 16];

	if (cfg_section_failed(ld, cfg_section_of(s, buf, sizeof(buf))))
		return 0;
	return (check_source(ld, s) < 0) | (check_type_keys(ld, s) < 0) ? -1 : 0;
}

/* Checks what the file set; a [source] or [sink] it fills must be whole.
 * Each section's checks are independent of the others'. */
int cfg_validate(struct load *ld)
{
	const struct config *c = ld->c;
	int rc = 0;

	if (!cfg_section_failed(ld, "tagbot") && check_state(ld, &c->tagbot) < 0)
		rc = -1;
	if (cfg_has_section(ld, "source") && check_source_keys(ld, &c->source) < 0)
		rc = -1;
	for (size_t i = 0; i < c->nsources; i++)
		if (check_source_keys(ld, &c->sources[i]) < 0)
			rc = -1;
	if (cfg_has_section(ld, "sink") && !cfg_section_failed(ld, "sink") &&
	    check_sink(ld, &c->sink) < 0)
		rc = -1;
	if (!cfg_section_failed(ld, "reply") && !cfg_section_failed(ld, "sink") &&
	    check_reply(ld, c) < 0)
		rc = -1;
	return rc;
}

int config_check_daemon(const struct config *c, config_problem_fn *report, void *arg,
			struct err *e)
{
	struct load ld = { .path = c->path ? c->path : "(built-in defaults)",
			   .c = (struct config *)c, .e = e };
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	size_t n = config_sources(c, v, ARRAY_SIZE(v));

	/* no file's lines here: the problems come in the order checked */
	for (size_t i = 0; i < n; i++)
		check_source(&ld, v[i]);
	check_sink(&ld, &c->sink);
	if (!ld.np)
		return 0;
	cfg_problems_report(&ld, report, arg);
	cfg_problems_release(&ld);
	return -1;
}
