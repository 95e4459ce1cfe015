/*
 * ccmode.h - maintainer Cc mode, the pure part: whether a mail reaches
 * the bot directly, the commands it holds, whether its sender may give
 * them, which thread it belongs to, and what a rule is about (for
 * "tagbot: explain").  No I/O; daemon_cc.c does the rest.
 *
 * A mail is a Cc-mode request when the bot's address ([reply] from or
 * bot_addresses, a "+sub" part ignored) is in its To: or Cc: and the mail
 * is not itself a patch or cover letter (those take the normal path).
 *
 * Commands: a line of the mail's text that reads, after its white space
 * is trimmed, "tagbot: recheck", "tagbot: quiet" or "tagbot: explain
 * RULE_ID" (any case; blanks between the words, optional after the colon;
 * nothing else on the line).  Quoted lines (starting with '>', after white space) are never
 * read, and reading stops at the signature line "-- ", so a quoted or
 * signed example is not a command.
 *
 * Maintainers ([reply] maintainers): each entry is an address, compared
 * as address_same() does (case, "+sub"), or a shell pattern (fnmatch,
 * case-insensitive) when it holds one of * ? [ ("*@kernel.org"), matched
 * against the address as written and without its "+sub" part.
 */
#ifndef TAGBOT_CCMODE_H
#define TAGBOT_CCMODE_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/message.h"
#include "mail/patch.h"
#include "reply/policy.h"
#include "reply/reply.h"
#include "rules/rules.h"

#define CC_MAX_COMMANDS		8	/* commands kept from one mail; more are counted */
#define CC_LINE_MAX		256	/* a longer line is never a command */
#define CC_TEXT_MAX		((size_t)1024 * 1024) /* bytes of the text read for commands */
#define CC_RULE_ID_MAX		64	/* bytes of an explain argument */
#define CC_MAX_PARENTS		8	/* Message-IDs tried to find the patch a mail answers */
#define CC_LIST_MAX		((size_t)64 * 1024) /* bytes of a To/Cc value read */
#define CC_MAX_ADDRESSES	512	/* addresses of To and Cc looked at */

enum cc_command_kind {
	CC_RECHECK,	/* check the parent again, answer even if answered before */
	CC_EXPLAIN,	/* what rule arg checks and why */
	CC_QUIET	/* no more replies in this thread */
};

/* "recheck", "explain", "quiet". */
const char *cc_command_name(enum cc_command_kind k);

struct cc_command {
	enum cc_command_kind kind;
	char arg[CC_RULE_ID_MAX + 1];	/* CC_EXPLAIN: the rule ID, upper case; else "" */
	size_t line;			/* 1-based line of the text */
};

struct cc_commands {
	struct cc_command v[CC_MAX_COMMANDS];
	size_t n;
	size_t dropped;		/* commands past CC_MAX_COMMANDS (a repeated explain is
				 * kept once and not counted) */
	bool recheck, quiet;	/* some command of that kind was given */
};

/* Reads the commands of n bytes of decoded text (LF or CRLF lines; NUL
 * bytes end nothing, a line holding one is no command). */
void ccmode_parse_commands(const char *text, size_t n, struct cc_commands *out);

/* Whether the raw To: or Cc: value of msg names the bot (policy_is_bot_address). */
bool ccmode_to_bot(const struct message *msg, const struct policy_settings *ps);

/* Whether p is a Cc-mode request: addressed to the bot, not a patch or cover. */
bool ccmode_is_request(const struct patch *p, const struct policy_settings *ps);

/* Whether addr matches one of the n maintainer entries (see above). */
bool ccmode_is_maintainer(const char *const *maint, size_t n, const char *addr);

/*
 * The Message-ID naming p's thread: the first References entry, else
 * In-Reply-To, else p's own Message-ID ("" when none).  Foreign (into p).
 */
const char *ccmode_thread_root(const struct patch *p);

/*
 * The Message-IDs that may name the patch p answers, nearest first:
 * In-Reply-To, then References from the last to the first, each once,
 * at most max (<= CC_MAX_PARENTS).  Foreign (into p).  Returns how many.
 */
size_t ccmode_parent_ids(const struct patch *p, const char **out, size_t max);

/*
 * What rule id is about, for "tagbot: explain": a built-in rule of
 * rules.h or a custom rule of s (s may be NULL: built-in only).  out's
 * strings are foreign (static text, or s).  Unknown: out->known false,
 * out->id set to id, -1.
 */
int ccmode_explain(const char *id, const struct rule_settings *s, struct reply_explain *out);

#endif
