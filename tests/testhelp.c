#include "autoconf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "config/secret.h"
#include "rules/rules.h"
#include "store/store.h"
#include "testhelp.h"
#include "transport/transport.h"

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

int th_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	/* As main() does: libcurl's global state for the whole run. */
	if (transport_init(NULL) < 0)
		return EXIT_FAILURE;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	transport_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void th_check_mail(const char *raw, const struct rule_settings *settings, struct findings *fs)
{
	struct rule_settings defaults;
	struct message m;
	struct patch *p;
	size_t np;
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, strlen(raw), &e) == 0, "parse: %s", e.msg);
	patch_parse(&m, &p, &np);
	ck_assert_uint_ge(np, 1);
	if (!settings) {
		rule_settings_init(&defaults);
		rules_run(&p[0], &defaults, fs);
		rule_settings_release(&defaults);
	} else {
		rules_run(&p[0], settings, fs);
	}
	patches_free(p, np);
	message_release(&m);
}

size_t th_count(const struct findings *fs, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, id))
			n++;
	return n;
}

const char *th_dump(const struct findings *fs)
{
	static char out[8192];
	size_t off = 0;

	out[0] = '\0';
	for (size_t i = 0; i < fs->n && off < sizeof(out) - 1; i++) {
		int n = snprintf(out + off, sizeof(out) - off, "%zu:%s:%s\n", fs->v[i].line,
				 fs->v[i].rule, fs->v[i].message);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return out;
}

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
