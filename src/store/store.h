/*
 * store.h - the face of store/: the only folder that speaks SQL (db.h is
 * its engine interface; db_sqlite.c includes sqlite3.h, db_pg.c
 * libpq-fe.h).  Below it: lib/ and mail/ only.
 *
 * The daemon's state: every message seen, the folder checkpoints and the
 * outbox of replies, in an SQLite file (the default) or in PostgreSQL
 * (path a postgresql:// URL).  Both engines hold the same tables and give
 * the same guarantees; callers see these types only.
 *
 * PostgreSQL: two daemons may share one database.  Each message is decided
 * once (its messages row is keyed by the Message-ID: the second insert
 * finds it and the message counts as known), each reply is claimed by one
 * of them (store_outbox_next_due() locks the row it hands out, FOR UPDATE
 * SKIP LOCKED, inside the caller's transaction; the claim, mark_retry,
 * then moves it out of the other's sight until the backoff ends).
 * Checkpoints are shared rows: the last writer's stands, and a daemon that
 * reads a folder from an older checkpoint finds its messages known.  The
 * rate limits' windows are rows too (rate events, below), counted at each
 * check under a lock, so the daemons keep the limits together.
 *
 * SQLite: the database runs in WAL mode with synchronous=FULL (a committed reply
 * survives SIGKILL and power loss; the bot writes a few rows per patch, so
 * the cost does not matter) and a busy timeout, so `tagbot status` can read
 * while the daemon writes.  The schema is versioned with PRAGMA
 * user_version; store_open() migrates an older file and refuses a newer one.
 * A state is marked as tagbot's with PRAGMA application_id
 * (STORE_SQLITE_APPLICATION_ID), so that state = naming another program's
 * database is refused instead of having tagbot's tables added to it.
 *
 * Message-IDs are keyed in normalized form (msgid_key(), mail/msgid.h): without <> and
 * surrounding white space, the domain part lower-cased, the local part as
 * written.  So the list copy and a Cc copy of one mail are one row.
 *
 * The guarantee "at most one reply per patch" rests on the outbox: its
 * parent column is UNIQUE, and store_record_reply() writes the message row
 * and the outbox row in one transaction.  A crash leaves both or neither.
 *
 * All functions return 0 or -1 with e filled ("store PATH: ..."); a busy
 * database past the timeout is ERR_WAIT, a broken or newer file ERR_FINAL.
 */
#ifndef TAGBOT_STORE_H
#define TAGBOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/err.h"

#define STORE_SCHEMA_VERSION	10	/* 2: lookup_cache; 3: context, thread_state, series;
					 * 4: held, rate_events, told, sink_state;
					 * 5: told.about; 6: told.what;
					 * 7: rate_events by key; 8: unread;
					 * 9: context_ref; 10: claims */
/* PRAGMA application_id of an SQLite state: "TAGB" in ASCII, big-endian. */
#define STORE_SQLITE_APPLICATION_ID	0x54414742u
#define STORE_REPLY_MAX		((size_t)16 * 1024 * 1024) /* raw reply bytes */

struct store_settings {
	const char *path;	/* foreign; the database file, or a postgresql:// URL */
	const char *password;	/* foreign; PostgreSQL's password, NULL: the URL's or none */
	int busy_timeout_ms;	/* wait for a lock this long; default 5000 */
};

/* path NULL, password NULL, busy_timeout_ms 5000. */
void store_settings_init(struct store_settings *s);

/* Whether path names a PostgreSQL database (postgresql:// or postgres://). */
bool store_is_url(const char *path);
/* url, malloc'ed, with the password of its user part and any password=
 * parameter replaced by ***: what messages and logs may show. */
char *store_mask_url(const char *url);

struct store;	/* opaque: the connection and its prepared statements */

/*
 * Opens and migrates the database.  PostgreSQL: connects, and builds or
 * migrates the tables in the database the URL names (the role needs
 * CREATE there the first time); messages name the URL masked.  SQLite:
 * when there is no file it is created
 * whole (mode 0600, built under a temporary name and put in place), so no
 * crash leaves an empty one, and marked (STORE_SQLITE_APPLICATION_ID).  An
 * existing file that is empty, not regular, not an SQLite database, or an
 * SQLite database without the mark that is not an older tagbot's state
 * (whose tables it has: it gets the mark) is refused (ERR_FINAL, naming
 * the file) and left as it is: an empty file is never taken for a fresh
 * store, another program's database never filled with tagbot's tables.
 */
