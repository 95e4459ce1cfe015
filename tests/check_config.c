#include "autoconf.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/buf.h"
#include "config/config.h"
#include "reply/policy.h"
#include "rules/rules.h"
#include "mail/mailmap.h"
#include "testhelp.h"

#define BUNDLED TEST_DATA "/../../etc/tagbot.ini"

static char path_buf[4096];

static const char *data_path(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", TEST_DATA, name);
	return path_buf;
}

static void assert_str_or_null(const char *got, const char *want, const char *what)
{
	if (!want)
		ck_assert_msg(got == NULL, "%s is \"%s\", wanted unset", what, got);
	else
		ck_assert_msg(got && !strcmp(got, want), "%s is \"%s\", wanted \"%s\"", what,
			      got ? got : "(unset)", want);
}

/* The daemon's sections as tagbot.ini(5) documents their defaults. */
static void assert_daemon_defaults(const struct config *c)
{
	assert_str_or_null(c->tagbot.state, "/var/lib/tagbot/tagbot.db", "state");
	ck_assert_int_eq(c->tagbot.log, LOG_TARGET_STDERR);
	ck_assert_int_eq(c->tagbot.log_level, LOGL_INFO);
	ck_assert_int_eq(c->tagbot.min_reply_severity, SEV_WARNING);
	ck_assert(!c->tagbot.dry_run);
	ck_assert_int_eq(c->source.type, SOURCE_MAILDIR);
	assert_str_or_null(c->source.host, NULL, "[source] host");
	ck_assert_int_eq(c->source.port, 0);
	ck_assert_int_eq(c->source.tls, CONFIG_TLS_DEFAULT);
	assert_str_or_null(c->source.user, NULL, "[source] user");
	assert_str_or_null(c->source.folder, "INBOX", "[source] folder");
	ck_assert(c->source.idle);
	ck_assert_int_eq(c->source.poll_interval, 60);
	ck_assert(!c->source.mark_seen);
	ck_assert(!c->source.backfill);
	assert_str_or_null(c->source.path, NULL, "[source] path");
	ck_assert_int_eq(c->source.batch, 50);
	ck_assert_int_eq(c->source.timeout, 60);
	ck_assert_int_eq(c->source.max_message_size, 25 * 1024 * 1024);
	ck_assert_int_eq(c->source.retry_after, 300);
	ck_assert_int_eq(c->sink.type, SINK_MAILDIR);
	assert_str_or_null(c->sink.url, NULL, "[sink] url");
	assert_str_or_null(c->sink.copy_to, NULL, "[sink] copy_to");
	assert_str_or_null(c->sink.copy_folder, "INBOX", "[sink] copy_folder");
	ck_assert_int_eq(c->sink.resend_after, 120);
	ck_assert_int_eq(c->sink.connect_timeout, 10);
	assert_str_or_null(c->reply.from, "tagbot <tagbot@localhost.localdomain>", "[reply] from");
	ck_assert_int_eq(c->reply.to, REPLY_TO_AUTHOR);
	assert_str_or_null(c->reply.reply_to, NULL, "[reply] reply_to");
	assert_str_or_null(c->reply.footer, NULL, "[reply] footer");
	ck_assert_uint_eq(c->reply.bot_addresses.n, 0);
	ck_assert(!c->reply.ignore_senders.set);
	ck_assert_int_eq(c->reply.max_per_author_per_hour, 10);
	ck_assert_int_eq(c->reply.max_per_minute, 30);
	ck_assert_int_eq(c->reply.reply_mode, REPLY_PER_SERIES);
	ck_assert_int_eq(c->reply.series_wait, 600);
	ck_assert_int_eq(c->reply.repeat_after, 180);
	ck_assert(!c->reply.answer_rfc);
	ck_assert_uint_eq(c->reply.maintainers.n, 0);
	assert_str_or_null(c->reply.trusted_authserv_id, NULL, "[reply] trusted_authserv_id");
	ck_assert_uint_eq(c->lists.n, 0);
}

/* c holds exactly what config_init() gives. */
static void assert_defaults(const struct config *c)
{
	struct config d;

	config_init(&d);
	for (int i = 0; i < RULE_COUNT; i++)
		ck_assert_msg(c->rules.severity[i] == d.rules.severity[i], "%s is %s",
			      rule_defs[i].id, severity_name(c->rules.severity[i]));
	ck_assert_uint_eq(c->rules.archives.n, d.rules.archives.n);
	for (size_t i = 0; i < d.rules.archives.n; i++)
		ck_assert_str_eq(pattern_source(c->rules.archives.v[i]),
				 pattern_source(d.rules.archives.v[i]));
	ck_assert_uint_eq(c->rules.bugtrackers.n, d.rules.bugtrackers.n);
	for (size_t i = 0; i < d.rules.bugtrackers.n; i++)
		ck_assert_str_eq(pattern_source(c->rules.bugtrackers.v[i]),
				 pattern_source(d.rules.bugtrackers.v[i]));
	ck_assert_uint_eq(c->rules.reported_by_followers, FOLLOW_CLOSES | FOLLOW_LINK);
	ck_assert_uint_eq(c->rules.ncustom, 0);
	ck_assert(!c->rules.lookups);
	config_release(&d);
	assert_daemon_defaults(c);
}

/* ------------------------------------------------------------ error table */

