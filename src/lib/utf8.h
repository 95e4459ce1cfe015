/*
 * utf8.h - the little Unicode tagbot needs: validation, NFC composition of
 * the Latin letters people's names use, and case folding for comparison.
 * Pure functions over memory.
 */
#ifndef TAGBOT_UTF8_H
#define TAGBOT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when the n bytes at s are well-formed UTF-8. */
bool utf8_valid(const char *s, size_t n);

/*
 * Returns a malloc'ed copy of s in NFC for the precomposed letters of Latin-1
 * Supplement and Latin Extended-A/B (base letter + combining mark ->
 * precomposed letter).  Other text is copied as it is.  Invalid UTF-8 is
 * copied byte for byte.
 */
char *utf8_nfc(const char *s, size_t n);

/*
 * The form a person's name is compared in (malloc'ed): NFC, case-folded
 * for ASCII and the Latin letters above, double quotes and backslashes
 * dropped wherever they stand (a display name may keep the inner quotes
 * of Jane "JD" Doe or lose them), single quotes around a word dropped (not
 * the one in O'Brien), commas and runs of white space made one space,
 * trimmed.  A parenthesised comment, "Jane Doe (Nokia)", is dropped when
 * comments is false and kept as words (without its parentheses) when true;
 * parentheses that do not pair up are kept as they are.
 */
char *utf8_name_key(const char *s, bool comments);

/* Compares two names by utf8_name_key(s, false): 0 when equal. */
int utf8_name_cmp(const char *a, const char *b);

/* Number of bytes of the UTF-8 sequence starting at s: 1 for an invalid
 * byte (overlong forms and surrogates are invalid), 0 when n is 0. */
size_t utf8_seqlen(const char *s, size_t n);

/* Decodes the character at s (n bytes): its length, with *cp set, or 0
 * when n is 0 or the bytes are not well-formed UTF-8 (as utf8_seqlen()). */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

#define UTF8_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* C0, DEL, C1 and the line and paragraph separators U+2028/9. */
bool utf8_is_control(uint32_t cp);

/*
 * A copy of n bytes of s safe for one header or log line: invalid UTF-8
 * becomes U+FFFD, control characters (utf8_is_control()) become spaces,
 * runs of white space one space, trimmed, cut at max bytes on a character
 * boundary.  malloc'ed.  For every value taken from a mail into a header
 * we write, the store or a log line.
 */
char *utf8_clean_line(const char *s, size_t n, size_t max);

/* Writes code point cp (at most U+10FFFF) as UTF-8 into out; returns the
 * number of bytes (1 to 4). */
size_t utf8_encode(uint32_t cp, char out[4]);

/* Levenshtein distance between a and b, ASCII letters compared without
 * case (for "did you mean" suggestions); SIZE_MAX when either is longer
 * than UTF8_EDIT_MAX bytes. */
#define UTF8_EDIT_MAX	64
size_t utf8_edit_distance(const char *a, const char *b);

#endif