int store_open(struct store **out, const struct store_settings *s, struct err *e);
/* Finalizes the statements and closes; NULL is fine. */
void store_close(struct store *st);
/*
 * Copies the database at from into a new file at to, for a dry run that
 * must decide as the daemon would from its state without writing it: from
 * is checked as store_open() checks it, then read (not migrated; its
 * -wal and -shm files are gone again after) under busy_timeout_ms (0:
 * 5000).  SQLite only: from a postgresql:// URL, STORE_SNAPSHOT_FAILED.
 * Open to with store_open() afterwards.
 */
enum store_snapshot {
	STORE_SNAPSHOT_FAILED = -1,	/* e says why */
	STORE_SNAPSHOT_TAKEN = 0,
	STORE_SNAPSHOT_NO_FILE = 1	/* no file at from: nothing copied */
};
enum store_snapshot store_snapshot(const char *from, const char *to, int busy_timeout_ms,
				   struct err *e);

/* What was decided for a message; stored as "replied", "clean",
 * "skipped:<why>", "error". */
enum store_decision {
	STORE_REPLIED,
	STORE_CLEAN,
	STORE_SKIPPED,
	STORE_ERROR
};

struct store_message {
	const char *msgid;	/* foreign; any form, normalized by the store */
	const char *source;	/* foreign; "imap:user@host" or "maildir:PATH" */
	const char *folder;	/* foreign; "" for a Maildir */
	uint32_t uid;		/* IMAP UID, 0 when none */
	const char *kind;	/* foreign; patch_kind_name() */
	enum store_decision decision;
	const char *why;	/* foreign; for STORE_SKIPPED ("rate-limit"); else ignored */
	const char *reply_msgid; /* foreign; NULL unless replied */
	time_t time;
};

/* Whether the store already knows the message (any decision). */
int store_seen(struct store *st, const char *msgid, bool *seen, struct err *e);

/*
 * Records a message with a decision other than STORE_REPLIED (use
 * store_record_reply for that).  *added (may be NULL) is false when the
 * Message-ID was already recorded: the row is left as it was.
 */
int store_record_message(struct store *st, const struct store_message *m,
			 bool *added, struct err *e);

/* The envelope and bytes of a reply to queue. */
struct store_outgoing {
	const char *reply_msgid;	/* foreign; the reply's own Message-ID */
	const char *parent_msgid;	/* foreign; the patch it answers */
	const char *envelope_from;	/* foreign; MAIL FROM addr-spec */
	const char *const *rcpt;	/* foreign; RCPT TO addr-specs */
	size_t nrcpt;
	const char *raw;		/* foreign; the whole reply, CRLF */
	size_t len;
	time_t not_before;		/* 0: send now; else not before then (a reply a
					 * rate limit held: queued, sent when it has room) */
};

enum store_enqueue {
	STORE_QUEUED,		/* both rows written: send it */
	STORE_ALREADY_QUEUED	/* the parent already has a reply: send nothing */
};

/*
 * In one transaction: records m (decision STORE_REPLIED, reply_msgid from
 * out) and queues out for sending at now.  When the parent (or the message)
 * is already known, nothing is written and *res is STORE_ALREADY_QUEUED.  On
 * any error nothing is written either.  m->msgid and out->parent_msgid must
 * name the same message.
 */
int store_record_reply(struct store *st, const struct store_message *m,
		       const struct store_outgoing *out, time_t now,
		       enum store_enqueue *res, struct err *e);

/* Explicit transactions (nestable: savepoints), for a caller that wants to
 * record a batch and move the checkpoint together. */
int store_begin(struct store *st, struct err *e);
int store_commit(struct store *st, struct err *e);
void store_rollback(struct store *st);

/* --- checkpoints ----------------------------------------------------- */

struct store_checkpoint {
	uint32_t uidvalidity;
	uint32_t last_uid;	/* the last UID handled */
};

