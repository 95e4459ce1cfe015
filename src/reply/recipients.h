/*
 * recipients.h - whom a reply to a patch mail goes to, decided from what
 * the sender cannot steer.  Pure: no I/O, no clock.
 *
 * To: the submitter, the mail's sender: the header From: as parsed by
 * address_parse_mailbox() (raw, RFC 5322 first, one well-formed mailbox).
 * Two senders write someone else's address there, and for them the
 * original one (X-Original-From:, else Reply-To:, one mailbox each) is
 * the submitter:
 *   - B4 Relay: From: "devnull+..." (the relay takes no mail);
 *   - a list's DMARC rewrite: a display name with " via " AND a From:
 *     address that is a configured list's own address
 *     (reply_settings.list_addresses).  Anywhere else " via " is a name
 *     like any other and Reply-To: redirects nothing.
 *
 * Cc: the in-body From: author when cc_author is set and it is another
 * person than the submitter, and that From: is one well-formed mailbox
 * (an author git mailinfo guessed from a malformed one, patch.bad_from,
 * is only named in findings); the list's configured address
 * (reply_settings.list_address) for to = author+list and all.  What the
 * mail's List-Id or List-Post says is never a recipient.
 *
 * Never answered, as To or Cc: an address that is not a plain addr-spec
 * (address_header_safe), a configured list's address or the mail's own
 * List-Post/List-Id address (it would mail a whole list), a relay's
 * devnull+ address, the bot's own addresses.  Reading those forgeable
 * headers only ever removes a recipient.
 *
 *	struct recipients r;
 *
 *	recipients_find(&r, patch, settings);
 *	if (!r.to.email[0])
 *		log("no reply: %s", r.why);
 *	recipients_release(&r);
 */
#ifndef TAGBOT_RECIPIENTS_H
#define TAGBOT_RECIPIENTS_H

#include "mail/address.h"
#include "mail/patch.h"
#include "reply/settings.h"

struct recipients {
	struct person to;	/* owned; the submitter; email "" when nobody */
	struct person author;	/* owned; the in-body author to Cc; email "" when none */
	const char *list;	/* foreign (settings); the list to Cc, or NULL */
	const char *why;	/* static; when to.email is "": why nobody is answered */
	const struct patch *of;	/* foreign; the patch they were found for */
};

/* Fills r for patch p (p->msg supplies the raw headers).  0 when there is
 * someone to answer, -1 (r->why set, r->to.email "") when not. */
int recipients_find(struct recipients *r, const struct patch *p, const struct reply_settings *s);

void recipients_release(struct recipients *r);

/* The recipients of a reply to p with s: those s carries for p (s->who,
 * found by the caller with s), else recipients_find() into own; when the
 * result is own, recipients_release() it.  Nobody: to.email "". */
const struct recipients *recipients_of(const struct patch *p, const struct reply_settings *s,
				       struct recipients *own);

/*
 * Whether addr may receive a reply about p: a plain addr-spec that is not
 * a list's (configured, or p's List-Post/List-Id), a relay's or the bot's.
 */
bool recipients_may_mail(const struct patch *p, const struct reply_settings *s, const char *addr);

#endif
