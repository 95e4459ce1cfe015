/*
 * input.c - message files, mboxes, Maildirs, directories of .eml/.patch
 * files and standard input, handed out one message at a time.
 *
 * Files are read through one bounded buffer (INPUT_READ_SIZE) and split into
 * lines; only the current message is kept in memory, and never more than
 * max_size bytes of it.  A file is an mbox when its first line starts with
 * "From ", whatever its name; white space before it is skipped, as git
 * mailsplit skips it.  A gzip, xz or zstd file (by its magic bytes,
 * whatever its name) is decompressed into the same buffer on the way
 * (unpack.h), so it is split like a plain one; a plain file pays one test
 * per read(2) for that.
 */
#include "autoconf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/buf.h"
#include "cli/input.h"
#include "mail/message.h"
#include "cli/unpack.h"
#include "lib/ascii.h"

#define INPUT_READ_SIZE		((size_t)256 * 1024) /* one read(2); longer lines come in pieces */
#define INPUT_MAX_DIR_ENTRIES	((size_t)1000000)    /* files taken from one directory */
#define INPUT_KEEP_ALLOC	((size_t)16 * 1024 * 1024) /* a bigger message buffer is freed after use */
#define INPUT_SNIFF_SIZE	((size_t)1024)	/* bytes of the first line looked at for binary data */

/* A bounded line reader over one file descriptor. */
struct reader {
	int fd;
	struct unpack *z;	/* owned; the decoder of a compressed file, else NULL */
	char *buf;		/* owned by struct input; INPUT_READ_SIZE bytes */
	size_t pos, end;
	bool eof;
	struct err err;		/* why the last reader_fill() failed (no file name) */
};

/* The file being read. */
struct source {
	const char *path;	/* foreign: paths[] or a directory entry */
	struct reader r;
	bool is_mbox;
	bool done;		/* no message left */
	bool bol;		/* the next segment starts a line */
	bool prev_blank;	/* the last whole line was empty (mbox separators follow one) */
	bool from_skipped;	/* the From_ line that opens an mbox was read */
	bool oversize;		/* the current message passed max_size */
	size_t lineno;		/* whole lines consumed */
	size_t index;		/* number of the current message */
	size_t msg_lineno;	/* line of the current message's first byte */
};

struct dir_entry {
	char *path;		/* owned */
	size_t base;		/* offset of the file name in path */
};

struct input {
	const char *const *paths;	/* foreign */
	size_t npaths, next_path;
	struct dir_entry *dir;		/* owned: the directory being read */
	size_t ndir, dir_alloc, next_dir;
	struct source src;
	bool src_open;
	struct buf msg;			/* the message handed out */
	char *rbuf;			/* owned; the read buffer */
	size_t max_size;
};

struct input *input_new(const char *const *paths, size_t npaths)
{
	struct input *in = xcalloc(1, sizeof(*in));

	in->paths = paths;
	in->npaths = npaths;
	in->max_size = MESSAGE_MAX_SIZE;
	buf_init(&in->msg, 0);
	return in;
}

void input_set_max_size(struct input *in, size_t max)
{
	in->max_size = max;
}

/* --- the reader ------------------------------------------------------- */

/* Reads up to cap bytes into dst: from the file, or what the decoder of a
 * compressed file gives.  -1 with r->err set on a read error (or corrupt
 * or truncated compressed data); 0 at the end, when r->eof is set too. */
static ssize_t reader_read(struct reader *r, char *dst, size_t cap)
{
	ssize_t n;

	if (r->z) {
		n = unpack_read(r->z, dst, cap, &r->err);
	} else {
		do
			n = read(r->fd, dst, cap);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			err_set(&r->err, ERR_FINAL, "%s", strerror(errno));
	}
	if (n == 0)
		r->eof = true;
	return n;
}

/* Reads more bytes after the kept tail.  -1 with r->err set on a read
 * error. */
static int reader_fill(struct reader *r)
{
	ssize_t n;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
	}
	n = reader_read(r, r->buf + r->end, INPUT_READ_SIZE - r->end);
	if (n < 0)
		return -1;
	r->end += (size_t)n;
	return 0;
}

