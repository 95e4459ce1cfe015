/*
 * cmd_replay.h - `tagbot replay -c FILE SOURCE... [--since DATE] [--until
 * DATE] [--show-replies]`: the daemon's whole pipeline (policy, per-list policy, dedupe,
 * series, rate limits) over mboxes, Maildirs and directories, with sending
 * off and a scratch store instead of [tagbot] state.  Prints one line per
 * message ("MSGID: would reply (RULE, ...)", "MSGID: clean", "MSGID:
 * skipped: why", "MSGID: held: rate-limit-... (RULE, ...)"), with
 * --show-replies each would-be reply (To, Cc, Subject, In-Reply-To, text),
 * and totals per decision and per rule.  How an admin tunes a list before
 * enabling it.
 */
#ifndef TAGBOT_CMD_REPLAY_H
#define TAGBOT_CMD_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* argv[0] is "replay".  Returns an enum exit_status (cmd_check.h). */
int cmd_replay(int argc, char **argv);

#endif
