#include "autoconf.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Only to reach below the API: to prove the schema itself holds the
 * one-reply constraint, and to fake a database from a newer tagbot. */
#include <sqlite3.h>

#include "lib/buf.h"
#include "store/store.h"
#include "testhelp.h"
#include "mail/context.h"
#include "mail/msgid.h"

/* Each test gets a fresh directory under the current (build) directory:
 * th_scratch_setup() (testhelp.h). */
static struct store_message msg(const char *id, enum store_decision d, const char *why)
{
	struct store_message m = {
		.msgid = id, .source = "maildir:inbox", .folder = "", .uid = 7,
		.kind = "patch", .decision = d, .why = why, .time = 1700000000,
	};
	return m;
}

static const char *const rcpt2[] = { "author@example.org", "linux-leds@vger.kernel.org" };
static const char reply_raw[] = "From: tagbot <bot@example.org>\r\n\r\nhello\r\n";

static struct store_outgoing outgoing(const char *reply, const char *parent)
{
	struct store_outgoing o = {
		.reply_msgid = reply, .parent_msgid = parent, .envelope_from = "bot@example.org",
		.rcpt = rcpt2, .nrcpt = 2, .raw = reply_raw, .len = sizeof(reply_raw) - 1,
	};
	return o;
}

static bool seen(struct store *st, const char *id)
{
	struct err e;
	bool b;

	ck_assert_msg(store_seen(st, id, &b, &e) == 0, "store_seen: %s", e.msg);
	return b;
}

static enum store_enqueue queue_reply(struct store *st, const char *parent, const char *reply)
{
	struct store_message m = msg(parent, STORE_REPLIED, NULL);
	struct store_outgoing o = outgoing(reply, parent);
	enum store_enqueue r;
	struct err e;

	m.reply_msgid = reply;
	ck_assert_msg(store_record_reply(st, &m, &o, 1000, &r, &e) == 0, "record_reply: %s", e.msg);
	return r;
}

static struct store_counts counts(struct store *st)
{
	struct store_counts c;
	struct err e;

	ck_assert_msg(store_counts(st, &c, &e) == 0, "store_counts: %s", e.msg);
	return c;
}

/* Message-ID normalization: <> and white space go, the domain is folded,
 * the local part is kept exactly (tagbot-rules(7) LINKS). */
START_TEST(test_msgid_key)
{
	static const struct {
		const char *in, *key;
	} cases[] = {
		{ "<20250101.abc@Example.COM>", "20250101.abc@example.com" },
		{ "20250101.abc@example.com", "20250101.abc@example.com" },
		{ "  <20250101.abc@EXAMPLE.com>\t", "20250101.abc@example.com" },
		{ "<ABC.def@example.com>", "ABC.def@example.com" },
		{ "<a@b@C.D>", "a@b@c.d" },
		{ "no-at-sign", "no-at-sign" },
		{ "<>", NULL },
		{ "   ", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *k = msgid_key(cases[i].in);

		if (!cases[i].key)
			ck_assert_msg(k == NULL, "case %zu: expected NULL, got %s", i, k);
		else
			ck_assert_msg(k && !strcmp(k, cases[i].key), "case %zu: %s -> %s", i,
				      cases[i].in, k ? k : "(null)");
		free(k);
	}
}
END_TEST

START_TEST(test_msgid_key_too_long)
{
	char id[MSGID_MAX + 3];
	char *k;

	memset(id, 'a', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	id[10] = '@';
	ck_assert_ptr_null(msgid_key(id));	/* MSGID_MAX + 2 bytes */
	id[MSGID_MAX] = '\0';
	k = msgid_key(id);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(strlen(k), MSGID_MAX);
	free(k);
}
END_TEST

/* The list copy and a Cc copy of one mail are one row. */
START_TEST(test_dedupe_forms)
{
	static const struct {
		const char *lookup;
		bool seen;
	} cases[] = {
		{ "<patch-1@Mail.Example.ORG>", true },
		{ "patch-1@mail.example.org", true },
		{ " <patch-1@MAIL.EXAMPLE.ORG> ", true },
		{ "Patch-1@mail.example.org", false },	/* local part differs */
		{ "patch-1@mail.example.net", false },
		{ "patch-2@mail.example.org", false },
	};
	struct store *st = th_store_open();
	struct store_message m = msg("<patch-1@mail.example.org>", STORE_CLEAN, NULL);
	bool added;
	struct err e;

	ck_assert_int_eq(store_record_message(st, &m, &added, &e), 0);
	ck_assert(added);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(seen(st, cases[i].lookup) == cases[i].seen, "case %zu: %s", i,
			      cases[i].lookup);
	/* Recording the Cc copy again leaves one row, and says so. */
	m.msgid = "patch-1@MAIL.example.org";
	ck_assert_int_eq(store_record_message(st, &m, &added, &e), 0);
	ck_assert(!added);
	ck_assert_int_eq(counts(st).messages, 1);
	store_close(st);
}
END_TEST

/* A list-unknown row can be forgotten so another copy is decided afresh;
 * a row with another decision cannot, so what was decided stays decided. */
START_TEST(test_forget_decision)
{
	struct store *st = th_store_open();
	struct store_message a = msg("<cc-first@x.org>", STORE_SKIPPED, "list-unknown");
	struct store_message b = msg("<clean@x.org>", STORE_CLEAN, NULL);
	char dec[64];
	bool forgot, found, seen;
	struct err e;

	ck_assert_int_eq(store_record_message(st, &a, NULL, &e), 0);
	ck_assert_int_eq(store_record_message(st, &b, NULL, &e), 0);
	ck_assert_int_eq(store_message_forget(st, "<clean@x.org>", "skipped:list-unknown", &forgot,
					      &e), 0);
	ck_assert(!forgot);
	ck_assert_int_eq(store_message_decision(st, "<clean@x.org>", dec, sizeof(dec), &found, &e),
			 0);
	ck_assert(found);
	ck_assert_str_eq(dec, "clean");
	ck_assert_int_eq(store_message_forget(st, "<cc-first@x.org>", "skipped:list-unknown",
					      &forgot, &e), 0);
	ck_assert(forgot);
	ck_assert_int_eq(store_seen(st, "<cc-first@x.org>", &seen, &e), 0);
	ck_assert(!seen);
	store_close(st);
}
END_TEST

START_TEST(test_reopen_keeps_everything)
{
	struct store_checkpoint cp = { .uidvalidity = 1712345678u, .last_uid = 4242 }, got;
	struct store_message m = msg("clean-1@example.org", STORE_CLEAN, NULL);
	struct store_message sk = msg("bot-1@example.org", STORE_SKIPPED, "auto-submitted");
	struct outbox_item it;
	struct store_counts c;
	struct store *st = th_store_open();
	struct stat sb;
	bool found;
	struct err e;

	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	ck_assert_int_eq(store_record_message(st, &sk, NULL, &e), 0);
	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@mail.example.org", "INBOX" },
				&cp, &e), 0);
	ck_assert_int_eq(queue_reply(st, "<patch-1@example.org>", "<reply-1@bot.example.org>"),
			 STORE_QUEUED);
	/* SQLite's WAL mode: the write-ahead log exists while the database is open. */
	if (!th_pg_url()) {
		char wal[160];

		snprintf(wal, sizeof(wal), "%s-wal", th_dbpath);
		ck_assert_int_eq(stat(wal, &sb), 0);
	}
	store_close(st);
	if (!th_pg_url()) {
		ck_assert_int_eq(stat(th_dbpath, &sb), 0);
		ck_assert_int_eq(sb.st_mode & 077, 0);	/* private: it holds other people's mail */
	}

	st = th_store_open();
	ck_assert(seen(st, "clean-1@example.org"));
	ck_assert(seen(st, "bot-1@example.org"));
	ck_assert(seen(st, "patch-1@example.org"));
	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:bot@mail.example.org", "INBOX" },
				&got, &found, &e), 0);
	ck_assert(found);
	ck_assert_uint_eq(got.uidvalidity, 1712345678u);
	ck_assert_uint_eq(got.last_uid, 4242);
	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:bot@mail.example.org", "Sent" },
				&got, &found, &e), 0);
	ck_assert(!found);

	outbox_item_init(&it);
	ck_assert_int_eq(store_outbox_next_due(st, 1000, &it, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(it.reply_msgid, "reply-1@bot.example.org");
	ck_assert_str_eq(it.parent_msgid, "patch-1@example.org");
	ck_assert_str_eq(it.envelope_from, "bot@example.org");
	ck_assert_uint_eq(it.nrcpt, 2);
	ck_assert_str_eq(it.rcpt[0], "author@example.org");
	ck_assert_str_eq(it.rcpt[1], "linux-leds@vger.kernel.org");
	ck_assert_uint_eq(it.len, sizeof(reply_raw) - 1);
	ck_assert_mem_eq(it.raw, reply_raw, it.len);
	ck_assert_int_eq(it.state, OUTBOX_QUEUED);
	ck_assert_int_eq(it.attempts, 0);
	outbox_item_release(&it);

	c = counts(st);
	ck_assert_int_eq(c.messages, 3);
	ck_assert_int_eq(c.replied, 1);
	ck_assert_int_eq(c.clean, 1);
	ck_assert_int_eq(c.skipped, 1);
	ck_assert_int_eq(c.errors, 0);
	ck_assert_int_eq(c.queued, 1);
	ck_assert_int_eq(c.sent, 0);
	store_close(st);
}
END_TEST

START_TEST(test_checkpoint_update)
{
	struct store_checkpoint a = { 10, 5 }, b = { 11, 0 }, got;
	struct store *st = th_store_open();
	bool found;
	struct err e;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:x", "INBOX" },
				&a, &e), 0);
	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:x", "INBOX" },
				&b, &e), 0);
	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:x", "INBOX" },
				&got, &found, &e), 0);
	ck_assert(found);
	ck_assert_uint_eq(got.uidvalidity, 11);
	ck_assert_uint_eq(got.last_uid, 0);
	store_close(st);
}
END_TEST

/* One patch, two copies (list and Cc, Message-ID written differently), two
 * freshly generated reply IDs: only the first is queued. */
