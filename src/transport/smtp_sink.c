#include "autoconf.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "lib/buf.h"
#include "transport/smtp_sink.h"

/* --- settings ---------------------------------------------------------- */

void smtp_settings_init(struct smtp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->tls = NET_TLS_STARTTLS;
	s->connect_timeout_s = SMTP_CONNECT_TIMEOUT_S;
	s->timeout_s = SMTP_TIMEOUT_S;
}

bool smtp_host_is_loopback(const char *host)
{
	char b[INET6_ADDRSTRLEN + 1];
	struct in_addr a4;
	struct in6_addr a6;
	size_t n = host ? strlen(host) : 0;

	if (n == 0)
		return false;
	if (strcasecmp(host, "localhost") == 0)
		return true;	/* curl resolves it itself, never via DNS or /etc/hosts */
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (host[0] == '[' && host[n - 1] == ']') {
		host++;
		n -= 2;
	}
	if (n >= sizeof(b))
		return false;
	memcpy(b, host, n);
	b[n] = '\0';
	if (inet_pton(AF_INET6, b, &a6) != 1)
		return false;
	return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}

/*
 * The scheme and host of url as curl itself will read them, so the loopback
 * rule judges the host curl connects to (curl turns "127.1" into
 * "127.0.0.1", for one).
 */
