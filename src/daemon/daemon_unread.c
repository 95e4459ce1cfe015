/*
 * daemon_unread.c - the mail a source listed but did not hand over whole
 * (daemon_p.h): a message not delivered is asked for again, a few times
 * and further apart each time, with the stored checkpoint held below it;
 * then, like one too large to read, it is recorded skipped with its
 * reason, told in the log and kept for `tagbot status`.  The rest of the
 * folder goes on meanwhile.
 */
#include "autoconf.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_p.h"
#include "lib/backoff.h"
#include "lib/log.h"

static struct retry *retry_find(struct folder *f, uint32_t uid)
{
	for (size_t i = 0; i < f->nretries; i++)
		if (f->retries[i].uid == uid)
			return &f->retries[i];
	return NULL;
}

static void retry_remove(struct folder *f, uint32_t uid)
{
	struct retry *r = retry_find(f, uid);

	if (!r)
		return;
	memmove(r, r + 1, (size_t)(f->retries + f->nretries - (r + 1)) * sizeof(*r));
	f->nretries--;
}

/* uid's retry, made in uid order when there is none. */
static struct retry *retry_get(struct folder *f, uint32_t uid)
{
	struct retry *r = retry_find(f, uid);
	size_t i = 0;

	if (r)
		return r;
	while (i < f->nretries && f->retries[i].uid < uid)
		i++;
	ARRAY_GROW(f->retries, f->aretries, f->nretries + 1);
	memmove(f->retries + i + 1, f->retries + i, (f->nretries - i) * sizeof(*f->retries));
	f->nretries++;
	memset(&f->retries[i], 0, sizeof(f->retries[i]));
	f->retries[i].uid = uid;
	return &f->retries[i];
}

static void retry_loaded(void *ctx, const struct store_unread *u)
{
	struct retry *r = retry_get(ctx, u->uid);

	r->tries = u->tries;
	r->next_try = u->next_try;
}

int daemon_retries_load(struct source *s, struct folder *f, struct err *e)
{
	struct store_folder where = { s->id, f->name };

	if (f->retries_known)
		return 0;
	f->nretries = 0;
	if (store_unread_retries(s->env->st, &where, retry_loaded, f, e) < 0)
		return -1;
	f->retries_known = true;
	if (f->nretries)
		log_msg(LOGL_INFO, "%s %s: %zu message(s) not delivered yet, asked for again "
			"from UID %" PRIu32, s->label, f->name, f->nretries, f->retries[0].uid);
	return 0;
}

int daemon_retries_forget(struct source *s, struct folder *f, struct err *e)
{
	struct store_folder where = { s->id, f->name };

	f->nretries = 0;
	f->retries_known = true;
	return store_unread_forget(s->env->st, &where, e);
}

void daemon_retries_poll(struct folder *f)
{
	f->polls++;
}

size_t daemon_retries_due(const struct folder *f, time_t now, uint32_t **uids)
{
	size_t n = 0;

	*uids = NULL;
	for (size_t i = 0; i < f->nretries; i++) {
		const struct retry *r = &f->retries[i];

		if (r->next_try > now || r->poll == f->polls)
			continue;
		if (!*uids)
			*uids = xcalloc(f->nretries, sizeof(**uids));
		(*uids)[n++] = r->uid;
	}
	return n;
}

uint32_t daemon_hold(const struct daemon *d, uint32_t last_uid)
{
	const struct folder *f = d->pipeline.b.src ? d->pipeline.b.src->f : NULL;

	last_uid = daemon_lookup_hold(d, last_uid);
	if (f && f->nretries && f->retries[0].uid - 1 < last_uid)
		last_uid = f->retries[0].uid - 1;
	return last_uid;
}

bool daemon_retries_due_at(const struct source *s, time_t now)
{
	for (size_t g = 0; g <= s->ngroups; g++) {
		const struct folder *f = g < s->ngroups ? s->groups[g] : &s->one;

		for (size_t k = 0; k < f->nretries; k++)
			if (f->retries[k].next_try <= now)
				return true;
	}
	return false;
}

int daemon_retries_wait(const struct daemon *d, time_t now, int max)
{
	for (size_t i = 0; i < d->sources.n; i++) {
		const struct source *s = d->sources.v[i];

		for (size_t g = 0; g <= s->ngroups; g++) {
			const struct folder *f = g < s->ngroups ? s->groups[g] : &s->one;

			for (size_t k = 0; k < f->nretries; k++) {
				time_t left = f->retries[k].next_try - now;

				if (left < max)
					max = left < 1 ? 1 : (int)left;
			}
		}
	}
	return max;
}

/* "[source] INBOX uid 3": the message, for the log. */
static void where_text(const struct daemon *d, const struct job *j, char *out, size_t n)
{
	snprintf(out, n, "%s %s uid %" PRIu32, j->src->label, j->src->f->name, j->o.uid);
}

/* The store's key of a message known only by where it is: its source,
 * folder, UIDVALIDITY and uid, so it is recorded once. */
