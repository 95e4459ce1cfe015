/*
 * maildate.h - the dates of mail: an RFC 5322 Date header and the
 * YYYY-MM-DD days of command lines, as UTC time_t.  Pure functions.
 */
#ifndef TAGBOT_MAILDATE_H
#define TAGBOT_MAILDATE_H

#include <time.h>

/*
 * An RFC 5322 date-time ("Thu, 4 Dec 2025 10:20:30 +0100", the obsolete
 * forms too: two-digit years, zone names, no seconds, comments) into *out
 * (UTC).  -1 when s is not one.
 */
int maildate_parse(const char *s, time_t *out);

/* "YYYY-MM-DD" into the start of that day, UTC; -1 when malformed. */
int maildate_parse_day(const char *s, time_t *out);

#endif