static int url_parts(const char *url, char **scheme, char **host, struct err *e)
{
	CURLU *u = curl_url();
	int rc = -1;

	*scheme = *host = NULL;
	if (!u)
		return err_set(e, ERR_TEMP, "smtp: out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, host, 0) != CURLUE_OK)
		err_set(e, ERR_FINAL, "smtp: %s: not a valid URL", url);
	else
		rc = 0;
	curl_url_cleanup(u);
	return rc;
}

static int check_url(const struct smtp_settings *s, const char *scheme, const char *host,
		     struct err *e)
{
	const char *want = s->tls == NET_TLS_IMPLICIT ? "smtps" : "smtp";

	if (strcasecmp(scheme, want) != 0)
		return err_set(e, ERR_FINAL, "smtp: %s: tls = %s needs a %s:// url", s->url,
			       net_tls_name(s->tls), want);
	if (s->tls == NET_TLS_NONE && !smtp_host_is_loopback(host))
		return err_set(e, ERR_FINAL, "smtp: %s: tls = none is only allowed for loopback hosts",
			       s->url);
	return 0;
}

int smtp_check_settings(const struct smtp_settings *s, struct err *e)
{
	char *scheme, *host;
	int rc;

	if (!s->url || !*s->url)
		return err_set(e, ERR_FINAL, "smtp: no url");
	/* Refused before anything quotes the url: it may hold a password. */
	if (strchr(s->url, '@'))
		return err_set(e, ERR_FINAL, "smtp: the url must not hold a user name or password; "
			       "use user and password_file");
	if (s->tls != NET_TLS_STARTTLS && s->tls != NET_TLS_IMPLICIT && s->tls != NET_TLS_NONE)
		return err_set(e, ERR_FINAL, "smtp: %s: unknown tls mode %d", s->url, (int)s->tls);
	if (s->user && *s->user && !s->password)
		return err_set(e, ERR_FINAL, "smtp: %s: user is set but no password", s->url);
	if (url_parts(s->url, &scheme, &host, e) < 0)
		return -1;
	rc = check_url(s, scheme, host, e);
	curl_free(scheme);
	curl_free(host);
	return rc;
}

/* --- the envelope and the data ---------------------------------------- */

bool smtp_addr_ok(const char *a)
{
	const char *at = a ? strchr(a, '@') : NULL;
	size_t n;

	/* One '@': curl splits at the first one to convert the domain. */
	if (!at || at == a || at[1] == '\0' || strchr(at + 1, '@'))
		return false;
	n = strlen(a);
	if (n > SMTP_ADDR_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '<' || *p == '>')
			return false;
	return true;
}

static int check_envelope(const char *url, const char *from, const char *const *rcpt,
			  size_t n, struct err *e)
{
	if (!from || (*from && !smtp_addr_ok(from)))
		return err_set(e, ERR_FINAL, "smtp: %s: bad envelope sender", url);
	if (n == 0 || n > SMTP_RCPT_MAX)
		return err_set(e, ERR_FINAL, "smtp: %s: %zu recipients (1 to %d allowed)", url, n,
			       SMTP_RCPT_MAX);
	for (size_t i = 0; i < n; i++)
		if (!smtp_addr_ok(rcpt[i]))
			return err_set(e, ERR_FINAL, "smtp: %s: bad recipient address #%zu", url,
				       i + 1);
	return 0;
}

/* A bare CR or LF would be read differently by different servers (SMTP
 * smuggling); the reply module writes CRLF, so anything else is a bug. */
static int check_data(const char *url, const char *d, size_t len, struct err *e)
{
	if (len > SMTP_DATA_MAX)
		return err_set(e, ERR_FINAL, "smtp: %s: message of %zu bytes is over the %zu limit",
			       url, len, SMTP_DATA_MAX);
	for (size_t i = 0; i < len; i++) {
		const char *what = NULL;

		if (d[i] == '\0')
			what = "a NUL byte";
		else if (d[i] == '\r' && (i + 1 == len || d[i + 1] != '\n'))
			what = "a bare CR";
		else if (d[i] == '\n' && (i == 0 || d[i - 1] != '\r'))
			what = "a bare LF";
		if (what)
			return err_set(e, ERR_FINAL, "smtp: %s: message has %s at offset %zu",
				       url, what, i);
	}
	return 0;
}

/* --- curl callbacks ---------------------------------------------------- */

/*
 * What the server answered to which command.  curl reports neither which
 * recipients it refused (with CURLOPT_MAIL_RCPT_ALLOWFAILS it goes on to
 * DATA with the others) nor at which step a session failed, so the debug
 * callback follows the dialogue: curl sends one command and reads its whole
 * answer before the next (no PIPELINING), and the RCPTs in the order of the
 * list, so the k-th "RCPT" sent is rcpt[k] and the answer lines until the
 * next command are its answer.  Only the verb of a command is looked at:
 * AUTH's credentials pass through unread, and nothing is logged.
 */
enum stage {
	STAGE_GREETING,		/* nothing sent yet */
	STAGE_SESSION,		/* EHLO, STARTTLS, AUTH and its continuations */
	STAGE_MAIL,
	STAGE_RCPT,
	STAGE_DATA,		/* DATA, the message, the final dot */
	STAGE_QUIT
};

#define REFUSED_DETAIL_MAX	600	/* bytes of the refused recipients' answers kept */

struct track {
	const char *const *rcpt;	/* foreign; the envelope's recipients */
	size_t nrcpt;
	enum stage stage;		/* of the last command sent */
	size_t rcpt_sent;		/* RCPT commands sent */
	enum stage err_stage;		/* where line was answered */
	char line[SMTP_REPLY_TEXT_MAX + 1]; /* the last 4xx/5xx answer, printable */
	long first_code;		/* the answer to RCPT rcpt[0]; 0: none yet */
	char first_line[SMTP_REPLY_TEXT_MAX + 1];
	size_t nrefused;
	bool refused[SMTP_RCPT_MAX];
	char detail[REFUSED_DETAIL_MAX]; /* "a@b: 550 ...; c@d: 550 ..." */
};

static bool is_error_reply(const char *b, size_t n)
{
	return n >= 3 && (b[0] == '4' || b[0] == '5') && b[1] >= '0' && b[1] <= '9' &&
	       b[2] >= '0' && b[2] <= '9';
}

/* b[0..n) without its line end, made printable and cut short, into to. */
static void printable(char *to, const char *b, size_t n)
{
	size_t k = 0;

	while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n && k < SMTP_REPLY_TEXT_MAX; i++) {
		unsigned char c = (unsigned char)b[i];

		to[k++] = c < ' ' || c == 0x7f ? '?' : (char)c;
	}
	to[k] = '\0';
}

static const struct {
	const char *verb;
	enum stage stage;
} verbs[] = {
	{ "EHLO", STAGE_SESSION }, { "HELO", STAGE_SESSION }, { "STARTTLS", STAGE_SESSION },
	{ "AUTH", STAGE_SESSION }, { "MAIL", STAGE_MAIL }, { "RCPT", STAGE_RCPT },
	{ "DATA", STAGE_DATA }, { "QUIT", STAGE_QUIT },
};

/* A command line we sent: its stage (an AUTH continuation matches no verb
 * and stays in the session). */
