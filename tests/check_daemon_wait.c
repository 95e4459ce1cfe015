/*
 * check_daemon_wait.c - when the daemon's loop wakes for a source: at the
 * end of a source's back-off, also when the clock has passed that end
 * before the loop went to sleep (the retry is due then, not in a
 * poll_interval); and when another daemon's claim of its folder ends.
 */
#include "autoconf.h"
#include <time.h>

#include "daemon/daemon_p.h"
#include "testhelp.h"

#define NOW	((time_t)1765000000)

START_TEST(test_due)
{
	struct config_source c = { .poll_interval = 300 };
	struct source s = { .c = &c };
	struct daemon d = { .sources.n = 1 };

	/* no back-off: one source alone is due a poll_interval from now */
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW + 300);
	/* a back-off running: its end */
	s.retry_at = NOW + 5;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW + 5);
	/* a back-off that ran out while the loop finished its round: due
	 * now, not in 300 s (the source was not polled since) */
	s.retry_at = NOW;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW);
	s.retry_at = NOW - 2;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW - 2);
	/* among several, without a back-off: its own next poll */
	d.sources.n = 2;
	s.retry_at = 0;
	s.next_poll = NOW + 7;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW + 7);
	s.retry_at = NOW + 1;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW + 1);
}
END_TEST

/* Among several sources, one whose folder another daemon holds a claim of
 * is polled when that claim's lease ends, before its poll_interval. */
START_TEST(test_due_claim)
{
	struct daemon_opts o = { 0 };
	struct config_source c = { .poll_interval = 300 };
	struct source s = { .c = &c, .next_poll = NOW + 300 };
	struct daemon d = { .sources.n = 2, .o = &o };

	ck_assert(!daemon_source_due(&d, &s, NOW));
	s.one.claim_wake = NOW + 20;
	ck_assert_int_eq(daemon_source_due_at(&d, &s, NOW), NOW + 20);
	ck_assert(!daemon_source_due(&d, &s, NOW + 19));
	ck_assert(daemon_source_due(&d, &s, NOW + 20));
	/* a back-off still rules */
	s.retry_at = NOW + 60;
	ck_assert(!daemon_source_due(&d, &s, NOW + 20));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon_wait");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_due);
	tcase_add_test(tc, test_due_claim);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