static const struct {
	const char *file;
	const char *want;	/* after "PATH/FILE: " */
} bad_cases[] = {
	{ "config/config-unknown-rule.ini",
	  "[rules] MISING_SIGN_OFF: unknown rule ID (did you mean MISSING_SIGN_OFF?)" },
	{ "config/config-unknown-rule-far.ini", "[rules] NO_SUCH_THING_AT_ALL: unknown rule ID" },
	{ "config/config-unknown-key.ini", "[lookup] enable: unknown key (did you mean enabled?)" },
	{ "config/config-unknown-rules-key.ini",
	  "[rules] archive_pattern: unknown key (did you mean archive_patterns?)" },
	{ "config/config-unknown-section.ini", "[rulez]: unknown section (did you mean [rules]?)" },
	{ "config/config-bad-severity.ini",
	  "[rules] MISSING_SIGN_OFF: \"fatal\" is not error, warning, check or off" },
	{ "config/config-bad-pattern.ini",
	  "[rule NO_FOO] pattern: offset 7: missing closing parenthesis" },
	{ "config/config-bad-archive.ini",
	  "[rules] archive_patterns: pattern 2 \"^https://b\\.example/[x(\": offset 23: "
	  "missing terminating ] for character class" },
	{ "config/config-key-outside.ini", "missing_sign_off: key outside any section" },
	{ "config/config-custom-clash.ini",
	  "[rule MISSING_SIGN_OFF]: MISSING_SIGN_OFF is a built-in rule ID; "
	  "set its severity in [rules] or pick another ID" },
	{ "config/config-custom-bad-id.ini", "[rule MY-RULE]: rule ID may hold only A-Z, 0-9 and _" },
	{ "config/config-custom-no-id.ini", "[rule]: a custom rule section needs an ID: [rule MY_RULE]" },
	{ "config/config-custom-no-message.ini", "[rule NO_MESSAGE] message: missing (required)" },
	{ "config/config-custom-bad-where.ini",
	  "[rule BAD_WHERE] where: \"trailer:\": trailer:<Token> needs a token of letters, "
	  "digits and -" },
	{ "config/config-custom-unknown-key.ini",
	  "[rule TYPO] mesage: unknown key (did you mean message?)" },
	{ "config/config-bad-bool.ini", "[lookup] enabled: \"maybe\" is not yes or no" },
	{ "config/config-bad-followers.ini",
	  "[rules] reported_by_followers: \"Links\" is not Closes or Link" },
	{ "config/config-syntax.ini", "syntax error in " },
	/* the daemon's sections */
	{ "config/config-tls-none-remote.ini",
	  "[source] tls: none is refused: mail.example.org is not a loopback address "
	  "(127.0.0.1, ::1, localhost); use implicit or starttls" },
	{ "config/config-tls-none-smtp.ini",
	  "[sink] tls: none is refused: mail.example.org is not a loopback address" },
	{ "config/config-password-both.ini",
	  "[source] password_command: give password_file or password_command, not both" },
	/* a login without a password is refused at load, naming the key */
	{ "config/config-source-no-password.ini",
	  "[source] password_file: not set (needed for user = bot@example.org: give "
	  "password_file or password_command)" },
	{ "config/config-sink-no-password.ini",
	  "[sink] password_file: not set (needed for user = bot@example.org: give "
	  "password_file or password_command)" },
	{ "config/config-source-typo.ini", "[source] foldr: unknown key (did you mean folder?)" },
	{ "config/config-source-type.ini", "[source] type: \"pop3\" is not imap, nntp or maildir" },
	/* [source NAME], type = nntp */
	{ "config/config-nntp-no-groups.ini", "[source news] groups: not set (needed for type = nntp: "
	  "group names or wildmats, such as org.kernel.vger.linux-*)" },
	{ "config/config-nntp-tls-none.ini", "[source news] tls: none is refused: news.example.org is "
	  "not a loopback address" },
	{ "config/config-nntp-folder.ini", "[source news] folder: not a key of type = nntp" },
	{ "config/config-groups-maildir.ini", "[source] groups: only for type = nntp" },
	{ "config/config-nntp-typo.ini", "[source news] gruops: unknown key (did you mean groups?)" },
	{ "config/config-nntp-bad-group.ini", "[source news] groups: \"a b\" is not a group name or "
	  "wildmat (printable ASCII, no spaces)" },
	{ "config/config-source-bad-name.ini", "[source new$]: a source name holds only letters, "
	  "digits, '-', '_' and '.'" },
	{ "config/config-source-no-host.ini", "[source] host: not set (needed for type = imap)" },
	{ "config/config-source-no-path.ini", "[source] path: not set (needed for type = maildir)" },
	{ "config/config-bad-port.ini", "[source] port: \"99999\" is not a number from 0 to 65535" },
	{ "config/config-bad-interval.ini",
	  "[source] poll_interval: \"0\" is not a number from 1 to 86400" },
	{ "config/config-bad-tls.ini", "[source] tls: \"ssl\" is not implicit, starttls or none" },
	{ "config/config-bad-message-size.ini",
	  "[source] max_message_size: \"200M\" is not a size from 64K to 128M" },
	{ "config/config-sink-url.ini",
	  "[sink] url: \"http://mail.example.org/\" is not smtp://HOST[:PORT] or "
	  "smtps://HOST[:PORT]" },
	{ "config/config-sink-tls-scheme.ini",
	  "[sink] tls: implicit does not go with a smtp:// URL (implicit TLS is smtps://)" },
	{ "config/config-bad-from.ini",
	  "[reply] from: \"tagbot at example dot org\" is not a mail address" },
	{ "config/config-bad-reply-to.ini",
	  "[reply] to: \"everyone\" is not author, author+list or all" },
	{ "config/config-reply-severity-off.ini",
	  "[tagbot] min_reply_severity: \"off\" is not error, warning or check" },
	{ "config-does-not-exist.ini", "cannot read: No such file or directory" },
	/* [reply] keys, [default], [list ID] */
	{ "config/config-bad-reply-mode.ini",
	  "[reply] reply_mode: \"per-thread\" is not per-patch or per-series" },
	{ "config/config-bad-series-wait.ini",
	  "[reply] series_wait: \"-5\" is not a number from 0 to 604800" },
	{ "config/config-bad-repeat-after.ini",
	  "[reply] repeat_after: \"365\" is not a number from 0 to 180" },
	{ "config/config-bad-maintainer.ini",
	  "[reply] maintainers: \"Lee Jones\" is not an address or a pattern like *@kernel.org" },
	{ "config/config-bad-authserv-id.ini",
	  "[reply] trusted_authserv_id: \"mx example.org\" is not an authserv-id (a host name "
	  "such as mx.example.org)" },
	{ "config/config-list-typo.ini",
	  "[list linux-leds.vger.kernel.org] enabeld: unknown key (did you mean enabled?)" },
	{ "config/config-list-rule-typo.ini",
	  "[list linux-leds.vger.kernel.org] BAD_SIGN_OF: unknown rule ID "
	  "(did you mean BAD_SIGN_OFF?)" },
	{ "config/config-list-bad-severity.ini",
	  "[list linux-leds.vger.kernel.org] MISSING_SIGN_OFF: \"fatal\" is not error, warning, "
	  "check or off" },
	{ "config/config-list-bad-enabled.ini",
	  "[list linux-leds.vger.kernel.org] enabled: \"sometimes\" is not yes or no" },
	{ "config/config-list-bad-min.ini",
	  "[list linux-leds.vger.kernel.org] min_reply_severity: \"off\" is not error, "
	  "warning or check" },
	{ "config/config-default-bad-to.ini",
	  "[default] to: \"nobody\" is not author, author+list or all" },
	{ "config/config-default-bad-mode.ini",
	  "[default] reply_mode: \"batch\" is not per-patch or per-series" },
	{ "config/config-list-no-id.ini",
	  "[list]: a list section needs a list ID: [list linux-leds.vger.kernel.org]" },
	{ "config/config-list-angle.ini",
	  "[list <linux-leds.vger.kernel.org>]: a list ID is printable ASCII without spaces, "
	  "<>, quotes or ':' (the id of List-Id)" },
	{ "config/config-list-twice.ini",
	  "[list linux-leds@vger.kernel.org]: names the same list as "
	  "[list linux-leds.vger.kernel.org]" },
	{ "config/config-default-typo.ini", "[defualt]: unknown section (did you mean [default]?)" },
	{ "config/config-default-series-wait.ini",
	  "[default] series_wait: unknown key or rule ID (expected enabled, to, reply_mode, "
	  "min_reply_severity, address or a rule ID)" },
};

START_TEST(test_errors)
{
	char want[sizeof(path_buf) + 1024];
	struct config c;
	struct err e;

	config_init(&c);
	err_init(&e);
	ck_assert_int_eq(config_load(&c, data_path(bad_cases[_i].file), &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	snprintf(want, sizeof(want), "%s: %s", data_path(bad_cases[_i].file), bad_cases[_i].want);
	ck_assert_msg(!strncmp(e.msg, want, strlen(want)), "want \"%s\"\n got \"%s\"", want, e.msg);
	/* A failed load leaves the embedded defaults. */
	ck_assert_ptr_null(c.path);
	assert_defaults(&c);
	config_release(&c);
}
END_TEST

START_TEST(test_syntax_error_names_line)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_load(&c, data_path("config/config-syntax.ini"), &e), -1);
	ck_assert_msg(strstr(e.msg, "(2)") && strstr(e.msg, "this line has no equals sign"),
		      "%s", e.msg);
	ck_assert_ptr_null(strchr(e.msg, '\n'));
	config_release(&c);
}
END_TEST

START_TEST(test_directory_is_an_error)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_load(&c, TEST_DATA, &e), -1);
	ck_assert_msg(strstr(e.msg, "not a regular file"), "%s", e.msg);
	config_release(&c);
}
END_TEST

START_TEST(test_failed_reload_keeps_old)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_load(&c, data_path("config/config-lookup.ini"), &e), 0);
	ck_assert_int_eq(config_load(&c, data_path("config/config-bad-pattern.ini"), &e), -1);
	ck_assert(c.rules.lookups);
	ck_assert_str_eq(c.path, data_path("config/config-lookup.ini"));
	config_release(&c);
}
END_TEST

/* What config_load_report() hands its callback, gathered. */
struct gathered {
	char *msg[64];
	int line[64];
	size_t n;
};