/* A folder the daemon reads, as its checkpoint and unread rows are keyed. */
struct store_folder {
	const char *source;	/* foreign; the messages rows' source */
	const char *name;	/* foreign; the folder, "" (or NULL) for a Maildir */
};

/* *found is false (and cp zeroed) when the folder has no checkpoint yet. */
int store_checkpoint_get(struct store *st, const struct store_folder *f,
			 struct store_checkpoint *cp, bool *found, struct err *e);
int store_checkpoint_set(struct store *st, const struct store_folder *f,
			 const struct store_checkpoint *cp, struct err *e);
/* The time of the first message recorded from f: when the bot started on
 * it.  *found is false when nothing was recorded. */
int store_first_time(struct store *st, const struct store_folder *f, time_t *t, bool *found,
		     struct err *e);

/* --- claims: daemons sharing a folder (schema 10) ------------------- */

/*
 * Daemons sharing one state and reading one IMAP folder divide it in
 * claims: ranges of UIDs, each read by the daemon that took it, so that
 * neither fetches and parses what the other reads.  A claim is its
 * taker's until it is done or its lease runs out; then another daemon
 * takes it over and reads on from where it was done to.  When a claim is
 * asked for, the folder's checkpoint moves over the claims done in a row
 * above it, never past a UID still asked for again (the unread table's
 * retry rows), and never back.  Claims are no guard: that each message is
 * decided once still rests on the messages rows (a claim taken over from
 * a daemon that was only slow is read twice, and the second reading finds
 * the rows).
 */
struct store_claim_ask {
	const char *source, *folder;	/* foreign; the checkpoint's */
	uint32_t validity;		/* the folder's UIDVALIDITY */
	uint32_t top;			/* the highest UID in the folder now */
	uint32_t span;			/* UIDs in a new claim */
	const char *owner;		/* foreign; names the daemon asking */
	time_t now, lease;		/* a claim taken is held until now + lease */
};

struct store_claim {
	uint32_t lo, hi;		/* the UIDs */
	uint32_t done_to;		/* read and recorded up to here (lo - 1: none) */
	uint32_t checkpoint;		/* the folder's last_uid, moved as said above */
	time_t wake;			/* none found: when the first claim another
					 * daemon holds runs out (0: there is none) */
};

/*
 * In a transaction of its own (the caller has none open), under the
 * claims' lock: moves the checkpoint, then finds the claim to read next
 * above it, *found false when there is none: a gap no claim covers, up to
 * span UIDs and not past top; else a claim not done that is the asker's
 * or whose lease ran out (taken over).  Claims the checkpoint passed, or
 * of another UIDVALIDITY, are dropped.  The checkpoint must exist with
 * a->validity, else ERR_TEMP (another daemon found the folder renumbered:
 * read its checkpoint again).
 */
int store_claim_next(struct store *st, const struct store_claim_ask *a, struct store_claim *c,
		     bool *found, struct err *e);

/*
 * Inside the caller's transaction (the batch that recorded the messages),
 * in the claim's row alone: the claim at lo is done up to done_to, its
 * lease renewed.  The checkpoint moves over it at the next
 * store_claim_next() of any daemon.
 */
int store_claim_done(struct store *st, const struct store_claim_ask *a, uint32_t lo,
		     uint32_t done_to, struct err *e);

/* Ends the leases of owner's claims now, so that another daemon takes
 * them over at once (a daemon that stops). */
int store_claim_release(struct store *st, const char *owner, struct err *e);

/* --- outbox ---------------------------------------------------------- */

enum outbox_state {
	OUTBOX_QUEUED,
	OUTBOX_SENT,
	OUTBOX_FAILED
};

/* "queued", "sent", "failed". */
const char *outbox_state_name(enum outbox_state s);

struct outbox_item {
	char *reply_msgid;	/* owned */
	char *parent_msgid;	/* owned */
	char *envelope_from;	/* owned */
	char **rcpt;		/* owned */
	size_t nrcpt;
	char *raw;		/* owned; NUL-terminated for convenience */
	size_t len;
	enum outbox_state state;
	int attempts;
	time_t next_attempt;
	char *last_error;	/* owned; "" when none */
};

