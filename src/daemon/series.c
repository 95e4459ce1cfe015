#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "daemon/series.h"

bool series_is_part(const struct msg_context *c)
{
	if (!c->kind || (strcmp(c->kind, "patch") && strcmp(c->kind, "cover")))
		return false;
	return c->message_id && c->total >= 1 && c->total <= SERIES_TOTAL_MAX && c->index >= 0 &&
	       c->index <= c->total;
}

static bool same_shape(const struct msg_context *a, const struct msg_context *b)
{
	return a->total > 0 && a->version == b->version && a->total == b->total;
}

/* A part whose version tag was left off ("[PATCH 1/7]" in a "[PATCH v4 0/7]"
 * thread, as git send-email sends it when one file was made apart): the
 * same total, the untagged side a patch, sent within SERIES_TAGLESS (the
 * author may differ: a series carries others' patches).  A v2 answering
 * v1's cover letter still starts a series. */
static bool tag_left_off(const struct msg_context *a, const struct msg_context *b)
{
	double dt = difftime(a->time, b->time);
	const struct msg_context *bare = a->version == 1 ? a : b;

	if (a->total <= 0 || a->total != b->total || (a->version != 1) == (b->version != 1) ||
	    bare->index < 1)
		return false;	/* the untagged side is a patch: a v1 cover answered is not */
	return dt <= SERIES_TAGLESS && dt >= -SERIES_TAGLESS;
}

bool series_linked(const struct msg_context *a, const struct msg_context *b)
{
	bool shape = same_shape(a, b);

	if (!shape && !tag_left_off(a, b))
		return false;
	if (context_refers_to(a, b->message_id) || context_refers_to(b, a->message_id))
		return true;
	/* siblings; an untagged one only beside a patch (a v2 cover answering
	 * v1's cover is v1's parts' sibling too) */
	return a->in_reply_to && b->in_reply_to && !strcmp(a->in_reply_to, b->in_reply_to) &&
	       (shape || (a->index > 0 && b->index > 0));
}

static bool unthreaded(const struct msg_context *c)
{
	return !c->in_reply_to && !c->references;
}

bool series_window_match(const struct msg_context *a, const struct msg_context *b, long window)
{
	double dt = difftime(a->time, b->time);

	/* A cover letter is never grouped this way: its patches answer it. */
	if (!same_shape(a, b) || !unthreaded(a) || !unthreaded(b) || a->index == b->index ||
	    a->index == 0 || b->index == 0)
		return false;
	if ((a->list_id || b->list_id) && (!a->list_id || !b->list_id ||
					   strcmp(a->list_id, b->list_id)))
		return false;
	if (!a->sender || !b->sender || !*a->sender || strcmp(a->sender, b->sender))
		return false;
	return dt <= (double)window && dt >= -(double)window;
}

bool series_stray(const struct msg_context *c, const struct msg_context *parent)
{
	double dt = difftime(c->time, parent->time);

	if (!c->kind || strcmp(c->kind, "patch") || c->total != 0 || !parent->kind ||
	    strcmp(parent->kind, "cover") || parent->total < 1)
		return false;
	if (!c->in_reply_to || !parent->message_id || strcmp(c->in_reply_to, parent->message_id))
		return false;
	if (!c->sender || !parent->sender || !*c->sender || strcmp(c->sender, parent->sender))
		return false;
	return dt <= SERIES_TAGLESS && dt >= -SERIES_TAGLESS;
}

time_t series_deadline(time_t first, time_t deadline, time_t now, long wait)
{
	time_t cap = first + (time_t)SERIES_STRETCH * wait, t = now + wait;

	if (t > cap)
		t = cap;
	return t > deadline ? t : deadline;
}

void series_view_add(struct series_view *v, bool *bits, int index)
{
	if (index < 0 || index > v->total || bits[index])
		return;
	bits[index] = true;
	if (index == 0)
		v->have_cover = true;
	else
		v->nhave++;
}

bool series_complete(const struct series_view *v)
{
	return v->total > 0 && v->nhave >= v->total && (v->have_cover || !v->cover_expected);
}

/* The candidates: the related rows in a series, by whether threading
 * links them to c (v) or only the window (w). */
struct cand {
	char *series;
	time_t time;
	int64_t seq;
};

struct cands {
	const struct msg_context *c;
	struct cand *v, *w;
	size_t n, alloc, nw, aw;
};

static void cand_push(struct cand **v, size_t *n, size_t *alloc, const struct store_related *r)
{
	ARRAY_GROW(*v, *alloc, *n + 1);
	(*v)[(*n)++] = (struct cand){ xstrdup(r->series), r->row->time, r->seq };
}

