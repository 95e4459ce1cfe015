/*
 * cli.h - the face of cli/: the subcommands main() dispatches to, each a
 * thin adapter from argv to the library folders (git's builtin/ beside
 * its library files).  `check` (cmd_check.h) reads its input (input.h:
 * files, mboxes, Maildirs, gzip/xz/zstd via unpack.h), runs the rules and
 * writes text or JSON (output.h), with --fix (fix.h) and --git (gitrepo.h);
 * `run` and `status` (cmd_run.h) hand over to daemon/; `replay`
 * (cmd_replay.h) drives the daemon's pipeline offline; `check-config`
 * (cmd_config.h) checks a daemon's ini file and the paths it names.  Each returns an
 * enum exit_status; none calls exit().
 *
 *	static const struct command commands[] = {
 *		{ "check", cmd_check }, { "run", cmd_run },
 *		{ "status", cmd_status }, { "replay", cmd_replay },
 *	};
 *	return find_command(argv[1])->run(argc - 1, argv + 1);
 */
#ifndef TAGBOT_CLI_H
#define TAGBOT_CLI_H

#include "cli/cmd_check.h"
#include "cli/cmd_config.h"
#include "cli/cmd_replay.h"
#include "cli/cmd_run.h"

#endif