void outbox_item_init(struct outbox_item *it);
void outbox_item_release(struct outbox_item *it);

/*
 * The queued reply whose next_attempt is earliest and <= now.  *found is
 * false when none is due.  it is released and refilled.
 */
int store_outbox_next_due(struct store *st, time_t now, struct outbox_item *it,
			  bool *found, struct err *e);

/* The earliest next_attempt of a queued reply (to sleep until); *found false
 * when the queue is empty. */
int store_outbox_next_time(struct store *st, time_t *when, bool *found, struct err *e);

/* The reply's state changes; attempts is incremented by each.  error (may
 * be NULL) is kept in last_error.  mark_retry sets next_attempt to
 * next (the caller's time now plus its backoff); it is also the way to
 * claim an item before sending, so a crash mid-send leads to a retry
 * after the backoff.  mark_sent's
 * note (may be NULL) is kept in last_error too: what the reply was sent
 * without (recipients the server refused). */
int store_outbox_mark_sent(struct store *st, const char *reply_msgid, time_t now,
			   const char *note, struct err *e);
int store_outbox_mark_retry(struct store *st, const char *reply_msgid, time_t next,
			    const char *error, struct err *e);
int store_outbox_mark_failed(struct store *st, const char *reply_msgid, time_t now,
			     const char *error, struct err *e);
/* Undoes a claim (mark_retry) of a reply that was not handed over after
 * all: attempts one less, due at now, error in last_error. */
int store_outbox_unclaim(struct store *st, const char *reply_msgid, time_t now,
			 const char *error, struct err *e);

/* --- status ---------------------------------------------------------- */

struct store_counts {
	long messages;		/* all rows */
	long replied, clean, skipped, errors;
	long queued, sent, failed; /* outbox */
};

int store_counts(struct store *st, struct store_counts *c, struct err *e);

/* The messages of one source or one list, by decision. */
struct store_tally {
	const char *name;	/* foreign (valid during the call): the source
				 * column, or the List-Id header value as the
				 * context keeps it ("" for none) */
	long messages, replied, clean, skipped, errors;
};

/* Calls fn for each source of the messages rows, ordered by name. */
int store_counts_by_source(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			   void *ctx, struct err *e);
/* Calls fn for each list of the messages whose context the store keeps
 * (the checked ones of the last 180 days: daemon_context_prune()), ordered
 * by the List-Id value. */
int store_counts_by_list(struct store *st, void (*fn)(void *ctx, const struct store_tally *t),
			 void *ctx, struct err *e);

/* Calls fn for each checkpoint, ordered by source and folder. */
int store_checkpoint_foreach(struct store *st,
			     void (*fn)(void *ctx, const char *source, const char *folder,
					const struct store_checkpoint *cp),
			     void *ctx, struct err *e);

/* One of the last errors `tagbot status` shows: a message recorded with
 * decision error, or a reply whose last attempt left an error. */
struct store_error_row {
	const char *what;	/* foreign; "message" or "reply" */
	const char *msgid;	/* foreign; the message's or the reply's Message-ID */
	const char *detail;	/* foreign; "SOURCE FOLDER uid N", or "STATE, N attempts: ERROR" */
	time_t time;
};

/* Calls fn for the max most recent errors, newest first. */
int store_recent_errors(struct store *st, int max,
			void (*fn)(void *ctx, const struct store_error_row *r), void *ctx,
			struct err *e);

/* --- the sink's state (schema 4) -------------------------------------- */

/*
 * Whether the sink works, as the daemon last found it: written when a fault
 * of the sink (ERR_SETUP: a certificate, a login) stops sending and when it
 * works again, so that `tagbot status`, another process, can show it.  One
 * row: the sink in use.
 *
 *	struct store_sink_state ss = { 0 };
 *	bool found;
 *
 *	if (store_sink_state_get(st, &ss, &found, &e) == 0 && found && ss.failing)
 *		printf("sink %s failing: %s\n", ss.sink, ss.reason);
 *	store_sink_state_release(&ss);
 */
struct store_sink_state {
	char *sink;		/* owned after get, foreign for put; its url or path */
	bool failing;
	char *reason;		/* as sink; the last fault, "" when none */
	time_t since;		/* failing since, or working since */
	int failures;		/* tries that failed in a row */
	time_t next_try;	/* failing: when the daemon tries again */
};

