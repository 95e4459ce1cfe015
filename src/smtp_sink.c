#include "autoconf.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "buf.h"
#include "smtp_sink.h"

/* --- settings ---------------------------------------------------------- */

static const struct {
	const char *name;
	enum smtp_tls tls;
} tls_names[] = {
	{ "starttls", SMTP_TLS_STARTTLS },
	{ "implicit", SMTP_TLS_IMPLICIT },
	{ "none", SMTP_TLS_NONE },
};

int smtp_tls_parse(const char *s, enum smtp_tls *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(tls_names); i++)
		if (s && strcasecmp(s, tls_names[i].name) == 0) {
			*out = tls_names[i].tls;
			return 0;
		}
	return -1;
}

const char *smtp_tls_name(enum smtp_tls t)
{
	for (size_t i = 0; i < ARRAY_SIZE(tls_names); i++)
		if (tls_names[i].tls == t)
			return tls_names[i].name;
	return "?";
}

void smtp_settings_init(struct smtp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->tls = SMTP_TLS_STARTTLS;
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
	const char *want = s->tls == SMTP_TLS_IMPLICIT ? "smtps" : "smtp";

	if (strcasecmp(scheme, want) != 0)
		return err_set(e, ERR_FINAL, "smtp: %s: tls = %s needs a %s:// url", s->url,
			       smtp_tls_name(s->tls), want);
	if (s->tls == SMTP_TLS_NONE && !smtp_host_is_loopback(host))
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
	if (s->tls != SMTP_TLS_STARTTLS && s->tls != SMTP_TLS_IMPLICIT && s->tls != SMTP_TLS_NONE)
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

struct upload {
	const char *p;
	size_t left;
};

static size_t read_cb(char *to, size_t size, size_t nitems, void *arg)
{
	struct upload *u = arg;
	size_t n = size * nitems;

	if (n > u->left)
		n = u->left;
	memcpy(to, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

/*
 * The server's last 4xx/5xx reply line, made printable and cut short.  curl
 * hands every response line here (only what the server sent, never our
 * commands), so the error can quote the server without verbose mode.  Only
 * error lines are kept: after a failure curl closes the connection inside
 * curl_easy_perform, and the "221" answering its QUIT comes last.
 */
struct reply {
	char line[SMTP_REPLY_TEXT_MAX + 1];
};

static bool is_error_reply(const char *b, size_t n)
{
	return n >= 3 && (b[0] == '4' || b[0] == '5') && b[1] >= '0' && b[1] <= '9' &&
	       b[2] >= '0' && b[2] <= '9';
}

static size_t header_cb(char *b, size_t size, size_t nitems, void *arg)
{
	struct reply *r = arg;
	size_t n = size * nitems, k = 0;

	if (!is_error_reply(b, n))
		return size * nitems;
	while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n && k < SMTP_REPLY_TEXT_MAX; i++) {
		unsigned char c = (unsigned char)b[i];

		r->line[k++] = c < ' ' || c == 0x7f ? '?' : (char)c;
	}
	r->line[k] = '\0';
	return size * nitems;
}

/* --- one submission ---------------------------------------------------- */

struct xfer {
	struct upload up;
	struct reply reply;
	struct curl_slist *rcpt;
	char errbuf[CURL_ERROR_SIZE];
};

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
	SET(CURLOPT_VERBOSE, 0L);	/* verbose output would show AUTH */
	SET(CURLOPT_NOSIGNAL, 1L);
	/* A proxy from the environment would carry "loopback only" clear text
	 * off the host: we talk to the host in url or not at all. */
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_USE_SSL, s->tls == SMTP_TLS_NONE ? (long)CURLUSESSL_NONE : (long)CURLUSESSL_ALL);
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
	SET(CURLOPT_CONNECTTIMEOUT, s->connect_timeout_s > 0 ? s->connect_timeout_s
							     : (long)SMTP_CONNECT_TIMEOUT_S);
	SET(CURLOPT_TIMEOUT, total);
	/* The total timeout does not cover the wait for the answer to QUIT at
	 * disconnect; this one does (curl's default is 120 s). */
	SET(CURLOPT_SERVER_RESPONSE_TIMEOUT, total);
	SET(CURLOPT_MAIL_FROM, *from ? from : NULL);	/* NULL: MAIL FROM:<> */
	SET(CURLOPT_MAIL_RCPT, x->rcpt);
	SET(CURLOPT_UPLOAD, 1L);
	SET(CURLOPT_READFUNCTION, read_cb);
	SET(CURLOPT_READDATA, &x->up);
	SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	SET(CURLOPT_HEADERFUNCTION, header_cb);
	SET(CURLOPT_HEADERDATA, &x->reply);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
#undef SET
	return rc;
}

/* curl results that retrying cannot fix; anything else is ERR_TEMP. */
static const struct {
	CURLcode code;
	const char *what;
	bool detail;		/* curl's own text adds something */
} final_results[] = {
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

static int classify(const char *url, CURLcode rc, long code, const struct xfer *x,
		    struct err *e)
{
	const char *detail = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);

	char num[8];

	/* The server said no: its own words decide, and are the best message. */
	if (code >= 400 && code <= 599) {
		snprintf(num, sizeof(num), "%ld", code);
		if (strncmp(x->reply.line, num, 3) == 0)
			return err_set(e, code >= 500 ? ERR_FINAL : ERR_TEMP, "smtp: %s: %s",
				       url, x->reply.line);
		return err_set(e, code >= 500 ? ERR_FINAL : ERR_TEMP,
			       "smtp: %s: server answered %ld: %s", url, code, detail);
	}
	for (size_t i = 0; i < ARRAY_SIZE(final_results); i++)
		if (final_results[i].code == rc)
			return err_set(e, ERR_FINAL, "smtp: %s: %s%s%s", url,
				       final_results[i].what, final_results[i].detail ? ": " : "",
				       final_results[i].detail ? detail : "");
	return err_set(e, ERR_TEMP, "smtp: %s: %s", url, detail);
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

static int rcpt_list(struct xfer *x, const char *url, const char *const *rcpt, size_t n,
		     struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct curl_slist *t = curl_slist_append(x->rcpt, rcpt[i]);

		if (!t) {
			curl_slist_free_all(x->rcpt);
			x->rcpt = NULL;
			return err_set(e, ERR_TEMP, "smtp: %s: out of memory", url);
		}
		x->rcpt = t;
	}
	return 0;
}

