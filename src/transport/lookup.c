/*
 * lookup.c - archive lookups and link checks over libcurl's multi
 * interface (see lookup.h); the pure half is in lookup_parse.c.
 */
#include "autoconf.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <curl/curl.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "transport/lookup.h"
#include "mail/linkref.h"
#include "mail/patch.h"
#include "mail/msgid.h"

#define LOOKUP_SHOW_MAX		200	/* bytes of a URL quoted in a log line */
#define LOOKUP_POLL_MAX_MS	1000	/* longest curl_multi_poll() wait */
#define LOOKUP_RESOLVER_TRUST	300	/* seconds a working resolver is believed */

/* --- settings and results ----------------------------------------------- */

void lookup_settings_init(struct lookup_settings *s)
{
	*s = (struct lookup_settings){
		.timeout = 10, .concurrency = 4, .rate = 5, .cache_ttl = 6 * 3600,
	};
}

void lookup_settings_release(struct lookup_settings *s)
{
	free(s->archive_url);
	free(s->ca_file);
	free(s->user_agent);
	lookup_settings_init(s);
}


/* --- the context --------------------------------------------------------- */

struct lookup {
	struct lookup_settings s;	/* owned copies of the strings */
	char *archive;			/* owned; archive_url with its '/' */
	char *archive_host;		/* owned; lower case; "" when unknown */
	struct lookup_cache cache;	/* get NULL: no cache */
	CURLM *multi;			/* owned */
	char user_agent[LOOKUP_USER_AGENT_MAX];
	long long next_start;		/* monotonic ms: the rate limit's next slot */
	time_t resolver_ok_at;		/* when names were last seen resolving */
};

enum job_kind {
	JOB_RAW,	/* <archive><msgid>/raw */
	JOB_ATOM,	/* <archive><msgid>/t.atom */
	JOB_STATUS	/* any other URL: HEAD, GET on 405 */
};

enum job_state { J_PENDING, J_RUNNING, J_DONE };

struct job {
	struct lookup_results *res;	/* foreign; the mail's results */
	size_t ri;		/* index into res */
	enum job_kind kind;
	enum job_state state;
	char *url;		/* owned; what is fetched */
	bool head;		/* JOB_STATUS: still at the HEAD */
	bool allow_private;	/* the archive's own host */
	bool refused;		/* a private address was refused */
	bool truncated;		/* the body passed its cap (or was not wanted) */
	CURL *h;		/* owned while running */
	struct buf body;
	CURLcode cc;
	long code;
	char errbuf[CURL_ERROR_SIZE];
};

struct batch {
	struct job *v;		/* owned */
	size_t n, alloc;
	long long deadline;	/* monotonic ms when every job ends; 0: one timeout
				 * from when run_batch() starts */
};

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int show(const char *s)
{
	size_t n = strlen(s);

	return (int)(n < LOOKUP_SHOW_MAX ? n : LOOKUP_SHOW_MAX);
}

/* The host of url, lower case, malloc'ed; NULL when curl cannot parse it. */
static char *url_host(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL, *copy = NULL;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
		copy = xstrdup(host);
		for (char *p = copy; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
	}
	curl_free(host);
	curl_url_cleanup(u);
	return copy;
}

/* Whether curl reads a user name or a password in url. */
static bool url_has_userinfo(const char *url)
{
	CURLU *u = curl_url();
	char *user = NULL, *pw = NULL;
	bool has = false;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK)
		has = curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
		      curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) == CURLUE_OK;
	curl_free(user);
	curl_free(pw);
	curl_url_cleanup(u);
	return has;
}

static void copy_settings(struct lookup *lk, const struct lookup_settings *s)
{
	lk->s = *s;
	lk->s.archive_url = NULL;
	lk->s.user_agent = NULL;
	lk->s.ca_file = s->ca_file && *s->ca_file ? xstrdup(s->ca_file) : NULL;
	if (lk->s.timeout <= 0)
		lk->s.timeout = 10;
	if (lk->s.concurrency <= 0)
		lk->s.concurrency = 1;
	if (lk->s.concurrency > LOOKUP_MAX_CONCURRENCY)
		lk->s.concurrency = LOOKUP_MAX_CONCURRENCY;
	lk->archive = lookup_archive_url(s->archive_url && *s->archive_url ? s->archive_url
					 : LOOKUP_DEFAULT_ARCHIVE, "", "");
}

