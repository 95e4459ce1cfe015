#include "autoconf.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "lib/buf.h"
#include "transport/imap_source.h"
#include "transport/netconn.h"
#include "lib/log.h"

#define IDLE_LITERAL_MAX	((size_t)64 * 1024) /* a literal inside an untagged line while idling */

struct msg_item;

struct imap_source {
	mailimap *imap;		/* owned */
	char *host, *tls_name, *ca_file, *user, *folder; /* owned copies */
	char where[IMAP_NAME_MAX + 16];	/* "HOST:PORT", the prefix of every message */
	struct net_peer peer;	/* points into the strings above */
	int port, timeout_s, idle_max_s;
	enum net_tls tls;
	bool mark_seen, use_idle, has_idle;
	bool dead;		/* an error left the session unusable */
	size_t batch, max_message;
	sigset_t wait_mask;
	bool has_wait_mask;
	uint32_t uidvalidity, uidnext;
	uint64_t known_uidnext;	/* UIDs below were there at open or at the last fetch */
	bool pending;		/* EXISTS or RECENT not yet followed by a fetch */
	bool fetching;		/* in imap_fetch_from (its callback may not call it) */
	struct imap_stats st;
	struct msg_item *win;	/* owned; UIDs and sizes of [win_lo, win_hi] as learnt */
	size_t nwin, awin;
	uint32_t win_lo, win_hi;
};

/* --- errors --------------------------------------------------------------- */

#define fail NET_FAIL

/* The server's text of its last answer, made safe to quote. */
static const char *server_text(const struct imap_source *src, char *out, size_t n)
{
	return net_quote(src->imap ? src->imap->imap_response : NULL, out, n);
}

/*
 * A libetpan result as one of ours.  A NO from the server is about this
 * command (ERR_FINAL, the session lives on); anything else means the
 * connection cannot be trusted to be in step any more.
 */
static int etpan_fail(struct imap_source *src, int r, const char *what, struct err *e)
{
	const char *why = src->imap ? net_stream_error(src->imap->imap_stream) : NULL;
	char text[NET_TEXT_MAX + 1];

	/* The stream failed under libetpan: what it made of the answer cut
	 * short (a parse error, even "out of memory") tells nothing. */
	if (why)
		return fail(src, ERR_TEMP, e, "%s: %s", what, why);
	switch (r) {
	case MAILIMAP_ERROR_STREAM:
	case MAILIMAP_ERROR_CONNECTION_REFUSED:
	case MAILIMAP_ERROR_SSL:
		return fail(src, ERR_TEMP, e, "%s: connection lost or timed out", what);
	case MAILIMAP_ERROR_FATAL:
	case MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION:
		return fail(src, ERR_TEMP, e, "%s: server closed the session: %s", what,
			    server_text(src, text, sizeof(text)));
	case MAILIMAP_ERROR_PARSE:
	case MAILIMAP_ERROR_PROTOCOL:
	case MAILIMAP_ERROR_BAD_STATE:
		return fail(src, ERR_TEMP, e, "%s: protocol error: %s", what,
			    server_text(src, text, sizeof(text)));
	case MAILIMAP_ERROR_MEMORY:
		return fail(src, ERR_TEMP, e, "%s: out of memory", what);
	default:
		return fail(src, ERR_FINAL, e, "%s refused: %s", what,
			    server_text(src, text, sizeof(text)));
	}
}

/* A read of ours on the stream failed. */
static int lost(struct imap_source *src, const char *what, struct err *e)
{
	const char *why = net_stream_error(src->imap->imap_stream);

	return fail(src, ERR_TEMP, e, "%s: %s", what, why ? why : "connection lost");
}

static int alive(struct imap_source *src, struct err *e)
{
	if (src->dead || !src->imap || !src->imap->imap_stream)
		return fail(src, ERR_TEMP, e, "session ended by an earlier error");
	return 0;
}

/* --- signals -------------------------------------------------------------- */

/* The mask ppoll() sleeps with: the configured one or the caller's, never
 * letting SIGPIPE through. */
static void sleep_mask(const struct imap_source *src, const struct net_guard *g, sigset_t *m)
{
	*m = src->has_wait_mask ? src->wait_mask : g->old;
	sigaddset(m, SIGPIPE);
}

/* --- small helpers -------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct timespec to_timespec(double s)
{
	struct timespec ts;

	if (s < 0)
		s = 0;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	return ts;
}

/* Printable ASCII (space allowed when with_space), 1..IMAP_NAME_MAX bytes:
 * what may go into a quoted string of a command. */
static bool safe_name(const char *s, bool with_space)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < (with_space ? 0x20 : 0x21) || (unsigned char)s[n] > 0x7e)
			return false;
	return n <= IMAP_NAME_MAX;
}

/* No CR, LF or other control byte (8-bit allowed): user names, passwords. */
static bool safe_credential(const char *s)
{
	return net_safe_credential(s, IMAP_NAME_MAX);
}

static void absorb_flags(struct imap_source *src)
{
	struct mailimap_selection_info *sel = src->imap->imap_selection_info;

	if (sel && (sel->sel_has_exists || sel->sel_has_recent)) {
		src->pending = true;
		sel->sel_has_exists = 0;
		sel->sel_has_recent = 0;
	}
}

static void clear_flags(struct imap_source *src)
{
	struct mailimap_selection_info *sel = src->imap->imap_selection_info;

	if (sel) {
		sel->sel_has_exists = 0;
		sel->sel_has_recent = 0;
	}
}

/* --- settings ------------------------------------------------------------- */

void imap_settings_init(struct imap_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->idle = true;
}

static int check_settings(const struct imap_settings *s, struct err *e)
{
	if (!safe_name(s->host, false) || strlen(s->host) > 255)
		return err_set(e, ERR_FINAL, "imap: no valid host configured");
	/* Refused before anything quotes the host: it may hold a password. */
	if (strchr(s->host, '@'))
		return err_set(e, ERR_FINAL, "imap: the host must not hold a user name or password; "
			       "use user and password_file");
	if (s->port < 0 || s->port > 65535)
		return err_set(e, ERR_FINAL, "imap: %s: port %d out of range", s->host, s->port);
	if ((unsigned)s->tls > NET_TLS_NONE || (unsigned)s->auth > IMAP_AUTH_PLAIN)
		return err_set(e, ERR_FINAL, "imap: %s: bad tls or auth setting", s->host);
	if (s->tls_name && !safe_name(s->tls_name, false))
		return err_set(e, ERR_FINAL, "imap: %s: bad TLS name", s->host);
	if (!s->user || !*s->user || !safe_credential(s->user))
		return err_set(e, ERR_FINAL, "imap: %s: no valid user configured", s->host);
	if (!s->password || !safe_credential(s->password))
		return err_set(e, ERR_FINAL, "imap: %s: no valid password for %s (control "
			       "characters or too long)", s->host, s->user);
	if (s->folder && !safe_name(s->folder, true))
		return err_set(e, ERR_FINAL, "imap: %s: folder names must be printable ASCII",
			       s->host);
	return 0;
}

