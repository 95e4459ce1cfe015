#include "autoconf.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/mailstream.h>
#include <libetpan/mailstream_helper.h>
#include <libetpan/newsnntp.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "transport/bodyread.h"
#include "transport/netconn.h"
#include "transport/nntp_source.h"

#define STARTTLS_REPLY_MAX 512	/* bytes of the answer to STARTTLS */
#define STATUS_LINE_MAX	1024	/* bytes of the first line of an answer (RFC 3977: 512) */

struct nntp_source {
	newsnntp *nntp;		/* owned */
	char *host, *tls_name, *ca_file; /* owned copies */
	struct net_peer peer;	/* points into the strings above */
	enum net_tls tls;
	size_t max_message;
	bool dead;		/* an error left the session unusable */
	struct buf article;	/* owned; the last article, capped at max_message */
};

/* --- errors --------------------------------------------------------------- */

#define fail NET_FAIL

/* The server's text of its last answer, made safe to quote. */
static const char *server_text(const struct nntp_source *src, char *out, size_t n)
{
	return net_quote(src->nntp ? src->nntp->nntp_response : NULL, out, n);
}

/* A libetpan result as one of ours: the answers a command may get in step
 * are ERR_FINAL; a lost or garbled session is ERR_TEMP. */
static int etpan_fail(struct nntp_source *src, int r, const char *what, struct err *e)
{
	const char *why = src->nntp ? net_stream_error(src->nntp->nntp_stream) : NULL;
	char text[NET_TEXT_MAX + 1];

	/* The stream failed under libetpan, whose verdict on the answer cut
	 * short ("out of memory" for an article) tells nothing. */
	if (why)
		return fail(src, ERR_TEMP, e, "%s: %s", what, why);
	switch (r) {
	case NEWSNNTP_ERROR_STREAM:
	case NEWSNNTP_ERROR_CONNECTION_REFUSED:
	case NEWSNNTP_ERROR_SSL:
		return fail(src, ERR_TEMP, e, "%s: connection lost or timed out", what);
	case NEWSNNTP_ERROR_MEMORY:
		return fail(src, ERR_TEMP, e, "%s: out of memory", what);
	case NEWSNNTP_ERROR_INVALID_RESPONSE:
	case NEWSNNTP_ERROR_UNEXPECTED_RESPONSE:
		return fail(src, ERR_TEMP, e, "%s: unexpected answer: %s", what,
			    server_text(src, text, sizeof(text)));
	case NEWSNNTP_ERROR_NO_SUCH_NEWS_GROUP:
		return fail(src, ERR_FINAL, e, "%s: no such group", what);
	case NEWSNNTP_ERROR_REQUEST_AUTHORIZATION_USERNAME:
	case NEWSNNTP_WARNING_REQUEST_AUTHORIZATION_PASSWORD:
		return fail(src, ERR_FINAL, e, "%s: the server wants a login (set user and "
			    "password_file)", what);
	default:
		return fail(src, ERR_FINAL, e, "%s refused: %s", what,
			    server_text(src, text, sizeof(text)));
	}
}

/* A read of a list (or ours) on the stream broke off. */
static int lost(struct nntp_source *src, const char *what, struct err *e)
{
	const char *why = net_stream_error(src->nntp->nntp_stream);

	return fail(src, ERR_TEMP, e, "%s: %s", what, why ? why : "connection lost");
}

static int alive(struct nntp_source *src, struct err *e)
{
	if (src->dead || !src->nntp || !src->nntp->nntp_stream)
		return fail(src, ERR_TEMP, e, "session ended by an earlier error");
	return 0;
}

/* Printable ASCII without spaces, 1..max bytes: what may go into a command. */
static bool safe_word(const char *s, size_t max)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; s[n]; n++)
		if ((unsigned char)s[n] <= 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	return n <= max;
}

/* --- session setup -------------------------------------------------------- */

void nntp_settings_init(struct nntp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->tls = NET_TLS_IMPLICIT;
}

