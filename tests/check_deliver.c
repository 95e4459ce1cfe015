/*
 * check_deliver - the outbox drain (deliver.c) against a real store and a
 * scripted sink: a synchronous one (send) and an asynchronous one
 * (start/finish) that holds up to s.parallel replies and hands them back
 * in the order the test says.  What must hold: every claim is committed
 * before its reply reaches the sink (a second connection to the database
 * sees attempts > 0 at that moment), each reply reaches the sink once even
 * when it is with the sink longer than its hold, outcomes are recorded,
 * and a temporary failure stops further claims.  A fault of the sink
 * (ERR_SETUP) puts its reply back as it was (no attempt counted, due at
 * once) and ends the drain with that error; a note with a success
 * (recipients dropped) is kept with the sent reply.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "daemon/deliver.h"
#include "store/store.h"
#include "testhelp.h"

#define NREPLIES	6
#define SINK_MAX	8

static const char *const rcpt[] = { "author@example.org", "bot@example.org" };
static const char raw[] = "From: tagbot <bot@example.org>\r\n\r\nhello\r\n";

/* A store with NREPLIES replies queued: r0@bot ... r5@bot. */
static struct store *queued_store(void)
{
	struct store *st = th_store_open();
	struct err e;

	for (int i = 0; i < NREPLIES; i++) {
		char parent[32], reply[32];
		struct store_message m = {
			.msgid = parent, .source = "maildir:x", .folder = "", .kind = "patch",
			.decision = STORE_REPLIED, .reply_msgid = reply, .time = 1000,
		};
		struct store_outgoing o = {
			.reply_msgid = reply, .parent_msgid = parent,
			.envelope_from = "bot@example.org", .rcpt = rcpt, .nrcpt = 2,
			.raw = raw, .len = sizeof(raw) - 1,
		};
		enum store_enqueue q;

		snprintf(parent, sizeof(parent), "p%d@example.org", i);
		snprintf(reply, sizeof(reply), "r%d@bot", i);
		ck_assert_msg(store_record_reply(st, &m, &o, 1000, &q, &e) == 0, "%s", e.msg);
		ck_assert_int_eq(q, STORE_QUEUED);
	}
	return st;
}

/* An integer column of reply's outbox row, as another process reading the
 * file would see it; -1 without the row. */
