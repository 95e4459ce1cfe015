/*
 * cmd_run.h - `tagbot run` and `tagbot status`: their options; the work is
 * in daemon.c.
 */
#ifndef TAGBOT_CMD_RUN_H
#define TAGBOT_CMD_RUN_H

/* argv[0] is "run" / "status".  Return an enum exit_status (cmd_check.h). */
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
