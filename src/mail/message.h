/*
 * message.h - raw RFC 5322 bytes -> decoded headers and the text that holds
 * the patch (tagbot-rules(7) THE MODEL, first two bullets).
 *
 * This is the only module that uses libetpan's MIME parser.  Everything it
 * returns is UTF-8 with LF line ends: RFC 2047 words are decoded, folded
 * header lines unfolded, the text part's transfer encoding (quoted-printable,
 * base64, 7bit/8bit) undone, its charset converted and format=flowed undone.
 *
 * Limits are named below; crossing one is a per-message error (or, where the
 * comment says so, a best-effort truncation flagged in m->warnings).
 */
#ifndef TAGBOT_MESSAGE_H
#define TAGBOT_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

#define MESSAGE_MAX_SIZE	((size_t)128 * 1024 * 1024) /* raw bytes */
#define MESSAGE_MAX_HEADERS	2000	/* more are ignored */
#define MESSAGE_MAX_HEADER_LEN	((size_t)64 * 1024) /* one unfolded value; longer is cut */
#define MESSAGE_MAX_MIME_DEPTH	32	/* deeper parts are not searched */
#define MESSAGE_MAX_PARTS	1000	/* parts visited at most */
#define MESSAGE_MAX_ATTACHMENTS	64	/* patch attachments decoded at most */
#define MESSAGE_MAX_NAME	255	/* bytes of an attachment's file name kept */

/* A patch attachment besides the one in text. */
struct attachment {
	char *name;	/* owned; its file name (name= or filename=), "" when none */
	char *text;	/* owned; decoded as text is, NUL-terminated */
	size_t len;
};

/*
 * A header field.  In a message made by message_parse() its strings are
 * the message's, kept in its arena: message_release() frees them all at
 * once, and none may be freed or reallocated on its own.
 *
 * There the value is unfolded and decoded only when first asked for, by
 * message_header_value() or message_header_raw_of() (message_header() and
 * the others do it too): a mail's trace and signature fields, most of its
 * header bytes, are seldom read.  Until then value and raw are NULL and
 * field holds the bytes as written; read them through those functions.
 * A value longer than MESSAGE_MAX_HEADER_LEN / 4 as written is decoded at
 * once, so MSG_WARN_LONG_HEADER is known when message_parse() returns.
 * A header built by hand (tests) sets name, value and raw; field is then
 * unused.
 */
struct header {
	char *name;	/* as written (compare case-insensitively) */
	char *value;	/* unfolded, RFC 2047 decoded, UTF-8, trimmed; raw
			 * itself when there was nothing to decode */
	char *raw;	/* unfolded but not decoded (for Message-ID etc.) */
	const char *field;	/* foreign (the mail's bytes, or a copy in the
				 * arena): the value as written, from after the
				 * colon to the end of the field */
	size_t field_len;
};

struct message_arena;

struct message {
	struct header *headers;	/* owned, in order of appearance */
	size_t nheaders;

	char *text;		/* owned (unless text_in_raw); the patch-holding text,
				 * UTF-8, LF, NUL-terminated */
	size_t text_len;
	bool text_in_raw;	/* text lies in the bytes given to
				 * message_parse_in_place(), not owned */
	bool raw_changed;	/* message_parse_in_place() decoded the text over
				 * those bytes: from where the text starts they no
				 * longer are the mail's */
	bool text_is_attachment; /* the text came from a .patch/.diff/x-patch part */
	char *text_name;	/* owned; that attachment's file name (decoded, no
				 * directory), "" when none, inline, or split (RFC
				 * 2231); NULL in a message not made by message_parse() */
	/* owned; when text is an attachment, the further patch attachments in
	 * MIME order (git format-patch files sent together), at most
	 * MESSAGE_MAX_ATTACHMENTS in all; none when the text is inline */
	struct attachment *more;
	size_t nmore;
	char *text_charset;	/* owned; the charset the text was declared in, lower case ("us-ascii" default) */
	bool body_quotes;	/* the mail's own words (its first text/plain part, even
				 * when text is an attachment) hold a quoted line: one
				 * that is ">" or starts "> " or ">>" (not mboxrd's ">From ") */

