/*
 * lookup.h - what the links of a patch point at (tagbot-rules(7) LINKS:
 * LINK_NO_NEW_INFO, LINK_DEAD and the archive signal of
 * LINK_TO_PREVIOUS_VERSION).  With smtp_sink.c, the only module that
 * includes curl.
 *
 * The rules never do I/O.  The caller fetches first and hands the results
 * over:
 *
 *	lookup_prefetch(lk, patch, &settings->archives, &res, &e);
 *	rules_run_lookups(patch, settings, &res, &findings);
 *
 * For a Link:/Closes: URL that names a Message-ID (an archive URL, see
 * linkref.h) the archive is asked, at archive_url, for <msgid>/raw (the
 * message: subject, [PATCH] prefix, version, author) and <msgid>/t.atom
 * (the thread: entries by anyone but that author).  Any other URL gets a
 * HEAD (a GET when the server answers 405).  Transfers run in parallel
 * through curl's multi interface, at most `concurrency` at once, started
 * at most `rate` per second.  TLS is always verified.
 *
 * One deadline, not one timeout per link: all transfers of one call
 * (lookup_prefetch(), lookup_fetch() for every waiting mail at once,
 * lookup_message_raw()) end `timeout` seconds after the call starts.  A
 * transfer queued behind the cap or the rate gets what is left of it, not
 * a timeout of its own; at the deadline every transfer still running or
 * not yet started is cut.  So 96 transfers stuck on an archive that never
 * answers cost one timeout, not 96 / concurrency of them.  The price: at
 * most about rate x timeout transfers start in one call (50 with the
 * defaults; an archive link takes two), and those that never start are
 * "no answer" too.
 *
 * A lookup that fails (timeout, deadline, 5xx, garbage, refused address)
 * is logged and its result is LOOKUP_UNKNOWN, which never becomes a
 * finding.  Only definite answers are cached (for cache_ttl seconds, in
 * the cache the caller hands lookup_new(): struct lookup_cache below).
 *
 * A mail decides what the bot fetches, so addresses on loopback, private
 * and link-local networks are refused unless the URL's host is the
 * archive's own: the bot cannot be made to probe the network it runs in.
 */
#ifndef TAGBOT_LOOKUP_H
#define TAGBOT_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/err.h"
#include "rules/linkfacts.h"
#include "lib/pattern.h"

#define LOOKUP_DEFAULT_ARCHIVE	"https://lore.kernel.org/all/"
#define LOOKUP_MAX_BODY		((size_t)4 * 1024 * 1024) /* bytes of /raw or /t.atom read */
#define LOOKUP_MAX_REDIRECTS	5
#define LOOKUP_MAX_CONCURRENCY	64	/* concurrency is clamped to this */
#define LOOKUP_USER_AGENT_MAX	256	/* bytes of the User-Agent header */
#define LOOKUP_CACHE_DATA_MAX	((size_t)64 * 1024) /* bytes of one cache entry's data */

/*
 * [lookup] in the ini file.  config.c fills it; every field maps to one key
 * and has the parser type noted (config.c's parse_* names).
 */
struct lookup_settings {
	bool enabled;		/* enabled (parse_bool); default no; also sets rules.lookups */
	char *archive_url;	/* owned; archive_url (parse_str); NULL: LOOKUP_DEFAULT_ARCHIVE */
	int timeout;		/* timeout: seconds one call's transfers take in all,
				 * see above (1..86400); default 10 */
	int concurrency;	/* concurrency: transfers at once (1..1000); default 4 */
	int rate;		/* rate: transfers started per second, 0 = no limit; default 5 */
	int cache_ttl;		/* cache_ttl: seconds a result is reused, 0 = no cache; default 21600 */
	char *ca_file;		/* owned; ca_file (parse_str): CA bundle; NULL: the system's */
	char *user_agent;	/* owned; user_agent (parse_str): words sent after
				 * "tagbot/VERSION" (a contact); NULL: none */
};

/* The defaults above; allocates nothing. */
void lookup_settings_init(struct lookup_settings *s);
void lookup_settings_release(struct lookup_settings *s);

/*
 * Where results outlive a call, keyed by the URL fetched: the caller's
 * storage behind two callbacks, so this module knows no database (the
 * daemon's store serves through daemon/cachestore.h).  Whether an entry is
 * still fresh is decided here (cache_ttl); a failing get or put is logged
 * and the lookup goes on as if there were no cache.
 *
 *	struct lookup_cache lc;
 *
 *	lookup_new(&lk, &settings, cachestore_init(&lc, st), &e);
 */
struct lookup_cache_entry {
	int status;		/* enum lookup_status */
	time_t fetched_at;
	char *data;		/* owned after get (free(), NUL-terminated); foreign for put */
	size_t len;
};

struct lookup_cache {
	/* *found false (out zeroed) when key has no entry. */
	int (*get)(void *aux, const char *key, struct lookup_cache_entry *out, bool *found,
		   struct err *e);
	/* Inserts or replaces the entry of key. */
	int (*put)(void *aux, const char *key, const struct lookup_cache_entry *in,
		   struct err *e);
	void *aux;		/* foreign; handed to get and put */
};

