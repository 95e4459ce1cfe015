/*
 * imap_source.h - the daemon's IMAP folder (libetpan): connect with
 * implicit TLS, STARTTLS or, on loopback only, in plain; verify the server's
 * certificate; log in; select one folder; hand out new mail by UID in
 * batches; wait for more with IDLE (or a NOOP poll); mark mail seen; keep
 * copies of replies in a Sent folder and look them up there.  The only
 * module that includes libetpan's IMAP headers (and GnuTLS).
 *
 * Errors (err.h).  Every message starts "imap: HOST:PORT: ".
 *   ERR_TEMP   the connection could not be made, dropped, timed out or
 *              went out of step (a BYE, a BAD, an unparsable response), or
 *              a stop was asked for while waiting for the server.  A
 *              connection that broke says how: "COMMAND: server closed the
 *              connection", "...: connection reset by peer", "...: no
 *              answer for N s" (netconn.h).  The session is dead from then
 *              on: every further call fails with ERR_TEMP at once.
 *              imap_close() it and imap_open() a new one after a backoff.
 *   ERR_FINAL  bad settings, tls = none for a host that is not loopback,
 *              certificate verification failed, login refused, no such
 *              folder, a command the server answered NO to.
 * The password never appears in an error message or a log line; the user
 * name, host and folder do.
 *
 * TLS: libetpan does not check certificates, so imap_open() does, right
 * after the handshake and before anything is sent: the chain must lead to a
 * CA of ca_file (or of the system store when ca_file is NULL) and the leaf
 * must carry tls_name (a DNS name or an IP address).  There is no switch to
 * turn this off; tls = none is the only way to go without TLS, and it is
 * refused unless every address of host is a loopback address.  After
 * STARTTLS, bytes the server sent before the handshake are refused
 * (CVE-2020-15953) and the capabilities are asked for again.
 *
 * Time: the connect, the TLS handshake and each read or write wait at most
 * timeout_s for the server (netconn.h); a cut, a reset or a server that
 * stops talking in the middle of an answer ends the session (ERR_TEMP).
 *
 * Signals: libetpan takes an interrupted read or write for a dropped
 * connection.  So while a call here talks to the server it blocks SIGHUP,
 * SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD and SIGPIPE,
 * and restores the caller's mask before returning; a signal that arrived
 * meanwhile is delivered then.  A SIGPIPE raised by writing to a closed
 * connection is consumed (the call fails with ERR_TEMP instead), so the
 * process need not ignore SIGPIPE.  imap_wait() sleeps in ppoll() with
 * wait_sigmask (default: the mask at the call), which is the pselect()
 * pattern: block your signals, check your flags, call imap_wait() with a
 * wait_sigmask that unblocks them.  A read or write waiting for the server
 * waits with wait_sigmask too (without one, with the signals blocked): a
 * signal handler that sets *stop makes it give up (ERR_TEMP) within
 * NET_STOP_GRACE_MS, and later waits of the session share that grace, so
 * a stop is never held up by the server; any other signal lets it go on.
 * A signal taken by such a wait inside imap_wait() ends its sleep as one
 * taken by the sleep itself would.
 *
 * One source is one connection; it is not for use by two threads at once.
 */
#ifndef TAGBOT_IMAP_SOURCE_H
#define TAGBOT_IMAP_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "transport/netconn.h"

#define IMAP_TIMEOUT_DEFAULT_S	60	/* connect, TLS handshake, each read or write */
#define IMAP_BATCH_DEFAULT	50	/* messages per UID FETCH of bodies */
#define IMAP_BATCH_MAX		1000
#define IMAP_BATCH_BYTES	((size_t)32 * 1024 * 1024) /* body bytes per UID FETCH */
#define IMAP_UID_WINDOW		10000	/* UIDs looked at per UID FETCH of sizes */
#define IMAP_MESSAGE_MAX	((size_t)128 * 1024 * 1024) /* as MESSAGE_MAX_SIZE */
#define IMAP_IDLE_MAX_S		(28 * 60) /* RFC 2177: re-issue IDLE before 29 minutes */
#define IMAP_NAME_MAX		1024	/* user, folder, host, Message-ID */

enum imap_auth {
	IMAP_AUTH_AUTO = 0,	/* AUTHENTICATE PLAIN when offered, else LOGIN */
	IMAP_AUTH_LOGIN,
	IMAP_AUTH_PLAIN
};