/* Frees what get filled; a zeroed struct is fine. */
void store_sink_state_release(struct store_sink_state *s);
/* Replaces the row. */
int store_sink_state_put(struct store *st, const struct store_sink_state *s, struct err *e);
/* *found false (out zeroed) while no state was written; out is released first. */
int store_sink_state_get(struct store *st, struct store_sink_state *out, bool *found,
			 struct err *e);

/* --- lookup cache ---------------------------------------------------- */

/*
 * What lookup.c learnt about a URL, keyed by the URL it fetched.  The store
 * keeps the row; whether it is still fresh is the caller's decision.
 */
#define STORE_CACHE_KEY_MAX	4096		/* longer keys are refused */
#define STORE_CACHE_DATA_MAX	((size_t)64 * 1024) /* bytes of one result blob */

struct store_cache_entry {
	int status;		/* the caller's code (enum lookup_status) */
	time_t fetched_at;
	char *data;		/* owned after store_cache_get (free()); foreign for put;
				 * NUL-terminated after get */
	size_t len;
};

/* *found is false (and out zeroed) when key has no row. */
int store_cache_get(struct store *st, const char *key, struct store_cache_entry *out,
		    bool *found, struct err *e);
/* Inserts or replaces the row of key. */
int store_cache_put(struct store *st, const char *key, const struct store_cache_entry *in,
		    struct err *e);
/* Deletes the rows fetched before `before`; *deleted (may be NULL) gets how many. */
int store_cache_prune(struct store *st, time_t before, long *deleted, struct err *e);

/* --- context of every message (schema 3) ------------------------------ */

struct msg_context;	/* context.h */

#define STORE_RELATED_MAX	200	/* rows store_context_related() hands out */

/* Inserts or replaces the row of c->message_id (which must be set). */
int store_context_put(struct store *st, const struct msg_context *c, struct err *e);
/* *found false (out initialized, empty) when msgid has no row; out is
 * released first. */
int store_context_get(struct store *st, const char *msgid, struct msg_context *out,
		      bool *found, struct err *e);
/* Deletes the context rows older than before, the series (with their
 * members) that began before it and what people were told about patches
 * before it; *deleted (may be NULL): context rows. */
int store_context_prune(struct store *st, time_t before, long *deleted, struct err *e);

/* A context row handed out by store_context_related() and _siblings(),
 * valid during the call only. */
struct store_related {
	const struct msg_context *row;
	const char *series;	/* the series it is a member of; NULL */
	int64_t seq;		/* its order of recording: rows of one time by it */
};

/*
 * Calls fn for at most STORE_RELATED_MAX context rows that may belong with
 * c in one series (patches and cover letters of a numbered series, total 1
 * or more; never replies): the messages c refers to (In-Reply-To,
 * References), those that refer to c, and the unthreaded ones (neither
 * In-Reply-To nor References) with c's sender, version and total seen at
 * or after since; oldest first (of one time, by seq).  c itself is not
 * handed out.
 */
int store_context_related(struct store *st, const struct msg_context *c, time_t since,
			  void (*fn)(void *ctx, const struct store_related *r), void *ctx,
			  struct err *e);
/*
 * The same for c's siblings (the rows with c's In-Reply-To), only those
 * in a series and not in one that skip names (series ids separated by a
 * space; NULL for none): the siblings in the series found already are not
 * read again, which keeps a part of a long series as cheap as one of a
 * short one.
 */
int store_context_siblings(struct store *st, const struct msg_context *c, const char *skip,
			   void (*fn)(void *ctx, const struct store_related *r), void *ctx,
			   struct err *e);

/* A thread is named by its root: the first References key, else In-Reply-To, else the message itself. */
int store_thread_quiet_get(struct store *st, const char *root, bool *quiet, struct err *e);
int store_thread_quiet_set(struct store *st, const char *root, time_t now, struct err *e);

/* The decision recorded for msgid ("replied", "clean", "skipped:<why>",
 * "error") into out (size bytes, cut); *found false when it is unknown.
 * For maintainer Cc mode: whether the bot answered a patch before. */