struct patch;
struct lookup;	/* opaque: the settings, curl's handles, the rate limiter */

/*
 * A lookup context.  cache (may be NULL: no cache) is copied; what its aux
 * points at must outlive the context.  Fails when curl cannot be set up,
 * and when s->archive_url holds a user name or password (the message does
 * not quote it).
 */
int lookup_new(struct lookup **out, const struct lookup_settings *s,
	       const struct lookup_cache *cache, struct err *e);
void lookup_free(struct lookup *lk);

/*
 * Looks up every Link:/Closes: URL of p's commit message (at most
 * LOOKUP_MAX_URLS) and appends one result per distinct URL to out.
 * archives is the list of archive URL forms (rule_settings.archives).
 * Returns immediately when p has no such URL, else within about one
 * timeout.  Individual failures are logged and give LOOKUP_UNKNOWN
 * results; -1 only when nothing could be tried at all (out still holds a
 * result per URL).
 */
int lookup_prefetch(struct lookup *lk, const struct patch *p, const struct pattern_list *archives,
		    struct lookup_results *out, struct err *e);

/* One mail of a lookup_fetch(): its parts (patch_parse) and where the
 * results of all of them go (one list per mail). */
struct lookup_request {
	const struct patch *p;		/* foreign; np parts, only patches are looked at */
	size_t np;
	struct lookup_results *out;	/* foreign */
};

/*
 * lookup_prefetch() for n mails at once: every transfer of every mail in
 * one run of the multi interface under one deadline, so the whole set
 * returns within about one timeout, however many links wait behind the
 * concurrency cap:
 *
 *	struct lookup_request rq[2] = { { p1, np1, &res1 }, { p2, np2, &res2 } };
 *
 *	lookup_fetch(lk, rq, 2, &settings->archives, &e);	// <= ~timeout
 *	rules_run_lookups(&p1[0], settings, &res1, &findings);
 */
int lookup_fetch(struct lookup *lk, const struct lookup_request *rq, size_t n,
		 const struct pattern_list *archives, struct err *e);

/*
 * Without any network: appends to out the results the cache holds fresh
 * for the links of the np parts of one mail.  Returns true when that is
 * all of them (no link, or every one cached): the mail can be checked now.
 * False: at least one link needs a transfer (out holds only the cached ones).
 */
bool lookup_cached(struct lookup *lk, const struct patch *p, size_t np,
		   const struct pattern_list *archives, struct lookup_results *out);

struct buf;

/*
 * For maintainer Cc mode: the message msgid from the archive
 * (<archive_url><msgid>/raw; the first copy when it holds several) into out
 * (reset; its cap applies).  *found false on 404/410.  A failure (timeout,
 * 5xx, refused) is logged and returned as ERR_TEMP; never a finding.
 * Blocks for at most one timeout.
 */
int lookup_message_raw(struct lookup *lk, const char *msgid, struct buf *out, bool *found,
		       struct err *e);

/* --- the pure parts (exposed for the rules and the tests) ---------------- */

/*
 * base + msgid percent-encoded as public-inbox writes it (everything but
 * A-Z a-z 0-9 and -._~!$&'()*+,;=:@ is %XX; so '/' '%' '?' '#' are) +
 * suffix.  A '/' is put after base when it has none.  malloc'ed.
 */
char *lookup_archive_url(const char *base, const char *msgid, const char *suffix);

/*
 * Counts the <entry> elements of an Atom feed (n bytes, need not be
 * complete: a feed cut at LOOKUP_MAX_BODY still counts what it holds)
 * whose <author><email> is neither author nor sender (address_same(); NULL
 * or "" is no one).  *entries (may be NULL) gets the number of entries.
 * Returns the count, or -1 when the text is no Atom feed.
 */
int lookup_atom_others(const char *xml, size_t n, const char *author, const char *sender,
		       int *entries);

/*
 * Fills r's message fields from a raw message (an mbox "From " line
 * first is fine; a second message after it is ignored).  -1 with e set
 * when it does not parse or its Message-ID is not r->msgid (the archive
 * answered with something else).
 */
int lookup_parse_message(struct lookup_result *r, const char *raw, size_t n, struct err *e);

/* How a transfer ended, for lookup_classify(). */
enum lookup_net {
	LOOKUP_NET_OK,		/* an HTTP answer came */
	LOOKUP_NET_NO_HOST,	/* the host name does not resolve */
	LOOKUP_NET_FAILED	/* anything else: timeout, refused, TLS, ... */
};

/* tagbot-rules(7): 404/410 and unresolvable hosts are dead; 5xx and failures unknown. */
enum lookup_status lookup_classify(enum lookup_net net, long http_code);

/* The cache entry's data: "key=value" lines, at most LOOKUP_CACHE_DATA_MAX
 * bytes; decode returns -1 on garbage or a longer blob (then the entry is a
 * miss).  url and msgid are not in the blob. */
char *lookup_result_encode(const struct lookup_result *r);
int lookup_result_decode(struct lookup_result *r, const char *blob, size_t n);

/* Whether a result fetched at fetched_at may be used at now. */
bool lookup_cache_fresh(time_t fetched_at, time_t now, int ttl);

#endif