int lookup_new(struct lookup **out, const struct lookup_settings *s,
	       const struct lookup_cache *cache, struct err *e)
{
	struct lookup *lk;
	char *host;

	*out = NULL;
	/* Refused before a log line can quote it: every fetched URL starts so. */
	if (s->archive_url && url_has_userinfo(s->archive_url))
		return err_set(e, ERR_FINAL, "lookup: the archive URL must not hold a user name "
			       "or password");
	lk = xcalloc(1, sizeof(*lk));
	copy_settings(lk, s);
	host = url_host(lk->archive);
	lk->archive_host = host ? host : xstrdup("");
	if (cache)
		lk->cache = *cache;
	/* Always names the bot, so an archive's admin knows who is asking. */
	snprintf(lk->user_agent, sizeof(lk->user_agent), "tagbot/%s%s%.200s", PACKAGE_VERSION,
		 s->user_agent && *s->user_agent ? " " : "", s->user_agent ? s->user_agent : "");
	lk->multi = curl_multi_init();
	if (!lk->multi) {
		lookup_free(lk);
		return err_set(e, ERR_FINAL, "lookup: cannot create a curl multi handle");
	}
	curl_multi_setopt(lk->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)lk->s.concurrency);
	*out = lk;
	return 0;
}

void lookup_free(struct lookup *lk)
{
	if (!lk)
		return;
	if (lk->multi)
		curl_multi_cleanup(lk->multi);
	free(lk->archive);
	free(lk->archive_host);
	lookup_settings_release(&lk->s);
	free(lk);
}

/* --- refusing the local network ----------------------------------------- */

static bool v4_private(uint32_t a)
{
	static const struct { uint32_t net, mask; } nets[] = {
		{ 0x00000000, 0xff000000 }, { 0x0a000000, 0xff000000 },	/* 0/8 10/8 */
		{ 0x7f000000, 0xff000000 }, { 0x64400000, 0xffc00000 },	/* 127/8 100.64/10 */
		{ 0xa9fe0000, 0xffff0000 }, { 0xac100000, 0xfff00000 },	/* 169.254/16 172.16/12 */
		{ 0xc0a80000, 0xffff0000 }, { 0xe0000000, 0xe0000000 },	/* 192.168/16 224/3 */
	};

	for (size_t i = 0; i < ARRAY_SIZE(nets); i++)
		if ((a & nets[i].mask) == nets[i].net)
			return true;
	return false;
}

static bool addr_private(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_private(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
		static const uint8_t zero[15];

		if (!memcmp(b, mapped, 12))
			return v4_private((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
					  (uint32_t)b[14] << 8 | b[15]);
		return !memcmp(b, zero, 15) ||		/* :: and ::1 */
		       (b[0] & 0xfe) == 0xfc ||		/* fc00::/7 */
		       (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10 */
		       b[0] == 0xff;			/* multicast */
	}
	return true;
}

static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct job *j = clientp;

	(void)purpose;
	if (!j->allow_private && addr_private(&a->addr)) {
		j->refused = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* --- one transfer ------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *clientp)
{
	struct job *j = clientp;
	size_t n = size * nmemb;

	/* A status check needs no body; an oversized one stops at its cap. */
	if (j->kind == JOB_STATUS || buf_add(&j->body, data, n) < 0) {
		j->truncated = true;
		return 0;
	}
	return n;
}

/* left_ms: what remains of the batch's deadline, which bounds this transfer. */
static void set_common(struct lookup *lk, struct job *j, long left_ms)
{
	CURL *h = j->h;

	curl_easy_setopt(h, CURLOPT_URL, j->url);
	curl_easy_setopt(h, CURLOPT_PRIVATE, j);
	curl_easy_setopt(h, CURLOPT_USERAGENT, lk->user_agent);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, left_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, left_ms);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)LOOKUP_MAX_REDIRECTS);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (lk->s.ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, lk->s.ca_file);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, j->errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, j);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, j);
	curl_easy_setopt(h, CURLOPT_NOBODY, j->kind == JOB_STATUS && j->head ? 1L : 0L);
}

