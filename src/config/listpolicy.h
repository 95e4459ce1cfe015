/*
 * listpolicy.h - the per-list policy of config.h ([default], [list ID])
 * applied to one mail: the rule settings, reply settings and policy
 * settings the daemon's decide() uses for it.
 *
 * The settings are copies of the daemon's with the list's severities, to,
 * min_reply_severity put in; everything they point to stays owned by the
 * configuration, so a struct list_apply needs no release and lives no
 * longer than the configuration it was made from.
 */
#ifndef TAGBOT_LISTPOLICY_H
#define TAGBOT_LISTPOLICY_H

#include "config/config.h"
#include "mail/message.h"
#include "reply/policy.h"
#include "reply/reply.h"
#include "rules/rules.h"

/* The store's "skipped:<why>" for a reply a list with enabled = no withholds. */
#define LIST_DISABLED_REASON	"list-disabled"
/*
 * ... and for a copy that shows no list (no List-Id or X-Mailing-List: a
 * direct Cc that outran the list's copy) when [default] is not enabled: a
 * decision another copy may revise.  The list's copy, when it comes, is
 * decided afresh (daemon_msg.c), so an opt-in list's patch is answered
 * whichever copy arrives first.  A series part's copy is recorded so
 * whatever its findings when a list may answer per series: the series is
 * made of its list's copies (daemon_series_awaits_list()).
 */
#define LIST_UNKNOWN_REASON	"list-unknown"

struct list_apply {
	const struct list_policy *pol;		/* foreign (the config); never NULL */
	char id[CONFIG_MAX_LIST_ID + 1];	/* the mail's list ID; "" when it has none */
	struct rule_settings rules;		/* shallow copy: never release it */
	struct reply_settings rs;
	struct policy_settings ps;
};

/*
 * Fills a for mail msg (NULL: a mail of no list) from c and the daemon's
 * settings rs and ps, which are copied and given the list's severities,
 * to and min_reply_severity.  The list ID is read from msg's List-Id and
 * X-Mailing-List headers (config_mail_list_id()).
 */
void list_apply(struct list_apply *a, const struct config *c, const struct message *msg,
		const struct reply_settings *rs, const struct policy_settings *ps);

#endif
