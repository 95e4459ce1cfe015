/*
 * authres.h - Authentication-Results (RFC 8601) values, and whether a mail
 * is authenticated for the domain of its From address.  Pure: no I/O.
 *
 * Who may steer the bot (maintainer Cc mode's commands) is decided by the
 * From address, which anyone can write.  The admin's own receiving server
 * (its DKIM/DMARC milter) says what it verified in an Authentication-Results
 * header it puts on top of the mail, naming itself by its authserv-id; that
 * is the only header believed:
 *
 *   - Only headers whose authserv-id equals the trusted one (compared
 *     case-insensitively) count; one naming another server never does.
 *   - Of those, only the topmost (the first in the header block) counts:
 *     the trusted server adds its header above everything the mail brought,
 *     so any header below it with the same authserv-id came from the sender
 *     (forged, or from an earlier trip through that server) and is ignored,
 *     even when it says pass.  A topmost header that does not parse is no
 *     pass; the parser never falls back to a header below it.  This holds
 *     only if that server adds its header to every mail or drops those a
 *     mail brings: OpenDKIM adds none to a mail with a malformed
 *     DKIM-Signature, so the MTA must drop them (tagbot.ini(5)).
 *   - The mail is authenticated when that header holds
 *       dkim=pass whose header.d is aligned with the From domain: equal to
 *         it, or the From domain is a subdomain of it ("relaxed" alignment:
 *         d=example.org covers From: x@lists.example.org; d=lists.example.org
 *         does not cover From: x@example.org, and a subdomain match needs a
 *         dot in d, so a bare "org" covers nothing).  Without header.d, the
 *         domain of header.i (the AUID, always inside d) is used.
 *       or dmarc=pass: the receiving server checked alignment itself; when
 *         it names header.from, that must equal the From domain.
 *     A result whose header.d, header.i or header.from is given twice or is
 *     overlong never counts.  Domains compare case-insensitively.
 *
 * Parsing follows RFC 8601's grammar: authserv-id (token or quoted string),
 * an optional version (only 1 is read; another makes the value unreadable),
 * then "; none" or resinfos "; method[/version]=result [reason=value]
 * [ptype.property=pvalue ...]".  Comments in parentheses (nested, with
 * \-quoting) and white space may stand between any two elements; methods,
 * results, ptypes and properties are case-insensitive (stored lower case).
 *
 * Usage:
 *
 *	enum authres_verdict v = authres_from_authenticated(msg,
 *			cfg->reply.trusted_authserv_id, "example.org");
 *
 *	if (!authres_is_pass(v))
 *		log("not authenticated: %s", authres_verdict_name(v));
 */
#ifndef TAGBOT_AUTHRES_H
#define TAGBOT_AUTHRES_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/message.h"

#define AUTHRES_MAX_RESULTS	16	/* resinfos kept from one value; more are dropped */
#define AUTHRES_KEYWORD_MAX	64	/* bytes of a method, result, ptype or property */
#define AUTHRES_ID_MAX		255	/* bytes of an authserv-id; longer is unreadable */
#define AUTHRES_VALUE_MAX	320	/* bytes of header.d/i/from kept ("local@domain") */

/* One resinfo: "dkim=pass header.d=example.org". */
struct authres_result {
	char method[AUTHRES_KEYWORD_MAX + 1];	/* lower case: "dkim", "dmarc", "spf" */
	char result[AUTHRES_KEYWORD_MAX + 1];	/* lower case: "pass", "fail", "none" */
	char header_d[AUTHRES_VALUE_MAX + 1];	/* lower case, unquoted; "" when absent */
	char header_i[AUTHRES_VALUE_MAX + 1];	/* lower case ("@example.org"); "" when absent */
	char header_from[AUTHRES_VALUE_MAX + 1]; /* lower case; "" when absent */
	bool unusable;	/* one of those three given twice or overlong: never counts */
};

/* One Authentication-Results value. */
struct authres {
	char authserv_id[AUTHRES_ID_MAX + 1];	/* as written, unquoted */
	bool none;		/* "; none": nothing was checked */
	struct authres_result v[AUTHRES_MAX_RESULTS];
	size_t n;
	size_t dropped;		/* resinfos past AUTHRES_MAX_RESULTS */
};

/*
 * Parses the n bytes at s (an unfolded, undecoded header value; need not
 * be NUL-terminated) into out.  0 on success; -1 when s is not an
 * Authentication-Results value (out is then partly filled: authserv_id
 * is set when it could be read, for authres_id_is()).
 */
int authres_parse(const char *s, size_t n, struct authres *out);

/* Whether the value at s names authserv_id as its authserv-id. */
bool authres_id_is(const char *s, size_t n, const char *authserv_id);

enum authres_verdict {
	AUTHRES_DKIM_PASS,	/* an aligned dkim=pass */
	AUTHRES_DMARC_PASS,	/* dmarc=pass for the From domain */
	AUTHRES_NO_TRUSTED_ID,	/* authserv_id NULL or "": nothing is trusted */
	AUTHRES_NO_FROM_DOMAIN,	/* from_domain NULL or "" */
	AUTHRES_NO_HEADER,	/* no Authentication-Results from authserv_id */
	AUTHRES_UNREADABLE,	/* the topmost one from authserv_id does not parse */
	AUTHRES_NO_PASS		/* it holds neither pass for the From domain */
};

/* Whether v says the mail is authenticated. */
static inline bool authres_is_pass(enum authres_verdict v)
{
	return v == AUTHRES_DKIM_PASS || v == AUTHRES_DMARC_PASS;
}

/* What v means, for the log: "dkim=pass", "no Authentication-Results
 * from the trusted authserv-id", ... */
const char *authres_verdict_name(enum authres_verdict v);

/*
 * Whether m is authenticated for from_domain (the domain of its From
 * address, without '@') by the topmost Authentication-Results header
 * (raw value) whose authserv-id is authserv_id; the rules are above.
 */
enum authres_verdict authres_from_authenticated(const struct message *m,
						const char *authserv_id,
						const char *from_domain);

/* Whether the result r authenticates from_domain (the rules above). */
bool authres_result_passes(const struct authres_result *r, const char *from_domain);

#endif