static void gather(void *arg, const struct config_problem *p)
{
	struct gathered *g = arg;

	ck_assert_uint_lt(g->n, ARRAY_SIZE(g->msg));
	g->msg[g->n] = strdup(p->msg);
	g->line[g->n++] = p->line;
}

static void gathered_release(struct gathered *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->msg[i]);
}

/* Problems that do not depend on each other are all named, in file order,
 * each with its line; e holds the first. */
START_TEST(test_every_problem)
{
	static const struct {
		const char *msg;
		int line;
	} want[] = {
		{ "[lookup] timeout: \"0\" is not a number from 1 to 86400", 4 },
		{ "[lookup] user_agnet: unknown key (did you mean user_agent?)", 5 },
		{ "[reply] cc_author: \"perhaps\" is not yes or no", 7 },
	};
	const char *file = data_path("config/config-three-problems.ini");
	char path[sizeof(path_buf)], buf[sizeof(path_buf) + 256];
	struct gathered g = { .n = 0 };
	struct config c;
	struct err e;

	snprintf(path, sizeof(path), "%s", file);
	config_init(&c);
	err_init(&e);
	ck_assert_int_eq(config_load_report(&c, path, gather, &g, &e), -1);
	ck_assert_uint_eq(g.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(buf, sizeof(buf), "%s: %s", path, want[i].msg);
		ck_assert_str_eq(g.msg[i], buf);
		ck_assert_int_eq(g.line[i], want[i].line);
	}
	snprintf(buf, sizeof(buf), "%s: %s", path, want[0].msg);
	ck_assert_msg(!strncmp(e.msg, buf, strlen(buf)), "%s", e.msg);
	ck_assert_msg(strstr(e.msg, "and 2 more"), "%s", e.msg);
	ck_assert_ptr_null(c.path);
	assert_defaults(&c);
	gathered_release(&g);
	config_release(&c);
}
END_TEST

/* A garbage file is not a flood: CONFIG_MAX_PROBLEMS, then a count. */
START_TEST(test_problems_capped)
{
	static const char tmp[] = "check_config-many.ini";
	struct gathered g = { .n = 0 };
	char want[256];
	struct config c;
	struct err e;
	FILE *out = fopen(tmp, "w");

	ck_assert_ptr_nonnull(out);
	fputs("[lookup]\n", out);
	for (int i = 0; i < CONFIG_MAX_PROBLEMS + 10; i++)
		fprintf(out, "nokey%d = 1\n", i);
	fclose(out);
	config_init(&c);
	ck_assert_int_eq(config_load_report(&c, tmp, gather, &g, &e), -1);
	remove(tmp);
	ck_assert_uint_eq(g.n, CONFIG_MAX_PROBLEMS + 1);
	ck_assert_msg(strstr(g.msg[0], "[lookup] nokey0: unknown key"), "%s", g.msg[0]);
	snprintf(want, sizeof(want), "%s: and 10 more problems", tmp);
	ck_assert_str_eq(g.msg[CONFIG_MAX_PROBLEMS], want);
	gathered_release(&g);
	config_release(&c);
}
END_TEST

/* --------------------------------------------------------- good files */

static void load_ok(struct config *c, const char *file)
{
	struct err e;

	config_init(c);
	err_init(&e);
	ck_assert_msg(config_load(c, data_path(file), &e) == 0, "%s: %s", file, e.msg);
	ck_assert_str_eq(c->path, data_path(file));
}

static const struct {
	enum rule_id id;
	enum severity want;
} severity_cases[] = {
	{ R_MISSING_SIGN_OFF, SEV_OFF },	/* default error */
	{ R_BAD_SIGN_OFF, SEV_ERROR },		/* default warning */
	{ R_LINK_TO_SELF, SEV_CHECK },		/* default warning */
	{ R_EMAIL_SUBJECT, SEV_WARNING },	/* default check */
	{ R_NO_AUTHOR_SIGN_OFF, SEV_ERROR },	/* untouched */
	{ R_MISSING_FIXES_TAG, SEV_CHECK },	/* untouched */
};

START_TEST(test_severities)
{
	struct config c;

	load_ok(&c, "config/config-severities.ini");
	ck_assert_str_eq(severity_name(c.rules.severity[severity_cases[_i].id]),
			 severity_name(severity_cases[_i].want));
	config_release(&c);
}
END_TEST

static const struct {
	const char *file;
	unsigned want;
} follower_cases[] = {
	{ "config/config-followers-closes.ini", FOLLOW_CLOSES },
	{ "config/config-followers-link.ini", FOLLOW_LINK },
	{ "config/config-severities.ini", FOLLOW_CLOSES | FOLLOW_LINK },
};

START_TEST(test_followers)
{
	struct config c;

	load_ok(&c, follower_cases[_i].file);
	ck_assert_uint_eq(c.rules.reported_by_followers, follower_cases[_i].want);
	config_release(&c);
}
END_TEST

/* [rules] mailmap = PATH: read at load; a missing file is an error naming it. */
START_TEST(test_mailmap_key)
{
	char dir[] = "/tmp/tagbot-mailmap-XXXXXX", ini[64], map[64];
	struct config c;
	struct err e;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ini, sizeof(ini), "%s/t.ini", dir);
	snprintf(map, sizeof(map), "%s/mailmap", dir);
	f = fopen(map, "w");
	ck_assert_ptr_nonnull(f);
	fputs("# people\nJane Doe <jane@example.org> <jd@old.example.com>\n", f);
	fclose(f);
	f = fopen(ini, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[rules]\nmailmap = %s\n", map);
	fclose(f);
	config_init(&c);
	err_init(&e);
	ck_assert_msg(config_load(&c, ini, &e) == 0, "%s", e.msg);
	ck_assert(mailmap_same(c.rules.mailmap, NULL, "JD@old.example.com", NULL, "jane@example.org"));
	config_release(&c);
	ck_assert_int_eq(remove(map), 0);
	config_init(&c);
	err_init(&e);
	ck_assert_int_eq(config_load(&c, ini, &e), -1);
	ck_assert_msg(strstr(e.msg, "[rules] mailmap: cannot read ") && strstr(e.msg, map), "%s", e.msg);
	ck_assert_ptr_null(c.rules.mailmap);
	config_release(&c);
	remove(ini);
	rmdir(dir);
}
END_TEST

START_TEST(test_lookup)
{
	struct config c;

	load_ok(&c, "config/config-lookup.ini");
	ck_assert(c.rules.lookups);
	config_release(&c);
}
END_TEST

static size_t match_index(const struct pattern_list *l, const char *url, char *cap, size_t capsz)
{
	size_t off = 0, len = 0;
	int i = pattern_list_match(l, url, strlen(url), &off, &len);

	snprintf(cap, capsz, "%.*s", (int)len, url + off);
	return (size_t)i;
}

START_TEST(test_pattern_lists)
{
	struct config c, d;
	char cap[128];

	config_init(&d);
	load_ok(&c, "config/config-patterns.ini");
	ck_assert_uint_eq(c.rules.archives.n, 2);
	ck_assert_str_eq(pattern_source(c.rules.archives.v[1]),
			 "^https?://list\\.example\\.org/r/([^/?]+)");
	ck_assert_uint_eq(match_index(&c.rules.archives, "https://list.example.org/r/a@b?x",
				      cap, sizeof(cap)), 1);
	ck_assert_str_eq(cap, "a@b");
	/* Caseless like the defaults. */
	ck_assert_uint_eq(match_index(&c.rules.archives, "HTTPS://Mail.Example.org/m/c@d",
				      cap, sizeof(cap)), 0);
	ck_assert_str_eq(cap, "c@d");
	/* The addition keeps the defaults and its quoted # survives. */
	ck_assert_uint_eq(c.rules.bugtrackers.n, d.rules.bugtrackers.n + 1);
	ck_assert_str_eq(pattern_source(c.rules.bugtrackers.v[d.rules.bugtrackers.n]),
			 "^https?://tracker\\.example\\.org/t/#?[0-9]+");
	config_release(&c);
	config_release(&d);
}
END_TEST

