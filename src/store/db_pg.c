/*
 * db_pg.c - the PostgreSQL driver (db.h): the only file that includes
 * libpq-fe.h.  Built without PostgreSQL (configure --without-postgresql),
 * db_pg_open() refuses with a message that says so.
 *
 * Every statement runs with PQexecParams: parameters typed by their bind
 * (int8, text, bytea), results in binary, so a raw mail crosses the wire
 * once as it is, not hex-escaped.  The table files write ?N; this file
 * turns it into $N.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "store/db.h"

#ifndef HAVE_LIBPQ

struct db *db_pg_open(const char *conninfo, const char *password, const char *name, int busy_ms,
		      struct err *e)
{
	(void)conninfo;
	(void)password;
	(void)busy_ms;
	err_set(e, ERR_FINAL, "store %s: this tagbot was built without PostgreSQL "
		"(configure --with-postgresql)", name);
	return NULL;
}

#else

#include <libpq-fe.h>

/* Type OIDs (PostgreSQL's catalog, pg_type.dat; stable across releases). */
#define OID_BOOL	16
#define OID_BYTEA	17
#define OID_INT8	20
#define OID_INT2	21
#define OID_INT4	23
#define OID_TEXT	25

#define PG_PARAMS_MAX	16	/* the most ?N a statement of the store has is 12 */
#define PG_ERR_MAX	1024	/* bytes of an error message kept */
#define PG_SQL_MAX	((size_t)64 * 1024)

struct pg {
	struct db base;
	PGconn *conn;		/* owned */
	char *name;		/* owned; masked conninfo */
	char err[PG_ERR_MAX];	/* the last failure */
	enum err_class cls;
	long changes;
	/* The connection broke inside a transaction: everything fails until
	 * the store's ROLLBACK, so no statement of it runs outside it after a
	 * reconnect. */
	bool lost_tx;
};

struct pg_stmt {
	struct db_stmt base;
	struct pg *c;				/* foreign */
	char *sql;				/* owned; with $N */
	int nparams;
	Oid types[PG_PARAMS_MAX];
	const char *vals[PG_PARAMS_MAX];	/* text: owned[i]; blob: foreign */
	char *owned[PG_PARAMS_MAX];
	int lens[PG_PARAMS_MAX];
	int fmts[PG_PARAMS_MAX];
	unsigned char ints[PG_PARAMS_MAX][8];	/* int8 parameters, network order */
	PGresult *res;				/* owned; NULL before the step */
	int row;				/* the current row, -1 before the first */
};

static const struct db_driver pg_driver;

/* SQLSTATE classes (PostgreSQL's errcodes): a conflict with another
 * transaction is worth waiting for, a lost server retrying; the rest is
 * a bug or a broken database. */
static enum err_class state_class(const char *state)
{
	if (!state)
		return ERR_TEMP;	/* no server answer: the connection */
	if (!strncmp(state, "40", 2) || !strcmp(state, "55P03") || !strcmp(state, "57014"))
		return ERR_WAIT;
	if (!strncmp(state, "08", 2) || !strncmp(state, "53", 2) || !strncmp(state, "57P", 3))
		return ERR_TEMP;
	return ERR_FINAL;
}

