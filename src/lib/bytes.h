/*
 * bytes.h - tests of eight bytes at a time (SWAR: SIMD within a register),
 * for scans that look at every byte of a mail and would otherwise take one
 * compare and branch per byte.  Portable C: a word is loaded with memcpy,
 * so any alignment and either byte order will do; the tests only say
 * whether some byte of the word matches, never which one, so a caller
 * that finds one looks at those eight bytes one by one.
 *
 *	for (i = 0; i + 8 <= n; i += 8)
 *		if (bytes_has(bytes_load(s + i), '>'))
 *			break;		// s[i..i+8) holds a '>'
 */
#ifndef TAGBOT_BYTES_H
#define TAGBOT_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The word whose every byte is c. */
#define BYTES_REPEAT(c)	(UINT64_C(0x0101010101010101) * (uint8_t)(c))

static inline uint64_t bytes_load(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* Whether some byte of w is 0 (the classic test: a byte's high bit is set
 * in the result when it was 0, or borrowed from below; never otherwise). */
static inline bool bytes_has_zero(uint64_t w)
{
	return ((w - BYTES_REPEAT(0x01)) & ~w & BYTES_REPEAT(0x80)) != 0;
}

/* Whether some byte of w is c. */
static inline bool bytes_has(uint64_t w, unsigned char c)
{
	return bytes_has_zero(w ^ BYTES_REPEAT(c));
}

/* Whether some byte of w is below n (n at most 128). */
static inline bool bytes_has_below(uint64_t w, unsigned char n)
{
	return ((w - BYTES_REPEAT(n)) & ~w & BYTES_REPEAT(0x80)) != 0;
}

#endif