START_TEST(test_pattern_add_after_replace)
{
	struct config c;

	load_ok(&c, "config/config-patterns-add-first.ini");
	ck_assert_uint_eq(c.rules.archives.n, 2);
	ck_assert_str_eq(pattern_source(c.rules.archives.v[0]), "^https?://one\\.example/([^/]+)");
	ck_assert_str_eq(pattern_source(c.rules.archives.v[1]), "^https?://two\\.example/([^/]+)");
	config_release(&c);
}
END_TEST

START_TEST(test_pattern_empty_list)
{
	struct config c;

	load_ok(&c, "config/config-patterns-empty.ini");
	ck_assert_uint_eq(c.rules.archives.n, 0);
	config_release(&c);
}
END_TEST

START_TEST(test_custom_rules)
{
	const struct custom_rule *r;
	struct config c;

	load_ok(&c, "config/config-custom.ini");
	ck_assert_uint_eq(c.rules.ncustom, 3);

	r = &c.rules.custom[0];	/* file order */
	ck_assert_str_eq(r->id, "NO_INTERNAL_URL");
	ck_assert_int_eq(r->scope, SCOPE_BODY);
	ck_assert_int_eq(r->severity, SEV_ERROR);
	ck_assert(!r->must_match);
	ck_assert_str_eq(r->message, "Do not cite internal URLs.");
	ck_assert_str_eq(r->doc, "Our list policy, section 2");
	ck_assert_int_eq(pattern_match(r->re, "see HTTP://intranet.example.com/",
				       strlen("see HTTP://intranet.example.com/"), NULL, NULL),
			 PATTERN_NOMATCH);

	r = &c.rules.custom[1];
	ck_assert_str_eq(r->id, "NEEDS_TESTED_BY");
	ck_assert_int_eq(r->scope, SCOPE_TRAILERS);
	ck_assert_int_eq(r->severity, SEV_WARNING);
	ck_assert(r->must_match);
	ck_assert_str_eq(r->doc, "");
	ck_assert_int_eq(pattern_match(r->re, "TESTED-BY: x", strlen("TESTED-BY: x"), NULL, NULL), PATTERN_MATCH);

	r = &c.rules.custom[2];
	ck_assert_str_eq(r->id, "FIXES_SUBJECT");
	ck_assert_int_eq(r->scope, SCOPE_TRAILER);
	ck_assert_str_eq(r->token, "Fixes");
	ck_assert_int_eq(r->severity, SEV_CHECK);
	config_release(&c);
}
END_TEST

/* The bundled file is documentation only: loading it changes nothing. */
START_TEST(test_bundled_equals_defaults)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_msg(config_load(&c, BUNDLED, &e) == 0, "%s", e.msg);
	assert_defaults(&c);
	config_release(&c);
}
END_TEST

static char *read_bundled(void)
{
	FILE *f = fopen(BUNDLED, "rb");
	char chunk[4096];
	struct buf b;
	size_t n;

	ck_assert_ptr_nonnull(f);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ck_assert_int_eq(buf_add(&b, chunk, n), 0);
	fclose(f);
	return buf_detach(&b, NULL);
}

/* Every built-in ID is listed in the bundled file with its default. */
START_TEST(test_bundled_lists_every_rule)
{
	char *text = read_bundled();
	char want[128];

	for (int i = 0; i < RULE_COUNT; i++) {
		snprintf(want, sizeof(want), "\n;%s = %s\n", rule_defs[i].id,
			 severity_name(rule_defs[i].severity));
		ck_assert_msg(strstr(text, want), "etc/tagbot.ini lacks \"%s\"", want + 1);
	}
	free(text);
}
END_TEST

/* Writes the commented-out value of key (continuation lines too), uncommented. */
static void uncomment_key(FILE *out, const char *text, const char *key)
{
	char start[64];
	const char *p, *end;

	snprintf(start, sizeof(start), "\n;%s = ", key);
	p = strstr(text, start);
	ck_assert_msg(p != NULL, "etc/tagbot.ini does not show %s", key);
	for (p += 2;; p = end + 2) {
		end = strchr(p, '\n');
		ck_assert_ptr_nonnull(end);
		fprintf(out, "%.*s\n", (int)(end - p), p);
		if (end[-1] != '\\')
			break;
		ck_assert_int_eq(end[1], ';');
	}
}

static void assert_same_list(const struct pattern_list *a, const struct pattern_list *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		ck_assert_str_eq(pattern_source(a->v[i]), pattern_source(b->v[i]));
}

/* The lists the bundled file shows as defaults are the built-in ones. */
START_TEST(test_bundled_shows_default_lists)
{
	static const char tmp[] = "check_config-uncommented.ini";	/* in the build dir */
	char *text = read_bundled();
	struct config c, d;
	struct err e;
	FILE *out = fopen(tmp, "w");

	ck_assert_ptr_nonnull(out);
	fputs("[rules]\n", out);
	uncomment_key(out, text, "archive_patterns");
	uncomment_key(out, text, "bugtracker_patterns");
	fclose(out);
	free(text);
	config_init(&c);
	config_init(&d);
	ck_assert_msg(config_load(&c, tmp, &e) == 0, "%s", e.msg);
	ck_assert_uint_gt(d.rules.archives.n, 0);
	assert_same_list(&c.rules.archives, &d.rules.archives);
	assert_same_list(&c.rules.bugtrackers, &d.rules.bugtrackers);
	remove(tmp);
	config_release(&c);
	config_release(&d);
}
END_TEST

/* --------------------------------------------------- the daemon's keys */

/* realpath(TEST_DATA "/" rel), for paths the loader made absolute. */
static const char *real_data(const char *rel, char *out, size_t n)
{
	char real[PATH_MAX];

	ck_assert_ptr_nonnull(realpath(TEST_DATA, real));
	snprintf(out, n, "%s%s%s", real, *rel ? "/" : "", rel);
	return out;
}