static struct imap_source *source_new(const struct imap_settings *s)
{
	struct imap_source *src = xcalloc(1, sizeof(*src));
	bool v6 = strchr(s->host, ':') != NULL;

	src->host = xstrdup(s->host);
	src->tls = s->tls;
	src->port = s->port ? s->port : s->tls == NET_TLS_IMPLICIT ? 993 : 143;
	snprintf(src->where, sizeof(src->where), v6 ? "[%s]:%d" : "%s:%d", src->host, src->port);
	src->tls_name = xstrdup(s->tls_name ? s->tls_name : s->host);
	src->ca_file = s->ca_file ? xstrdup(s->ca_file) : NULL;
	src->user = xstrdup(s->user);
	src->folder = xstrdup(s->folder ? s->folder : "INBOX");
	src->mark_seen = s->mark_seen;
	src->use_idle = s->idle;
	src->idle_max_s = s->idle_max_s > 0 && s->idle_max_s < IMAP_IDLE_MAX_S ?
		s->idle_max_s : IMAP_IDLE_MAX_S;
	src->timeout_s = s->timeout_s > 0 ? s->timeout_s : IMAP_TIMEOUT_DEFAULT_S;
	src->batch = s->batch ? s->batch : IMAP_BATCH_DEFAULT;
	if (src->batch > IMAP_BATCH_MAX)
		src->batch = IMAP_BATCH_MAX;
	src->max_message = s->max_message ? s->max_message : IMAP_MESSAGE_MAX;
	src->peer = (struct net_peer){
		.host = src->host, .port = src->port, .tls_name = src->tls_name,
		.ca_file = src->ca_file, .plain = src->tls == NET_TLS_NONE,
		.timeout_s = src->timeout_s,
	};
	net_peer_init(&src->peer, "imap");
	if (s->wait_sigmask) {
		src->wait_mask = *s->wait_sigmask;
		src->has_wait_mask = true;
	}
	net_peer_signals(&src->peer, s->wait_sigmask, s->stop);
	return src;
}

/* --- session setup -------------------------------------------------------- */

static int refresh_caps(struct imap_source *src, struct err *e)
{
	struct mailimap_capability_data *cap = NULL;
	int r = mailimap_capability(src->imap, &cap);

	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "CAPABILITY", e);
	mailimap_capability_data_free(cap);
	return 0;
}

/* mailimap_socket_starttls, but with our timeout, SNI and checks. */
static int starttls(struct imap_source *src, struct err *e)
{
	int r = mailimap_starttls(src->imap);

	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "STARTTLS", e);
	if (net_starttls(&src->peer, src->imap->imap_stream, e) < 0) {
		src->dead = true;
		return -1;
	}
	return 0;
}

/* Connects and reads the greeting; *preauth when the server logged us in. */
static int connect_session(struct imap_source *src, bool *preauth, struct err *e)
{
	mailstream *s;
	int fd = -1, r;

	if (net_connect(&src->peer, &fd, e) < 0)
		return -1;
	if ((src->tls == NET_TLS_IMPLICIT ? net_tls_open(&src->peer, fd, &s, e)
					   : net_plain_open(&src->peer, fd, &s, e)) < 0)
		return -1;
	r = mailimap_connect(src->imap, s);
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED && r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
		return etpan_fail(src, r, "greeting", e);
	*preauth = r == MAILIMAP_NO_ERROR_AUTHENTICATED;
	if (src->tls != NET_TLS_STARTTLS)
		return 0;
	if (*preauth)
		return fail(src, ERR_FINAL, e, "server greets PREAUTH: STARTTLS impossible");
	if (starttls(src, e) < 0)
		return -1;
	/* What the server said it could do before TLS may have been forged. */
	return refresh_caps(src, e);
}

static void base64(const unsigned char *in, size_t n, struct buf *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0) |
			(i + 2 < n ? in[i + 2] : 0);

		buf_addch(out, tab[v >> 18 & 63]);
		buf_addch(out, tab[v >> 12 & 63]);
		buf_addch(out, i + 1 < n ? tab[v >> 6 & 63] : '=');
		buf_addch(out, i + 2 < n ? tab[v & 63] : '=');
	}
}

static int send_line(mailstream *s, const char *p, size_t n)
{
	if (mailstream_write(s, p, n) != (ssize_t)n || mailstream_write(s, "\r\n", 2) != 2 ||
	    mailstream_flush(s) < 0)
		return MAILIMAP_ERROR_STREAM;
	return MAILIMAP_NO_ERROR;
}

static int tagged_ok(mailimap *imap, int refused)
{
	struct mailimap_response *resp = NULL;
	int r = mailimap_parse_response(imap, &resp), type;

	if (r != MAILIMAP_NO_ERROR)
		return r;
	type = resp->rsp_resp_done->rsp_data.rsp_tagged->rsp_cond_state->rsp_type;
	mailimap_response_free(resp);
	return type == MAILIMAP_RESP_COND_STATE_OK ? MAILIMAP_NO_ERROR : refused;
}

/*
 * AUTHENTICATE PLAIN (RFC 4616) by hand: libetpan's mailimap_authenticate
 * needs Cyrus SASL and its PLAIN plugin at run time.  The initial response
 * goes with the command when the server has SASL-IR.
 */