/*
 * The next segment in the buffer: a whole line with its LF (or the last
 * line without one), or, for a line longer than the buffer, a piece of it
 * (*whole false).  Returns false when the buffer holds no segment until
 * reader_fill() reads more (which moves the buffer's bytes).
 */
static bool buffered_line(struct reader *r, const char **p, size_t *n, bool *whole)
{
	char *start = r->buf + r->pos;
	char *nl = memchr(start, '\n', r->end - r->pos);

	if (!nl && !(r->eof && r->pos < r->end) && !(r->pos == 0 && r->end == INPUT_READ_SIZE))
		return false;
	*p = start;
	*n = nl ? (size_t)(nl - start) + 1 : r->end - r->pos;
	*whole = nl || r->eof;
	r->pos += *n;
	return true;
}

/* The next segment (buffered_line()), reading as needed.  Returns 1, 0 at
 * the end of the file, -1 on a read error. */
static int reader_line(struct reader *r, const char **p, size_t *n, bool *whole)
{
	for (;;) {
		if (buffered_line(r, p, n, whole))
			return 1;
		if (r->eof)
			return 0;
		if (reader_fill(r) < 0)
			return -1;
	}
}

/* --- line shapes ------------------------------------------------------ */

static bool is_blank(const char *p, size_t n)
{
	return (n == 1 && p[0] == '\n') || (n == 2 && p[0] == '\r' && p[1] == '\n');
}

/*
 * An mbox separator: "From " and a sender, and somewhere a time (hh:mm) as
 * every writer's date has ("From mboxrd@z Thu Jan  1 00:00:00 1970",
 * git's "From <sha> Mon Sep 17 00:00:00 2001").  The time keeps prose such
 * as "From the datasheet:" after a blank line from splitting a mail.
 */
static bool is_from_line(const char *p, size_t n)
{
	if (n < 6 || memcmp(p, "From ", 5) || ascii_is_space((unsigned char)p[5]))
		return false;
	for (size_t i = 6; i + 3 < n; i++)
		if (ascii_is_digit((unsigned char)p[i]) && p[i + 1] == ':' &&
		    ascii_is_digit((unsigned char)p[i + 2]) && ascii_is_digit((unsigned char)p[i + 3]))
			return true;
	return false;
}

#ifdef __SSE2__
/* The bits set in a 16-bit mask (__builtin_popcount() is a call into
 * libgcc on a plain x86-64 build). */
static unsigned bits16(unsigned x)
{
	x = x - ((x >> 1) & 0x5555);
	x = (x & 0x3333) + ((x >> 2) & 0x3333);
	x = (x + (x >> 4)) & 0x0f0f;
	return (x + (x >> 8)) & 0x1f;
}

/* The sum of the 16 byte counters in c. */
static size_t sum16(__m128i c)
{
	__m128i s = _mm_sad_epu8(c, _mm_setzero_si128());

	return (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
}
#endif

/*
 * The lines of an mbox that only go into the message as they are: whole,
 * not blank, not starting with '>' (an escaped From_ line may), and not
 * after a blank line (a separator may be there).  Most lines are such;
 * with SSE2 they are passed over sixteen bytes at a time, their line
 * breaks counted, not found one by one.
 *
 * Returns how many bytes at p (a line start, not after a blank line; n
 * bytes to the end of the buffer) are such lines, *lines how many lines
 * that is.  It stops before the first line that starts with LF, CR or
 * '>', and before a line that does not end in the buffer.  Without SSE2
 * it passes over nothing.
 */
static size_t plain_lines(const char *p, size_t n, size_t *lines)
{
#ifdef __SSE2__
	size_t i = 0, end = 0, count = 0;

	*lines = 0;
	if (!n || p[0] == '\n' || p[0] == '\r' || p[0] == '>')
		return 0;
	while (n - i >= 17) {
		/* byte counters of line breaks, summed before they can wrap */
		__m128i acc = _mm_setzero_si128();
		size_t block = 0;

		for (; n - i >= 17 && block < 255; i += 16, block++) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
			__m128i nl = _mm_cmpeq_epi8(a, _mm_set1_epi8('\n'));
			__m128i odd = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')),
								 _mm_cmpeq_epi8(b, _mm_set1_epi8('\r'))),
						   _mm_cmpeq_epi8(b, _mm_set1_epi8('>')));
			unsigned stop = (unsigned)_mm_movemask_epi8(_mm_and_si128(nl, odd));

			if (stop) {
				unsigned k = (unsigned)__builtin_ctz(stop);
				unsigned m = (unsigned)_mm_movemask_epi8(nl);

				*lines = count + sum16(acc) + bits16(m & ((2u << k) - 1));
				return i + k + 1;
			}
			acc = _mm_sub_epi8(acc, nl);
		}
		count += sum16(acc);
	}
	/* the lines ended before i are all plain; the last one ends at end */
	for (end = i; end > 0 && p[end - 1] != '\n'; end--)
		;
	for (; i < n; i++) {
		if (p[i] != '\n')
			continue;
		count++;
		if (i + 1 < n && (p[i + 1] == '\n' || p[i + 1] == '\r' || p[i + 1] == '>')) {
			*lines = count;
			return i + 1;
		}
		end = i + 1;
	}
	*lines = count;
	return end;
