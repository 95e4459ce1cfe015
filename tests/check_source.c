/*
 * check_source.c - the source drivers (daemon/source.h) through their ops
 * alone, without a daemon: a Maildir source opened, polled into a
 * source_cb that records what it got, marked seen, searched by
 * Message-ID; a folder's start through the env the daemon would give.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/source.h"
#include "store/store.h"
#include "testhelp.h"

static char dir[64];

/* dir/rel, in a static buffer. */
static const char *in_dir(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return p;
}

/* A mail whose Message-ID is <msgid> at rel. */
static void put(const char *rel, const char *msgid)
{
	FILE *f = fopen(in_dir(rel), "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "From: a@example.org\nSubject: s\nMessage-ID: <%s>\n\nbody of %s\n", msgid,
		msgid);
	fclose(f);
}

static bool exists(const char *rel)
{
	return access(in_dir(rel), F_OK) == 0;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "check_source.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mkdir(in_dir("new"), 0700), 0);
	ck_assert_int_eq(mkdir(in_dir("cur"), 0700), 0);
	ck_assert_int_eq(mkdir(in_dir("tmp"), 0700), 0);
	put("new/1000.a.host", "one@example.org");
	put("new/1001.b.host", "two@example.org");
	put("cur/0999.c.host:2,S", "old@example.org");
}

static void teardown(void)
{
	th_rm_rf(dir);
}

/* What a poll handed over. */
struct got {
	char *names[8];
	bool read[8];		/* with its bytes, its own Message-ID in them */
	size_t n;
	int ends;		/* end() calls */
	int full_after;		/* take answers SOURCE_FULL after this many (0: never) */
};

static int take(void *aux, const struct origin *o, const char *raw, size_t len, struct err *e)
{
	struct got *g = aux;

	(void)e;
	ck_assert_uint_lt(g->n, 8);
	ck_assert_ptr_nonnull(o->name);
	ck_assert_uint_eq(o->uid, 0);
	g->read[g->n] = raw && memmem(raw, len, "body of", 7);
	g->names[g->n++] = strdup(o->name);
	return g->full_after && g->n % g->full_after == 0 ? SOURCE_FULL : SOURCE_MORE;
}

static int end(void *aux, struct err *e)
{
	struct got *g = aux;

	(void)e;
	g->ends++;
	return SOURCE_MORE;
}

static void got_release(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->names[i]);
	memset(g, 0, sizeof(*g));
}

static struct config_source maildir_config(bool mark_seen)
{
	struct config_source c = { .type = SOURCE_MAILDIR, .path = dir, .mark_seen = mark_seen,
				   .batch = 50 };

	return c;
}