START_TEST(test_one_reply_per_parent)
{
	struct store *st = th_store_open();
	struct store_counts c;

	ck_assert_int_eq(queue_reply(st, "<p@Example.org>", "<r1@bot.example.org>"), STORE_QUEUED);
	ck_assert_int_eq(queue_reply(st, "p@example.ORG", "<r2@bot.example.org>"),
			 STORE_ALREADY_QUEUED);
	c = counts(st);
	ck_assert_int_eq(c.messages, 1);
	ck_assert_int_eq(c.queued, 1);
	store_close(st);
}
END_TEST

/* The database itself refuses a second reply to one parent, whatever a
 * future caller does around the API. */
START_TEST(test_unique_parent_in_schema)
{
	static const char ins[] =
		"INSERT INTO outbox (reply_msgid, parent_msgid, envelope_from, recipients, raw,"
		" next_attempt, created) VALUES ('%s', 'p@example.org', 'b@x', 'a@x', x'41', 0, 0)";
	struct store *st = th_store_open();
	char sql[512];
	sqlite3 *db;
	int rc;

	store_close(st);	/* creates the schema */
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), ins, "r1@bot");
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql), ins, "r2@bot");
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	ck_assert_int_eq(rc, SQLITE_CONSTRAINT);
	sqlite3_close(db);
}
END_TEST

static int fail_hook(const char *point)
{
	return strcmp(point, "record_reply:after_message") ? 0 : -1;
}

static int kill_hook(const char *point)
{
	if (!strcmp(point, "record_reply:after_message"))
		raise(SIGKILL);
	return 0;
}

/* A failure between the message row and the outbox row leaves neither, and
 * the store is usable again right after. */
START_TEST(test_atomic_injected_failure)
{
	struct store *st = th_store_open();
	struct store_message m = msg("p@example.org", STORE_REPLIED, NULL);
	struct store_outgoing o = outgoing("r@bot.example.org", "p@example.org");
	enum store_enqueue r;
	struct store_counts c;
	struct err e;

	store_test_hook = fail_hook;
	err_init(&e);
	ck_assert_int_eq(store_record_reply(st, &m, &o, 1000, &r, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "injected"));
	store_test_hook = NULL;
	ck_assert(!seen(st, "p@example.org"));
	c = counts(st);
	ck_assert_int_eq(c.messages, 0);
	ck_assert_int_eq(c.queued, 0);
	ck_assert_int_eq(queue_reply(st, "p@example.org", "r@bot.example.org"), STORE_QUEUED);
	store_close(st);
}
END_TEST

/* SIGKILL in the middle of the transaction: after a restart nothing of it
 * is there, and the reply can be queued. */
START_TEST(test_atomic_sigkill)
{
	struct store_counts c;
	struct store *st;
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		st = th_store_open();
		store_test_hook = kill_hook;
		queue_reply(st, "p@example.org", "r@bot.example.org");
		_exit(0);	/* not reached */
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	st = th_store_open();
	ck_assert(!seen(st, "p@example.org"));
	c = counts(st);
	ck_assert_int_eq(c.messages, 0);
	ck_assert_int_eq(c.queued, 0);
	ck_assert_int_eq(queue_reply(st, "p@example.org", "r@bot.example.org"), STORE_QUEUED);
	store_close(st);
}
END_TEST

/* A real constraint failure on the second insert (a reply Message-ID used
 * twice: a bug, not a duplicate patch) rolls back the first insert. */