static int job_start(struct lookup *lk, struct job *j, long left_ms)
{
	j->h = curl_easy_init();
	if (!j->h)
		return -1;
	buf_reset(&j->body);
	j->errbuf[0] = '\0';
	j->truncated = j->refused = false;
	set_common(lk, j, left_ms);
	if (curl_multi_add_handle(lk->multi, j->h) != CURLM_OK) {
		curl_easy_cleanup(j->h);
		j->h = NULL;
		return -1;
	}
	j->state = J_RUNNING;
	return 0;
}

/* A finished transfer: done, or pending again (a GET after a 405 HEAD). */
static void job_finish(struct lookup *lk, struct job *j, CURLcode cc)
{
	j->cc = cc;
	j->code = 0;
	curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &j->code);
	curl_multi_remove_handle(lk->multi, j->h);
	curl_easy_cleanup(j->h);
	j->h = NULL;
	if (j->kind == JOB_STATUS && j->head && cc == CURLE_OK && (j->code == 405 || j->code == 501)) {
		j->head = false;
		j->state = J_PENDING;
		return;
	}
	j->state = J_DONE;
}

static enum lookup_net job_net(const struct job *j)
{
	if (j->cc == CURLE_OK || (j->cc == CURLE_WRITE_ERROR && j->truncated && j->code))
		return LOOKUP_NET_OK;
	return j->cc == CURLE_COULDNT_RESOLVE_HOST ? LOOKUP_NET_NO_HOST : LOOKUP_NET_FAILED;
}

static bool job_timed_out(const struct job *j)
{
	return j->cc == CURLE_OPERATION_TIMEDOUT;
}

/* A transfer that gave no answer worth a finding. */
static void log_failure(const struct job *j)
{
	const char *why = j->refused ? "refused: a loopback or private address"
			  : j->errbuf[0] ? j->errbuf : curl_easy_strerror(j->cc);

	if (job_net(j) == LOOKUP_NET_OK)
		log_msg(LOGL_WARNING, "lookup %.*s: HTTP %ld, not a finding", show(j->url), j->url,
			j->code);
	else
		log_msg(LOGL_WARNING, "lookup %.*s: %s, not a finding", show(j->url), j->url, why);
}

/* --- the batch ---------------------------------------------------------- */

static long interval_ms(const struct lookup *lk)
{
	return lk->s.rate > 0 ? 1000 / lk->s.rate : 0;
}

/* Starts pending jobs while there is room and the rate allows; each gets
 * what is left of the batch's deadline, not a timeout of its own. */
static void start_jobs(struct lookup *lk, struct batch *b, size_t *running, long long now)
{
	for (size_t i = 0; i < b->n && *running < (size_t)lk->s.concurrency; i++) {
		struct job *j = &b->v[i];

		if (j->state != J_PENDING)
			continue;
		if (now < lk->next_start)
			return;
		lk->next_start = (lk->next_start > now ? lk->next_start : now) + interval_ms(lk);
		if (job_start(lk, j, (long)(b->deadline - now)) < 0) {
			j->state = J_DONE;
			j->cc = CURLE_FAILED_INIT;
			continue;
		}
		++*running;
	}
}

static void reap(struct lookup *lk, size_t *running)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(lk->multi, &left))) {
		char *priv = NULL;
		struct job *j;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
		j = (struct job *)(void *)priv;
		--*running;
		job_finish(lk, j, m->data.result);
	}
}

static size_t count_done(const struct batch *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n; i++)
		n += b->v[i].state == J_DONE;
	return n;
}

static bool has_pending(const struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].state == J_PENDING)
			return true;
	return false;
}

