/*
 * policy.h - whether the bot replies to a checked mail.
 *
 * Never to the bot's own addresses (plus-addressed variants too), to mail
 * with Auto-Submitted other than "no" (RFC 3834), to X-Patchwork-Hint:
 * ignore, to ignore_senders (the known bots by default), to replies, pull
 * requests or other non-patches; nothing for a patch or cover letter with
 * no finding at or above min_reply_severity.  Cover letters are checked:
 * one still holding "*** BLURB HERE ***" gets a reply.  "Precedence: bulk"
 * is deliberately not a reason: every list copy carries it.
 *
 * Rate limits (struct policy): at most max_per_author_per_hour replies to
 * one person in any sliding hour, and max_per_minute replies in any
 * sliding minute overall.  The windows (the replies counted) live in
 * memory, or where policy_set_events() says: the daemon's store, which
 * every daemon on one state shares.  A reply to a
 * patch counts for each person it mails, keyed by that person AND the
 * submitter (recipients.h): To the submitter counts under the submitter,
 * a Cc to the in-body author under "author for submitter".  So ten
 * patches from Mallory naming Victim as author use up Mallory's budget
 * and Victim-for-Mallory's, never Victim's own: Victim's patch is answered.  A mail over a
 * limit is POLICY_HOLD: the caller logs it as held back and records it.
 *
 * Time is always passed in; nothing here reads the clock, so tests are
 * deterministic.  policy_decide() does not change the state: the caller
 * calls policy_note_reply() once the reply is actually queued (not when the
 * store says the patch already had one).
 */
#ifndef TAGBOT_POLICY_H
#define TAGBOT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "mail/patch.h"
#include "reply/reply.h"
#include "rules/rules.h"

#define POLICY_MAX_AUTHORS	4096	/* authors tracked for the hourly limit */
#define POLICY_MAX_TIMES	1024	/* reply times kept per author / globally */
#define POLICY_PATTERN_MAX	256	/* bytes of one ignore_senders pattern */

enum policy_verdict {
	POLICY_REPLY,	/* build and queue a reply */
	POLICY_CLEAN,	/* checked, nothing to say */
	POLICY_SKIP,	/* not ours to answer (reason says why) */
	POLICY_HOLD	/* would reply, but a rate limit is reached */
};

enum policy_reason {
	REASON_NONE,		/* POLICY_REPLY */
	REASON_CLEAN,		/* POLICY_CLEAN */
	REASON_OWN_ADDRESS,
	REASON_AUTO_SUBMITTED,
	REASON_PATCHWORK_IGNORE,
	REASON_IGNORED_SENDER,
	REASON_REPLY,
	REASON_PULL,
	REASON_NOT_A_PATCH,
	REASON_RFC,		/* an RFC, and answer_rfc is off */
	REASON_RATE_AUTHOR,
	REASON_RATE_GLOBAL,
	REASON_RATE_SHARE	/* one submitter's share of the global limit */
};

/* "reply", "clean", "skip", "hold". */
const char *policy_verdict_name(enum policy_verdict v);
/* "", "clean", "own-address", "auto-submitted", "patchwork-ignore",
 * "ignored-sender", "reply", "pull-request", "not-a-patch", "rfc",
 * "rate-limit-author", "rate-limit-global", "rate-limit-share": the <why> of the store's
 * "skipped:<why>". */
const char *policy_reason_name(enum policy_reason r);

struct policy_settings {
	enum severity min_reply_severity;	/* default warning */
	const char *from;			/* foreign; the bot's From ("Name <addr>" or addr) */
	const char *const *bot_addresses;	/* foreign; more addresses of the bot */
	size_t nbot_addresses;
	/* foreign; patterns (fnmatch globs, case-insensitive): with '@' they
	 * match the sender's and author's address (also without "+sub"),
	 * without '@' their display names.  NULL: the defaults below. */
	const char *const *ignore_senders;
	size_t nignore_senders;
	unsigned max_per_author_per_hour;	/* default 10; 0 = no limit */
	unsigned max_per_minute;		/* default 30; 0 = no limit */
	/* percent of max_per_minute one submitter may take in any minute
	 * (default 50; 0 or 100: no share kept), so a flood from one address
	 * leaves room for everyone else */
	unsigned max_share_per_sender;
	/* answer RFC postings too (default no: an RFC asks for comments on an
	 * idea, not for merging, and its tags are often unfinished on purpose) */
	bool answer_rfc;
	/* foreign; whom a reply to a patch goes to (recipients.h), for the
	 * hourly limit's keys; NULL: the patch's author alone */
	const struct reply_settings *rs;
};