START_TEST(test_atomic_second_insert_fails)
{
	struct store *st = th_store_open();
	struct store_message m = msg("p2@example.org", STORE_REPLIED, NULL);
	struct store_outgoing o = outgoing("r@bot.example.org", "p2@example.org");
	enum store_enqueue r;
	struct err e;

	ck_assert_int_eq(queue_reply(st, "p1@example.org", "r@bot.example.org"), STORE_QUEUED);
	err_init(&e);
	ck_assert_int_eq(store_record_reply(st, &m, &o, 1000, &r, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert(!seen(st, "p2@example.org"));
	ck_assert_int_eq(counts(st).messages, 1);
	store_close(st);
}
END_TEST

START_TEST(test_refuses_bad_reply)
{
	static const char *const bad_rcpt[] = { "a@example.org\r\nRCPT TO:<x@evil>" };
	struct store *st = th_store_open();
	struct store_message m = msg("p@example.org", STORE_REPLIED, NULL);
	struct store_outgoing o = outgoing("r@bot", "p@example.org");
	enum store_enqueue r;
	struct err e;

	o.rcpt = bad_rcpt;
	o.nrcpt = 1;
	ck_assert_int_eq(store_record_reply(st, &m, &o, 1000, &r, &e), -1);
	o = outgoing("r@bot", "other@example.org");	/* parent is not m */
	ck_assert_int_eq(store_record_reply(st, &m, &o, 1000, &r, &e), -1);
	o = outgoing("r@bot", "p@example.org");
	o.nrcpt = 0;
	ck_assert_int_eq(store_record_reply(st, &m, &o, 1000, &r, &e), -1);
	ck_assert(!seen(st, "p@example.org"));
	store_close(st);
}
END_TEST

START_TEST(test_outbox_lifecycle)
{
	struct store *st = th_store_open();
	struct outbox_item it;
	struct store_counts c;
	time_t when;
	bool found;
	struct err e;

	outbox_item_init(&it);
	ck_assert_int_eq(queue_reply(st, "a@x.org", "ra@bot"), STORE_QUEUED);	/* due at 1000 */
	ck_assert_int_eq(store_outbox_next_due(st, 999, &it, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_outbox_next_due(st, 1000, &it, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(it.reply_msgid, "ra@bot");

	/* 421 from the server: retry in 60 s. */
	ck_assert_int_eq(store_outbox_mark_retry(st, "<ra@bot>", 1000 + 60, "421 try later", &e), 0);
	ck_assert_int_eq(store_outbox_next_due(st, 1059, &it, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_outbox_next_time(st, &when, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(when, 1060);
	ck_assert_int_eq(store_outbox_next_due(st, 1060, &it, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(it.attempts, 1);
	ck_assert_str_eq(it.last_error, "421 try later");

	ck_assert_int_eq(store_outbox_mark_sent(st, "ra@bot", 1061, NULL, &e), 0);
	ck_assert_int_eq(store_outbox_next_due(st, 5000, &it, &found, &e), 0);
	ck_assert(!found);
	/* Already sent: a second mark is a caller bug. */
	ck_assert_int_eq(store_outbox_mark_sent(st, "ra@bot", 1062, NULL, &e), -1);
	ck_assert_int_eq(store_outbox_mark_retry(st, "nosuch@bot", 1062 + 5, NULL, &e), -1);

	ck_assert_int_eq(queue_reply(st, "b@x.org", "rb@bot"), STORE_QUEUED);
	ck_assert_int_eq(store_outbox_mark_failed(st, "rb@bot", 1000, "550 no such user", &e), 0);
	ck_assert_int_eq(store_outbox_next_due(st, 5000, &it, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_outbox_next_time(st, &when, &found, &e), 0);
	ck_assert(!found);
	c = counts(st);
	ck_assert_int_eq(c.queued, 0);
	ck_assert_int_eq(c.sent, 1);
	ck_assert_int_eq(c.failed, 1);
	ck_assert_int_eq(c.replied, 2);
	outbox_item_release(&it);
	store_close(st);
}
END_TEST

static void note_error(void *ctx, const struct store_error_row *r)
{
	struct buf *b = ctx;

	buf_printf(b, "%s <%s>: %s\n", r->what, r->msgid, r->detail);
}

/* A claim undone (the sink was broken, nothing went out): attempts as
 * before, due at once, why in last_error; a reply sent without a refused
 * Cc keeps that note, and `tagbot status` lists it. */
START_TEST(test_outbox_unclaim_and_note)
{
	struct store *st = th_store_open();
	struct outbox_item it;
	struct buf b;
	bool found;
	struct err e;

	outbox_item_init(&it);
	buf_init(&b, 0);
	ck_assert_int_eq(queue_reply(st, "a@x.org", "ra@bot"), STORE_QUEUED);	/* due at 1000 */
	ck_assert_int_eq(store_outbox_mark_retry(st, "ra@bot", 1000 + 120, "sending (claimed)", &e), 0);
	ck_assert_int_eq(store_outbox_unclaim(st, "ra@bot", 1001, "waiting for the sink: 535", &e), 0);
	ck_assert_int_eq(store_outbox_next_due(st, 1001, &it, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(it.attempts, 0);
	ck_assert_str_eq(it.last_error, "waiting for the sink: 535");
	ck_assert_int_eq(store_outbox_mark_sent(st, "ra@bot", 1002, "refused recipient, not sent "
						"to: cc@example.org", &e), 0);
	ck_assert_int_eq(store_outbox_unclaim(st, "ra@bot", 1003, "x", &e), -1);	/* sent */
	ck_assert_int_eq(store_recent_errors(st, 10, note_error, &b, &e), 0);
	ck_assert_str_eq(b.data, "reply <ra@bot>: sent, 1 attempts: refused recipient, not sent "
			 "to: cc@example.org\n");
	buf_release(&b);
	outbox_item_release(&it);
	store_close(st);
}
END_TEST

/* The sink's one row: none at first, then as last put. */
START_TEST(test_sink_state)
{
	struct store *st = th_store_open();
	struct store_sink_state in = { .sink = (char *)"smtp://127.0.0.1:25", .failing = true,
				       .reason = (char *)"smtp: x: 535 5.7.8 no", .since = 1000,
				       .failures = 3, .next_try = 1008 };
	struct store_sink_state out = { 0 };
	bool found = true;
	struct err e;

	ck_assert_int_eq(store_sink_state_get(st, &out, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_sink_state_put(st, &in, &e), 0);
	ck_assert_int_eq(store_sink_state_get(st, &out, &found, &e), 0);
	ck_assert(found && out.failing);
	ck_assert_str_eq(out.sink, in.sink);
	ck_assert_str_eq(out.reason, in.reason);
	ck_assert_int_eq(out.since, 1000);
	ck_assert_int_eq(out.failures, 3);
	ck_assert_int_eq(out.next_try, 1008);
	in.failing = false;
	in.reason = (char *)"";
	in.since = 1010;
	in.failures = 0;
	ck_assert_int_eq(store_sink_state_put(st, &in, &e), 0);
	ck_assert_int_eq(store_sink_state_get(st, &out, &found, &e), 0);
	ck_assert(found && !out.failing);
	ck_assert_str_eq(out.reason, "");
	ck_assert_int_eq(out.since, 1010);
	store_sink_state_release(&out);
	store_close(st);
}
END_TEST

static void unread_text(void *ctx, const struct store_unread *u)
{
	struct buf *b = ctx;

	buf_printf(b, "%s%s/%s/%u:%s:%d:%ld:%llu:%s", b->len ? " " : "", u->source, u->folder,
		   u->uid, store_unread_state_name(u->state), u->tries, (long)u->next_try,
		   (unsigned long long)u->size, u->reason);
}

/* Mail a source did not deliver whole: a row per source, folder and uid,
 * replaced as its tries go on, kept across a reopen; the retry rows of one
 * folder by uid, the last words (unavailable, too-large) for status, newest
 * first; a folder renumbered forgets its retries, not its last words. */
START_TEST(test_unread)
{
	struct store *st = th_store_open();
	struct store_unread u = { "imap:bot@h", "INBOX", 7, STORE_UNREAD_RETRY, 1, 160, 0,
				  "UID FETCH answered without it", 100 };
	struct buf b;
	struct err e;

	buf_init(&b, 0);
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	u.uid = 3;
	u.next_try = 130;
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	u.folder = "Other";
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	u.folder = "INBOX";
	u.uid = 7;
	u.tries = 2;
	u.next_try = 220;
	u.time = 110;
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	store_close(st);
	st = th_store_open();
	ck_assert_int_eq(store_unread_retries(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				unread_text, &b, &e), 0);
	ck_assert_str_eq(b.data, "imap:bot@h/INBOX/3:retry:1:130:0:UID FETCH answered without it "
			 "imap:bot@h/INBOX/7:retry:2:220:0:UID FETCH answered without it");
	u = (struct store_unread){ "nntp:h:119", "g", 9, STORE_UNREAD_TOO_LARGE, 0, 0,
				   (uint64_t)3 << 31, "larger than max_message_size", 120 };
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	u = (struct store_unread){ "imap:bot@h", "INBOX", 3, STORE_UNREAD_UNAVAILABLE, 5, 0, 0,
				   "gone", 130 };
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	ck_assert_int_eq(store_unread_drop(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				7, &e), 0);
	buf_reset(&b);
	ck_assert_int_eq(store_unread_retries(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				unread_text, &b, &e), 0);
	ck_assert_str_eq(b.data, "");
	ck_assert_int_eq(store_unread_recent(st, 2, unread_text, &b, &e), 0);
	ck_assert_str_eq(b.data, "imap:bot@h/INBOX/3:unavailable:5:0:0:gone "
			 "nntp:h:119/g/9:too-large:0:0:6442450944:larger than max_message_size");
	ck_assert_int_eq(store_unread_forget(st, &(struct store_folder){ "imap:bot@h", "Other" },
				&e), 0);
	ck_assert_int_eq(store_unread_forget(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&e), 0);
	buf_reset(&b);
	ck_assert_int_eq(store_unread_recent(st, 10, unread_text, &b, &e), 0);
	ck_assert_str_eq(b.data, "imap:bot@h/INBOX/3:unavailable:5:0:0:gone "
			 "nntp:h:119/g/9:too-large:0:0:6442450944:larger than max_message_size");
	buf_release(&b);
	store_close(st);
}
END_TEST

/* Two due replies come out oldest first. */
/* --- claims: daemons sharing a folder ------------------------------- */

static struct store_claim_ask claim_ask(const char *owner, uint32_t top, time_t now)
{
	struct store_claim_ask a = {
		.source = "imap:bot@h", .folder = "INBOX", .validity = 7, .top = top, .span = 10,
		.owner = owner, .now = now, .lease = 300,
	};
	return a;
}

/* The next claim for owner; asserts one was found when want_found. */
static struct store_claim next_claim(struct store *st, const char *owner, uint32_t top,
				     time_t now, bool want_found)
{
	struct store_claim_ask a = claim_ask(owner, top, now);
	struct store_claim c;
	struct err e;
	bool found;

	ck_assert_msg(store_claim_next(st, &a, &c, &found, &e) == 0, "claim_next: %s", e.msg);
	ck_assert_int_eq(found, want_found);
	return c;
}

/* Claim lo done up to to, in a transaction. */
static void claim_record(struct store *st, const char *owner, uint32_t lo, uint32_t to)
{
	struct store_claim_ask a = claim_ask(owner, 0, 1000);
	struct err e;

	ck_assert_int_eq(store_begin(st, &e), 0);
	ck_assert_msg(store_claim_done(st, &a, lo, to, &e) == 0, "claim_done: %s", e.msg);
	ck_assert_int_eq(store_commit(st, &e), 0);
}

/* claim_record() (lo 0: nothing), then the checkpoint as the next daemon
 * to ask for a claim moves it (one that finds none to take). */
static uint32_t claim_done(struct store *st, const char *owner, uint32_t lo, uint32_t to)
{
	if (lo)
		claim_record(st, owner, lo, to);
	return next_claim(st, "nobody", 0, 1000, false).checkpoint;
}

static uint32_t stored_checkpoint(struct store *st)
{
	struct store_checkpoint cp;
	struct err e;
	bool found;

	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&cp, &found, &e), 0);
	ck_assert(found);
	return cp.last_uid;
}

/* Two daemons take turns over the UIDs above the checkpoint, a span each,
 * never the same; the checkpoint moves only over claims done in a row. */
START_TEST(test_claims_divide)
{
	struct store_checkpoint cp = { 7, 4 };
	struct store *st = th_store_open();
	struct store_claim a, b, c;
	struct err e;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&cp, &e), 0);
	a = next_claim(st, "A", 40, 1000, true);
	ck_assert_uint_eq(a.lo, 5);
	ck_assert_uint_eq(a.hi, 14);
	ck_assert_uint_eq(a.done_to, 4);
	b = next_claim(st, "B", 40, 1000, true);
	ck_assert_uint_eq(b.lo, 15);
	ck_assert_uint_eq(b.hi, 24);
	/* A asks again before it recorded anything: its own claim back */
	c = next_claim(st, "A", 40, 1000, true);
	ck_assert_uint_eq(c.lo, 5);
	/* B finishes first: the checkpoint waits for A's claim below */
	ck_assert_uint_eq(claim_done(st, "B", 15, 24), 4);
	ck_assert_uint_eq(claim_done(st, "A", 5, 9), 9);
	ck_assert_uint_eq(claim_done(st, "A", 5, 14), 24);
	ck_assert_uint_eq(stored_checkpoint(st), 24);
	/* the rest, up to top, in a last short claim; then nothing */
	c = next_claim(st, "B", 40, 1000, true);
	ck_assert_uint_eq(c.lo, 25);
	ck_assert_uint_eq(c.hi, 34);
	c = next_claim(st, "A", 37, 1000, true);
	ck_assert_uint_eq(c.lo, 35);
	ck_assert_uint_eq(c.hi, 37);
	c = next_claim(st, "C", 37, 1000, false);
	/* ... while the claims of A and B run: C is told when the first ends */
	ck_assert_int_eq(c.wake, 1300);
	store_close(st);
}
END_TEST

/* A claim whose lease ran out is taken over from where it was done to; one
 * released is taken over at once. */
START_TEST(test_claims_taken_over)
{
	struct store_checkpoint cp = { 7, 0 };
	struct store *st = th_store_open();
	struct store_claim c;
	struct err e;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&cp, &e), 0);
	next_claim(st, "A", 100, 1000, true);
	ck_assert_uint_eq(claim_done(st, "A", 1, 6), 6);
	/* the lease was renewed at 1000 by the progress: to 1300 */
	c = next_claim(st, "B", 100, 1299, true);
	ck_assert_uint_eq(c.lo, 11);	/* a new one */
	c = next_claim(st, "C", 100, 1300, true);
	ck_assert_uint_eq(c.lo, 1);	/* A's, gone quiet */
	ck_assert_uint_eq(c.hi, 10);
	ck_assert_uint_eq(c.done_to, 6);
	/* B stops cleanly: its claim is C's at once */
	ck_assert_int_eq(store_claim_release(st, "B", &e), 0);
	c = next_claim(st, "C", 100, 1300, true);
	ck_assert_uint_eq(c.lo, 1);	/* its own comes first */
	claim_record(st, "C", 1, 10);
	c = next_claim(st, "C", 100, 1300, true);
	ck_assert_uint_eq(c.checkpoint, 10);
	ck_assert_uint_eq(c.lo, 11);
	ck_assert_uint_eq(c.done_to, 10);
	store_close(st);
}
END_TEST

/* The checkpoint stays below a UID still asked for again, claims done or
 * not; a claim done above it is not read again. */
START_TEST(test_claims_hold_for_retry)
{
	struct store_checkpoint cp = { 7, 0 };
	struct store_unread u = { "imap:bot@h", "INBOX", 3, STORE_UNREAD_RETRY, 1, 160, 0,
				  "left out", 1000 };
	struct store *st = th_store_open();
	struct store_claim c;
	struct err e;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&cp, &e), 0);
	next_claim(st, "A", 30, 1000, true);
	ck_assert_int_eq(store_unread_put(st, &u, &e), 0);
	ck_assert_uint_eq(claim_done(st, "A", 1, 10), 2);
	c = next_claim(st, "A", 30, 1000, true);
	ck_assert_uint_eq(c.lo, 11);
	/* the retry is delivered: the next batch moves the checkpoint on */
	ck_assert_int_eq(store_unread_drop(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				3, &e), 0);
	ck_assert_uint_eq(claim_done(st, "A", 0, 0), 10);
	store_close(st);
}
END_TEST

/* A checkpoint of another UIDVALIDITY (another daemon found the folder
 * renumbered) is no place to claim from: ERR_TEMP, nothing claimed; the
 * claims of the old numbers go once the checkpoint is the folder's. */
START_TEST(test_claims_renumbered)
{
	struct store_checkpoint cp = { 7, 0 }, moved = { 8, 0 };
	struct store_claim_ask a = claim_ask("A", 30, 1000);
	struct store *st = th_store_open();
	struct store_claim c;
	struct err e;
	bool found;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&cp, &e), 0);
	next_claim(st, "B", 30, 1000, true);
	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:bot@h", "INBOX" },
				&moved, &e), 0);
	ck_assert_int_eq(store_claim_next(st, &a, &c, &found, &e), -1);
	ck_assert_int_eq(e.cls, ERR_TEMP);
	ck_assert(!found);
	ck_assert_msg(strstr(e.msg, "UIDVALIDITY 8, the folder's 7"), "%s", e.msg);
	a.validity = 8;
	ck_assert_int_eq(store_claim_next(st, &a, &c, &found, &e), 0);
	ck_assert(found);
	ck_assert_uint_eq(c.lo, 1);	/* B's claim of UIDVALIDITY 7 is gone */
	store_close(st);
}
END_TEST

START_TEST(test_outbox_order)
{
	struct store *st = th_store_open();
	struct outbox_item it;
	bool found;
	struct err e;

	outbox_item_init(&it);
	ck_assert_int_eq(queue_reply(st, "a@x.org", "ra@bot"), STORE_QUEUED);
	ck_assert_int_eq(queue_reply(st, "b@x.org", "rb@bot"), STORE_QUEUED);
	ck_assert_int_eq(store_outbox_mark_retry(st, "ra@bot", 1000 + 10, NULL, &e), 0);
	ck_assert_int_eq(store_outbox_next_due(st, 2000, &it, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(it.reply_msgid, "rb@bot");	/* due 1000, ra due 1010 */
	outbox_item_release(&it);
	store_close(st);
}
END_TEST

START_TEST(test_nested_transaction)
{
	struct store_checkpoint cp = { 1, 9 }, got;
	struct store_message m = msg("n@x.org", STORE_CLEAN, NULL);
	struct store *st = th_store_open();
	bool found;
	struct err e;

	/* A batch: the message and the checkpoint move together, or not at all. */
	ck_assert_int_eq(store_begin(st, &e), 0);
	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:x", "INBOX" },
				&cp, &e), 0);
	ck_assert_int_eq(queue_reply(st, "q@x.org", "rq@bot"), STORE_QUEUED);	/* savepoint inside */
	store_rollback(st);
	ck_assert(!seen(st, "n@x.org"));
	ck_assert(!seen(st, "q@x.org"));
	ck_assert_int_eq(store_checkpoint_get(st, &(struct store_folder){ "imap:x", "INBOX" },
				&got, &found, &e), 0);
	ck_assert(!found);

	ck_assert_int_eq(store_begin(st, &e), 0);
	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	ck_assert_int_eq(store_commit(st, &e), 0);
	ck_assert(seen(st, "n@x.org"));
	store_close(st);
}
END_TEST

/* A state file of schema 2 (as tagbot wrote it before contexts and series)
 * is migrated to 3 in place: its rows stay, the new tables work. */
static const char schema2[] =
	"CREATE TABLE messages (msgid TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL,"
	" folder TEXT NOT NULL, uid INTEGER NOT NULL, kind TEXT NOT NULL,"
	" decision TEXT NOT NULL CHECK (decision IN ('replied', 'clean', 'error')"
	" OR decision LIKE 'skipped:%'), reply_msgid TEXT, time INTEGER NOT NULL);"
	"CREATE TABLE checkpoints (source TEXT NOT NULL, folder TEXT NOT NULL,"
	" uidvalidity INTEGER NOT NULL, last_uid INTEGER NOT NULL, PRIMARY KEY (source, folder));"
	"CREATE TABLE outbox (reply_msgid TEXT PRIMARY KEY NOT NULL,"
	" parent_msgid TEXT NOT NULL UNIQUE, envelope_from TEXT NOT NULL,"
	" recipients TEXT NOT NULL, raw BLOB NOT NULL, state TEXT NOT NULL DEFAULT 'queued'"
	" CHECK (state IN ('queued', 'sent', 'failed')), attempts INTEGER NOT NULL DEFAULT 0,"
	" next_attempt INTEGER NOT NULL, last_error TEXT NOT NULL DEFAULT '',"
	" created INTEGER NOT NULL, sent_time INTEGER);"
	"CREATE INDEX outbox_due ON outbox (state, next_attempt);"
	"CREATE TABLE lookup_cache (url TEXT PRIMARY KEY NOT NULL, status INTEGER NOT NULL,"
	" fetched_at INTEGER NOT NULL, result BLOB NOT NULL);"
	"CREATE INDEX lookup_cache_age ON lookup_cache (fetched_at);"
	"INSERT INTO messages VALUES ('old@x.org', 'maildir:inbox', '', 3, 'patch', 'replied',"
	" 'r@bot.org', 1700000000);"
	"INSERT INTO outbox (reply_msgid, parent_msgid, envelope_from, recipients, raw,"
	" next_attempt, created) VALUES ('r@bot.org', 'old@x.org', 'bot@bot.org', 'a@x.org',"
	" 'raw', 1700000000, 1700000000);"
	"PRAGMA user_version = 2;";

/* What takes a state of schema 10 back to 9, and 9 back to 8. */
#define UNDO_10	"DROP TABLE claims; "
#define UNDO_9	"DROP TABLE context_ref; DROP INDEX context_unthreaded;"		\
		" DROP INDEX series_member_irt; ALTER TABLE series_member DROP COLUMN irt;" \
		" CREATE INDEX context_series ON context (sender, version, total, time);" \
		" CREATE INDEX context_change ON context (change_id);"			\
		" CREATE INDEX context_work ON context (sender, subject);"

static int user_version(void)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	int v = -1;

	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

/* PRAGMA application_id of the file at th_dbpath. */
static unsigned app_id(void)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	unsigned v = 0xdeadbeef;

	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = (unsigned)sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

START_TEST(test_migrate_2_to_3)
{
	struct store_series sr = { 0 };
	struct store_counts c;
	struct store *st;
	sqlite3 *db;
	struct err e;
	bool found = false, quiet = true;
	char *id = NULL;

	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, schema2, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(user_version(), 2);
	st = th_store_open();
	ck_assert(seen(st, "old@x.org"));
	ck_assert_int_eq(store_counts(st, &c, &e), 0);
	ck_assert_int_eq(c.replied, 1);
	ck_assert_int_eq(c.queued, 1);
	ck_assert_int_eq(store_thread_quiet_get(st, "old@x.org", &quiet, &e), 0);
	ck_assert(!quiet);
	sr.id = (char *)"s@x.org";
	sr.version = 2;
	sr.total = 3;
	sr.state = STORE_SERIES_PENDING;
	ck_assert_int_eq(store_series_create(st, &sr, &e), 0);
	ck_assert_int_eq(store_series_add(st, "s@x.org",
					  &(struct store_series_member){ .msgid = "old@x.org", .index = 1,
									.time = 5 }, &e), 0);
	ck_assert_int_eq(store_series_of(st, "<old@x.org>", &id, &e), 0);
	ck_assert_str_eq(id, "s@x.org");
	free(id);
	memset(&sr, 0, sizeof(sr));
	ck_assert_int_eq(store_series_get(st, "s@x.org", &sr, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(sr.total, 3);
	store_series_release(&sr);
	store_close(st);
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
	ck_assert_uint_eq(app_id(), STORE_SQLITE_APPLICATION_ID);
	ck_assert_int_eq(STORE_SCHEMA_VERSION, 10);
}
END_TEST

/* A pending series id of sender, v1 of 2 parts. */
static void add_series(struct store *st, const char *id, const char *sender, time_t first,
		       time_t deadline)
{
	struct store_series sr;
	struct err e;

	memset(&sr, 0, sizeof(sr));
	sr.id = (char *)id;
	sr.version = 1;
	sr.total = 2;
	sr.sender = (char *)sender;
	sr.first_time = first;
	sr.deadline = deadline;
	sr.state = STORE_SERIES_PENDING;
	ck_assert_msg(store_series_create(st, &sr, &e) == 0, "%s", e.msg);
}

/* A context row for msgid of kind, by ann@x.org, v1 of 3 parts. */
static void ctx_put_kind(struct store *st, const char *kind, const char *msgid, const char *irt,
			 const char *refs, time_t t)
{
	struct msg_context c = {
		.message_id = (char *)msgid, .subject = (char *)"s", .sender = (char *)"ann@x.org",
		.kind = (char *)kind, .version = 1, .index = 1, .total = 3,
		.in_reply_to = (char *)irt, .references = (char *)refs, .time = t,
	};
	struct err e;

	ck_assert_msg(store_context_put(st, &c, &e) == 0, "%s", e.msg);
}

static void ctx_put(struct store *st, const char *msgid, const char *irt, const char *refs,
		    time_t t)
{
	ctx_put_kind(st, "patch", msgid, irt, refs, t);
}

static void related_add(void *ctx, const struct store_related *r)
{
	struct buf *b = ctx;

	buf_printf(b, "%s%s", b->len ? " " : "", r->row->message_id);
	if (r->series)
		buf_printf(b, "(%s)", r->series);
}

/* What store_context_related() (skip NULL) or store_context_siblings()
 * (skip the series to leave out) hands out for msgid (in, refs), in
 * order; since is after every row, so only the threading links count. */
static char *related(struct store *st, const char *msgid, const char *irt, const char *refs,
		     const char *skip)
{
	struct msg_context c = {
		.message_id = (char *)msgid, .sender = (char *)"ann@x.org", .version = 1,
		.total = 3, .in_reply_to = (char *)irt, .references = (char *)refs,
	};
	struct buf b;
	struct err e;
	int rc;

	buf_init(&b, 0);
	rc = skip ? store_context_siblings(st, &c, skip, related_add, &b, &e)
		  : store_context_related(st, &c, 1000, related_add, &b, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	return buf_detach(&b, NULL);
}

#define ck_rows(st, id, irt, refs, skip, want)					\
	do {									\
		char *got_ = related(st, id, irt, refs, skip);			\
		ck_assert_msg(!strcmp(got_, want), "related to %s: \"%s\", want \"%s\"", \
			      id, got_, want);					\
		free(got_);							\
	} while (0)
#define ck_related(st, id, irt, refs, want)	ck_rows(st, id, irt, refs, NULL, want)
#define ck_siblings(st, id, irt, skip, want)	ck_rows(st, id, irt, NULL, skip, want)

/* The rows related by threading, each way found on its own: what c's
 * References name (words split on single spaces), what refers to c by
 * References alone, and oldest first with a tie of time in the order the
 * rows were recorded (not their Message-IDs' order), each with its series
 * (shown in parentheses).  A row recorded again with other References is
 * found by the new ones only; a pruned row's references go with it. */
START_TEST(test_context_related)
{
	struct store *st = th_store_open();
	long n = -1;
	struct err e;

	ctx_put(st, "a@x.org", NULL, NULL, 10);
	ctx_put(st, "c@x.org", "b@x.org", "a@x.org b@x.org", 20);	/* refers to a by refs only */
	ctx_put(st, "b@x.org", "a@x.org", "a@x.org", 20);
	ctx_put(st, "d@x.org", "z@x.org", "z@x.org", 30);
	ctx_put_kind(st, "reply", "r@x.org", "a@x.org", "a@x.org", 5);	/* never a part */
	ctx_put_kind(st, "reply", "a@x.or", NULL, "d@x.org", 5);
	ck_related(st, "a@x.org", NULL, NULL, "c@x.org b@x.org");
	ck_related(st, "r@x.org", "a@x.org", "a@x.org", "a@x.org");
	ck_related(st, "e@x.org", NULL, "a@x.org  d@x.org", "a@x.org d@x.org");
	ck_related(st, "e@x.org", NULL, "a@x.or", "");	/* a reply */
	ck_related(st, "d@x.org", NULL, NULL, "");	/* a reply refers to it */
	ck_related(st, "z@x.org", NULL, NULL, "d@x.org");
	ck_related(st, "y@x.org", "z@x.org", NULL, "");	/* d: a sibling, not in a series */
	ck_siblings(st, "y@x.org", "z@x.org", "", "");
	add_series(st, "b@x.org", "ann@x.org", 0, 0);
	ck_assert_int_eq(store_series_add(st, "b@x.org",
					  &(struct store_series_member){ .msgid = "c@x.org", .index = 2,
									.time = 20 }, &e), 0);
	ck_related(st, "a@x.org", NULL, NULL, "c@x.org(b@x.org) b@x.org");
	ck_siblings(st, "y@x.org", "b@x.org", "", "c@x.org(b@x.org)");	/* c's sibling */
	ck_siblings(st, "y@x.org", "b@x.org", "q@x.org b@x.org", "");	/* its series skipped */
	ck_siblings(st, "y@x.org", "b@x.org", "b@x.or", "c@x.org(b@x.org)");
	ck_siblings(st, "c@x.org", "b@x.org", "", "");	/* not itself */
	ctx_put(st, "c@x.org", "b@x.org", "q@x.org b@x.org", 20);
	ck_related(st, "a@x.org", NULL, NULL, "b@x.org");
	ck_related(st, "q@x.org", NULL, NULL, "c@x.org(b@x.org)");
	ck_assert_int_eq(store_context_prune(st, 25, &n, &e), 0);
	ck_assert_int_eq(n, 5);
	ck_related(st, "q@x.org", NULL, NULL, "");
	ctx_put(st, "c@x.org", NULL, NULL, 40);	/* recorded anew: no references left */
	ck_related(st, "q@x.org", NULL, NULL, "");
	ck_related(st, "z@x.org", NULL, NULL, "d@x.org");
	store_close(st);
}
END_TEST

/* Schema 8 -> 9: the References of the context rows kept are indexed one
 * a row, so what refers to a message is found after the migration too. */
START_TEST(test_context_ref_migration)
{
	struct store *st = th_store_open();
	sqlite3 *db;

	ctx_put(st, "a@x.org", NULL, NULL, 10);
	ctx_put(st, "b@x.org", "a@x.org", "a@x.org", 20);
	ctx_put(st, "c@x.org", "b@x.org", "a@x.org b@x.org", 30);
	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, UNDO_10 UNDO_9 "PRAGMA user_version = 8;", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = th_store_open();
	ck_related(st, "a@x.org", NULL, NULL, "b@x.org c@x.org");
	ck_related(st, "b@x.org", NULL, NULL, "c@x.org");
	store_close(st);
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
}
END_TEST

/* Schema 6 -> 7: the rate events get an index by key and time, which
 * the windows' counts read (one person's, or the global one's, without
 * reading the others'); the events are kept. */
START_TEST(test_rate_index)
{
	struct store *st = th_store_open();
	sqlite3 *db;
	sqlite3_stmt *q;
	struct err e;
	char plan[256] = "";

	ck_assert_int_eq(store_rate_note(st, "ann@x.org", 100, &e), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "DROP INDEX IF EXISTS rate_events_key; DROP TABLE unread; " UNDO_10 UNDO_9
				      "PRAGMA user_version = 6;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = th_store_open();
	store_close(st);
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT count(*) FROM"
					    " rate_events WHERE key = 'ann@x.org' AND t > 50", -1,
					    &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW)
		snprintf(plan + strlen(plan), sizeof(plan) - strlen(plan), "%s;",
			 (const char *)sqlite3_column_text(q, 3));
	sqlite3_finalize(q);
	ck_assert_msg(strstr(plan, "USING COVERING INDEX rate_events_key"), "%s", plan);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM rate_events", -1, &q, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(q, 0), 1);
	sqlite3_finalize(q);
	sqlite3_close(db);
}
END_TEST

/* A series made twice under one name (two daemons on one PostgreSQL state,
 * each from the same first mail) is one series: the second create is no
 * error and changes nothing. */
START_TEST(test_series_create_twice)
{
	struct store *st = th_store_open();
	struct store_series a, b, got;
	struct err e;
	bool found = false;

	memset(&a, 0, sizeof(a));
	a.id = (char *)"first@x.org";
	a.version = 2;
	a.total = 3;
	a.sender = (char *)"ann@x.org";
	a.first_time = 100;
	a.deadline = 400;
	a.state = STORE_SERIES_PENDING;
	b = a;
	b.total = 9;
	b.deadline = 900;
	ck_assert_int_eq(store_series_create(st, &a, &e), 0);
	ck_assert_msg(store_series_create(st, &b, &e) == 0, "second create: %s", e.msg);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(store_series_get(st, "first@x.org", &got, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(got.total, 3);
	ck_assert_int_eq(got.deadline, 400);
	store_series_release(&got);
	store_close(st);
}
END_TEST

/* What a person was told is kept per finding's key (schema 6; schema 5
 * kept it per patch, "about"); a schema 4 file's rows become the rows of
 * rules told whatever they point at (key ""), and the keyed rows are pruned
 * with the context while those stay. */
START_TEST(test_told_about)
{
	struct store *st = th_store_open();
	sqlite3 *db;
	struct err e;
	time_t t;
	bool found;
	long n;

	store_close(st);
	/* back to schema 4's told table, one row in it */
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "DROP INDEX rate_events_key;"
				      "DROP TABLE told; CREATE TABLE told (person TEXT NOT NULL,"
				      " rule TEXT NOT NULL, t INTEGER NOT NULL,"
				      " PRIMARY KEY (person, rule));"
				      "INSERT INTO told VALUES ('a@x.org', 'NO_AUTHOR_SIGN_OFF', 100);"
				      "DROP TABLE unread; " UNDO_10 UNDO_9 "PRAGMA user_version = 4;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = th_store_open();
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "NO_AUTHOR_SIGN_OFF", "" }, &t,
					&found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(t, 100);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "NO_AUTHOR_SIGN_OFF", "leds: x" }, &t,
					&found, &e), 0);
	ck_assert(!found);
	/* one rule, two patches: two rows */
	ck_assert_int_eq(store_told_set(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "leds: x" },
					200, &e), 0);
	ck_assert_int_eq(store_told_set(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "leds: y" },
					300, &e), 0);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "leds: x" }, &t,
					&found, &e), 0);
	ck_assert(found && t == 200);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "b@x.org", "MISSING_SIGN_OFF", "leds: x" }, &t,
					&found, &e), 0);
	ck_assert(!found);
	/* pruning before 250: leds: x goes, leds: y and the setup row stay */
	ck_assert_int_eq(store_context_prune(st, 250, &n, &e), 0);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "leds: x" }, &t,
					&found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "leds: y" }, &t,
					&found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "NO_AUTHOR_SIGN_OFF", "" }, &t,
					&found, &e), 0);
	ck_assert(found);
	store_close(st);
}
END_TEST