static int auth_plain(mailimap *imap, const char *user, const char *password)
{
	mailstream *s = imap->imap_stream;
	bool ir = mailimap_has_extension(imap, "SASL-IR");
	struct buf raw, cmd;
	char *line;
	int r;

	buf_init(&raw, 0);
	buf_init(&cmd, 0);
	buf_addch(&raw, '\0');
	buf_addstr(&raw, user);
	buf_addch(&raw, '\0');
	buf_addstr(&raw, password);
	buf_addstr(&cmd, "AUTHENTICATE PLAIN");
	if (ir)
		buf_addch(&cmd, ' ');
	base64((const unsigned char *)raw.data, raw.len, &cmd);
	mailstream_set_privacy(s, 0);
	r = mailimap_send_current_tag(imap);
	if (r == MAILIMAP_NO_ERROR)
		r = send_line(s, cmd.data, ir ? cmd.len : strlen("AUTHENTICATE PLAIN"));
	line = r == MAILIMAP_NO_ERROR ? mailimap_read_line(imap) : NULL;
	if (r == MAILIMAP_NO_ERROR && !line)
		r = MAILIMAP_ERROR_STREAM;
	if (r == MAILIMAP_NO_ERROR && line[0] == '+') {
		/* The server's challenge: the response, or "*" (cancel) if we sent it. */
		r = ir ? send_line(s, "*", 1) :
			send_line(s, cmd.data + strlen("AUTHENTICATE PLAIN"),
				  cmd.len - strlen("AUTHENTICATE PLAIN"));
		if (r == MAILIMAP_NO_ERROR && !mailimap_read_line(imap))
			r = MAILIMAP_ERROR_STREAM;
	}
	mailstream_set_privacy(s, 1);
	if (r == MAILIMAP_NO_ERROR)
		r = tagged_ok(imap, MAILIMAP_ERROR_LOGIN);
	if (r == MAILIMAP_NO_ERROR)
		imap->imap_state = MAILIMAP_STATE_AUTHENTICATED;
	explicit_bzero(raw.data, raw.len);
	explicit_bzero(cmd.data, cmd.len);
	buf_release(&raw);
	buf_release(&cmd);
	return r;
}

static int login(struct imap_source *src, const struct imap_settings *s, struct err *e)
{
	char text[NET_TEXT_MAX + 1];
	bool plain;
	int r;

	if (!src->imap->imap_connection_info || !src->imap->imap_connection_info->imap_capability)
		if (refresh_caps(src, e) < 0)
			return -1;
	plain = s->auth == IMAP_AUTH_PLAIN ||
		(s->auth == IMAP_AUTH_AUTO && mailimap_has_authentication(src->imap, "PLAIN"));
	if (!plain && s->auth == IMAP_AUTH_AUTO && mailimap_has_extension(src->imap, "LOGINDISABLED"))
		return fail(src, ERR_FINAL, e, "server offers neither AUTH=PLAIN nor LOGIN");
	r = plain ? auth_plain(src->imap, s->user, s->password) :
		mailimap_login(src->imap, s->user, s->password);
	if (r == MAILIMAP_ERROR_LOGIN)
		return fail(src, ERR_FINAL, e, "%s as %s refused: %s",
			    plain ? "AUTHENTICATE PLAIN" : "LOGIN", s->user,
			    server_text(src, text, sizeof(text)));
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "login", e);
	/* Capabilities change with the login (IDLE may appear only now). */
	return refresh_caps(src, e);
}

static int select_folder(struct imap_source *src, const char *folder, bool rw, struct err *e)
{
	char text[NET_TEXT_MAX + 1];
	int r = rw ? mailimap_select(src->imap, folder) : mailimap_examine(src->imap, folder);

	if (r == MAILIMAP_ERROR_SELECT || r == MAILIMAP_ERROR_EXAMINE)
		return fail(src, ERR_FINAL, e, "cannot open folder %s: %s", folder,
			    server_text(src, text, sizeof(text)));
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, rw ? "SELECT" : "EXAMINE", e);
	return 0;
}

/* SELECT (or EXAMINE) the watched folder; again is true after another
 * folder was looked at. */
static int select_watched(struct imap_source *src, bool again, struct err *e)
{
	struct mailimap_selection_info *sel;

	if (select_folder(src, src->folder, src->mark_seen, e) < 0)
		return -1;
	sel = src->imap->imap_selection_info;
	/* The SELECT's own EXISTS tells nothing new; UIDNEXT does. */
	clear_flags(src);
	if (again && sel->sel_uidvalidity != src->uidvalidity)
		return fail(src, ERR_TEMP, e, "folder %s: UIDVALIDITY changed from %u to %u",
			    src->folder, src->uidvalidity, sel->sel_uidvalidity);
	src->uidvalidity = sel->sel_uidvalidity;
	src->uidnext = sel->sel_uidnext;
	if (!again)
		src->known_uidnext = sel->sel_uidnext;
	else if (sel->sel_uidnext > src->known_uidnext)
		src->pending = true;
	return 0;
}

static int open_session(struct imap_source *src, const struct imap_settings *s, struct err *e)
{
	bool preauth = false;

	src->imap = mailimap_new(0, NULL);
	if (!src->imap)
		return fail(src, ERR_TEMP, e, "out of memory");
	mailimap_set_timeout(src->imap, src->timeout_s);
	if (connect_session(src, &preauth, e) < 0)
		return -1;
	if (!preauth && login(src, s, e) < 0)
		return -1;
	src->has_idle = mailimap_has_idle(src->imap);
	return select_watched(src, false, e);
}

int imap_open(struct imap_source **out, const struct imap_settings *s, struct err *e)
{
	struct imap_source *src;
	struct net_guard g;
	int rc;

	*out = NULL;
	if (check_settings(s, e) < 0)
		return -1;
	src = source_new(s);
	net_guard_enter(&g);
	rc = open_session(src, s, e);
	net_guard_leave(&g);
	if (rc < 0) {
		src->dead = true;
		imap_close(src);
		return -1;
	}
	log_msg(LOGL_INFO, "imap: %s: %s as %s (tls %s), %s %s: UIDVALIDITY %u UIDNEXT %u, %s",
		src->where, src->tls == NET_TLS_NONE ? "logged in" : "verified, logged in",
		src->user, net_tls_name(src->tls), src->mark_seen ? "selected" : "examined",
		src->folder, src->uidvalidity, src->uidnext,
		src->has_idle && src->use_idle ? "IDLE" : "polling");
	*out = src;
	return 0;
}

/* Closes the socket without a word: the session is not in step. */
static void drop_stream(mailimap *imap)
{
	if (imap->imap_stream) {
		mailstream_close(imap->imap_stream);
		imap->imap_stream = NULL;
	}
	imap->imap_state = MAILIMAP_STATE_DISCONNECTED;
}

void imap_close(struct imap_source *src)
{
	struct net_guard g;

	if (!src)
		return;
	if (src->imap) {
		net_guard_enter(&g);
		if (src->dead)
			drop_stream(src->imap);
		else if (src->imap->imap_stream)
			mailimap_logout(src->imap);
		mailimap_free(src->imap);
		net_guard_leave(&g);
	}
	free(src->host);
	free(src->tls_name);
	free(src->ca_file);
	free(src->user);
	free(src->folder);
	free(src->win);
	free(src);
}

int imap_mailbox(struct imap_source *src, uint32_t *uidvalidity, uint32_t *uidnext,
		 struct err *e)
{
	if (alive(src, e) < 0)
		return -1;
	*uidvalidity = src->uidvalidity;
	*uidnext = src->uidnext;
	return 0;
}

