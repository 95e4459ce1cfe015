/*
 * output.h - how `tagbot check` prints results: checkpatch-style text
 * ("FILE:LINE: WARNING:RULE_ID: message") or JSON Lines, exactly the fields
 * the README documents.
 */
#ifndef TAGBOT_OUTPUT_H
#define TAGBOT_OUTPUT_H

#include <stdio.h>

#include "patch.h"
#include "rules.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON
};

/* Prints one checked patch and its findings at or above min. */
void output_patch(FILE *f, enum output_format fmt, const char *file,
		  const struct patch *p, const struct findings *fs, enum severity min);

/* Prints a message that could not be parsed. msgid may be NULL. */
void output_error(FILE *f, enum output_format fmt, const char *file,
		  const char *msgid, const char *error);

/* Writes s as a JSON string (with quotes), escaping as RFC 8259 asks;
 * invalid UTF-8 becomes U+FFFD. */
void output_json_string(FILE *f, const char *s);

#endif