#else
	(void)p;
	(void)n;
	*lines = 0;
	return 0;
#endif
}

/* mboxrd: ">From ", ">>From " ... lose one '>'.  Applied to mboxo too,
 * where ">From " is almost always an escaped "From ". */
static size_t unescape_skip(const char *p, size_t n)
{
	size_t k = 0;

	while (k < n && p[k] == '>')
		k++;
	return k && n - k >= 5 && !memcmp(p + k, "From ", 5) ? 1 : 0;
}

/* --- sources ---------------------------------------------------------- */

static void source_close(struct input *in)
{
	unpack_free(in->src.r.z);
	in->src.r.z = NULL;
	if (in->src.r.fd > 0)
		close(in->src.r.fd);
	in->src_open = false;
}

/* Reads until the buffer holds a first line, INPUT_SNIFF_SIZE bytes or
 * the whole file, so the content can be told by its start. */
static int sniff_fill(struct reader *r)
{
	while (!r->eof && r->end < INPUT_SNIFF_SIZE && !memchr(r->buf, '\n', r->end))
		if (reader_fill(r) < 0)
			return -1;
	return 0;
}

/*
 * Whether the file starts as no mail and no mbox can: a control character
 * (not tab, CR or LF) in its first line.  Later lines may hold anything a
 * broken mail holds (NULs included); a header line or a From_ line never
 * starts like that, and an image, archive or executable always does.
 */
static bool starts_binary(const char *p, size_t n)
{
	size_t len = n < INPUT_SNIFF_SIZE ? n : INPUT_SNIFF_SIZE;
	const char *nl = memchr(p, '\n', len);

	if (nl)
		len = (size_t)(nl - p);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 && p[i] != '\t' && p[i] != '\r')
			return true;
	return false;
}

/* A compressed file: from here on the reader hands out what it decodes. */
static int start_unpack(struct reader *r, enum unpack_format f)
{
	r->z = unpack_new(f, r->fd, r->buf, r->end, &r->err);
	if (!r->z)
		return -1;
	r->end = 0;
	r->eof = false;
	return 0;
}

/* Reads the start of the file and decides what it is: a compressed file
 * is unpacked; binary data and an empty file are refused. */
static int source_sniff(struct source *s, struct err *e)
{
	struct reader *r = &s->r;
	enum unpack_format f;
	char from[48] = "";
	const char *other;

	if (sniff_fill(r) < 0)
		return err_set(e, ERR_FINAL, "%s: %s", s->path, r->err.msg);
	f = unpack_detect(r->buf, r->end);
	if (f != UNPACK_NONE) {
		if (start_unpack(r, f) < 0 || sniff_fill(r) < 0)
			return err_set(e, ERR_FINAL, "%s: %s", s->path, r->err.msg);
		snprintf(from, sizeof(from), " (decompressed from %s)", unpack_format_name(f));
	}
	if (r->end == 0)
		return err_set(e, ERR_FINAL, "%s: empty file%s", s->path, from);
	other = unpack_detect_other(r->buf, r->end);
	if (other)
		return err_set(e, ERR_FINAL, "%s: %s data%s; tagbot reads mail and mbox files, "
			       "plain or compressed with gzip, xz or zstd", s->path, other, from);
	if (starts_binary(r->buf, r->end))
		return err_set(e, ERR_FINAL, "%s: binary data%s, not a mail or an mbox", s->path, from);
	return 0;
}