struct imap_settings {
	const char *host;	/* foreign; name or address literal */
	int port;		/* 0: 993 for implicit TLS, else 143 */
	enum net_tls tls;
	const char *tls_name;	/* foreign; the name the certificate must carry, sent
				 * as SNI unless an address; NULL: host */
	const char *ca_file;	/* foreign; PEM file of the CAs to trust instead of
				 * the system's; NULL: the system store */
	enum imap_auth auth;
	const char *user;	/* foreign */
	const char *password;	/* foreign; secret: never logged, never in an error */
	const char *folder;	/* foreign; the watched folder; NULL: "INBOX" */
	bool mark_seen;		/* SELECT the folder (read-write); else EXAMINE it */
	bool idle;		/* use IDLE when the server offers it */
	int idle_max_s;		/* re-issue IDLE after this long; 0 or more than
				 * IMAP_IDLE_MAX_S: IMAP_IDLE_MAX_S */
	int timeout_s;		/* 0: IMAP_TIMEOUT_DEFAULT_S */
	size_t batch;		/* 0: IMAP_BATCH_DEFAULT; capped at IMAP_BATCH_MAX */
	size_t max_message;	/* larger mail is not fetched, nor held when sent
				 * all the same; 0: IMAP_MESSAGE_MAX */
	const sigset_t *wait_sigmask; /* foreign, copied by imap_open; the signal mask
				 * while imap_wait sleeps; NULL: the mask at the call */
	const volatile sig_atomic_t *stop; /* foreign, must outlive the source; when
				 * non-zero, waits for the server give up; NULL: never */
};

/* Everything zero or NULL except idle (true); tls is NET_TLS_IMPLICIT. */
void imap_settings_init(struct imap_settings *s);

struct imap_source;	/* opaque: the libetpan session and what we learnt */

/*
 * Connects, does TLS and verifies the certificate, logs in and selects the
 * folder (EXAMINE unless mark_seen).  *out is NULL on failure.  s and its
 * strings need not outlive the call.
 */
int imap_open(struct imap_source **out, const struct imap_settings *s, struct err *e);

/* LOGOUT (skipped when the session is dead) and frees; NULL is fine. */
void imap_close(struct imap_source *src);

/*
 * UIDVALIDITY and UIDNEXT of the watched folder as of its last SELECT (at
 * imap_open, or when imap_find_msgid selected it again).  The daemon starts
 * at uidnext on first run and rescans when uidvalidity changes.
 */
int imap_mailbox(struct imap_source *src, uint32_t *uidvalidity, uint32_t *uidnext,
		 struct err *e);

/* What became of a message a fetch asked for. */
enum imap_msg_state {
	IMAP_MSG_OK = 0,	/* raw, len: the message */
	IMAP_MSG_TOO_LARGE,	/* larger than max_message: len its size (as the
				 * server gave it first, or the bytes it sent) */
	IMAP_MSG_MISSING	/* asked for and not delivered: why says how */
};

struct imap_msg {
	uint32_t uid;
	enum imap_msg_state state;
	const char *raw;	/* OK: the whole message as the server stores it
				 * (CRLF; may hold NULs), valid during the call */
	size_t len;
	const char *why;	/* MISSING: static text */
};

/*
 * Called by imap_fetch_from and imap_fetch_uids for each message asked
 * for, in ascending UID order, also for one the server did not deliver.
 * Returns 0 to go on, > 0 to stop cleanly, -1 to stop with e filled.
 */
typedef int imap_fetch_fn(void *arg, const struct imap_msg *m, struct err *e);

/*
 * Hands fn every message of the watched folder whose UID is >= first_uid
 * (0 counts as 1) and was there when the call began.  The bodies are
 * fetched with BODY.PEEK[] (which sets no flag) in batches of at most
 * batch messages and IMAP_BATCH_BYTES bytes, never the whole folder at
 * once; the UIDs are learnt IMAP_UID_WINDOW at a time with their sizes,
 * and a window is kept for the next call that starts inside it (a caller
 * that stops after each batch does not learn it again).  fn must not call
 * imap_fetch_from (ERR_FINAL).
 * "UID n:*" names the last message even when its UID is below n, so it is
 * never used to fetch.  Returns 0 when done or when fn returned > 0, -1 on
 * an IMAP error or when fn returned -1 (e as fn left it).
 *
 * Trust: a message whose RFC822.SIZE is over max_message is not fetched
 * (IMAP_MSG_TOO_LARGE).  A body is read a chunk at a time, whatever size
 * its literal announces: a body larger than max_message after all is read
 * past and dropped (IMAP_MSG_TOO_LARGE with the bytes sent), so one
 * message never holds more than max_message bytes, and the bodies of one
 * FETCH at most IMAP_BATCH_BYTES + max_message together (one past that
 * is IMAP_MSG_MISSING).  A UID the FETCH answer leaves out is
 * IMAP_MSG_MISSING too: the caller decides whether to ask again.
 */
