/*
 * testhelp.c - fixtures and running a suite; testmail.c, teststore.c and
 * testnet.c hold the helpers that need mail/ and rules/, store/ or
 * transport/, so that a suite links only the modules it uses.
 */
#include "autoconf.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "testhelp.h"

char *th_read_data(const char *name, size_t *len)
{
	char path[4096];
	struct buf b;
	char chunk[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open fixture %s", path);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ck_assert(buf_add(&b, chunk, n) == 0);
	fclose(f);
	return buf_detach(&b, len);
}

void th_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char p[512];

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		th_rm_rf(p);
	}
	closedir(d);
	rmdir(path);
}

int th_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
