/*
 * claims.c - the claims table: the ranges of a folder that daemons sharing
 * one state took to read, and the folder's checkpoint moved over what
 * they finished (store.h, "claims").  Only store_claim_next() takes the
 * claims' lock and moves the checkpoint, in a short transaction of its
 * own: a batch records its claim's progress in its own row, so the
 * daemons' batches never wait for each other.
 */
#include "autoconf.h"
#include <string.h>

#include "store/store_p.h"

/* Two daemons asking for a claim, or finishing one, take turns. */
static int lock(struct store *st, struct err *e)
{
	const char *sql = st->db->drv->lock_claims;

	return sql ? db_exec(st, sql, e) : 0;
}

/* One row of the claims of a folder, in the order of their numbers. */
struct row {
	uint32_t lo, hi, done_to;
	bool mine;
	time_t until;
};

static int prep_folder(struct store *st, const char *sql, const struct store_claim_ask *a,
		       struct db_stmt **s, struct err *e)
{
	if (db_prep(st, sql, s, e) < 0)
		return -1;
	db_bind_text(*s, 1, a->source);
	db_bind_text(*s, 2, a->folder ? a->folder : "");
	return 0;
}

/* Drops the claims the checkpoint passed, and those of another UIDVALIDITY. */
static int prune(struct store *st, const struct store_claim_ask *a, uint32_t last_uid,
		 struct err *e)
{
	struct db_stmt *s;

	if (prep_folder(st, "DELETE FROM claims WHERE source = ?1 AND folder = ?2"
			" AND (hi <= ?3 OR validity != ?4)", a, &s, e) < 0)
		return -1;
	db_bind_int64(s, 3, last_uid);
	db_bind_int64(s, 4, a->validity);
	return db_run_done(st, s, "dropping claims", e);
}

/* The folder's checkpoint; its UIDVALIDITY must be the one asked about. */
static int checkpoint(struct store *st, const struct store_claim_ask *a,
		      struct store_checkpoint *cp, struct err *e)
{
	struct store_folder where = { a->source, a->folder };
	bool found;

	if (store_checkpoint_get(st, &where, cp, &found, e) < 0)
		return -1;
	if (!found || cp->uidvalidity != a->validity)
		return err_set(e, ERR_TEMP, "store %s: the checkpoint of %s %s is not the folder's "
			       "(UIDVALIDITY %u, the folder's %u): reading it again", st->path,
			       a->source, a->folder ? a->folder : "",
			       found ? cp->uidvalidity : 0, a->validity);
	return 0;
}

/* Calls fn on each claim of the folder above the checkpoint, lowest first,
 * until it returns nonzero; that is returned (-1 with e filled). */
static int each_row(struct store *st, const struct store_claim_ask *a, uint32_t above,
		    int (*fn)(void *ctx, const struct row *r), void *ctx, struct err *e)
{
	struct db_stmt *s;
	int rc, stop = 0;

	if (prep_folder(st, "SELECT lo, hi, done_to, owner, until FROM claims"
			" WHERE source = ?1 AND folder = ?2 AND hi > ?3 ORDER BY lo", a, &s, e) < 0)
		return -1;
	db_bind_int64(s, 3, above);
	while (!stop && (rc = db_step(s)) == DB_ROW) {
		struct row r = {
			(uint32_t)db_col_int64(s, 0), (uint32_t)db_col_int64(s, 1),
			(uint32_t)db_col_int64(s, 2), !strcmp(db_col_str(s, 3), a->owner),
			(time_t)db_col_int64(s, 4),
		};

		stop = fn(ctx, &r);
	}
	if (stop)
		rc = DB_OK;
	if (db_row_end(st, s, rc, "reading the claims", e) < 0)
		return -1;
	return stop;
}

/* --- the next claim ------------------------------------------------------- */

enum pick {
	PICK_ON,	/* look at the next row */
	PICK_NEW,	/* a new claim from `from' */
	PICK_TAKE	/* take the row over */
};

struct next {
	const struct store_claim_ask *a;
	uint32_t from;			/* the first number no row covers */
	struct store_claim *c;
	enum pick pick;
};

static int next_row(void *ctx, const struct row *r)
{
	struct next *n = ctx;

	if (r->lo > n->from && n->from <= n->a->top) {
		n->c->hi = r->lo - 1;	/* a new claim ends below the row */
		n->pick = PICK_NEW;
		return 1;
	}
	if (r->done_to < r->hi && (r->mine || r->until <= n->a->now)) {
		n->c->lo = r->lo;
		n->c->hi = r->hi;
		n->c->done_to = r->done_to < r->lo ? r->lo - 1 : r->done_to;
		n->pick = PICK_TAKE;
		return 1;
	}
	if (r->done_to < r->hi && (!n->c->wake || r->until < n->c->wake))
		n->c->wake = r->until;
	if (r->hi >= n->from)
		n->from = r->hi + 1;
	return 0;
}

static int add_claim(struct store *st, const struct store_claim_ask *a, struct store_claim *c,
		     struct err *e)
{
	struct db_stmt *s;

	if (prep_folder(st, "INSERT INTO claims (source, folder, lo, hi, done_to, validity, owner,"
			" until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", a, &s, e) < 0)
		return -1;
	db_bind_int64(s, 3, c->lo);
	db_bind_int64(s, 4, c->hi);
	db_bind_int64(s, 5, (int64_t)c->lo - 1);
	db_bind_int64(s, 6, a->validity);
	db_bind_text(s, 7, a->owner);
	db_bind_int64(s, 8, (int64_t)(a->now + a->lease));
	return db_run_done(st, s, "writing a claim", e);
}