int imap_fetch_from(struct imap_source *src, uint32_t first_uid, imap_fetch_fn *fn,
		    void *arg, struct err *e);

/*
 * The highest UID of the watched folder now (0 when it is empty).  Like
 * imap_fetch_from, it takes the mail announced so far as looked at (see
 * imap_wait).
 */
int imap_top_uid(struct imap_source *src, uint32_t *top, struct err *e);

/*
 * As imap_fetch_from, the messages whose UID is in [first_uid, last_uid]
 * (first_uid 0 counts as 1; nothing when last_uid is 0 or below
 * first_uid): a range learnt from imap_top_uid, read by one of several
 * daemons sharing the folder.
 */
int imap_fetch_range(struct imap_source *src, uint32_t first_uid, uint32_t last_uid,
		     imap_fetch_fn *fn, void *arg, struct err *e);

/*
 * The messages uids[0..n) (any order; 0 and repeats ignored) as
 * imap_fetch_from hands them out, in ascending UID order: to ask again for
 * the ones a fetch did not deliver.  A UID the folder does not answer for
 * (expunged, or never there) is IMAP_MSG_MISSING.
 */
int imap_fetch_uids(struct imap_source *src, const uint32_t *uids, size_t n, imap_fetch_fn *fn,
		    void *arg, struct err *e);

/*
 * Waits up to max_s seconds (capped at idle_max_s) for new mail: with IDLE
 * when the server offers it and s->idle is set, else by sleeping and then
 * sending NOOP.  *activity is true when the server reported EXISTS or
 * RECENT (including ones that came in the answers to earlier commands and
 * were not yet followed by imap_fetch_from): fetch then.  It is false after
 * a timeout or when a signal interrupted the wait (return 0 either way, so
 * the caller can look at its flags).  The session is out of IDLE again when
 * this returns.  A server that closes the connection (BYE, shutdown) is
 * ERR_TEMP.
 */
int imap_wait(struct imap_source *src, int max_s, bool *activity, struct err *e);

/* Sets \Seen on uid (UID STORE +FLAGS.SILENT); ERR_FINAL when the folder was
 * opened read-only (mark_seen false). */
int imap_mark_seen(struct imap_source *src, uint32_t uid, struct err *e);

/*
 * APPENDs len bytes of raw (LF or CRLF line ends; no NUL) to folder, with
 * \Seen when seen: the Sent-folder copy of a reply.  A missing folder is
 * ERR_FINAL.
 */
int imap_append(struct imap_source *src, const char *folder, const char *raw, size_t len,
		bool seen, struct err *e);

/*
 * Whether folder holds a message whose Message-ID is msgid (with or without
 * <>): EXAMINE folder, UID SEARCH HEADER Message-ID "<msgid>", then select
 * the watched folder again.  Closes the window between "SMTP accepted" and
 * "marked sent": a reply found in Sent went out.  If the watched folder
 * comes back with another UIDVALIDITY the session is ended with ERR_TEMP so
 * that the caller starts over (and rescans).
 */
int imap_find_msgid(struct imap_source *src, const char *folder, const char *msgid,
		    bool *found, struct err *e);

struct buf;

/*
 * The message of the watched folder whose Message-ID is msgid (with or
 * without <>), for maintainer Cc mode: UID SEARCH HEADER Message-ID, then
 * BODY.PEEK[] of the lowest such UID into out (reset; its cap applies).
 * *found is false when there is none or it is larger than max_message
 * (by its RFC822.SIZE or by what the server sends: never held whole).
 * Safe between the callbacks of imap_fetch_from (its batch is read whole
 * before they run).
 */
int imap_fetch_msgid(struct imap_source *src, const char *msgid, struct buf *out, bool *found,
		     struct err *e);

/* Counters since imap_open, for tests, the benchmark and `tagbot status`. */
struct imap_stats {
	unsigned long commands;		/* tagged commands sent */
	unsigned long body_fetches;	/* UID FETCH commands for bodies */
	unsigned long messages;		/* bodies handed to a callback */
	unsigned long long bytes;	/* their bytes */
	unsigned long idles;		/* IDLE commands */
	bool has_idle;			/* the server offers IDLE */
};

void imap_get_stats(const struct imap_source *src, struct imap_stats *st);

#endif