static void track_out(struct track *t, const char *b, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		size_t k = strlen(verbs[i].verb);

		if (n > k && !strncasecmp(b, verbs[i].verb, k) && (b[k] == ' ' || b[k] == '\r')) {
			t->stage = verbs[i].stage;
			t->rcpt_sent += t->stage == STAGE_RCPT;
			return;
		}
	}
}

/* Appends s to to[*used..size), cut short; to stays NUL-terminated. */
static void append(char *to, size_t size, size_t *used, const char *s)
{
	size_t n = strlen(s);

	if (*used + 1 >= size)
		return;
	if (n > size - 1 - *used)
		n = size - 1 - *used;
	memcpy(to + *used, s, n);
	*used += n;
	to[*used] = '\0';
}

static void add_detail(struct track *t, const char *addr, const char *line)
{
	size_t used = strlen(t->detail);

	if (used)
		append(t->detail, sizeof(t->detail), &used, "; ");
	append(t->detail, sizeof(t->detail), &used, addr);
	append(t->detail, sizeof(t->detail), &used, ": ");
	append(t->detail, sizeof(t->detail), &used, line);
}

/* The last line of the answer to the RCPT of rcpt[t->rcpt_sent - 1]. */
static void rcpt_answer(struct track *t, long code, const char *line)
{
	size_t i = t->rcpt_sent - 1;

	if (i == 0) {
		t->first_code = code;
		snprintf(t->first_line, sizeof(t->first_line), "%s", line);
	}
	if (code < 400 || i >= t->nrcpt || i >= SMTP_RCPT_MAX || t->refused[i])
		return;
	t->refused[i] = true;
	t->nrefused++;
	add_detail(t, t->rcpt[i], line);
}

/* An answer line of the server. */
static void track_in(struct track *t, const char *b, size_t n)
{
	char line[SMTP_REPLY_TEXT_MAX + 1];
	bool last = n == 3 || (n > 3 && b[3] != '-');	/* "250-..." goes on */

	if (n < 3 || !(b[0] >= '2' && b[0] <= '5') || !(b[1] >= '0' && b[1] <= '9') ||
	    !(b[2] >= '0' && b[2] <= '9'))
		return;
	printable(line, b, n);
	if (is_error_reply(b, n)) {
		/* Kept for the error message; curl's QUIT after a failure is
		 * answered with 221, so only error lines count. */
		memcpy(t->line, line, sizeof(line));
		t->err_stage = t->stage;
	}
	if (last && t->stage == STAGE_RCPT && t->rcpt_sent)
		rcpt_answer(t, strtol(line, NULL, 10), line);
}

static int debug_cb(CURL *c, curl_infotype type, char *b, size_t n, void *arg)
{
	(void)c;
	if (type == CURLINFO_HEADER_OUT)
		track_out(arg, b, n);
	else if (type == CURLINFO_HEADER_IN)
		track_in(arg, b, n);
	return 0;
}

struct upload {
	const char *p;
	size_t left;
	const struct track *t;	/* foreign */
};

/*
 * curl asks for the message after the server said 354 to DATA.  When the
 * first recipient (the reply's To:) was refused, curl went on to DATA for
 * the others all the same: end the session there, before the final dot,
 * so the server discards the message and nobody gets it.
 */
