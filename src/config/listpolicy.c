/*
 * listpolicy.c - one mail's per-list settings (listpolicy.h).
 */
#include "autoconf.h"
#include <string.h>

#include "config/listpolicy.h"

void list_apply(struct list_apply *a, const struct config *c, const struct message *msg,
		const struct reply_settings *rs, const struct policy_settings *ps)
{
	const char *lid = msg ? message_header_last(msg, "List-Id") : NULL;
	const char *xml = msg ? message_header(msg, "X-Mailing-List") : NULL;

	if (config_mail_list_id(lid, xml, a->id, sizeof(a->id)) < 0)
		a->id[0] = '\0';
	a->pol = config_policy_for(c, a->id[0] ? a->id : NULL);
	/* Custom rules and pattern lists are shared with c->rules; only the
	 * built-in severities differ per list. */
	a->rules = c->rules;
	memcpy(a->rules.severity, a->pol->severity, sizeof(a->rules.severity));
	a->rs = *rs;
	a->rs.to = a->pol->to;
	a->rs.list_address = a->pol->address;
	a->rs.min_severity = a->pol->min_reply_severity;
	a->ps = *ps;
	a->ps.min_reply_severity = a->pol->min_reply_severity;
	a->ps.rs = &a->rs;
}
