/*
 * netconn.c - TCP, TLS and the certificate check for the mailstream the
 * IMAP and NNTP sources speak over, and the signal guard around libetpan.
 *
 * The stream is a mailstream_low driver of our own, not libetpan's socket
 * or TLS one: libetpan's socket driver returns 0 at end of stream, which
 * its line reader takes for "nothing yet" and its IMAP literal reader
 * loops on (100 % CPU, for good, on a connection cut in the middle of an
 * answer); and neither of its drivers can be woken by a signal.  Ours
 * waits in ppoll() alone, never returns 0, and keeps why it failed.
 */
#include "autoconf.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <libetpan/mailstream.h>
#include <libetpan/mailstream_low.h>

#include "lib/buf.h"
#include "transport/netconn.h"

#define KEEPALIVE_IDLE_S	60	/* TCP keepalive: a dead peer is noticed while idling */
#define KEEPALIVE_INTVL_S	15
#define KEEPALIVE_CNT		4

/* This file's own failures leave no session out of step. */
#define fail(p, ...) net_fail(p, NULL, __VA_ARGS__)

int net_fail(const struct net_peer *p, bool *dead, enum err_class cls, struct err *e,
	     const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dead && cls == ERR_TEMP)
		*dead = true;
	return err_set(e, cls, "%s: %s", p->where, msg);
}

const char *net_quote(const char *t, char *out, size_t n)
{
	size_t i = 0;

	for (; t && t[i] && i + 1 < n && i < NET_TEXT_MAX; i++)
		out[i] = (unsigned char)t[i] < 0x20 || t[i] == 0x7f ? '?' : t[i];
	out[i] = '\0';
	return i ? out : "(no text)";
}

bool net_safe_credential(const char *s, size_t max)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || s[n] == 0x7f)
			return false;
	return n <= max;
}

void net_peer_init(struct net_peer *p, const char *proto)
{
	bool v6 = strchr(p->host, ':') != NULL;

	snprintf(p->where, sizeof(p->where), v6 ? "%s: [%s]:%d" : "%s: %s:%d", proto, p->host,
		 p->port);
	if (!p->tls_name)
		p->tls_name = p->host;
	p->has_wait_mask = false;
	sigemptyset(&p->wait_mask);
	p->stop = NULL;
}

void net_peer_signals(struct net_peer *p, const sigset_t *wait_mask,
		      const volatile sig_atomic_t *stop)
{
	p->has_wait_mask = wait_mask != NULL;
	if (wait_mask)
		p->wait_mask = *wait_mask;
	p->stop = stop;
}

