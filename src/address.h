/*
 * address.h - "Display Name <local@domain>" as mail headers and trailers
 * write it.  Pure functions over memory; strings are UTF-8 (already decoded).
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

/* Frees the contents. */
void person_release(struct person *p);

/*
 * True when two addresses are the same mailbox: local parts compare
 * case-insensitively after dropping a "+sub" part, domains case-
 * insensitively.  (RULES.md: NO_AUTHOR_SIGN_OFF.)
 */
bool address_same(const char *a, const char *b);

/* True when email is syntactically an addr-spec (local@domain.tld-ish). */
bool address_valid(const char *email);

#endif