/* The known bots: kernel test robot, syzbot, patchwork-bot, pr-tracker-bot,
 * sashiko-bot, bounces. */
extern const char *const policy_default_ignore_senders[];
extern const size_t policy_ndefault_ignore_senders;

/* min warning, from NULL, default ignore list, 10 per author and hour,
 * 30 per minute. */
void policy_settings_init(struct policy_settings *s);

struct policy_decision {
	enum policy_verdict verdict;
	enum policy_reason reason;
	size_t nfindings;	/* findings at or above min_reply_severity */
	const char *matched;	/* foreign; the ignore_senders pattern that matched, or NULL */
};

struct policy;	/* opaque: the rate-limit windows */

struct policy *policy_new(void);
void policy_free(struct policy *pol);

/*
 * Decides for patch p (p->msg, when set, supplies Auto-Submitted and
 * X-Patchwork-Hint) with findings f at time now.  pol may be NULL (no rate
 * limits).
 */
void policy_decide(const struct policy *pol, const struct policy_settings *s,
		   const struct patch *p, const struct findings *f, time_t now,
		   struct policy_decision *out);

/* Counts a reply to p queued at now: once in the global window, and under
 * each of its keys (above) in the hourly one. */
void policy_note_reply(struct policy *pol, const struct policy_settings *s,
		       const struct patch *p, time_t now);

/* policy_rate_check() over each key of a reply to p (above). */
enum policy_verdict policy_rate_check_patch(const struct policy *pol,
					    const struct policy_settings *s,
					    const struct patch *p, time_t now,
					    enum policy_reason *reason, time_t *free_at);

/* The address the hourly limit counts p's replies under: its author's, else
 * its sender's; foreign (p's); NULL when it has neither. */
const char *policy_author_address(const struct patch *p);

/*
 * The rate limits alone, for a reply to addr ("+sub" and case ignored;
 * NULL: only the global cap) at now, for the replies that are not one
 * patch's (Cc-mode answers, series replies).  POLICY_REPLY, or POLICY_HOLD
 * with *reason REASON_RATE_AUTHOR or REASON_RATE_GLOBAL (REASON_NONE
 * otherwise); then *free_at (may be NULL) is the time that limit has room
 * again, if nothing else is queued meanwhile.  pol may be NULL (no limits).
 */
enum policy_verdict policy_rate_check(const struct policy *pol, const struct policy_settings *s,
				      const char *addr, time_t now, enum policy_reason *reason,
				      time_t *free_at);

/* The latest reply counted under addr's key ("+sub" and case ignored) in
 * the hour before now (a later one too: a clock set back); 0 when none.
 * Replies a limit held go out in turn by it (daemon_series.c). */
time_t policy_last_reply(const struct policy *pol, const char *addr, time_t now);

/* Counts a reply queued to addr (NULL: the global window only) at now. */
void policy_note_reply_to(struct policy *pol, const char *addr, time_t now);

/*
 * Where the windows live.  policy_new() keeps them in its own memory: this
 * process's replies only, forgotten at exit.  policy_set_events() hands
 * them to functions that keep them elsewhere (the daemon's: the store's
 * rate events, store.h), asked at every check, so that processes sharing
 * that place count each other's replies too and keep the limits together.
 * Keys: "" for the global window, else a person's key (address lower
 * case, "+sub" dropped, or "author for submitter").  The functions cannot
 * fail: one whose place fails answers as if the window were full (count
 * UINT_MAX), so a reply is held rather than sent past a limit.
 */
struct policy_events {
	/* The events under key later than since. */
	unsigned (*count)(void *ctx, const char *key, time_t since);
	/* The time of the n-th of them (0: the oldest); 0 when there is none. */
	time_t (*nth)(void *ctx, const char *key, time_t since, unsigned n);
	/* The latest of them; 0 when none. */
	time_t (*last)(void *ctx, const char *key, time_t since);
	/* Counts one at t. */
	void (*add)(void *ctx, const char *key, time_t t);
	void *ctx;		/* foreign; passed to all */
};

void policy_set_events(struct policy *pol, const struct policy_events *ev);

/* True when addr is the bot's (from or bot_addresses, "+sub" ignored). */
bool policy_is_bot_address(const struct policy_settings *s, const char *addr);

#endif