static int fail(struct pg *c, const PGresult *res)
{
	const char *msg = res ? PQresultErrorMessage(res) : "";
	size_t n;

	if (!msg || !*msg)
		msg = PQerrorMessage(c->conn);
	snprintf(c->err, sizeof(c->err), "%s", msg && *msg ? msg : "unknown error");
	n = strlen(c->err);
	while (n && (c->err[n - 1] == '\n' || c->err[n - 1] == ' '))
		c->err[--n] = '\0';
	/* libpq breaks its messages into lines and indents them: one log line. */
	for (char *p = c->err; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	c->cls = state_class(res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL);
	if (PQstatus(c->conn) == CONNECTION_BAD)
		c->cls = ERR_TEMP;
	return DB_ERROR;
}

/* Before a statement: a connection that broke is tried once more, unless a
 * transaction was lost with it. */
static int usable(struct pg *c, const char *sql)
{
	if (c->lost_tx && sql && !strcmp(sql, "ROLLBACK")) {
		c->lost_tx = false;	/* the transaction is gone already */
	} else if (c->lost_tx) {
		snprintf(c->err, sizeof(c->err), "the connection broke inside a transaction");
		c->cls = ERR_TEMP;
		return -1;
	}
	if (PQstatus(c->conn) == CONNECTION_BAD)
		PQreset(c->conn);
	return 0;
}

/* After a failure: whether it took a transaction with it. */
static void note_lost(struct pg *c, PGTransactionStatusType before)
{
	if (PQstatus(c->conn) == CONNECTION_BAD &&
	    (before == PQTRANS_INTRANS || before == PQTRANS_INERROR || before == PQTRANS_ACTIVE))
		c->lost_tx = true;
}

static int pg_exec(struct db *db, const char *sql)
{
	struct pg *c = (struct pg *)db;
	PGTransactionStatusType before = PQtransactionStatus(c->conn);
	PGresult *res;
	int rc;

	if (usable(c, sql) < 0)
		return DB_ERROR;
	res = PQexec(c->conn, sql);
	rc = PQresultStatus(res);
	if (rc == PGRES_COMMAND_OK || rc == PGRES_TUPLES_OK) {
		PQclear(res);
		return DB_OK;
	}
	fail(c, res);
	PQclear(res);
	note_lost(c, before);
	return DB_ERROR;
}

/* ?N -> $N outside quoted literals and identifiers; the highest N. */
static char *translate(const char *sql, int *nparams)
{
	struct buf b;
	char quote = 0;

	buf_init(&b, PG_SQL_MAX);
	*nparams = 0;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?' && p[1] >= '0' && p[1] <= '9') {
			int n = (int)strtol(p + 1, NULL, 10);

			if (n > *nparams)
				*nparams = n;
			buf_addch(&b, '$');
			continue;
		}
		buf_addch(&b, *p);
	}
	return buf_detach(&b, NULL);
}

static int pg_prepare(struct db *db, const char *sql, bool keep, struct db_stmt **out)
{
	struct pg *c = (struct pg *)db;
	struct pg_stmt *s;

	(void)keep;	/* every statement is parsed when it runs (its types come with the binds) */
	*out = NULL;
	s = xcalloc(1, sizeof(*s));
	s->base.drv = &pg_driver;
	s->c = c;
	s->sql = translate(sql, &s->nparams);
	s->row = -1;
	if (s->nparams > PG_PARAMS_MAX) {
		snprintf(c->err, sizeof(c->err), "%d parameters, more than %d", s->nparams,
			 PG_PARAMS_MAX);
		c->cls = ERR_FINAL;
		free(s->sql);
		free(s);
		return DB_ERROR;
	}
	*out = &s->base;
	return DB_OK;
}

#define P(x) ((struct pg_stmt *)(x))

/* Parameter i (1-based) emptied; NULL when i is out of range. */
static struct pg_stmt *param(struct db_stmt *st, int i)
{
	struct pg_stmt *s = P(st);

	if (i < 1 || i > s->nparams)
		return NULL;
	i--;
	free(s->owned[i]);
	s->owned[i] = NULL;
	s->vals[i] = NULL;
	s->lens[i] = 0;
	s->fmts[i] = 0;
	s->types[i] = 0;
	return s;
}

static void pg_bind_text(struct db_stmt *st, int i, const char *v)
{
	struct pg_stmt *s = param(st, i);

	if (!s)
		return;
	s->types[i - 1] = OID_TEXT;
	if (v)
		s->vals[i - 1] = s->owned[i - 1] = xstrdup(v);
}

static void pg_bind_blob(struct db_stmt *st, int i, const void *v, size_t len)
{
	struct pg_stmt *s = param(st, i);

	if (!s)
		return;
	s->types[i - 1] = OID_BYTEA;
	s->vals[i - 1] = len ? v : "";
	s->lens[i - 1] = (int)len;	/* the store caps blobs far below INT_MAX */
	s->fmts[i - 1] = 1;
}

static void pg_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	struct pg_stmt *s = param(st, i);
	uint64_t u = (uint64_t)v;

	if (!s)
		return;
	for (int k = 7; k >= 0; k--, u >>= 8)
		s->ints[i - 1][k] = (unsigned char)u;
	s->types[i - 1] = OID_INT8;
	s->vals[i - 1] = (const char *)s->ints[i - 1];
	s->lens[i - 1] = 8;
	s->fmts[i - 1] = 1;
}

