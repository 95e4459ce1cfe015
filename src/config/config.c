/*
 * config.c - the loader: the defaults, the stages of config_load() in
 * order (ini.c reads and checks the entries, keys.c, rules_cfg.c, lists.c
 * and sources.c apply them, check.c checks across keys), and paths.
 *
 * Loading happens into a fresh struct config that replaces the caller's
 * only when everything validated, so a bad reload keeps the old settings.
 */
#include "autoconf.h"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "config/config_p.h"

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

	if (!*field || **field == '/' || strstr(*field, "://") || !cfg_lookup(ld, section, key))
		return;
	buf_init(&b, 0);
	buf_printf(&b, "%s/%s", dir, *field);
	free(*field);
	*field = buf_detach(&b, NULL);
	tidy_path(*field);
}

/* The path keys of a table (at most n rows) over the struct at base. */
static void resolve_keys(struct load *ld, const char *dir, const char *section,
			 const struct key_def *keys, size_t n, void *base)
{
	for (size_t i = 0; i < n && keys[i].key; i++)
		if (keys[i].flags & KEY_PATH)
			resolve_one(ld, dir, section, keys[i].key,
				    (char **)((char *)base + keys[i].offset));
}

static void resolve_paths(struct load *ld)
{
	char *dir = dir_of(ld->path), *real = realpath(dir, NULL);

	/* Absolute, so a log line or `tagbot status` names the real place. */
	if (real) {
		free(dir);
		dir = real;
	}

	for (const struct section_def *t = cfg_sections; t->name; t++)
		resolve_keys(ld, dir, t->name, t->keys, t->n, (char *)ld->c + t->base);
	/* a [source NAME] has the path keys of [source] */
	for (size_t k = 0; k < ld->c->nsources; k++) {
		struct config_source *s = &ld->c->sources[k];
		char sec[CONFIG_MAX_SOURCE_NAME + 16];

		cfg_section_of(s, sec, sizeof(sec));
		resolve_keys(ld, dir, sec, cfg_source_keys, SIZE_MAX, s);
	}
	free(dir);
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	rule_settings_init(&c->rules);
	c->tagbot.state = xstrdup(CONFIG_DEFAULT_STATE);
	c->tagbot.log = LOG_TARGET_STDERR;
	c->tagbot.log_level = LOGL_INFO;
	c->tagbot.min_reply_severity = SEV_WARNING;
	cfg_source_defaults(&c->source);
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
	cfg_policy_from_globals(c, &c->lists.dflt);
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
	cfg_source_release(&c->source);
	for (size_t i = 0; i < c->nsources; i++)
		cfg_source_release(&c->sources[i]);
	free(c->sources);
	c->sources = NULL;
	c->nsources = 0;
	cfg_list_release(&c->reply.bot_addresses);
	cfg_list_release(&c->reply.ignore_senders);
	cfg_list_release(&c->reply.maintainers);
	cfg_lists_release(&c->lists);
	c->path = NULL;
}

/* ------------------------------------------------------------ problems */

static struct problem *problem_add(struct load *ld, int line, const char *msg)
{
	struct problem *p;

	ARRAY_GROW(ld->pv, ld->palloc, ld->np + 1);
	p = &ld->pv[ld->np];
	p->line = line;
	p->seq = ld->np++;
	p->section = p->key = NULL;
	p->msg = xstrdup(msg);
	return p;
}

void cfg_problem(struct load *ld, const char *section, const char *key, const char *msg)
{
	struct problem *p = problem_add(ld, cfg_line_of(ld, section, key), msg);

	p->section = section ? xstrdup(section) : NULL;
	p->key = key ? xstrdup(key) : NULL;
}

void cfg_problem_line(struct load *ld, int line, const char *msg)
{
	problem_add(ld, line, msg);
}