int store_message_decision(struct store *st, const char *msgid, char *out, size_t size,
			   bool *found, struct err *e);

/*
 * Forgets msgid's row when its decision is still exactly decision (e.g.
 * "skipped:list-unknown"), so that another copy of the mail is decided
 * afresh; *forgot (may be NULL) says whether a row went.  A row with a
 * reply is never forgotten (the outbox keeps it answered at most once).
 */
int store_message_forget(struct store *st, const char *msgid, const char *decision,
			 bool *forgot, struct err *e);

/* --- series (schema 3) ---------------------------------------------- */

/*
 * A series is named by the key of the first member the store saw.  Its
 * state says whether a series reply is owed: passive (per-patch mode:
 * grouped only), pending (per-series: a reply waits for the remaining
 * patches or the deadline), done (the series reply is queued, or there was
 * nothing to say).  A pending series keeps its members' raw mails, so the
 * reply can be built after a restart; they are dropped once it is done.
 */
#define STORE_SERIES_RAW_MAX	((size_t)8 * 1024 * 1024) /* raw bytes kept per member */

enum store_series_state {
	STORE_SERIES_PASSIVE,
	STORE_SERIES_PENDING,
	STORE_SERIES_DONE
};

struct store_series {
	char *id;		/* owned */
	int version, total;
	char *sender;		/* owned */
	time_t first_time;	/* the first member's time */
	time_t deadline;	/* pending: reply by then at the latest */
	enum store_series_state state;
};

void store_series_release(struct store_series *s);

/* A member as store_series_members() hands it out and store_series_add()
 * takes it. */
struct store_series_member {
	const char *msgid;	/* foreign (valid during the call) */
	int index;		/* 0: the cover letter */
	time_t time;
	const char *raw;	/* foreign; NULL when not kept */
	size_t len;
	const char *findings;	/* foreign; what the caller kept with raw; NULL */
};

/* The series msgid belongs to: *id malloc'ed, NULL when none. */
int store_series_of(struct store *st, const char *msgid, char **id, struct err *e);
/* *found false when id is unknown; out released first. */
int store_series_get(struct store *st, const char *id, struct store_series *out, bool *found,
		     struct err *e);
/* A new series holding nothing yet; when s->id is there already (another
 * daemon on one PostgreSQL state made it from the same mail), that series
 * is kept as it is and this is no error. */
int store_series_create(struct store *st, const struct store_series *s, struct err *e);
/* Adds (or moves) member m to series id; its raw and findings (may be
 * NULL: the caller's text) are kept while the series is pending, raw when
 * no longer than STORE_SERIES_RAW_MAX (findings only with it). */
int store_series_add(struct store *st, const char *id, const struct store_series_member *m,
		     struct err *e);
/* Moves from's members into into and deletes from; into's first_time and
 * deadline become the earlier of the two. */
int store_series_merge(struct store *st, const char *into, const char *from, struct err *e);
/* Calls fn for each member, by index then time. */
int store_series_members(struct store *st, const char *id,
			 void (*fn)(void *ctx, const struct store_series_member *m), void *ctx,
			 struct err *e);
/* *nparts: how many distinct indexes 1..total series id's members have,
 * read from the index alone, without the mails. */
int store_series_count(struct store *st, const char *id, int total, int *nparts,
		       struct err *e);
int store_series_set_state(struct store *st, const char *id, enum store_series_state state,
			   struct err *e);
/* A series' new deadline (a pending one whose reply a rate limit held). */
int store_series_set_deadline(struct store *st, const char *id, time_t deadline,
			      struct err *e);
/* The pending series whose deadline is earliest and <= now: *id malloc'ed
 * or NULL. */
int store_series_next_due(struct store *st, time_t now, char **id, struct err *e);
/* The earliest deadline of a pending series; *found false when none. */
int store_series_next_time(struct store *st, time_t *when, bool *found, struct err *e);
/* The due pending series of sender that waits longest (first_time, then
 * id): *id malloc'ed or NULL. */
int store_series_next_due_of(struct store *st, time_t now, const char *sender, char **id,
			     struct err *e);
