/*
 * mail.h - the face of mail/: bytes -> model, no I/O, no clock but what
 * the caller passes.  A raw mail becomes a struct message (message.h,
 * MIME with libetpan's MIME API, charsets, RFC 2047), then one struct
 * patch per part (patch.h: kind, subject tags, author, commit message,
 * trailers (trailer.h), diff).  Beside them: addresses (address.h, RFC
 * 5322 first), every Message-ID rule (msgid.h), dates (maildate.h),
 * Authentication-Results (authres.h), cited commits (commitref.h),
 * archive links (linkref.h) and what is remembered of a message
 * (context.h).  Includes lib/ only; message_p.h is private to this folder.
 *
 *	struct message m;
 *	struct patch *p;
 *	size_t np;
 *
 *	if (message_parse(&m, raw, len, &e) < 0)
 *		return -1;				// e names what was wrong
 *	patch_parse(&m, &p, &np);
 *	key = msgid_key(p[0].message_id);		// the store's key
 *	...
 *	patches_free(p, np);
 *	message_release(&m);
 */
#ifndef TAGBOT_MAIL_H
#define TAGBOT_MAIL_H

#include "mail/address.h"
#include "mail/authres.h"
#include "mail/commitref.h"
#include "mail/context.h"
#include "mail/linkref.h"
#include "mail/maildate.h"
#include "mail/message.h"
#include "mail/msgid.h"
#include "mail/patch.h"
#include "mail/trailer.h"

#endif