static int take_claim(struct store *st, const struct store_claim_ask *a,
		      const struct store_claim *c, struct err *e)
{
	struct db_stmt *s;

	if (prep_folder(st, "UPDATE claims SET owner = ?3, until = ?4 WHERE source = ?1"
			" AND folder = ?2 AND lo = ?5", a, &s, e) < 0)
		return -1;
	db_bind_text(s, 3, a->owner);
	db_bind_int64(s, 4, (int64_t)(a->now + a->lease));
	db_bind_int64(s, 5, c->lo);
	return db_run_done(st, s, "writing a claim", e);
}

/* ctx: the checkpoint, moved over the rows finished in a row above it. */
static int advance_row(void *ctx, const struct row *r)
{
	uint32_t *to = ctx;

	if (r->lo > *to + 1)
		return 1;	/* no claim covers the numbers after the checkpoint */
	if (r->done_to > *to)
		*to = r->done_to;
	return r->done_to < r->hi;
}

/* The first number of the folder still asked for again (0: none). */
static int first_retry(struct store *st, const struct store_claim_ask *a, uint32_t *uid,
		       struct err *e)
{
	struct db_stmt *s;
	int rc;

	*uid = 0;
	if (prep_folder(st, "SELECT min(uid) FROM unread WHERE source = ?1 AND folder = ?2"
			" AND state = 'retry'", a, &s, e) < 0)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW && !db_col_null(s, 0))
		*uid = (uint32_t)db_col_int64(s, 0);
	return db_row_end(st, s, rc, "reading unread mail", e);
}

/* The checkpoint moved over the claims done in a row above it, not past
 * a retry; the claims it passed dropped. */
static int advance(struct store *st, const struct store_claim_ask *a,
		   struct store_checkpoint *cp, struct err *e)
{
	struct store_folder where = { a->source, a->folder };
	uint32_t to = cp->last_uid, retry;

	if (each_row(st, a, cp->last_uid, advance_row, &to, e) < 0 ||
	    first_retry(st, a, &retry, e) < 0)
		return -1;
	if (retry && retry - 1 < to)
		to = retry - 1;
	if (to > cp->last_uid) {
		cp->last_uid = to;
		if (store_checkpoint_set(st, &where, cp, e) < 0)
			return -1;
	}
	return prune(st, a, cp->last_uid, e);
}

/* Inside the transaction and the lock: picks and writes the claim. */
static int pick(struct store *st, const struct store_claim_ask *a, struct store_claim *c,
		bool *found, struct err *e)
{
	struct store_checkpoint cp;
	struct next n = { a, 0, c, PICK_ON };
	uint32_t span = a->span ? a->span : 1;

	if (checkpoint(st, a, &cp, e) < 0 || advance(st, a, &cp, e) < 0)
		return -1;
	c->checkpoint = cp.last_uid;
	n.from = cp.last_uid + 1;
	c->hi = a->top;
	if (each_row(st, a, cp.last_uid, next_row, &n, e) < 0)
		return -1;
	if (n.pick == PICK_TAKE) {
		*found = true;
		return take_claim(st, a, c, e);
	}
	if (n.from > a->top || !n.from)
		return 0;
	c->lo = n.from;
	c->done_to = n.from - 1;
	if (c->hi > a->top)
		c->hi = a->top;
	if (c->hi - c->lo >= span)
		c->hi = c->lo + span - 1;
	*found = true;
	return add_claim(st, a, c, e);
}

int store_claim_next(struct store *st, const struct store_claim_ask *a, struct store_claim *c,
		     bool *found, struct err *e)
{
	memset(c, 0, sizeof(*c));
	*found = false;
	if (st->depth)
		return err_set(e, ERR_FINAL, "store %s: a claim is taken outside a transaction",
			       st->path);
	if (store_begin(st, e) < 0)
		return -1;
	if (lock(st, e) < 0 || pick(st, a, c, found, e) < 0) {
		store_rollback(st);
		*found = false;
		return -1;
	}
	return store_commit(st, e);
}

int store_claim_done(struct store *st, const struct store_claim_ask *a, uint32_t lo,
		     uint32_t done_to, struct err *e)
{
	struct db_stmt *s;

	if (!st->depth)
		return err_set(e, ERR_FINAL, "store %s: a claim is done inside a transaction",
			       st->path);
	/* The progress counts whoever holds the claim now: it is recorded. */
	if (prep_folder(st, "UPDATE claims SET until = ?5, done_to = CASE WHEN done_to < ?4"
			" THEN ?4 ELSE done_to END WHERE source = ?1 AND folder = ?2 AND lo = ?3",
			a, &s, e) < 0)
		return -1;
	db_bind_int64(s, 3, lo);
	db_bind_int64(s, 4, done_to);
	db_bind_int64(s, 5, (int64_t)(a->now + a->lease));
	return db_run_done(st, s, "writing a claim", e);
}

int store_claim_release(struct store *st, const char *owner, struct err *e)
{
	struct db_stmt *s;

	if (db_prep(st, "UPDATE claims SET until = 0 WHERE owner = ?1", &s, e) < 0)
		return -1;
	db_bind_text(s, 1, owner);
	return db_run_done(st, s, "releasing claims", e);
}
