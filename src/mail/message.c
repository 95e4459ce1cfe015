#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>

#include "lib/buf.h"
#include "lib/bytes.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "mail/message.h"
#include "mail/message_p.h"
#include "lib/utf8.h"

#define MIME_TYPE_MAX	128	/* "type/subtype" as we keep it */
#define BOUNDARY_MAX	200	/* RFC 2046 says 70; senders are sloppier */

/* ---------------------------------------------------------------------
 * Small helpers.
 */

/* True when the n bytes at s equal the lower-case word w, ignoring case. */
static bool mem_ieq(const char *s, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n && w[i]; i++)
		if (ascii_tolower((unsigned char)s[i]) != w[i])
			return false;
	return i == n && !w[i];
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && mem_ieq(s + n - k, k, suffix);
}

static void trim(const char **s, size_t *n)
{
	while (*n && ascii_is_lws((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && ascii_is_lws((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* The length of s[0..n) without a UTF-8 sequence cut at its end. */
static size_t utf8_clip(const char *s, size_t n)
{
	size_t lead = n, want;
	unsigned char c;

	while (lead > 0 && n - lead < 4 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return n;
	c = (unsigned char)s[lead - 1];
	want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return want > n - lead + 1 ? lead - 1 : n;
}

/* ---------------------------------------------------------------------
 * Header fields.
 */

struct field {
	const char *name;
	size_t name_len;
	const char *val;	/* after the colon up to the end of the field */
	size_t val_len;		/* line ends of continuation lines included */
};

/* Finds the end of the line at s[i]: *eol is where its content ends (CR
 * of CR LF excluded), the return value where the next line starts. */
static size_t line_end(const char *s, size_t n, size_t i, size_t *eol)
{
	const char *nl = memchr(s + i, '\n', n - i);
	size_t e = nl ? (size_t)(nl - s) : n;

	*eol = e > i && s[e - 1] == '\r' ? e - 1 : e;
	return nl ? e + 1 : n;
}

/*
 * Where the field whose value starts at s[i] ends: after the first line
 * break that no blank (a continuation line) follows, or at n.  A header
 * block is most of a list mail's bytes, and its lines are many and
 * short: with SSE2 the line breaks that end a field are found sixteen
 * bytes at a time, not each line's end by a call of memchr().
 */
static size_t field_end(const char *s, size_t n, size_t i)
{
#ifdef __SSE2__
	for (; n - i >= 17; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_set1_epi8('\n')));

		/* a field has a few line breaks: the byte after each is read */
		for (; nl; nl &= nl - 1) {
			size_t at = i + (size_t)__builtin_ctz(nl) + 1;

			if (!ascii_is_blank((unsigned char)s[at]))
				return at;
		}
	}
#endif
	for (;;) {
		const char *nl = memchr(s + i, '\n', n - i);

		if (!nl)
			return n;
		i = (size_t)(nl - s) + 1;
		if (i == n || !ascii_is_blank((unsigned char)s[i]))
			return i;
	}
}

/*
 * Reads the header field at s[*i].  Returns false at the end of the header
 * block, with *i at the first byte of the body: after the blank line, or
 * at a line that is no header field (as git mailinfo does).
 */
static bool next_field(const char *s, size_t n, size_t *i, struct field *f)
{
	for (;;) {
		size_t start = *i, eol, name_end, bad;

		if (start >= n)
			return false;
		if (s[start] == '\n' || (s[start] == '\r' && (start + 1 == n || s[start + 1] == '\n'))) {
			*i = start + (s[start] == '\r' && start + 1 < n ? 2 : 1);
			return false;	/* the blank line */
		}
		if (ascii_is_blank((unsigned char)s[start])) {
			*i = line_end(s, n, start, &eol);	/* continues nothing: skip it */
			continue;
		}
		/* One byte loop finds the colon and checks the name on the way:
		 * printable ASCII, no space.  A name is a few bytes, not worth a
		 * memchr(). */
		bad = SIZE_MAX;
		for (name_end = start; name_end < n; name_end++) {
			unsigned char c = (unsigned char)s[name_end];

			if (c == ':' || c == '\n')
				break;
			if ((c <= ' ' || c > '~') && bad == SIZE_MAX)
				bad = name_end;
		}
		if (name_end == n || s[name_end] != ':')
			return false;
		f->val = s + name_end + 1;
		while (name_end > start && ascii_is_blank((unsigned char)s[name_end - 1]))
			name_end--;
		/* blanks before the colon are no part of the name */
		if (name_end == start || bad < name_end)
			return false;
		f->name = s + start;
		f->name_len = name_end - start;
		*i = field_end(s, n, (size_t)(f->val - s));
		f->val_len = (size_t)(s + *i - f->val);
		return true;
	}
}

/* Whether the n bytes at s hold "=?", which starts an RFC 2047 word. */
static bool has_encoded_word(const char *s, size_t n)
{
	const char *q = s;

	/* '?' is the rarer byte in a header: '=' fills DKIM signatures */
	while ((q = memchr(q, '?', n - (size_t)(q - s)))) {
		if (q > s && q[-1] == '=')
			return true;
		if (++q == s + n)
			break;
	}
	return false;
}

static bool needs_decoding(const char *s, size_t n)
{
	return mime_ascii_run(s, 0, n) < n || has_encoded_word(s, n);
}

/*
 * Unfolds a field value into d (room for cap + 1 bytes): line breaks
 * before white space go, a stray CR becomes a space, NULs are dropped;
 * the result is trimmed and holds at most cap bytes of the value (NULs
 * counted; *cut tells when more were dropped).  Returns its length; d is
 * NUL-terminated.  *plain (unless NULL) tells whether the result has
 * nothing for RFC 2047 decoding: no byte >= 0x80 and no "=?".
 *
 * One pass over the bytes does it all: every header field of every mail
 * comes here, and a pass for each of these jobs (a memchr() for each line,
 * three for NUL, CR and LF, more for each '=') cost more than the rest of
 * the header's parse.
 */
static size_t unfold_into(char *d, size_t cap, const char *v, size_t n, bool *cut, bool *plain)
{
	size_t i = 0, took = 0, j = 0;
	uint64_t high = 0;	/* the bytes copied, or'ed */

	trim(&v, &n);
	while (i < n && took < cap) {
		unsigned char c;

		/* eight bytes at a time while none is a NUL, CR or LF */
		if (n - i >= 8 && cap - took >= 8) {
			uint64_t w = bytes_load(v + i);

			if (!bytes_has_below(w, '\r' + 1)) {
				memcpy(d + j, &w, 8);
				high |= w;
				i += 8, j += 8, took += 8;
				continue;
			}
		}
		c = (unsigned char)v[i++];
		if (c > '\r') {
			d[j++] = (char)c;
			high |= c;
			took++;
			continue;
		}
		if (c == '\n' || (c == '\r' && i < n && v[i] == '\n'))
			continue;	/* a line break */
		took++;
		if (c != '\0')
			d[j++] = c == '\r' ? ' ' : (char)c;
	}
	*cut = false;
	for (; i < n && !*cut; i++)
		*cut = !ascii_is_lws((unsigned char)v[i]) && v[i] != '\0';
	if (*cut)
		j = utf8_clip(d, j);
	while (j && ascii_is_lws((unsigned char)d[j - 1]))
		j--;
	d[j] = '\0';
	if (plain)
		*plain = *cut ? !needs_decoding(d, j) :
			 !(high & BYTES_REPEAT(0x80)) && !has_encoded_word(d, j);
	return j;
}

/* The room unfold_into() needs for n bytes of a value. */
static size_t unfold_cap(size_t n)
{
	return n < MESSAGE_MAX_HEADER_LEN ? n : MESSAGE_MAX_HEADER_LEN;
}

/* unfold_into() a new string. */
static char *unfold(const char *v, size_t n, size_t *out_len, bool *cut)
{
	size_t cap = unfold_cap(n);
	char *d = xmalloc(cap + 1);

	*out_len = unfold_into(d, cap, v, n, cut, NULL);
	return d;
}

/* ---------------------------------------------------------------------
 * Where the header strings live: blocks freed with the message.  A mail
 * has dozens of header fields, each kept three times (name, raw and
 * decoded value); a malloc() and a free() for each string cost more than
 * reading the field does.
 */

#define ARENA_BLOCK	((size_t)16 * 1024)	/* a mail's header block mostly fits */

struct message_arena {
	struct message_arena *next;	/* owned; the block filled before */
	size_t used, size;
	char data[];
};

/* n bytes that live as long as m's headers. */
static char *arena_alloc(struct message *m, size_t n)
{
	struct message_arena *a = m->arena;
	char *p;

	if (!a || a->size - a->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		a = xmalloc(sizeof(*a) + size);
		a->next = m->arena;
		a->used = 0;
		a->size = size;
		m->arena = a;
	}
	p = a->data + a->used;
	a->used += n;
	return p;
}

static char *arena_strndup(struct message *m, const char *s, size_t n)
{
	char *p = arena_alloc(m, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Gives back what arena_alloc() took last, beyond its first n bytes. */
static void arena_trim(struct message *m, char *p, size_t took, size_t n)
{
	if (m->arena && p + took == m->arena->data + m->arena->used)
		m->arena->used -= took - n;
}

static void arena_free(struct message *m)
{
	while (m->arena) {
		struct message_arena *a = m->arena;

		m->arena = a->next;
		free(a);
	}
}

/* The decoded, capped, trimmed value of an unfolded raw value, in m's
 * arena: raw itself when it is plain (nothing to decode). */
static char *decode_value(struct message *m, char *raw, size_t n, bool plain, bool *cut)
{
	char *v, *t;
	const char *p;
	size_t len;

	if (plain)
		return raw;
	v = message_decode_2047(raw, n);
	len = strlen(v);
	if (len > MESSAGE_MAX_HEADER_LEN) {
		len = utf8_clip(v, MESSAGE_MAX_HEADER_LEN);
		*cut = true;
	}
	p = v;
	trim(&p, &len);
	t = arena_strndup(m, p, len);
	free(v);
	return t;
}

/* Unfolds and decodes h's value, once. */
static void header_fill(struct message *m, struct header *h)
{
	size_t raw_len, cap;
	bool cut = false, plain;

	if (h->raw || !h->field)
		return;
	cap = unfold_cap(h->field_len);
	h->raw = arena_alloc(m, cap + 1);
	raw_len = unfold_into(h->raw, cap, h->field, h->field_len, &cut, &plain);
	arena_trim(m, h->raw, cap + 1, raw_len + 1);
	h->value = decode_value(m, h->raw, raw_len, plain, &cut);
	if (cut)
		m->warnings |= MSG_WARN_LONG_HEADER;
}

/*
 * message.h promises these for a const message: its header values are a
 * cache, filled on first use, and the message is never defined const
 * (message_parse() fills a caller's struct).
 */
static struct header *header_mut(const struct header *h)
{
	return (struct header *)h;
}

static struct message *message_mut(const struct message *m)
{
	return (struct message *)m;
}

/*
 * The value's bytes are kept as written, to be decoded when asked for:
 * nearly all that is in a list mail's header block (Received:, DKIM and
 * ARC signatures) is never read.  A value that may come out longer than
 * MESSAGE_MAX_HEADER_LEN (4 bytes of UTF-8 for each byte at most) is
 * decoded at once, so that the warning of a cut one is there as before.
 */
static void add_header(struct message *m, size_t *alloc, const struct field *f)
{
	struct header *h;

	ARRAY_GROW(m->headers, *alloc, m->nheaders + 1);
	h = &m->headers[m->nheaders++];
	h->name = arena_strndup(m, f->name, f->name_len);
	h->value = h->raw = NULL;
	h->field = f->val;
	h->field_len = f->val_len;
	if (f->val_len > MESSAGE_MAX_HEADER_LEN / 4)
		header_fill(m, h);
}

/* ---------------------------------------------------------------------
 * MIME entities.
 */

enum cte { CTE_IDENTITY, CTE_QP, CTE_BASE64 };

struct part {
	char type[MIME_TYPE_MAX];	/* "text/plain", lower case */
	char charset[CHARSET_MAX + 1];	/* lower case; "" when not given */
	char *boundary;			/* owned; NULL when not given */
	bool flowed, delsp;
	bool patch_name;		/* its file name ends in .patch or .diff */
	char name[MESSAGE_MAX_NAME + 1];	/* its file name (decoded, no directory), "" when none */
	bool have_type, have_cte;
	enum cte cte;
	const char *body;		/* foreign: points into the raw message */
	size_t body_len;
	char *own_body;			/* body, when it may be decoded where it
					 * stands: the top-level part of a
					 * message_parse_in_place() (runs to the
					 * end of the mail); else NULL */
};

static void part_init(struct part *pt)
{
	memset(pt, 0, sizeof(*pt));
	strcpy(pt->type, "text/plain");
}

static bool is_patch_filename(const char *v)
{
	char *d = NULL;
	const char *s = v;
	size_t n;
	bool r;

	if (strstr(v, "=?"))
		s = d = message_decode_2047(v, strlen(v));
	n = strlen(s);
	while (n && (ascii_is_lws((unsigned char)s[n - 1]) || s[n - 1] == '"'))
		n--;
	r = ends_with_ci(s, n, ".patch") || ends_with_ci(s, n, ".diff");
	free(d);
	return r;
}

/*
 * Keeps a name or filename parameter as the part's file name: RFC 2047
 * decoded (as mailers write it, against RFC 2231), without quotes or a
 * directory.  A name split into RFC 2231 pieces ("filename*0*") is not
 * glued together: the part just has no name then.
 */
static void part_filename(struct part *pt, const char *name, const char *v)
{
	char *d = message_decode_2047(v, strlen(v));
	const char *s = d, *slash;
	size_t n;

	if (strchr(name, '*')) {
		free(d);
		return;
	}
	if ((slash = strrchr(s, '/')) || (slash = strrchr(s, '\\')))
		s = slash + 1;
	while (*s == '"' || ascii_is_lws((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == '"' || ascii_is_lws((unsigned char)s[n - 1])))
		n--;
	if (n >= sizeof(pt->name))
		n = utf8_clip(s, sizeof(pt->name) - 1);
	if (n) {
		memcpy(pt->name, s, n);
		pt->name[n] = '\0';
	}
	free(d);
}

/* A "name" or "filename" parameter, or an RFC 2231 piece of one
 * ("filename*1*"): the last piece is the one with the extension. */
static bool is_name_param(const char *name)
{
	size_t n = strcspn(name, "*");

	return mem_ieq(name, n, "name") || mem_ieq(name, n, "filename");
}

static const char *discrete_names[] = {
	[MAILMIME_DISCRETE_TYPE_TEXT] = "text",
	[MAILMIME_DISCRETE_TYPE_IMAGE] = "image",
	[MAILMIME_DISCRETE_TYPE_AUDIO] = "audio",
	[MAILMIME_DISCRETE_TYPE_VIDEO] = "video",
	[MAILMIME_DISCRETE_TYPE_APPLICATION] = "application",
};

static const char *type_name(const struct mailmime_type *t)
{
	if (t->tp_type == MAILMIME_TYPE_DISCRETE_TYPE) {
		const struct mailmime_discrete_type *d = t->tp_data.tp_discrete_type;

		if (d->dt_type == MAILMIME_DISCRETE_TYPE_EXTENSION)
			return d->dt_extension;
		if (d->dt_type > 0 && (size_t)d->dt_type < ARRAY_SIZE(discrete_names))
			return discrete_names[d->dt_type];
		return "";
	}
	switch (t->tp_data.tp_composite_type->ct_type) {
	case MAILMIME_COMPOSITE_TYPE_MESSAGE:
		return "message";
	case MAILMIME_COMPOSITE_TYPE_MULTIPART:
		return "multipart";
	default:
		return t->tp_data.tp_composite_type->ct_token;
	}
}

static void part_param(struct part *pt, const char *name, const char *value)
{
	size_t vl = strlen(value);

	if (!strcasecmp(name, "charset")) {
		mime_copy_lower(pt->charset, sizeof(pt->charset), value, vl);
	} else if (!strcasecmp(name, "boundary")) {
		if (vl && vl <= BOUNDARY_MAX && !pt->boundary)
			pt->boundary = xstrdup(value);
	} else if (!strcasecmp(name, "format")) {
		pt->flowed = mem_ieq(value, vl, "flowed");
	} else if (!strcasecmp(name, "delsp")) {
		pt->delsp = mem_ieq(value, vl, "yes");
	} else if (is_name_param(name)) {
		pt->patch_name |= is_patch_filename(value);
		if (!pt->name[0])	/* Content-Disposition's filename wins */
			part_filename(pt, name, value);
	}
}

/*
 * Returns a copy of v with its (comments) replaced by spaces.  libetpan
 * parses comments by recursion, a frame per "(": 64 KB of them overflow a
 * 1 MB stack, so none may reach it.
 */
static char *strip_comments(const char *v, size_t n, size_t *len)
{
	char *d = xmalloc(n + 1);
	size_t j = 0, depth = 0;
	bool quoted = false;

	for (size_t i = 0; i < n; i++) {
		char c = v[i];

		if (c == '\\' && (quoted || depth) && i + 1 < n) {
			if (!depth)
				d[j++] = c, d[j++] = v[i + 1];
			i++;
			continue;
		}
		if (!depth && c == '"')
			quoted = !quoted;
		else if (!quoted && c == '(')
			depth++;
		else if (!quoted && depth && c == ')' && --depth == 0)
			c = ' ';
		if (!depth)
			d[j++] = c;
	}
	d[j] = '\0';
	*len = j;
	return d;
}

static size_t skip_blanks(const char *v, size_t n, size_t i)
{
	while (i < n && ascii_is_blank((unsigned char)v[i]))
		i++;
	return i;
}

/*
 * "text/plain", alone or with one charset parameter, quoted or not: what
 * nearly every mail's Content-Type says.  It is read here, as libetpan
 * reads it, for a parse with libetpan costs more than the rest of the
 * header block's; any other shape is left to libetpan.
 */
static bool simple_content_type(struct part *pt, const char *v, size_t n)
{
	static const char type[] = "text/plain", param[] = "charset=";
	size_t i = skip_blanks(v, n, 0), cs, ce;
	bool quoted;

	if (n - i < sizeof(type) - 1 || !mem_ieq(v + i, sizeof(type) - 1, type))
		return false;
	i = skip_blanks(v, n, i + sizeof(type) - 1);
	if (i == n) {
		strcpy(pt->type, type);
		return true;
	}
	if (v[i] != ';')
		return false;
	i = skip_blanks(v, n, i + 1);
	if (n - i < sizeof(param) - 1 || !mem_ieq(v + i, sizeof(param) - 1, param))
		return false;
	i += sizeof(param) - 1;
	quoted = i < n && v[i] == '"';
	cs = i += quoted;
	while (i < n && (ascii_is_alnum((unsigned char)v[i]) || v[i] == '-' || v[i] == '_' ||
			 v[i] == '.'))
		i++;
	ce = i;
	if (ce == cs || (quoted && (i == n || v[i++] != '"')) || skip_blanks(v, n, i) != n)
		return false;
	strcpy(pt->type, type);
	mime_copy_lower(pt->charset, sizeof(pt->charset), v + cs, ce - cs);
	return true;
}

/* Content-Type by libetpan's parser; one it cannot read leaves the
 * default, text/plain (RFC 2045 5.2). */
static void part_content_type(struct part *pt, const char *value, size_t vn)
{
	struct mailmime_content *c = NULL;
	size_t idx = 0, n;
	char *v;
	const char *t;
	int r;

	if (simple_content_type(pt, value, vn))
		return;
	v = strip_comments(value, vn, &n);
	r = mailmime_content_parse(v, n, &idx, &c);
	free(v);
	if (r != MAILIMF_NO_ERROR)
		return;
	t = type_name(c->ct_type);
	mime_copy_lower(pt->type, sizeof(pt->type), t ? t : "", t ? strlen(t) : 0);
	if (strlen(pt->type) + 1 < sizeof(pt->type) && c->ct_subtype) {
		strcat(pt->type, "/");
		mime_copy_lower(pt->type + strlen(pt->type), sizeof(pt->type) - strlen(pt->type),
			   c->ct_subtype, strlen(c->ct_subtype));
	}
	for (clistiter *it = clist_begin(c->ct_parameters); it; it = clist_next(it)) {
		struct mailmime_parameter *p = clist_content(it);

		part_param(pt, p->pa_name, p->pa_value);
	}
	mailmime_content_free(c);
}

static void part_disposition(struct part *pt, const char *value, size_t vn)
{
	struct mailmime_disposition *d = NULL;
	size_t idx = 0, n;
	char *v = strip_comments(value, vn, &n);
	int r = mailmime_disposition_parse(v, n, &idx, &d);

	free(v);
	if (r != MAILIMF_NO_ERROR)
		return;
	for (clistiter *it = clist_begin(d->dsp_parms); it; it = clist_next(it)) {
		struct mailmime_disposition_parm *p = clist_content(it);

		if (p->pa_type == MAILMIME_DISPOSITION_PARM_FILENAME) {
			pt->patch_name |= is_patch_filename(p->pa_data.pa_filename);
			part_filename(pt, "filename", p->pa_data.pa_filename);
		} else if (p->pa_type == MAILMIME_DISPOSITION_PARM_PARAMETER &&
			   is_name_param(p->pa_data.pa_parameter->pa_name)) {
			pt->patch_name |= is_patch_filename(p->pa_data.pa_parameter->pa_value);
			part_filename(pt, p->pa_data.pa_parameter->pa_name,
				      p->pa_data.pa_parameter->pa_value);
		}
	}
	mailmime_disposition_free(d);
}

static void part_encoding(struct part *pt, const char *v, size_t n)
{
	trim(&v, &n);
	if (mem_ieq(v, n, "quoted-printable"))
		pt->cte = CTE_QP;
	else if (mem_ieq(v, n, "base64"))
		pt->cte = CTE_BASE64;
	else
		pt->cte = CTE_IDENTITY;
}

/* Feeds one unfolded header to pt; the first of each kind counts. */
static void part_header(struct part *pt, const char *name, size_t nl, const char *v, size_t n)
{
	if (mem_ieq(name, nl, "content-type") && !pt->have_type) {
		pt->have_type = true;
		part_content_type(pt, v, n);
	} else if (mem_ieq(name, nl, "content-transfer-encoding") && !pt->have_cte) {
		pt->have_cte = true;
		part_encoding(pt, v, n);
	} else if (mem_ieq(name, nl, "content-disposition")) {
		part_disposition(pt, v, n);
	}
}

static bool is_mime_field(const struct field *f)
{
	return f->name_len > 8 && mem_ieq(f->name, 8, "content-");
}

/* Reads the headers of a body part into pt; pt->body is what follows. */
static void parse_part(const char *s, size_t n, struct part *pt)
{
	size_t i = 0;
	struct field f;

	part_init(pt);
	while (next_field(s, n, &i, &f)) {
		char *v;
		size_t len;
		bool cut;

		if (!is_mime_field(&f))
			continue;
		v = unfold(f.val, f.val_len, &len, &cut);
		part_header(pt, f.name, f.name_len, v, len);
		free(v);
	}
	pt->body = s + i;
	pt->body_len = n - i;
}

static bool is_patch_part(const struct part *pt)
{
	if (!strcmp(pt->type, "text/x-patch") || !strcmp(pt->type, "text/x-diff"))
		return true;
	return pt->patch_name &&
	       (!strcmp(pt->type, "text/plain") || !strcmp(pt->type, "application/octet-stream"));
}

/* ---------------------------------------------------------------------
 * The text: transfer decoding, charset, NUL and CR LF, format=flowed.
 */

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* A unified diff: "diff --git", or "--- ", "+++ ", "@@ " on three lines. */
static bool has_diff(const char *s, size_t n)
{
	size_t i = 0, state = 0;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), len = eol - i;

		if (starts_with(s + i, len, "diff --git "))
			return true;
		if (state == 2 && starts_with(s + i, len, "@@ "))
			return true;
		if (state == 1 && starts_with(s + i, len, "+++ "))
			state = 2;
		else
			state = starts_with(s + i, len, "--- ") ? 1 : 0;
		i = next;
	}
	return false;
}

/*
 * A quoted line: ">", "> ...", ">> ..."; not an mbox-escaped ">From ".
 * The '>'s are looked for, not the lines: a mail without a quote is read
 * whole, and a line end is more often met than a '>', even in C.  A line
 * ">" may end in CR LF, or in a CR or nothing at the end of the text.
 */
static bool has_quote(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while (p < end && (p = memchr(p, '>', (size_t)(end - p)))) {
		if (p == s || p[-1] == '\n') {
			size_t rest = (size_t)(end - p);

			if (rest == 1 || p[1] == ' ' || p[1] == '>' || p[1] == '\n' ||
			    (p[1] == '\r' && (rest == 2 || p[2] == '\n')))
				return true;
		}
		p++;
	}
	return false;
}

/* Drops NULs and turns CR LF into LF in the n bytes at d; returns the
 * new length. */
static size_t normalize_bytes(char *d, size_t n, unsigned *warnings)
{
	size_t j = 0;

	if (!memchr(d, '\r', n) && !memchr(d, '\0', n))
		return n;
	for (size_t i = 0; i < n; i++) {
		char c = d[i];

		if (c == '\0') {
			*warnings |= MSG_WARN_NUL_BYTES;
			continue;
		}
		if (c == '\r' && i + 1 < n && d[i + 1] == '\n')
			continue;
		d[j++] = c;
	}
	return j;
}

/* Drops NULs and turns CR LF into LF, in place. */
static void normalize(struct buf *b, unsigned *warnings)
{
	b->len = normalize_bytes(b->data, b->len, warnings);
	b->data[b->len] = '\0';
}

/*
 * Undoes format=flowed (RFC 3676 4.2): a line ending in a space continues
 * on the next line of the same quote depth; the space goes too with
 * DelSp=yes; a leading space is stuffing; "-- " never flows.
 */
static void unflow(struct buf *out, const char *s, size_t n, bool delsp)
{
	size_t i = 0, para_q = 0;
	bool in_para = false;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), q = 0, c, len;
		bool flowed;

		while (i + q < eol && s[i + q] == '>')
			q++;
		c = i + q;
		if (c < eol && s[c] == ' ')
			c++;
		len = eol - c;
		flowed = len && s[eol - 1] == ' ' && !(len == 3 && !memcmp(s + c, "-- ", 3));
		if (in_para && q != para_q) {
			buf_addch(out, '\n');
			in_para = false;
		}
		if (!in_para && q)
			buf_add(out, s + i, c - i);
		buf_add(out, s + c, flowed && delsp ? len - 1 : len);
		in_para = flowed;
		para_q = q;
		if (!flowed && next > eol)
			buf_addch(out, '\n');
		i = next;
	}
	if (in_para && n && s[n - 1] == '\n')
		buf_addch(out, '\n');
}

/* n transfer-decoded bytes of pt's body as UTF-8 text with LF line
 * ends, format=flowed undone: a new string. */
static char *text_of(const struct part *pt, const char *s, size_t n, size_t *len,
		     unsigned *warnings)
{
	struct buf u;
	bool bad = false;

	buf_init(&u, 0);
	if (!mime_convert(&u, s, n, pt->charset, &bad) || bad)
		*warnings |= MSG_WARN_BAD_CHARSET;
	normalize(&u, warnings);
	if (pt->flowed) {
		struct buf f;

		buf_init(&f, 0);
		unflow(&f, u.data, u.len, pt->delsp);
		buf_release(&u);
		u = f;
	}
	return buf_detach(&u, len);
}

/* A decoded text part. */
struct text {
	char *data;
	size_t len;
	bool in_raw;	/* data lies in the mail's bytes (own_body), not owned */
	bool changed;	/* decoding changed the mail's bytes (own_body) */
};

/*
 * Decodes pt's own_body where it stands: the transfer encoding undone in
 * place, and when the bytes then need no recoding, no format=flowed and,
 * unless decoding changed them already, no CR LF or NUL dropped, they are
 * the text.  A big mail so takes no copy of itself.  Otherwise the text is
 * a copy, as for any part.
 */
static void decode_own(const struct part *pt, struct text *t, unsigned *warnings)
{
	char *s = pt->own_body;
	size_t n = pt->body_len;
	bool known;

	t->changed = false;
	if (pt->cte == CTE_QP)
		n = mime_decode_qp_in_place(s, n, &t->changed);
	else if (pt->cte == CTE_BASE64)
		n = mime_decode_base64_in_place(s, n, &t->changed);
	/* Bytes that are still the mail's stay so (a caller may look for the
	 * text in them, CR LF and all): when CRs or NULs must go, the text is
	 * a copy. */
	if (!mime_convert_keeps(s, n, pt->charset, &known) || pt->flowed ||
	    (!t->changed && (memchr(s, '\r', n) || memchr(s, '\0', n)))) {
		t->in_raw = false;
		t->data = text_of(pt, s, n, &t->len, warnings);
		return;
	}
	if (!known)
		*warnings |= MSG_WARN_BAD_CHARSET;
	if (t->changed)
		n = normalize_bytes(s, n, warnings);
	s[n] = '\0';	/* at most at the end of the mail, which has room for it */
	t->in_raw = true;
	t->data = s;
	t->len = n;
}

/* Decodes a leaf part into UTF-8 text with LF line ends. */
static void decode_text(const struct part *pt, struct text *t, unsigned *warnings)
{
	struct buf raw;
	const char *s = pt->body;
	size_t n = pt->body_len;

	if (pt->own_body) {
		decode_own(pt, t, warnings);
		return;
	}
	t->in_raw = t->changed = false;
	buf_init(&raw, 0);
	if (pt->cte == CTE_QP)
		mime_decode_qp(&raw, s, n, false);
	else if (pt->cte == CTE_BASE64)
		mime_decode_base64(&raw, s, n);
	if (pt->cte != CTE_IDENTITY)
		s = raw.data, n = raw.len;
	t->data = text_of(pt, s, n, &t->len, warnings);
	buf_release(&raw);
}

/* ---------------------------------------------------------------------
 * Walking the MIME tree for the text.
 */

struct walk {
	struct message *m;
	size_t nparts;
	bool stop;
	bool have_text;
	struct part text;		/* boundary always NULL */
	struct part *patches;		/* owned array, boundaries NULL: patch attachments */
	size_t npatches, patches_alloc;
	struct text text_data;		/* the decoded text part (owned unless in_raw) */
	bool text_diff;			/* text_data holds a diff ... */
	bool diff_known;		/* ... once this is set: see text_has_diff() */
};

/*
 * Whether the text part holds a diff, looked for when first asked: by a
 * part after it (a diff in the mail's own words means attachments are
 * not read) or by a patch attachment competing with it.  A mail of one
 * part, most mails, never asks, and is spared a walk through its lines.
 */
static bool text_has_diff(struct walk *w)
{
	if (w->have_text && !w->diff_known) {
		w->diff_known = true;
		w->text_diff = has_diff(w->text_data.data, w->text_data.len);
	}
	return w->text_diff;
}

/* Whether no more parts are to be read. */
static bool walk_stopped(struct walk *w)
{
	return w->stop || text_has_diff(w);
}

static void walk_entity(struct walk *w, struct part *pt, int depth);

/* A delimiter line "--boundary" or "--boundary--" (RFC 2046 5.1.1). */
struct delim {
	size_t start;	/* the line break before it: where the previous part ends */
	size_t next;	/* the first byte after its line */
	bool close;
};

/* Checks for a delimiter whose "--" is at s[at]; needle is "\n--boundary". */
static bool delim_at(const char *s, size_t n, size_t at, size_t blen, struct delim *d)
{
	size_t j = at + 2 + blen, k;

	d->close = j + 1 < n && s[j] == '-' && s[j + 1] == '-';
	if (d->close)
		j += 2;
	for (k = j; k < n && ascii_is_blank((unsigned char)s[k]); k++)
		;
	if (k < n && s[k] != '\n' && !(s[k] == '\r' && (k + 1 == n || s[k + 1] == '\n')))
		return false;
	d->start = at == 0 ? 0 : at >= 2 && s[at - 2] == '\r' ? at - 2 : at - 1;
	d->next = k == n ? n : s[k] == '\n' ? k + 1 : k + 2 > n ? n : k + 2;
	return true;
}

static bool find_delim(const char *s, size_t n, size_t from, const char *needle, size_t nl, struct delim *d)
{
	size_t pos = from;

	if (from == 0 && n >= nl - 1 && !memcmp(s, needle + 1, nl - 1) && delim_at(s, n, 0, nl - 3, d))
		return true;
	while (pos < n) {
		const char *hit = memmem(s + pos, n - pos, needle, nl);
		size_t at;

		if (!hit)
			return false;
		at = (size_t)(hit - s) + 1;
		if (delim_at(s, n, at, nl - 3, d))
			return true;
		pos = at;
	}
	return false;
}

/*
 * Without a boundary parameter: the first "--token" line that is followed
 * by a Content- header is taken for the boundary.
 */
static char *guess_boundary(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t eol, next = line_end(s, n, i, &eol), e2, len = eol - i;

		while (len > 2 && ascii_is_blank((unsigned char)s[i + len - 1]))
			len--;
		if (len > 2 && len - 2 <= BOUNDARY_MAX && s[i] == '-' && s[i + 1] == '-' && next < n) {
			line_end(s, n, next, &e2);
			if (e2 - next > 8 && mem_ieq(s + next, 8, "content-") &&
			    !memchr(s + i + 2, ' ', len - 2) && !memchr(s + i + 2, '\t', len - 2))
				return xstrndup(s + i + 2, len - 2);
		}
		i = next;
	}
	return NULL;
}

/* The body of a multipart that cannot be split is read as text. */
static void walk_as_text(struct walk *w, const struct part *pt, int depth)
{
	struct part tp = *pt;

	tp.boundary = NULL;
	strcpy(tp.type, "text/plain");
	walk_entity(w, &tp, depth + 1);
}

static void walk_multipart(struct walk *w, struct part *pt, int depth)
{
	const char *s = pt->body;
	size_t n = pt->body_len, nl, cur;
	struct delim d;
	char *needle, *b;

	if (depth >= MESSAGE_MAX_MIME_DEPTH) {
		w->m->warnings |= MSG_WARN_TOO_DEEP;
		return;
	}
	b = pt->boundary;
	if (!b) {
		w->m->warnings |= MSG_WARN_NO_BOUNDARY;
		b = guess_boundary(s, n);
	}
	if (!b) {
		walk_as_text(w, pt, depth);
		return;
	}
	nl = strlen(b) + 3;
	needle = xmalloc(nl + 1);
	snprintf(needle, nl + 1, "\n--%s", b);
	if (!find_delim(s, n, 0, needle, nl, &d)) {
		w->m->warnings |= MSG_WARN_TRUNCATED_MIME;
		walk_as_text(w, pt, depth);
		d.close = true;
	}
	while (!d.close && !walk_stopped(w)) {
		struct part child;
		size_t end;

		cur = d.next;
		if (!find_delim(s, n, cur, needle, nl, &d)) {
			w->m->warnings |= MSG_WARN_TRUNCATED_MIME;
			d.close = true;
			d.start = n;
		}
		end = d.start > cur ? d.start : cur;
		parse_part(s + cur, end - cur, &child);
		walk_entity(w, &child, depth + 1);
		free(child.boundary);
	}
	free(needle);
	if (b != pt->boundary)
		free(b);
}

static void take_leaf(struct walk *w, const struct part *pt)
{
	if (!w->have_text && !strcmp(pt->type, "text/plain")) {
		w->have_text = true;
		w->text = *pt;
		w->text.boundary = NULL;
		decode_text(pt, &w->text_data, &w->m->warnings);
		w->m->body_quotes = has_quote(w->text_data.data, w->text_data.len);
	} else if (w->npatches < MESSAGE_MAX_ATTACHMENTS && is_patch_part(pt)) {
		ARRAY_GROW(w->patches, w->patches_alloc, w->npatches + 1);
		w->patches[w->npatches] = *pt;
		w->patches[w->npatches++].boundary = NULL;
	}
}

static void walk_entity(struct walk *w, struct part *pt, int depth)
{
	if (walk_stopped(w))
		return;
	if (++w->nparts > MESSAGE_MAX_PARTS) {
		w->stop = true;
		return;
	}
	if (!strncmp(pt->type, "multipart/", 10))
		walk_multipart(w, pt, depth);
	else
		take_leaf(w, pt);
}

/* Puts the chosen text into m (tagbot-rules(7) THE MODEL: the first text/plain part,
 * unless it holds no diff and a patch attachment does). */
static void choose_text(struct walk *w)
{
	struct message *m = w->m;
	const struct part *pt;

	if (w->npatches && !text_has_diff(w)) {
		struct text t;

		if (!w->text_data.in_raw)
			free(w->text_data.data);
		decode_text(&w->patches[0], &t, &m->warnings);
		m->text = t.data;
		m->text_len = t.len;
		m->text_in_raw = t.in_raw;
		m->raw_changed = t.changed;
		pt = &w->patches[0];
		m->text_name = xstrdup(pt->name);
		if (w->npatches > 1)
			m->more = xcalloc(w->npatches - 1, sizeof(*m->more));
		for (size_t i = 1; i < w->npatches; i++, m->nmore++) {
			struct text more;

			/* only the top-level part, patches[0] then, is own_body */
			decode_text(&w->patches[i], &more, &m->warnings);
			m->more[m->nmore].name = xstrdup(w->patches[i].name);
			m->more[m->nmore].text = more.data;
			m->more[m->nmore].len = more.len;
		}
	} else if (w->have_text) {
		m->text = w->text_data.data;
		m->text_len = w->text_data.len;
		m->text_in_raw = w->text_data.in_raw;
		m->raw_changed = w->text_data.changed;
		pt = &w->text;
	} else {
		m->text = xstrdup("");
		m->text_charset = xstrdup("us-ascii");
		m->text_name = xstrdup("");
		m->warnings |= MSG_WARN_NO_TEXT;
		return;
	}
	m->text_is_attachment = is_patch_part(pt);
	if (!m->text_name)
		m->text_name = xstrdup(m->text_is_attachment ? pt->name : "");
	m->text_charset = xstrdup(pt->charset[0] ? pt->charset : "us-ascii");
}

/* ---------------------------------------------------------------------
 * The interface.
 */

void message_init(struct message *m)
{
	memset(m, 0, sizeof(*m));
}

/* Reads the top-level header block into m and its MIME fields into top. */
static size_t parse_headers(struct message *m, const char *raw, size_t len, struct part *top)
{
	size_t i = 0, alloc = 0;
	struct field f;

	part_init(top);
	while (next_field(raw, len, &i, &f)) {
		const struct header *h;

		if (m->nheaders >= MESSAGE_MAX_HEADERS)
			continue;
		add_header(m, &alloc, &f);
		h = &m->headers[m->nheaders - 1];
		if (is_mime_field(&f)) {
			header_fill(m, &m->headers[m->nheaders - 1]);
			part_header(top, h->name, strlen(h->name), h->raw, strlen(h->raw));
		}
	}
	return i;
}

/* The header block's bytes, where the values not decoded yet are read
 * from, outlive a message_parse() caller's raw: a copy in the arena. */
static void keep_header_bytes(struct message *m, const char *raw, size_t n)
{
	char *copy;

	if (!n)
		return;
	copy = arena_alloc(m, n);
	memcpy(copy, raw, n);
	for (size_t i = 0; i < m->nheaders; i++)
		if (m->headers[i].field)
			m->headers[i].field = copy + (m->headers[i].field - raw);
}

/* message_parse(), and with own (raw, writable) message_parse_in_place(). */
static int parse(struct message *m, const char *raw, char *own, size_t len, struct err *e)
{
	struct walk w;
	struct part top;
	size_t body;

	message_init(m);
	if (len > MESSAGE_MAX_SIZE)
		return err_set(e, ERR_FINAL, "message is %zu bytes, over the %zu MiB limit", len,
			       MESSAGE_MAX_SIZE >> 20);
	if (!raw || !len)
		return err_set(e, ERR_FINAL, "message is empty");
	if (len >= 5 && !memcmp(raw, "From ", 5)) {
		const char *nl = memchr(raw, '\n', len);

		body = nl ? (size_t)(nl - raw) + 1 : len;
		raw += body, len -= body;
	}
	body = parse_headers(m, raw, len, &top);
	if (!own)
		keep_header_bytes(m, raw, body);
	top.body = raw + body;
	top.body_len = len - body;
	if (own)
		top.own_body = own + (top.body - own);
	memset(&w, 0, sizeof(w));
	w.m = m;
	walk_entity(&w, &top, 0);
	free(top.boundary);
	choose_text(&w);
	free(w.patches);
	return 0;
}

int message_parse(struct message *m, const char *raw, size_t len, struct err *e)
{
	return parse(m, raw, NULL, len, e);
}

int message_parse_in_place(struct message *m, char *raw, size_t len, struct err *e)
{
	return parse(m, raw, raw, len, e);
}

const char *message_header_value(const struct message *m, const struct header *h)
{
	header_fill(message_mut(m), header_mut(h));
	return h->value;
}

const char *message_header_raw_of(const struct message *m, const struct header *h)
{
	header_fill(message_mut(m), header_mut(h));
	return h->raw;
}

static const struct header *find_header(const struct message *m, const char *name)
{
	for (size_t i = 0; i < m->nheaders; i++)
		if (ascii_streq_ci(m->headers[i].name, name))
			return &m->headers[i];
	return NULL;
}

const char *message_header(const struct message *m, const char *name)
{
	const struct header *h = find_header(m, name);

	return h ? message_header_value(m, h) : NULL;
}

const char *message_header_last(const struct message *m, const char *name)
{
	for (size_t i = m->nheaders; i-- > 0;)
		if (ascii_streq_ci(m->headers[i].name, name))
			return message_header_value(m, &m->headers[i]);
	return NULL;
}

const char *message_header_raw(const struct message *m, const char *name)
{
	const struct header *h = find_header(m, name);

	return h ? message_header_raw_of(m, h) : NULL;
}

size_t message_bytes(const struct message *m)
{
	size_t n = sizeof(*m) + m->nheaders * sizeof(*m->headers) + m->text_len;

	/* what the mail costs once its values are read */
	for (size_t i = 0; i < m->nheaders; i++)
		header_fill(message_mut(m), header_mut(&m->headers[i]));
	for (size_t i = 0; i < m->nheaders; i++)
		n += strlen(m->headers[i].name) + strlen(m->headers[i].value) +
		     strlen(m->headers[i].raw) + 3;
	for (size_t i = 0; i < m->nmore; i++)
		n += sizeof(*m->more) + strlen(m->more[i].name) + m->more[i].len + 2;
	return n;
}

void message_release(struct message *m)
{
	arena_free(m);
	free(m->headers);
	if (!m->text_in_raw)
		free(m->text);
	free(m->text_name);
	for (size_t i = 0; i < m->nmore; i++) {
		free(m->more[i].name);
		free(m->more[i].text);
	}
	free(m->more);
	free(m->text_charset);
	message_init(m);
}