/* Schema 5 -> 6: a schema 5 file's rows per patch (about: a subject, no
 * finding's key) are dropped, its rows told whatever the patch ("") kept. */
START_TEST(test_told_what)
{
	struct store *st = th_store_open();
	sqlite3 *db;
	struct err e;
	time_t t;
	bool found;

	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "DROP INDEX rate_events_key;"
				      "DROP TABLE told; CREATE TABLE told (person TEXT NOT NULL,"
				      " rule TEXT NOT NULL, about TEXT NOT NULL, t INTEGER NOT NULL,"
				      " PRIMARY KEY (person, rule, about));"
				      "CREATE INDEX told_t ON told (t);"
				      "INSERT INTO told VALUES ('a@x.org', 'MISSING_SIGN_OFF', '', 100);"
				      "INSERT INTO told VALUES ('a@x.org', 'BAD_FIXES_TAG', 'leds: x', 100);"
				      "DROP TABLE unread; " UNDO_10 UNDO_9 "PRAGMA user_version = 5;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = th_store_open();
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "MISSING_SIGN_OFF", "" }, &t,
					&found, &e), 0);
	ck_assert(found && t == 100);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "BAD_FIXES_TAG", "leds: x" }, &t,
					&found, &e), 0);
	ck_assert(!found);
	/* a key is a column of its own: one rule, two keys, two rows */
	ck_assert_int_eq(store_told_set(st, &(struct store_told){ "a@x.org", "BAD_FIXES_TAG", "fixes: # (x)" },
					200, &e), 0);
	ck_assert_int_eq(store_told_set(st, &(struct store_told){ "a@x.org", "BAD_FIXES_TAG", "fixes: # (y)" },
					300, &e), 0);
	ck_assert_int_eq(store_told_get(st, &(struct store_told){ "a@x.org", "BAD_FIXES_TAG", "fixes: # (x)" }, &t,
					&found, &e), 0);
	ck_assert(found && t == 200);
	store_close(st);
}
END_TEST

