/*
 * bodyread.h - reading a server's answer from a libetpan mailstream with
 * our own bounds, where libetpan's readers take whatever comes: a line of
 * at most a given length, and a dot-terminated block (NNTP, RFC 3977
 * 3.1.1) kept up to a cap and read past beyond it, so a server cannot make
 * one answer take more memory than the cap, whatever it sends.  Nothing is
 * read beyond the end of the answer: the next one stays in the stream.
 *
 * Each call returns 0, or -1 when the stream failed, timed out or ended
 * before the answer did (the caller's session is then out of step), or
 * for a line: when it is longer than allowed.
 */
#ifndef TAGBOT_BODYREAD_H
#define TAGBOT_BODYREAD_H

#include <stddef.h>
#include <stdint.h>

struct _mailstream;
struct buf;

/* One line, its CRLF (or LF) cut, into out (n bytes, NUL-terminated);
 * -1 when it does not fit. */
int body_read_line(struct _mailstream *s, char *out, size_t n);

/*
 * The block up to its "." line: dot-unstuffed, line ends as sent, into out
 * (reset first) while it fits out's cap; past the cap out is emptied and
 * the rest read and dropped.  *seen: the bytes of the block (unstuffed),
 * so *seen > out's cap says it did not fit.
 */
int body_read_dotted(struct _mailstream *s, struct buf *out, uint64_t *seen);

#endif