/* The jobs still running or waiting at the deadline: no answer. */
static void cut_at_deadline(struct lookup *lk, struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct job *j = &b->v[i];

		if (j->state == J_DONE)
			continue;
		if (j->h) {
			curl_multi_remove_handle(lk->multi, j->h);
			curl_easy_cleanup(j->h);
			j->h = NULL;
		}
		snprintf(j->errbuf, sizeof(j->errbuf), "timed out: %s within the lookup deadline (%d s)",
			 j->state == J_RUNNING ? "no answer" : "not started", lk->s.timeout);
		j->cc = CURLE_OPERATION_TIMEDOUT;
		j->code = 0;
		j->state = J_DONE;
	}
}

/*
 * Runs every job of b until it ends or b->deadline passes, whichever comes
 * first.  One deadline for the whole batch: a job queued behind the
 * concurrency cap or the rate limit does not start a timeout of its own,
 * so links stuck on a server that never answers cost one timeout in all,
 * not one per round of `concurrency` transfers.
 */
static void run_batch(struct lookup *lk, struct batch *b)
{
	size_t running = 0;

	if (!b->deadline)
		b->deadline = mono_ms() + (long long)lk->s.timeout * 1000;
	for (;;) {
		long long now = mono_ms();
		long wait = LOOKUP_POLL_MAX_MS;
		int still;

		if (now >= b->deadline) {
			cut_at_deadline(lk, b);
			return;
		}
		start_jobs(lk, b, &running, now);
		if (count_done(b) == b->n)
			return;
		curl_multi_perform(lk->multi, &still);
		reap(lk, &running);
		/* A free slot is used at once, or as soon as the rate allows. */
		if (running < (size_t)lk->s.concurrency && has_pending(b))
			wait = lk->next_start > now ? (long)(lk->next_start - now) : 0;
		if (wait > b->deadline - now)
			wait = (long)(b->deadline - now);
		if (wait > 0 && count_done(b) < b->n)
			curl_multi_poll(lk->multi, NULL, 0, (int)wait, NULL);
	}
}

static void batch_release(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].url);
		buf_release(&b->v[i].body);
	}
	free(b->v);
}

static void add_job(struct lookup *lk, struct batch *b, struct lookup_results *res, size_t ri,
		    enum job_kind kind, char *url)
{
	struct job *j;
	char *host = url_host(url);

	ARRAY_GROW(b->v, b->alloc, b->n + 1);
	j = &b->v[b->n++];
	memset(j, 0, sizeof(*j));
	j->res = res;
	j->ri = ri;
	j->kind = kind;
	j->url = url;
	j->head = kind == JOB_STATUS;
	j->allow_private = host && *lk->archive_host && !strcmp(host, lk->archive_host);
	buf_init(&j->body, LOOKUP_MAX_BODY);
	free(host);
}

/* --- results from the jobs ---------------------------------------------- */

static const struct job *job_for(const struct batch *b, const struct lookup_results *res,
				 size_t ri, enum job_kind kind)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].res == res && b->v[i].ri == ri && b->v[i].kind == kind)
			return &b->v[i];
	return NULL;
}

/* dns_ok: whether a name that does not resolve makes the link dead. */
static void finish_status(struct lookup_result *r, const struct job *j, bool dns_ok)
{
	enum lookup_net net = job_net(j);

	r->http_code = j->code;
	if (net == LOOKUP_NET_NO_HOST && !dns_ok)
		net = LOOKUP_NET_FAILED;
	r->status = lookup_classify(net, j->code);
	if (r->status == LOOKUP_UNKNOWN)
		log_failure(j);
}

static void finish_thread(struct lookup_result *r, const struct job *atom)
{
	int others;

	if (!atom || job_net(atom) != LOOKUP_NET_OK || atom->code != 200) {
		if (atom)
			log_failure(atom);
		return;
	}
	others = lookup_atom_others(atom->body.data, atom->body.len, r->author, r->sender, NULL);
	/* A feed cut short only proves that there are replies. */
	if (others < 0 || (atom->truncated && others == 0))
		log_msg(LOGL_WARNING, "lookup %.*s: not a usable Atom feed, not a finding",
			show(atom->url), atom->url);
	else
		r->others = others;
}

