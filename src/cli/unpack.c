/*
 * unpack.c - gzip, xz and zstd streams decoded through bounded buffers.
 *
 * Each format is one row of a table: how to start a decoder, how to run it
 * one step over the bytes read so far, how to free it.  The loop around
 * them is shared: it reads the file UNPACK_IN_SIZE bytes at a time, and
 * tells a clean end (the last stream finished at the end of the file) from
 * a truncated one (the file ended and the decoder, with nothing more to
 * read, could make no progress).
 */
#include "autoconf.h"
#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/buf.h"
#include "cli/unpack.h"

#define UNPACK_IN_SIZE		((size_t)64 * 1024)	/* one read(2) of compressed bytes */
#define UNPACK_XZ_MEMLIMIT	((uint64_t)256 * 1024 * 1024) /* xz -9 needs 65 MiB */

struct unpack {
	enum unpack_format f;
	int fd;				/* foreign */
	unsigned char *in;		/* owned; in_size bytes */
	size_t in_size, in_pos, in_end;
	bool in_eof;
	bool between;			/* a stream ended and nothing of a next one was read */
	union {
		z_stream gz;
		lzma_stream xz;
		ZSTD_DStream *zs;	/* owned */
	} s;
};

enum step_status {
	STEP_ERROR = -1,
	STEP_MORE = 0,		/* go on */
	STEP_STREAM_END = 1	/* one stream (gzip member, zstd frame, xz file) ended */
};

/* One format: its magic and its decoder. */
struct format_def {
	const char *name;
	const unsigned char *magic;
	size_t magic_len;
	int (*start)(struct unpack *u, struct err *e);
	/* Decodes from in[in_pos..in_end) into out[0..cap), advancing in_pos
	 * and *n. */
	enum step_status (*step)(struct unpack *u, unsigned char *out, size_t cap, size_t *n,
				 struct err *e);
	void (*end)(struct unpack *u);
};

/* Nothing more will be read: all read is decoded, and the file ended. */
static bool input_done(const struct unpack *u)
{
	return u->in_eof && u->in_pos == u->in_end;
}

/* --- gzip (zlib) --------------------------------------------------------- */

static int gz_start(struct unpack *u, struct err *e)
{
	/* 15 + 16: the largest window, gzip framing only */
	if (inflateInit2(&u->s.gz, 15 + 16) != Z_OK)
		return err_set(e, ERR_FINAL, "gzip: cannot start a decoder");
	return 0;
}

/* zlib knows a member's end from its trailer: it needs no input_done(). */
static enum step_status gz_step(struct unpack *u, unsigned char *out, size_t cap, size_t *n,
				struct err *e)
{
	z_stream *z = &u->s.gz;
	size_t in_n = u->in_end - u->in_pos;
	int rc;

	/* uInt is 32 bits: hand zlib at most that much per step */
	z->next_in = u->in + u->in_pos;
	z->avail_in = (uInt)(in_n < UINT32_MAX ? in_n : UINT32_MAX);
	z->next_out = out;
	z->avail_out = (uInt)(cap < UINT32_MAX ? cap : UINT32_MAX);
	rc = inflate(z, Z_NO_FLUSH);
	u->in_pos = (size_t)(z->next_in - u->in);
	*n = (size_t)(z->next_out - out);
	switch (rc) {
	case Z_OK:
	case Z_BUF_ERROR:	/* no progress: more input needed */
		return STEP_MORE;
	case Z_STREAM_END:
		/* A next member (cat a.gz b.gz) starts with a fresh header. */
		inflateReset(z);
		return STEP_STREAM_END;
	case Z_MEM_ERROR:
		err_set(e, ERR_FINAL, "gzip: out of memory");
		return STEP_ERROR;
	default:
		err_set(e, ERR_FINAL, "gzip: %s", z->msg ? z->msg : "corrupt data");
		return STEP_ERROR;
	}
}

static void gz_end(struct unpack *u)
{
	inflateEnd(&u->s.gz);
}

/* --- xz (liblzma) -------------------------------------------------------- */