static void held_count(void *ctx, const struct store_held *h)
{
	struct buf *b = ctx;

	buf_printf(b, "%s%s:%.*s", b->len ? " " : "", h->msgid, (int)h->len, h->raw);
}

/* Held replies (schema 4): kept per recipient until their deadline, moved
 * together, queued as one reply that marks every held patch replied. */
START_TEST(test_held_and_rate_events)
{
	struct store *st = th_store_open();
	struct store_message a = msg("<h1@x.org>", STORE_SKIPPED, "held");
	struct store_message b = msg("<h2@x.org>", STORE_SKIPPED, "held");
	struct store_held h = { "<h1@x.org>", "ann@x.org", 10, "raw1", 4, "f" };
	const char *rcpt[] = { "ann@x.org" };
	struct store_outgoing out = { "<r@bot.org>", "<h1@x.org>", "bot@bot.org", rcpt, 1,
				      "reply", 5, 0 };
	enum store_enqueue res;
	char *who = NULL, dec[64];
	bool found;
	time_t when;
	struct buf got;
	struct err e;

	buf_init(&got, 0);
	ck_assert_int_eq(store_record_message(st, &a, NULL, &e), 0);
	ck_assert_int_eq(store_record_message(st, &b, NULL, &e), 0);
	ck_assert_int_eq(store_held_add(st, &h, 100, &e), 0);
	h.msgid = "<h2@x.org>";
	h.time = 20;
	h.raw = "raw2";
	ck_assert_int_eq(store_held_add(st, &h, 200, &e), 0);	/* moves h1 to 200 too */
	ck_assert_int_eq(store_held_next_time(st, &when, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(when, 200);
	ck_assert_int_eq(store_held_next_due(st, 150, &who, &e), 0);
	ck_assert_ptr_null(who);
	ck_assert_int_eq(store_held_next_due(st, 200, &who, &e), 0);
	ck_assert_str_eq(who, "ann@x.org");
	free(who);
	ck_assert_int_eq(store_held_members(st, "ann@x.org", held_count, &got, &e), 0);
	ck_assert_str_eq(got.data, "h1@x.org:raw1 h2@x.org:raw2");
	ck_assert_int_eq(store_held_queue_reply(st, "ann@x.org", &out, 200, &res, &e), 0);
	ck_assert_int_eq(res, STORE_QUEUED);
	ck_assert_int_eq(store_message_decision(st, "<h2@x.org>", dec, sizeof(dec), &found, &e), 0);
	ck_assert_str_eq(dec, "replied");
	ck_assert_int_eq(store_held_next_time(st, &when, &found, &e), 0);
	ck_assert(!found);
	buf_release(&got);
	store_close(st);
}
END_TEST

/* Rate events (schema 4, 7): counted per key after a time, the n-th and
 * the latest of them, kept across a reopen, the old ones pruned. */
START_TEST(test_rate_events)
{
	struct store *st = th_store_open();
	struct err e;
	time_t t;
	long n;

	ck_assert_int_eq(store_rate_note(st, "", 50, &e), 0);
	ck_assert_int_eq(store_rate_note(st, "ann@x.org", 3650, &e), 0);
	ck_assert_int_eq(store_rate_note(st, "ann@x.org", 3600, &e), 0);
	ck_assert_int_eq(store_rate_note(st, "ann@x.org", 3700, &e), 0);
	ck_assert_int_eq(store_rate_note(st, "bob@x.org", 3660, &e), 0);
	store_close(st);
	st = th_store_open();
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "ann@x.org", 3600 },
					&n, &e), 0);
	ck_assert_int_eq(n, 2);			/* later than 3600 */
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "ann@x.org", 0 },
					&n, &e), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "", 0 }, &n, &e), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_rate_nth(st, &(struct store_rate_window){ "ann@x.org", 0 },
					0, &t, &e), 0);
	ck_assert_int_eq(t, 3600);		/* by time, not as noted */
	ck_assert_int_eq(store_rate_nth(st, &(struct store_rate_window){ "ann@x.org", 0 },
					2, &t, &e), 0);
	ck_assert_int_eq(t, 3700);
	ck_assert_int_eq(store_rate_nth(st, &(struct store_rate_window){ "ann@x.org", 0 },
					3, &t, &e), 0);
	ck_assert_int_eq(t, 0);
	ck_assert_int_eq(store_rate_last(st, &(struct store_rate_window){ "ann@x.org", 0 },
					&t, &e), 0);
	ck_assert_int_eq(t, 3700);
	ck_assert_int_eq(store_rate_last(st, &(struct store_rate_window){ "cy@x.org", 0 },
					&t, &e), 0);
	ck_assert_int_eq(t, 0);
	/* in a transaction, as the daemon checks (PostgreSQL: the lock) */
	ck_assert_int_eq(store_begin(st, &e), 0);
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "bob@x.org", 0 },
					&n, &e), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_rate_note(st, "bob@x.org", 3670, &e), 0);
	ck_assert_int_eq(store_commit(st, &e), 0);
	ck_assert_int_eq(store_rate_prune(st, 3650, &e), 0);
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "", 0 }, &n, &e), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_rate_count(st, &(struct store_rate_window){ "ann@x.org", 0 },
					&n, &e), 0);
	ck_assert_int_eq(n, 2);			/* 3650 and 3700 stay */
	store_close(st);
}
END_TEST

