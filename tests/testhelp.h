/*
 * testhelp.h - shared helpers for the Check suites: fixtures and running
 * (testhelp.c), mail and findings (testmail.c), a scratch store
 * (teststore.c), libcurl's global state (testnet.c).  They sit in one
 * static library, so a suite links only the files whose helpers it calls.
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
 * the default severities) and appends to fs (initialised by the caller).
 * Fails the test when the mail does not parse.
 */
void th_check_mail(const char *raw, const struct rule_settings *settings, struct findings *fs);

/* How many findings of rule id fs holds. */
size_t th_count(const struct findings *fs, const char *id);

/* All findings as "LINE:RULE" lines, for failure messages. Static buffer. */
const char *th_dump(const struct findings *fs);

/*
 * A scratch store for the suites that open one.  th_scratch_setup() (a
 * checked fixture's setup) makes a fresh directory PROGRAM.XXXXXX in the
 * current one, th_dir, and names th_dbpath (th_dir/state.db, not created);
 * th_scratch_teardown() removes that database with its -wal, -shm and
 * -journal files, and the directory when nothing else is left in it.
 *
 *	tcase_add_checked_fixture(tc, th_scratch_setup, th_scratch_teardown);
 *	st = th_store_open();
 *
 * With TAGBOT_TEST_PG_URL set (tests/integration/store-pg.sh sets it),
 * th_store_open() opens that PostgreSQL database instead, with the
 * password in TAGBOT_TEST_PG_PASSWORD_FILE, and th_scratch_setup() empties
 * it first by running the command TAGBOT_TEST_PG_RESET.
 */
extern char th_dir[64], th_dbpath[128];
/* TAGBOT_TEST_PG_URL, or NULL: the scratch store is SQLite's. */
const char *th_pg_url(void);
void th_scratch_setup(void);
void th_scratch_teardown(void);

struct store;
/* store_open() on th_dbpath with the default settings; fails the test when
 * it fails. */
struct store *th_store_open(void);

/* Removes path, a directory with all in it or a file. */
void th_rm_rf(const char *path);

/* Runs one suite; returns the process exit status for a Check test program. */
int th_run_suite(Suite *s);
/* th_run_suite() inside libcurl's global state, set up and torn down as
 * main() does, for the suites of modules that use libcurl. */
int th_run_suite_transport(Suite *s);

#endif
