/*
 * listid.h - the list a mail came through, by its ID: the one parser of
 * List-Id (RFC 2919) and X-Mailing-List, for the patch (patch->list_id,
 * the series' context) and the per-list policy ([list ID] sections) alike,
 * so that both name the same list for one mail.
 *
 * From List-Id: the id inside the last <> (a phrase before it may itself
 * quote a "<...>"); without a '<', the whole value.  A '<' without a '>'
 * after it, an empty id, one with a space or a byte outside printable
 * ASCII, or one longer than MAIL_LIST_ID_MAX bytes is no ID: then
 * X-Mailing-List's value counts, read by the same rule (its usual form is
 * the list's address, linux-leds@vger.kernel.org).  The ID is trimmed and
 * lower case; '@' is kept (config_policy_for() matches both forms).
 *
 *	char id[MAIL_LIST_ID_MAX + 1];
 *
 *	if (mail_list_id(message_header_last(m, "List-Id"),
 *			 message_header(m, "X-Mailing-List"), id, sizeof(id)) < 0)
 *		id[0] = '\0';	// no list shows in this copy
 */
#ifndef TAGBOT_LISTID_H
#define TAGBOT_LISTID_H

#include <stddef.h>

#define MAIL_LIST_ID_MAX	255	/* bytes of a list ID */

/* The list ID from the decoded List-Id and X-Mailing-List values (either
 * may be NULL) into out (size bytes); -1 when neither gives one that fits. */
int mail_list_id(const char *list_id, const char *x_mailing_list, char *out, size_t size);

#endif