/* new/ only, in name order, each with its bytes; then marked seen: in cur/. */
START_TEST(test_maildir_poll_mark_seen)
{
	struct config_source c = maildir_config(true);
	struct source_env env = { 0 };
	struct got g = { 0 };
	struct source_cb cb = { take, end, &g };
	struct source_marks m = { 0 };
	struct source *s = daemon_source_new(&c, &env);
	struct err e;

	ck_assert_str_eq(s->ops->name, "maildir");
	ck_assert_ptr_eq(s->env, &env);
	ck_assert(!strncmp(s->id, "maildir:check_source.", 21));
	ck_assert(!s->ops->connected(s));
	ck_assert_int_eq(s->ops->open(s, &e), 0);
	ck_assert(s->ops->connected(s));
	ck_assert(!s->ops->wait && !s->ops->can_idle);
	ck_assert(s->ops->local);

	ck_assert_int_eq(s->ops->poll(s, &cb, &e), 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_str_eq(g.names[0], "new/1000.a.host");
	ck_assert_str_eq(g.names[1], "new/1001.b.host");
	ck_assert(g.read[0] && g.read[1]);
	ck_assert_int_eq(g.ends, 1);

	m.names = g.names;
	m.nnames = 1;
	s->ops->mark_seen(s, &m);
	ck_assert(!exists("new/1000.a.host"));
	ck_assert(exists("cur/1000.a.host:2,S"));
	ck_assert(exists("new/1001.b.host"));

	s->ops->close(s);
	ck_assert(!s->ops->connected(s));
	daemon_source_free(s);
	got_release(&g);
}
END_TEST

/* A full batch ends before the next message; without mark_seen, the next
 * poll passes over what the last one handled, and sees a new file. */
START_TEST(test_maildir_batches_and_done)
{
	struct config_source c = maildir_config(false);
	struct source_env env = { 0 };
	struct got g = { .full_after = 1 };
	struct source_cb cb = { take, end, &g };
	struct source *s = daemon_source_new(&c, &env);
	struct err e;

	ck_assert_int_eq(s->ops->open(s, &e), 0);
	ck_assert_int_eq(s->ops->poll(s, &cb, &e), 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_int_eq(g.ends, 3);	/* after each, and at the poll's end */
	got_release(&g);

	put("new/1002.d.host", "three@example.org");
	ck_assert_int_eq(s->ops->poll(s, &cb, &e), 0);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_str_eq(g.names[0], "new/1002.d.host");
	got_release(&g);
	daemon_source_free(s);
}
END_TEST

/* Cc mode's search: the Maildir's mail by Message-ID, in new/ and cur/. */
START_TEST(test_maildir_find_msgid)
{
	struct config_source c = maildir_config(false);
	struct source_env env = { 0 };
	struct source *s = daemon_source_new(&c, &env);
	struct buf out;
	bool found = true;
	struct err e;

	buf_init(&out, 0);
	ck_assert_int_eq(s->ops->open(s, &e), 0);
	ck_assert_str_eq(s->ops->place, "maildir");
	s->ops->find_msgid(s, "<old@example.org>", &out, &found);
	ck_assert(found);
	ck_assert_ptr_nonnull(memmem(out.data, out.len, "body of old@example.org", 23));
	s->ops->find_msgid(s, "two@example.org", &out, &found);
	ck_assert(found);
	ck_assert_ptr_nonnull(memmem(out.data, out.len, "body of two@example.org", 23));
	s->ops->find_msgid(s, "<nothere@example.org>", &out, &found);
	ck_assert(!found);
	buf_release(&out);
	daemon_source_free(s);
}
END_TEST

/* What each driver can do beyond polling, as the loop asks it. */
START_TEST(test_driver_ops)
{
	struct config_source ci = { .type = SOURCE_IMAP, .host = "h", .user = "u", .folder = "INBOX" };
	struct config_source cn = { .type = SOURCE_NNTP, .host = "h", .port = 119 };
	struct source_env env = { 0 };
	struct source *i = daemon_source_new(&ci, &env), *n = daemon_source_new(&cn, &env);

	ck_assert_str_eq(i->id, "imap:u@h");
	ck_assert_str_eq(i->one.name, "INBOX");
	ck_assert(!i->ops->connected(i));
	ck_assert(i->ops->wait && i->ops->mark_seen && i->ops->find_msgid && i->ops->find_copy);
	ck_assert(!i->ops->can_idle(i));	/* not connected */
	ck_assert(!i->ops->local && !n->ops->local);
	ck_assert_str_eq(n->id, "nntp:h:119");
	ck_assert(!n->ops->connected(n));
	ck_assert(!n->ops->wait && !n->ops->can_idle && !n->ops->mark_seen &&
		  !n->ops->find_msgid && !n->ops->find_copy);
	daemon_source_free(i);
	daemon_source_free(n);
}
END_TEST

static uint32_t hold_below_5(void *aux, uint32_t last_uid)
{
	(void)aux;
	return last_uid > 4 ? 4 : last_uid;
}

/* A folder's start goes to the env's store, held where the env says. */
/* The checkpoint the store has of folder of imap:u@h; fails when none. */
static struct store_checkpoint stored(struct store *st, const char *folder)
{
	struct store_checkpoint cp = { 0, 0 };
	bool found = false;
	struct err e;

	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:u@h", folder },
				&cp, &found, &e), 0);
	ck_assert(found);
	return cp;
}

START_TEST(test_folder_start_env)
{
	struct config_source c = { .type = SOURCE_IMAP, .host = "h", .user = "u",
				   .folder = "INBOX", .backfill = true };
	struct source_env env = { .hold = hold_below_5 };
	struct folder_numbers n = { RENUMBER_UIDVALIDITY, 7, 1, 11 };
	struct source *s;
	struct err e;

	env.st = th_store_open();
	s = daemon_source_new(&c, &env);
	/* first start with backfill: from the first; the store keeps it */
	ck_assert_int_eq(daemon_folder_start(s, &s->one, &n, &e), 0);
	ck_assert_uint_eq(s->one.cp.uidvalidity, 7);
	ck_assert_uint_eq(s->one.cp.last_uid, 0);
	ck_assert_uint_eq(stored(env.st, "INBOX").uidvalidity, 7);
	/* a UIDVALIDITY change: from the first again, rescanning to the top */
	s->one.cp.last_uid = 9;
	n.valid = 8;
	ck_assert_int_eq(daemon_folder_start(s, &s->one, &n, &e), 0);
	ck_assert_uint_eq(s->one.rescan_until, 10);
	ck_assert_uint_eq(stored(env.st, "INBOX").uidvalidity, 8);
	ck_assert_uint_eq(stored(env.st, "INBOX").last_uid, 0);
	daemon_source_free(s);
	/* first start without backfill: from the top, but the store is not
	 * told past what the env holds */
	c.backfill = false;
	c.folder = "Other";
	s = daemon_source_new(&c, &env);
	ck_assert_int_eq(daemon_folder_start(s, &s->one, &n, &e), 0);
	ck_assert_uint_eq(s->one.cp.last_uid, 10);
	ck_assert_uint_eq(stored(env.st, "Other").last_uid, 4);
	daemon_source_free(s);
	store_close(env.st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("maildir");
	TCase *tf = tcase_create("folder");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_maildir_poll_mark_seen);
	tcase_add_test(tc, test_maildir_batches_and_done);
	tcase_add_test(tc, test_maildir_find_msgid);
	tcase_add_test(tc, test_driver_ops);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tf, th_scratch_setup, th_scratch_teardown);
	tcase_add_test(tf, test_folder_start_env);
	suite_add_tcase(s, tf);
	return th_run_suite(s);
}