static int check_all(const struct smtp_settings *s, const char *from, const char *const *rcpt,
		     size_t n, const char *data, size_t len, struct err *e)
{
	if (smtp_check_settings(s, e) < 0 || check_envelope(s->url, from, rcpt, n, e) < 0 ||
	    check_data(s->url, data, len, e) < 0)
		return -1;
	return 0;
}

static long timeout_of(const struct smtp_settings *s)
{
	return s->timeout_s > 0 ? s->timeout_s : (long)SMTP_TIMEOUT_S;
}

int smtp_send(const struct smtp_settings *s, const char *from,
	      const char *const *rcpt, size_t n, const char *data, size_t len,
	      struct err *e)
{
	struct xfer x = { .up = { data, len } };
	CURL *c;
	CURLcode rc;
	long code = 0;
	int ret = 0;

	if (check_all(s, from, rcpt, n, data, len, e) < 0 || rcpt_list(&x, s->url, rcpt, n, e) < 0)
		return -1;
	if (!(c = curl_easy_init())) {
		curl_slist_free_all(x.rcpt);
		return err_set(e, ERR_TEMP, "smtp: %s: cannot start libcurl", s->url);
	}
	rc = setup(c, s, from, &x, len);
	if (rc != CURLE_OK) {
		ret = err_set(e, ERR_FINAL, "smtp: %s: libcurl refused an option: %s", s->url,
			      curl_easy_strerror(rc));
	} else {
		rc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (rc != CURLE_OK)
			ret = classify(s->url, rc, code, &x, e);
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

struct smtp_pool {
	CURLM *multi;		/* owned; holds the open connections */
	struct slot *slots;	/* owned */
	size_t n, running;
	unsigned long connects;
};

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
	struct slot *sl = idle_slot(p);
	CURLcode rc;

	/* The settings first: the messages below quote the url. */
	if (check_all(s, from, rcpt, n, data, len, e) < 0)
		return -1;
	if (!sl)
		return err_set(e, ERR_TEMP, "smtp: %s: all %zu connections are busy", s->url, p->n);
	if ((!p->multi && !(p->multi = multi_new(p->n))) ||
	    (!sl->curl && !(sl->curl = curl_easy_init())))
		return err_set(e, ERR_TEMP, "smtp: %s: cannot start libcurl", s->url);
	memset(&sl->x, 0, sizeof(sl->x));
	sl->x.up.p = data;
	sl->x.up.left = len;
	sl->url = s->url;
	sl->timeout_s = timeout_of(s);
	if (rcpt_list(&sl->x, s->url, rcpt, n, e) < 0)
		return -1;
	rc = setup(sl->curl, s, from, &sl->x, len);
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
		     struct err *e)
{
	long code = 0, connects = 0;
	int ret = 0;

	curl_easy_getinfo(sl->curl, CURLINFO_RESPONSE_CODE, &code);
	if (curl_easy_getinfo(sl->curl, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK)
		p->connects += (unsigned long)connects;
	curl_multi_remove_handle(p->multi, sl->curl);
	if (rc != CURLE_OK)
		ret = classify(sl->url, rc, code, &sl->x, e);
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
			return slot_done(p, &p->slots[i], CURLE_OUT_OF_MEMORY, tag, e);
	return 1;
}

int smtp_pool_next(struct smtp_pool *p, bool wait, void **tag, struct err *e)
{
	while (p->running) {
		int still, left;
		CURLMsg *m;

		if (curl_multi_perform(p->multi, &still) != CURLM_OK)
			return multi_broken(p, tag, e);
		while ((m = curl_multi_info_read(p->multi, &left)))
			if (m->msg == CURLMSG_DONE) {
				struct slot *sl = NULL;

				curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&sl);
				return slot_done(p, sl, m->data.result, tag, e);
			}
		if (!wait)
			return 1;
		if (curl_multi_poll(p->multi, NULL, 0, 1000, NULL) != CURLM_OK)
			return multi_broken(p, tag, e);
	}
	return 1;
}

void smtp_pool_free(struct smtp_pool *p)
{
	if (!p)
		return;
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

/* --- retry timing ------------------------------------------------------ */

long smtp_backoff(int attempts, double random01)
{
	double base = SMTP_BACKOFF_BASE_S, secs;

	for (int i = 1; i < attempts && base < SMTP_BACKOFF_MAX_S; i++)
		base *= 2;
	if (base > SMTP_BACKOFF_MAX_S)
		base = SMTP_BACKOFF_MAX_S;
	if (!(random01 >= 0.0))	/* NaN too */
		random01 = 0.0;
	if (random01 > 1.0)
		random01 = 1.0;
	secs = base * (0.8 + 0.4 * random01);
	if (secs > SMTP_BACKOFF_MAX_S)
		secs = SMTP_BACKOFF_MAX_S;
	return (long)(secs + 0.5);
}
