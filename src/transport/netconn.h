/*
 * netconn.h - what the IMAP and NNTP sources share below their protocols:
 * a TCP connection with a bounded connect, the stream libetpan's protocol
 * code reads and writes (our own mailstream driver, plain or over GnuTLS:
 * implicit TLS or an upgrade after the protocol's STARTTLS), the check of
 * the server's certificate, and the signal guard around libetpan.
 *
 * Errors (err.h) start with the peer's where ("imap: HOST:PORT").
 *   ERR_TEMP   cannot resolve for now, cannot connect, handshake failed,
 *              a stop asked for while waiting.
 *   ERR_FINAL  no such host, tls = none for a host that is not loopback,
 *              certificate verification failed, no CA could be loaded.
 *
 * TLS: the chain must lead to a CA of ca_file (or of the system store when
 * ca_file is NULL) and the leaf must carry tls_name; there is no switch to
 * turn this off.  After STARTTLS, bytes the server sent before the
 * handshake are refused (CVE-2020-15953).
 *
 * No silence of the server holds a stream: every read and write of it
 * (and the connect, and the TLS handshake) waits at most timeout_s for the
 * server, in poll(), so the CPU idles meanwhile (a server that keeps
 * sending a byte now and then keeps the stream alive).  A read or write that
 * fails, fails for good: end of stream in the middle of an answer (libetpan
 * would take a read of 0 bytes for "nothing yet" and spin), a reset, the
 * timeout, a TLS error, or a stop.  net_stream_error() says which; the
 * protocol code's own verdict ("parse error", "out of memory") means
 * nothing then.
 *
 * Stopping: while a stream waits, the daemon's signals get through (the
 * pselect pattern: only inside ppoll(), with wait_mask), so a SIGTERM that
 * sets *stop is seen at once; from then on the stream (or the connect)
 * waits at most NET_STOP_GRACE_MS more in all: enough for a LOGOUT to a
 * server that answers, nothing for one that does not.
 */
#ifndef TAGBOT_NETCONN_H
#define TAGBOT_NETCONN_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

#define NET_CHAIN_MAX		16	/* certificates of the server's chain looked at */
#define NET_WHERE_MAX		1100	/* "proto: HOST:PORT" */
#define NET_TEXT_MAX		200	/* bytes of a server's text quoted in an error */
#define NET_STOP_GRACE_MS	250	/* a stream's waits after a stop, in all */
#define NET_ERROR_MAX		128	/* net_stream_error()'s text */

struct _mailstream;	/* libetpan's mailstream */

/* How a source or sink talks to its server: one setting for IMAP, NNTP
 * and SMTP alike. */
enum net_tls {
	NET_TLS_IMPLICIT = 0,	/* TLS from the first byte (IMAP 993, NNTP 563,
				 * smtps:// 465) */
	NET_TLS_STARTTLS,	/* plain connect, then STARTTLS; no fallback */
	NET_TLS_NONE		/* in clear text: loopback hosts only */
};

/* "implicit", "starttls", "none" (case-insensitive); -1 when unknown. */
int net_tls_parse(const char *s, enum net_tls *out);
/* Its name as net_tls_parse() takes it; "?" for a value out of range. */
const char *net_tls_name(enum net_tls t);

struct net_peer {
	char where[NET_WHERE_MAX];	/* "imap: HOST:PORT", the prefix of errors */
	const char *host;	/* foreign; name or address literal */
	int port;
	const char *tls_name;	/* foreign; the name the certificate must carry,
				 * sent as SNI unless an address; NULL: host */
	const char *ca_file;	/* foreign; NULL: the system store */
	bool plain;		/* no TLS: refused unless every address is loopback */
	int timeout_s;		/* connect, the TLS handshake, each read or write */
	bool has_wait_mask;	/* else waits keep the mask they are called with */
	sigset_t wait_mask;	/* the signal mask while waiting for the server */
	const volatile sig_atomic_t *stop; /* foreign; NULL: none */
};