/*
 * The white space before the first line that is not blank: git mailsplit
 * skips it before it looks for an mbox's first From_ line.  Reads on until
 * 5 bytes after it are there (or the buffer is full).  -1 on a read error.
 */
static int mbox_lead(struct reader *r, size_t *lead)
{
	size_t i = 0;

	for (;;) {
		while (i < r->end && ascii_is_space((unsigned char)r->buf[i]))
			i++;
		if (r->end - i >= 5 || r->eof || r->end == INPUT_READ_SIZE)
			break;
		if (reader_fill(r) < 0)
			return -1;
	}
	*lead = i;
	return 0;
}

static enum input_status source_open(struct input *in, const char *path, struct err *e)
{
	struct source *s = &in->src;
	size_t lead;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;

	if (fd < 0) {
		err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
		return INPUT_SKIP;
	}
	if (!in->rbuf)
		in->rbuf = xmalloc(INPUT_READ_SIZE);
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->r.fd = fd;
	s->r.buf = in->rbuf;
	s->bol = true;
	in->src_open = true;
	if (source_sniff(s, e) < 0) {
		source_close(in);
		return INPUT_SKIP;
	}
	if (mbox_lead(&s->r, &lead) < 0) {
		err_set(e, ERR_FINAL, "%s: %s", path, s->r.err.msg);
		source_close(in);
		return INPUT_SKIP;
	}
	s->is_mbox = s->r.end - lead >= 5 && !memcmp(s->r.buf + lead, "From ", 5);
	if (s->is_mbox) {
		s->r.pos = lead;
		for (size_t i = 0; i < lead; i++)
			s->lineno += s->r.buf[i] == '\n';
	}
	s->index = 1;
	s->msg_lineno = s->is_mbox ? s->lineno + 2 : 1;
	return INPUT_OK;
}

/* What an INPUT_SKIP in the current file leaves in *m. */
static enum input_status skip_here(struct input *in, struct input_msg *m)
{
	*m = (struct input_msg){ .file = in->src.path, .index = in->src.index,
				 .lineno = in->src.msg_lineno };
	return INPUT_SKIP;
}

static enum input_status read_error(struct input *in, struct input_msg *m, struct err *e)
{
	err_set(e, ERR_FINAL, "%s: %s", in->src.path, in->src.r.err.msg);
	in->src.done = true;
	return skip_here(in, m);
}

static void msg_start(struct input *in)
{
	if (in->msg.alloc > INPUT_KEEP_ALLOC)
		buf_release(&in->msg);
	buf_reset(&in->msg);
	in->msg.cap = in->max_size;
	in->src.oversize = false;
}

/* Does the text end with an empty line ending in eol? */
static bool ends_blank(const char *p, size_t len, const char *eol)
{
	size_t k = strlen(eol);

	return len >= k && !memcmp(p + len - k, eol, k) && (len == k || p[len - k - 1] == '\n');
}

/* Hands out the message data[0..len), data[len] writable (or reports it
 * as over-size). */
static enum input_status msg_out(struct input *in, struct input_msg *m, char *data, size_t len,
				 struct err *e)
{
	struct source *s = &in->src;

	if (s->oversize) {
		err_set(e, ERR_FINAL, "%s: message %zu (line %zu): larger than %zu bytes, skipped",
			s->path, s->index, s->msg_lineno, in->max_size);
		return skip_here(in, m);
	}
	if (s->is_mbox) {
		/* The blank line before a separator belongs to the mbox. */
		if (ends_blank(data, len, "\r\n"))
			len -= 2;
		else if (ends_blank(data, len, "\n"))
			len -= 1;
		data[len] = '\0';
	}
	m->data = data;
	m->len = len;
	m->file = s->path;
	m->index = s->index;
	m->lineno = s->msg_lineno;
	return INPUT_OK;
}

/* Hands out the message collected so far (or reports it as over-size). */
static enum input_status msg_finish(struct input *in, struct input_msg *m, struct err *e)
{
	return msg_out(in, m, in->msg.data, in->msg.len, e);
}