static void cand_add(void *ctx, const struct store_related *r)
{
	struct cands *k = ctx;

	if (!r->series || !series_is_part(r->row))
		return;
	if (series_linked(k->c, r->row))
		cand_push(&k->v, &k->n, &k->alloc, r);
	else if (series_window_match(k->c, r->row, SERIES_WINDOW))
		cand_push(&k->w, &k->nw, &k->aw, r);
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The distinct series of the n candidates v (freed), oldest candidate
 * first. */
static void distinct(struct cand *v, size_t n, char ***ids, size_t *nids)
{
	size_t alloc = 0;

	*ids = NULL;
	*nids = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), cand_cmp);
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		for (size_t j = 0; j < *nids && !dup; j++)
			dup = !strcmp((*ids)[j], v[i].series);
		if (dup) {
			free(v[i].series);
			continue;
		}
		ARRAY_GROW(*ids, alloc, *nids + 1);
		(*ids)[(*nids)++] = v[i].series;
	}
	free(v);
}

/* The series linked so far, for store_context_siblings() to skip. */
static char *linked_so_far(const struct cands *k)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < k->n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", k->v[i].series);
	return buf_detach(&b, NULL);
}

/* A series found by the window takes c only when it has no cover letter
 * (that series is threaded) and no part with c's index yet. */
struct fit {
	int index;
	bool ok;
};

static void fit_member(void *ctx, const struct store_series_member *m)
{
	struct fit *f = ctx;

	if (m->index == 0 || m->index == f->index)
		f->ok = false;
}

static int window_fits(struct store *st, const char *id, int index, bool *ok, struct err *e)
{
	struct fit f = { index, true };

	if (store_series_members(st, id, fit_member, &f, e) < 0)
		return -1;
	*ok = f.ok;
	return 0;
}

static void cands_free(struct cand *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].series);
	free(v);
}

static void strs_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The window's series that can take c (at most one: the oldest). */
static int window_series(struct store *st, struct cands *k, char ***ids, size_t *nids,
			 struct err *e)
{
	size_t keep = 0;

	distinct(k->w, k->nw, ids, nids);
	k->w = NULL;
	k->nw = 0;
	for (size_t i = 0; i < *nids; i++) {
		bool ok = false;

		if (keep == 0 && window_fits(st, (*ids)[i], k->c->index, &ok, e) < 0)
			return -1;
		if (ok && keep == 0)
			(*ids)[keep++] = (*ids)[i];
		else
			free((*ids)[i]);
	}
	*nids = keep;
	return 0;
}

static int create(struct store *st, const struct series_arrival *a, struct err *e)
{
	const struct msg_context *c = a->c;
	struct store_series s;

	memset(&s, 0, sizeof(s));
	s.id = c->message_id;
	s.version = c->version;
	s.total = c->total;
	s.sender = c->sender;
	s.first_time = c->time;
	s.deadline = a->deadline;
	s.state = a->state;
	return store_series_create(st, &s, e);
}

/* The series c links together, all in ids[0] (nids >= 1). */
static int merge(struct store *st, char **ids, size_t nids, struct err *e)
{
	for (size_t i = 1; i < nids; i++)
		if (store_series_merge(st, ids[0], ids[i], e) < 0)
			return -1;
	return 0;
}

/* Only a pending series keeps its members' mails. */
static int keeps_raw(struct store *st, const char *id, bool *keep, struct err *e)
{
	struct store_series s;
	bool found;

	memset(&s, 0, sizeof(s));
	if (store_series_get(st, id, &s, &found, e) < 0)
		return -1;
	*keep = found && s.state == STORE_SERIES_PENDING;
	store_series_release(&s);
	return 0;
}

int series_assign(struct store *st, const struct series_arrival *a, char **id, struct err *e)
{
	const struct msg_context *c = a->c;
	struct cands k = { .c = c };
	char **ids = NULL;
	size_t nids = 0;
	bool keep = false;
	int rc;

	*id = NULL;
	if (!series_is_part(c))
		return err_set(e, ERR_FINAL, "series: <%s> is not part of a series",
			       c->message_id ? c->message_id : "");
	if (store_series_of(st, c->message_id, id, e) < 0)
		return -1;
	if (*id)
		return 0;	/* seen before: stays where it is */
	rc = store_context_related(st, c, c->time - SERIES_WINDOW, cand_add, &k, e);
	if (rc == 0) {
		char *skip = linked_so_far(&k);

		rc = store_context_siblings(st, c, skip, cand_add, &k, e);
		free(skip);
	}
	if (rc == 0) {
		distinct(k.v, k.n, &ids, &nids);
		k.v = NULL;
		k.n = 0;
	}
	if (rc == 0 && nids == 0)
		rc = window_series(st, &k, &ids, &nids, e);
	/* the series to join (ids[0], the others merged into it), or a new one */
	if (rc == 0)
		rc = nids ? merge(st, ids, nids, e) : create(st, a, e);
	if (rc == 0)
		*id = xstrdup(nids ? ids[0] : c->message_id);
	if (rc == 0 && keeps_raw(st, *id, &keep, e) < 0)
		rc = -1;
	if (rc == 0) {
		struct store_series_member m = {
			.msgid = c->message_id, .index = c->index, .time = c->time,
		};

		if (keep) {
			m.raw = a->raw;
			m.len = a->len;
			m.findings = a->findings;
		}
		rc = store_series_add(st, *id, &m, e);
	}
	if (rc < 0) {
		free(*id);
		*id = NULL;
	}
	cands_free(k.v, k.n);
	cands_free(k.w, k.nw);
	strs_free(ids, nids);
	return rc;
}