static void finish_archive(struct lookup_result *r, const struct job *raw, const struct job *atom)
{
	struct err e;

	/* The archive's host not resolving says nothing about the link. */
	finish_status(r, raw, false);
	if (r->status != LOOKUP_ALIVE)
		return;
	if (raw->code / 100 != 2 || lookup_parse_message(r, raw->body.data, raw->body.len, &e) < 0) {
		log_msg(LOGL_WARNING, "lookup %.*s: %s, not a finding", show(raw->url), raw->url,
			raw->code / 100 != 2 ? "no message in the answer" : e.msg);
		r->status = LOOKUP_UNKNOWN;
		return;
	}
	finish_thread(r, atom);
}

/* --- the cache ---------------------------------------------------------- */

static char *cache_key(const struct lookup *lk, const struct lookup_result *r)
{
	return r->msgid ? lookup_archive_url(lk->archive, r->msgid, "/") : xstrdup(r->url);
}

static bool cache_get(struct lookup *lk, struct lookup_result *r)
{
	struct lookup_cache_entry ce = { 0, 0, NULL, 0 };
	char *key;
	bool found = false, hit = false;
	struct err e;

	if (!lk->cache.get || lk->s.cache_ttl <= 0)
		return false;
	key = cache_key(lk, r);
	if (lk->cache.get(lk->cache.aux, key, &ce, &found, &e) < 0)
		log_msg(LOGL_WARNING, "lookup cache: %s", e.msg);
	if (found && lookup_cache_fresh(ce.fetched_at, time(NULL), lk->s.cache_ttl) &&
	    (ce.status == LOOKUP_ALIVE || ce.status == LOOKUP_DEAD) &&
	    lookup_result_decode(r, ce.data, ce.len) == 0) {
		r->status = (enum lookup_status)ce.status;
		r->cached = hit = true;
	}
	free(ce.data);
	free(key);
	return hit;
}

static void cache_put(struct lookup *lk, const struct lookup_result *r)
{
	struct lookup_cache_entry ce = { r->status, time(NULL), NULL, 0 };
	char *key;
	struct err e;

	if (!lk->cache.put || lk->s.cache_ttl <= 0 || r->cached || r->status == LOOKUP_UNKNOWN)
		return;
	key = cache_key(lk, r);
	ce.data = lookup_result_encode(r);
	ce.len = strlen(ce.data);
	if (lk->cache.put(lk->cache.aux, key, &ce, &e) < 0)
		log_msg(LOGL_WARNING, "lookup cache: %s", e.msg);
	free(ce.data);
	free(key);
}

/* --- which URLs ---------------------------------------------------------- */

/* A Message-ID this mail or its thread already names: its own, or its
 * series' (which the archive may not have yet: no LINK_DEAD for those). */
static bool own_thread(const struct patch *p, const char *id)
{
	if ((p->message_id && msgid_same(id, p->message_id)) ||
	    (p->in_reply_to && msgid_same(id, p->in_reply_to)))
		return true;
	for (size_t i = 0; i < p->nreferences; i++)
		if (msgid_same(id, p->references[i]))
			return true;
	return false;
}

/* Appends a result for the URL of line l when it is new and worth asking;
 * returns its index or (size_t)-1. */
static size_t add_result(const struct patch *p, const struct line *l,
			 const struct pattern_list *archives, struct lookup_results *out,
			 size_t first)
{
	struct lookup_result *r;
	const char *url;
	size_t n;
	bool is_link;
	char *id;

	if (!lookup_link_line(l, &url, &n, &is_link) || n > LOOKUP_MAX_URL_LEN ||
	    memchr(url, '\0', n))
		return (size_t)-1;
	(void)first;
	/* Also those linkstore_results() settled: nothing to fetch for them. */
	if (lookup_results_find(out, url, n))
		return (size_t)-1;
	id = linkref_msgid(archives, url, n);
	if (id && own_thread(p, id)) {
		free(id);
		return (size_t)-1;
	}
	ARRAY_GROW(out->v, out->alloc, out->n + 1);
	r = &out->v[out->n];
	memset(r, 0, sizeof(*r));
	r->url = xstrndup(url, n);
	r->msgid = id;
	r->others = -1;
	r->version = 1;
	return out->n++;
}

