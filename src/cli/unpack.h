/*
 * unpack.h - compressed input for input.c: gzip (zlib), xz (liblzma) and
 * zstd (libzstd), recognised by their magic bytes and decompressed as a
 * stream through bounded buffers.  The only module that includes those
 * libraries.
 *
 * Errors follow err.h; their messages name the format but not the file
 * ("gzip data ends early (truncated?)"): the caller knows the file and puts
 * it in front.
 */
#ifndef TAGBOT_UNPACK_H
#define TAGBOT_UNPACK_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/err.h"

#define UNPACK_MAGIC_MAX	6	/* bytes unpack_detect() needs at most (xz) */

enum unpack_format {
	UNPACK_NONE = 0,	/* not a format we read */
	UNPACK_GZIP,
	UNPACK_XZ,
	UNPACK_ZSTD
};

/* "gzip", "xz", "zstd"; "" for UNPACK_NONE. */
const char *unpack_format_name(enum unpack_format f);

/* The format whose magic bytes start p (n bytes, fewer than
 * UNPACK_MAGIC_MAX at a short file's end); UNPACK_NONE when none does. */
enum unpack_format unpack_detect(const void *p, size_t n);

/*
 * The name of another compression or archive format whose magic starts p
 * (bzip2, lz4, lzip, zip, 7z, compress), so a refusal can say what the file
 * is; NULL when none does.
 */
const char *unpack_detect_other(const void *p, size_t n);

struct unpack;	/* opaque */

/*
 * A decoder of format f reading fd (foreign: never closed here).  The first
 * head_len bytes of the file were already read by the caller into head;
 * they are copied and decoded first.  Returns the decoder, or NULL with e
 * set when the library cannot set up a decoder (out of memory).
 */
struct unpack *unpack_new(enum unpack_format f, int fd, const void *head, size_t head_len,
			  struct err *e);

/*
 * Decodes up to cap bytes into out.  Returns the number of bytes (> 0), 0
 * at the end of the data, or -1 with e set: a read error, corrupt data, or a
 * file that ends inside a stream (truncated).  Concatenated streams (cat
 * a.gz b.gz) decode as one.
 */
ssize_t unpack_read(struct unpack *u, void *out, size_t cap, struct err *e);

void unpack_free(struct unpack *u);

#endif
