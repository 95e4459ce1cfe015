/*
 * cmd_run.c - `tagbot run -c FILE [--once] [--dry-run]` and
 * `tagbot status -c FILE`.
 */
#include "autoconf.h"
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd_check.h"
#include "cli/cmd_run.h"
#include "daemon/daemon.h"
#include "lib/log.h"

#define DEFAULT_CONFIG SYSCONFDIR "/tagbot.ini"

static const char run_usage[] =
	"usage: tagbot run [-c FILE] [--once] [--dry-run]\n"
	"\n"
	"Runs the daemon in the foreground: reads new mail from [source] (IMAP or\n"
	"a Maildir), checks every patch, and sends the author a threaded reply\n"
	"through [sink] (SMTP or a Maildir), at most once per patch.\n"
	"SIGTERM or SIGINT: finish the current message and exit; SIGHUP: reload\n"
	"the rules and [reply] from FILE.\n"
	"\n"
	"options:\n"
	"  -c, --config FILE   the ini file (default " DEFAULT_CONFIG ")\n"
	"      --once          process what is there, send the replies due, exit\n"
	"      --dry-run       print the replies it would send (an mbox), deciding in a\n"
	"                      scratch copy of the state; write no state, send nothing\n"
	"  -h, --help          show this text\n"
	"\n"
	"exit status: 0 stopped cleanly, 2 usage, configuration or fatal errors.\n";

static const char status_usage[] =
	"usage: tagbot status [-c FILE]\n"
	"\n"
	"Prints the state of the daemon from its database ([tagbot] state): the\n"
	"checkpoint of each folder, messages by decision, the outbox by state and\n"
	"the last errors.\n"
	"\n"
	"options:\n"
	"  -c, --config FILE   the ini file (default " DEFAULT_CONFIG ")\n"
	"  -h, --help          show this text\n";

enum { OPT_ONCE = 256, OPT_DRY_RUN };

static const struct option run_options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Parses argv into o; -1 on a usage error, 0 after --help, 1 to go on. */
static int parse(struct daemon_opts *o, int argc, char **argv, bool with_run_options,
		 const char *usage)
{
	int c;

	*o = (struct daemon_opts){ .config = DEFAULT_CONFIG, .out = stdout };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:h", run_options, NULL)) != -1) {
		if (c == 'c') {
			o->config = optarg;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else if (with_run_options && (c == OPT_ONCE || c == OPT_DRY_RUN)) {
			if (c == OPT_ONCE)
				o->once = true;
			else
				o->dry_run = true;
		} else {
			fprintf(stderr, "tagbot %s: %s '%s'\n%s", argv[0],
				c == ':' ? "option needs a value:" : "unknown option",
				argv[optind - 1], usage);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tagbot %s: unexpected argument '%s'\n%s", argv[0], argv[optind],
			usage);
		return -1;
	}
	return 1;
}

int cmd_run(int argc, char **argv)
{
	struct daemon_opts o;
	struct err e;
	int rc = parse(&o, argc, argv, true, run_usage);

	if (rc <= 0)
		return rc == 0 ? EXIT_CLEAN : EXIT_USAGE;
	err_init(&e);
	rc = daemon_run(&o, &e);
	log_close();
	/* stderr also under systemd: the journal keeps it. */
	if (rc < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		return EXIT_USAGE;
	}
	return EXIT_CLEAN;
}

int cmd_status(int argc, char **argv)
{
	struct daemon_opts o;
	struct err e;
	int rc = parse(&o, argc, argv, false, status_usage);

	if (rc <= 0)
		return rc == 0 ? EXIT_CLEAN : EXIT_USAGE;
	err_init(&e);
	if (daemon_status(o.config, stdout, &e) < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		return EXIT_USAGE;
	}
	return EXIT_CLEAN;
}