bool cfg_section_failed(const struct load *ld, const char *section)
{
	for (size_t i = 0; i < ld->np; i++)
		if (ld->pv[i].section && !strcmp(ld->pv[i].section, section))
			return true;
	return false;
}

/* File order; a problem of no known line last, in the order found. */
static int problem_cmp(const void *a, const void *b)
{
	const struct problem *x = a, *y = b;
	unsigned lx = x->line ? (unsigned)x->line : UINT_MAX;
	unsigned ly = y->line ? (unsigned)y->line : UINT_MAX;

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void problem_release(struct problem *p)
{
	free(p->section);
	free(p->key);
	free(p->msg);
}

/* Sorts the problems and drops one found twice (a bad section name is
 * seen when the entries are checked and again when it is applied). */
static void problems_sort(struct load *ld)
{
	size_t n = 0;

	qsort(ld->pv, ld->np, sizeof(*ld->pv), problem_cmp);
	for (size_t i = 0; i < ld->np; i++) {
		bool seen = false;

		for (size_t j = n; j-- > 0 && ld->pv[j].line == ld->pv[i].line && !seen;)
			seen = !strcmp(ld->pv[j].msg, ld->pv[i].msg);
		if (seen)
			problem_release(&ld->pv[i]);
		else
			ld->pv[n++] = ld->pv[i];
	}
	ld->np = n;
}

void cfg_problems_report(struct load *ld, config_problem_fn *report, void *arg)
{
	char more[ERR_MSG_MAX];

	problems_sort(ld);
	for (size_t i = 0; report && i < ld->np && i < CONFIG_MAX_PROBLEMS; i++) {
		const struct problem *p = &ld->pv[i];

		report(arg, &(struct config_problem){ p->msg, p->section, p->key, p->line });
	}
	if (report && ld->np > CONFIG_MAX_PROBLEMS) {
		snprintf(more, sizeof(more), "%s: and %zu more problems", ld->path,
			 ld->np - CONFIG_MAX_PROBLEMS);
		report(arg, &(struct config_problem){ more, NULL, NULL, 0 });
	}
	if (ld->np > 1)
		err_set(ld->e, ERR_FINAL, "%s (and %zu more problems)", ld->pv[0].msg, ld->np - 1);
	else if (ld->np)
		err_set(ld->e, ERR_FINAL, "%s", ld->pv[0].msg);
}

void cfg_problems_release(struct load *ld)
{
	for (size_t i = 0; i < ld->np; i++)
		problem_release(&ld->pv[i]);
	free(ld->pv);
	ld->pv = NULL;
	ld->np = ld->palloc = 0;
}

/* ------------------------------------------------------------- loading */

int config_load(struct config *c, const char *path, struct err *e)
{
	return config_load_report(c, path, NULL, NULL, e);
}

int config_load_report(struct config *c, const char *path, config_problem_fn *report,
		       void *arg, struct err *e)
{
	struct config fresh;
	struct load ld = { .path = path, .c = &fresh, .e = e };

	if (cfg_ini_read(&ld) < 0) {
		cfg_problems_report(&ld, report, arg);
		cfg_problems_release(&ld);
		return -1;
	}
	cfg_ini_lines(&ld);
	config_init(&fresh);
	/* Each stage goes on past a problem, so that one run names them all. */
	cfg_check_entries(&ld);
	cfg_apply_fixed_keys(&ld);
	cfg_apply_severities(&ld);
	cfg_apply_custom_rules(&ld);
	cfg_apply_lists(&ld);
	cfg_apply_sources(&ld);
	resolve_paths(&ld);
	cfg_validate(&ld);
	iniparser_freedict(ld.d);
	if (ld.np) {
		cfg_problems_report(&ld, report, arg);
		cfg_problems_release(&ld);
		cfg_ini_lines_release(&ld);
		config_release(&fresh);
		return -1;
	}
	cfg_ini_lines_release(&ld);
	fresh.path = xstrdup(path);
	config_release(c);
	*c = fresh;
	return 0;
}
