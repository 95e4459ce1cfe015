/*
 * testhelp.h - shared helpers for the Check suites.
 */
#ifndef TAGBOT_TESTHELP_H
#define TAGBOT_TESTHELP_H

#include <check.h>
#include <stddef.h>

/* Reads tests/data/NAME whole; aborts the test when missing. Caller frees. */
char *th_read_data(const char *name, size_t *len);

/* Runs one suite; returns the process exit status for a Check test program. */
int th_run_suite(Suite *s);

#endif
