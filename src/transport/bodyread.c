/*
 * bodyread.c - bounded reads of a server's answer from a libetpan
 * mailstream (bodyread.h).  They look into the stream's read buffer
 * (mailstream_feed_read_buffer() fills it) and take only the bytes of the
 * answer out of it (mailstream_read() from the buffer), so libetpan's own
 * readers find the next answer where it starts.
 */
#include "autoconf.h"
#include <stdbool.h>
#include <string.h>

#include <libetpan/mailstream.h>

#include "lib/buf.h"
#include "transport/bodyread.h"

#define TAKE_CHUNK 4096		/* bytes taken out of the stream's buffer at once */

/* The bytes waiting in s's buffer (filling it when empty); 0: none came. */
static size_t fill(mailstream *s)
{
	if (!s->read_buffer_len && mailstream_feed_read_buffer(s) <= 0)
		return 0;
	return s->read_buffer_len;
}

/* Takes n bytes (no more than are buffered) out of s's buffer. */
static void take(mailstream *s, size_t n)
{
	char scratch[TAKE_CHUNK];

	while (n > 0) {
		ssize_t k = mailstream_read(s, scratch, n < sizeof(scratch) ? n : sizeof(scratch));

		if (k <= 0)
			return;
		n -= (size_t)k;
	}
}

int body_read_line(mailstream *s, char *out, size_t n)
{
	size_t len = 0, avail;

	while ((avail = fill(s)) > 0) {
		const char *p = s->read_buffer, *nl = memchr(p, '\n', avail);
		size_t k = nl ? (size_t)(nl - p) + 1 : avail;

		if (len + k >= n)
			return -1;	/* longer than any answer we wait for */
		memcpy(out + len, p, k);
		len += k;
		take(s, k);
		if (nl) {
			while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
				len--;
			out[len] = '\0';
			return 0;
		}
	}
	return -1;
}

/* Where a dotted block's reading stands between two bytes. */
enum dot_state {
	AT_START,	/* at the start of a line */
	AFTER_DOT,	/* a line's first byte was '.' */
	AFTER_DOT_CR,	/* ".\r" at the start of a line */
	IN_LINE
};

struct dotted {
	enum dot_state st;
	struct buf *out;
	uint64_t seen;
	bool full;	/* out's cap was passed: the rest is dropped */
};

/* n bytes of the block's content. */
static void emit(struct dotted *d, const char *p, size_t n)
{
	d->seen += n;
	if (d->full)
		return;
	if (buf_add(d->out, p, n) < 0) {
		d->full = true;
		buf_reset(d->out);	/* never held whole */
	}
}

/* Reads p[0..n) on; returns the bytes taken, and sets *end after the
 * terminating line. */
static size_t scan(struct dotted *d, const char *p, size_t n, bool *end)
{
	size_t i = 0;

	while (i < n && !*end) {
		char c = p[i];

		switch (d->st) {
		case AT_START:
			if (c == '.') {
				d->st = AFTER_DOT;
				i++;
				continue;
			}
			d->st = IN_LINE;
			continue;
		case AFTER_DOT:
			if (c == '\r' || c == '\n') {
				d->st = c == '\r' ? AFTER_DOT_CR : AT_START;
				*end = c == '\n';
				i++;
				continue;
			}
			d->st = IN_LINE;	/* a stuffed dot: dropped */
			continue;
		case AFTER_DOT_CR:
			if (c == '\n') {
				*end = true;
				i++;
				continue;
			}
			emit(d, "\r", 1);	/* ".\rX": the dot was stuffed */
			d->st = IN_LINE;
			continue;
		case IN_LINE: {
			const char *nl = memchr(p + i, '\n', n - i);
			size_t k = nl ? (size_t)(nl - (p + i)) + 1 : n - i;

			emit(d, p + i, k);
			i += k;
			if (nl)
				d->st = AT_START;
			continue;
		}
		}
	}
	return i;
}

int body_read_dotted(mailstream *s, struct buf *out, uint64_t *seen)
{
	struct dotted d = { AT_START, out, 0, false };
	bool end = false;
	size_t avail;

	buf_reset(out);
	while (!end && (avail = fill(s)) > 0)
		take(s, scan(&d, s->read_buffer, avail, &end));
	*seen = d.seen;
	return end ? 0 : -1;
}
