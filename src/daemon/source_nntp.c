/*
 * source_nntp.c - the NNTP source driver (source.h): the groups of [source] groups (names,
 * and wildmats listed again at every poll, so a group the server adds is
 * followed from then on), each with its own checkpoint by article number.
 *
 * A poll of a group: GROUP (its low and high water marks; marks that went
 * back below the checkpoint are a renumbering, taken as IMAP takes a new
 * UIDVALIDITY: daemon_folder_start()), then XOVER from the checkpoint on in
 * windows of NNTP_OVER_WINDOW; an article whose overview Message-ID the
 * store knows is passed over without fetching it, the others are fetched
 * (ARTICLE) and handed to the daemon, also one the server then says it
 * has not (423: asked for again, daemon_unread.c) or larger than
 * max_message_size (read past).  Before the overview, the articles not
 * delivered at earlier polls whose retry is due are asked for again.  A
 * group has DAEMON_NNTP_POLL_MAX
 * articles of a poll; the rest waits for the next round, after the other
 * groups and sources had theirs.  NNTP has no IDLE: poll_interval.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_p.h"
#include "config/secret.h"
#include "lib/log.h"
#include "transport/nntp_source.h"

/* Articles one poll looks at in one group before the next group and the
 * other sources have their turn (the rest comes at the next round). */
#define DAEMON_NNTP_POLL_MAX	(5 * NNTP_OVER_WINDOW)

struct nntp_src {
	struct source s;		/* first: the base */
	struct nntp_source *nntp;	/* owned; NULL while disconnected */
};

static struct nntp_src *nntp_of(const struct source *s)
{
	return SOURCE_DRIVER(s, struct nntp_src);
}

static struct nntp_source *conn_of(const struct source *s)
{
	return nntp_of(s)->nntp;
}

static int nntp_open_source(struct source *s, struct err *e)
{
	const struct config_source *c = s->c;
	struct nntp_settings ns;
	char *password = NULL;
	int rc;

	if (c->user && secret_get(c->password_file, c->password_command, &password, e) < 0)
		return err_prefix(e, "%s", s->label);
	nntp_settings_init(&ns);
	ns.host = c->host;
	ns.port = c->port;
	ns.tls = daemon_tls_of(c->tls, NET_TLS_IMPLICIT);
	ns.ca_file = c->ca_file;
	ns.user = c->user;
	ns.password = password;
	ns.timeout_s = c->timeout;
	ns.wait_sigmask = s->env->wait_mask;
	ns.stop = s->env->stop;
	ns.max_message = (size_t)c->max_message_size;
	rc = nntp_open(&nntp_of(s)->nntp, &ns, e);
	secret_free(password);
	return rc;
}

static bool nntp_connected(const struct source *s)
{
	return conn_of(s) != NULL;
}

static void nntp_close_source(struct source *s)
{
	struct nntp_src *m = nntp_of(s);

	nntp_close(m->nntp);
	m->nntp = NULL;
}

/* The folder of group name, made (in name order) on its first sight
 * (*fresh). */
static struct folder *group_of(struct source *s, const char *name, bool *fresh)
{
	size_t lo = 0, hi = s->ngroups;
	struct folder *f;

	*fresh = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->groups[mid]->name, name);

		if (!c)
			return s->groups[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	ARRAY_GROW(s->groups, s->agroups, s->ngroups + 1);
	memmove(s->groups + lo + 1, s->groups + lo, (s->ngroups - lo) * sizeof(*s->groups));
	f = xcalloc(1, sizeof(*f));
	f->name = xstrdup(name);
	s->groups[lo] = f;
	s->ngroups++;
	*fresh = true;
	return f;
}

/* One group's walk over its overview. */
struct walk {
	struct source *s;
	const struct source_cb *cb;
	bool stop;		/* SOURCE_STOP: a stop was asked for */
	size_t passed;		/* articles the store knew: not fetched */
};

/* An article as it is handed to take(): its origin and bytes. */
struct article {
	struct origin o;
	const char *raw;	/* NULL: not read, o.unread says why */
	size_t len;
};

/* What to hand the daemon for overview line ov: the article, or no bytes
 * and why in a->o. */
static int fetch(struct walk *w, const struct nntp_over *ov, struct article *a, struct err *e)
{
	size_t max = (size_t)w->s->c->max_message_size;
	enum nntp_article_state st;

	a->raw = NULL;
	a->len = 0;
	a->o.unread = UNREAD_TOO_LARGE;
	a->o.size = ov->bytes;
	if (ov->bytes > max)
		return 0;	/* not fetched: the overview says it is too large */
	if (nntp_article(conn_of(w->s), ov->num, &a->raw, &a->len, &st, e) < 0)
		return -1;
	if (st == NNTP_ARTICLE_TOO_LARGE)
		a->o.size = a->len;
	if (st == NNTP_ARTICLE_GONE) {
		a->o.unread = UNREAD_MISSING;
		a->o.why = "the server answered ARTICLE with no such article";
	}
	if (st != NNTP_ARTICLE_OK)
		a->len = 0;
	return 0;
}

static int over_line(void *arg, const struct nntp_over *ov, struct err *e)
{
	struct walk *w = arg;
	const struct source_env *env = w->s->env;
	struct folder *f = w->s->f;
	struct article a = { .o = { ov->num, NULL, UNREAD_ERROR, NULL, 0 } };
	bool known = false;
	int rc;

	if (ov->msgid && env->known(env->aux, ov->msgid, &known, e) < 0)
		return -1;
	if (known) {
		w->passed++;
		if (ov->num > f->cp.last_uid)	/* stored with the next one handled */
			f->cp.last_uid = ov->num;
		return 0;
	}
	if (fetch(w, ov, &a, e) < 0)
		return -1;
	rc = w->cb->take(w->cb->aux, &a.o, a.raw, a.len, e);
	if (rc == SOURCE_FULL)
		rc = w->cb->end(w->cb->aux, e);
	if (rc < 0)
		return -1;
	w->stop = rc == SOURCE_STOP;
	return w->stop ? 1 : 0;
}