static size_t read_cb(char *to, size_t size, size_t nitems, void *arg)
{
	struct upload *u = arg;
	size_t n = size * nitems;

	if (u->t->first_code >= 400)
		return CURL_READFUNC_ABORT;
	if (n > u->left)
		n = u->left;
	memcpy(to, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

/* --- one submission ---------------------------------------------------- */

struct xfer {
	struct upload up;
	struct track track;
	struct curl_slist *rcpt;
	char errbuf[CURL_ERROR_SIZE];
};

/* The option's name before curl 8.2 had a typo. */
#if LIBCURL_VERSION_NUM >= 0x080200
#define OPT_RCPT_ALLOWFAILS	CURLOPT_MAIL_RCPT_ALLOWFAILS
#else
#define OPT_RCPT_ALLOWFAILS	CURLOPT_MAIL_RCPT_ALLLOWFAILS
#endif

static CURLcode setup(CURL *c, const struct smtp_settings *s, const char *from,
		      struct xfer *x, size_t len)
{
	CURLcode rc = CURLE_OK;
	long total = s->timeout_s > 0 ? s->timeout_s : (long)SMTP_TIMEOUT_S;
#define SET(opt, val) do { if (rc == CURLE_OK) rc = curl_easy_setopt(c, opt, val); } while (0)

	SET(CURLOPT_URL, s->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "smtp,smtps");
#else
	SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_SMTP | CURLPROTO_SMTPS));
#endif
	/* Verbose output goes to debug_cb only (never to stderr): it would
	 * show AUTH, and debug_cb reads verbs and answers, nothing else. */
	SET(CURLOPT_DEBUGFUNCTION, debug_cb);
	SET(CURLOPT_DEBUGDATA, &x->track);
	SET(CURLOPT_VERBOSE, 1L);
	SET(CURLOPT_NOSIGNAL, 1L);
	/* A proxy from the environment would carry "loopback only" clear text
	 * off the host: we talk to the host in url or not at all. */
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_USE_SSL, s->tls == NET_TLS_NONE ? (long)CURLUSESSL_NONE : (long)CURLUSESSL_ALL);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	/* ca_file alone: curl would also read its default CA directory, a few
	 * hundred files parsed for every TLS handshake. */
	if (s->ca_file && *s->ca_file) {
		SET(CURLOPT_CAINFO, s->ca_file);
		SET(CURLOPT_CAPATH, NULL);
	}
	if (s->user && *s->user) {
		SET(CURLOPT_USERNAME, s->user);
		SET(CURLOPT_PASSWORD, s->password);
	}
	SET(CURLOPT_MAXAGE_CONN, (long)SMTP_REUSE_IDLE_S);
	/* curl's connect phase takes in the TCP and TLS handshakes, the
	 * greeting, EHLO, STARTTLS and AUTH: a server that never greets costs
	 * this long, not the whole timeout. */
	SET(CURLOPT_CONNECTTIMEOUT, s->connect_timeout_s > 0 ? s->connect_timeout_s
							     : (long)SMTP_CONNECT_TIMEOUT_S);
	SET(CURLOPT_TIMEOUT, total);
	/* The total timeout does not cover the wait for the answer to QUIT at
	 * disconnect; this one does (curl's default is 120 s). */
	SET(CURLOPT_SERVER_RESPONSE_TIMEOUT, total);
	SET(CURLOPT_MAIL_FROM, *from ? from : NULL);	/* NULL: MAIL FROM:<> */
	SET(CURLOPT_MAIL_RCPT, x->rcpt);
	SET(OPT_RCPT_ALLOWFAILS, 1L);
	SET(CURLOPT_UPLOAD, 1L);
	SET(CURLOPT_READFUNCTION, read_cb);
	SET(CURLOPT_READDATA, &x->up);
	SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
#undef SET
	return rc;
}

/* curl results that are the sink's fault and that retrying cannot fix:
 * ERR_SETUP.  Anything else is ERR_TEMP. */
static const struct {
	CURLcode code;
	const char *what;
	bool detail;		/* curl's own text adds something */
} setup_results[] = {
	{ CURLE_PEER_FAILED_VERIFICATION, "TLS certificate verification failed (is ca_file right?)", true },
	{ CURLE_SSL_CACERT_BADFILE, "cannot read the CA certificates (ca_file, or without it the "
				    "system CA store: install ca-certificates)", true },
	{ CURLE_SSL_CERTPROBLEM, "TLS certificate problem", true },
	{ CURLE_SSL_ISSUER_ERROR, "TLS certificate issuer check failed", true },
	{ CURLE_USE_SSL_FAILED, "the server does not offer STARTTLS", false },
	{ CURLE_LOGIN_DENIED, "authentication failed", true },
	{ CURLE_UNSUPPORTED_PROTOCOL, "protocol not supported", true },
	{ CURLE_URL_MALFORMAT, "bad url", true },
	{ CURLE_NOT_BUILT_IN, "libcurl lacks a feature", true },
};

/* The class of a 4xx/5xx answer to a command of stage. */
static enum err_class answer_class(long code, enum stage stage)
{
	if (code < 500)
		return ERR_TEMP;
	/* Before the envelope's recipients the server refuses the session,
	 * not the reply: the greeting, EHLO, AUTH, MAIL FROM (the bot's own
	 * address); except a message too large for it (552, SIZE=). */
	if (stage < STAGE_MAIL || (stage == STAGE_MAIL && code != 552))
		return ERR_SETUP;
	return ERR_FINAL;
}

