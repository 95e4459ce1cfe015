/*
 * msgid.h - every rule about Message-IDs, in one place.
 *
 * One policy, whatever the use:
 *
 *   trimming  White space around the ID and one pair of angle brackets are
 *             not part of it: "  <a@b>  " is "a@b".  Nothing inside is
 *             changed, so an ID with a space inside stays one and the
 *             checks below refuse it where that matters.
 *   length    An ID longer than MSGID_MAX bytes (a header line's limit,
 *             RFC 5322 2.1.1) is no ID: msgid_key() and msgid_from_raw()
 *             give NULL.  What the bot writes into its own headers is
 *             held to MSGID_HEADER_MAX (msgid_header_safe()).
 *   case      The part after the last '@' compares case-insensitively,
 *             the part before it exactly (RFC 5322 leaves the local part
 *             to its author; the domain is a domain).  msgid_key() lower-
 *             cases the domain so that keys compare with strcmp().
 *
 *	char *k = msgid_key(" <20250101.1234@Example.ORG> ");	// "20250101.1234@example.org"
 *
 *	if (k && msgid_same(k, link_msgid))
 *		...
 *	free(k);
 */
#ifndef TAGBOT_MSGID_H
#define TAGBOT_MSGID_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

#define MSGID_MAX		998	/* bytes of an ID: one header line (RFC 5322) */
#define MSGID_HEADER_MAX	250	/* bytes of an ID the bot copies into a header */

/*
 * The store's key of a Message-ID: trimmed, the domain lower-cased;
 * malloc'ed.  NULL for NULL, for an ID empty after trimming, and for one
 * longer than MSGID_MAX.
 */
char *msgid_key(const char *msgid);

/* msgid_key(), and NULL too when the key holds white space (a
 * References or In-Reply-To word that is no single ID). */
char *msgid_ref_key(const char *id);

/*
 * The ID of a header value as written: the text of its first <...> (to the
 * end when the '>' is missing), else the whole value, white space trimmed;
 * malloc'ed, "" for NULL.  No length cap and no case folding: this is the
 * ID a finding quotes.
 */
char *msgid_strip(const char *value);

/* Whether a and b (trimmed, without <>) are the same ID under the case
 * rule above; false when either is NULL. */
bool msgid_same(const char *a, const char *b);

/*
 * Whether id may be written into a header of ours as it is: one '@' with
 * text on both sides, printable ASCII without space, quotes, <>, (),
 * backslash or "=?" (a lax reader could decode it as RFC 2047), at most
 * MSGID_HEADER_MAX bytes; given without the <>.
 */
bool msgid_header_safe(const char *id);

/*
 * The Message-ID of a raw mail (len bytes) read from its header without
 * parsing it: the first Message-ID: line within MSGID_SCAN_MAX bytes (one
 * the limit cuts is not within them), trimmed; a folded value is not
 * followed.  malloc'ed; NULL when there is
 * none, when it is longer than MSGID_MAX or holds a NUL.  For a mail the
 * parser refused, or one to skip cheaply because the store has seen it.
 */
#define MSGID_SCAN_MAX		((size_t)256 * 1024) /* raw header bytes looked at */
char *msgid_from_raw(const char *raw, size_t len);

/*
 * Appends id to out percent-encoded as public-inbox writes it in a URL:
 * everything but A-Z a-z 0-9 and -._~!$&'()*+,;=:@ becomes %XX (so '/',
 * '%', '?' and '#' do).
 */
void msgid_url_encode(struct buf *out, const char *id);

#endif
