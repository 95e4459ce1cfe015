#include "autoconf.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/maildir.h"
#include "testhelp.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "check_maildir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	th_rm_rf(dir);
}

static void put(const char *rel, const char *content)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	fclose(f);
}

static bool exists(const char *rel)
{
	char p[512];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &sb) == 0;
}

static size_t count_dir(const char *sub)
{
	char p[512];
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	d = opendir(p);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void open_md(struct maildir *md)
{
	struct err e;

	ck_assert_msg(maildir_open(md, dir, true, &e) == 0, "open: %s", e.msg);
}

START_TEST(test_open_create)
{
	static const char *const subs[] = { "cur", "new", "tmp" };
	struct maildir md;
	struct stat sb;
	char p[512];
	struct err e;

	/* Without create, an empty directory is not a Maildir. */
	err_init(&e);
	ck_assert_int_eq(maildir_open(&md, dir, false, &e), -1);
	ck_assert_msg(strstr(e.msg, dir) != NULL, "%s", e.msg);
	ck_assert_ptr_null(md.path);
	open_md(&md);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, subs[i]);
		ck_assert_int_eq(stat(p, &sb), 0);
		ck_assert(S_ISDIR(sb.st_mode));
		ck_assert_int_eq(sb.st_mode & 077, 0);
	}
	maildir_release(&md);
	ck_assert_int_eq(maildir_open(&md, dir, false, &e), 0);
	maildir_release(&md);
	ck_assert_int_eq(maildir_open(&md, "", false, &e), -1);
}
END_TEST