/* Completes p, whose host, port, tls_name, ca_file, plain and timeout_s
 * the caller set: where from proto, host and port; tls_name host when
 * NULL; no wait mask, no stop.
 *
 *	src->peer = (struct net_peer){ .host = host, .port = 993, .timeout_s = 60 };
 *	net_peer_init(&src->peer, "imap");
 */
void net_peer_init(struct net_peer *p, const char *proto);

/* Waits for the server with wait_mask (copied; NULL: the mask of the call,
 * SIGPIPE always blocked), and gives up when *stop (NULL: never) becomes
 * non-zero: the daemon's SIGTERM handler sets it. */
void net_peer_signals(struct net_peer *p, const sigset_t *wait_mask,
		      const volatile sig_atomic_t *stop);

/* e: "WHERE: MSG" of p, class cls; *dead (when not NULL) set for ERR_TEMP,
 * which leaves a session out of step.  Returns -1.  A source whose struct
 * has peer and dead fails through NET_FAIL(src, cls, e, fmt, ...). */
int net_fail(const struct net_peer *p, bool *dead, enum err_class cls, struct err *e,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define NET_FAIL(src, cls, e, ...) net_fail(&(src)->peer, &(src)->dead, cls, e, __VA_ARGS__)

/* A server's text (its to choose) made safe to quote into out (n bytes):
 * control bytes as '?', at most NET_TEXT_MAX bytes; "(no text)" for none. */
const char *net_quote(const char *t, char *out, size_t n);

/* No CR, LF or other control byte, at most max bytes: a user name or a
 * password that goes into a command line. */
bool net_safe_credential(const char *s, size_t max);

/* Whether s is an IPv4 or IPv6 address literal. */
bool net_is_address(const char *s);

/* Resolves and connects (bounded by timeout_s): a non-blocking descriptor
 * with keepalive on, into *fd. */
int net_connect(const struct net_peer *p, int *fd, struct err *e);

/* Implicit TLS on fd: the handshake and the certificate checked before a
 * byte is sent.  *s owns fd; on failure fd is closed.  p must outlive *s. */
int net_tls_open(const struct net_peer *p, int fd, struct _mailstream **s, struct err *e);

/* A plain stream on fd (*s owns it, also on failure).  p must outlive *s. */
int net_plain_open(const struct net_peer *p, int fd, struct _mailstream **s, struct err *e);

/* After the protocol's STARTTLS was accepted on s (from net_plain_open):
 * refuses what the server sent before the handshake, upgrades s in place
 * and checks the certificate. */
int net_starttls(const struct net_peer *p, struct _mailstream *s, struct err *e);

/* Why s failed: "server closed the connection", "connection reset by
 * peer", "no answer for N s", "stopped while waiting for the server", ...;
 * NULL while it works (or when s is not one of ours). */
const char *net_stream_error(struct _mailstream *s);

/* Whether s holds bytes already received and not yet read (its buffer or
 * TLS's): a poll() of its descriptor would not see them. */
bool net_stream_pending(struct _mailstream *s);

/* How many signals were delivered while s waited for the server (with the
 * peer's wait mask): a caller about to sleep until a signal comes must not
 * sleep through one its stream took first. */
unsigned long net_stream_signals(struct _mailstream *s);

/*
 * Signals: libetpan takes an interrupted call for a dropped connection, so
 * while it runs SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM, SIGCHLD and SIGPIPE are blocked (a stream's waits let the
 * peer's wait_mask through); net_guard_leave() restores the caller's mask,
 * consuming a SIGPIPE our own write raised.
 */
struct net_guard {
	sigset_t old;		/* the caller's mask */
	bool pipe_pending;	/* SIGPIPE was pending before: not ours to consume */
};

void net_guard_enter(struct net_guard *g);
void net_guard_leave(struct net_guard *g);

#endif