	unsigned warnings;	/* MSG_WARN_* bits: best-effort results */

	struct message_arena *arena;	/* owned; the blocks that hold the header
					 * strings (message.c's own) */
};

enum {
	MSG_WARN_TRUNCATED_MIME	= 1 << 0, /* a multipart ended without its close boundary */
	MSG_WARN_BAD_CHARSET	= 1 << 1, /* unknown charset or invalid bytes: replaced by U+FFFD */
	MSG_WARN_NUL_BYTES	= 1 << 2, /* NUL bytes in the text were dropped */
	MSG_WARN_TOO_DEEP	= 1 << 3, /* MIME nesting beyond MESSAGE_MAX_MIME_DEPTH */
	MSG_WARN_LONG_HEADER	= 1 << 4, /* a header value was cut at MESSAGE_MAX_HEADER_LEN */
	MSG_WARN_NO_TEXT	= 1 << 5, /* no text/plain or patch attachment was found */
	MSG_WARN_NO_BOUNDARY	= 1 << 6, /* a multipart without a boundary parameter: guessed, or read as text */
};

/* Allocates nothing. */
void message_init(struct message *m);

/*
 * Parses len bytes at raw (need not be NUL-terminated; CRLF or LF; an mbox
 * "From " line at the very start is skipped).  On success m holds the
 * result and 0 is returned.  On failure (-1) e says why (ERR_FINAL) and m
 * is left empty.  A message with no usable text part is not a failure: text
 * is "" and MSG_WARN_NO_TEXT is set.
 */
int message_parse(struct message *m, const char *raw, size_t len, struct err *e);

/*
 * message_parse() for a caller that lends m the mail's bytes.  When the
 * mail is one part (not multipart), its text is decoded where it stands
 * (base64 and quoted-printable never grow when decoded) and is those
 * bytes, unless it had to be recoded, unflowed, or lose CRs or NULs while
 * still the mail's: a big mail takes no second copy of itself.  raw must
 * outlive m, unchanged by the caller, and raw[len] be writable (a NUL may
 * go there).  m->text_in_raw and m->raw_changed tell what became of raw.
 */
int message_parse_in_place(struct message *m, char *raw, size_t len, struct err *e);

/* The decoded value of the first header named name (case-insensitive), or
 * NULL.  message_header_raw() gives the undecoded value. */
const char *message_header(const struct message *m, const char *name);
const char *message_header_raw(const struct message *m, const char *name);

/* The decoded and the undecoded value of h, one of m->headers (decoding
 * it on first use: m is not changed otherwise).  NULL only for a header
 * built by hand without them. */
const char *message_header_value(const struct message *m, const struct header *h);
const char *message_header_raw_of(const struct message *m, const struct header *h);

/*
 * The decoded value of the last header named name, or NULL.  For List-Id:
 * the one a list server added is the last, since Mailman and mlmmj append
 * their list headers at the end of the header block they received and
 * hops after them prepend only trace fields (Received:,
 * Authentication-Results:); a List-Id the sender wrote comes before it.
 */
const char *message_header_last(const struct message *m, const char *name);

/* The bytes m holds in memory: its headers, text and attachments, with
 * their bookkeeping (what a mail kept parsed costs, for a limit).  It
 * decodes every header value not decoded yet, and counts them so. */
size_t message_bytes(const struct message *m);
/* Frees the contents. */
void message_release(struct message *m);

/*
 * Helpers exposed for tests and for other modules that decode header-like
 * text.  Each returns a malloc'ed UTF-8 string.
 */
char *message_decode_2047(const char *s, size_t n);
/* Converts n bytes in charset to UTF-8; invalid bytes become U+FFFD and set
 * *bad (when non-NULL). NULL or unknown charset: treated as UTF-8, falling
 * back to Latin-1 when the bytes are not valid UTF-8 (byte by byte; 0x80-0x9F
 * as windows-1252, as browsers do); an unknown charset also sets *bad.
 * iso-8859-1 is read as windows-1252 too. *out_len may be NULL. */
char *message_to_utf8(const char *s, size_t n, const char *charset, size_t *out_len, bool *bad);

#endif
