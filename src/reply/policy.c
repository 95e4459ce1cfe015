#include "autoconf.h"
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "reply/policy.h"
#include "reply/recipients.h"
#include "lib/ascii.h"

#define HOUR 3600
#define MINUTE 60

const char *const policy_default_ignore_senders[] = {
	"lkp@intel.com",			/* kernel test robot */
	"kernel test robot",			/* its other addresses (oliver.sang@intel.com) */
	"*@syzkaller.appspotmail.com",		/* syzbot+HASH@... */
	"patchwork-bot@kernel.org",		/* patchwork-bot+netdevbpf@... (+sub ignored) */
	"pr-tracker-bot@kernel.org",
	"sashiko-bot@kernel.org",
	"mailer-daemon@*",			/* bounces without Auto-Submitted */
};
const size_t policy_ndefault_ignore_senders = ARRAY_SIZE(policy_default_ignore_senders);

static const char *const verdict_names[] = {
	[POLICY_REPLY] = "reply",
	[POLICY_CLEAN] = "clean",
	[POLICY_SKIP] = "skip",
	[POLICY_HOLD] = "hold",
};

static const char *const reason_names[] = {
	[REASON_NONE] = "",
	[REASON_CLEAN] = "clean",
	[REASON_OWN_ADDRESS] = "own-address",
	[REASON_AUTO_SUBMITTED] = "auto-submitted",
	[REASON_PATCHWORK_IGNORE] = "patchwork-ignore",
	[REASON_IGNORED_SENDER] = "ignored-sender",
	[REASON_REPLY] = "reply",
	[REASON_PULL] = "pull-request",
	[REASON_NOT_A_PATCH] = "not-a-patch",
	[REASON_RFC] = "rfc",
	[REASON_RATE_AUTHOR] = "rate-limit-author",
	[REASON_RATE_GLOBAL] = "rate-limit-global",
	[REASON_RATE_SHARE] = "rate-limit-share",
};

