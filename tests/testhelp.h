/*
 * testhelp.h - shared helpers for the Check suites.
 */
#ifndef TAGBOT_TESTHELP_H
#define TAGBOT_TESTHELP_H

#include <check.h>
#include <stddef.h>

/* Reads tests/data/NAME whole; aborts the test when missing. Caller frees. */
char *th_read_data(const char *name, size_t *len);

struct findings;
struct rule_settings;

/*
 * Parses raw (a whole mail, NUL-terminated) with message_parse() and
 * patch_parse(), runs the rules over the first patch with settings (NULL:
 * the defaults of RULES.md) and appends to fs (initialised by the caller).
 * Fails the test when the mail does not parse.
 */
void th_check_mail(const char *raw, const struct rule_settings *settings, struct findings *fs);

/* How many findings of rule id fs holds. */
size_t th_count(const struct findings *fs, const char *id);

/* All findings as "LINE:RULE" lines, for failure messages. Static buffer. */
const char *th_dump(const struct findings *fs);

/* Runs one suite; returns the process exit status for a Check test program. */
int th_run_suite(Suite *s);

#endif