static void waiting_collect(void *ctx, const struct store_waiting *w)
{
	buf_printf(ctx, "[%s@%ld]", w->who, (long)w->since);
}

/* Who has replies due, for the daemon's turns: one entry a person with the
 * time its oldest waits since, the longest waiting first, at most max;
 * postponing moves only the due ones. */
START_TEST(test_waiting)
{
	struct store *st = th_store_open();
	struct store_held h = { "<w1@x.org>", "bob@x.org", 30, "raw", 3, "f" };
	struct buf got;
	struct err e;
	char *id = NULL;
	bool found;
	time_t when;

	buf_init(&got, 0);
	ck_assert_int_eq(store_held_add(st, &h, 100, &e), 0);
	h = (struct store_held){ "<w2@x.org>", "ann@x.org", 20, "raw", 3, "f" };
	ck_assert_int_eq(store_held_add(st, &h, 100, &e), 0);
	h = (struct store_held){ "<w3@x.org>", "bob@x.org", 10, "raw", 3, "f" };
	ck_assert_int_eq(store_held_add(st, &h, 100, &e), 0);
	h = (struct store_held){ "<w4@x.org>", "cy@x.org", 5, "raw", 3, "f" };
	ck_assert_int_eq(store_held_add(st, &h, 500, &e), 0);	/* not due */
	ck_assert_int_eq(store_held_waiting(st, 100, 10, waiting_collect, &got, &e), 0);
	ck_assert_str_eq(got.data, "[bob@x.org@10][ann@x.org@20]");
	buf_reset(&got);
	ck_assert_int_eq(store_held_waiting(st, 100, 1, waiting_collect, &got, &e), 0);
	ck_assert_str_eq(got.data, "[bob@x.org@10]");

	add_series(st, "s1@x.org", "ann@x.org", 50, 100);
	add_series(st, "s2@x.org", "ann@x.org", 40, 100);
	add_series(st, "s3@x.org", "dan@x.org", 60, 100);
	add_series(st, "s4@x.org", "dan@x.org", 1, 900);	/* not due */
	buf_reset(&got);
	ck_assert_int_eq(store_series_waiting(st, 100, 10, waiting_collect, &got, &e), 0);
	ck_assert_str_eq(got.data, "[ann@x.org@40][dan@x.org@60]");
	ck_assert_int_eq(store_series_next_due_of(st, 100, "ann@x.org", &id, &e), 0);
	ck_assert_str_eq(id, "s2@x.org");
	free(id);
	ck_assert_int_eq(store_series_next_due_of(st, 100, "dan@x.org", &id, &e), 0);
	ck_assert_str_eq(id, "s3@x.org");
	free(id);
	ck_assert_int_eq(store_series_next_due_of(st, 99, "dan@x.org", &id, &e), 0);
	ck_assert_ptr_null(id);

	ck_assert_int_eq(store_held_postpone(st, 100, 300, &e), 0);
	ck_assert_int_eq(store_series_postpone(st, 100, 300, &e), 0);
	buf_reset(&got);
	ck_assert_int_eq(store_held_waiting(st, 299, 10, waiting_collect, &got, &e), 0);
	ck_assert_int_eq(store_series_waiting(st, 299, 10, waiting_collect, &got, &e), 0);
	ck_assert_str_eq(got.data, "");
	ck_assert_int_eq(store_held_next_time(st, &when, &found, &e), 0);
	ck_assert_int_eq(when, 300);
	ck_assert_int_eq(store_series_next_time(st, &when, &found, &e), 0);
	ck_assert_int_eq(when, 300);
	ck_assert_int_eq(store_held_waiting(st, 500, 10, waiting_collect, &got, &e), 0);
	ck_assert_str_eq(got.data, "[cy@x.org@5][bob@x.org@10][ann@x.org@20]");
	buf_release(&got);
	store_close(st);
}
END_TEST

START_TEST(test_refuses_newer_schema)
{
	struct store_settings s;
	struct store *st = th_store_open();
	sqlite3 *db;
	struct err e;

	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	store_settings_init(&s);
	s.path = th_dbpath;
	err_init(&e);
	ck_assert_int_eq(store_open(&st, &s, &e), -1);
	ck_assert_ptr_null(st);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_msg(strstr(e.msg, "newer") != NULL, "%s", e.msg);
}
END_TEST

START_TEST(test_open_errors)
{
	struct store_settings s;
	struct store *st;
	struct err e;

	store_settings_init(&s);
	err_init(&e);
	ck_assert_int_eq(store_open(&st, &s, &e), -1);	/* no path */
	s.path = "check_store.no-such-dir/x/state.db";
	ck_assert_int_eq(store_open(&st, &s, &e), -1);
	ck_assert_msg(strstr(e.msg, "check_store.no-such-dir") != NULL, "%s", e.msg);
}
END_TEST

/* store_open() on what is at th_dbpath: -1 and the message, which must name
 * the file. */