/* Moves the pending series due at now to until. */
int store_series_postpone(struct store *st, time_t now, time_t until, struct err *e);

/*
 * In one transaction: queues out (out->parent_msgid is the series' lead:
 * the cover letter, else its first patch) as store_record_reply() does,
 * marks the lead's message row replied (with out's reply_msgid) and the
 * series done.  When the lead already has a reply, only the series is
 * marked done and *res is STORE_ALREADY_QUEUED.  The lead's message row
 * must exist.
 */
int store_series_queue_reply(struct store *st, const char *id,
			     const struct store_outgoing *out, time_t now,
			     enum store_enqueue *res, struct err *e);

/* --- replies held by a rate limit (schema 4) --------------------------- */

/*
 * A patch whose reply a rate limit held back is kept here, whole (as a
 * series part is), under the recipient its reply goes to, until the limit
 * has room: then the held patches of one recipient go out folded into one
 * reply (daemon_series.c), so a held reply is late, never lost, across
 * restarts too.
 */
struct store_held {
	const char *msgid;	/* foreign */
	const char *rcpt;	/* foreign; the fold's key: the recipient, lower case */
	time_t time;
	const char *raw;	/* foreign; the mail (at most STORE_SERIES_RAW_MAX) */
	size_t len;
	const char *findings;	/* foreign; the caller's text */
};

/* Holds h until deadline (moving every held patch of h->rcpt to it). */
int store_held_add(struct store *st, const struct store_held *h, time_t deadline,
		   struct err *e);
/* The recipient whose held patches are due at now (earliest first): *rcpt
 * malloc'ed, NULL when none. */
int store_held_next_due(struct store *st, time_t now, char **rcpt, struct err *e);
/* The earliest deadline of a held patch; *found false when none. */
int store_held_next_time(struct store *st, time_t *when, bool *found, struct err *e);
/* Calls fn for each held patch of rcpt, oldest first. */
int store_held_members(struct store *st, const char *rcpt,
		       void (*fn)(void *ctx, const struct store_held *h), void *ctx,
		       struct err *e);
int store_held_set_deadline(struct store *st, const char *rcpt, time_t deadline,
			    struct err *e);
/*
 * In one transaction: queues out (out->parent_msgid: the first held patch,
 * the fold's lead) as store_record_reply() does, marks every held patch
 * of rcpt replied with out's reply_msgid and forgets them.  When the lead
 * already has a reply, they are only forgotten and *res is
 * STORE_ALREADY_QUEUED.
 */
int store_held_queue_reply(struct store *st, const char *rcpt, const struct store_outgoing *out,
			   time_t now, enum store_enqueue *res, struct err *e);
/* Forgets the held patches of rcpt (nothing to send after all). */
int store_held_drop(struct store *st, const char *rcpt, struct err *e);
/* Moves the held patches due at now to until. */
int store_held_postpone(struct store *st, time_t now, time_t until, struct err *e);

/*
 * Who has replies due at now, for the daemon's round robin over them
 * (daemon_series.c): one entry a person, the max who wait longest, oldest
 * first.  store_held_waiting(): the recipients of held patches, since the
 * oldest held patch's time; store_series_waiting(): the senders of pending
 * series, since the first_time of their oldest.
 */
struct store_waiting {
	const char *who;	/* foreign (valid during the call) */
	time_t since;
};
typedef void store_waiting_fn(void *ctx, const struct store_waiting *w);
int store_held_waiting(struct store *st, time_t now, size_t max, store_waiting_fn *fn, void *ctx,
		       struct err *e);
int store_series_waiting(struct store *st, time_t now, size_t max, store_waiting_fn *fn,
			 void *ctx, struct err *e);

/* --- what a person was told (schema 4, 5, 6) ------------------------------ */

/* What a reply told a person: the key of a told row. */
struct store_told {
	const char *person;	/* foreign; lower case */
	const char *rule;	/* foreign; the finding's rule */
	const char *what;	/* foreign; its key, finding_key(): "" for a finding
				 * told once whatever it points at */
};

/* When a reply last told k; *found false when never.
 * store_context_prune() forgets the rows with a key (what) with the
 * context. */
int store_told_get(struct store *st, const struct store_told *k, time_t *t, bool *found,
		   struct err *e);
