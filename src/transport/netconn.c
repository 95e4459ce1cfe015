/*
 * netconn.c - TCP, TLS and the certificate check for the mailstream the
 * IMAP and NNTP sources speak over, and the signal guard around libetpan.
 */
#include "autoconf.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <libetpan/mailstream.h>
#include <libetpan/mailstream_ssl.h>
#include <libetpan/carray.h>
#include <libetpan/mmapstring.h>

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

void net_peer_init(struct net_peer *p, const char *proto, const char *host, int port,
		   const char *tls_name, const char *ca_file, bool plain, int timeout_s)
{
	bool v6 = strchr(host, ':') != NULL;

	snprintf(p->where, sizeof(p->where), v6 ? "%s: [%s]:%d" : "%s: %s:%d", proto, host, port);
	p->host = host;
	p->port = port;
	p->tls_name = tls_name ? tls_name : host;
	p->ca_file = ca_file;
	p->plain = plain;
	p->timeout_s = timeout_s;
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

static int set_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* libetpan connects without a timeout; we bound it, and hand it a blocking
 * descriptor, which its GnuTLS handshake loop needs. */
static int connect_one(const struct addrinfo *ai, int timeout_s, int *err)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	struct pollfd p;
	int soerr = 0, r;
	socklen_t len = sizeof(soerr);

	if (fd < 0)
		goto fail_nofd;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		p.fd = fd;
		p.events = POLLOUT;
		while ((r = poll(&p, 1, timeout_s * 1000)) < 0 && errno == EINTR)
			;
		if (r == 0)
			errno = ETIMEDOUT;
		if (r <= 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr) {
			errno = soerr ? soerr : errno;
			goto fail;
		}
	}
	if (set_blocking(fd) < 0)
		goto fail;
	return fd;
fail:
	*err = errno;
	close(fd);
	return -1;
fail_nofd:
	*err = errno;
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
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, p->timeout_s, &err);
	freeaddrinfo(res);
	if (fd < 0)
		return fail(p, ERR_TEMP, e, "cannot connect: %s", strerror(err));
	tune_socket(fd);
	*fdp = fd;
	return 0;
}

/* --- TLS ------------------------------------------------------------------ */

static void tls_setup(struct mailstream_ssl_context *ctx, void *data)
{
	const struct net_peer *p = data;

	/* RFC 6066: SNI carries host names only. */
	if (!net_is_address(p->tls_name))
		mailstream_ssl_set_server_name(ctx, (char *)p->tls_name);
}

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

/* libetpan (with GnuTLS) accepts any certificate: check the chain it got. */
static int verify_peer(const struct net_peer *p, mailstream *s, struct err *e)
{
	carray *chain = mailstream_get_certificate_chain(s);
	gnutls_x509_crt_t crt[NET_CHAIN_MAX];
	unsigned n = 0, count = chain ? carray_count(chain) : 0;
	int rc = 0;

	if (!count)
		rc = fail(p, ERR_FINAL, e, "certificate verify failed: no certificate");
	for (unsigned i = 0; !rc && i < count && n < NET_CHAIN_MAX; i++) {
		MMAPString *der = carray_get(chain, i);
		gnutls_datum_t d = { (unsigned char *)der->str, (unsigned)der->len };

		if (gnutls_x509_crt_init(&crt[n]) < 0)
			rc = fail(p, ERR_TEMP, e, "out of memory");
		else if (gnutls_x509_crt_import(crt[n++], &d, GNUTLS_X509_FMT_DER) < 0)
			rc = fail(p, ERR_FINAL, e, "certificate verify failed: unreadable "
				  "certificate");
	}
	if (!rc)
		rc = verify_certs(p, crt, n, e);
	while (n)
		gnutls_x509_crt_deinit(crt[--n]);
	if (chain)
		mailstream_certificate_chain_free(chain);
	return rc;
}

int net_tls_open(const struct net_peer *p, int fd, mailstream **s, struct err *e)
{
	*s = mailstream_ssl_open_with_callback_timeout(fd, p->timeout_s, tls_setup, (void *)p);
	if (!*s) {
		close(fd);
		return fail(p, ERR_TEMP, e, "TLS handshake failed");
	}
	/* Checked before a byte is sent, and before the greeting is believed. */
	if (verify_peer(p, *s, e) < 0) {
		mailstream_close(*s);
		*s = NULL;
		return -1;
	}
	return 0;
}

int net_plain_open(const struct net_peer *p, int fd, mailstream **s, struct err *e)
{
	*s = mailstream_socket_open_timeout(fd, p->timeout_s);
	if (!*s) {
		close(fd);
		return fail(p, ERR_TEMP, e, "cannot set up the connection");
	}
	return 0;
}

int net_starttls(const struct net_peer *p, mailstream *s, struct err *e)
{
	mailstream_low *low, *tls;
	int fd;

	/* Anything already read came before the handshake: an injection. */
	if (s->read_buffer_len > 0)
		return fail(p, ERR_FINAL, e, "STARTTLS: server sent data before the TLS handshake");
	low = mailstream_get_low(s);
	fd = mailstream_low_get_fd(low);
	if (fd < 0 || set_blocking(fd) < 0)
		return fail(p, ERR_TEMP, e, "STARTTLS: lost the socket");
	tls = mailstream_low_tls_open_with_callback_timeout(fd, p->timeout_s, tls_setup,
							    (void *)p);
	if (!tls)
		return fail(p, ERR_TEMP, e, "STARTTLS: TLS handshake failed");
	mailstream_low_free(low);
	mailstream_set_low(s, tls);
	return verify_peer(p, s, e);
}