const char *policy_verdict_name(enum policy_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

const char *policy_reason_name(enum policy_reason r)
{
	return (unsigned)r < ARRAY_SIZE(reason_names) ? reason_names[r] : "?";
}

void policy_settings_init(struct policy_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->min_reply_severity = SEV_WARNING;
	s->max_per_author_per_hour = 10;
	s->max_per_minute = 30;
	s->max_share_per_sender = 50;
}

/* --- addresses and headers --------------------------------------------- */

/* The addr-spec of "Name <addr>" or a bare address; malloc'ed or NULL. */
static char *addr_of(const char *s)
{
	struct person p;
	char *a;

	if (!s || address_parse(&p, s, strlen(s), NULL) < 0)
		return NULL;
	a = p.email;
	p.email = NULL;
	person_release(&p);
	return a;
}

bool policy_is_bot_address(const struct policy_settings *s, const char *addr)
{
	char *from;
	bool same;

	if (!addr || !*addr)
		return false;
	from = addr_of(s->from);
	same = from && address_same(from, addr);
	free(from);
	for (size_t i = 0; !same && i < s->nbot_addresses; i++) {
		char *bot = addr_of(s->bot_addresses[i]);

		same = bot && address_same(bot, addr);
		free(bot);
	}
	return same;
}

/* The first word of a header value, for "Auto-Submitted: no (comment)". */
static bool header_word_is(const struct patch *p, const char *name, const char *word)
{
	const char *v = p->msg ? message_header(p->msg, name) : NULL;
	size_t n;

	if (!v)
		return false;
	while (ascii_is_space((unsigned char)*v))
		v++;
	n = strcspn(v, " \t;(");
	return n == strlen(word) && !strncasecmp(v, word, n);
}

static bool has_header(const struct patch *p, const char *name)
{
	return p->msg && message_header(p->msg, name);
}

static bool glob_addr(const char *pat, const char *addr)
{
	char *bare;
	bool hit;

	if (!addr || !*addr)
		return false;
	if (!fnmatch(pat, addr, FNM_CASEFOLD))
		return true;
	bare = address_strip_plus(addr);
	hit = !fnmatch(pat, bare, FNM_CASEFOLD);
	free(bare);
	return hit;
}

static bool glob_name(const char *pat, const char *name)
{
	return name && *name && !fnmatch(pat, name, FNM_CASEFOLD);
}

/* The pattern of ignore_senders that p's sender or author matches. */
static const char *ignored_by(const struct policy_settings *s, const struct patch *p)
{
	const char *const *v = s->ignore_senders ? s->ignore_senders : policy_default_ignore_senders;
	size_t n = s->ignore_senders ? s->nignore_senders : policy_ndefault_ignore_senders;

	for (size_t i = 0; i < n; i++) {
		const char *pat = v[i];
		bool hit;

		if (!pat || !*pat || strlen(pat) > POLICY_PATTERN_MAX)
			continue;
		if (strchr(pat, '@'))
			hit = glob_addr(pat, p->sender.email) || glob_addr(pat, p->author.email);
		else
			hit = glob_name(pat, p->sender.name) || glob_name(pat, p->author.name);
		if (hit)
			return pat;
	}
	return NULL;
}

/* --- rate windows ------------------------------------------------------ */

/* Reply times in ascending order; only the recent ones matter. */
struct window {
	time_t *t;	/* owned */
	size_t n, alloc;
};

struct author_rate {
	char *key;	/* owned; address lower-cased, "+sub" dropped */
	struct window w;
};

struct policy {
	/* the windows in memory, when no store holds them (ev.ctx == this) */
	struct author_rate *authors;	/* owned */
	size_t n, alloc;
	struct window global;
	struct policy_events ev;	/* where the windows live */
};

static const struct policy_events memory_events;

struct policy *policy_new(void)
{
	struct policy *pol = xcalloc(1, sizeof(struct policy));

	pol->ev = memory_events;
	pol->ev.ctx = pol;
	return pol;
}

void policy_set_events(struct policy *pol, const struct policy_events *ev)
{
	pol->ev = *ev;
}

void policy_free(struct policy *pol)
{
	if (!pol)
		return;
	for (size_t i = 0; i < pol->n; i++) {
		free(pol->authors[i].key);
		free(pol->authors[i].w.t);
	}
	free(pol->authors);
	free(pol->global.t);
	free(pol);
}

/* Replies in (now - span, now]; a clock set back counts later ones too. */
static size_t window_count(const struct window *w, time_t now, time_t span)
{
	size_t c = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->t[i] > now - span)
			c++;
	return c;
}

static void window_add(struct window *w, time_t now, time_t span)
{
	size_t keep = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->t[i] > now - span)
			w->t[keep++] = w->t[i];
	w->n = keep;
	if (w->n == POLICY_MAX_TIMES) {
		memmove(w->t, w->t + 1, (w->n - 1) * sizeof(*w->t));
		w->n--;
	}
	ARRAY_GROW(w->t, w->alloc, w->n + 1);
	w->t[w->n++] = now;
}

const char *policy_author_address(const struct patch *p)
{
	const char *a = p->author.email && *p->author.email ? p->author.email : p->sender.email;

	return a && *a ? a : NULL;
}

/* addr lower-cased, "+sub" dropped; malloc'ed, NULL for no address. */
static char *addr_key(const char *a)
{
	char *k;

	if (!a || !*a)
		return NULL;
	k = address_strip_plus(a);
	for (char *c = k; *c; c++)
		*c = (char)ascii_tolower((unsigned char)*c);
	return k;
}

static struct author_rate *find_author(const struct policy *pol, const char *key)
{
	for (size_t i = 0; i < pol->n; i++)
		if (!strcmp(pol->authors[i].key, key))
			return &pol->authors[i];
	return NULL;
}

