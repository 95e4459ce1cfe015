/*
 * cmd_config.c - `tagbot check-config [-c FILE]`: everything `tagbot run`
 * would refuse at start, found before it starts (as `postfix check` or
 * `nginx -t` do): the file itself (config_load(): keys, values, password
 * files present and private, no credentials in URLs), what the daemon needs
 * (config_check_daemon()), and the paths it will use.  Nothing connects,
 * nothing runs a password_command, nothing is written.
 */
#include "autoconf.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd_check.h"
#include "cli/cmd_config.h"
#include "config/config.h"
#include "store/store.h"

#define DEFAULT_CONFIG SYSCONFDIR "/tagbot.ini"

static const char usage[] =
	"usage: tagbot check-config [-c FILE] [-q]\n"
	"\n"
	"Checks FILE as `tagbot run` would read it, and the paths it names, without\n"
	"connecting anywhere: keys and values, password files (present, a regular\n"
	"file, mode 0600 or stricter), the state file's directory, Maildir paths and\n"
	"CA files.  Each problem is printed as FILE: [section] key: problem.\n"
	"\n"
	"options:\n"
	"  -c, --config FILE   the ini file (default " DEFAULT_CONFIG ")\n"
	"  -q, --quiet         print problems only, not the summary line\n"
	"  -h, --help          show this text\n"
	"\n"
	"exit status: 0 the file is fine, 2 a problem was found (or usage).\n";

struct problems {
	const char *file;
	int n;
};

static void problem(struct problems *p, const char *section, const char *key, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static void problem(struct problems *p, const char *section, const char *key, const char *fmt,
		    ...)
{
	va_list ap;

	fprintf(stderr, "tagbot: %s: [%s] %s: ", p->file, section, key);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	p->n++;
}

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, size, ".");
	else if (slash == path)
		snprintf(out, size, "/");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* The state file: its directory must exist and be writable (SQLite keeps
 * its journal beside it). */
static void check_state(struct problems *p, const char *state)
{
	char dir[PATH_MAX];
	struct stat st;

	dir_of(state, dir, sizeof(dir));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		problem(p, "tagbot", "state", "the directory %s does not exist", dir);
	else if (access(dir, W_OK | X_OK) < 0)
		problem(p, "tagbot", "state", "the directory %s is not writable by this user", dir);
}

static void check_maildir(struct problems *p, const char *section, const char *path,
			  bool must_exist)
{
	static const char *const subs[] = { "cur", "new", "tmp" };
	char sub[PATH_MAX];
	struct stat st;

	if (stat(path, &st) < 0) {
		if (must_exist || errno != ENOENT)
			problem(p, section, "path", "%s is not there", path);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		problem(p, section, "path", "%s is not a directory", path);
		return;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, subs[i]);
		if (stat(sub, &st) < 0 || !S_ISDIR(st.st_mode)) {
			problem(p, section, "path", "%s is not a Maildir (no cur, new and tmp)",
				path);
			return;
		}
	}
}

static void check_readable(struct problems *p, const char *section, const char *key,
			   const char *path)
{
	if (path && *path && access(path, R_OK) < 0)
		problem(p, section, key, "%s cannot be read", path);
}

/* "source imap user@host folder INBOX", "source lkml nntp host:119 groups a.b, c.*" */
static void print_source(const struct config_source *s)
{
	printf("source%s%s ", s->name ? " " : "", s->name ? s->name : "");
	if (s->type == SOURCE_MAILDIR) {
		printf("maildir %s", s->path);
	} else if (s->type == SOURCE_IMAP) {
		printf("imap %s@%s folder %s", s->user, s->host, s->folder);
	} else {
		printf("nntp %s groups", s->host);
		for (size_t i = 0; i < s->groups.n; i++)
			printf("%s %s", i ? "," : "", s->groups.v[i]);
	}
}

static void summary(const struct config *c, const char *file)
{
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	size_t n = config_sources(c, v, sizeof(v) / sizeof(v[0]));
	const struct config_sink *k = &c->sink;
	char *state;

	printf("%s: ok: ", file);
	for (size_t i = 0; i < n; i++) {
		if (i)
			printf(", ");
		print_source(v[i]);
	}
	if (k->type == SINK_MAILDIR)
		printf(", sink maildir %s", k->path);
	else
		printf(", sink %s", k->url);
	state = c->tagbot.state ? store_mask_url(c->tagbot.state) : NULL;
	printf(", %zu list section%s, state %s\n", c->lists.n, c->lists.n == 1 ? "" : "s",
	       state ? state : "(none)");
	free(state);
}

static void check_sources(struct problems *p, const struct config *c)
{
	const struct config_source *v[CONFIG_MAX_SOURCES + 1];
	size_t n = config_sources(c, v, sizeof(v) / sizeof(v[0]));

	for (size_t i = 0; i < n; i++) {
		char section[CONFIG_MAX_SOURCE_NAME + 16];

		snprintf(section, sizeof(section), "source%s%s", v[i]->name ? " " : "",
			 v[i]->name ? v[i]->name : "");
		if (v[i]->type == SOURCE_MAILDIR)
			check_maildir(p, section, v[i]->path, true);
		else
			check_readable(p, section, "ca_file", v[i]->ca_file);
	}
}

/* Each problem of the file, as config_load() found it. */
static void print_problem(void *arg, const struct config_problem *p)
{
	(void)arg;
	fprintf(stderr, "tagbot: %s\n", p->msg);
}

int cmd_check_config(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *file = DEFAULT_CONFIG;
	bool quiet = false;
	struct problems p;
	struct config c;
	struct err e;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:qh", options, NULL)) != -1) {
		if (opt == 'c') {
			file = optarg;
		} else if (opt == 'q') {
			quiet = true;
		} else if (opt == 'h') {
			fputs(usage, stdout);
			return EXIT_CLEAN;
		} else {
			fprintf(stderr, "tagbot check-config: %s '%s'\n%s",
				opt == ':' ? "option needs a value:" : "unknown option",
				argv[optind - 1], usage);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tagbot check-config: unexpected argument '%s'\n%s", argv[optind],
			usage);
		return EXIT_USAGE;
	}
	config_init(&c);
	err_init(&e);
	if (config_load_report(&c, file, print_problem, NULL, &e) < 0) {
		config_release(&c);
		return EXIT_USAGE;
	}
	if (config_check_daemon(&c, print_problem, NULL, &e) < 0) {
		config_release(&c);
		return EXIT_USAGE;
	}
	p = (struct problems){ file, 0 };
	if (c.tagbot.state && !store_is_url(c.tagbot.state))	/* a server's is not checked here */
		check_state(&p, c.tagbot.state);
	check_sources(&p, &c);
	if (c.sink.type == SINK_MAILDIR)
		check_maildir(&p, "sink", c.sink.path, false);	/* made at the first reply */
	else
		check_readable(&p, "sink", "ca_file", c.sink.ca_file);
	if (!p.n && !quiet)
		summary(&c, file);
	config_release(&c);
	return p.n ? EXIT_USAGE : EXIT_CLEAN;
}