/* Whether the result needs a transfer; b NULL: only the cache is asked
 * (and the result is dropped again when it is not there). */
static bool queue(struct lookup *lk, struct batch *b, struct lookup_results *out, size_t ri)
{
	struct lookup_result *r = &out->v[ri];

	if (cache_get(lk, r))
		return false;
	if (!b)
		lookup_result_release(&out->v[--out->n]);
	else if (r->msgid) {
		add_job(lk, b, out, ri, JOB_RAW, lookup_archive_url(lk->archive, r->msgid, "/raw"));
		add_job(lk, b, out, ri, JOB_ATOM,
			lookup_archive_url(lk->archive, r->msgid, "/t.atom"));
	} else {
		add_job(lk, b, out, ri, JOB_STATUS, xstrdup(r->url));
	}
	return true;
}

/* The links of p into out (not those from first on already there); the
 * number that need a transfer. */
static size_t collect(struct lookup *lk, const struct patch *p, const struct pattern_list *archives,
		      struct lookup_results *out, size_t first, struct batch *b)
{
	size_t asked = 0, misses = 0;

	if (p->kind != KIND_PATCH)
		return 0;

	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++) {
		size_t ri = add_result(p, &p->lines[i], archives, out, first);

		if (ri == (size_t)-1)
			continue;
		if (++asked > LOOKUP_MAX_URLS) {
			log_message(LOGL_WARNING, p->message_id,
				    "more than %d links: the rest are not looked up", LOOKUP_MAX_URLS);
			lookup_result_release(&out->v[--out->n]);
			break;
		}
		misses += queue(lk, b, out, ri);
	}
	return misses;
}

/*
 * A name that does not resolve is a dead link only while names resolve at
 * all: offline, or with the resolver down, every host fails alike.  Any
 * answer in the batch proves the network works; else the archive's host
 * is asked (at most every LOOKUP_RESOLVER_TRUST seconds), within what is
 * left of the batch's deadline: a probe that times out proves nothing.
 */
static bool resolver_works(struct lookup *lk, const struct batch *b)
{
	struct batch probe = { NULL, 0, 0, b->deadline };
	bool no_host = false, archive_no_host = false, ok;

	for (size_t i = 0; i < b->n; i++) {
		enum lookup_net net = job_net(&b->v[i]);

		if (net == LOOKUP_NET_OK) {
			lk->resolver_ok_at = time(NULL);
			return true;
		}
		no_host |= net == LOOKUP_NET_NO_HOST;
		archive_no_host |= net == LOOKUP_NET_NO_HOST && b->v[i].kind != JOB_STATUS;
	}
	if (archive_no_host)
		return false;
	if (!no_host || (lk->resolver_ok_at && time(NULL) - lk->resolver_ok_at < LOOKUP_RESOLVER_TRUST))
		return true;
	add_job(lk, &probe, NULL, 0, JOB_STATUS, xstrdup(lk->archive));
	run_batch(lk, &probe);
	ok = job_net(&probe.v[0]) != LOOKUP_NET_NO_HOST && !job_timed_out(&probe.v[0]);
	if (ok)
		lk->resolver_ok_at = time(NULL);
	batch_release(&probe);
	return ok;
}

/* The results of one mail, from first on, out of the finished batch. */
static void finish_request(struct lookup *lk, const struct batch *b, struct lookup_results *out,
			   size_t first, bool dns_ok)
{
	for (size_t ri = first; ri < out->n; ri++) {
		struct lookup_result *r = &out->v[ri];
		const struct job *j = job_for(b, out, ri, r->msgid ? JOB_RAW : JOB_STATUS);

		if (!j)
			continue;	/* from the cache */
		if (r->msgid)
			finish_archive(r, j, job_for(b, out, ri, JOB_ATOM));
		else
			finish_status(r, j, dns_ok);
		log_msg(LOGL_DEBUG, "lookup %.*s: %s (HTTP %ld)", show(r->url), r->url,
			lookup_status_name(r->status), r->http_code);
		cache_put(lk, r);
	}
}

