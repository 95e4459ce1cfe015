/*
 * config.h - the ini file (iniparser) -> a typed struct config.  The only
 * module that includes iniparser.
 *
 * Every error names the file, the section and the key.  An unknown section,
 * key or rule ID is an error: a typo must never silently disable a rule.
 * Without a file, config_init() gives the embedded defaults of RULES.md.
 *
 * Sections known so far: [rules] (severities, URL pattern lists,
 * reported_by_followers), [lookup] (enabled) and one [rule ID] section per
 * custom rule.  etc/tagbot.ini documents every key.  New sections ([tagbot],
 * [source], [sink], [reply] ...) are rows of the key table in config.c and
 * fields here.
 */
#ifndef TAGBOT_CONFIG_H
#define TAGBOT_CONFIG_H

#include "err.h"
#include "rules.h"

#define CONFIG_MAX_BYTES	(1024 * 1024)	/* an ini file larger than this is refused */
#define CONFIG_MAX_PATTERNS	64	/* patterns in one list key */
#define CONFIG_MAX_CUSTOM	256	/* [rule ID] sections */
#define CONFIG_MAX_ID		64	/* characters of a custom rule ID */

struct config {
	char *path;			/* owned; NULL for the embedded defaults */
	struct rule_settings rules;	/* owned; [rules], [rule ID], [lookup] enabled */
};

/* The embedded defaults (compiles the default patterns). */
void config_init(struct config *c);

/*
 * Loads path over the defaults.  On error returns -1 with e set
 * ("FILE: [section] key: problem"), and c is left untouched: as
 * config_init() made it on a first load, the old configuration on a
 * reload.  On success the previous contents of c are released.
 */
int config_load(struct config *c, const char *path, struct err *e);

void config_release(struct config *c);

#endif
