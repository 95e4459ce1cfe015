#include "autoconf.h"
#include "daemon/linkstore.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/buf.h"
#include "mail/linkref.h"
#include "mail/msgid.h"
#include "daemon/series.h"
#include "store/store.h"

static bool same_work(const struct msg_context *a, const struct msg_context *b)
{
	if (a->change_id && b->change_id && !strcmp(a->change_id, b->change_id))
		return true;
	return a->subject && b->subject && *a->subject && !strcasecmp(a->subject, b->subject) &&
	       a->sender && b->sender && *a->sender && !strcmp(a->sender, b->sender);
}

int linkstore_earlier_version(struct store *st, const struct msg_context *c, const char *target,
			      bool *yes, struct err *e)
{
	struct msg_context t;
	bool found;
	int rc;

	*yes = false;
	msg_context_init(&t);
	rc = store_context_get(st, target, &t, &found, e);
	if (rc == 0 && found)
		*yes = t.version < c->version && same_work(c, &t);
	msg_context_release(&t);
	return rc;
}

int linkstore_same_series(struct store *st, const struct msg_context *c, const char *target,
			  bool *yes, struct err *e)
{
	struct msg_context t;
	char *a = NULL, *b = NULL;
	bool found;
	int rc;

	*yes = false;
	msg_context_init(&t);
	rc = store_context_get(st, target, &t, &found, e);
	if (rc == 0 && found && series_linked(c, &t)) {
		*yes = true;
	} else if (rc == 0 && found && c->message_id) {
		rc = store_series_of(st, c->message_id, &a, e);
		if (rc == 0)
			rc = store_series_of(st, t.message_id, &b, e);
		*yes = rc == 0 && a && b && !strcmp(a, b);
	}
	free(a);
	free(b);
	msg_context_release(&t);
	return rc;
}

/*
 * linkstore_same_series() knows a series by threading or by the store's
 * grouping, but the mail being checked is grouped only after its rules
 * ran: an unthreaded series mate is matched here as series_assign() will
 * match it (sender, version, total, within SERIES_WINDOW).
 */
static int window_mate(struct store *st, const struct msg_context *c, const char *key,
		       bool *yes, struct err *e)
{
	struct msg_context t;
	bool found = false;
	int rc;

	*yes = false;
	if (!series_is_part(c))
		return 0;
	msg_context_init(&t);
	rc = store_context_get(st, key, &t, &found, e);
	if (rc == 0 && found)
		*yes = series_is_part(&t) && series_window_match(c, &t, SERIES_WINDOW);
	msg_context_release(&t);
	return rc;
}

/* Whether the store knows the Message-ID id a link of c's patch names as
 * an earlier version or a series mate: r's earlier_version and
 * same_series. */
static int judge_link(struct store *st, const struct msg_context *c, const char *id,
		      struct lookup_result *r, struct err *e)
{
	char *key = msgid_key(id);
	bool earlier = false, series = false;
	int rc = 0;

	if (!key)
		return 0;
	if (linkstore_earlier_version(st, c, key, &earlier, e) < 0 ||
	    (!earlier && linkstore_same_series(st, c, key, &series, e) < 0) ||
	    (!earlier && !series && window_mate(st, c, key, &series, e) < 0))
		rc = -1;
	free(key);
	r->earlier_version = earlier;
	r->same_series = series;
	return rc;
}

/* The link url (n bytes) to id, judged in r, appended to out when the
 * store knows what it names; nothing was fetched. */
static void add_known(struct lookup_results *out, const char *url, size_t n, const char *id,
		      const struct lookup_result *r)
{
	struct lookup_result *to;

	if (!r->earlier_version && !r->same_series)
		return;
	ARRAY_GROW(out->v, out->alloc, out->n + 1);
	to = &out->v[out->n++];
	memset(to, 0, sizeof(*to));
	to->url = xstrndup(url, n);
	to->msgid = xstrdup(id);
	to->version = 1;
	to->others = -1;
	to->earlier_version = r->earlier_version;
	to->same_series = r->same_series;
}

static int store_part(const struct linkstore *ls, const struct patch *p,
		      struct lookup_results *out, struct err *e)
{
	struct msg_context c;
	size_t asked = 0;
	bool have_c = false;
	int rc = 0;

	msg_context_init(&c);
	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES && rc == 0; i++) {
		struct lookup_result r = { 0 };
		const char *url;
		size_t n;
		bool is_link;
		char *id;

		if (!lookup_link_line(&p->lines[i], &url, &n, &is_link) || !is_link ||
		    n > LOOKUP_MAX_URL_LEN || memchr(url, '\0', n) || lookup_results_find(out, url, n))
			continue;
		if (++asked > LOOKUP_MAX_URLS)
			break;
		id = linkref_msgid(ls->archives, url, n);
		/* In-thread IDs too (a v2 sent in reply to v1); not the mail itself. */
		if (id && !(p->message_id && msgid_same(id, p->message_id))) {
			/* found when a link needs it: most patches have none */
			if (!have_c)
				context_from_patch(NULL, p, ls->now, &c);
			have_c = true;
			rc = judge_link(ls->st, &c, id, &r, e);
			if (rc == 0)
				add_known(out, url, n, id, &r);
		}
		free(id);
	}
	msg_context_release(&c);
	return rc;
}

int linkstore_results(const struct linkstore *ls, const struct patch *p, size_t np,
		      struct lookup_results *out, struct err *e)
{
	for (size_t k = 0; ls->st && k < np; k++)
		if (p[k].kind == KIND_PATCH && store_part(ls, &p[k], out, e) < 0)
			return -1;
	return 0;
}