START_TEST(test_daemon_keys)
{
	char want[PATH_MAX + 64];
	struct config c;

	load_ok(&c, "config/config-daemon.ini");
	assert_str_or_null(c.tagbot.state, real_data("config/state/tagbot.db", want, sizeof(want)), "state");
	ck_assert_int_eq(c.tagbot.log, LOG_TARGET_SYSLOG);
	ck_assert_int_eq(c.tagbot.log_level, LOGL_DEBUG);
	ck_assert_int_eq(c.tagbot.min_reply_severity, SEV_ERROR);
	ck_assert(c.tagbot.dry_run);
	ck_assert_int_eq(c.source.type, SOURCE_IMAP);
	assert_str_or_null(c.source.host, "imap.example.org", "host");
	ck_assert_int_eq(c.source.port, 143);
	ck_assert_int_eq(c.source.tls, CONFIG_TLS_STARTTLS);
	/* ../config/ca.pem from tests/data/config: tidied to tests/data/config/ca.pem */
	assert_str_or_null(c.source.ca_file, real_data("config/ca.pem", want, sizeof(want)),
			   "ca_file");
	assert_str_or_null(c.source.user, "bot@example.org", "user");
	assert_str_or_null(c.source.password_file, NULL, "password_file");
	assert_str_or_null(c.source.password_command, "echo secret", "password_command");
	assert_str_or_null(c.source.folder, "Lists/linux-leds", "folder");
	ck_assert(!c.source.idle);
	ck_assert_int_eq(c.source.poll_interval, 30);
	ck_assert(c.source.mark_seen);
	ck_assert(c.source.backfill);
	ck_assert_int_eq(c.source.batch, 200);
	ck_assert_int_eq(c.source.timeout, 45);
	ck_assert_int_eq(c.sink.type, SINK_SMTP);
	assert_str_or_null(c.sink.url, "smtp://smtp.example.org:587", "url");
	assert_str_or_null(c.sink.ca_file, "/etc/ssl/certs/ca.pem", "[sink] ca_file");
	assert_str_or_null(c.sink.copy_to, "bot+copies@example.org", "copy_to");
	assert_str_or_null(c.sink.copy_folder, "Sent", "copy_folder");
	ck_assert_int_eq(c.sink.resend_after, 300);
	ck_assert_int_eq(c.sink.connect_timeout, 5);
	assert_str_or_null(c.reply.from, "Tag Bot <tagbot@example.org>", "from");
	ck_assert_int_eq(c.reply.to, REPLY_TO_AUTHOR_LIST);
	assert_str_or_null(c.reply.reply_to, "maintainers@example.org", "reply_to");
	assert_str_or_null(c.reply.footer, "Line one\nLine two with a \\ backslash", "footer");
	ck_assert_uint_eq(c.reply.bot_addresses.n, 2);
	ck_assert_str_eq(c.reply.bot_addresses.v[0], "tagbot-old@example.org");
	ck_assert_str_eq(c.reply.bot_addresses.v[1], "robot@example.org");
	ck_assert(c.reply.ignore_senders.set);
	ck_assert_uint_eq(c.reply.ignore_senders.n, 2);
	ck_assert_str_eq(c.reply.ignore_senders.v[0], "*@bots.example.org");
	ck_assert_str_eq(c.reply.ignore_senders.v[1], "Build Robot");
	ck_assert_int_eq(c.reply.max_per_author_per_hour, 3);
	ck_assert_int_eq(c.reply.max_per_minute, 0);
	assert_str_or_null(c.reply.trusted_authserv_id, "MX.example.org", "trusted_authserv_id");
	config_release(&c);
}
END_TEST

START_TEST(test_sources)
{
	char want[PATH_MAX + 64], label[64];
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	struct config c;
	struct err e;

	load_ok(&c, "config/config-sources.ini");
	ck_assert(c.source_set);
	ck_assert_uint_eq(c.nsources, 2);
	ck_assert_uint_eq(config_sources(&c, v, ARRAY_SIZE(v)), 3);
	ck_assert_ptr_eq(v[0], &c.source);
	ck_assert_int_eq(v[0]->type, SOURCE_MAILDIR);
	assert_str_or_null(v[0]->path, real_data("config/inbox", want, sizeof(want)), "[source] path");
	ck_assert_str_eq(config_source_label(v[0], label, sizeof(label)), "[source]");
	/* file order; each section its own keys over the defaults of [source] */
	ck_assert_str_eq(v[1]->name, "lkml");
	ck_assert_str_eq(config_source_label(v[1], label, sizeof(label)), "[source lkml]");
	ck_assert_int_eq(v[1]->type, SOURCE_NNTP);
	assert_str_or_null(v[1]->host, "127.0.0.1", "host");
	ck_assert_int_eq(v[1]->port, 1119);
	ck_assert_int_eq(v[1]->tls, CONFIG_TLS_NONE);
	ck_assert_uint_eq(v[1]->groups.n, 2);
	ck_assert_str_eq(v[1]->groups.v[0], "org.kernel.vger.linux-*");
	ck_assert_str_eq(v[1]->groups.v[1], "org.kernel.vger.netdev");
	ck_assert_int_eq(v[1]->poll_interval, 20);
	ck_assert(v[1]->backfill);
	ck_assert_int_eq(v[1]->batch, 50);
	ck_assert_int_eq(v[1]->timeout, 5);
	ck_assert_int_eq(v[1]->max_message_size, 2 * 1024 * 1024);
	ck_assert_int_eq(v[1]->retry_after, 0);
	ck_assert_str_eq(v[2]->name, "leds");
	ck_assert_int_eq(v[2]->type, SOURCE_IMAP);
	assert_str_or_null(v[2]->folder, "Lists/linux-leds", "folder");
	/* a named source's paths are resolved as [source]'s are */
	assert_str_or_null(v[2]->ca_file, real_data("config/ca.pem", want, sizeof(want)), "ca_file");
	ck_assert_int_eq(v[2]->poll_interval, 60);
	ck_assert(!v[2]->backfill);
	ck_assert_int_eq(v[2]->timeout, 60);
	ck_assert_int_eq(v[2]->max_message_size, CONFIG_DEFAULT_MAX_MESSAGE);
	ck_assert_int_eq(v[2]->retry_after, CONFIG_DEFAULT_RETRY_AFTER);
	err_init(&e);
	ck_assert_int_eq(config_check_daemon(&c, NULL, NULL, &e), 0);
	config_release(&c);
}
END_TEST

START_TEST(test_daemon_relative_paths)
{
	char want[PATH_MAX + 64], parent[PATH_MAX + 64];
	struct config c;
	struct err e;

	load_ok(&c, "config/config-daemon-maildir.ini");
	assert_str_or_null(c.source.path, real_data("config/inbox", want, sizeof(want)),
			   "[source] path");
	real_data("out", parent, sizeof(parent));
	assert_str_or_null(c.sink.path, parent, "[sink] path");
	/* Not in the file: the absolute default stays as it is. */
	assert_str_or_null(c.tagbot.state, CONFIG_DEFAULT_STATE, "state");
	/* Set but empty: no pattern at all, not the defaults. */
	ck_assert(c.reply.ignore_senders.set);
	ck_assert_uint_eq(c.reply.ignore_senders.n, 0);
	ck_assert_int_eq(config_check_daemon(&c, NULL, NULL, &e), 0);
	config_release(&c);
}
END_TEST

/* The embedded defaults name no Maildir: tagbot run says which keys, the
 * source's and the sink's, not only the first. */
START_TEST(test_daemon_needs_paths)
{
	struct gathered g = { .n = 0 };
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_check_daemon(&c, gather, &g, &e), -1);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_str_eq(g.msg[0], "(built-in defaults): [source] path: not set (needed for type = maildir)");
	ck_assert_str_eq(g.msg[1], "(built-in defaults): [sink] path: not set (needed for type = maildir)");
	ck_assert_str_eq(e.msg, "(built-in defaults): [source] path: not set (needed for type = maildir) "
		"(and 1 more problems)");
	gathered_release(&g);
	config_release(&c);
}
END_TEST

/* A password file readable by others is refused (secret.h), a private one not. */
START_TEST(test_password_file_mode)
{
	static const char ini[] = "check_config-password.ini", pw[] = "check_config-password";
	struct config c;
	struct err e;
	FILE *f = fopen(ini, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "[source]\ntype = imap\nhost = 127.0.0.1\nuser = bot\ntls = none\n"
		"password_file = %s\n", pw);
	fclose(f);
	f = fopen(pw, "w");
	ck_assert_ptr_nonnull(f);
	fputs("hunter2-pw\n", f);	/* a word no build directory's path holds */
	fclose(f);
	config_init(&c);
	ck_assert_int_eq(chmod(pw, 0644), 0);
	ck_assert_int_eq(config_load(&c, ini, &e), -1);
	ck_assert_msg(strstr(e.msg, "[source] password_file: ") &&
		      strstr(e.msg, "permissions 0644 are too open"), "%s", e.msg);
	ck_assert_ptr_null(strstr(e.msg, "hunter2"));
	ck_assert_int_eq(chmod(pw, 0600), 0);
	ck_assert_msg(config_load(&c, ini, &e) == 0, "%s", e.msg);
	remove(ini);
	remove(pw);
	config_release(&c);
}
END_TEST


/* A postgresql:// state is kept as written (not taken from the ini's
 * directory), its state_password_file is (and must be private); a password
 * for an SQLite file, or both ways at once, are refused naming the key. */