static void pg_bind_null(struct db_stmt *st, int i)
{
	param(st, i);
}

static int pg_step(struct db_stmt *st)
{
	struct pg_stmt *s = P(st);
	struct pg *c = s->c;
	PGTransactionStatusType before;
	int rc;

	if (!s->res) {
		before = PQtransactionStatus(c->conn);
		if (usable(c, NULL) < 0)
			return DB_ERROR;
		s->res = PQexecParams(c->conn, s->sql, s->nparams, s->types, s->vals, s->lens,
				      s->fmts, 1);
		rc = PQresultStatus(s->res);
		if (rc == PGRES_COMMAND_OK) {
			c->changes = strtol(PQcmdTuples(s->res), NULL, 10);
			return DB_OK;
		}
		if (rc != PGRES_TUPLES_OK) {
			fail(c, s->res);
			PQclear(s->res);
			s->res = NULL;
			note_lost(c, before);
			return DB_ERROR;
		}
	}
	if (PQresultStatus(s->res) != PGRES_TUPLES_OK || s->row + 1 >= PQntuples(s->res)) {
		s->row = PQntuples(s->res);
		return DB_OK;
	}
	s->row++;
	return DB_ROW;
}

static void pg_reset(struct db_stmt *st)
{
	struct pg_stmt *s = P(st);

	PQclear(s->res);
	s->res = NULL;
	s->row = -1;
	for (int i = 1; i <= s->nparams; i++)
		param(st, i);
}

static void pg_finalize(struct db_stmt *st)
{
	struct pg_stmt *s = P(st);

	pg_reset(st);
	free(s->sql);
	free(s);
}

/* Whether the current row has column i. */
static bool have(struct pg_stmt *s, int i)
{
	return s->res && s->row >= 0 && s->row < PQntuples(s->res) && i >= 0 &&
	       i < PQnfields(s->res);
}

static bool pg_col_null(struct db_stmt *st, int i)
{
	struct pg_stmt *s = P(st);

	return !have(s, i) || PQgetisnull(s->res, s->row, i);
}

static const char *pg_col_text(struct db_stmt *st, int i)
{
	struct pg_stmt *s = P(st);

	return pg_col_null(st, i) ? NULL : PQgetvalue(s->res, s->row, i);
}

static const void *pg_col_blob(struct db_stmt *st, int i, size_t *len)
{
	struct pg_stmt *s = P(st);

	*len = 0;
	if (pg_col_null(st, i))
		return NULL;
	*len = (size_t)PQgetlength(s->res, s->row, i);
	return PQgetvalue(s->res, s->row, i);
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int k = 0; k < n; k++)
		v = v << 8 | p[k];
	return v;
}

/* Binary integers of any width the queries produce (count(*) is int8,
 * SELECT 1 int4); text as a number. */
static int64_t pg_col_int64(struct db_stmt *st, int i)
{
	struct pg_stmt *s = P(st);
	const unsigned char *p;
	int n;

	if (pg_col_null(st, i))
		return 0;
	p = (const unsigned char *)PQgetvalue(s->res, s->row, i);
	n = PQgetlength(s->res, s->row, i);
	switch (PQftype(s->res, i)) {
	case OID_INT8:
		return n == 8 ? (int64_t)be(p, 8) : 0;
	case OID_INT4:
		return n == 4 ? (int64_t)(int32_t)be(p, 4) : 0;
	case OID_INT2:
		return n == 2 ? (int64_t)(int16_t)be(p, 2) : 0;
	case OID_BOOL:
		return n == 1 && p[0];
	default:
		return strtoll((const char *)p, NULL, 10);
	}
}

static long pg_changes(struct db *db)
{
	return ((struct pg *)db)->changes;
}

/* The version lives in a table of its own, read inside the migration's
 * transaction (which holds the advisory lock). */