static long committed_column(const char *column, const char *reply)
{
	char sql[128];
	sqlite3 *db;
	sqlite3_stmt *s;
	long n = -1;

	snprintf(sql, sizeof(sql), "SELECT %s FROM outbox WHERE reply_msgid = ?1", column);
	ck_assert_int_eq(sqlite3_open_v2(th_dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, reply, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* The scripted sink. */
struct sink {
	time_t now;				/* the drain's clock; 0: the time of day */
	struct outbox_item *held[SINK_MAX];	/* with the sink, oldest first */
	size_t nheld, most;			/* now, and the most at once */
	char started[NREPLIES * 4][32];		/* every reply handed over, in order */
	size_t nstarted;
	bool temp_first;			/* the first outcome is ERR_TEMP */
	bool failed_once;
	const char *final_fail;			/* this reply fails with ERR_FINAL */
	const char *setup_fail;			/* this reply meets ERR_SETUP */
	const char *noted;			/* this one is sent with a note */
};

static void note_start(struct sink *k, const struct outbox_item *it)
{
	ck_assert_msg(committed_column("attempts", it->reply_msgid) > 0,
		      "<%s> reached the sink before its claim was committed", it->reply_msgid);
	ck_assert_uint_lt(k->nstarted, sizeof(k->started) / sizeof(k->started[0]));
	snprintf(k->started[k->nstarted++], sizeof(k->started[0]), "%s", it->reply_msgid);
}

static int outcome(struct sink *k, const struct outbox_item *it, struct err *e)
{
	if (k->temp_first && !k->failed_once) {
		k->failed_once = true;
		return err_set(e, ERR_TEMP, "connection lost");
	}
	if (k->final_fail && !strcmp(it->reply_msgid, k->final_fail))
		return err_set(e, ERR_FINAL, "550 no such user");
	if (k->setup_fail && !strcmp(it->reply_msgid, k->setup_fail))
		return err_set(e, ERR_SETUP, "535 authentication failed");
	if (k->noted && !strcmp(it->reply_msgid, k->noted))
		snprintf(e->msg, sizeof(e->msg), "refused recipient, not sent to: cc@example.org");
	return 0;
}

static int sink_send(void *arg, const struct outbox_item *it, struct err *e)
{
	note_start(arg, it);
	return outcome(arg, it, e);
}

static int sink_start(void *arg, struct outbox_item *it, struct err *e)
{
	struct sink *k = arg;

	(void)e;
	note_start(k, it);
	ck_assert_uint_lt(k->nheld, SINK_MAX);
	k->held[k->nheld++] = it;
	if (k->nheld > k->most)
		k->most = k->nheld;
	return 0;
}

/* Hands back the oldest: the others stay with the sink meanwhile. */
static enum handover sink_finish(void *arg, bool wait, struct outbox_item **it,
				 struct err *e)
{
	struct sink *k = arg;

	(void)wait;
	if (!k->nheld)
		return HANDOVER_NONE;
	*it = k->held[0];
	memmove(k->held, k->held + 1, --k->nheld * sizeof(k->held[0]));
	return outcome(k, *it, e) < 0 ? HANDOVER_FAILED : HANDOVER_SENT;
}

static size_t times_started(const struct sink *k, const char *reply)
{
	size_t n = 0;

	for (size_t i = 0; i < k->nstarted; i++)
		n += !strcmp(k->started[i], reply);
	return n;
}

static time_t sink_now(void *arg)
{
	const struct sink *k = arg;

	return k->now ? k->now : time(NULL);
}

static struct store_counts drain(struct store *st, struct sink *k, bool async, long hold,
				 int want_rc, struct deliver_stats *ds)
{
	struct deliver_ops ops = { .send = sink_send, .now = sink_now, .arg = k };
	struct deliver_settings s = { .hold = hold, .parallel = 4 };
	struct store_counts c;
	struct err e;

	if (async) {
		ops.send = NULL;
		ops.start = sink_start;
		ops.finish = sink_finish;
	}
	memset(ds, 0, sizeof(*ds));
	err_init(&e);
	ck_assert_msg(deliver_drain(st, &ops, &s, ds, &e) == want_rc, "%s", e.msg);
	if (want_rc < 0) {
		ck_assert_int_eq(e.cls, ERR_SETUP);
		ck_assert_str_eq(e.msg, "535 authentication failed");
	}
	ck_assert_msg(store_counts(st, &c, &e) == 0, "%s", e.msg);
	return c;
}

static const struct drain_case {
	bool async;
	long hold;		/* 0: a reply with the sink is due again at once */
	bool temp_first;
	const char *final_fail;
	long sent, failed, queued;
	size_t most;		/* replies with the sink at once */
	const char *setup_fail, *noted;
} cases[] = {
	{ false, 120, false, NULL, 6, 0, 0, 0, NULL, NULL },
	{ false, 120, false, "r2@bot", 5, 1, 0, 0, NULL, NULL },
	{ true, 120, false, NULL, 6, 0, 0, 4, NULL, NULL },
	{ true, 0, false, NULL, 6, 0, 0, 4, NULL, NULL },
	{ true, 120, false, "r1@bot", 5, 1, 0, 4, NULL, NULL },
	/* The first back fails for now: the three with the sink already go
	 * out, the last two are not claimed (the server is likely down). */
	{ true, 120, true, NULL, 3, 0, 3, 4, NULL, NULL },
	/* The same one at a time: nothing after the first is claimed. */
	{ false, 120, true, NULL, 0, 0, 6, 0, NULL, NULL },
	/* The sink is broken: the drain ends, r0 is queued as before, the
	 * ones with the sink already come back sent. */
	{ false, 120, false, NULL, 0, 0, 6, 0, "r0@bot", NULL },
	{ true, 120, false, NULL, 3, 0, 3, 4, "r0@bot", NULL },
	/* Sent, a Cc dropped: the note stays with the reply. */
	{ true, 120, false, NULL, 6, 0, 0, 4, NULL, "r2@bot" },
};

/* attempts, next_attempt and last_error of reply, as committed. */
static void committed_row(const char *reply, int *attempts, long *next, char *err, size_t n)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_open_v2(th_dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT attempts, next_attempt, last_error FROM outbox"
					    " WHERE reply_msgid = ?1", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, reply, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	*attempts = sqlite3_column_int(s, 0);
	*next = (long)sqlite3_column_int64(s, 1);
	snprintf(err, n, "%s", (const char *)sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

START_TEST(test_drain)
{
	const struct drain_case *c = &cases[_i];
	struct store *st = queued_store();
	struct sink k = { .temp_first = c->temp_first, .final_fail = c->final_fail,
			  .setup_fail = c->setup_fail, .noted = c->noted };
	struct deliver_stats ds;
	struct store_counts n = drain(st, &k, c->async, c->hold, c->setup_fail ? -1 : 0, &ds);
	char err[256];
	long next;
	int attempts;

	ck_assert_int_eq(n.sent, c->sent);
	ck_assert_int_eq(n.failed, c->failed);
	ck_assert_int_eq(n.queued, c->queued);
	ck_assert_uint_eq(ds.sent, (size_t)c->sent);
	ck_assert_uint_eq(ds.failed, (size_t)c->failed);
	ck_assert_uint_eq(k.most, c->most);
	ck_assert_uint_eq(k.nheld, 0);
	for (int i = 0; i < NREPLIES; i++) {
		char reply[32];

		snprintf(reply, sizeof(reply), "r%d@bot", i);
		ck_assert_msg(times_started(&k, reply) <= 1, "<%s> handed over %zu times", reply,
			      times_started(&k, reply));
	}
	if (c->setup_fail) {
		committed_row(c->setup_fail, &attempts, &next, err, sizeof(err));
		ck_assert_int_eq(attempts, 0);
		ck_assert_int_le(next, (long)time(NULL));
		ck_assert_str_eq(err, "waiting for the sink: 535 authentication failed");
	}
	if (c->noted) {
		ck_assert_uint_eq(ds.dropped, 1);
		committed_row(c->noted, &attempts, &next, err, sizeof(err));
		ck_assert_int_eq(attempts, 2);	/* the claim and the outcome */
		ck_assert_str_eq(err, "refused recipient, not sent to: cc@example.org");
	}
	store_close(st);
}
END_TEST

/* The drain reads the time from its caller's clock, never the time of day:
 * a reply is due, claimed and marked sent by it. */
START_TEST(test_drain_clock)
{
	struct store *st = queued_store();
	struct sink k = { .now = 5000000 };
	struct deliver_stats ds;
	struct store_counts n = drain(st, &k, _i == 1, 120, 0, &ds);

	ck_assert_int_eq(n.sent, NREPLIES);
	for (int i = 0; i < NREPLIES; i++) {
		char reply[32];

		snprintf(reply, sizeof(reply), "r%d@bot", i);
		ck_assert_int_eq(committed_column("sent_time", reply), 5000000);
	}
	store_close(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("deliver");
	TCase *t = tcase_create("drain");

	tcase_add_checked_fixture(t, th_scratch_setup, th_scratch_teardown);
	tcase_add_loop_test(t, test_drain, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(t, test_drain_clock, 0, 2);
	suite_add_tcase(s, t);
	return th_run_suite(s);
}