void imap_get_stats(const struct imap_source *src, struct imap_stats *st)
{
	*st = src->st;
	st->commands = src->imap ? (unsigned long)src->imap->imap_tag : 0;
	st->has_idle = src->has_idle;
}

/* --- fetching ------------------------------------------------------------- */

struct msg_item {
	uint32_t uid;
	uint32_t size;
	const char *body;	/* into the libetpan result; NULL until fetched */
	size_t len;
	const void *section;	/* the body's libetpan section: its key in a body_sink */
	bool has_size, has_body;
};

struct item_list {
	struct msg_item *v;
	size_t n, alloc;
};

static int cmp_uid(const void *a, const void *b)
{
	const struct msg_item *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* One FETCH response into an item; false when it carries no UID (an
 * unsolicited flag update). */
static bool parse_att(const struct mailimap_msg_att *att, struct msg_item *it)
{
	bool has_uid = false;

	memset(it, 0, sizeof(*it));
	for (clistiter *c = clist_begin(att->att_list); c; c = clist_next(c)) {
		struct mailimap_msg_att_item *item = clist_content(c);
		struct mailimap_msg_att_static *st;

		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
			continue;
		st = item->att_data.att_static;
		if (st->att_type == MAILIMAP_MSG_ATT_UID) {
			it->uid = st->att_data.att_uid;
			has_uid = true;
		} else if (st->att_type == MAILIMAP_MSG_ATT_RFC822_SIZE) {
			it->size = st->att_data.att_rfc822_size;
			it->has_size = true;
		} else if (st->att_type == MAILIMAP_MSG_ATT_BODY_SECTION &&
			   st->att_data.att_body_section) {
			const struct mailimap_msg_att_body_section *bs =
				st->att_data.att_body_section;

			it->body = bs->sec_body_part ? bs->sec_body_part : "";
			it->len = bs->sec_body_part ? bs->sec_length : 0;
			it->section = bs;
			it->has_body = true;
		}
	}
	return has_uid;
}

/* The items of list with a UID in [lo, hi] and the attribute asked for
 * (body or size), sorted by UID, each UID once. */
static void collect(clist *list, uint32_t lo, uint32_t hi, bool want_body, struct item_list *out)
{
	size_t w = 0;

	out->n = 0;
	for (clistiter *c = clist_begin(list); c; c = clist_next(c)) {
		struct msg_item it;

		if (!parse_att(clist_content(c), &it) || it.uid < lo || it.uid > hi ||
		    (want_body ? !it.has_body : !it.has_size))
			continue;
		ARRAY_GROW(out->v, out->alloc, out->n + 1);
		out->v[out->n++] = it;
	}
	if (out->n > 1)		/* out->v is NULL while nothing was kept */
		qsort(out->v, out->n, sizeof(*out->v), cmp_uid);
	for (size_t i = 0; i < out->n; i++)
		if (!w || out->v[w - 1].uid != out->v[i].uid)
			out->v[w++] = out->v[i];
	out->n = w;
}

static struct mailimap_fetch_type *fetch_type(bool body)
{
	struct mailimap_fetch_type *ft = mailimap_fetch_type_new_fetch_att_list_empty();

	mailimap_fetch_type_new_fetch_att_list_add(ft, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft, body ?
		mailimap_fetch_att_new_body_peek_section(mailimap_section_new(NULL)) :
		mailimap_fetch_att_new_rfc822_size());
	return ft;
}

static int uid_fetch(struct imap_source *src, struct mailimap_set *set, bool body,
		     clist **list, struct err *e)
{
	struct mailimap_fetch_type *ft = fetch_type(body);
	int r;

	*list = NULL;
	r = mailimap_uid_fetch(src->imap, set, ft, list);
	mailimap_fetch_type_free(ft);
	mailimap_set_free(set);
	absorb_flags(src);
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "UID FETCH", e);
	return 0;
}

/* The highest UID of the folder, 0 when it is empty.  "UID SEARCH UID *"
 * answers with one number (or none), whatever the folder's size. */
static int highest_uid(struct imap_source *src, uint32_t *top, struct err *e)
{
	struct mailimap_search_key *key = mailimap_search_key_new_uid(mailimap_set_new_single(0));
	clist *res = NULL;
	int r = mailimap_uid_search(src->imap, NULL, key, &res);

	mailimap_search_key_free(key);
	absorb_flags(src);
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "UID SEARCH", e);
	*top = 0;
	for (clistiter *c = clist_begin(res); c; c = clist_next(c)) {
		uint32_t *u = clist_content(c);

		if (*u > *top)
			*top = *u;
	}
	mailimap_search_result_free(res);
	return 0;
}

/*
 * The bodies of a UID FETCH as libetpan reads them, through its body
 * handler, a chunk at a time: without it a literal is allocated whole at
 * the size the server announces, before a byte of it came.  Each body is
 * kept up to max_message bytes and counted past that; all the bodies of one
 * FETCH are kept up to budget bytes together (the sizes the server gave
 * first made the batch; one that sends more than it said gets its
 * surplus messages handed out as not delivered, asked for again later).
 */
struct body {
	const void *section;	/* libetpan's body section: which attribute */
	struct buf data;	/* owned; capped at max_message */
	uint64_t seen;		/* bytes the server sent */
	bool dropped;		/* past the budget: not kept */
};

struct body_sink {
	struct body *v;		/* owned */
	size_t n, alloc;
	size_t max, budget;	/* bytes of one body; of all kept */
	size_t kept;
};

static void sink_init(struct body_sink *k, size_t max, size_t budget)
{
	memset(k, 0, sizeof(*k));
	k->max = max;
	k->budget = budget;
}

static void sink_release(struct body_sink *k)
{
	for (size_t i = 0; i < k->n; i++)
		buf_release(&k->v[i].data);
	free(k->v);
	memset(k, 0, sizeof(*k));
}

/* The body read for section, or NULL. */
static const struct body *sink_find(const struct body_sink *k, const void *section)
{
	for (size_t i = k->n; i-- > 0;)
		if (k->v[i].section == section)
			return &k->v[i];
	return NULL;
}

/* Drops what b kept, memory and all: it is too large or past the budget,
 * and nothing is added to it again. */
static void body_drop(struct body_sink *k, struct body *b)
{
	k->kept -= b->data.len;
	buf_release(&b->data);
	buf_init(&b->data, 1);
}