static char *where_key(const struct daemon *d, const struct job *j)
{
	char where[1024];

	snprintf(where, sizeof(where), "%s %s %" PRIu32 " uid %" PRIu32, j->src->id,
		 j->src->f->name, j->src->f->cp.uidvalidity, j->o.uid);
	return daemon_synthetic_key(NULL, where, strlen(where));
}

/* Writes u, its state, tries, next_try and reason set, as j's row. */
static int unread_row(struct daemon *d, const struct job *j, struct store_unread *u,
		      struct err *e)
{
	u->source = j->src->id;
	u->folder = j->src->f->name;
	u->uid = j->o.uid;
	u->size = u->state == STORE_UNREAD_TOO_LARGE ? j->o.size : 0;
	u->time = j->ctx->now;
	return store_unread_put(d->st, u, e);
}

/* Records j skipped (why) under its where_key, once. */
static int record_skipped(struct daemon *d, const struct job *j, const char *why, bool *known,
			  struct err *e)
{
	char *key = where_key(d, j);
	int rc = store_seen(d->st, key, known, e);

	if (rc == 0 && !*known)
		rc = daemon_record_skipped(j, key, "other", why, e);
	free(key);
	return rc;
}

static int too_large(struct daemon *d, const struct job *j, struct err *e)
{
	char where[512], reason[128];
	struct store_unread u = { .state = STORE_UNREAD_TOO_LARGE, .reason = reason };
	bool known;

	where_text(d, j, where, sizeof(where));
	if (record_skipped(d, j, DAEMON_TOO_LARGE_REASON, &known, e) < 0)
		return -1;
	retry_remove(j->src->f, j->o.uid);
	if (known)
		return 0;
	snprintf(reason, sizeof(reason), "larger than max_message_size (%d bytes)",
		 j->src->c->max_message_size);
	log_msg(LOGL_WARNING, "%s: skipped: too-large: %" PRIu64 " bytes, %s: read past, not held",
		where, j->o.size, reason);
	return unread_row(d, j, &u, e);
}

/* The wait before try tries + 1: retry_after, doubled for each try since
 * the first, uncapped: the cap given is the wait before the last try, the
 * longest one (8 days at most, retry_after being a day at most). */
static time_t retry_delay(const struct source *s, int tries)
{
	double first = s->c->retry_after;
	double last = first * (1u << (DAEMON_RETRY_TRIES - 2));

	return (time_t)backoff_delay(tries > 1 ? (unsigned)tries - 1 : 0, first, last, false, 0);
}

static int missing(struct daemon *d, const struct job *j, struct err *e)
{
	struct folder *f = j->src->f;
	struct retry *r = retry_find(f, j->o.uid);
	const char *why = j->o.why ? j->o.why : "not delivered";
	struct store_unread u = { .reason = why };
	time_t now = j->ctx->now;
	char where[512];
	bool known;
	int tries;

	/* Listed again before its time (a fetch from a held checkpoint): it
	 * waits for its retry. */
	if (r && (r->poll == f->polls || now < r->next_try))
		return 0;
	u.tries = tries = r ? r->tries + 1 : 1;
	where_text(d, j, where, sizeof(where));
	if (tries < DAEMON_RETRY_TRIES) {
		time_t delay = retry_delay(j->src, tries);

		r = retry_get(f, j->o.uid);
		r->tries = tries;
		r->next_try = now + delay;
		r->poll = f->polls;
		log_msg(LOGL_WARNING, "%s: not delivered (%s): try %d of %d, asking again in %ld s; "
			"the checkpoint waits below it", where, why, tries, DAEMON_RETRY_TRIES,
			(long)delay);
		u.state = STORE_UNREAD_RETRY;
		u.next_try = r->next_try;
		return unread_row(d, j, &u, e);
	}
	retry_remove(f, j->o.uid);
	if (record_skipped(d, j, DAEMON_UNAVAILABLE_REASON, &known, e) < 0)
		return -1;
	log_msg(LOGL_WARNING, "%s: skipped: unavailable after %d tries: %s", where, tries, why);
	u.state = STORE_UNREAD_UNAVAILABLE;
	return unread_row(d, j, &u, e);
}

int daemon_unread_take(struct daemon *d, const struct job *j, struct err *e)
{
	return j->o.unread == UNREAD_TOO_LARGE ? too_large(d, j, e) : missing(d, j, e);
}

int daemon_retry_done(struct daemon *d, const struct job *j, struct err *e)
{
	struct folder *f = j->src->f;
	struct store_folder where = { j->src->id, f->name };

	if (!j->o.uid || !retry_find(f, j->o.uid))
		return 0;
	retry_remove(f, j->o.uid);
	log_msg(LOGL_INFO, "%s %s uid %" PRIu32 ": delivered at last", j->src->label, f->name,
		j->o.uid);
	return store_unread_drop(d->st, &where, j->o.uid, e);
}
