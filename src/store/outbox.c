/* outbox.c - queueing a reply (its message row and outbox row in one
 * transaction, store.h's at-most-once guarantee) and the outbox's states. */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "mail/msgid.h"
#include "store/store_p.h"

/* --- queueing a reply --------------------------------------------------- */

int (*store_test_hook)(const char *point);

/* Recipients are stored one per line; an address holding a line break
 * could smuggle a second one, so it is refused. */
static int join_rcpt(struct store *st, const struct store_outgoing *o, struct buf *b, struct err *e)
{
	if (o->nrcpt == 0)
		return err_set(e, ERR_FINAL, "store %s: a reply without recipients", st->path);
	for (size_t i = 0; i < o->nrcpt; i++) {
		if (!o->rcpt[i][0] || strpbrk(o->rcpt[i], "\r\n"))
			return err_set(e, ERR_FINAL, "store %s: bad recipient", st->path);
		if ((i && buf_addch(b, '\n') < 0) || buf_addstr(b, o->rcpt[i]) < 0)
			return err_set(e, ERR_FINAL, "store %s: recipient list too long", st->path);
	}
	return 0;
}

int outbox_insert(struct store *st, const struct outbox_row *r, bool *added, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_INSERT_OUTBOX);
	const struct store_outgoing *o = r->o;

	db_bind_text(s, 1, r->reply_key);
	db_bind_text(s, 2, r->parent_key);
	db_bind_text(s, 3, o->envelope_from ? o->envelope_from : "");
	db_bind_text(s, 4, r->rcpt);
	db_bind_blob(s, 5, o->raw, o->len);
	db_bind_int64(s, 6, (int64_t)r->now);
	db_bind_int64(s, 7, (int64_t)o->not_before);
	if (db_step_done(s) != DB_OK)
		return db_err(st, e, "queueing a reply");
	*added = db_changes(st->db) > 0;
	return 0;
}

enum tx_result {
	TX_OK,
	TX_KNOWN,	/* the message or the parent's reply already exists */
	TX_FAILED	/* e filled */
};

/* The body of store_record_reply, run inside its transaction; m is the
 * message r->parent_key names. */
static enum tx_result record_reply_tx(struct store *st, const struct store_message *m,
				      const struct outbox_row *r, struct err *e)
{
	bool added;

	if (messages_insert(st, r->parent_key, m, r->reply_key, &added, e) < 0)
		return TX_FAILED;
	if (!added)
		return TX_KNOWN;
	if (store_test_hook && store_test_hook("record_reply:after_message") < 0) {
		err_set(e, ERR_TEMP, "store %s: failure injected by a test", st->path);
		return TX_FAILED;
	}
	if (outbox_insert(st, r, &added, e) < 0)
		return TX_FAILED;
	/* Not added: that patch has its reply already. */
	return added ? TX_OK : TX_KNOWN;
}

static int check_outgoing(struct store *st, const struct store_outgoing *o, const char *key,
			  const char *parent_key, struct err *e)
{
	if (strcmp(key, parent_key))
		return err_set(e, ERR_FINAL, "store %s: the reply's parent is not the message recorded",
			       st->path);
	if (!o->raw || o->len == 0 || o->len > STORE_REPLY_MAX)
		return err_set(e, ERR_FINAL, "store %s: empty or oversized reply", st->path);
	return 0;
}

int store_record_reply(struct store *st, const struct store_message *m,
		       const struct store_outgoing *o, time_t now,
		       enum store_enqueue *res, struct err *e)
{
	char *key = msgid_key(m->msgid), *parent = msgid_key(o->parent_msgid);
	char *reply_key = msgid_key(o->reply_msgid);
	struct outbox_row row;
	enum tx_result r;
	struct buf rcpt;
	int rc = -1;

	buf_init(&rcpt, 64 * 1024);
	if (!key || !parent || !reply_key) {
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
		goto out;
	}
	if (check_outgoing(st, o, key, parent, e) < 0 || join_rcpt(st, o, &rcpt, e) < 0 ||
	    store_begin(st, e) < 0)
		goto out;
	row = (struct outbox_row){ o, reply_key, key, rcpt.data, now };
	r = record_reply_tx(st, m, &row, e);
	if (r == TX_OK) {
		*res = STORE_QUEUED;
		rc = store_commit(st, e);
		goto out;
	}
	store_rollback(st);
	if (r == TX_KNOWN) {
		*res = STORE_ALREADY_QUEUED;
		rc = 0;
	}
out:
	free(key);
	free(parent);
	free(reply_key);
	buf_release(&rcpt);
	return rc;
}

/* Queues o for the group id in one transaction, by tx. */
int outbox_queue_grouped(struct store *st, const char *id, const struct store_outgoing *o,
			 time_t now, enum store_enqueue *res, reply_tx_fn *tx, struct err *e)
{
	char *lead = msgid_key(o->parent_msgid), *reply_key = msgid_key(o->reply_msgid);
	struct buf list;
	int rc = -1;

	buf_init(&list, 64 * 1024);
	if (!lead || !reply_key)
		err_set(e, ERR_FINAL, "store %s: empty or oversized Message-ID", st->path);
	else if (!o->raw || o->len == 0 || o->len > STORE_REPLY_MAX)
		err_set(e, ERR_FINAL, "store %s: empty or oversized reply", st->path);
	else if (join_rcpt(st, o, &list, e) == 0 && store_begin(st, e) == 0) {
		struct outbox_row row = { o, reply_key, lead, list.data, now };

		rc = tx(st, id, &row, res, e);
		if (rc == 0)
			rc = store_commit(st, e);
		else
			store_rollback(st);
	}
	free(lead);
	free(reply_key);
	buf_release(&list);
	return rc;
}

