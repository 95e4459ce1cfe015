/*
 * teststore.c - testhelp.h's scratch store.
 */
#include "autoconf.h"
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/buf.h"
#include "store/store.h"
#include "testhelp.h"

char th_dir[64], th_dbpath[128];

void th_scratch_setup(void)
{
	snprintf(th_dir, sizeof(th_dir), "%.40s.XXXXXX", program_invocation_short_name);
	ck_assert_ptr_nonnull(mkdtemp(th_dir));
	snprintf(th_dbpath, sizeof(th_dbpath), "%s/state.db", th_dir);
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

	store_settings_init(&s);
	s.path = th_dbpath;
	err_init(&e);
	ck_assert_msg(store_open(&st, &s, &e) == 0, "store_open: %s", e.msg);
	return st;
}