static int check_settings(const struct nntp_settings *s, struct err *e)
{
	if (!s->host || !safe_word(s->host, NNTP_NAME_MAX))
		return err_set(e, ERR_FINAL, "nntp: no valid host");
	if (s->port < 0 || s->port > 65535)
		return err_set(e, ERR_FINAL, "nntp: %s: port %d out of range", s->host, s->port);
	if (s->user && !safe_word(s->user, NNTP_NAME_MAX))
		return err_set(e, ERR_FINAL, "nntp: %s: user names must be printable ASCII "
			       "without spaces", s->host);
	if (s->user && (!s->password || !*s->password ||
			!net_safe_credential(s->password, NNTP_NAME_MAX)))
		return err_set(e, ERR_FINAL, "nntp: %s: no valid password for %s (control "
			       "characters, empty or too long)", s->host, s->user);
	return 0;
}

static struct nntp_source *source_new(const struct nntp_settings *s)
{
	struct nntp_source *src = xcalloc(1, sizeof(*src));
	int port = s->port ? s->port : s->tls == NET_TLS_IMPLICIT ? 563 : 119;

	src->host = xstrdup(s->host);
	src->tls_name = xstrdup(s->tls_name ? s->tls_name : s->host);
	src->ca_file = s->ca_file ? xstrdup(s->ca_file) : NULL;
	src->tls = s->tls;
	src->max_message = s->max_message ? s->max_message : NNTP_MESSAGE_MAX;
	buf_init(&src->article, src->max_message);
	src->peer = (struct net_peer){
		.host = src->host, .port = port, .tls_name = src->tls_name,
		.ca_file = src->ca_file, .plain = s->tls == NET_TLS_NONE,
		.timeout_s = s->timeout_s > 0 ? s->timeout_s : NNTP_TIMEOUT_DEFAULT_S,
	};
	net_peer_init(&src->peer, "nntp");
	net_peer_signals(&src->peer, s->wait_sigmask, s->stop);
	return src;
}

/* RFC 4642: STARTTLS, 382, then the handshake on the same stream. */
static int starttls(struct nntp_source *src, struct err *e)
{
	mailstream *s = src->nntp->nntp_stream;
	MMAPString *line = mmap_string_new("");
	const char *r;
	int rc;

	if (!line)
		return fail(src, ERR_TEMP, e, "STARTTLS: out of memory");
	if (mailstream_write(s, "STARTTLS\r\n", 10) != 10 || mailstream_flush(s) < 0) {
		mmap_string_free(line);
		return lost(src, "STARTTLS", e);
	}
	r = mailstream_read_line_remove_eol(s, line);
	if (!r)
		rc = lost(src, "STARTTLS", e);
	else if (strncmp(r, "382", 3))
		rc = fail(src, ERR_FINAL, e, "STARTTLS refused: %.*s", STARTTLS_REPLY_MAX, r);
	else
		rc = net_starttls(&src->peer, s, e);
	mmap_string_free(line);
	if (rc < 0)
		src->dead = true;
	return rc;
}

static int connect_session(struct nntp_source *src, struct err *e)
{
	mailstream *s;
	int fd = -1, r;

	if (net_connect(&src->peer, &fd, e) < 0)
		return -1;
	if ((src->tls == NET_TLS_IMPLICIT ? net_tls_open(&src->peer, fd, &s, e)
					   : net_plain_open(&src->peer, fd, &s, e)) < 0)
		return -1;
	r = newsnntp_connect(src->nntp, s);
	if (r != NEWSNNTP_NO_ERROR) {
		if (!src->nntp->nntp_stream)	/* libetpan let go of it */
			mailstream_close(s);
		return etpan_fail(src, r, "greeting", e);
	}
	if (src->tls == NET_TLS_STARTTLS && starttls(src, e) < 0)
		return -1;
	return 0;
}

