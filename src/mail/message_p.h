/*
 * message_p.h - private to mail/: the byte-level decoders of the message
 * module, in mime_decode.c (transfer encodings, charsets and RFC 2047
 * words, bytes in, UTF-8 out; no libetpan there) and used by message.c.
 * message.h has the public entry points message_decode_2047() and
 * message_to_utf8().
 */
#ifndef TAGBOT_MESSAGE_P_H
#define TAGBOT_MESSAGE_P_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/ascii.h"

struct buf;

#define CHARSET_MAX	64	/* a longer "charset" name is garbage */

/*
 * Appends n bytes in charset to b as UTF-8 (invalid bytes: U+FFFD, *bad
 * set).  Returns false when the charset is unknown: the bytes are then read
 * as UTF-8, else windows-1252, byte by byte.  NULL or "" is not unknown:
 * it is that same reading.
 */
bool mime_convert(struct buf *b, const char *s, size_t n, const char *charset, bool *bad);

/*
 * Whether mime_convert() would append the n bytes at s as they are (valid
 * UTF-8 read as UTF-8 or guessed, ASCII as windows-1252): then they need
 * no copy.  *known gets what mime_convert() would return.  False for a
 * charset iconv(3) converts, whatever the bytes.
 */
bool mime_convert_keeps(const char *s, size_t n, const char *charset, bool *known);

/* Quoted-printable (RFC 2045 6.7), or with q the Q encoding of RFC 2047.
 * An "=" that starts no escape is kept; hex may be lower case. */
void mime_decode_qp(struct buf *out, const char *s, size_t n, bool q);

/* Base64; bytes outside the alphabet are skipped, padding is optional. */
void mime_decode_base64(struct buf *out, const char *s, size_t n);

/* The same two (quoted-printable as for a body, not q), decoding the n
 * bytes at s where they stand: the result is never longer.  Return its
 * length; *changed tells whether any of its bytes differs from what was
 * there (a body that decodes to a prefix of itself keeps its bytes). */
size_t mime_decode_qp_in_place(char *s, size_t n, bool *changed);
size_t mime_decode_base64_in_place(char *s, size_t n, bool *changed);

/* Index of the first byte >= 0x80 in s[i..n), or n. */
size_t mime_ascii_run(const char *s, size_t i, size_t n);

/* Drops NULs and turns CR and LF into spaces, in place; the new length. */
size_t mime_sanitize(char *d, size_t n);

/* Copies at most cap - 1 bytes of s to dst, lower-cased, NUL-terminated. */
void mime_copy_lower(char *dst, size_t cap, const char *s, size_t n);

#endif