/* Drops authors with nothing left in the last hour; when all are recent,
 * the one with the oldest last reply goes, so the table stays bounded. */
static void prune_authors(struct policy *pol, time_t now)
{
	size_t keep = 0, oldest = 0;

	for (size_t i = 0; i < pol->n; i++) {
		struct author_rate *a = &pol->authors[i];

		if (window_count(&a->w, now, HOUR)) {
			pol->authors[keep++] = *a;
			continue;
		}
		free(a->key);
		free(a->w.t);
	}
	pol->n = keep;
	if (pol->n < POLICY_MAX_AUTHORS)
		return;
	for (size_t i = 1; i < pol->n; i++)
		if (pol->authors[i].w.t[pol->authors[i].w.n - 1] <
		    pol->authors[oldest].w.t[pol->authors[oldest].w.n - 1])
			oldest = i;
	free(pol->authors[oldest].key);
	free(pol->authors[oldest].w.t);
	pol->authors[oldest] = pol->authors[--pol->n];
}

#define POLICY_MAX_KEYS	2	/* the submitter; the in-body author for the submitter */

/* The hourly limit's keys of a reply to p (policy.h); malloc'ed, how many. */
static size_t rate_keys(const struct policy_settings *s, const struct patch *p,
			char *keys[POLICY_MAX_KEYS])
{
	const struct recipients *r;
	struct recipients own;
	size_t n = 0;
	char *author, *to;

	if (!s->rs) {
		keys[0] = addr_key(policy_author_address(p));
		return keys[0] ? 1 : 0;
	}
	r = recipients_of(p, s->rs, &own);
	if ((to = addr_key(r->to.email))) {	/* nobody to answer: "", no key */
		keys[n++] = to;
		if ((author = addr_key(r->author.email))) {
			struct buf b;

			buf_init(&b, 0);
			buf_printf(&b, "%s for %s", author, to);
			keys[n++] = buf_detach(&b, NULL);
			free(author);
		}
	}
	if (r == &own)
		recipients_release(&own);
	return n;
}

/* Counts one reply under key (owned by the table from now on). */
static void note_key(struct policy *pol, char *key, time_t now)
{
	struct author_rate *a;

	if (!(a = find_author(pol, key))) {
		if (pol->n >= POLICY_MAX_AUTHORS)
			prune_authors(pol, now);
		ARRAY_GROW(pol->authors, pol->alloc, pol->n + 1);
		a = &pol->authors[pol->n++];
		memset(a, 0, sizeof(*a));
		a->key = key;
		key = NULL;
	}
	window_add(&a->w, now, HOUR);
	free(key);
}

/* --- the windows in memory (the default events) ------------------------- */

static const struct window *mem_window(const struct policy *pol, const char *key)
{
	const struct author_rate *a;

	if (!*key)
		return &pol->global;
	a = find_author(pol, key);
	return a ? &a->w : NULL;
}

static unsigned mem_count(void *ctx, const char *key, time_t since)
{
	const struct window *w = mem_window(ctx, key);
	unsigned c = 0;

	for (size_t i = 0; w && i < w->n; i++)
		c += w->t[i] > since;
	return c;
}

static time_t mem_nth(void *ctx, const char *key, time_t since, unsigned n)
{
	const struct window *w = mem_window(ctx, key);

	for (size_t i = 0; w && i < w->n; i++)
		if (w->t[i] > since && n-- == 0)
			return w->t[i];
	return 0;
}

static time_t mem_last(void *ctx, const char *key, time_t since)
{
	const struct window *w = mem_window(ctx, key);
	time_t last = 0;

	for (size_t i = 0; w && i < w->n; i++)
		if (w->t[i] > since && w->t[i] > last)
			last = w->t[i];
	return last;
}