static int login(struct nntp_source *src, const struct nntp_settings *s, struct err *e)
{
	int r;

	if (!s->user)
		return 0;
	r = newsnntp_authinfo_username(src->nntp, s->user);
	if (r == NEWSNNTP_WARNING_REQUEST_AUTHORIZATION_PASSWORD)
		r = newsnntp_authinfo_password(src->nntp, s->password);
	if (r == NEWSNNTP_NO_ERROR)
		return 0;
	if (r == NEWSNNTP_ERROR_AUTHENTICATION_REJECTED)
		return fail(src, ERR_FINAL, e, "login as %s refused", s->user);
	return etpan_fail(src, r, "AUTHINFO", e);
}

int nntp_open(struct nntp_source **out, const struct nntp_settings *s, struct err *e)
{
	struct nntp_source *src;
	struct net_guard g;
	int rc, r;

	*out = NULL;
	if (check_settings(s, e) < 0)
		return -1;
	src = source_new(s);
	src->nntp = newsnntp_new(0, NULL);
	if (!src->nntp) {
		nntp_close(src);
		return err_set(e, ERR_TEMP, "nntp: out of memory");
	}
	net_guard_enter(&g);
	rc = connect_session(src, e);
	if (rc == 0)
		rc = login(src, s, e);
	/* Some servers want it before they serve groups; an error is no
	 * reason to give up (public-inbox is always a reader). */
	if (rc == 0 && (r = newsnntp_mode_reader(src->nntp)) == NEWSNNTP_ERROR_STREAM)
		rc = etpan_fail(src, r, "MODE READER", e);
	net_guard_leave(&g);
	if (rc < 0) {
		nntp_close(src);
		return -1;
	}
	log_msg(LOGL_INFO, "%s: %s", src->peer.where,
		src->tls == NET_TLS_NONE ? "connected (no TLS, loopback)" : "connected, verified");
	*out = src;
	return 0;
}

void nntp_close(struct nntp_source *src)
{
	struct net_guard g;

	if (!src)
		return;
	net_guard_enter(&g);
	if (src->nntp) {
		if (src->dead && src->nntp->nntp_stream) {
			/* no QUIT on a session out of step: it may never answer */
			mailstream_close(src->nntp->nntp_stream);
			src->nntp->nntp_stream = NULL;
		}
		newsnntp_free(src->nntp);
	}
	net_guard_leave(&g);
	buf_release(&src->article);
	free(src->host);
	free(src->tls_name);
	free(src->ca_file);
	free(src);
}

/* --- groups --------------------------------------------------------------- */

bool nntp_is_wildmat(const char *p)
{
	return strpbrk(p, "*?[!") != NULL;
}

struct names {
	char **v;
	size_t n, alloc;
	bool truncated;
};

static void names_add(struct names *l, const char *name)
{
	if (!safe_word(name, NNTP_GROUP_MAX))
		return;		/* not a name we could send back */
	if (l->n >= NNTP_GROUPS_MAX) {
		l->truncated = true;
		return;
	}
	ARRAY_GROW(l->v, l->alloc, l->n + 2);
	l->v[l->n++] = xstrdup(name);
	l->v[l->n] = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_sort(struct names *l)
{
	size_t k = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
	l->v[k] = NULL;
}

void nntp_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static int list_active(struct nntp_source *src, const char *wildmat, struct names *l,
		       struct err *e)
{
	clist *groups = NULL;
	int r = newsnntp_list_active(src->nntp, wildmat, &groups);

	if (r != NEWSNNTP_NO_ERROR)
		return etpan_fail(src, r, "LIST ACTIVE", e);
	if (!groups) {	/* libetpan: the list broke off */
		char what[NNTP_GROUP_MAX + 16];

		snprintf(what, sizeof(what), "LIST ACTIVE %s", wildmat);
		return lost(src, what, e);
	}
	for (clistiter *it = clist_begin(groups); it; it = clist_next(it)) {
		struct newsnntp_group_info *gi = clist_content(it);

		names_add(l, gi->grp_name);
	}
	newsnntp_list_active_free(groups);
	return 0;
}

int nntp_list_groups(struct nntp_source *src, const char *const *patterns, size_t n,
		     char ***names, size_t *count, bool *truncated, struct err *e)
{
	struct names l = { NULL, 0, 0, false };
	struct net_guard g;
	int rc = alive(src, e);

	net_guard_enter(&g);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!safe_word(patterns[i], NNTP_GROUP_MAX))
			rc = fail(src, ERR_FINAL, e, "\"%.200s\" is not a group name or wildmat",
				  patterns[i]);
		else if (nntp_is_wildmat(patterns[i]))
			rc = list_active(src, patterns[i], &l, e);
		else
			names_add(&l, patterns[i]);
	}
	net_guard_leave(&g);
	if (rc < 0) {
		nntp_names_free(l.v);
		return -1;
	}
	names_sort(&l);
	if (!l.v)
		l.v = xcalloc(1, sizeof(char *));
	*names = l.v;
	*count = l.n;
	*truncated = l.truncated;
	return 0;
}