#define LOOKUP_FETCH_MAX	1024	/* mails in one lookup_fetch() */

int lookup_fetch(struct lookup *lk, const struct lookup_request *rq, size_t n,
		 const struct pattern_list *archives, struct err *e)
{
	struct batch b = { NULL, 0, 0, 0 };
	size_t first[LOOKUP_FETCH_MAX], failed = 0;
	bool dns_ok, all_failed;

	if (n > LOOKUP_FETCH_MAX)
		return err_set(e, ERR_FINAL, "lookup: more than %d mails at once", LOOKUP_FETCH_MAX);
	for (size_t i = 0; i < n; i++) {
		first[i] = rq[i].out->n;
		for (size_t k = 0; k < rq[i].np; k++)
			collect(lk, &rq[i].p[k], archives, rq[i].out, first[i], &b);
	}
	if (!b.n)
		return 0;
	run_batch(lk, &b);
	dns_ok = resolver_works(lk, &b);
	if (!dns_ok)
		log_msg(LOGL_WARNING, "lookup: host names do not resolve, not even the archive's (%s): no link is dead for that",
			lk->archive_host);
	for (size_t i = 0; i < b.n; i++)
		failed += b.v[i].cc == CURLE_FAILED_INIT;
	for (size_t i = 0; i < n; i++)
		finish_request(lk, &b, rq[i].out, first[i], dns_ok);
	all_failed = failed == b.n;
	batch_release(&b);
	if (all_failed)
		return err_set(e, ERR_TEMP, "lookup: curl could not start a transfer");
	return 0;
}

int lookup_prefetch(struct lookup *lk, const struct patch *p, const struct pattern_list *archives,
		    struct lookup_results *out, struct err *e)
{
	struct lookup_request rq = { p, 1, out };

	return lookup_fetch(lk, &rq, 1, archives, e);
}

bool lookup_cached(struct lookup *lk, const struct patch *p, size_t np,
		   const struct pattern_list *archives, struct lookup_results *out)
{
	size_t first = out->n, misses = 0;

	for (size_t k = 0; k < np; k++)
		misses += collect(lk, &p[k], archives, out, first, NULL);
	return misses == 0;
}

/* --- one message from the archive (maintainer Cc mode) -------------------- */

/* The first message of an mbox answer: public-inbox gives every copy it
 * holds of a Message-ID. */
static size_t first_message(const char *s, size_t n)
{
	for (size_t i = 1; i + 5 < n; i++)
		if (s[i - 1] == '\n' && !memcmp(s + i, "From ", 5))
			return i;
	return n;
}

int lookup_message_raw(struct lookup *lk, const char *msgid, struct buf *out, bool *found,
		       struct err *e)
{
	struct batch b = { NULL, 0, 0, 0 };
	const struct job *j;
	int rc = 0;

	*found = false;
	if (!msgid || !*msgid || strlen(msgid) > LOOKUP_MAX_URL_LEN)
		return err_set(e, ERR_FINAL, "lookup: not a Message-ID to fetch");
	add_job(lk, &b, NULL, 0, JOB_RAW, lookup_archive_url(lk->archive, msgid, "/raw"));
	run_batch(lk, &b);
	j = &b.v[0];
	if (job_net(j) == LOOKUP_NET_OK && j->code == 200 && !j->truncated) {
		buf_reset(out);
		if (buf_add(out, j->body.data, first_message(j->body.data, j->body.len)) == 0)
			*found = true;
	} else if (!(job_net(j) == LOOKUP_NET_OK && (j->code == 404 || j->code == 410))) {
		log_failure(j);
		rc = err_set(e, ERR_TEMP, "lookup %.200s: no answer", j->url);
	}
	batch_release(&b);
	return rc;
}