static void mem_add(void *ctx, const char *key, time_t t)
{
	struct policy *pol = ctx;

	if (!*key)
		window_add(&pol->global, t, MINUTE);
	else
		note_key(pol, xstrdup(key), t);
}

static const struct policy_events memory_events = {
	.count = mem_count,
	.nth = mem_nth,
	.last = mem_last,
	.add = mem_add,
};

/* --- counting and checking ------------------------------------------------ */

/* Replies under key in (now - span, now]; a clock set back counts later
 * ones too. */
static unsigned count_in(const struct policy *pol, const char *key, time_t now, time_t span)
{
	return pol->ev.count(pol->ev.ctx, key, now - span);
}

void policy_note_reply(struct policy *pol, const struct policy_settings *s,
		       const struct patch *p, time_t now)
{
	char *keys[POLICY_MAX_KEYS];
	size_t n;

	if (!pol)
		return;
	pol->ev.add(pol->ev.ctx, "", now);
	n = rate_keys(s, p, keys);
	for (size_t i = 0; i < n; i++) {
		pol->ev.add(pol->ev.ctx, keys[i], now);
		free(keys[i]);
	}
}

void policy_note_reply_to(struct policy *pol, const char *addr, time_t now)
{
	char *key;

	if (!pol)
		return;
	pol->ev.add(pol->ev.ctx, "", now);
	if ((key = addr_key(addr)))
		pol->ev.add(pol->ev.ctx, key, now);
	free(key);
}

time_t policy_last_reply(const struct policy *pol, const char *addr, time_t now)
{
	char *key = addr_key(addr);
	time_t last = pol && key ? pol->ev.last(pol->ev.ctx, key, now - HOUR) : 0;

	free(key);
	return last;
}

/* When a full window has room again: the time the reply that must leave
 * first, for fewer than max to remain, leaves it. */
static time_t window_free_at(const struct policy *pol, const char *key, time_t now, time_t span,
			     unsigned max)
{
	unsigned in = count_in(pol, key, now, span), skip = in >= max ? in - max : 0;
	time_t t = pol->ev.nth(pol->ev.ctx, key, now - span, skip);

	return t ? t + span : now;
}

/* A rate check's verdict: a reason to hold, or none. */
static enum policy_verdict rate_verdict(enum policy_reason why)
{
	return why == REASON_NONE ? POLICY_REPLY : POLICY_HOLD;
}

/* The limit one hourly key (NULL: the global one only) is over, or
 * REASON_NONE; *free_at (when asked) when it has room, now when none. */
static enum policy_reason rate_check_key(const struct policy *pol,
					 const struct policy_settings *s, const char *key,
					 time_t now, time_t *free_at)
{
	enum policy_reason why = REASON_NONE;
	time_t at = now;

	if (pol && s->max_per_author_per_hour && key && *key &&
	    count_in(pol, key, now, HOUR) >= s->max_per_author_per_hour) {
		why = REASON_RATE_AUTHOR;
		at = window_free_at(pol, key, now, HOUR, s->max_per_author_per_hour);
	} else if (pol && s->max_per_minute &&
		   count_in(pol, "", now, MINUTE) >= s->max_per_minute) {
		why = REASON_RATE_GLOBAL;
		at = window_free_at(pol, "", now, MINUTE, s->max_per_minute);
	}
	if (free_at)
		*free_at = at;
	return why;
}

/* The global limit's share one submitter may take in any minute. */
static unsigned share_cap(const struct policy_settings *s)
{
	unsigned cap = s->max_per_minute * s->max_share_per_sender / 100;

	return cap ? cap : 1;
}

/* Whether one submitter (key, the To of the reply) is over its share of
 * the minute: REASON_RATE_SHARE and *free_at (when asked) when it has
 * room, else REASON_NONE and *free_at untouched. */