int nntp_group(struct nntp_source *src, const char *group, struct nntp_group *out,
	       struct err *e)
{
	struct newsnntp_group_info *gi = NULL;
	struct net_guard g;
	int r;

	if (alive(src, e) < 0)
		return -1;
	if (!safe_word(group, NNTP_GROUP_MAX))
		return fail(src, ERR_FINAL, e, "\"%.200s\" is not a group name", group);
	net_guard_enter(&g);
	r = newsnntp_group(src->nntp, group, &gi);
	net_guard_leave(&g);
	if (r != NEWSNNTP_NO_ERROR) {
		char what[NNTP_GROUP_MAX + 8];

		snprintf(what, sizeof(what), "GROUP %s", group);
		return etpan_fail(src, r, what, e);
	}
	out->low = gi->grp_first;
	out->high = gi->grp_last;
	out->count = gi->grp_count;
	newsnntp_group_free(gi);
	return 0;
}

/* --- overview and articles ------------------------------------------------ */

static int cmp_item(const void *a, const void *b)
{
	uint32_t x = (*(struct newsnntp_xover_resp_item *const *)a)->ovr_article;
	uint32_t y = (*(struct newsnntp_xover_resp_item *const *)b)->ovr_article;

	return x < y ? -1 : x > y;
}

/* The overview's lines (malloc'ed, *n of them), in order, each article
 * once; a line outside the range asked for, or for an article already
 * listed, is no article of the answer: dropped and counted in *ignored. */
static struct newsnntp_xover_resp_item **over_items(clist *l, uint32_t from, uint32_t to,
						    size_t *n, size_t *ignored)
{
	size_t count = (size_t)clist_count(l), k = 0, w = 0;
	struct newsnntp_xover_resp_item **v;

	v = xcalloc(count + 1, sizeof(*v));
	for (clistiter *it = clist_begin(l); it; it = clist_next(it)) {
		struct newsnntp_xover_resp_item *item = clist_content(it);

		if (item->ovr_article >= from && item->ovr_article <= to)
			v[k++] = item;
	}
	qsort(v, k, sizeof(*v), cmp_item);
	for (size_t i = 0; i < k; i++)
		if (!w || v[i]->ovr_article != v[w - 1]->ovr_article)
			v[w++] = v[i];
	*ignored += count - w;
	*n = w;
	return v;
}