START_TEST(test_list_order_and_filter)
{
	struct maildir md;
	struct maildir_list l;
	char p[512];
	struct err e;

	open_md(&md);
	put("new/2", "b");
	put("new/10", "c");
	put("new/1", "a");
	put("new/.hidden", "x");
	put("cur/0:2,S", "old");
	put("tmp/9", "partial");
	snprintf(p, sizeof(p), "%s/new/sub", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/new/zlink", dir);
	ck_assert_int_eq(symlink("../new/1", p), 0);

	maildir_list_init(&l);
	ck_assert_int_eq(maildir_list(&md, false, &l, &e), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.names[0], "new/1");	/* name order, strcmp */
	ck_assert_str_eq(l.names[1], "new/10");
	ck_assert_str_eq(l.names[2], "new/2");
	ck_assert_int_eq(maildir_list(&md, true, &l, &e), 0);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_str_eq(l.names[3], "cur/0:2,S");	/* backfill: cur/ after new/ */
	maildir_list_release(&l);
	maildir_release(&md);
}
END_TEST

START_TEST(test_read_and_caps)
{
	struct maildir md;
	struct buf b;
	struct err e;

	open_md(&md);
	put("new/a", "Subject: x\n\nbody\n");
	buf_init(&b, 0);
	ck_assert_int_eq(maildir_read(&md, "new/a", &b, 1024, &e), 0);
	ck_assert_str_eq(b.data, "Subject: x\n\nbody\n");
	err_init(&e);
	ck_assert_int_eq(maildir_read(&md, "new/a", &b, 10, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_msg(strstr(e.msg, "new/a") != NULL, "%s", e.msg);
	ck_assert_int_eq(maildir_read(&md, "new/missing", &b, 1024, &e), -1);
	buf_release(&b);
	maildir_release(&md);
}
END_TEST

/* A name from anywhere but maildir_list cannot reach outside the Maildir. */
START_TEST(test_bad_names)
{
	static const char *const bad[] = {
		"../x", "new/../../etc/passwd", "new/.hidden", "tmp/x", "new/", "cur/a/b",
		"new", "/etc/passwd", "NEW/a", "",
	};
	struct maildir md;
	struct buf b;
	char *nn;
	struct err e;

	open_md(&md);
	buf_init(&b, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(maildir_read(&md, bad[i], &b, 1024, &e) == -1, "read %s", bad[i]);
		ck_assert_msg(maildir_mark_seen(&md, bad[i], &nn, &e) == -1, "mark %s", bad[i]);
		ck_assert_ptr_null(nn);
	}
	buf_release(&b);
	maildir_release(&md);
}
END_TEST

START_TEST(test_seen_name)
{
	static const struct {
		const char *in, *out;	/* out NULL: nothing to change */
	} cases[] = {
		{ "1700.M1P2.host", "1700.M1P2.host:2,S" },
		{ "a:2,", "a:2,S" },
		{ "a:2,F", "a:2,FS" },
		{ "a:2,T", "a:2,ST" },
		{ "a:2,FRT", "a:2,FRST" },
		{ "a:2,Fa", "a:2,FSa" },	/* lower-case flags sort after 'S' */
		{ "a:2,S", NULL },
		{ "a:2,RS", NULL },
		{ "a:1,experimental", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = maildir_seen_name(cases[i].in);

		if (!cases[i].out)
			ck_assert_msg(got == NULL, "%s -> %s", cases[i].in, got);
		else
			ck_assert_msg(got && !strcmp(got, cases[i].out), "%s -> %s", cases[i].in,
				      got ? got : "(null)");
		free(got);
	}
}
END_TEST

START_TEST(test_mark_seen)
{
	static const struct {
		const char *before, *after;
	} cases[] = {
		{ "new/m1", "cur/m1:2,S" },
		{ "cur/m2:2,FR", "cur/m2:2,FRS" },
		{ "cur/m3:2,RS", "cur/m3:2,RS" },
		{ "cur/m4", "cur/m4:2,S" },
	};
	struct maildir md;
	struct buf b;
	char *nn;
	struct err e;

	open_md(&md);
	buf_init(&b, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		put(cases[i].before, cases[i].before);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(maildir_mark_seen(&md, cases[i].before, &nn, &e) == 0, "%s", e.msg);
		ck_assert_str_eq(nn, cases[i].after);
		ck_assert(exists(cases[i].after));
		if (strcmp(cases[i].before, cases[i].after))
			ck_assert(!exists(cases[i].before));
		/* The content moved with the name. */
		ck_assert_int_eq(maildir_read(&md, nn, &b, 1024, &e), 0);
		ck_assert_str_eq(b.data, cases[i].before);
		free(nn);
	}
	ck_assert_uint_eq(count_dir("new"), 0);
	ck_assert_uint_eq(count_dir("cur"), 4);
	buf_release(&b);
	maildir_release(&md);
}
END_TEST

/* The file whose header has the Message-ID, by its key: the case of the
 * domain and the brackets do not matter, a Message-ID in the body or
 * under another header name is no match, and max_files bounds the search. */
START_TEST(test_find_msgid)
{
	struct maildir md;
	struct err e;
	char *name;

	open_md(&md);
	put("new/1.a", "Subject: x\nX-Message-ID: <a@Example.org>\n\nMessage-ID: <a@Example.org>\n");
	put("new/2.b", "Subject: y\nMessage-Id: <a@EXAMPLE.org>\n\nbody\n");
	put("cur/3.c:2,S", "Message-ID: <c@example.org>\n\n");
	ck_assert_int_eq(maildir_find_msgid(&md, "a@example.org", 10, &name, &e), 0);
	ck_assert_str_eq(name, "new/2.b");
	free(name);
	ck_assert_int_eq(maildir_find_msgid(&md, "<c@example.ORG>", 10, &name, &e), 0);
	ck_assert_str_eq(name, "cur/3.c:2,S");
	free(name);
	/* cur/ comes after new/: two files looked at do not reach it */
	ck_assert_int_eq(maildir_find_msgid(&md, "c@example.org", 2, &name, &e), 0);
	ck_assert_ptr_null(name);
	ck_assert_int_eq(maildir_find_msgid(&md, "z@example.org", 10, &name, &e), 0);
	ck_assert_ptr_null(name);
	ck_assert_int_eq(maildir_find_msgid(&md, "", 10, &name, &e), 0);
	ck_assert_ptr_null(name);
	maildir_release(&md);
}
END_TEST

START_TEST(test_deliver)
{
	static const char reply[] = "From: tagbot <bot@example.org>\r\nSubject: Re: x\r\n\r\nline\r\n"
				    "a lone \r stays\r\n";
	struct maildir md;
	struct maildir_list l;
	struct buf b;
	struct stat sb;
	char *name, p[512];
	struct err e;

	open_md(&md);
	ck_assert_int_eq(maildir_deliver(&md, reply, sizeof(reply) - 1, &name, &e), 0);
	ck_assert_ptr_nonnull(name);
	ck_assert_int_eq(strncmp(name, "new/", 4), 0);
	ck_assert_ptr_null(strchr(name + 4, '/'));
	ck_assert_ptr_null(strchr(name + 4, ':'));
	ck_assert_uint_eq(count_dir("tmp"), 0);
	ck_assert_uint_eq(count_dir("new"), 1);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 077, 0);

	buf_init(&b, 0);
	ck_assert_int_eq(maildir_read(&md, name, &b, 1 << 20, &e), 0);
	ck_assert_str_eq(b.data, "From: tagbot <bot@example.org>\nSubject: Re: x\n\nline\n"
				 "a lone \r stays\n");
	maildir_list_init(&l);
	ck_assert_int_eq(maildir_list(&md, false, &l, &e), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.names[0], name);
	maildir_list_release(&l);
	buf_release(&b);
	free(name);
	maildir_release(&md);
}
END_TEST

/* Many deliveries in the same microsecond range still get distinct names. */
START_TEST(test_deliver_unique)
{
	enum { N = 200 };
	struct maildir md;
	char *names[N];
	struct err e;

	open_md(&md);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(maildir_deliver(&md, "x\r\n", 3, &names[i], &e), 0);
	ck_assert_uint_eq(count_dir("new"), N);
	for (int i = 0; i < N; i++)
		free(names[i]);
	maildir_release(&md);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("maildir");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_create);
	tcase_add_test(tc, test_list_order_and_filter);
	tcase_add_test(tc, test_read_and_caps);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_seen_name);
	tcase_add_test(tc, test_mark_seen);
	tcase_add_test(tc, test_find_msgid);
	tcase_add_test(tc, test_deliver);
	tcase_add_test(tc, test_deliver_unique);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