START_TEST(test_state_postgresql)
{
	static const char ini[] = "check_config-pg.ini", pw[] = "check_config-pg-password";
	static const char url[] = "postgresql://tagbot@db.example.org:5433/tagbot?sslmode=verify-full";
	char want[PATH_MAX + 64];
	struct config c;
	struct err e;
	FILE *f = fopen(pw, "w");

	ck_assert_ptr_nonnull(f);
	fputs("hunter3-pw\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(pw, 0600), 0);
	f = fopen(ini, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[tagbot]\nstate = %s\nstate_password_file = %s\n", url, pw);
	fclose(f);
	config_init(&c);
	ck_assert_msg(config_load(&c, ini, &e) == 0, "%s", e.msg);
	assert_str_or_null(c.tagbot.state, url, "state");
	ck_assert_ptr_nonnull(realpath(".", want));
	strcat(want, "/");
	strcat(want, pw);
	assert_str_or_null(c.tagbot.state_password_file, want, "state_password_file");
	config_release(&c);

	ck_assert_int_eq(chmod(pw, 0644), 0);
	config_init(&c);
	ck_assert_int_eq(config_load(&c, ini, &e), -1);
	ck_assert_msg(strstr(e.msg, "[tagbot] state_password_file: ") &&
		      strstr(e.msg, "too open") && !strstr(e.msg, "hunter3"), "%s", e.msg);
	config_release(&c);

	f = fopen(ini, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[tagbot]\nstate = state.db\nstate_password_command = echo x\n");
	fclose(f);
	config_init(&c);
	ck_assert_int_eq(config_load(&c, ini, &e), -1);
	ck_assert_msg(strstr(e.msg, "[tagbot] state_password_command: only for a postgresql://"
			     " state"), "%s", e.msg);
	config_release(&c);

	f = fopen(ini, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[tagbot]\nstate = %s\nstate_password_file = %s\n"
		"state_password_command = echo x\n", url, pw);
	fclose(f);
	ck_assert_int_eq(chmod(pw, 0600), 0);
	config_init(&c);
	ck_assert_int_eq(config_load(&c, ini, &e), -1);
	ck_assert_msg(strstr(e.msg, "[tagbot] state_password_command: give state_password_file or "
			     "state_password_command, not both"), "%s", e.msg);
	config_release(&c);
	remove(ini);
	remove(pw);
}
END_TEST

static const struct {
	const char *host;
	bool loopback;
} loopback_cases[] = {
	{ "127.0.0.1", true }, { "127.1.2.3", true }, { "::1", true }, { "localhost", true },
	{ "LOCALHOST", true }, { "128.0.0.1", false }, { "10.0.0.1", false }, { "::2", false },
	{ "localhost.example.org", false }, { "127.0.0.1.example.org", false }, { "", false },
};

START_TEST(test_loopback)
{
	ck_assert_msg(config_host_is_loopback(loopback_cases[_i].host) == loopback_cases[_i].loopback,
		      "%s", loopback_cases[_i].host);
}
END_TEST

static const struct {
	const char *url;
	const char *host;	/* NULL: refused */
} url_cases[] = {
	{ "smtp://127.0.0.1:2525", "127.0.0.1" },
	{ "smtps://mail.example.org", "mail.example.org" },
	{ "SMTP://mail.example.org/ehlo.example.org", "mail.example.org" },
	{ "smtp://[::1]:25", "::1" },
	{ "smtp://user:pw@mail.example.org", NULL },
	{ "http://mail.example.org", NULL },
	{ "smtp://", NULL },
	{ "smtp://[::1", NULL },
};

START_TEST(test_url_host)
{
	char host[256];
	int rc = config_url_host(url_cases[_i].url, host, sizeof(host));

	if (!url_cases[_i].host) {
		ck_assert_msg(rc == -1, "%s gave %s", url_cases[_i].url, host);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(host, url_cases[_i].host);
}
END_TEST

static const struct {
	const char *url;
	bool userinfo;
} userinfo_cases[] = {
	{ "smtp://bot:hunter2@mail.example.org:587", true },
	{ "smtp://bot@mail.example.org", true },
	{ "smtps://:hunter2@mail.example.org", true },
	{ "bot:hunter2@mail.example.org:587", true },	/* no scheme: all authority */
	{ "https://bot:hunter2@lore.example.org/all/", true },
	{ "smtp://mail.example.org:587", false },
	{ "smtp://[::1]:25/ehlo.example.org", false },
	{ "https://lore.example.org/all/a@b/", false },	/* in the path */
	{ "https://lore.example.org?a@b", false },
	{ "https://lore.example.org#a@b", false },
	{ "", false },
};

START_TEST(test_url_has_userinfo)
{
	ck_assert_msg(config_url_has_userinfo(userinfo_cases[_i].url) == userinfo_cases[_i].userinfo,
		      "%s", userinfo_cases[_i].url);
}
END_TEST

/*
 * A URL or host key with a user name or password is refused, whatever the
 * section's type, and the message names the key but never the secret
 * (it used to quote the whole URL).
 */
static const struct {
	const char *ini;
	const char *secret;	/* must not appear in the message */
	const char *want;	/* after "FILE: " */
} secret_cases[] = {
	{ "[sink]\ntype = smtp\nurl = smtp://bot:hunter2@mail.example.org:587\n", "hunter2",
	  "[sink] url: credentials in the URL are not accepted; use user and password_file "
	  "or password_command" },
	{ "[sink]\ntype = smtp\nurl = smtps://tagbot-user@mail.example.org\n", "tagbot-user",
	  "[sink] url: credentials in the URL are not accepted; use user and password_file "
	  "or password_command" },
	{ "[sink]\ntype = smtp\nurl = bot:hunter2@mail.example.org:587\n", "hunter2",
	  "[sink] url: credentials in the URL are not accepted; use user and password_file "
	  "or password_command" },
	{ "[sink]\ntype = maildir\npath = out\nurl = smtp://bot:hunter2@mail.example.org\n",
	  "hunter2",
	  "[sink] url: credentials in the URL are not accepted; use user and password_file "
	  "or password_command" },
	{ "[lookup]\narchive_url = https://bot:hunter2@lore.example.org/all/\n", "hunter2",
	  "[lookup] archive_url: credentials in the URL are not accepted (the archive is "
	  "read anonymously)" },
	{ "[lookup]\narchive_url = ftp://bot:hunter2@lore.example.org/\n", "hunter2",
	  "[lookup] archive_url: credentials in the URL are not accepted (the archive is "
	  "read anonymously)" },
	{ "[source]\ntype = imap\nhost = bot:hunter2@imap.example.org\nuser = bot\n", "hunter2",
	  "[source] host: a user name or password is not accepted here; use user and "
	  "password_file or password_command" },
};

START_TEST(test_credentials_refused)
{
	static const char tmp[] = "check_config-secret.ini";
	char want[1024];
	struct config c;
	struct err e;
	FILE *out = fopen(tmp, "w");
	int rc;

	ck_assert_ptr_nonnull(out);
	fputs(secret_cases[_i].ini, out);
	fclose(out);
	config_init(&c);
	err_init(&e);
	rc = config_load(&c, tmp, &e);
	remove(tmp);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	snprintf(want, sizeof(want), "%s: %s", tmp, secret_cases[_i].want);
	ck_assert_str_eq(e.msg, want);
	ck_assert_msg(!strstr(e.msg, secret_cases[_i].secret), "%s", e.msg);
	ck_assert_ptr_null(c.sink.url);
	ck_assert_ptr_null(c.lookup.archive_url);
	config_release(&c);
}
END_TEST

/* The ignore_senders the bundled file shows are policy.c's defaults. */
START_TEST(test_bundled_shows_default_ignore)
{
	static const char tmp[] = "check_config-ignore.ini";
	char *text = read_bundled();
	struct config c;
	struct err e;
	FILE *out = fopen(tmp, "w");

	ck_assert_ptr_nonnull(out);
	fputs("[reply]\n", out);
	uncomment_key(out, text, "ignore_senders");
	fclose(out);
	free(text);
	config_init(&c);
	ck_assert_msg(config_load(&c, tmp, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(c.reply.ignore_senders.n, policy_ndefault_ignore_senders);
	for (size_t i = 0; i < policy_ndefault_ignore_senders; i++)
		ck_assert_str_eq(c.reply.ignore_senders.v[i], policy_default_ignore_senders[i]);
	remove(tmp);
	config_release(&c);
}
END_TEST

/* ------------------------------------------------- per-list policy */

/* What config/config-lists.ini gives each layer, worked out from the file. */
START_TEST(test_list_globals)
{
	struct config c;

	load_ok(&c, "config/config-lists.ini");
	ck_assert_int_eq(c.reply.reply_mode, REPLY_PER_PATCH);
	ck_assert_int_eq(c.reply.series_wait, 300);
	ck_assert_uint_eq(c.reply.maintainers.n, 2);
	ck_assert_str_eq(c.reply.maintainers.v[0], "lee@kernel.org");
	ck_assert_str_eq(c.reply.maintainers.v[1], "*@linaro.org");
	ck_assert_uint_eq(c.lists.n, 3);
	/* [default] over the globals */
	ck_assert(!c.lists.dflt.enabled);
	ck_assert_ptr_null(c.lists.dflt.id);
	ck_assert_int_eq(c.lists.dflt.to, REPLY_TO_AUTHOR_LIST);
	ck_assert_int_eq(c.lists.dflt.reply_mode, REPLY_PER_PATCH);
	ck_assert_int_eq(c.lists.dflt.min_reply_severity, SEV_CHECK);
	ck_assert_int_eq(c.lists.dflt.severity[R_GIT_COMMIT_ID], SEV_OFF);
	ck_assert_int_eq(c.lists.dflt.severity[R_BAD_SIGN_OFF], SEV_ERROR);
	ck_assert_int_eq(c.lists.dflt.severity[R_EMAIL_SUBJECT], SEV_OFF);
	ck_assert_int_eq(c.lists.dflt.severity[R_MISSING_SIGN_OFF], SEV_ERROR);
	/* the global [rules] are not touched by the sections */
	ck_assert_int_eq(c.rules.severity[R_GIT_COMMIT_ID], rule_defs[R_GIT_COMMIT_ID].severity);
	config_release(&c);
}
END_TEST

static const struct {
	const char *lookup;	/* what config_policy_for() is given */
	const char *want_id;	/* NULL: the [default] layer */
} policy_cases[] = {
	{ "linux-leds.vger.kernel.org", "linux-leds.vger.kernel.org" },
	{ "<linux-leds.vger.kernel.org>", "linux-leds.vger.kernel.org" },
	{ "Linux LEDs <Linux-LEDs.VGER.kernel.org>", "linux-leds.vger.kernel.org" },
	{ "linux-leds@vger.kernel.org", "linux-leds.vger.kernel.org" },
	{ "netdev.vger.kernel.org", "netdev@vger.kernel.org" },
	{ " netdev@vger.kernel.org ", "netdev@vger.kernel.org" },
	{ "empty.example.org", "empty.example.org" },
	{ "linux-leds.vger.kernel.org.evil", NULL },
	{ "leds.vger.kernel.org", NULL },
	{ "linux-leds.vger.kernel.org@x", NULL },
	{ "", NULL },
	{ "<>", NULL },
	{ NULL, NULL },
};

START_TEST(test_policy_for)
{
	const struct list_policy *p;
	struct config c;

	load_ok(&c, "config/config-lists.ini");
	p = config_policy_for(&c, policy_cases[_i].lookup);
	ck_assert_ptr_nonnull(p);
	if (policy_cases[_i].want_id)
		ck_assert_str_eq(p->id ? p->id : "(default)", policy_cases[_i].want_id);
	else
		ck_assert_ptr_eq(p, &c.lists.dflt);
	config_release(&c);
}
END_TEST

/* [list ID] over [default] over the globals. */
START_TEST(test_list_layers)
{
	const struct list_policy *leds, *net, *empty;
	struct config c;

	load_ok(&c, "config/config-lists.ini");
	leds = config_policy_for(&c, "linux-leds.vger.kernel.org");
	ck_assert(leds->enabled);
	ck_assert_int_eq(leds->reply_mode, REPLY_PER_SERIES);
	ck_assert_int_eq(leds->min_reply_severity, SEV_ERROR);
	ck_assert_int_eq(leds->to, REPLY_TO_ALL);
	ck_assert_int_eq(leds->severity[R_BAD_SIGN_OFF], SEV_CHECK);
	ck_assert_int_eq(leds->severity[R_GIT_COMMIT_ID], SEV_OFF);	/* [default] */
	ck_assert_int_eq(leds->severity[R_EMAIL_SUBJECT], SEV_OFF);	/* [rules] */
	ck_assert_int_eq(leds->severity[R_LINK_TO_SELF], rule_defs[R_LINK_TO_SELF].severity);
	net = config_policy_for(&c, "netdev@vger.kernel.org");
	ck_assert(!net->enabled);
	ck_assert_int_eq(net->severity[R_EMAIL_SUBJECT], SEV_WARNING);
	ck_assert_int_eq(net->severity[R_GIT_COMMIT_ID], SEV_OFF);
	ck_assert_int_eq(net->to, REPLY_TO_AUTHOR_LIST);
	empty = config_policy_for(&c, "empty.example.org");
	ck_assert(!empty->enabled);
	ck_assert_int_eq(empty->min_reply_severity, SEV_CHECK);
	ck_assert(!memcmp(empty->severity, c.lists.dflt.severity, sizeof(empty->severity)));
	config_release(&c);
}
END_TEST

/* Without sections every mail gets the globals, enabled. */
START_TEST(test_no_list_sections)
{
	const struct list_policy *p;
	struct config c;

	load_ok(&c, "config/config-severities.ini");
	p = config_policy_for(&c, "linux-leds.vger.kernel.org");
	ck_assert_ptr_eq(p, &c.lists.dflt);
	ck_assert(p->enabled);
	ck_assert_int_eq(p->to, REPLY_TO_AUTHOR);
	ck_assert_int_eq(p->reply_mode, REPLY_PER_SERIES);
	ck_assert_int_eq(p->min_reply_severity, SEV_WARNING);
	ck_assert(!memcmp(p->severity, c.rules.severity, sizeof(p->severity)));
	ck_assert_int_eq(p->severity[R_MISSING_SIGN_OFF], SEV_OFF);
	config_release(&c);
	/* nor do the embedded defaults */
	config_init(&c);
	p = config_policy_for(&c, NULL);
	ck_assert(p->enabled);
	ck_assert_int_eq(p->severity[R_MISSING_SIGN_OFF], rule_defs[R_MISSING_SIGN_OFF].severity);
	config_release(&c);
}
END_TEST

/* Whether any mail may get a series reply: only an enabled policy's
 * reply_mode counts. */
START_TEST(test_answers_per_series)
{
	struct list_policy *leds;
	struct config c;

	load_ok(&c, "config/config-lists.ini");
	leds = (struct list_policy *)config_policy_for(&c, "linux-leds.vger.kernel.org");
	ck_assert(config_answers_per_series(&c));	/* only linux-leds, enabled */
	leds->reply_mode = REPLY_PER_PATCH;
	ck_assert(!config_answers_per_series(&c));
	leds->reply_mode = REPLY_PER_SERIES;
	leds->enabled = false;
	ck_assert(!config_answers_per_series(&c));
	c.lists.dflt.reply_mode = REPLY_PER_SERIES;	/* [default] is not enabled */
	ck_assert(!config_answers_per_series(&c));
	c.lists.dflt.enabled = true;
	ck_assert(config_answers_per_series(&c));
	config_release(&c);
	/* the embedded defaults: [default] enabled, per-series */
	config_init(&c);
	ck_assert(config_answers_per_series(&c));
	config_release(&c);
}
END_TEST

static const struct {
	const char *list_id, *xml;	/* header values */
	const char *want;		/* NULL: -1 */
} mail_id_cases[] = {
	{ "<linux-leds.vger.kernel.org>", "linux-leds@vger.kernel.org",
	  "linux-leds.vger.kernel.org" },
	{ "Linux LED Subsystem <Linux-LEDs.vger.kernel.org>", NULL, "linux-leds.vger.kernel.org" },
	{ NULL, "Linux-LEDs@vger.kernel.org", "linux-leds@vger.kernel.org" },
	{ "<unclosed.example.org", "x@y.example", "x@y.example" },
	{ "<a b.example.org>", NULL, NULL },
	{ "<>", NULL, NULL },
	{ "   ", "", NULL },
	{ "bare.example.org", NULL, "bare.example.org" },
	{ NULL, NULL, NULL },
};

START_TEST(test_mail_list_id)
{
	char out[CONFIG_MAX_LIST_ID + 1];
	int rc = config_mail_list_id(mail_id_cases[_i].list_id, mail_id_cases[_i].xml, out,
				     sizeof(out));

	if (!mail_id_cases[_i].want) {
		ck_assert_int_eq(rc, -1);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, mail_id_cases[_i].want);
}
END_TEST

/* A List-Id longer than CONFIG_MAX_LIST_ID is no ID. */
START_TEST(test_mail_list_id_long)
{
	char in[CONFIG_MAX_LIST_ID + 8], out[CONFIG_MAX_LIST_ID + 1];

	memset(in, 'a', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	ck_assert_int_eq(config_mail_list_id(in, NULL, out, sizeof(out)), -1);
	in[CONFIG_MAX_LIST_ID] = '\0';
	ck_assert_int_eq(config_mail_list_id(in, NULL, out, sizeof(out)), 0);
	ck_assert_uint_eq(strlen(out), CONFIG_MAX_LIST_ID);
}
END_TEST

START_TEST(test_reply_mode_names)
{
	ck_assert_str_eq(config_reply_mode_name(REPLY_PER_PATCH), "per-patch");
	ck_assert_str_eq(config_reply_mode_name(REPLY_PER_SERIES), "per-series");
}
END_TEST

/* --ignore and --types: built-in and custom IDs, any case, commas or
 * spaces; the rest keep their severity. */
START_TEST(test_rules_select)
{
	struct config c;
	struct err e;

	load_ok(&c, "config/config-custom.ini");
	ck_assert_int_eq(config_rules_select(&c, "missing_sign_off, NO_INTERNAL_URL", false, &e), 0);
	ck_assert_int_eq(c.rules.severity[R_MISSING_SIGN_OFF], SEV_OFF);
	ck_assert_int_eq(c.rules.custom[0].severity, SEV_OFF);	/* NO_INTERNAL_URL */
	ck_assert_int_eq(c.rules.severity[R_BAD_SIGN_OFF], SEV_WARNING);
	ck_assert_int_eq(c.rules.custom[2].severity, SEV_CHECK);	/* FIXES_SUBJECT */
	config_release(&c);

	load_ok(&c, "config/config-custom.ini");
	ck_assert_int_eq(config_rules_select(&c, "BAD_SIGN_OFF,fixes_subject", true, &e), 0);
	ck_assert_int_eq(c.rules.severity[R_BAD_SIGN_OFF], SEV_WARNING);
	ck_assert_int_eq(c.rules.custom[2].severity, SEV_CHECK);
	ck_assert_int_eq(c.rules.severity[R_MISSING_SIGN_OFF], SEV_OFF);
	ck_assert_int_eq(c.rules.severity[R_PLACEHOLDER_USE], SEV_OFF);
	ck_assert_int_eq(c.rules.custom[0].severity, SEV_OFF);
	ck_assert_int_eq(c.rules.custom[1].severity, SEV_OFF);
	config_release(&c);
}
END_TEST

/* A misspelt ID is an error with the nearest one, and changes nothing. */
START_TEST(test_rules_select_unknown)
{
	struct config c;
	struct err e;

	config_init(&c);
	ck_assert_int_eq(config_rules_select(&c, "BAD_SIGN_OFF,MISSING_SIGNOFF", true, &e), -1);
	ck_assert_str_eq(e.msg, "MISSING_SIGNOFF: unknown rule ID (did you mean MISSING_SIGN_OFF?)");
	ck_assert_int_eq(c.rules.severity[R_MISSING_SIGN_OFF], SEV_ERROR);
	ck_assert_int_eq(config_rules_select(&c, "NOTHING_LIKE_IT", false, &e), -1);
	ck_assert_str_eq(e.msg, "NOTHING_LIKE_IT: unknown rule ID");
	config_release(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *errors = tcase_create("errors");
	TCase *good = tcase_create("good");
	TCase *daemon = tcase_create("daemon");

	tcase_add_loop_test(errors, test_errors, 0, ARRAY_SIZE(bad_cases));
	tcase_add_test(errors, test_syntax_error_names_line);
	tcase_add_test(errors, test_directory_is_an_error);
	tcase_add_test(errors, test_failed_reload_keeps_old);
	tcase_add_test(errors, test_every_problem);
	tcase_add_test(errors, test_problems_capped);
	suite_add_tcase(s, errors);

	tcase_add_loop_test(good, test_severities, 0, ARRAY_SIZE(severity_cases));
	tcase_add_loop_test(good, test_followers, 0, ARRAY_SIZE(follower_cases));
	tcase_add_test(good, test_lookup);
	tcase_add_test(good, test_mailmap_key);
	tcase_add_test(good, test_pattern_lists);
	tcase_add_test(good, test_pattern_add_after_replace);
	tcase_add_test(good, test_pattern_empty_list);
	tcase_add_test(good, test_custom_rules);
	tcase_add_test(good, test_rules_select);
	tcase_add_test(good, test_rules_select_unknown);
	tcase_add_test(good, test_bundled_equals_defaults);
	tcase_add_test(good, test_bundled_lists_every_rule);
	tcase_add_test(good, test_bundled_shows_default_lists);
	suite_add_tcase(s, good);

	tcase_add_test(daemon, test_bundled_shows_default_ignore);
	tcase_add_test(daemon, test_daemon_keys);
	tcase_add_test(daemon, test_daemon_relative_paths);
	tcase_add_test(daemon, test_sources);
	tcase_add_test(daemon, test_daemon_needs_paths);
	tcase_add_test(daemon, test_password_file_mode);
	tcase_add_test(daemon, test_state_postgresql);
	tcase_add_loop_test(daemon, test_loopback, 0, ARRAY_SIZE(loopback_cases));
	tcase_add_loop_test(daemon, test_url_host, 0, ARRAY_SIZE(url_cases));
	tcase_add_loop_test(daemon, test_url_has_userinfo, 0, ARRAY_SIZE(userinfo_cases));
	tcase_add_loop_test(daemon, test_credentials_refused, 0, ARRAY_SIZE(secret_cases));
	tcase_add_test(daemon, test_list_globals);
	tcase_add_loop_test(daemon, test_policy_for, 0, ARRAY_SIZE(policy_cases));
	tcase_add_test(daemon, test_list_layers);
	tcase_add_test(daemon, test_no_list_sections);
	tcase_add_test(daemon, test_answers_per_series);
	tcase_add_loop_test(daemon, test_mail_list_id, 0, ARRAY_SIZE(mail_id_cases));
	tcase_add_test(daemon, test_mail_list_id_long);
	tcase_add_test(daemon, test_reply_mode_names);
	suite_add_tcase(s, daemon);
	return th_run_suite(s);
}