/* --- outbox ------------------------------------------------------------ */

static const char *const state_names[] = {
	[OUTBOX_QUEUED] = "queued",
	[OUTBOX_SENT] = "sent",
	[OUTBOX_FAILED] = "failed",
};

const char *outbox_state_name(enum outbox_state s)
{
	return (unsigned)s <= OUTBOX_FAILED ? state_names[s] : "?";
}

static enum outbox_state state_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(state_names); i++)
		if (!strcmp(s, state_names[i]))
			return (enum outbox_state)i;
	return OUTBOX_FAILED;
}

void outbox_item_init(struct outbox_item *it)
{
	memset(it, 0, sizeof(*it));
}

void outbox_item_release(struct outbox_item *it)
{
	free(it->reply_msgid);
	free(it->parent_msgid);
	free(it->envelope_from);
	for (size_t i = 0; i < it->nrcpt; i++)
		free(it->rcpt[i]);
	free(it->rcpt);
	free(it->raw);
	free(it->last_error);
	outbox_item_init(it);
}

static void split_rcpt(struct outbox_item *it, const char *list)
{
	size_t alloc = 0;

	while (*list) {
		size_t n = strcspn(list, "\n");

		if (n) {
			ARRAY_GROW(it->rcpt, alloc, it->nrcpt + 1);
			it->rcpt[it->nrcpt++] = xstrndup(list, n);
		}
		list += n;
		if (*list)
			list++;
	}
}

static void fill_item(struct db_stmt *s, struct outbox_item *it)
{
	size_t len;
	const void *raw = db_col_blob(s, 4, &len);
	char *rcpt = db_col_text(s, 3), *state = db_col_text(s, 5);

	it->reply_msgid = db_col_text(s, 0);
	it->parent_msgid = db_col_text(s, 1);
	it->envelope_from = db_col_text(s, 2);
	split_rcpt(it, rcpt);
	it->raw = xmalloc(len + 1);
	if (len)
		memcpy(it->raw, raw, len);
	it->raw[len] = '\0';
	it->len = len;
	it->state = state_parse(state);
	it->attempts = db_col_int(s, 6);
	it->next_attempt = (time_t)db_col_int64(s, 7);
	it->last_error = db_col_text(s, 8);
	free(rcpt);
	free(state);
}

int store_outbox_next_due(struct store *st, time_t now, struct outbox_item *it,
			  bool *found, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_OUTBOX_DUE);
	int rc;

	outbox_item_release(it);
	db_bind_int64(s, 1, (int64_t)now);
	rc = db_step(s);
	*found = rc == DB_ROW;
	if (*found)
		fill_item(s, it);
	db_reset(s);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "reading the outbox");
	return 0;
}

int store_outbox_next_time(struct store *st, time_t *when, bool *found, struct err *e)
{
	struct db_stmt *s = db_stmt(st, S_OUTBOX_NEXT_TIME);
	int rc = db_step(s);

	*found = rc == DB_ROW && !db_col_null(s, 0);
	*when = *found ? (time_t)db_col_int64(s, 0) : 0;
	db_reset(s);
	if (rc != DB_ROW && rc != DB_OK)
		return db_err(st, e, "reading the outbox");
	return 0;
}

/* Runs one of the state updates; a reply that is not queued (or not
 * there) is an error: the caller's idea of the outbox is wrong. */
static int mark(struct store *st, enum stmt_id id, const char *reply_msgid, time_t t,
		const char *error, struct err *e)
{
	char *key = db_key(st, reply_msgid, e);
	struct db_stmt *s;
	int rc;

	if (!key)
		return -1;
	s = db_stmt(st, id);
	db_bind_text(s, 1, key);
	db_bind_int64(s, 2, (int64_t)t);
	db_bind_text(s, 3, error ? error : "");
	rc = db_step_done(s);
	if (rc != DB_OK) {
		free(key);
		return db_err(st, e, "updating the outbox");
	}
	if (db_changes(st->db) != 1) {
		err_set(e, ERR_FINAL, "store %s: reply <%s> is not queued", st->path, key);
		free(key);
		return -1;
	}
	free(key);
	return 0;
}

int store_outbox_mark_sent(struct store *st, const char *reply_msgid, time_t now,
			   const char *note, struct err *e)
{
	return mark(st, S_MARK_SENT, reply_msgid, now, note, e);
}

int store_outbox_mark_retry(struct store *st, const char *reply_msgid, time_t next,
			    const char *error, struct err *e)
{
	return mark(st, S_MARK_RETRY, reply_msgid, next, error, e);
}

int store_outbox_mark_failed(struct store *st, const char *reply_msgid, time_t now,
			     const char *error, struct err *e)
{
	return mark(st, S_MARK_FAILED, reply_msgid, now, error, e);
}

int store_outbox_unclaim(struct store *st, const char *reply_msgid, time_t now,
			 const char *error, struct err *e)
{
	return mark(st, S_UNCLAIM, reply_msgid, now, error, e);
}