static const char *open_refused(void)
{
	static struct err e;
	struct store_settings s;
	struct store *st = (struct store *)&e;	/* any non-NULL: store_open clears it */

	store_settings_init(&s);
	s.path = th_dbpath;
	err_init(&e);
	ck_assert_int_eq(store_open(&st, &s, &e), -1);
	ck_assert_ptr_null(st);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_msg(strstr(e.msg, th_dbpath) != NULL, "%s", e.msg);
	return e.msg;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Entries of th_dir other than the database and its -wal and -shm: a
 * temporary file of the creation left behind would be one. */
static int strays(void)
{
	static const char *const ours[] = { ".", "..", "state.db", "state.db-wal", "state.db-shm" };
	DIR *d = opendir(th_dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		size_t i = 0;

		while (i < sizeof(ours) / sizeof(ours[0]) && strcmp(de->d_name, ours[i]))
			i++;
		n += i == sizeof(ours) / sizeof(ours[0]);
	}
	closedir(d);
	return n;
}

/* An existing empty file is not a fresh store (with backfill the whole
 * folder would be answered again): refused, and left as it is. */
START_TEST(test_empty_file_refused)
{
	struct stat sb;
	const char *m;

	write_file(th_dbpath, "");
	m = open_refused();
	ck_assert_msg(strstr(m, "exists but is empty (0 bytes)") &&
		      strstr(m, "remove it to start a fresh store, or restore the database"),
		      "%s", m);
	ck_assert_int_eq(stat(th_dbpath, &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

/* Not an SQLite file: refused before SQLite writes anything to it. */
START_TEST(test_not_sqlite_refused)
{
	static const char text[] = "[tagbot]\nstate = state.db\n";
	char back[64] = "";
	FILE *f;
	const char *m;

	write_file(th_dbpath, text);
	m = open_refused();
	ck_assert_msg(strstr(m, "not an SQLite database"), "%s", m);
	f = fopen(th_dbpath, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(back, 1, sizeof(back) - 1, f), sizeof(text) - 1);
	fclose(f);
	ck_assert_str_eq(back, text);
}
END_TEST

START_TEST(test_directory_refused)
{
	const char *m;

	ck_assert_int_eq(mkdir(th_dbpath, 0700), 0);
	m = open_refused();
	ck_assert_msg(strstr(m, "not a regular file"), "%s", m);
	ck_assert_int_eq(rmdir(th_dbpath), 0);
}
END_TEST

/* No file: a database is created, private, whole (the schema's version
 * set), with no temporary file left; it then reopens with what it holds. */
START_TEST(test_absent_file_created)
{
	struct store_message m = msg("created-1@example.org", STORE_CLEAN, NULL);
	struct store *st;
	struct stat sb;
	struct err e;

	ck_assert_int_eq(stat(th_dbpath, &sb), -1);
	st = th_store_open();
	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	store_close(st);
	ck_assert_int_eq(stat(th_dbpath, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert_int_gt(sb.st_size, 0);
	ck_assert_int_eq(sb.st_mode & 077, 0);
	ck_assert_int_eq(user_version(), STORE_SCHEMA_VERSION);
	ck_assert_uint_eq(app_id(), STORE_SQLITE_APPLICATION_ID);
	ck_assert_int_eq(strays(), 0);
	st = th_store_open();
	ck_assert(seen(st, "created-1@example.org"));
	store_close(st);
}
END_TEST

/* The whole file at path, malloc'ed, its size in *len. */
static char *slurp(const char *path, size_t *len)
{
	struct buf b;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	ck_assert_ptr_nonnull(f);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, len);
}

/* Runs sql on a new SQLite database at th_dbpath, as another program would
 * make one. */
static void foreign_db(const char *sql)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

/* state = naming another program's SQLite database: refused, naming the
 * file, its application_id and its tables, and left byte for byte as it
 * was (no tables of ours in it, no WAL switch in its header, no -wal). */
static void assert_foreign_refused(const char *sql, const char *id, const char *tables)
{
	char *before, *after, wal[160];
	size_t nbefore, nafter;
	const char *m;

	foreign_db(sql);
	before = slurp(th_dbpath, &nbefore);
	m = open_refused();
	ck_assert_msg(strstr(m, "an SQLite database of another program") && strstr(m, id) &&
		      strstr(m, tables) && strstr(m, "not a tagbot state"), "%s", m);
	after = slurp(th_dbpath, &nafter);
	ck_assert_uint_eq(nafter, nbefore);
	ck_assert_msg(!memcmp(before, after, nbefore), "the refused database was changed");
	snprintf(wal, sizeof(wal), "%s-wal", th_dbpath);
	ck_assert_int_eq(access(wal, F_OK), -1);
	free(before);
	free(after);
}

START_TEST(test_foreign_sqlite_refused)
{
	assert_foreign_refused("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
			       "CREATE TABLE tags (note INTEGER, tag TEXT);"
			       "INSERT INTO notes (body) VALUES ('keep me');",
			       "application_id 0x00000000", "tables notes, tags");
}
END_TEST

/* One with an application_id of its own, even with tables named as ours. */
START_TEST(test_foreign_app_id_refused)
{
	assert_foreign_refused("PRAGMA application_id = 0x0f055112;"
			       "CREATE TABLE messages (id INTEGER);"
			       "CREATE TABLE checkpoints (id INTEGER);"
			       "CREATE TABLE outbox (id INTEGER);"
			       "PRAGMA user_version = 1;",
			       "application_id 0x0f055112", "tables checkpoints, messages, outbox");
}
END_TEST

/* An SQLite database without any table is no state of ours either. */
START_TEST(test_tableless_sqlite_refused)
{
	assert_foreign_refused("PRAGMA user_version = 7; VACUUM;", "application_id 0x00000000",
			       "no tables");
}
END_TEST

/* A state of a tagbot from before the marker (its tables and schema
 * version, no application_id) is ours: opened, and marked. */
START_TEST(test_old_state_marked)
{
	struct store_message m = msg("kept@example.org", STORE_CLEAN, NULL);
	struct store *st = th_store_open();
	sqlite3 *db;
	struct err e;

	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	store_close(st);
	ck_assert_int_eq(sqlite3_open(th_dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA application_id = 0", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	ck_assert_uint_eq(app_id(), 0);
	st = th_store_open();
	ck_assert(seen(st, "kept@example.org"));
	store_close(st);
	ck_assert_uint_eq(app_id(), STORE_SQLITE_APPLICATION_ID);
}
END_TEST

/* A dry run copies only a tagbot state: another program's database is
 * refused before anything is copied. */
START_TEST(test_snapshot_foreign_refused)
{
	char copy_path[160];
	struct err e;

	foreign_db("CREATE TABLE notes (body TEXT);");
	snprintf(copy_path, sizeof(copy_path), "%s/copy.db", th_dir);
	ck_assert_int_eq(store_snapshot(th_dbpath, copy_path, 0, &e), -1);
	ck_assert_msg(strstr(e.msg, th_dbpath) && strstr(e.msg, "not a tagbot state"), "%s", e.msg);
	ck_assert_int_eq(access(copy_path, F_OK), -1);
}
END_TEST

/* A dry run's copy: taken while the original is open with a write in its
 * WAL, it holds that write; what is written to the copy stays there; the
 * original is checked as store_open() checks it; no file, nothing copied. */
START_TEST(test_snapshot)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	struct store_message m = msg("before-copy@example.org", STORE_CLEAN, NULL);
	struct store_message m2 = msg("in-copy@example.org", STORE_CLEAN, NULL);
	struct store_settings ss;
	struct store *st, *copy;
	char copy_path[160], p[176];
	struct err e;

	snprintf(copy_path, sizeof(copy_path), "%s/copy.db", th_dir);
	ck_assert_int_eq(store_snapshot(th_dbpath, copy_path, 0, &e), STORE_SNAPSHOT_NO_FILE);
	ck_assert_int_eq(access(copy_path, F_OK), -1);
	st = th_store_open();
	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), 0);
	ck_assert_msg(store_snapshot(th_dbpath, copy_path, 0, &e) == 0, "store_snapshot: %s", e.msg);
	store_settings_init(&ss);
	ss.path = copy_path;
	ck_assert_msg(store_open(&copy, &ss, &e) == 0, "store_open: %s", e.msg);
	ck_assert(seen(copy, "before-copy@example.org"));
	ck_assert_int_eq(store_record_message(copy, &m2, NULL, &e), 0);
	ck_assert(!seen(st, "in-copy@example.org"));
	store_close(copy);
	store_close(st);
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", copy_path, suffix[i]);
		unlink(p);
	}
	unlink(th_dbpath);
	write_file(th_dbpath, "");
	ck_assert_int_eq(store_snapshot(th_dbpath, copy_path, 0, &e), -1);
	ck_assert_msg(strstr(e.msg, "exists but is empty (0 bytes)"), "%s", e.msg);
	ck_assert_int_eq(access(copy_path, F_OK), -1);
}
END_TEST

START_TEST(test_record_decisions)
{
	static const struct {
		const char *id;
		enum store_decision d;
		const char *why;
	} rows[] = {
		{ "c1@x", STORE_CLEAN, NULL },
		{ "c2@x", STORE_CLEAN, NULL },
		{ "s1@x", STORE_SKIPPED, "rate-limit" },
		{ "s2@x", STORE_SKIPPED, NULL },	/* stored as skipped:other */
		{ "e1@x", STORE_ERROR, NULL },
	};
	struct store *st = th_store_open();
	struct store_message m = msg("r@x", STORE_REPLIED, NULL);
	struct store_counts c;
	struct err e;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		m = msg(rows[i].id, rows[i].d, rows[i].why);
		ck_assert_msg(store_record_message(st, &m, NULL, &e) == 0, "%s", e.msg);
	}
	/* A reply goes through store_record_reply only. */
	m = msg("r@x", STORE_REPLIED, NULL);
	ck_assert_int_eq(store_record_message(st, &m, NULL, &e), -1);
	c = counts(st);
	ck_assert_int_eq(c.messages, 5);
	ck_assert_int_eq(c.clean, 2);
	ck_assert_int_eq(c.skipped, 2);
	ck_assert_int_eq(c.errors, 1);
	ck_assert_int_eq(c.replied, 0);
	store_close(st);
}
END_TEST

static void count_cp(void *ctx, const char *source, const char *folder,
		     const struct store_checkpoint *cp)
{
	char *out = ctx;

	snprintf(out + strlen(out), 256 - strlen(out), "%s/%s=%u:%u;", source, folder,
		 cp->uidvalidity, cp->last_uid);
}

START_TEST(test_checkpoint_foreach)
{
	struct store_checkpoint a = { 1, 2 }, b = { 3, 4 };
	struct store *st = th_store_open();
	char out[256] = "";
	struct err e;

	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:b", "INBOX" },
				&b, &e), 0);
	ck_assert_int_eq(store_checkpoint_set(st, &(struct store_folder){ "imap:a", "INBOX" },
				&a, &e), 0);
	ck_assert_int_eq(store_checkpoint_foreach(st, count_cp, out, &e), 0);
	ck_assert_str_eq(out, "imap:a/INBOX=1:2;imap:b/INBOX=3:4;");
	store_close(st);
}
END_TEST