bool net_is_address(const char *s)
{
	unsigned char a[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/* --- signals -------------------------------------------------------------- */

static const int held_signals[] = {
	SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE
};

void net_guard_enter(struct net_guard *g)
{
	sigset_t set, pend;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(held_signals); i++)
		sigaddset(&set, held_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
	g->pipe_pending = sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE) == 1;
}

/* The libpq way: a SIGPIPE raised by our own write is taken off the
 * pending set before the caller's mask (which may let it kill us) is back. */
void net_guard_leave(struct net_guard *g)
{
	sigset_t pend, pipe_only;
	const struct timespec zero = { 0, 0 };

	if (!g->pipe_pending && sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE) == 1) {
		sigemptyset(&pipe_only);
		sigaddset(&pipe_only, SIGPIPE);
		while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* --- waiting for the server ----------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct timespec timespec_of(double s)
{
	struct timespec ts = { 0, 0 };

	if (s > 0) {
		ts.tv_sec = (time_t)s;
		ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	}
	return ts;
}

static bool stopping(const struct net_peer *p)
{
	return p->stop && *p->stop;
}

enum wait_result {
	WAIT_READY,
	WAIT_TIMEOUT,
	WAIT_STOP,
	WAIT_ERROR		/* errno says why */
};

/* What a stream's waits have seen of signals. */
struct wait_state {
	double stop_at;		/* when a stop was first seen; 0: not yet */
	unsigned long signals;	/* signals delivered while waiting */
};

/*
 * Waits until fd is ready for events, or has hung up or failed (the read
 * or write that follows says how), at most until deadline.  Signals get
 * through here only, with the peer's wait mask, and are counted: one that
 * set *stop ends the wait within NET_STOP_GRACE_MS of ws->stop_at (a
 * stream keeps it, so its later waits share the grace); any other (SIGHUP)
 * lets it go on.
 */
static enum wait_result wait_fd(const struct net_peer *p, int fd, short events,
				double deadline, struct wait_state *ws)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	sigset_t mask;
	int r;

	if (p->has_wait_mask) {
		mask = p->wait_mask;
		sigaddset(&mask, SIGPIPE);
	}
	for (;;) {
		double now = now_s(), end = deadline;
		struct timespec ts;

		if (stopping(p)) {
			if (!ws->stop_at)
				ws->stop_at = now;
			if (ws->stop_at + NET_STOP_GRACE_MS / 1000.0 < end)
				end = ws->stop_at + NET_STOP_GRACE_MS / 1000.0;
		}
		ts = timespec_of(end - now);
		r = ppoll(&pfd, 1, &ts, p->has_wait_mask ? &mask : NULL);
		if (r > 0)
			return WAIT_READY;
		if (r < 0 && errno != EINTR)
			return WAIT_ERROR;
		if (r < 0)
			ws->signals++;
		if (r == 0 && now_s() >= end)
			return stopping(p) ? WAIT_STOP : WAIT_TIMEOUT;
	}
}

/* --- TCP ------------------------------------------------------------------ */

static bool addr_loopback(const struct addrinfo *ai)
{
	if (ai->ai_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ai->ai_addr;

		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ai->ai_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static bool all_loopback(const struct addrinfo *res)
{
	for (; res; res = res->ai_next)
		if (!addr_loopback(res))
			return false;
	return true;
}

/* Keepalive: a dead peer is noticed while we idle: without it a silently lost
 * connection would look like a quiet folder until IDLE is re-issued. */
static void tune_socket(int fd)
{
	int on = 1, idle = KEEPALIVE_IDLE_S, intvl = KEEPALIVE_INTVL_S, cnt = KEEPALIVE_CNT;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	/* Each command goes out whole (one flush): nothing for Nagle to batch,
	 * only a delayed ACK to wait for. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

/* One address, bounded by timeout_s; the descriptor stays non-blocking:
 * the stream waits in poll(), never in the kernel.  ECANCELED: a stop. */
static int connect_one(const struct net_peer *p, const struct addrinfo *ai, int *err)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	struct wait_state ws = { 0, 0 };
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		switch (wait_fd(p, fd, POLLOUT, now_s() + p->timeout_s, &ws)) {
		case WAIT_READY:
			break;
		case WAIT_TIMEOUT:
			errno = ETIMEDOUT;
			goto fail;
		case WAIT_STOP:
			errno = ECANCELED;
			goto fail;
		default:
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr) {
			errno = soerr ? soerr : errno;
			goto fail;
		}
	}
	return fd;
fail:
	*err = errno;
	close(fd);
	return -1;
}

int net_connect(const struct net_peer *p, int *fdp, struct err *e)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char port[8];
	int r, fd = -1, err = ECONNREFUSED;

	snprintf(port, sizeof(port), "%d", p->port);
	r = getaddrinfo(p->host, port, &hints, &res);
	if (r)
		return fail(p, r == EAI_AGAIN ? ERR_TEMP : ERR_FINAL, e, "cannot resolve: %s",
			    gai_strerror(r));
	if (p->plain && !all_loopback(res)) {
		freeaddrinfo(res);
		return fail(p, ERR_FINAL, e, "tls = none is refused: %s is not a loopback "
			    "address", p->host);
	}
	for (ai = res; ai && fd < 0 && err != ECANCELED; ai = ai->ai_next)
		fd = connect_one(p, ai, &err);
	freeaddrinfo(res);
	if (fd < 0 && err == ECANCELED)
		return fail(p, ERR_TEMP, e, "cannot connect: stopped while waiting for the server");
	if (fd < 0 && err == ETIMEDOUT)
		return fail(p, ERR_TEMP, e, "cannot connect: no answer for %d s", p->timeout_s);
	if (fd < 0)
		return fail(p, ERR_TEMP, e, "cannot connect: %s", strerror(err));
	tune_socket(fd);
	*fdp = fd;
	return 0;
}

/* --- the stream: a mailstream_low driver ---------------------------------- */

#define NET_BUFFER_SIZE	8192	/* mailstream's read and write buffers, as libetpan's */

struct net_low {
	const struct net_peer *p;	/* foreign: the source's, which outlives us */
	int fd;				/* -1 once closed */
	gnutls_session_t tls;		/* NULL: plain */
	gnutls_certificate_credentials_t cred;
	int sys_errno;			/* of the last recv() or send() under TLS that failed */
	struct wait_state ws;
	char error[NET_ERROR_MAX];	/* why the stream failed; "" while it works */
};

static mailstream_low_driver net_driver;

/* The stream fails for good: the first reason stays.  Returns -1. */
static int low_fail(struct net_low *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int low_fail(struct net_low *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->error[0]) {
		va_start(ap, fmt);
		vsnprintf(l->error, sizeof(l->error), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A recv() or send() that failed, in what the peer did. */
static int low_fail_errno(struct net_low *l, int err)
{
	switch (err) {
	case ECONNRESET:
		return low_fail(l, "connection reset by peer");
	case EPIPE:
		return low_fail(l, "server closed the connection");
	case ETIMEDOUT:
		return low_fail(l, "connection timed out (the server is unreachable)");
	default:
		return low_fail(l, "connection lost: %s", strerror(err));
	}
}

static int low_wait(struct net_low *l, short events, double deadline)
{
	switch (wait_fd(l->p, l->fd, events, deadline, &l->ws)) {
	case WAIT_READY:
		return 0;
	case WAIT_TIMEOUT:
		if (events & POLLOUT)
			return low_fail(l, "the server took no data for %d s", l->p->timeout_s);
		return low_fail(l, "no answer for %d s", l->p->timeout_s);
	case WAIT_STOP:
		return low_fail(l, "stopped while waiting for the server");
	default:
		return low_fail(l, "poll: %s", strerror(errno));
	}
}

static ssize_t plain_read(struct net_low *l, void *buf, size_t n, double deadline)
{
	for (;;) {
		ssize_t k = recv(l->fd, buf, n, 0);

		if (k > 0)
			return k;
		/* libetpan would take 0 for "nothing yet": never hand it one. */
		if (k == 0)
			return low_fail(l, "server closed the connection");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return low_fail_errno(l, errno);
		if (low_wait(l, POLLIN, deadline) < 0)
			return -1;
	}
}

static ssize_t plain_write(struct net_low *l, const void *buf, size_t n, double deadline)
{
	for (;;) {
		ssize_t k = send(l->fd, buf, n, MSG_NOSIGNAL);

		if (k > 0)
			return k;
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return low_fail_errno(l, errno);
		if (low_wait(l, POLLOUT, deadline) < 0)
			return -1;
	}
}

/* GnuTLS's transport: the errno of a failure is kept for the message. */
static ssize_t tls_pull(gnutls_transport_ptr_t ptr, void *buf, size_t n)
{
	struct net_low *l = ptr;
	ssize_t k = recv(l->fd, buf, n, 0);

	if (k < 0)
		l->sys_errno = errno;
	return k;
}

static ssize_t tls_push(gnutls_transport_ptr_t ptr, const void *buf, size_t n)
{
	struct net_low *l = ptr;
	ssize_t k = send(l->fd, buf, n, MSG_NOSIGNAL);

	if (k < 0)
		l->sys_errno = errno;
	return k;
}

/* Asked for only with GnuTLS's own timeouts, which are off: never waits
 * longer than asked. */
static int tls_pull_timeout(gnutls_transport_ptr_t ptr, unsigned int ms)
{
	struct net_low *l = ptr;
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };

	return poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? 0 : (int)ms);
}

/* A GnuTLS result that ends the stream, in words. */
static int tls_fail(struct net_low *l, ssize_t r)
{
	if (r == 0 || r == GNUTLS_E_PREMATURE_TERMINATION)
		return low_fail(l, "server closed the connection");
	if ((r == GNUTLS_E_PULL_ERROR || r == GNUTLS_E_PUSH_ERROR) && l->sys_errno)
		return low_fail_errno(l, l->sys_errno);
	return low_fail(l, "TLS: %s", gnutls_strerror((int)r));
}

/* GNUTLS_E_AGAIN: wait the way GnuTLS was going (a read may have to write). */
static int tls_wait(struct net_low *l, double deadline)
{
	return low_wait(l, gnutls_record_get_direction(l->tls) ? POLLOUT : POLLIN, deadline);
}

static int tls_handshake(struct net_low *l, double deadline)
{
	int r;

	while ((r = gnutls_handshake(l->tls)) < 0) {
		if (r == GNUTLS_E_AGAIN) {
			if (tls_wait(l, deadline) < 0)
				return -1;
		} else if (gnutls_error_is_fatal(r)) {
			return tls_fail(l, r);
		}
		/* else interrupted, or a warning alert: go on */
	}
	return 0;
}

static ssize_t tls_read(struct net_low *l, void *buf, size_t n, double deadline)
{
	for (;;) {
		ssize_t r = gnutls_record_recv(l->tls, buf, n);

		if (r > 0)
			return r;
		if (r == GNUTLS_E_AGAIN) {
			if (tls_wait(l, deadline) < 0)
				return -1;
		} else if (r == GNUTLS_E_REHANDSHAKE) {
			if (tls_handshake(l, deadline) < 0)
				return -1;
		} else if (r == 0 || gnutls_error_is_fatal((int)r)) {
			return tls_fail(l, r);
		}
	}
}

/* GnuTLS wants a send it could not finish called again with the same
 * data: the loop does that. */
static ssize_t tls_write(struct net_low *l, const void *buf, size_t n, double deadline)
{
	for (;;) {
		ssize_t r = gnutls_record_send(l->tls, buf, n);

		if (r > 0)
			return r;
		if (r == GNUTLS_E_AGAIN) {
			if (tls_wait(l, deadline) < 0)
				return -1;
		} else if (r == 0 || gnutls_error_is_fatal((int)r)) {
			return tls_fail(l, r);
		}
	}
}

/* Each call waits at most timeout_s for the server; one that failed
 * leaves the stream failed. */
static ssize_t low_read(mailstream_low *s, void *buf, size_t n)
{
	struct net_low *l = s->data;
	double deadline = now_s() + l->p->timeout_s;

	if (l->error[0] || l->fd < 0)
		return -1;
	if (!n)
		return 0;
	return l->tls ? tls_read(l, buf, n, deadline) : plain_read(l, buf, n, deadline);
}

static ssize_t low_write(mailstream_low *s, const void *buf, size_t n)
{
	struct net_low *l = s->data;
	double deadline = now_s() + l->p->timeout_s;

	if (l->error[0] || l->fd < 0)
		return -1;
	if (!n)
		return 0;
	return l->tls ? tls_write(l, buf, n, deadline) : plain_write(l, buf, n, deadline);
}

static void low_release(struct net_low *l)
{
	if (l->tls)
		gnutls_deinit(l->tls);
	if (l->cred)
		gnutls_certificate_free_credentials(l->cred);
	l->tls = NULL;
	l->cred = NULL;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

static int low_close(mailstream_low *s)
{
	low_release(s->data);
	return 0;
}

static int low_get_fd(mailstream_low *s)
{
	return ((struct net_low *)s->data)->fd;
}

static void low_free(mailstream_low *s)
{
	low_release(s->data);
	free(s->data);
	free(s);
}

static mailstream_low_driver net_driver = {
	.mailstream_read = low_read,
	.mailstream_write = low_write,
	.mailstream_close = low_close,
	.mailstream_get_fd = low_get_fd,
	.mailstream_free = low_free,
};

static struct net_low *low_of(mailstream *s)
{
	mailstream_low *low = s ? mailstream_get_low(s) : NULL;

	return low && low->driver == &net_driver ? low->data : NULL;
}

/* A stream over l (which it owns from then on, also on failure). */
static mailstream *stream_new(struct net_low *l)
{
	mailstream_low *low = mailstream_low_new(l, &net_driver);
	mailstream *s = low ? mailstream_new(low, NET_BUFFER_SIZE) : NULL;

	if (!s && low) {
		mailstream_low_free(low);
	} else if (!low) {
		low_release(l);
		free(l);
	}
	return s;
}

const char *net_stream_error(mailstream *s)
{
	struct net_low *l = low_of(s);

	return l && l->error[0] ? l->error : NULL;
}

unsigned long net_stream_signals(mailstream *s)
{
	struct net_low *l = low_of(s);

	return l ? l->ws.signals : 0;
}

bool net_stream_pending(mailstream *s)
{
	struct net_low *l = low_of(s);

	if (s && s->read_buffer_len > 0)
		return true;
	return l && l->tls && gnutls_record_check_pending(l->tls) > 0;
}

/* --- TLS ------------------------------------------------------------------ */

static int load_trust(const struct net_peer *p, gnutls_x509_trust_list_t *tl, struct err *e)
{
	int r;

	if (gnutls_x509_trust_list_init(tl, 0) < 0)
		return fail(p, ERR_TEMP, e, "cannot set up certificate checks");
	if (p->ca_file)
		r = gnutls_x509_trust_list_add_trust_file(*tl, p->ca_file, NULL,
							  GNUTLS_X509_FMT_PEM, 0, 0);
	else
		r = gnutls_x509_trust_list_add_system_trust(*tl, 0, 0);
	if (r > 0)
		return 0;
	gnutls_x509_trust_list_deinit(*tl, 1);
	if (p->ca_file)
		return fail(p, ERR_FINAL, e, "ca_file %s: no CA certificate loaded (%s)",
			    p->ca_file, r < 0 ? gnutls_strerror(r) : "empty");
	return fail(p, ERR_FINAL, e, "no system CA store: no CA certificate could be loaded "
		    "from it (install ca-certificates, or set ca_file)");
}

static int verify_certs(const struct net_peer *p, gnutls_x509_crt_t *crt, unsigned n,
			struct err *e)
{
	gnutls_typed_vdata_st vd[2] = {
		{ .type = GNUTLS_DT_DNS_HOSTNAME, .data = (unsigned char *)p->tls_name },
		{ .type = GNUTLS_DT_KEY_PURPOSE_OID, .data = (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER },
	};
	gnutls_x509_trust_list_t tl;
	gnutls_datum_t out = { NULL, 0 };
	unsigned status = 0;
	int r;

	if (load_trust(p, &tl, e) < 0)
		return -1;
	r = gnutls_x509_trust_list_verify_crt2(tl, crt, n, vd, ARRAY_SIZE(vd), 0, &status, NULL);
	gnutls_x509_trust_list_deinit(tl, 1);
	if (r < 0)
		return fail(p, ERR_FINAL, e, "certificate verify failed: %s", gnutls_strerror(r));
	if (!status)
		return 0;
	gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0);
	r = fail(p, ERR_FINAL, e, "certificate verify failed for %s: %s", p->tls_name,
		 out.data ? (const char *)out.data : "untrusted");
	gnutls_free(out.data);
	return r;
}

/* The chain the server sent, checked by us: GnuTLS checks none by itself. */
static int verify_peer(const struct net_peer *p, gnutls_session_t tls, struct err *e)
{
	unsigned count = 0, n = 0;
	const gnutls_datum_t *der = gnutls_certificate_get_peers(tls, &count);
	gnutls_x509_crt_t crt[NET_CHAIN_MAX];
	int rc = 0;

	if (!der || !count)
		rc = fail(p, ERR_FINAL, e, "certificate verify failed: no certificate");
	for (unsigned i = 0; !rc && i < count && n < NET_CHAIN_MAX; i++) {
		if (gnutls_x509_crt_init(&crt[n]) < 0)
			rc = fail(p, ERR_TEMP, e, "out of memory");
		else if (gnutls_x509_crt_import(crt[n++], &der[i], GNUTLS_X509_FMT_DER) < 0)
			rc = fail(p, ERR_FINAL, e, "certificate verify failed: unreadable "
				  "certificate");
	}
	if (!rc)
		rc = verify_certs(p, crt, n, e);
	while (n)
		gnutls_x509_crt_deinit(crt[--n]);
	return rc;
}

static int tls_setup(struct net_low *l)
{
	const struct net_peer *p = l->p;

	if (gnutls_certificate_allocate_credentials(&l->cred) < 0) {
		l->cred = NULL;
		return -1;
	}
	if (gnutls_init(&l->tls, GNUTLS_CLIENT) < 0) {
		l->tls = NULL;
		return -1;
	}
	if (gnutls_set_default_priority(l->tls) < 0 ||
	    gnutls_credentials_set(l->tls, GNUTLS_CRD_CERTIFICATE, l->cred) < 0)
		return -1;
	/* RFC 6066: SNI carries host names only. */
	if (!net_is_address(p->tls_name) &&
	    gnutls_server_name_set(l->tls, GNUTLS_NAME_DNS, p->tls_name, strlen(p->tls_name)) < 0)
		return -1;
	gnutls_transport_set_ptr(l->tls, l);
	gnutls_transport_set_pull_function(l->tls, tls_pull);
	gnutls_transport_set_pull_timeout_function(l->tls, tls_pull_timeout);
	gnutls_transport_set_push_function(l->tls, tls_push);
	/* Bounded by our deadline, in our poll(). */
	gnutls_handshake_set_timeout(l->tls, 0);
	return 0;
}

/* The handshake on l's descriptor and the check of the certificate, before
 * a byte of ours is sent; a failure leaves l failed. */
static int tls_start(struct net_low *l, struct err *e)
{
	const struct net_peer *p = l->p;

	if (tls_setup(l) < 0) {
		low_fail(l, "cannot set up TLS");
		return fail(p, ERR_TEMP, e, "cannot set up TLS");
	}
	if (tls_handshake(l, now_s() + p->timeout_s) < 0)
		return fail(p, ERR_TEMP, e, "TLS handshake failed: %s", l->error);
	if (verify_peer(p, l->tls, e) < 0)
		return low_fail(l, "certificate not verified");
	return 0;
}

static struct net_low *low_new(const struct net_peer *p, int fd)
{
	struct net_low *l = xcalloc(1, sizeof(*l));

	l->p = p;
	l->fd = fd;
	return l;
}

int net_tls_open(const struct net_peer *p, int fd, mailstream **s, struct err *e)
{
	struct net_low *l = low_new(p, fd);

	*s = NULL;
	if (tls_start(l, e) < 0) {
		low_release(l);
		free(l);
		return -1;
	}
	*s = stream_new(l);
	if (!*s)
		return fail(p, ERR_TEMP, e, "cannot set up the connection");
	return 0;
}

int net_plain_open(const struct net_peer *p, int fd, mailstream **s, struct err *e)
{
	*s = stream_new(low_new(p, fd));
	if (!*s)
		return fail(p, ERR_TEMP, e, "cannot set up the connection");
	return 0;
}

int net_starttls(const struct net_peer *p, mailstream *s, struct err *e)
{
	struct net_low *l = low_of(s);

	/* Anything already read came before the handshake: an injection. */
	if (s->read_buffer_len > 0)
		return fail(p, ERR_FINAL, e, "STARTTLS: server sent data before the TLS handshake");
	if (!l || l->tls || l->error[0] || l->fd < 0)
		return fail(p, ERR_TEMP, e, "STARTTLS: lost the connection");
	return tls_start(l, e);
}

static const char *const tls_names[] = {
	[NET_TLS_IMPLICIT] = "implicit",
	[NET_TLS_STARTTLS] = "starttls",
	[NET_TLS_NONE] = "none",
};

int net_tls_parse(const char *s, enum net_tls *out)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(tls_names); i++)
		if (!strcasecmp(s, tls_names[i])) {
			*out = (enum net_tls)i;
			return 0;
		}
	return -1;
}

const char *net_tls_name(enum net_tls t)
{
	return (size_t)t < ARRAY_SIZE(tls_names) ? tls_names[t] : "?";
}
