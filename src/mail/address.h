/*
 * address.h - "Display Name <local@domain>" as mail headers and trailers
 * write it.  Pure functions over memory.  address_parse() reads a trailer's
 * decoded UTF-8 text leniently; recipients come from raw header values
 * through address_list_parse() and address_parse_mailbox(), strictly; a
 * From: the strict reading refuses is read by address_recover() as git
 * reads it, for the author git will record, never for a recipient.
 */
#ifndef TAGBOT_ADDRESS_H
#define TAGBOT_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>

struct person {
	char *name;	/* owned; display name without quotes, "" when absent */
	char *email;	/* owned; addr-spec as written, "" when absent */
};

/*
 * Parses one address from n bytes at s: "Name <a@b>", "\"Last, First\" <a@b>",
 * "a@b (Name)", "<a@b>" or "a@b".  On success fills p and returns 0, and sets
 * *rest (when non-NULL) to the first byte after the address (so a caller can
 * see trailing text such as "# comment").  Returns -1 when no plausible
 * addr-spec is found (then p is left empty).
 */
int address_parse(struct person *p, const char *s, size_t n, const char **rest);

/*
 * The mailboxes of a raw header value (not RFC 2047 decoded: From:, To:,
 * Cc:, Reply-To:, X-Original-From:, an in-body From: line), read by RFC
 * 5322 first: quoted-strings, (comments), groups ("name: a@b, c@d;"),
 * obsolete routes ("<@relay:a@b>").  Only then are encoded-words decoded,
 * and only in display names and comments (RFC 2047 section 5 forbids them
 * in an addr-spec): "=?utf-8?q?V_<v=40x.org>?= <a@b.org>" is a@b.org named
 * "V <v@x.org>", and "<=?utf-8?q?v=40x.org?=>" is no address.  An element
 * that is not a well-formed mailbox (an addr-spec of a dot-atom or quoted
 * local part and a dot-atom or literal domain, angle-addr followed by
 * nothing but comments) is counted in bad, never guessed at.
 *
 *	struct address_list l;
 *
 *	address_list_parse(&l, message_header_raw(m, "Cc"), len, REPLY_MAX_RCPT);
 *	for (size_t i = 0; i < l.n; i++)
 *		use(l.v[i].email);
 *	address_list_release(&l);
 */
struct address_list {
	struct person *v;	/* owned; well-formed mailboxes, in order */
	size_t n;
	size_t bad;		/* elements that are not a well-formed mailbox */
	size_t dropped;		/* well-formed ones past max */
};

void address_list_parse(struct address_list *l, const char *raw, size_t n, size_t max);
void address_list_release(struct address_list *l);

/*
 * The one mailbox of a raw From:-like value (as address_list_parse reads
 * it).  0 when the value holds exactly one well-formed mailbox and nothing
 * else; -1 otherwise (two mailboxes, a malformed one, none), with p's
 * name and email "".
 */
int address_parse_mailbox(struct person *p, const char *raw, size_t n);

/*
 * What git mailinfo reads from n bytes at s, a From: value that is not one
 * well-formed mailbox, RFC 2047 decoded (git decodes before it reads): its
 * handle_from().  White space runs become one space; quoted-strings lose
 * their quotes and comments keep their parentheses, a backslash escaping
 * the next byte in either, and one left open runs to the end.  The address
 * is the word around the first '@', from white space or a '<' before it to
 * white space or a '>' after it; what remains, trimmed and without one
 * enclosing "()", is the name, unless it is empty, over 60 bytes or holds
 * '@', '<' or '>': then the name is the address.  Without an '@',
 * "name <x>" gives x and the name, its quotes kept; anything else nothing.
 *
 *	"Jane Doe <jane@example.org>	-> Jane Doe, jane@example.org
 *	jane@example.org (Jane Doe	-> (Jane Doe, jane@example.org
 *
 * Fills p (owned, "" when absent) and returns 0 when the value has an '@',
 * else -1 (p may still hold what git takes: "Jane <jane>" is Jane, jane).
 * Only for what git will record: an address read this way is no one to
 * mail.
 */
int address_recover(struct person *p, const char *s, size_t n);

/*
 * p as git writes a person into a commit (ident.c): bytes up to ' ' and
 * . , : ; < > " \ ' are cut from both ends of the name and of the address,
 * and '<', '>' and newlines inside them dropped.  In place.
 */
void person_git_ident(struct person *p);

/* Frees the contents. */
void person_release(struct person *p);

/*
 * True when two addresses are the same mailbox: local parts compare
 * case-insensitively after dropping a "+sub" part, domains case-
 * insensitively.  (tagbot-rules(7): NO_AUTHOR_SIGN_OFF.)
 */
bool address_same(const char *a, const char *b);

/* True when email is syntactically an addr-spec (local@domain.tld-ish). */
bool address_valid(const char *email);

/* A plain ASCII addr-spec: dot-atom local part (no quoted forms), domain of
 * letters, digits, '-' and '.', no "=?", at most 254 bytes.  Stricter than
 * address_valid(): what passes can be put in a header of ours as it is. */
bool address_header_safe(const char *addr);

/* Dotted labels of letters, digits and '-', none empty or starting or
 * ending in '-': a domain a header of ours may carry. */
bool address_domain_safe(const char *domain);

/* RFC 5322 atext in ASCII: a letter, a digit or one of !#$%&'*+-/=?^_`{|}~. */
bool address_is_atext(int c);

/* addr without the "+sub" of its local part ("bot+lkml@x" -> "bot@x");
 * malloc'ed, a copy of addr when it has none. */
char *address_strip_plus(const char *addr);

#endif