int nntp_overview(struct nntp_source *src, uint32_t from, uint32_t to, nntp_over_fn *fn,
		  void *arg, size_t *ignored, struct err *e)
{
	struct newsnntp_xover_resp_item **v = NULL;
	clist *l = NULL;
	struct net_guard g;
	size_t n = 0;
	int r, rc = 0;

	if (alive(src, e) < 0)
		return -1;
	if (to < from)
		return 0;
	if (to - from >= NNTP_OVER_WINDOW)
		to = from + NNTP_OVER_WINDOW - 1;
	net_guard_enter(&g);
	r = newsnntp_xover_range(src->nntp, from, to, &l);
	net_guard_leave(&g);
	if (r != NEWSNNTP_NO_ERROR)
		return etpan_fail(src, r, "XOVER", e);
	if (!l)		/* libetpan: the list broke off */
		return lost(src, "XOVER", e);
	v = over_items(l, from, to, &n, ignored);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *id = v[i]->ovr_message_id;
		struct nntp_over ov = {
			v[i]->ovr_article,
			id && *id && strlen(id) <= NNTP_MSGID_MAX ? id : NULL,
			v[i]->ovr_size,
		};

		rc = fn(arg, &ov, e);
	}
	free(v);
	newsnntp_xover_resp_list_free(l);
	return rc;
}

/* A read for ARTICLE num that broke off: how, when the stream knows
 * (netconn.h: closed, reset, no answer, a stop), else what. */
static int article_lost(struct nntp_source *src, uint32_t num, const char *what,
			struct err *e)
{
	const char *why = net_stream_error(src->nntp->nntp_stream);

	return fail(src, ERR_TEMP, e, "ARTICLE %u: %s", num, why ? why : what);
}

/* The status line of ARTICLE num: its code into *code. */
static int article_status(struct nntp_source *src, uint32_t num, int *code, struct err *e)
{
	mailstream *s = src->nntp->nntp_stream;
	char line[STATUS_LINE_MAX], text[NET_TEXT_MAX + 1], cmd[32];
	int n = snprintf(cmd, sizeof(cmd), "ARTICLE %u\r\n", num);

	if (mailstream_write(s, cmd, (size_t)n) != n || mailstream_flush(s) < 0 ||
	    body_read_line(s, line, sizeof(line)) < 0)
		return article_lost(src, num, "connection lost, timed out or a status line "
				    "too long", e);
	if (line[0] < '1' || line[0] > '5' || line[1] < '0' || line[1] > '9' ||
	    line[2] < '0' || line[2] > '9' || (line[3] && line[3] != ' '))
		return fail(src, ERR_TEMP, e, "ARTICLE %u: unexpected answer: %s", num,
			    net_quote(line, text, sizeof(text)));
	*code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
	if (*code == 220 || *code == 423 || *code == 430)
		return 0;
	if (*code == 480 || *code == 381)
		return fail(src, ERR_FINAL, e, "ARTICLE: the server wants a login (set user and "
			    "password_file)");
	return fail(src, *code / 100 == 2 ? ERR_TEMP : ERR_FINAL, e, "ARTICLE %u refused: %s",
		    num, net_quote(line, text, sizeof(text)));
}

/*
 * ARTICLE by hand rather than newsnntp_article(), which reads the article
 * whole, at whatever size the server sends: the body is read with our cap
 * (body_read_dotted), and one past it is read through, not held.
 */
int nntp_article(struct nntp_source *src, uint32_t num, const char **raw, size_t *len,
		 enum nntp_article_state *state, struct err *e)
{
	struct net_guard g;
	uint64_t seen = 0;
	int code = 0, rc;

	*raw = NULL;
	*len = 0;
	if (alive(src, e) < 0)
		return -1;
	buf_reset(&src->article);
	net_guard_enter(&g);
	rc = article_status(src, num, &code, e);
	if (rc == 0 && code == 220 &&
	    body_read_dotted(src->nntp->nntp_stream, &src->article, &seen) < 0)
		rc = article_lost(src, num, "connection lost or timed out", e);
	net_guard_leave(&g);
	if (rc < 0)
		return -1;
	if (code != 220) {
		*state = NNTP_ARTICLE_GONE;
		return 0;
	}
	if (seen > src->max_message) {
		*state = NNTP_ARTICLE_TOO_LARGE;
		*len = seen > SIZE_MAX ? SIZE_MAX : (size_t)seen;
		return 0;
	}
	*state = NNTP_ARTICLE_OK;
	*raw = src->article.data;
	*len = src->article.len;
	return 0;
}