int store_told_set(struct store *st, const struct store_told *k, time_t t, struct err *e);

/* --- rate windows (schema 4, 7) ----------------------------------------- */

/*
 * The windows of the rate limits live here (policy.h's policy_events): one
 * event per reply and key ("" for the global window, else a person's), so
 * that every daemon on one state counts every reply, and a restart keeps
 * them.  A check and the note of the reply it let through belong in one
 * transaction: inside one, store_rate_count() first takes the rate
 * windows' lock (PostgreSQL: an advisory lock held until the transaction
 * ends; SQLite: the writer's lock its transactions hold already), so two
 * daemons' checks and notes take turns and together keep the limits.
 * Indexed by key and time (schema 7): a count reads its window's events.
 */
/* Records that a reply counted under key at t. */
int store_rate_note(struct store *st, const char *key, time_t t, struct err *e);
/* Deletes the events before before. */
int store_rate_prune(struct store *st, time_t before, struct err *e);
/* A window of one key: its events later than since. */
struct store_rate_window {
	const char *key;	/* foreign; "" (or NULL): the global window */
	time_t since;
};

/* How many events w holds. */
int store_rate_count(struct store *st, const struct store_rate_window *w, long *n,
		     struct err *e);
/* The time of the n-th of them (0: the oldest; ties in the order they were
 * noted); *t 0 when there is none. */
int store_rate_nth(struct store *st, const struct store_rate_window *w, long n, time_t *t,
		   struct err *e);
/* The latest of them; *t 0 when none. */
int store_rate_last(struct store *st, const struct store_rate_window *w, time_t *t,
		    struct err *e);

/* --- mail a source listed but did not deliver whole (schema 8) -------- */

/*
 * A message a server listed (an IMAP UID of the folder, an NNTP article of
 * the overview) and did not hand over whole: one row per source, folder
 * and number.  While the daemon asks for it again (retry) the folder's
 * checkpoint stays below it, so the row and the checkpoint together say
 * what is still owed, across restarts.  The daemon's last word on it
 * (unavailable, too-large) stays as a row for `tagbot status`.
 */
enum store_unread_state {
	STORE_UNREAD_RETRY,		/* asked for again at next_try */
	STORE_UNREAD_UNAVAILABLE,	/* given up after tries: recorded skipped */
	STORE_UNREAD_TOO_LARGE		/* larger than max_message_size: recorded skipped */
};

/* "retry", "unavailable", "too-large". */
const char *store_unread_state_name(enum store_unread_state s);

struct store_unread {
	const char *source;	/* foreign; the messages rows' source */
	const char *folder;	/* foreign */
	uint32_t uid;
	enum store_unread_state state;
	int tries;		/* fetches that came back without it */
	time_t next_try;	/* retry: not asked for before; else 0 */
	uint64_t size;		/* too-large: the bytes seen; else 0 */
	const char *reason;	/* foreign; what the server did ("" for none) */
	time_t time;		/* when the row was last written */
};

/* Inserts or replaces the row of u's source, folder and uid. */
int store_unread_put(struct store *st, const struct store_unread *u, struct err *e);
/* Deletes the row of uid (the mail came after all). */
int store_unread_drop(struct store *st, const struct store_folder *f, uint32_t uid,
		      struct err *e);
/* Deletes the retry rows of f (its numbers started again). */
int store_unread_forget(struct store *st, const struct store_folder *f, struct err *e);
/* Calls fn for each retry row of f, by uid; u is valid during the call. */
int store_unread_retries(struct store *st, const struct store_folder *f,
			 void (*fn)(void *ctx, const struct store_unread *u), void *ctx,
			 struct err *e);
/* Calls fn for the max most recent rows of any state, newest first. */
int store_unread_recent(struct store *st, int max,
			void (*fn)(void *ctx, const struct store_unread *u), void *ctx,
			struct err *e);

/*
 * Test hook: when set, store_record_reply calls it between writing the
 * message row and the outbox row with point "record_reply:after_message";
 * a test can kill the process there (a crash mid-transaction) or return -1
 * to make the call fail at that point.  NULL in production.
 */
extern int (*store_test_hook)(const char *point);

#endif