/* Mail text is kept as the bytes it came in, UTF-8 or not (a Latin-1
 * subject): what a context row holds comes back the same, on either engine
 * (PostgreSQL: a database created with ENCODING SQL_ASCII, tagbot.ini(5)). */
START_TEST(test_text_bytes_kept)
{
	struct store *st = th_store_open();
	struct msg_context c, got;
	bool found;
	struct err e;

	msg_context_init(&c);
	msg_context_init(&got);
	c.message_id = xstrdup("latin1@x.org");
	c.subject = xstrdup("leds: caf\xe9 \xff\xfe fix");
	c.sender = xstrdup("ren\xe9@x.org");
	c.kind = xstrdup("patch");
	ck_assert_msg(store_context_put(st, &c, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(store_context_get(st, "latin1@x.org", &got, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(got.subject, c.subject);
	ck_assert_str_eq(got.sender, c.sender);
	msg_context_release(&c);
	msg_context_release(&got);
	store_close(st);
}
END_TEST

/* What messages and logs show of a PostgreSQL URL: never its password. */
START_TEST(test_mask_url)
{
	static const struct {
		const char *url, *shown;
	} cases[] = {
		{ "postgresql://tagbot@db.example.org/tagbot", "postgresql://tagbot@db.example.org/tagbot" },
		{ "postgresql://tagbot:s3cret@db.example.org:5433/tagbot",
		  "postgresql://tagbot:***@db.example.org:5433/tagbot" },
		{ "postgres://u:p%40ss@h/db?sslmode=require", "postgres://u:***@h/db?sslmode=require" },
		{ "postgresql://h/db?user=u&password=s3cret&sslmode=verify-full",
		  "postgresql://h/db?user=u&password=***&sslmode=verify-full" },
		{ "postgresql://h/db?application_name=a@b", "postgresql://h/db?application_name=a@b" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m = store_mask_url(cases[i].url);

		ck_assert_str_eq(m, cases[i].shown);
		free(m);
	}
	ck_assert(store_is_url("postgresql://h/db"));
	ck_assert(store_is_url("postgres://h/db"));
	ck_assert(!store_is_url("state.db"));
	ck_assert(!store_is_url("postgresql.db"));
}
END_TEST

/* PostgreSQL only: a second connection, another daemon, while the first
 * holds the due reply it is claiming, does not get it (FOR UPDATE SKIP
 * LOCKED), nor after the claim committed (due later); another due reply it
 * does get. */
START_TEST(test_pg_claim_once)
{
	struct store *a = th_store_open(), *b = th_store_open();
	struct outbox_item ia, ib;
	bool found;
	struct err e;

	outbox_item_init(&ia);
	outbox_item_init(&ib);
	ck_assert_int_eq(queue_reply(a, "c1@x.org", "rc1@bot"), STORE_QUEUED);
	ck_assert_int_eq(store_begin(a, &e), 0);
	ck_assert_int_eq(store_outbox_next_due(a, 1000, &ia, &found, &e), 0);
	ck_assert(found);
	ck_assert_int_eq(store_begin(b, &e), 0);
	ck_assert_msg(store_outbox_next_due(b, 1000, &ib, &found, &e) == 0, "%s", e.msg);
	ck_assert_msg(!found, "the second daemon got <%s> too", ib.reply_msgid);
	ck_assert_int_eq(store_commit(b, &e), 0);
	ck_assert_int_eq(store_outbox_mark_retry(a, ia.reply_msgid, 1000 + 600, "sending (claimed)",
						 &e), 0);
	ck_assert_int_eq(store_commit(a, &e), 0);
	ck_assert_int_eq(store_outbox_next_due(b, 1000, &ib, &found, &e), 0);
	ck_assert(!found);
	ck_assert_int_eq(queue_reply(a, "c2@x.org", "rc2@bot"), STORE_QUEUED);
	ck_assert_int_eq(store_outbox_next_due(b, 1000, &ib, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(ib.reply_msgid, "rc2@bot");
	ck_assert_int_eq(store_outbox_mark_sent(b, "rc2@bot", 1001, NULL, &e), 0);
	/* The lease ran out (the claimer died): the other one retries it. */
	ck_assert_int_eq(store_outbox_next_due(b, 1600, &ib, &found, &e), 0);
	ck_assert(found);
	ck_assert_str_eq(ib.reply_msgid, "rc1@bot");
	ck_assert_int_eq(ib.attempts, 1);
	outbox_item_release(&ia);
	outbox_item_release(&ib);
	store_close(b);
	store_close(a);
}
END_TEST

/* PostgreSQL only: a message the other daemon is recording (its insert not
 * committed yet) is decided once: the second insert waits, then finds it. */
START_TEST(test_pg_decided_once)
{
	struct store *a = th_store_open(), *b = th_store_open();
	struct store_message m = msg("twice@x.org", STORE_CLEAN, NULL);
	bool added = true;
	int status;
	pid_t pid;
	struct err e;

	ck_assert_int_eq(store_begin(a, &e), 0);
	ck_assert_int_eq(store_record_message(a, &m, &added, &e), 0);
	ck_assert(added);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {		/* commits a's transaction in a moment */
		usleep(300 * 1000);
		_exit(store_commit(a, &e) == 0 ? 0 : 1);
	}
	ck_assert_msg(store_record_message(b, &m, &added, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(!added);
	ck_assert_int_eq(counts(b).messages, 1);
	store_close(b);
	store_close(a);
}
END_TEST

/* PostgreSQL only: a wrong password is refused (ERR_TEMP: the server may
 * come right), the message names the database but shows no password. */
START_TEST(test_pg_wrong_password)
{
	static const char wrong[] = "Wr0ng-pa55-4-tagbot";
	struct store_settings s;
	struct store *st = NULL;
	char url[512];
	struct err e;

	store_settings_init(&s);
	s.path = th_pg_url();
	s.password = wrong;
	err_init(&e);
	ck_assert_int_eq(store_open(&st, &s, &e), -1);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(e.msg, "cannot connect") && strstr(e.msg, th_pg_url()), "%s", e.msg);
	ck_assert_msg(!strstr(e.msg, wrong), "%s", e.msg);
	/* In the URL itself: masked in the message. */
	ck_assert_ptr_nonnull(strstr(th_pg_url(), "://"));
	snprintf(url, sizeof(url), "%.*s:%s@%s", (int)(strchr(th_pg_url(), '@') - th_pg_url()),
		 th_pg_url(), wrong, strchr(th_pg_url(), '@') + 1);
	s.path = url;
	s.password = NULL;
	ck_assert_int_eq(store_open(&st, &s, &e), -1);
	ck_assert_msg(!strstr(e.msg, wrong) && strstr(e.msg, ":***@"), "%s", e.msg);
}
END_TEST

static void add_file_tests(TCase *file)
{
	tcase_add_test(file, test_unique_parent_in_schema);
	tcase_add_test(file, test_refuses_newer_schema);
	tcase_add_test(file, test_migrate_2_to_3);
	tcase_add_test(file, test_told_about);
	tcase_add_test(file, test_told_what);
	tcase_add_test(file, test_rate_index);
	tcase_add_test(file, test_context_ref_migration);
	tcase_add_test(file, test_open_errors);
	tcase_add_test(file, test_empty_file_refused);
	tcase_add_test(file, test_not_sqlite_refused);
	tcase_add_test(file, test_directory_refused);
	tcase_add_test(file, test_absent_file_created);
	tcase_add_test(file, test_foreign_sqlite_refused);
	tcase_add_test(file, test_foreign_app_id_refused);
	tcase_add_test(file, test_tableless_sqlite_refused);
	tcase_add_test(file, test_old_state_marked);
	tcase_add_test(file, test_snapshot_foreign_refused);
	tcase_add_test(file, test_snapshot);
}

static void add_pg_tests(TCase *pg)
{
	tcase_add_test(pg, test_pg_claim_once);
	tcase_add_test(pg, test_pg_decided_once);
	tcase_add_test(pg, test_pg_wrong_password);
}

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");
	/* One or the other: Check frees only the TCases added to a suite. */
	TCase *other = tcase_create(th_pg_url() ? "postgresql" : "sqlite-file");

	/* core runs on either engine (PostgreSQL: tests/integration/store-pg.sh);
	 * sqlite-file is about SQLite's file and schema versions, postgresql
	 * about two connections to one server. */
	tcase_add_checked_fixture(tc, th_scratch_setup, th_scratch_teardown);
	tcase_add_checked_fixture(other, th_scratch_setup, th_scratch_teardown);
	if (th_pg_url())
		add_pg_tests(other);
	else
		add_file_tests(other);
	tcase_add_test(tc, test_mask_url);
	tcase_add_test(tc, test_text_bytes_kept);
	tcase_add_test(tc, test_msgid_key);
	tcase_add_test(tc, test_msgid_key_too_long);
	tcase_add_test(tc, test_dedupe_forms);
	tcase_add_test(tc, test_reopen_keeps_everything);
	tcase_add_test(tc, test_forget_decision);
	tcase_add_test(tc, test_held_and_rate_events);
	tcase_add_test(tc, test_context_related);
	tcase_add_test(tc, test_waiting);
	tcase_add_test(tc, test_rate_events);
	tcase_add_test(tc, test_checkpoint_update);
	tcase_add_test(tc, test_one_reply_per_parent);
	tcase_add_test(tc, test_atomic_injected_failure);
	tcase_add_test(tc, test_atomic_sigkill);
	tcase_add_test(tc, test_atomic_second_insert_fails);
	tcase_add_test(tc, test_refuses_bad_reply);
	tcase_add_test(tc, test_outbox_lifecycle);
	tcase_add_test(tc, test_outbox_order);
	tcase_add_test(tc, test_outbox_unclaim_and_note);
	tcase_add_test(tc, test_sink_state);
	tcase_add_test(tc, test_unread);
	tcase_add_test(tc, test_claims_divide);
	tcase_add_test(tc, test_claims_taken_over);
	tcase_add_test(tc, test_claims_hold_for_retry);
	tcase_add_test(tc, test_claims_renumbered);
	tcase_add_test(tc, test_nested_transaction);
	tcase_add_test(tc, test_record_decisions);
	tcase_add_test(tc, test_checkpoint_foreach);
	tcase_add_test(tc, test_series_create_twice);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, other);
	return th_run_suite(s);
}