static enum policy_reason share_check(const struct policy *pol, const struct policy_settings *s,
				      const char *key, time_t now, time_t *free_at)
{
	unsigned cap;

	if (!pol || !s->max_per_minute || !s->max_share_per_sender ||
	    s->max_share_per_sender >= 100 || !key || !*key)
		return REASON_NONE;
	cap = share_cap(s);
	if (count_in(pol, key, now, MINUTE) < cap)
		return REASON_NONE;
	if (free_at)
		*free_at = window_free_at(pol, key, now, MINUTE, cap);
	return REASON_RATE_SHARE;
}

enum policy_verdict policy_rate_check(const struct policy *pol, const struct policy_settings *s,
				      const char *addr, time_t now, enum policy_reason *reason,
				      time_t *free_at)
{
	char *key = addr_key(addr);

	*reason = rate_check_key(pol, s, key, now, free_at);
	free(key);
	return rate_verdict(*reason);
}

enum policy_verdict policy_rate_check_patch(const struct policy *pol,
					    const struct policy_settings *s,
					    const struct patch *p, time_t now,
					    enum policy_reason *reason, time_t *free_at)
{
	char *keys[POLICY_MAX_KEYS];
	size_t n = rate_keys(s, p, keys);
	enum policy_reason why = REASON_NONE;

	/* each key with the global cap; a person's limit is named first */
	for (size_t i = 0; i < n; i++) {
		if (why == REASON_NONE)
			why = rate_check_key(pol, s, keys[i], now, free_at);
		if (why == REASON_NONE && i == 0)
			why = share_check(pol, s, keys[0], now, free_at);
		free(keys[i]);
	}
	if (!n)
		why = rate_check_key(pol, s, NULL, now, free_at);
	*reason = why;
	return rate_verdict(why);
}

/* --- the decision ------------------------------------------------------ */

static size_t count_findings(const struct findings *f, enum severity min)
{
	size_t n = 0;

	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].severity != SEV_OFF && f->v[i].severity >= min)
			n++;
	return n;
}

/* The reasons that depend on who sent the mail and what it is. */
static enum policy_reason skip_reason(const struct policy_settings *s, const struct patch *p,
				      const char **matched)
{
	static const enum policy_reason by_kind[] = {
		[KIND_PATCH] = REASON_NONE,
		[KIND_COVER] = REASON_NONE,
		[KIND_REPLY] = REASON_REPLY,
		[KIND_PULL] = REASON_PULL,
		[KIND_OTHER] = REASON_NOT_A_PATCH,
	};

	if (policy_is_bot_address(s, p->sender.email) || policy_is_bot_address(s, p->author.email))
		return REASON_OWN_ADDRESS;
	if (has_header(p, "Auto-Submitted") && !header_word_is(p, "Auto-Submitted", "no"))
		return REASON_AUTO_SUBMITTED;
	if (header_word_is(p, "X-Patchwork-Hint", "ignore"))
		return REASON_PATCHWORK_IGNORE;
	if ((*matched = ignored_by(s, p)))
		return REASON_IGNORED_SENDER;
	if ((unsigned)p->kind >= ARRAY_SIZE(by_kind))
		return REASON_NOT_A_PATCH;
	if (by_kind[p->kind] == REASON_NONE && p->series.rfc && !s->answer_rfc)
		return REASON_RFC;
	return by_kind[p->kind];
}

void policy_decide(const struct policy *pol, const struct policy_settings *s,
		   const struct patch *p, const struct findings *f, time_t now,
		   struct policy_decision *out)
{
	memset(out, 0, sizeof(*out));
	out->reason = skip_reason(s, p, &out->matched);
	if (out->reason != REASON_NONE) {
		out->verdict = POLICY_SKIP;
		return;
	}
	out->nfindings = count_findings(f, s->min_reply_severity);
	if (!out->nfindings) {
		out->verdict = POLICY_CLEAN;
		out->reason = REASON_CLEAN;
		return;
	}
	out->verdict = policy_rate_check_patch(pol, s, p, now, &out->reason, NULL);
}
