/*
 * nntp_source.h - the daemon's NNTP groups (libetpan's NNTP client):
 * connect with implicit TLS, STARTTLS or, on loopback only, in plain
 * (netconn.h: the certificate is checked as for IMAP); AUTHINFO USER/PASS
 * when a user is set; list the groups a wildmat names; select a group and
 * learn its low and high water marks; read its overview (XOVER) and fetch
 * articles by number.  The only module that includes libetpan's NNTP
 * headers.  NNTP has no IDLE: the daemon polls.
 *
 * Errors (err.h).  Every message starts "nntp: HOST:PORT: ".
 *   ERR_TEMP   the connection could not be made, dropped, timed out or the
 *              server answered out of protocol (a line that does not parse),
 *              or a stop was asked for while waiting for the server.  A
 *              connection that broke says how: "ARTICLE: server closed the
 *              connection", "...: connection reset by peer", "...: no answer
 *              for N s" (netconn.h).  The session is dead from then on: every
 *              further call fails with ERR_TEMP.  nntp_close() it and
 *              nntp_open() a new one after a backoff.
 *   ERR_FINAL  bad settings, tls = none for a host that is not loopback,
 *              certificate verification failed, login refused, no such
 *              group (the session lives on).
 * The password never appears in an error message or a log line.
 *
 * Trust: the server's answers are input like the articles.  Group names it
 * lists must be printable ASCII of at most NNTP_GROUP_MAX bytes (others are
 * skipped); at most NNTP_GROUPS_MAX groups a source; an overview is asked
 * for at most NNTP_OVER_WINDOW articles at a time, and lines outside that
 * range or repeated are dropped (and counted for the caller to tell); a
 * Message-ID in it longer than NNTP_MSGID_MAX is ignored (the article is
 * fetched).  An article is read with our cap whatever the overview said of
 * its size: one larger than max_message is read past, never held.
 * libetpan reads the other answers (the overview, LIST ACTIVE) whole
 * before we see them, so those have no cap of ours while they are read;
 * every read is bounded by timeout_s, and one cut short (end of stream, a
 * reset) ends the session.
 *
 * Signals: as imap_source.h (netconn.h's guard around every command); a
 * read or write waiting for the server waits with wait_sigmask, and gives
 * up when *stop is set.
 * One source is one connection; not for two threads at once.
 */
#ifndef TAGBOT_NNTP_SOURCE_H
#define TAGBOT_NNTP_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "transport/netconn.h"

#define NNTP_TIMEOUT_DEFAULT_S	60	/* connect, TLS handshake, each read or write */
#define NNTP_OVER_WINDOW	1000	/* articles per XOVER */
#define NNTP_GROUPS_MAX		1000	/* groups one source follows */
#define NNTP_GROUP_MAX		255	/* bytes of a group name or wildmat */
#define NNTP_MSGID_MAX		998	/* bytes of an overview's Message-ID */
#define NNTP_MESSAGE_MAX	((size_t)128 * 1024 * 1024) /* as MESSAGE_MAX_SIZE */
#define NNTP_NAME_MAX		1024	/* host, user */

struct nntp_settings {
	const char *host;	/* foreign */
	int port;		/* 0: 563 for implicit TLS, else 119 */
	enum net_tls tls;
	const char *tls_name;	/* foreign; the name the certificate must carry; NULL: host */
	const char *ca_file;	/* foreign; NULL: the system store */
	const char *user;	/* foreign; NULL: no AUTHINFO */
	const char *password;	/* foreign; secret */
	int timeout_s;		/* 0: NNTP_TIMEOUT_DEFAULT_S */
	size_t max_message;	/* larger articles are read past, not held; 0: NNTP_MESSAGE_MAX */
	const sigset_t *wait_sigmask; /* foreign, copied; the signal mask while waiting
				 * for the server; NULL: signals stay blocked */
	const volatile sig_atomic_t *stop; /* foreign, must outlive the source; when
				 * non-zero, waits for the server give up; NULL: never */
};

/* Everything zero or NULL; tls is NET_TLS_IMPLICIT. */
void nntp_settings_init(struct nntp_settings *s);

struct nntp_source;	/* opaque: the libetpan session */

/* Connects, does TLS and checks the certificate, reads the greeting, logs
 * in when user is set, MODE READER.  *out is NULL on failure; s and its
 * strings need not outlive the call. */
int nntp_open(struct nntp_source **out, const struct nntp_settings *s, struct err *e);

/* QUIT (skipped when the session is dead) and frees; NULL is fine. */
void nntp_close(struct nntp_source *src);

/* Whether pattern is a wildmat (holds * ? [ or !), not a group name. */
bool nntp_is_wildmat(const char *pattern);

/*
 * The groups patterns name, sorted, without repeats: a name as it is, a
 * wildmat as LIST ACTIVE expands it.  *names (NULL-terminated, malloc'ed
 * strings and array) holds at most NNTP_GROUPS_MAX; *truncated when the
 * server listed more.
 */
int nntp_list_groups(struct nntp_source *src, const char *const *patterns, size_t n,
		     char ***names, size_t *count, bool *truncated, struct err *e);
void nntp_names_free(char **names);

/* A group's state from GROUP (RFC 3977 6.1.1): an empty group may have
 * high = low - 1 or count 0. */
struct nntp_group {
	uint32_t low, high, count;
};

/* Selects group (ERR_FINAL when the server has no such group). */
int nntp_group(struct nntp_source *src, const char *group, struct nntp_group *g,
	       struct err *e);

/* One overview line: the article's number, its Message-ID (NULL when the
 * line has none that fits) and the size the server gives (0: unknown). */
struct nntp_over {
	uint32_t num;
	const char *msgid;	/* foreign, valid during the call */
	size_t bytes;
};

/* Called for each overview line, ascending by number; 0 to go on, > 0 to
 * stop cleanly, -1 to stop with e filled. */
typedef int nntp_over_fn(void *arg, const struct nntp_over *ov, struct err *e);

/* XOVER from-to of the selected group (to - from < NNTP_OVER_WINDOW, or
 * it is cut there); returns fn's stop (> 0) or 0.  *ignored grows by the
 * answer's lines outside from-to or repeated: not handed to fn. */
int nntp_overview(struct nntp_source *src, uint32_t from, uint32_t to, nntp_over_fn *fn,
		  void *arg, size_t *ignored, struct err *e);

/* What nntp_article() found. */
enum nntp_article_state {
	NNTP_ARTICLE_OK = 0,	/* *raw, *len: the article (CRLF, dots unstuffed) */
	NNTP_ARTICLE_GONE,	/* the server has no such article (any more) */
	NNTP_ARTICLE_TOO_LARGE	/* larger than max_message: *len the bytes the server
				 * sent, read past without holding them */
};

/* ARTICLE num of the selected group; *raw is valid until the next call.
 * The article takes at most max_message bytes of memory, whatever comes. */
int nntp_article(struct nntp_source *src, uint32_t num, const char **raw, size_t *len,
		 enum nntp_article_state *state, struct err *e);

#endif
