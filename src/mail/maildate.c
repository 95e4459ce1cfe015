/*
 * maildate.c - the dates of mail headers; see maildate.h.
 */
#include "autoconf.h"
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/maildate.h"
#include "lib/ascii.h"

static const char *const months[] = {
	"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
};

/* Obsolete zone names of RFC 5322 4.3; military zones count as +0000. */
static const struct { const char *name; int minutes; } zones[] = {
	{ "ut", 0 }, { "gmt", 0 }, { "z", 0 }, { "utc", 0 },
	{ "est", -300 }, { "edt", -240 }, { "cst", -360 }, { "cdt", -300 },
	{ "mst", -420 }, { "mdt", -360 }, { "pst", -480 }, { "pdt", -420 },
};

/* Skips white space and (nested) comments. */
static const char *skip_cfws(const char *s)
{
	for (;;) {
		int depth = 0;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (*s != '(')
			return s;
		for (; *s; s++) {
			if (*s == '(')
				depth++;
			else if (*s == ')' && --depth == 0)
				break;
		}
		if (!*s)
			return s;
		s++;
	}
}

/* At most max digits into *v; the end, or NULL when there are none. */
static const char *digits(const char *s, int max, int *v)
{
	int n = 0;

	*v = 0;
	while (n < max && ascii_is_digit((unsigned char)s[n])) {
		*v = *v * 10 + (s[n] - '0');
		n++;
	}
	return n ? s + n : NULL;
}

static const char *parse_zone(const char *s, int *minutes)
{
	size_t n;

	s = skip_cfws(s);
	*minutes = 0;
	if ((*s == '+' || *s == '-') && ascii_is_digit((unsigned char)s[1])) {
		int v;
		const char *end = digits(s + 1, 4, &v);

		if (!end || end - (s + 1) != 4)
			return NULL;
		*minutes = (v / 100) * 60 + v % 100;
		if (*s == '-')
			*minutes = -*minutes;
		return end;
	}
	for (n = 0; ascii_is_alpha((unsigned char)s[n]); n++)
		;
	for (size_t i = 0; i < ARRAY_SIZE(zones) && n; i++)
		if (strlen(zones[i].name) == n && !strncasecmp(s, zones[i].name, n)) {
			*minutes = zones[i].minutes;
			break;
		}
	return s + n;	/* an unknown zone is read as +0000 (RFC 5322 4.3) */
}

/* Day month year of a date-time into tm; the end or NULL. */
static const char *parse_day_month_year(const char *s, struct tm *tm)
{
	int v;

	s = skip_cfws(s);
	if (!(s = digits(s, 2, &tm->tm_mday)))
		return NULL;
	s = skip_cfws(s);
	tm->tm_mon = -1;
	for (size_t i = 0; i < ARRAY_SIZE(months); i++)
		if (!strncasecmp(s, months[i], 3))
			tm->tm_mon = (int)i;
	if (tm->tm_mon < 0)
		return NULL;
	while (ascii_is_alpha((unsigned char)*s))
		s++;
	s = skip_cfws(s);
	{
		const char *start = s;

		if (!(s = digits(s, 4, &v)))
			return NULL;
		if (s - start == 2)
			v += v < 50 ? 2000 : 1900;
		else if (s - start == 3)
			v += 1900;
	}
	tm->tm_year = v - 1900;
	return s;
}

int maildate_parse(const char *s, time_t *out)
{
	struct tm tm;
	int zone;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	s = skip_cfws(s);
	if (ascii_is_alpha((unsigned char)*s)) {	/* day-of-week, */
		while (ascii_is_alpha((unsigned char)*s))
			s++;
		s = skip_cfws(s);
		if (*s == ',')
			s++;
	}
	if (!(s = parse_day_month_year(s, &tm)))
		return -1;
	s = skip_cfws(s);
	if (!(s = digits(s, 2, &tm.tm_hour)) || *s != ':' || !(s = digits(s + 1, 2, &tm.tm_min)))
		return -1;
	if (*s == ':' && !(s = digits(s + 1, 2, &tm.tm_sec)))
		return -1;
	if (!parse_zone(s, &zone))
		return -1;
	if (tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60 || tm.tm_year < 70)
		return -1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = t - (time_t)zone * 60;
	return 0;
}

int maildate_parse_day(const char *s, time_t *out)
{
	struct tm tm;
	int y, m, d;
	const char *p;

	memset(&tm, 0, sizeof(tm));
	if (strlen(s) != 10 || !(p = digits(s, 4, &y)) || p != s + 4 || *p != '-' ||
	    !(p = digits(p + 1, 2, &m)) || p != s + 7 || *p != '-' ||
	    !(p = digits(p + 1, 2, &d)) || *p || y < 1970 || m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	*out = timegm(&tm);
	/* timegm() normalizes 2025-02-30 into March: refuse such a day */
	return tm.tm_mday == d && tm.tm_mon == m - 1 ? 0 : -1;
}