/* libetpan's mailimap_msg_body_handler: one chunk of a body section. */
static bool body_chunk(int type, struct mailimap_msg_att_body_section *section,
		       const char *bytes, size_t len, void *ctx)
{
	struct body_sink *k = ctx;
	struct body *b = k->n ? &k->v[k->n - 1] : NULL;

	(void)type;
	if (!b || b->section != section) {
		ARRAY_GROW(k->v, k->alloc, k->n + 1);
		b = &k->v[k->n++];
		memset(b, 0, sizeof(*b));
		b->section = section;
		buf_init(&b->data, k->max);
	}
	b->seen += len;
	if (b->seen > k->max || b->dropped) {
		body_drop(k, b);
		return true;	/* read past, never held: the session stays in step */
	}
	if (k->kept + len > k->budget) {
		b->dropped = true;
		body_drop(k, b);
		return true;
	}
	if (buf_add(&b->data, bytes, len) < 0) {
		body_drop(k, b);
		b->dropped = true;
		return true;
	}
	k->kept += len;
	return true;
}

/* A UID FETCH of bodies into sink k (libetpan's literals stay empty). */
static int uid_fetch_bodies(struct imap_source *src, struct mailimap_set *set,
			    struct body_sink *k, clist **list, struct err *e)
{
	int rc;

	mailimap_set_msg_body_handler(src->imap, body_chunk, k);
	rc = uid_fetch(src, set, true, list, e);
	mailimap_set_msg_body_handler(src->imap, NULL, NULL);
	return rc;
}

/* What became of the message it asked for, from its body's fate. */
static void outcome(const struct body_sink *k, const struct msg_item *got,
		    struct imap_msg *m)
{
	const struct body *b = got ? sink_find(k, got->section) : NULL;

	if (!got) {
		m->state = IMAP_MSG_MISSING;
		m->why = "the server's UID FETCH answer left it out";
	} else if (b && b->seen > k->max) {
		m->state = IMAP_MSG_TOO_LARGE;
		m->len = b->seen;
	} else if (b && b->dropped) {
		m->state = IMAP_MSG_MISSING;
		m->why = "the server sent more than the sizes it gave: left for another fetch";
	} else {
		m->state = IMAP_MSG_OK;
		m->raw = b ? b->data.data : "";
		m->len = b ? b->data.len : 0;
	}
}

/* Where a fetch hands out its messages, one call of fn(arg, m, e) each. */
struct handout {
	imap_fetch_fn *fn;
	void *arg;
};

/*
 * Bodies of v[0..n) (all within max_message by the sizes the server gave)
 * in one UID FETCH, handed out in UID order: each one asked for, also one
 * the answer left out (IMAP_MSG_MISSING) or that turned out too large.
 * Returns what fn returned, or -1.
 */
static int fetch_bodies(struct imap_source *src, const struct msg_item *v, size_t n,
			const struct handout *to, struct err *e)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	struct item_list got = { NULL, 0, 0 };
	struct body_sink k;
	clist *list;
	size_t g = 0;
	int rc = 0;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].uid == v[j - 1].uid + 1; j++)
			;
		mailimap_set_add_interval(set, v[i].uid, v[j - 1].uid);
	}
	src->st.body_fetches++;
	sink_init(&k, src->max_message, IMAP_BATCH_BYTES + src->max_message);
	if (uid_fetch_bodies(src, set, &k, &list, e) < 0) {
		sink_release(&k);
		return -1;
	}
	collect(list, v[0].uid, v[n - 1].uid, true, &got);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct imap_msg m = { v[i].uid, IMAP_MSG_OK, NULL, 0, NULL };

		while (g < got.n && got.v[g].uid < v[i].uid)
			g++;
		outcome(&k, g < got.n && got.v[g].uid == v[i].uid ? &got.v[g] : NULL, &m);
		if (m.state == IMAP_MSG_OK) {
			src->st.messages++;
			src->st.bytes += m.len;
		}
		rc = to->fn(to->arg, &m, e);
	}
	free(got.v);
	mailimap_fetch_list_free(list);
	sink_release(&k);
	return rc;
}

/* How many of v[0..n) go into the next body FETCH: up to batch messages
 * and IMAP_BATCH_BYTES, always at least one, none over max_message. */
static size_t next_batch(const struct imap_source *src, const struct msg_item *v, size_t n)
{
	size_t k = 0, bytes = 0;

	while (k < n && k < src->batch && v[k].size <= src->max_message &&
	       (k == 0 || bytes + v[k].size <= IMAP_BATCH_BYTES))
		bytes += v[k++].size;
	return k;
}

/*
 * The UIDs and sizes of [lo, *hi]: from the window learnt last when it
 * holds lo (*hi is then cut to its end), else in one FETCH.  A caller that
 * stops after each batch to commit asks again from the next UID: without
 * this it would fetch the sizes of a whole IMAP_UID_WINDOW per batch.  A
 * window stays true: UIDs only grow (new mail is above it), sizes never
 * change, and an expunged message's body is simply not returned.
 */
static int window_sizes(struct imap_source *src, uint32_t lo, uint32_t *hi, size_t *from,
			struct err *e)
{
	if (src->nwin && lo >= src->win_lo && lo <= src->win_hi) {
		if (*hi > src->win_hi)
			*hi = src->win_hi;
	} else {
		struct item_list items = { src->win, 0, src->awin };
		clist *list;

		src->nwin = 0;
		if (uid_fetch(src, mailimap_set_new_interval(lo, *hi), false, &list, e) < 0)
			return -1;
		collect(list, lo, *hi, false, &items);
		mailimap_fetch_list_free(list);
		src->win = items.v;
		src->nwin = items.n;
		src->awin = items.alloc;
		src->win_lo = lo;
		src->win_hi = *hi;
	}
	for (*from = 0; *from < src->nwin && src->win[*from].uid < lo; ++*from)
		;
	return 0;
}

/* The bodies of v[0..n), whose sizes are known, batch by batch. */
static int fetch_items(struct imap_source *src, const struct msg_item *v, size_t n,
		       const struct handout *to, struct err *e)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i += k) {
		k = next_batch(src, v + i, n - i);
		if (k) {
			rc = fetch_bodies(src, v + i, k, to, e);
		} else {
			/* Too large to fetch: the caller hears of it and skips it. */
			struct imap_msg m = { v[i].uid, IMAP_MSG_TOO_LARGE, NULL, v[i].size, NULL };

			k = 1;
			rc = to->fn(to->arg, &m, e);
		}
	}
	return rc;
}

/* Messages with UIDs in [lo, *hi] (*hi may be cut): sizes, then bodies. */
static int fetch_window(struct imap_source *src, uint32_t lo, uint32_t *hi,
			const struct handout *to, struct err *e)
{
	size_t i, n;

	if (window_sizes(src, lo, hi, &i, e) < 0)
		return -1;
	for (n = i; n < src->nwin && src->win[n].uid <= *hi; n++)
		;
	return fetch_items(src, src->win + i, n - i, to, e);
}

