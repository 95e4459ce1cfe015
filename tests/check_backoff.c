/*
 * check_backoff - the one back-off rule (lib/backoff.h), with the steps,
 * caps and jitter its callers use: the daemon's reconnects and sink
 * (1 s doubling to 5 min, half to all of the step), the outbox's SMTP
 * retries (30 s doubling to an hour, no jitter) and the unread retries
 * ([source] retry_after doubled, uncapped within the tries).  Every value
 * is exact: doublings of whole numbers, halves and quarters of them.
 */
#include "autoconf.h"
#include <float.h>
#include <limits.h>
#include <math.h>

#include "lib/backoff.h"
#include "lib/buf.h"
#include "testhelp.h"

static const struct {
	unsigned n;
	double first, cap;
	double want;
} steps[] = {
	/* the daemon: 1 s doubling to 5 min */
	{ 0, 1, 300, 1 }, { 1, 1, 300, 2 }, { 2, 1, 300, 4 }, { 3, 1, 300, 8 },
	{ 7, 1, 300, 128 }, { 8, 1, 300, 256 },
	{ 9, 1, 300, 300 },		/* 512: capped */
	{ 10, 1, 300, 300 },
	/* the outbox: 30 s doubling to an hour */
	{ 0, 30, 3600, 30 }, { 1, 30, 3600, 60 }, { 2, 30, 3600, 120 },
	{ 5, 30, 3600, 960 }, { 6, 30, 3600, 1920 },
	{ 7, 30, 3600, 3600 },		/* 3840: capped */
	/* the unread retries: retry_after 300 and 86400, capped at the fourth wait */
	{ 0, 300, 2400, 300 }, { 1, 300, 2400, 600 }, { 2, 300, 2400, 1200 },
	{ 3, 300, 2400, 2400 },
	{ 3, 86400, 691200, 691200 },	/* 8 days: past a week, as it always was */
	/* a large n gives the cap, neither 0 nor a negative value */
	{ 31, 1, 300, 300 }, { 32, 1, 300, 300 }, { 64, 30, 3600, 3600 },
	{ 1000, 1, 300, 300 }, { 1000, 30, 3600, 3600 },
	{ UINT_MAX / 2, 1, 300, 300 },	/* a source whose settings are wrong */
	{ UINT_MAX, 1, 300, 300 }, { UINT_MAX, 30, 3600, 3600 },
	/* a first step past the cap is the cap; none is none */
	{ 0, 100, 50, 50 }, { 5, 100, 50, 50 },
	{ 0, 0, 300, 0 }, { 3, 0, 2400, 0 }, { UINT_MAX, 0, 300, 0 },
	{ UINT_MAX, -1, 300, 0 },
};

START_TEST(test_steps)
{
	double got = backoff_delay(steps[_i].n, steps[_i].first, steps[_i].cap, false, 0);

	ck_assert_msg(got == steps[_i].want, "n %u first %g cap %g: %g, want %g", steps[_i].n,
		      steps[_i].first, steps[_i].cap, got, steps[_i].want);
}
END_TEST

/* Without jitter the random number is not looked at. */
START_TEST(test_no_jitter_ignores_random)
{
	ck_assert_double_eq(backoff_delay(3, 1, 300, false, 0.9), 8);
	ck_assert_double_eq(backoff_delay(3, 1, 300, false, NAN), 8);
	ck_assert_double_eq(backoff_delay(1, 30, 3600, false, 1e9), 60);
}
END_TEST

/* The doubling never goes down, and reaches the cap. */
START_TEST(test_monotonic)
{
	double last = 0;

	for (unsigned n = 0; n < 2000; n++) {
		double d = backoff_delay(n, 30, 3600, false, 0);

		ck_assert_msg(d >= last && d <= 3600, "n %u: %g after %g", n, d, last);
		last = d;
	}
	ck_assert_double_eq(last, 3600);
}
END_TEST

/* The largest finite cap: the doubling stops at it, never at infinity. */
START_TEST(test_no_overflow)
{
	double d = backoff_delay(UINT_MAX, 1, DBL_MAX, false, 0);

	ck_assert(isfinite(d));
	ck_assert_double_eq(d, DBL_MAX);
	ck_assert_double_eq(backoff_delay(UINT_MAX, 1, DBL_MAX, true, 0), DBL_MAX / 2);
}
END_TEST

static const struct {
	unsigned n;
	double r;
	double want;
} jitters[] = {
	/* the daemon's rule, 1 s doubling to 5 min: step / 2 + step / 2 * r */
	{ 0, 0, 0.5 }, { 0, 0.5, 0.75 }, { 0, 1, 1 },
	{ 3, 0, 4 }, { 3, 0.25, 5 }, { 3, 0.5, 6 },
	{ 8, 0.5, 192 }, { 9, 0, 150 }, { 9, 0.5, 225 }, { 9, 1, 300 },
	{ 1000, 0, 150 }, { UINT_MAX, 0.5, 225 },
	/* out of [0, 1]: clamped */
	{ 3, -3, 4 }, { 3, 5, 8 }, { 3, -INFINITY, 4 }, { 3, INFINITY, 8 },
};

START_TEST(test_jitter)
{
	double got = backoff_delay(jitters[_i].n, 1, 300, true, jitters[_i].r);

	ck_assert_msg(got == jitters[_i].want, "n %u r %g: %g, want %g", jitters[_i].n,
		      jitters[_i].r, got, jitters[_i].want);
}
END_TEST

START_TEST(test_jitter_nan)
{
	ck_assert_double_eq(backoff_delay(3, 1, 300, true, NAN), 4);
}
END_TEST

/* Half to all of the step, for the random numbers the daemon draws (a
 * 32-bit number over 2^32: the largest is just below 1). */
START_TEST(test_jitter_range)
{
	static const double r[] = { 0, 1 / 4294967296.0, 0.1, 0.5, 0.9,
				    4294967295 / 4294967296.0 };

	for (unsigned n = 0; n < 40; n++) {
		double step = backoff_delay(n, 1, 300, false, 0);

		for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
			double d = backoff_delay(n, 1, 300, true, r[i]);

			ck_assert_msg(d >= step / 2 && d < step, "n %u r %g: %g, step %g", n,
				      r[i], d, step);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("backoff");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_steps, 0, ARRAY_SIZE(steps));
	tcase_add_test(tc, test_no_jitter_ignores_random);
	tcase_add_test(tc, test_monotonic);
	tcase_add_test(tc, test_no_overflow);
	tcase_add_loop_test(tc, test_jitter, 0, ARRAY_SIZE(jitters));
	tcase_add_test(tc, test_jitter_nan);
	tcase_add_test(tc, test_jitter_range);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
