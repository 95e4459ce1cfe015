/*
 * main.c - argv and subcommands; the only file that decides the exit status.
 */
#include "autoconf.h"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "transport/transport.h"

static const char usage[] =
	"usage: tagbot <command> [options]\n"
	"\n"
	"commands:\n"
	"  check [options] FILE...   check the tags of patch mails (files, mboxes,\n"
	"                            Maildirs, directories, - for stdin)\n"
	"  run [-c FILE] [--once] [--dry-run]\n"
	"                            the daemon: check new mail, reply once per patch\n"
	"  status [-c FILE]          the daemon's checkpoints, counts and last errors\n"
	"  check-config [-c FILE]    check the daemon's ini file and the paths it names\n"
	"  replay [-c FILE] [--since DATE] [--until DATE] SOURCE...\n"
	"                            what run would do with old mail (nothing is sent)\n"
	"  help [COMMAND]            show this text, or the options of COMMAND\n"
	"  version                   show the version\n"
	"\n"
	"Run 'tagbot help COMMAND' for the options of a command.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "check", cmd_check },
	{ "run", cmd_run },
	{ "status", cmd_status },
	{ "check-config", cmd_check_config },
	{ "replay", cmd_replay },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* "tagbot help check" is "tagbot check --help". */
static int help(int argc, char **argv)
{
	const struct command *c;
	char *args[3] = { NULL, "--help", NULL };

	if (argc <= 2) {
		fputs(usage, stdout);
		return EXIT_CLEAN;
	}
	c = find_command(argv[2]);
	if (!c) {
		fprintf(stderr, "tagbot: unknown command '%s'\n\n%s", argv[2], usage);
		return EXIT_USAGE;
	}
	args[0] = argv[2];
	return c->run(2, args);
}

/* libcurl's global state lives exactly as long as the command: a module
 * that frees its curl handles (a SIGHUP reload) must not tear it down under
 * another's (transport/transport.h). */
static int run_command(const struct command *c, int argc, char **argv)
{
	struct err e;
	int rc;

	err_init(&e);
	if (transport_init(&e) < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		return EXIT_USAGE;
	}
	rc = c->run(argc, argv);
	transport_cleanup();
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(argc, argv);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("tagbot %s\n", PACKAGE_VERSION);
		return EXIT_CLEAN;
	}
	c = find_command(argv[1]);
	if (c)
		return run_command(c, argc - 1, argv + 1);
	fprintf(stderr, "tagbot: unknown command '%s'\n\n%s", argv[1], usage);
	return EXIT_USAGE;
}
