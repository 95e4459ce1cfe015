/*
 * cmd_config.h - `tagbot check-config [-c FILE] [-q]`: the configuration
 * and the paths it names checked as `tagbot run` would at start, without
 * connecting or writing anything (cmd_config.c).
 */
#ifndef TAGBOT_CMD_CONFIG_H
#define TAGBOT_CMD_CONFIG_H

/* argv[0] is "check-config".  EXIT_CLEAN, or EXIT_USAGE with each problem
 * on stderr as "FILE: [section] key: problem". */
int cmd_check_config(int argc, char **argv);

#endif