/* The highest UID now: what the mail announced so far amounts to. */
static int look(struct imap_source *src, uint32_t *top, struct err *e)
{
	src->pending = false;
	clear_flags(src);
	if (highest_uid(src, top, e) < 0)
		return -1;
	if ((uint64_t)*top + 1 > src->known_uidnext)
		src->known_uidnext = (uint64_t)*top + 1;
	return 0;
}

/* The messages with UIDs in [first, last], window by window. */
static int fetch_range(struct imap_source *src, uint32_t first, uint32_t last,
		       const struct handout *to, struct err *e)
{
	int rc = 0;

	for (uint64_t lo = first ? first : 1; lo <= last && rc == 0; ) {
		uint64_t end = lo + IMAP_UID_WINDOW - 1;
		uint32_t hi = end < last ? (uint32_t)end : last;

		rc = fetch_window(src, (uint32_t)lo, &hi, to, e);
		lo = (uint64_t)hi + 1;
	}
	return rc < 0 ? -1 : 0;
}

static int fetch_from(struct imap_source *src, uint32_t first, const struct handout *to,
		      struct err *e)
{
	uint32_t top = 0;

	if (look(src, &top, e) < 0)
		return -1;
	return fetch_range(src, first, top, to, e);
}

/* The checks the entry points of a fetch make, then the session is the
 * fetch's until fetch_end(); who names the entry point. */
static int fetch_begin(struct imap_source *src, const char *who, struct net_guard *g,
		       struct err *e)
{
	if (alive(src, e) < 0)
		return -1;
	if (src->fetching)	/* it would reuse the window being handed out */
		return fail(src, ERR_FINAL, e, "%s called from a fetch's callback", who);
	src->fetching = true;
	net_guard_enter(g);
	return 0;
}

static void fetch_end(struct imap_source *src, struct net_guard *g)
{
	net_guard_leave(g);
	src->fetching = false;
}

int imap_fetch_from(struct imap_source *src, uint32_t first_uid, imap_fetch_fn *fn,
		    void *arg, struct err *e)
{
	const struct handout to = { fn, arg };
	struct net_guard g;
	int rc;

	if (fetch_begin(src, "imap_fetch_from", &g, e) < 0)
		return -1;
	rc = fetch_from(src, first_uid, &to, e);
	fetch_end(src, &g);
	return rc;
}

int imap_fetch_range(struct imap_source *src, uint32_t first_uid, uint32_t last_uid,
		     imap_fetch_fn *fn, void *arg, struct err *e)
{
	const struct handout to = { fn, arg };
	struct net_guard g;
	int rc;

	if (!last_uid || last_uid < first_uid)
		return 0;
	if (fetch_begin(src, "imap_fetch_range", &g, e) < 0)
		return -1;
	rc = fetch_range(src, first_uid, last_uid, &to, e);
	fetch_end(src, &g);
	return rc;
}

int imap_top_uid(struct imap_source *src, uint32_t *top, struct err *e)
{
	struct net_guard g;
	int rc;

	*top = 0;
	if (alive(src, e) < 0)
		return -1;
	if (src->fetching)
		return fail(src, ERR_FINAL, e, "imap_top_uid called from a fetch's callback");
	net_guard_enter(&g);
	rc = look(src, top, e);
	net_guard_leave(&g);
	return rc;
}

/* The sizes of uids[0..n) (ascending), then their bodies; a UID the folder
 * does not answer for is handed out as not delivered. */
static int fetch_uids(struct imap_source *src, const uint32_t *uids, size_t n,
		      const struct handout *to, struct err *e)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	struct item_list items = { NULL, 0, 0 }, have = { NULL, 0, 0 };
	clist *list;
	size_t g = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		mailimap_set_add_single(set, uids[i]);
	if (uid_fetch(src, set, false, &list, e) < 0)
		return -1;
	collect(list, uids[0], uids[n - 1], false, &items);
	mailimap_fetch_list_free(list);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct imap_msg m = { uids[i], IMAP_MSG_MISSING, NULL, 0,
				      "the folder has no such UID now" };

		while (g < items.n && items.v[g].uid < uids[i])
			g++;
		if (g < items.n && items.v[g].uid == uids[i]) {
			ARRAY_GROW(have.v, have.alloc, have.n + 1);
			have.v[have.n++] = items.v[g];
		} else {
			rc = to->fn(to->arg, &m, e);
		}
	}
	if (rc == 0 && have.n)
		rc = fetch_items(src, have.v, have.n, to, e);
	free(items.v);
	free(have.v);
	return rc < 0 ? -1 : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int imap_fetch_uids(struct imap_source *src, const uint32_t *uids, size_t n, imap_fetch_fn *fn,
		    void *arg, struct err *e)
{
	const struct handout to = { fn, arg };
	uint32_t *v;
	struct net_guard g;
	size_t k = 0;
	int rc;

	if (alive(src, e) < 0)
		return -1;
	if (src->fetching)
		return fail(src, ERR_FINAL, e, "imap_fetch_uids called from a fetch's callback");
	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (uids[i])
			v[k++] = uids[i];
	qsort(v, k, sizeof(*v), cmp_u32);
	n = k;
	for (size_t i = k = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	rc = 0;
	if (k) {
		src->fetching = true;
		net_guard_enter(&g);
		rc = fetch_uids(src, v, k, &to, e);
		net_guard_leave(&g);
		src->fetching = false;
	}
	free(v);
	return rc;
}

/* --- waiting -------------------------------------------------------------- */

enum wake {
	WAKE_DATA,
	WAKE_TIMEOUT,
	WAKE_SIGNAL
};

/* The sleep of one IDLE. */
struct idle_sleep {
	const sigset_t *mask;	/* the signal mask while asleep */
	double deadline;	/* now_s() when it ends */
	unsigned long sig0;	/* net_stream_signals() when it began: a signal a
				 * read took while the stream waited for the
				 * server counts as one for this sleep, which
				 * would otherwise sleep through it */
};

static int wait_readable(struct imap_source *src, const struct idle_sleep *sl, enum wake *w,
			 struct err *e)
{
	struct pollfd p = { .fd = mailimap_idle_get_fd(src->imap), .events = POLLIN };
	struct timespec ts;
	double left;
	int r = 0;

	if (net_stream_signals(src->imap->imap_stream) != sl->sig0) {
		*w = WAKE_SIGNAL;
		return 0;
	}

	/* libetpan (or TLS) may have read ahead: that line is waiting already. */
	if (net_stream_pending(src->imap->imap_stream)) {
		*w = WAKE_DATA;
		return 0;
	}
	while (r == 0 && (left = sl->deadline - now_s()) > 0) {
		ts = to_timespec(left);
		r = ppoll(&p, 1, &ts, sl->mask);
	}
	if (r < 0 && errno == EINTR)
		*w = WAKE_SIGNAL;
	else if (r < 0)
		return fail(src, ERR_TEMP, e, "poll: %s", strerror(errno));
	else
		*w = r > 0 ? WAKE_DATA : WAKE_TIMEOUT;
	return 0;
}

/* Reads and drops a literal announced at the end of an untagged line. */
static int skip_literal(struct imap_source *src, const char *line, struct err *e)
{
	const char *end = line + strlen(line);
	char chunk[4096];
	size_t n;

	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == line || end[-1] != '}')
		return 0;
	for (--end; end > line && end[-1] >= '0' && end[-1] <= '9'; end--)
		;
	if (end == line || end[-1] != '{')
		return 0;
	n = strtoul(end, NULL, 10);
	if (n > IDLE_LITERAL_MAX)
		return fail(src, ERR_TEMP, e, "IDLE: %zu-byte literal from the server", n);
	while (n > 0) {
		ssize_t k = mailstream_read(src->imap->imap_stream, chunk,
					    n < sizeof(chunk) ? n : sizeof(chunk));

		if (k <= 0)
			return lost(src, "IDLE", e);
		n -= (size_t)k;
	}
	return 0;
}

