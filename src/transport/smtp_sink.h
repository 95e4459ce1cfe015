/*
 * smtp_sink.h - submits one reply over SMTP with libcurl.  The only module
 * (with the link lookup) that includes curl; callers see these types only.
 *
 * TLS: STARTTLS is required by default; implicit TLS (smtps://) on request;
 * no TLS only to a loopback host (127.0.0.0/8, ::1, localhost).  The peer's
 * certificate and host name are always verified, against ca_file when set,
 * else the system store.  AUTH happens when user is set (curl picks the
 * mechanism the server offers).  Nothing is logged here.  curl's verbose
 * output goes to a callback of ours only, which reads the verbs of our
 * commands and the server's answers (to learn which recipients were
 * refused) and nothing else: the password only goes to curl.
 *
 * Failures are classed for the outbox:
 *   ERR_TEMP   connection refused or dropped, a timeout, DNS, a 4xx reply:
 *              not sent for now; the daemon's outbox keeps the reply and
 *              sends it again after deliver_backoff()
 *   ERR_SETUP  the sink's fault, not the reply's, and nothing was sent: a
 *              certificate that does not verify, a server without
 *              STARTTLS, a refused login (535), a 5xx to the greeting, EHLO
 *              or MAIL FROM (the bot's own address), bad settings
 *   ERR_FINAL  the reply failed: its first recipient refused with 5xx, a
 *              5xx to DATA or the message, a bad envelope or message
 * Messages name the server ("smtp: URL: ...") and quote its reply line when
 * it answered 4xx/5xx ("smtp: smtp://127.0.0.1:2525: 450 4.2.0 ...").
 *
 * Recipients: the first one is the reply's To: (the submitter).  When the
 * server refuses it (4xx or 5xx) nothing is sent to anybody (the session
 * ends after DATA, before the message's final dot), classed by its answer.
 * Any other refused recipient is dropped: the message goes to the rest, and
 * the call succeeds with the refusals in *refused.  So a retry never
 * duplicates the reply, and one bad Cc address does not lose it.
 *
 * connect_timeout_s bounds the TCP and TLS handshakes, the server's
 * greeting, EHLO, STARTTLS and AUTH: a server that accepts the connection
 * and never speaks costs that long.  timeout_s bounds the submission and,
 * separately, the wait for the answer to QUIT, so a call takes at most
 * about twice timeout_s.  With ca_file set
 * only its CAs are trusted (curl's default CA directory is not read).  libcurl's
 * global state is main()'s (transport_init()); call smtp_send from one
 * thread at a time, with SIGPIPE ignored (the daemon's job).
 */
#ifndef TAGBOT_SMTP_SINK_H
#define TAGBOT_SMTP_SINK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "transport/netconn.h"

#define SMTP_ADDR_MAX		254	/* bytes of one addr-spec (RFC 5321 path minus <>) */
#define SMTP_RCPT_MAX		100	/* recipients of one message (RFC 5321 4.5.3.1.8) */
#define SMTP_DATA_MAX		((size_t)32 * 1024 * 1024)	/* bytes of one message */
#define SMTP_REPLY_TEXT_MAX	200	/* bytes of the server's reply kept for errors */
#define SMTP_REFUSED_TEXT_MAX	400	/* bytes of smtp_refused's text */

#define SMTP_CONNECT_TIMEOUT_S	10	/* defaults of smtp_settings_init */
#define SMTP_TIMEOUT_S		300

#define SMTP_REUSE_IDLE_S	60	/* a pool reuses a connection idle this long at most */
#define SMTP_PARALLEL_MAX	16	/* submissions of one pool at once */
#define SMTP_PARALLEL_DEFAULT	4


struct smtp_settings {
	const char *url;	/* foreign; smtp://host[:port][/ehlo-name] or smtps://... */
	enum net_tls tls;
	const char *ca_file;	/* foreign; NULL or "": the system CA store */
	const char *user;	/* foreign; NULL or "": no AUTH */
	const char *password;	/* foreign; a secret: never logged, never in a message */
	long connect_timeout_s;	/* up to AUTH (see above); <= 0: SMTP_CONNECT_TIMEOUT_S */
	long timeout_s;		/* the whole submission; <= 0: SMTP_TIMEOUT_S */
};

/* Everything NULL, tls starttls, the default timeouts. */
void smtp_settings_init(struct smtp_settings *s);

/*
 * Checks s without connecting (for config validation at start-up; smtp_send
 * does it too): the url parses, has no user name or password in it, its
 * scheme matches tls (smtps:// for implicit, smtp:// otherwise), tls none
 * names a loopback host ("tls = none is only allowed for loopback hosts"),
 * and a password is given when user is.  ERR_FINAL.
 */