static void msg_add(struct input *in, const char *p, size_t n)
{
	if (in->src.oversize)
		return;
	if (buf_add(&in->msg, p, n) < 0) {
		in->src.oversize = true;
		buf_reset(&in->msg);
	}
}

/* A file that holds one message: read straight into the message, in
 * big reads, after what the buffer already holds. */
static enum input_status next_single(struct input *in, struct input_msg *m, struct err *e)
{
	struct source *s = &in->src;
	struct reader *r = &s->r;
	struct buf *b = &in->msg;

	msg_start(in);
	s->done = true;
	msg_add(in, r->buf + r->pos, r->end - r->pos);
	r->pos = r->end;
	/* Stops at once when over-size: the rest is not worth reading. */
	while (!s->oversize && !r->eof) {
		size_t want = b->cap - b->len < INPUT_READ_SIZE ? b->cap - b->len : INPUT_READ_SIZE;
		ssize_t n;

		if (want && buf_grow(b, want) == 0) {
			size_t room = b->alloc - b->len - 1;

			n = reader_read(r, b->data + b->len,
					room < b->cap - b->len ? room : b->cap - b->len);
			if (n > 0) {
				b->len += (size_t)n;
				b->data[b->len] = '\0';
			}
		} else {
			/* at the cap: one byte more makes it over-size */
			n = reader_read(r, r->buf, INPUT_READ_SIZE);
			if (n > 0)
				msg_add(in, r->buf, (size_t)n);
		}
		if (n < 0)
			return read_error(in, m, e);
	}
	return msg_finish(in, m, e);
}

/* Skips the From_ line that opens an mbox. */
static int skip_first_line(struct source *s)
{
	const char *p;
	size_t n;
	bool whole = false;

	while (!whole) {
		int rc = reader_line(&s->r, &p, &n, &whole);

		if (rc <= 0)
			return rc;
	}
	s->lineno++;
	s->from_skipped = true;
	return 1;
}

/*
 * The lines of a message go into it a run at a time: the lines that need
 * no change lie one after the other in the buffer, and one buf_add() for
 * all of them costs less than one for each.  A run ends where a line
 * loses a '>' (mboxrd), at the next separator, and before the buffer is
 * refilled (which moves its bytes).
 */
static enum input_status next_mbox(struct input *in, struct input_msg *m, struct err *e)
{
	struct source *s = &in->src;
	struct reader *r = &s->r;
	const char *p, *run = NULL;
	size_t n, k, run_len = 0;
	bool whole;

	if (!s->from_skipped && skip_first_line(s) < 0)
		return read_error(in, m, e);
	msg_start(in);
	for (;;) {
		bool bol = s->bol;
		size_t lines;

		if (bol && !s->prev_blank && (n = plain_lines(r->buf + r->pos, r->end - r->pos, &lines))) {
			if (!run_len)
				run = r->buf + r->pos;
			run_len += n;
			r->pos += n;
			s->lineno += lines;
			continue;
		}
		if (!buffered_line(r, &p, &n, &whole)) {
			msg_add(in, run, run_len);
			run_len = 0;
			if (r->eof) {
				s->done = true;
				return msg_finish(in, m, e);
			}
			if (reader_fill(r) < 0)
				return read_error(in, m, e);
			continue;
		}
		s->bol = whole;
		if (whole)
			s->lineno++;
		if (bol && whole && s->prev_blank && is_from_line(p, n)) {
			enum input_status st;

			if (!in->msg.len && run_len && run_len <= in->max_size) {
				/* All of it lies in the read buffer, before this
				 * separator: handed out there, not copied (the
				 * byte after it, at most the separator's first,
				 * is read already and may become the NUL). */
				st = msg_out(in, m, (char *)run, run_len, e);
			} else {
				msg_add(in, run, run_len);
				st = msg_finish(in, m, e);
			}
			s->index++;
			s->msg_lineno = s->lineno + 1;
			s->prev_blank = false;
			return st;
		}
		s->prev_blank = bol && whole && is_blank(p, n);
		k = bol && p[0] == '>' ? unescape_skip(p, n) : 0;
		if (k) {
			msg_add(in, run, run_len);
			run = p + k;
			run_len = n - k;
		} else if (run_len) {
			run_len += n;
		} else {
			run = p;
			run_len = n;
		}
	}
}