/*
 * One line the server sent while we idle.  Read here rather than by
 * libetpan, which would only parse it after DONE: "* n EXISTS" and
 * "* n RECENT" are new mail, "* BYE" the end, our tag an IDLE the server
 * ended itself.  Keepalives ("* OK Still here") and flag updates are dropped.
 */
static int idle_line(struct imap_source *src, bool *mail, bool *ended, struct err *e)
{
	char tag[16], text[NET_TEXT_MAX + 1];
	const char *line = mailimap_read_line(src->imap), *p;
	size_t tl;

	if (!line)
		return lost(src, "IDLE", e);
	tl = (size_t)snprintf(tag, sizeof(tag), "%d ", src->imap->imap_tag);
	if (!strncmp(line, tag, tl)) {
		*ended = true;
		return 0;
	}
	if (strncmp(line, "* ", 2))
		return skip_literal(src, line, e);
	if (!strncasecmp(line + 2, "BYE", 3)) {
		snprintf(text, sizeof(text), "%s", line + 2);
		text[strcspn(text, "\r\n")] = '\0';
		return fail(src, ERR_TEMP, e, "server closed the session: %s", text);
	}
	for (p = line + 2; *p >= '0' && *p <= '9'; p++)
		;
	if (p > line + 2 && (!strncasecmp(p, " EXISTS", 7) || !strncasecmp(p, " RECENT", 7)))
		*mail = true;
	return skip_literal(src, line, e);
}

static int wait_idle(struct imap_source *src, const sigset_t *mask, int max_s, bool *activity,
		     struct err *e)
{
	const struct idle_sleep sl = {
		mask, now_s() + max_s, net_stream_signals(src->imap->imap_stream),
	};
	bool mail = false, ended = false;
	enum wake w = WAKE_DATA;
	int r = mailimap_idle(src->imap);

	src->st.idles++;
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "IDLE", e);
	while (!mail && !ended) {
		if (wait_readable(src, &sl, &w, e) < 0)
			return -1;
		if (w != WAKE_DATA)
			break;
		if (idle_line(src, &mail, &ended, e) < 0)
			return -1;
	}
	/* The moment the server announced it: bench/daemon pairs it with the APPEND. */
	if (mail)
		log_msg(LOGL_DEBUG, "imap: %s: IDLE: new mail announced", src->where);
	if (!ended && (r = mailimap_idle_done(src->imap)) != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "IDLE (DONE)", e);
	absorb_flags(src);
	*activity = mail || src->pending;
	src->pending = false;
	return 0;
}

static int wait_poll(struct imap_source *src, const sigset_t *mask, int max_s, bool *activity,
		     struct err *e)
{
	struct timespec ts = to_timespec(max_s);
	int r;

	if (ppoll(NULL, 0, &ts, mask) < 0 && errno == EINTR)
		return 0;
	r = mailimap_noop(src->imap);
	absorb_flags(src);
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "NOOP", e);
	*activity = src->pending;
	src->pending = false;
	return 0;
}

int imap_wait(struct imap_source *src, int max_s, bool *activity, struct err *e)
{
	struct net_guard g;
	sigset_t mask;
	int rc;

	*activity = false;
	if (alive(src, e) < 0)
		return -1;
	absorb_flags(src);
	if (src->pending) {
		src->pending = false;
		*activity = true;
		return 0;
	}
	if (max_s <= 0 || max_s > src->idle_max_s)
		max_s = src->idle_max_s;
	net_guard_enter(&g);
	sleep_mask(src, &g, &mask);
	if (src->has_idle && src->use_idle)
		rc = wait_idle(src, &mask, max_s, activity, e);
	else
		rc = wait_poll(src, &mask, max_s, activity, e);
	net_guard_leave(&g);
	return rc;
}

/* --- flags, APPEND, SEARCH ------------------------------------------------ */

static int mark_seen(struct imap_source *src, uint32_t uid, struct err *e)
{
	struct mailimap_flag_list *fl = mailimap_flag_list_new_empty();
	struct mailimap_store_att_flags *att;
	struct mailimap_set *set = mailimap_set_new_single(uid);
	int r;

	mailimap_flag_list_add(fl, mailimap_flag_new_seen());
	att = mailimap_store_att_flags_new_add_flags_silent(fl);
	r = mailimap_uid_store(src->imap, set, att);
	mailimap_store_att_flags_free(att);
	mailimap_set_free(set);
	absorb_flags(src);
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "UID STORE", e);
	return 0;
}

int imap_mark_seen(struct imap_source *src, uint32_t uid, struct err *e)
{
	struct net_guard g;
	int rc;

	if (alive(src, e) < 0)
		return -1;
	if (!src->mark_seen)
		return fail(src, ERR_FINAL, e, "folder %s is open read-only (mark_seen = no)",
			    src->folder);
	if (!uid)
		return fail(src, ERR_FINAL, e, "UID 0 does not exist");
	net_guard_enter(&g);
	rc = mark_seen(src, uid, e);
	net_guard_leave(&g);
	return rc;
}

static int append(struct imap_source *src, const char *folder, const char *raw, size_t len,
		  bool seen, struct err *e)
{
	struct mailimap_flag_list *fl = NULL;
	int r;

	if (seen) {
		fl = mailimap_flag_list_new_empty();
		mailimap_flag_list_add(fl, mailimap_flag_new_seen());
	}
	r = mailimap_append(src->imap, folder, fl, NULL, raw, len);
	if (fl)
		mailimap_flag_list_free(fl);
	absorb_flags(src);
	if (r == MAILIMAP_ERROR_APPEND) {
		char text[NET_TEXT_MAX + 1];

		return fail(src, ERR_FINAL, e, "APPEND to %s refused: %s", folder,
			    server_text(src, text, sizeof(text)));
	}
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "APPEND", e);
	return 0;
}