int smtp_check_settings(const struct smtp_settings *s, struct err *e);

/* Whether host (as in a URL: "127.0.0.1", "[::1]", "localhost") is a
 * loopback address, without resolving anything. */
bool smtp_host_is_loopback(const char *host);

/* Whether a is an addr-spec we pass to MAIL FROM / RCPT TO: local@domain,
 * both parts non-empty, at most SMTP_ADDR_MAX bytes, no control character,
 * space, '<' or '>'. */
bool smtp_addr_ok(const char *a);

/*
 * The recipients the server refused (RCPT answered 4xx or 5xx) while it
 * took the message for the others.
 */
struct smtp_refused {
	size_t n;			/* how many */
	bool which[SMTP_RCPT_MAX];	/* by index into rcpt */
	char text[SMTP_REFUSED_TEXT_MAX]; /* "refused recipient, not sent to: a@b
					 * (a@b: 550 5.1.1 ...)"; the addresses
					 * first, cut; "" when n is 0 */
};

/* A message to submit: its envelope and its text; all foreign. */
struct smtp_mail {
	const char *from;		/* the envelope sender; "" for the null sender <> */
	const char *const *rcpt;	/* the n recipients */
	size_t n;
	const char *data;		/* data[0..len): a whole message, CRLF line ends */
	size_t len;
};

/*
 * Submits m->data (curl dot-stuffs it and adds the final ".") from
 * m->from to the recipients m->rcpt.  Refused before connecting
 * (ERR_FINAL): a bad address, n == 0 or > SMTP_RCPT_MAX, len >
 * SMTP_DATA_MAX, a NUL, bare CR or bare LF in data; bad settings
 * (ERR_SETUP).  0 once the server has accepted the message after DATA;
 * then refused (may be NULL) names the recipients it dropped.
 *
 *	struct smtp_refused r;
 *	const char *to[] = { "author@example.org", "typo@example.org" };
 *	struct smtp_mail m = { "bot@example.org", to, 2, raw, len };
 *
 *	if (smtp_send(&s, &m, &r, &e) < 0)
 *		return -1;		// nothing was sent; e.cls says why
 *	if (r.n)
 *		log_msg(LOGL_WARNING, "reply sent, %s", r.text);
 */
int smtp_send(const struct smtp_settings *s, const struct smtp_mail *m,
	      struct smtp_refused *refused, struct err *e);

struct smtp_pool;

struct smtp_pool *smtp_pool_new(size_t max);
/* How many more submissions can start now, and how many are running. */
size_t smtp_pool_idle(const struct smtp_pool *p);
size_t smtp_pool_running(const struct smtp_pool *p);
/*
 * Starts submitting as smtp_send would; tag is handed back by
 * smtp_pool_next when it has ended.  s, from, rcpt and data must stay valid
 * until then.  -1 (nothing started) when refused before connecting, or when
 * no connection is idle (ERR_TEMP).
 */
int smtp_pool_start(struct smtp_pool *p, const struct smtp_settings *s, const char *from,
		    const char *const *rcpt, size_t n, const char *data, size_t len, void *tag,
		    struct err *e);
/* What smtp_pool_next() found. */
enum smtp_next {
	SMTP_NEXT_FAILED = -1,	/* a submission ended in failure: e as smtp_send fills it */
	SMTP_NEXT_ACCEPTED = 0,	/* a submission the server accepted (refused, which may
				 * be NULL, as smtp_send fills it) */
	SMTP_NEXT_NONE = 1	/* none has ended: none is running, or wait is false
				 * and none is done yet */
};
/*
 * One submission that ended, its *tag.  With wait it blocks until one ends
 * (each is bounded by its timeouts).
 */
enum smtp_next smtp_pool_next(struct smtp_pool *p, bool wait, void **tag, struct smtp_refused *refused,
		   struct err *e);
/* Waits up to ms for the running submissions to make progress (then
 * smtp_pool_next without wait): a caller that must stay responsive to
 * signals waits in slices. */
void smtp_pool_poll(struct smtp_pool *p, int ms);
/* Connections opened since smtp_pool_new, for tests and the benchmark. */
unsigned long smtp_pool_connects(const struct smtp_pool *p);
/* Frees p; NULL is fine.  Without running submissions it QUITs the open
 * connections (bounded by the timeouts); with some, it abandons them
 * (their outcome unknown) and cuts every connection at once, so a server
 * that never answers holds nobody up (a daemon stopping mid-send). */
void smtp_pool_free(struct smtp_pool *p);

#endif
