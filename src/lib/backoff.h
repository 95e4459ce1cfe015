/*
 * backoff.h - the one rule of the daemon's waits after a failure: a first
 * step doubled per failure up to a cap, with or without jitter.  The
 * caller keeps the count of failures and, for jitter, draws the random
 * number, so the rule itself is pure and its values can be tested.
 */
#ifndef TAGBOT_BACKOFF_H
#define TAGBOT_BACKOFF_H

#include <stdbool.h>

/*
 * The wait after n earlier waits (0 for the first), in the unit of first
 * and cap (seconds): first doubled n times, at most cap.  The doubling
 * stops at the cap, so a large n (UINT_MAX too) gives cap, quickly and
 * without overflow, as long as cap is finite.  first <= 0 gives 0, and
 * first > cap gives cap.
 * Without jitter, whole numbers in give a whole number out.  With jitter,
 * the wait is step / 2 + step / 2 * random01, half to all of the step:
 * random01 is the caller's, in [0, 1) (a value past 1 counts as 1, one
 * below 0 or NaN as 0); it is not looked at without jitter.
 */
double backoff_delay(unsigned n, double first, double cap, bool jitter, double random01);

#endif