static int classify(const char *url, CURLcode rc, long code, const struct xfer *x,
		    struct err *e)
{
	const char *detail = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
	const struct track *t = &x->track;
	char num[8];

	/* The reply's To: refused: the reply failed, whatever curl did with
	 * the others (read_cb ended the session before the message went). */
	if (t->first_code >= 400)
		return err_set(e, t->first_code >= 500 ? ERR_FINAL : ERR_TEMP, "smtp: %s: %s",
			       url, t->first_line);
	/* The server said no: its own words decide, and are the best message. */
	if (code >= 400 && code <= 599) {
		enum err_class cls = answer_class(code, t->err_stage);

		snprintf(num, sizeof(num), "%ld", code);
		if (strncmp(t->line, num, 3) == 0)
			return err_set(e, cls, "smtp: %s: %s", url, t->line);
		return err_set(e, cls, "smtp: %s: server answered %ld: %s", url, code, detail);
	}
	for (size_t i = 0; i < ARRAY_SIZE(setup_results); i++)
		if (setup_results[i].code == rc)
			return err_set(e, ERR_SETUP, "smtp: %s: %s%s%s", url,
				       setup_results[i].what, setup_results[i].detail ? ": " : "",
				       setup_results[i].detail ? detail : "");
	return err_set(e, ERR_TEMP, "smtp: %s: %s", url, detail);
}

/* The recipients the server refused while it took the message. */
static void refused_out(const struct track *t, struct smtp_refused *r)
{
	size_t used = 0;

	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->n = t->nrefused;
	memcpy(r->which, t->refused, sizeof(r->which));
	if (!t->nrefused)
		return;
	/* The addresses first: a cut text still names each one. */
	append(r->text, sizeof(r->text), &used, t->nrefused > 1 ?
	       "refused recipients, not sent to:" : "refused recipient, not sent to:");
	for (size_t i = 0; i < t->nrcpt && i < SMTP_RCPT_MAX; i++)
		if (t->refused[i]) {
			append(r->text, sizeof(r->text), &used, " ");
			append(r->text, sizeof(r->text), &used, t->rcpt[i]);
		}
	append(r->text, sizeof(r->text), &used, " (");
	append(r->text, sizeof(r->text), &used, t->detail);
	append(r->text, sizeof(r->text), &used, ")");
}

/*
 * After a submission the handle must not point into it (the recipients, the
 * callbacks' buffers): the QUIT at the end, or a stale connection closed at
 * the next submission, still reads an answer.  curl_easy_reset forgets
 * every option, never the open connection.
 */
static void forget_submission(CURL *c, long timeout_s)
{
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SERVER_RESPONSE_TIMEOUT, timeout_s);
}

/* x for a submission of m (its recipients and text, not copied). */
static int xfer_init(struct xfer *x, const char *url, const struct smtp_mail *m,
		     struct err *e)
{
	memset(x, 0, sizeof(*x));
	x->up.p = m->data;
	x->up.left = m->len;
	x->up.t = &x->track;
	x->track.rcpt = m->rcpt;
	x->track.nrcpt = m->n;
	for (size_t i = 0; i < m->n; i++) {
		struct curl_slist *t = curl_slist_append(x->rcpt, m->rcpt[i]);

		if (!t) {
			curl_slist_free_all(x->rcpt);
			x->rcpt = NULL;
			return err_set(e, ERR_TEMP, "smtp: %s: out of memory", url);
		}
		x->rcpt = t;
	}
	return 0;
}

static int check_all(const struct smtp_settings *s, const struct smtp_mail *m, struct err *e)
{
	/* Bad settings are the sink's fault, not the reply's. */
	if (smtp_check_settings(s, e) < 0) {
		e->cls = ERR_SETUP;
		return -1;
	}
	if (check_envelope(s->url, m->from, m->rcpt, m->n, e) < 0 ||
	    check_data(s->url, m->data, m->len, e) < 0)
		return -1;
	return 0;
}

static long timeout_of(const struct smtp_settings *s)
{
	return s->timeout_s > 0 ? s->timeout_s : (long)SMTP_TIMEOUT_S;
}

int smtp_send(const struct smtp_settings *s, const struct smtp_mail *m,
	      struct smtp_refused *refused, struct err *e)
{
	struct xfer x;
	CURL *c;
	CURLcode rc;
	long code = 0;
	int ret = 0;

