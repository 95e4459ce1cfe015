/*
 * cmd_check.h - `tagbot check [options] FILE...`: the command-line checker.
 */
#ifndef TAGBOT_CMD_CHECK_H
#define TAGBOT_CMD_CHECK_H

/* Exit statuses of tagbot (main.c returns them). */
enum exit_status {
	EXIT_CLEAN = 0,		/* nothing at warning or above (or at --min-severity) */
	EXIT_FINDINGS = 1,	/* findings */
	EXIT_USAGE = 2		/* usage, configuration or unreadable input */
};

/* argv[0] is "check". Prints to stdout/stderr, returns the exit status. */
int cmd_check(int argc, char **argv);

#endif
