/*
 * ascii.h - character classes of the ASCII range, the same in every
 * locale.  Mail headers, trailers, diffs and ini files are ASCII syntax:
 * what counts as a digit or a space there must not depend on LC_CTYPE,
 * and a byte >= 0x80 (UTF-8) is never a letter, digit or space here.
 *
 * Every function takes an int the way <ctype.h> does, but any char or
 * unsigned char value is fine (a negative char is simply no member):
 *
 *	while (ascii_is_blank(*s))
 *		s++;
 *	if (ascii_is_xdigit(*s))
 *		...
 *
 * Three kinds of white space, because the formats differ:
 *   ascii_is_blank()  SP HT               (RFC 5322 WSP, C's isblank)
 *   ascii_is_lws()    SP HT CR LF         (blanks and line ends)
 *   ascii_is_space()  SP HT CR LF VT FF   (C's isspace in the C locale)
 */
#ifndef TAGBOT_ASCII_H
#define TAGBOT_ASCII_H

#include <stdbool.h>
#include <stddef.h>

static inline bool ascii_is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static inline bool ascii_is_lws(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline bool ascii_is_space(int c)
{
	return ascii_is_lws(c) || c == '\v' || c == '\f';
}

static inline bool ascii_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline bool ascii_is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static inline bool ascii_is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static inline bool ascii_is_alpha(int c)
{
	return ascii_is_upper(c) || ascii_is_lower(c);
}

static inline bool ascii_is_alnum(int c)
{
	return ascii_is_alpha(c) || ascii_is_digit(c);
}

/* Letter, digit or hyphen: a host name label (RFC 1034), a trailer token. */
static inline bool ascii_is_ldh(int c)
{
	return ascii_is_alnum(c) || c == '-';
}

static inline bool ascii_is_xdigit(int c)
{
	return ascii_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Lower-case hex only, as git writes object names. */
static inline bool ascii_is_lxdigit(int c)
{
	return ascii_is_digit(c) || (c >= 'a' && c <= 'f');
}

/* Printable: SP through '~'. */
static inline bool ascii_is_print(int c)
{
	return c >= ' ' && c <= '~';
}

static inline int ascii_tolower(int c)
{
	return ascii_is_upper(c) ? c - 'A' + 'a' : c;
}

static inline int ascii_toupper(int c)
{
	return ascii_is_lower(c) ? c - 'a' + 'A' : c;
}

/* The value of a hex digit, -1 when c is none. */
static inline int ascii_hex_value(int c)
{
	if (ascii_is_digit(c))
		return c - '0';
	c = ascii_tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether the n bytes at s start with lit, ASCII letters in any case. */
static inline bool ascii_has_prefix_ci(const char *s, size_t n, const char *lit)
{
	size_t i;

	for (i = 0; lit[i]; i++)
		if (i >= n || ascii_tolower((unsigned char)s[i]) != ascii_tolower((unsigned char)lit[i]))
			return false;
	return true;
}

/*
 * Whether the strings a and b are equal, ASCII letters in any case: what
 * !strcasecmp() says in the C locale, inline, so a lookup through a mail's
 * dozens of header names stops at the first letter of most.
 */
static inline bool ascii_streq_ci(const char *a, const char *b)
{
	for (; *a; a++, b++)
		if (ascii_tolower((unsigned char)*a) != ascii_tolower((unsigned char)*b))
			return false;
	return !*b;
}

#endif
