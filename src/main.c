/*
 * main.c - argv and subcommands; the only file that decides the exit status.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	"  help [COMMAND | TOPIC]    show this text, the options of COMMAND, or TOPIC\n"
	"  version                   show the version\n"
	"\n"
	"help topics:\n"
	"  rules                     every rule: when it fires, why it matters, how\n"
	"                            to fix it (the manual page tagbot-rules(7))\n"
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

static int run_command(const struct command *c, int argc, char **argv);

/* Whether man(1) is there and finds page (man -w, its output dropped). */
static bool man_finds(const char *page)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * "tagbot help rules": the manual page when man finds it (installed, or on
 * MANPATH); else, as from the build tree, the rule table the binary holds
 * (check --list-rules with the defaults) and where the page is.
 */
static int help_rules(void)
{
	char *args[] = { "check", "--no-config", "--list-rules", NULL };
	int rc;

	if (man_finds("tagbot-rules")) {
		fflush(stdout);
		execlp("man", "man", "tagbot-rules", (char *)NULL);
		/* man went away since: the table below still answers */
	}
	rc = run_command(find_command("check"), 3, args);
	printf("\nEach rule is explained in the manual page tagbot-rules(7), which man\n"
	       "does not find here; in the source tree: man -l man/tagbot-rules.7\n");
	return rc;
}

/* "tagbot help check" is "tagbot check --help"; "tagbot help rules" a topic. */
static int help(int argc, char **argv)
{
	const struct command *c;
	char *args[3] = { NULL, "--help", NULL };

	if (argc <= 2) {
		fputs(usage, stdout);
		return EXIT_CLEAN;
	}
	if (!strcmp(argv[2], "rules"))
		return help_rules();
	c = find_command(argv[2]);
	if (!c) {
		fprintf(stderr, "tagbot: unknown command or topic '%s'\n\n%s", argv[2], usage);
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