static int xz_start(struct unpack *u, struct err *e)
{
	u->s.xz = (lzma_stream)LZMA_STREAM_INIT;
	/* CONCATENATED: xz files back to back decode as one, as xz -d does;
	 * it also means the end is only known once told (LZMA_FINISH). */
	if (lzma_stream_decoder(&u->s.xz, UNPACK_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
		return err_set(e, ERR_FINAL, "xz: cannot start a decoder");
	return 0;
}

static const char *xz_error(lzma_ret rc)
{
	switch (rc) {
	case LZMA_MEM_ERROR: return "out of memory";
	case LZMA_MEMLIMIT_ERROR: return "needs more than 256 MiB of memory to decode";
	case LZMA_FORMAT_ERROR: return "not in the xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported compression options";
	default: return "corrupt data";
	}
}

static enum step_status xz_step(struct unpack *u, unsigned char *out, size_t cap, size_t *n,
				struct err *e)
{
	bool eof = input_done(u);
	lzma_stream *s = &u->s.xz;
	lzma_ret rc;

	s->next_in = u->in + u->in_pos;
	s->avail_in = u->in_end - u->in_pos;
	s->next_out = out;
	s->avail_out = cap;
	rc = lzma_code(s, eof ? LZMA_FINISH : LZMA_RUN);
	u->in_pos = (size_t)(s->next_in - u->in);
	*n = (size_t)(s->next_out - out);
	if (rc == LZMA_OK)
		return STEP_MORE;
	if (rc == LZMA_STREAM_END)
		return STEP_STREAM_END;
	if (rc == LZMA_BUF_ERROR)	/* told LZMA_FINISH, and no progress */
		err_set(e, ERR_FINAL, "xz data ends early (truncated file?)");
	else
		err_set(e, ERR_FINAL, "xz: %s", xz_error(rc));
	return STEP_ERROR;
}

static void xz_end(struct unpack *u)
{
	lzma_end(&u->s.xz);
}

/* --- zstd (libzstd) ------------------------------------------------------ */

static int zs_start(struct unpack *u, struct err *e)
{
	u->s.zs = ZSTD_createDStream();
	if (!u->s.zs || ZSTD_isError(ZSTD_initDStream(u->s.zs))) {
		ZSTD_freeDStream(u->s.zs);
		u->s.zs = NULL;
		return err_set(e, ERR_FINAL, "zstd: cannot start a decoder");
	}
	return 0;
}

/* A frame header gives its end: no input_done() needed. */
static enum step_status zs_step(struct unpack *u, unsigned char *out, size_t cap, size_t *n,
				struct err *e)
{
	ZSTD_inBuffer in = { u->in, u->in_end, u->in_pos };
	ZSTD_outBuffer o = { out, cap, 0 };
	size_t rc = ZSTD_decompressStream(u->s.zs, &o, &in);

	u->in_pos = in.pos;
	*n = o.pos;
	if (ZSTD_isError(rc)) {
		err_set(e, ERR_FINAL, "zstd: %s", ZSTD_getErrorName(rc));
		return STEP_ERROR;
	}
	/* 0: a frame is complete and flushed; the decoder starts the next one by itself */
	return rc == 0 ? STEP_STREAM_END : STEP_MORE;
}

static void zs_end(struct unpack *u)
{
	ZSTD_freeDStream(u->s.zs);
}

/* --- the table ----------------------------------------------------------- */

static const unsigned char gz_magic[] = { 0x1f, 0x8b };
static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char zs_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };

static const struct format_def formats[] = {
	[UNPACK_GZIP] = { "gzip", gz_magic, sizeof(gz_magic), gz_start, gz_step, gz_end },
	[UNPACK_XZ] = { "xz", xz_magic, sizeof(xz_magic), xz_start, xz_step, xz_end },
	[UNPACK_ZSTD] = { "zstd", zs_magic, sizeof(zs_magic), zs_start, zs_step, zs_end },
};

/* Formats we recognise only to name them in a refusal. */
static const struct {
	const char *name;
	const char *magic;
	size_t len;
} others[] = {
	{ "bzip2", "BZh", 3 },
	{ "lzip", "LZIP", 4 },
	{ "lz4", "\x04\x22\x4d\x18", 4 },
	{ "zip", "PK\x03\x04", 4 },
	{ "7z", "7z\xbc\xaf\x27\x1c", 6 },
	{ "compress (.Z)", "\x1f\x9d", 2 },
};

const char *unpack_format_name(enum unpack_format f)
{
	return f > UNPACK_NONE && f < ARRAY_SIZE(formats) ? formats[f].name : "";
}

static bool starts_with(const void *p, size_t n, const void *magic, size_t len)
{
	return n >= len && !memcmp(p, magic, len);
}

enum unpack_format unpack_detect(const void *p, size_t n)
{
	for (size_t f = UNPACK_NONE + 1; f < ARRAY_SIZE(formats); f++)
		if (starts_with(p, n, formats[f].magic, formats[f].magic_len))
			return (enum unpack_format)f;
	return UNPACK_NONE;
}

const char *unpack_detect_other(const void *p, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		if (starts_with(p, n, others[i].magic, others[i].len))
			return others[i].name;
	return NULL;
}

/* --- the shared loop ----------------------------------------------------- */

struct unpack *unpack_new(enum unpack_format f, int fd, const void *head, size_t head_len,
			  struct err *e)
{
	struct unpack *u;

	if (f <= UNPACK_NONE || f >= ARRAY_SIZE(formats)) {
		err_set(e, ERR_FINAL, "not a compressed format tagbot reads");
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->f = f;
	u->fd = fd;
	u->in_size = head_len > UNPACK_IN_SIZE ? head_len : UNPACK_IN_SIZE;
	u->in = xmalloc(u->in_size);
	if (head_len)	/* head may be NULL when nothing was read yet */
		memcpy(u->in, head, head_len);
	u->in_end = head_len;
	if (formats[f].start(u, e) < 0) {
		free(u->in);
		free(u);
		return NULL;
	}
	return u;
}

/* Reads more compressed bytes once everything read so far is decoded. */
static int fill_in(struct unpack *u, struct err *e)
{
	ssize_t n;

	do
		n = read(u->fd, u->in, u->in_size);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(e, ERR_FINAL, "%s", strerror(errno));
	u->in_pos = 0;
	u->in_end = (size_t)n;
	u->in_eof = n == 0;
	return 0;
}

ssize_t unpack_read(struct unpack *u, void *out, size_t cap, struct err *e)
{
	const struct format_def *def = &formats[u->f];

	for (;;) {
		size_t before, n = 0;
		enum step_status st;
		bool eof;

		if (u->in_pos == u->in_end && !u->in_eof && fill_in(u, e) < 0)
			return -1;
		eof = input_done(u);
		if (eof && u->between)
			return 0;
		before = u->in_pos;
		st = def->step(u, out, cap, &n, e);
		if (st == STEP_ERROR)
			return -1;
		if (u->in_pos > before)
			u->between = false;
		if (st == STEP_STREAM_END)
			u->between = true;
		if (n)
			return (ssize_t)n;
		if (eof && u->in_pos == before && !u->between)
			return err_set(e, ERR_FINAL, "%s data ends early (truncated file?)", def->name);
	}
}

void unpack_free(struct unpack *u)
{
	if (!u)
		return;
	formats[u->f].end(u);
	free(u->in);
	free(u);
}
