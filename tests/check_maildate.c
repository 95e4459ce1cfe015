/*
 * check_maildate - RFC 5322 dates and YYYY-MM-DD days.  The expected
 * instants were worked out as UTC by hand (the zone offset subtracted
 * from the local time) and checked with Python's calendar.timegm().
 */
#include "autoconf.h"
#include <stdlib.h>

#include "lib/buf.h"
#include "mail/maildate.h"
#include "testhelp.h"

static const struct {
	const char *s;
	long long t;		/* -1: refused */
} dates[] = {
	{ "Thu, 4 Dec 2025 10:20:30 +0100", 1764840030 },	/* 09:20:30Z */
	{ "4 Dec 2025 10:20:30 +0100", 1764840030 },		/* no day of week */
	{ "Thu,  4 Dec 2025 10:20:30 +0100 (CET)", 1764840030 }, /* a comment */
	{ "Thu, 20 Nov 2025 10:10:12 +0100", 1763629812 },
	{ "Fri, 01 Jan 99 08:00 EST", 915195600 },		/* obsolete: 2-digit year, zone name, no seconds */
	{ "Tue, 1 Jul 2025 00:00:00 +0230", 1751319000 },	/* 30 Jun 21:30Z: the day before */
	{ "Mon, 1 Jan 2024 00:00:00 GMT", 1704067200 },
	{ "", -1 },
	{ "yesterday", -1 },
	{ "Thu, 32 Dec 2025 10:20:30 +0100", -1 },		/* no such day */
	{ "Thu, 4 Foo 2025 10:20:30 +0100", -1 },		/* no such month */
	{ "Thu, 4 Dec 2025 25:20:30 +0100", -1 },		/* no such hour */
	{ "Thu, 4 Dec 2025 10:20:30 +01", -1 },		/* a zone of two digits */
	{ "Thu, 4 Dec 2025", -1 },				/* no time */
};

START_TEST(test_date)
{
	time_t t = 12345;
	int rc = maildate_parse(dates[_i].s, &t);

	if (dates[_i].t < 0) {
		ck_assert_msg(rc == -1, "\"%s\" accepted as %lld", dates[_i].s, (long long)t);
		return;
	}
	ck_assert_msg(rc == 0, "\"%s\" refused", dates[_i].s);
	ck_assert_int_eq((long long)t, dates[_i].t);
}
END_TEST

static const struct {
	const char *s;
	long long t;
} days[] = {
	{ "2026-03-01", 1772323200 },
	{ "2024-02-29", 1709164800 },	/* a leap day */
	{ "2025-02-29", -1 },		/* not a leap year */
	{ "2025-13-01", -1 },
	{ "2025-1-01", -1 },
	{ "2025-01-01x", -1 },
	{ "1969-12-31", -1 },
	{ "", -1 },
};

START_TEST(test_day)
{
	time_t t = 0;
	int rc = maildate_parse_day(days[_i].s, &t);

	if (days[_i].t < 0) {
		ck_assert_msg(rc == -1, "\"%s\" accepted", days[_i].s);
		return;
	}
	ck_assert_msg(rc == 0, "\"%s\" refused", days[_i].s);
	ck_assert_int_eq((long long)t, days[_i].t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("maildate");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_date, 0, ARRAY_SIZE(dates));
	tcase_add_loop_test(tc, test_day, 0, ARRAY_SIZE(days));
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