/* --- directories ------------------------------------------------------ */

static void dir_clear(struct input *in)
{
	for (size_t i = 0; i < in->ndir; i++)
		free(in->dir[i].path);
	in->ndir = in->next_dir = 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static bool wanted_file(const char *name, bool maildir)
{
	if (name[0] == '.')
		return false;
	return maildir || has_suffix(name, ".eml") || has_suffix(name, ".patch");
}

/* Adds the wanted entries of dir; -1 with e set when it cannot be read. */
static int list_dir(struct input *in, const char *dir, bool maildir, struct err *e)
{
	size_t dlen = strlen(dir);
	const char *sep = dlen && dir[dlen - 1] == '/' ? "" : "/";
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return err_set(e, ERR_FINAL, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dh)) != NULL) {
		struct dir_entry *de;
		size_t len;

		if (!wanted_file(d->d_name, maildir))
			continue;
		if (in->ndir >= INPUT_MAX_DIR_ENTRIES) {
			closedir(dh);
			return err_set(e, ERR_FINAL, "%s: more than %zu files; the rest are not read",
				       dir, INPUT_MAX_DIR_ENTRIES);
		}
		ARRAY_GROW(in->dir, in->dir_alloc, in->ndir + 1);
		de = &in->dir[in->ndir++];
		len = dlen + strlen(sep) + strlen(d->d_name);
		de->path = xmalloc(len + 1);
		snprintf(de->path, len + 1, "%s%s%s", dir, sep, d->d_name);
		de->base = dlen + strlen(sep);
	}
	closedir(dh);
	return 0;
}

/* Maildir names start with the delivery time, so this is also date order. */
static int entry_cmp(const void *a, const void *b)
{
	const struct dir_entry *x = a, *y = b;
	int c = strcmp(x->path + x->base, y->path + y->base);

	return c ? c : strcmp(x->path, y->path);
}

static enum input_status open_dir(struct input *in, const char *path, struct err *e)
{
	static const char *const subdirs[] = { "cur", "new" };
	bool maildir = true, failed = false;
	char sub[4096];

	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, subdirs[i]);
		maildir = maildir && is_dir(sub);
	}
	if (maildir) {
		for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path, subdirs[i]);
			/* One unreadable half still leaves the other to read. */
			failed |= list_dir(in, sub, true, e) < 0;
		}
	} else {
		failed = list_dir(in, path, false, e) < 0;
		if (!failed && in->ndir == 0) {
			err_set(e, ERR_FINAL, "%s: not a Maildir and no .eml or .patch files in it", path);
			failed = true;
		}
	}
	if (in->ndir)
		qsort(in->dir, in->ndir, sizeof(*in->dir), entry_cmp);
	return failed ? INPUT_SKIP : INPUT_OK;
}

static enum input_status open_path(struct input *in, const char *path, struct err *e)
{
	if (strcmp(path, "-") && is_dir(path))
		return open_dir(in, path, e);
	return source_open(in, path, e);
}

/* --- the public loop -------------------------------------------------- */

enum input_status input_next(struct input *in, struct input_msg *m, struct err *e)
{
	for (;;) {
		enum input_status st;
		const char *path;

		if (in->src_open) {
			if (!in->src.done) {
				return in->src.is_mbox ? next_mbox(in, m, e)
							: next_single(in, m, e);
			}
			source_close(in);
		}
		if (in->next_dir < in->ndir) {
			path = in->dir[in->next_dir++].path;
			st = source_open(in, path, e);
		} else {
			dir_clear(in);
			if (in->next_path >= in->npaths)
				return INPUT_END;
			path = in->paths[in->next_path++];
			st = open_path(in, path, e);
		}
		if (st == INPUT_SKIP) {
			*m = (struct input_msg){ .file = path };
			return st;
		}
	}
}

void input_free(struct input *in)
{
	if (!in)
		return;
	if (in->src_open)
		source_close(in);
	dir_clear(in);
	free(in->dir);
	free(in->rbuf);
	buf_release(&in->msg);
	free(in);
}