static int pg_get_version(struct db *db, int *v)
{
	struct pg *c = (struct pg *)db;
	PGresult *res;
	int rc;

	*v = 0;
	if (pg_exec(db, "CREATE TABLE IF NOT EXISTS tagbot_schema (version INTEGER NOT NULL)") !=
	    DB_OK)
		return DB_ERROR;
	res = PQexec(c->conn, "SELECT max(version) FROM tagbot_schema");
	rc = PQresultStatus(res) == PGRES_TUPLES_OK ? DB_OK : fail(c, res);
	if (rc == DB_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		*v = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return rc;
}

static int pg_set_version(struct db *db, int v)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "DELETE FROM tagbot_schema; INSERT INTO tagbot_schema VALUES (%d)",
		 v);
	return pg_exec(db, sql);
}

static const char *pg_errmsg(struct db *db)
{
	return ((struct pg *)db)->err;
}

static enum err_class pg_errclass(struct db *db)
{
	return ((struct pg *)db)->cls;
}

static void pg_close(struct db *db)
{
	struct pg *c = (struct pg *)db;

	if (!c)
		return;
	PQfinish(c->conn);
	free(c->name);
	free(c);
}

static const struct db_driver pg_driver = {
	.name = "postgresql",
	/* Two daemons claim outbox rows at once: each skips the row the other
	 * holds until its claim commits, and then no longer sees it due. */
	.claim_rows = " FOR UPDATE SKIP LOCKED",
	.begin = "BEGIN",
	/* Any number: the key of tagbot's migration lock in the database. */
	.begin_migration = "BEGIN; SELECT pg_advisory_xact_lock(7415726)",
	/* Another: two daemons' rate checks and the notes of the replies they
	 * let through take turns, transaction by transaction. */
	.lock_rates = "SELECT pg_advisory_xact_lock(7415727)",
	.lock_claims = "SELECT pg_advisory_xact_lock(7415728)",
	.exec = pg_exec,
	.prepare = pg_prepare,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_int64 = pg_bind_int64,
	.bind_null = pg_bind_null,
	.step = pg_step,
	.reset = pg_reset,
	.finalize = pg_finalize,
	.col_null = pg_col_null,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.col_int64 = pg_col_int64,
	.changes = pg_changes,
	.get_version = pg_get_version,
	.set_version = pg_set_version,
	.errmsg = pg_errmsg,
	.errclass = pg_errclass,
	.close = pg_close,
};

/* libpq's notices (NOTICE: relation exists) are not the daemon's log. */
static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

struct db *db_pg_open(const char *conninfo, const char *password, const char *name, int busy_ms,
		      struct err *e)
{
	char options[64];
	const char *keys[] = { "dbname", "options", "connect_timeout", "application_name",
			       "password", NULL };
	const char *vals[] = { conninfo, options, "10", "tagbot", password, NULL };
	const char *enc;
	struct pg *c;

	/* Waiting for a row another daemon holds: as long as SQLite waits. */
	snprintf(options, sizeof(options), "-c lock_timeout=%d", busy_ms);
	if (!password)
		keys[4] = NULL;
	c = xcalloc(1, sizeof(*c));
	c->base.drv = &pg_driver;
	c->name = xstrdup(name);
	c->conn = PQconnectdbParams(keys, vals, 1);
	if (!c->conn || PQstatus(c->conn) != CONNECTION_OK) {
		/* libpq's message names host and port, never the password. */
		fail(c, NULL);
		err_set(e, ERR_TEMP, "store %s: cannot connect: %s", name, c->err);
		pg_close(&c->base);
		return NULL;
	}
	PQsetNoticeProcessor(c->conn, quiet, NULL);
	/* Mail text is kept as the bytes it came in (as SQLite keeps it); a
	 * UTF8 database would refuse a Latin-1 subject, message by message. */
	enc = PQparameterStatus(c->conn, "server_encoding");
	if (!enc || strcmp(enc, "SQL_ASCII")) {
		err_set(e, ERR_FINAL, "store %s: the database's encoding is %s, not SQL_ASCII: "
			"tagbot keeps mail text as the bytes it came in; create the database with "
			"CREATE DATABASE ... ENCODING 'SQL_ASCII' TEMPLATE template0", name,
			enc ? enc : "unknown");
		pg_close(&c->base);
		return NULL;
	}
	return &c->base;
}

#endif
