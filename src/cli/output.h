/*
 * output.h - how `tagbot check` prints results: checkpatch-style text
 * ("FILE:LINE: WARNING:RULE_ID: message") or JSON Lines, exactly the fields
 * the README documents.
 */
#ifndef TAGBOT_OUTPUT_H
#define TAGBOT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "mail/patch.h"
#include "rules/rules.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON
};

/* Prints one checked patch and its findings at or above min. */
void output_patch(FILE *f, enum output_format fmt, const char *file,
		  const struct patch *p, const struct findings *fs, enum severity min);

/* Where a message sits in its input, and how much text output shows. */
struct output_ctx {
	const char *file;	/* foreign: the path as given ("-" for stdin) */
	size_t msg_line;	/* line of the message's first byte in file; 0 unknown */
	size_t text_line;	/* line in file of the decoded text's first line; 0
				 * when the text is not in the file as it is (base64,
				 * quoted-printable, another charset) */
	bool terse;		/* text: finding lines only, no header, no quoted line */
	bool verbose;		/* text: also patches with nothing to show, and
				 * messages that were not checked (reply, pull, other) */
	const char *commit;	/* foreign; the commit's 40-hex id (check --git),
				 * else NULL: text names the commit instead of the
				 * file and Message-ID, JSON adds "commit" */
	size_t mail;		/* 1-based position of the message in file; 0 is 1 */
};

/*
 * output_patch() with line mapping for text: a finding at decoded line L
 * prints as text_line + L - 1; with text_line 0 as msg_line, the decoded
 * line named in the message; with both 0 as L.  JSON always gives L.
 */
void output_patch_ctx(FILE *f, enum output_format fmt, const struct output_ctx *c,
		      const struct patch *p, const struct findings *fs, enum severity min);

/* What one FILE argument of tagbot check gave. */
struct output_total {
	size_t errors, warnings, checks;	/* findings shown */
	size_t patches;				/* patches checked */
};

/*
 * Text only: "FILE: total: E errors, W warnings, C checks, P patches
 * checked", as checkpatch ends each file with "total: ..., N lines
 * checked".  It is no finding line (no line number), so editors and b4
 * never take it for one.
 */
void output_file_total(FILE *f, const char *file, const struct output_total *t);

/* Prints a message that could not be parsed: where names c->file and
 * c->mail (0 when the error is about the file, not one message); the rest
 * of c is not used.  msgid may be NULL. */
void output_error(FILE *f, enum output_format fmt, const struct output_ctx *where,
		  const char *msgid, const char *error);

/* Writes s as a JSON string (with quotes), escaping as RFC 8259 asks;
 * invalid UTF-8 becomes U+FFFD. */
void output_json_string(FILE *f, const char *s);

#endif