/* The articles of f not delivered before whose retry is due, each asked
 * for again. */
static int retries(struct walk *w, struct folder *f, struct err *e)
{
	uint32_t *nums;
	size_t n;
	int rc = 0;

	if (daemon_retries_load(w->s, f, e) < 0)
		return -1;
	daemon_retries_poll(f);
	n = daemon_retries_due(f, daemon_source_now(w->s), &nums);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct nntp_over ov = { nums[i], NULL, 0 };

		rc = over_line(w, &ov, e);
	}
	free(nums);
	return rc;
}

/* The group's checkpoint where the walk got to, when only articles that
 * were passed over moved it. */
static int keep_place(struct source *s, struct folder *f, struct err *e)
{
	const struct source_env *env = s->env;
	struct store_folder where = { s->id, f->name };
	struct store_checkpoint cp = f->cp;

	cp.last_uid = env->hold(env->aux, cp.last_uid);	/* not past an article owed */
	if (cp.last_uid == f->cp_committed.last_uid)
		return 0;
	if (store_checkpoint_set(env->st, &where, &cp, e) < 0)
		return -1;
	f->cp_committed = cp;
	return 0;
}

/* Up to DAEMON_NNTP_POLL_MAX articles of group f from its checkpoint on. */
static int poll_group(struct source *s, struct folder *f, const struct source_cb *cb,
		      struct err *e)
{
	struct walk w = { s, cb, false, 0 };
	struct nntp_source *nntp = conn_of(s);
	struct folder_numbers num = { RENUMBER_MARKS, 0, 0, 0 };
	struct nntp_group g;
	uint32_t from, end;
	size_t ignored = 0;
	int rc = 0, done;

	if (nntp_group(nntp, f->name, &g, e) < 0)
		return -1;
	s->f = f;
	num.valid = num.first = g.low;
	num.next = g.high == UINT32_MAX ? g.high : g.high + 1;
	if (daemon_folder_start(s, f, &num, e) < 0)
		return -1;
	rc = retries(&w, f, e);
	from = f->cp.last_uid + 1;
	end = g.high;
	if (from <= end && end - from >= DAEMON_NNTP_POLL_MAX) {
		end = from + DAEMON_NNTP_POLL_MAX - 1;
		s->more = true;
	}
	while (rc == 0 && from && from <= end && !w.stop) {
		uint32_t to = end - from >= NNTP_OVER_WINDOW ? from + NNTP_OVER_WINDOW - 1 : end;

		rc = nntp_overview(nntp, from, to, over_line, &w, &ignored, e);
		/* numbers of the window without a line are gaps */
		if (rc == 0 && !w.stop && to > f->cp.last_uid)
			f->cp.last_uid = to;
		from = to + 1;
	}
	/* What was handled before a lost connection is kept. */
	done = cb->end(cb->aux, rc < 0 ? NULL : e);
	if (rc < 0 || done < 0 || keep_place(s, f, e) < 0)
		return -1;
	if (ignored)
		log_msg(LOGL_WARNING, "%s group %s: %zu overview lines outside the range asked for "
			"(or repeated): ignored", s->label, f->name, ignored);
	if (w.passed)
		log_msg(LOGL_DEBUG, "%s group %s: %zu articles known from another source or "
			"an earlier run, not fetched", s->label, f->name, w.passed);
	return w.stop || done == SOURCE_STOP ? SOURCE_STOP : 0;
}

/* The groups as the server lists them now, each polled in name order.  A
 * group the server does not have is logged and left for the next poll. */
static int nntp_poll(struct source *s, const struct source_cb *cb, struct err *e)
{
	char **names = NULL;
	size_t n = 0;
	bool truncated;
	int rc = 0;

	s->more = false;
	if (nntp_list_groups(conn_of(s), (const char *const *)s->c->groups.v, s->c->groups.n,
			     &names, &n, &truncated, e) < 0)
		return -1;
	if (truncated && !s->ngroups)
		log_msg(LOGL_WARNING, "%s: groups match more than %d groups; following the first "
			"%d by name", s->label, NNTP_GROUPS_MAX, NNTP_GROUPS_MAX);
	if (!n && !s->ngroups)
		log_msg(LOGL_WARNING, "%s: no group matches groups = yet", s->label);
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool fresh;
		struct folder *f = group_of(s, names[i], &fresh);

		if (fresh)
			log_msg(LOGL_INFO, "%s: following group %s", s->label, f->name);
		rc = poll_group(s, f, cb, e);
		if (rc < 0 && e->cls == ERR_FINAL && conn_of(s)) {
			log_msg(LOGL_WARNING, "%s %s; trying again at the next poll", s->label,
				e->msg);
			err_init(e);
			rc = 0;
		}
	}
	nntp_names_free(names);
	s->f = &s->one;
	return rc == SOURCE_STOP ? 0 : rc;
}

/* NNTP has no IDLE, no seen flags, no search by Message-ID: the daemon
 * asks a group for nothing but its articles. */
const struct source_ops daemon_nntp_source = {
	.name = "nntp",
	.size = sizeof(struct nntp_src),
	.open = nntp_open_source,
	.connected = nntp_connected,
	.poll = nntp_poll,
	.close = nntp_close_source,
};
