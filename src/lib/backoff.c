/*
 * backoff.c - see backoff.h.
 */
#include "autoconf.h"

#include "lib/backoff.h"

double backoff_delay(unsigned n, double first, double cap, bool jitter, double random01)
{
	double step = first;

	/* 0 doubled stays 0: no need to count up to a large n for it */
	if (!(step > 0))
		return 0;
	for (unsigned i = 0; i < n && step < cap; i++)
		step *= 2;
	if (step > cap)
		step = cap;
	if (!jitter)
		return step;
	if (!(random01 >= 0))	/* NaN too */
		random01 = 0;
	if (random01 > 1)
		random01 = 1;
	return step / 2 + step / 2 * random01;
}
