/*
 * config.h - the ini file (iniparser) -> a typed struct config.  The only
 * module that includes iniparser.
 *
 * Every error names the file, the section and the key.  An unknown section,
 * key or rule ID is an error: a typo must never silently disable a rule.
 * Without a file, config_init() gives the embedded defaults of RULES.md.
 */
#ifndef TAGBOT_CONFIG_H
#define TAGBOT_CONFIG_H

#include "err.h"
#include "rules.h"

struct config {
	char *path;			/* owned; NULL for the embedded defaults */
	struct rule_settings rules;	/* owned */
};

/* The embedded defaults (compiles the default patterns). */
void config_init(struct config *c);

/*
 * Loads path over the defaults.  On error returns -1 with e set
 * ("FILE: [section] key: problem"), and c is left as config_init() made it.
 */
int config_load(struct config *c, const char *path, struct err *e);

void config_release(struct config *c);

#endif