int imap_append(struct imap_source *src, const char *folder, const char *raw, size_t len,
		bool seen, struct err *e)
{
	struct net_guard g;
	int rc;

	if (alive(src, e) < 0)
		return -1;
	if (!safe_name(folder, true))
		return fail(src, ERR_FINAL, e, "APPEND: folder names must be printable ASCII");
	if (!len || memchr(raw, '\0', len) || len > IMAP_MESSAGE_MAX)
		return fail(src, ERR_FINAL, e, "APPEND to %s: empty, too large or holds a NUL",
			    folder);
	net_guard_enter(&g);
	rc = append(src, folder, raw, len, seen, e);
	net_guard_leave(&g);
	return rc;
}

/* The lowest UID of the selected folder whose Message-ID is bracketed;
 * 0: none. */
static int search_lowest(struct imap_source *src, const char *bracketed, uint32_t *uid,
			 struct err *e)
{
	struct mailimap_search_key *key =
		mailimap_search_key_new_header(xstrdup("Message-ID"), xstrdup(bracketed));
	clist *res = NULL;
	int r = mailimap_uid_search(src->imap, NULL, key, &res);

	mailimap_search_key_free(key);
	if (r != MAILIMAP_NO_ERROR)
		return etpan_fail(src, r, "UID SEARCH", e);
	*uid = 0;
	for (clistiter *c = clist_begin(res); c; c = clist_next(c)) {
		uint32_t *u = clist_content(c);

		if (!*uid || *u < *uid)
			*uid = *u;
	}
	mailimap_search_result_free(res);
	return 0;
}

static int search_msgid(struct imap_source *src, const char *bracketed, bool *found,
			struct err *e)
{
	uint32_t uid = 0;
	int rc = search_lowest(src, bracketed, &uid, e);

	*found = uid != 0;
	return rc;
}

/* msgid as a SEARCH HEADER argument, "<id>" in out (IMAP_NAME_MAX + 3
 * bytes): with the brackets, the server's substring match is an exact
 * one. */
static int bracket_msgid(struct imap_source *src, const char *msgid, char *out,
			 struct err *e)
{
	size_t n;

	if (!msgid)
		msgid = "";
	msgid += strspn(msgid, " \t<");
	n = strcspn(msgid, ">");
	snprintf(out, IMAP_NAME_MAX + 3, "<%.*s>", (int)(n <= IMAP_NAME_MAX ? n : 0), msgid);
	if (!n || n > IMAP_NAME_MAX || !safe_name(out, false))
		return fail(src, ERR_FINAL, e, "not a Message-ID to search for");
	return 0;
}

static int find_msgid(struct imap_source *src, const char *folder, const char *bracketed,
		      bool *found, struct err *e)
{
	int rc;

	if (!strcmp(folder, src->folder)) {
		rc = search_msgid(src, bracketed, found, e);
		absorb_flags(src);
		return rc;
	}
	rc = select_folder(src, folder, false, e);
	if (rc == 0)
		rc = search_msgid(src, bracketed, found, e);
	/* Back to the watched folder even when the other one failed. */
	if (!src->dead && select_watched(src, true, e) < 0)
		rc = -1;
	return rc;
}

int imap_find_msgid(struct imap_source *src, const char *folder, const char *msgid,
		    bool *found, struct err *e)
{
	char bracketed[IMAP_NAME_MAX + 3];
	struct net_guard g;
	int rc;

	*found = false;
	if (alive(src, e) < 0)
		return -1;
	if (!safe_name(folder, true))
		return fail(src, ERR_FINAL, e, "folder names must be printable ASCII");
	if (bracket_msgid(src, msgid, bracketed, e) < 0)
		return -1;
	net_guard_enter(&g);
	rc = find_msgid(src, folder, bracketed, found, e);
	net_guard_leave(&g);
	return rc;
}

/* --- one message by Message-ID (maintainer Cc mode) ----------------------- */

/* search_lowest() in the watched folder, taking in what the server said
 * of it meanwhile. */
static int search_first(struct imap_source *src, const char *bracketed, uint32_t *uid,
			struct err *e)
{
	int rc = search_lowest(src, bracketed, uid, e);

	absorb_flags(src);
	return rc;
}

/* uid's size, then (within max_message, read so whatever the server
 * sends) its body into out. */
static int fetch_one(struct imap_source *src, uint32_t uid, struct buf *out, bool *found,
		     struct err *e)
{
	struct item_list got = { NULL, 0, 0 };
	struct imap_msg m = { uid, IMAP_MSG_OK, NULL, 0, NULL };
	struct body_sink k;
	clist *list;
	int rc = 0;

	if (uid_fetch(src, mailimap_set_new_single(uid), false, &list, e) < 0)
		return -1;
	collect(list, uid, uid, false, &got);
	mailimap_fetch_list_free(list);
	if (got.n != 1 || got.v[0].size > src->max_message) {
		free(got.v);
		return 0;	/* gone meanwhile, or too large: not found */
	}
	sink_init(&k, src->max_message, src->max_message);
	if (uid_fetch_bodies(src, mailimap_set_new_single(uid), &k, &list, e) < 0) {
		sink_release(&k);
		free(got.v);
		return -1;
	}
	collect(list, uid, uid, true, &got);
	outcome(&k, got.n == 1 ? &got.v[0] : NULL, &m);
	if (m.state == IMAP_MSG_OK) {
		buf_reset(out);
		if (buf_add(out, m.raw, m.len) < 0)
			rc = fail(src, ERR_FINAL, e, "UID %u: larger than the buffer", uid);
		else
			*found = true;
	}
	free(got.v);
	mailimap_fetch_list_free(list);
	sink_release(&k);
	return rc;
}

int imap_fetch_msgid(struct imap_source *src, const char *msgid, struct buf *out, bool *found,
		     struct err *e)
{
	char bracketed[IMAP_NAME_MAX + 3];
	struct net_guard g;
	uint32_t uid = 0;
	int rc;

	*found = false;
	if (alive(src, e) < 0 || bracket_msgid(src, msgid, bracketed, e) < 0)
		return -1;
	net_guard_enter(&g);
	rc = search_first(src, bracketed, &uid, e);
	if (rc == 0 && uid)
		rc = fetch_one(src, uid, out, found, e);
	net_guard_leave(&g);
	return rc;
}