	if (refused)
		memset(refused, 0, sizeof(*refused));
	if (check_all(s, m, e) < 0 || xfer_init(&x, s->url, m, e) < 0)
		return -1;
	if (!(c = curl_easy_init())) {
		curl_slist_free_all(x.rcpt);
		return err_set(e, ERR_TEMP, "smtp: %s: cannot start libcurl", s->url);
	}
	rc = setup(c, s, m->from, &x, m->len);
	if (rc != CURLE_OK) {
		ret = err_set(e, ERR_FINAL, "smtp: %s: libcurl refused an option: %s", s->url,
			      curl_easy_strerror(rc));
	} else {
		rc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (rc != CURLE_OK)
			ret = classify(s->url, rc, code, &x, e);
		else
			refused_out(&x.track, refused);
	}
	forget_submission(c, timeout_of(s));
	curl_easy_cleanup(c);
	curl_slist_free_all(x.rcpt);
	return ret;
}

/* --- a pool of connections --------------------------------------------- */

struct slot {
	CURL *curl;		/* owned; NULL until first used */
	struct xfer x;
	const char *url;	/* foreign (the settings) */
	long timeout_s;
	void *tag;		/* foreign */
	bool busy;
};

#define POOL_SOCKETS_MAX	(2 * SMTP_PARALLEL_MAX)

struct smtp_pool {
	CURLM *multi;		/* owned; holds the open connections */
	struct slot *slots;	/* owned */
	size_t n, running;
	unsigned long connects;
	int socks[POOL_SOCKETS_MAX];	/* the connections' sockets (curl's) */
	size_t nsocks;
};

/*
 * The pool knows its sockets, so that smtp_pool_free can cut them: curl
 * would send QUIT on a session still being set up and wait for the answer
 * (up to timeout_s) from a server that may never answer at all.
 */
static curl_socket_t open_cb(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct smtp_pool *p = arg;
	int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);

	(void)purpose;
	if (fd >= 0 && p->nsocks < ARRAY_SIZE(p->socks))
		p->socks[p->nsocks++] = fd;
	return fd < 0 ? CURL_SOCKET_BAD : fd;
}

static int close_cb(void *arg, curl_socket_t fd)
{
	struct smtp_pool *p = arg;

	for (size_t i = 0; i < p->nsocks; i++)
		if (p->socks[i] == fd) {
			p->socks[i] = p->socks[--p->nsocks];
			break;
		}
	return close(fd);
}

static CURLcode track_sockets(CURL *c, struct smtp_pool *p)
{
	CURLcode rc = curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_cb);

	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, (void *)p);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, (void *)p);
	return rc;
}

struct smtp_pool *smtp_pool_new(size_t max)
{
	struct smtp_pool *p = xcalloc(1, sizeof(*p));

	p->n = max < 1 ? 1 : max > SMTP_PARALLEL_MAX ? SMTP_PARALLEL_MAX : max;
	p->slots = xcalloc(p->n, sizeof(*p->slots));
	return p;
}

size_t smtp_pool_idle(const struct smtp_pool *p)
{
	return p->n - p->running;
}

size_t smtp_pool_running(const struct smtp_pool *p)
{
	return p->running;
}

unsigned long smtp_pool_connects(const struct smtp_pool *p)
{
	return p->connects;
}

static CURLM *multi_new(size_t n)
{
	CURLM *m = curl_multi_init();

	if (m) {
		curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)n);
		curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)n);
	}
	return m;
}

static struct slot *idle_slot(struct smtp_pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->slots[i].busy)
			return &p->slots[i];
	return NULL;
}

static int slot_fail(struct slot *sl, int ret)
{
	curl_slist_free_all(sl->x.rcpt);
	sl->x.rcpt = NULL;
	if (sl->curl)
		forget_submission(sl->curl, sl->timeout_s);
	return ret;
}

int smtp_pool_start(struct smtp_pool *p, const struct smtp_settings *s, const char *from,
		    const char *const *rcpt, size_t n, const char *data, size_t len, void *tag,
		    struct err *e)
{
	const struct smtp_mail m = { from, rcpt, n, data, len };
	struct slot *sl = idle_slot(p);
	CURLcode rc;

