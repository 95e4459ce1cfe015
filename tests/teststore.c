/*
 * teststore.c - testhelp.h's scratch store.
 */
#include "autoconf.h"
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

#include "config/secret.h"
#include "lib/buf.h"
#include "store/store.h"
#include "testhelp.h"

char th_dir[64], th_dbpath[128];

const char *th_pg_url(void)
{
	const char *url = getenv("TAGBOT_TEST_PG_URL");

	return url && *url ? url : NULL;
}

void th_scratch_setup(void)
{
	const char *reset = getenv("TAGBOT_TEST_PG_RESET");

	snprintf(th_dir, sizeof(th_dir), "%.40s.XXXXXX", program_invocation_short_name);
	ck_assert_ptr_nonnull(mkdtemp(th_dir));
	snprintf(th_dbpath, sizeof(th_dbpath), "%s/state.db", th_dir);
	if (th_pg_url())
		ck_assert_msg(reset && system(reset) == 0, "TAGBOT_TEST_PG_RESET (%s) failed",
			      reset ? reset : "not set");
}

void th_scratch_teardown(void)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[160];

	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		snprintf(p, sizeof(p), "%s%s", th_dbpath, suffix[i]);
		unlink(p);
	}
	rmdir(th_dir);
}

struct store *th_store_open(void)
{
	struct store_settings s;
	struct store *st;
	struct err e;

	const char *pwfile = getenv("TAGBOT_TEST_PG_PASSWORD_FILE");
	char *password = NULL;

	store_settings_init(&s);
	s.path = th_pg_url() ? th_pg_url() : th_dbpath;
	err_init(&e);
	if (th_pg_url() && pwfile && *pwfile)
		ck_assert_msg(secret_read_file(pwfile, &password, &e) == 0, "%s", e.msg);
	s.password = password;
	ck_assert_msg(store_open(&st, &s, &e) == 0, "store_open: %s", e.msg);
	secret_free(password);
	return st;
}