	/* The settings first: the messages below quote the url. */
	if (check_all(s, &m, e) < 0)
		return -1;
	if (!sl)
		return err_set(e, ERR_TEMP, "smtp: %s: all %zu connections are busy", s->url, p->n);
	if ((!p->multi && !(p->multi = multi_new(p->n))) ||
	    (!sl->curl && !(sl->curl = curl_easy_init())))
		return err_set(e, ERR_TEMP, "smtp: %s: cannot start libcurl", s->url);
	sl->url = s->url;
	sl->timeout_s = timeout_of(s);
	if (xfer_init(&sl->x, s->url, &m, e) < 0)
		return -1;
	rc = setup(sl->curl, s, from, &sl->x, len);
	if (rc == CURLE_OK)
		rc = track_sockets(sl->curl, p);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(sl->curl, CURLOPT_PRIVATE, (void *)sl);
	if (rc != CURLE_OK)
		return slot_fail(sl, err_set(e, ERR_FINAL, "smtp: %s: libcurl refused an option: %s",
					     s->url, curl_easy_strerror(rc)));
	if (curl_multi_add_handle(p->multi, sl->curl) != CURLM_OK)
		return slot_fail(sl, err_set(e, ERR_TEMP, "smtp: %s: cannot start libcurl", s->url));
	sl->tag = tag;
	sl->busy = true;
	p->running++;
	return 0;
}

/* The submission of sl ended with rc: its outcome, and sl is free again. */
static int slot_done(struct smtp_pool *p, struct slot *sl, CURLcode rc, void **tag,
		     struct smtp_refused *refused, struct err *e)
{
	long code = 0, connects = 0;
	int ret = 0;

	curl_easy_getinfo(sl->curl, CURLINFO_RESPONSE_CODE, &code);
	if (curl_easy_getinfo(sl->curl, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK)
		p->connects += (unsigned long)connects;
	curl_multi_remove_handle(p->multi, sl->curl);
	if (rc != CURLE_OK)
		ret = classify(sl->url, rc, code, &sl->x, e);
	else
		refused_out(&sl->x.track, refused);
	slot_fail(sl, 0);
	*tag = sl->tag;
	sl->busy = false;
	p->running--;
	return ret;
}

/* A failure of the multi handle itself: the first running submission ends
 * with it (as a lost connection: the outcome is unknown). */
static int multi_broken(struct smtp_pool *p, void **tag, struct err *e)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->slots[i].busy)
			return slot_done(p, &p->slots[i], CURLE_OUT_OF_MEMORY, tag, NULL, e);
	return 1;
}

enum smtp_next smtp_pool_next(struct smtp_pool *p, bool wait, void **tag, struct smtp_refused *refused,
		   struct err *e)
{
	if (refused)
		memset(refused, 0, sizeof(*refused));
	while (p->running) {
		int still, left;
		CURLMsg *m;

		if (curl_multi_perform(p->multi, &still) != CURLM_OK)
			return multi_broken(p, tag, e);
		while ((m = curl_multi_info_read(p->multi, &left)))
			if (m->msg == CURLMSG_DONE) {
				struct slot *sl = NULL;

				curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&sl);
				return slot_done(p, sl, m->data.result, tag, refused, e);
			}
		if (!wait)
			return SMTP_NEXT_NONE;
		if (curl_multi_poll(p->multi, NULL, 0, 1000, NULL) != CURLM_OK)
			return multi_broken(p, tag, e);
	}
	return SMTP_NEXT_NONE;
}

void smtp_pool_poll(struct smtp_pool *p, int ms)
{
	if (p->running)
		curl_multi_poll(p->multi, NULL, 0, ms, NULL);
}

void smtp_pool_free(struct smtp_pool *p)
{
	if (!p)
		return;
	/* A submission still running may be stuck on a silent server: cut
	 * every connection, so that no QUIT waits for an answer. */
	if (p->running)
		for (size_t i = 0; i < p->nsocks; i++)
			shutdown(p->socks[i], SHUT_RDWR);
	for (size_t i = 0; i < p->n; i++) {
		struct slot *sl = &p->slots[i];

		if (sl->busy) {
			curl_multi_remove_handle(p->multi, sl->curl);
			slot_fail(sl, 0);
		}
	}
	/* The open connections are closed (QUIT) here, bounded by the timeouts
	 * of the handle added last. */
	if (p->multi)
		curl_multi_cleanup(p->multi);
	for (size_t i = 0; i < p->n; i++)
		if (p->slots[i].curl)
			curl_easy_cleanup(p->slots[i].curl);
	free(p->slots);
	free(p);
}
