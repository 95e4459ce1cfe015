/*
 * output.c - checkpatch-style text and JSON Lines for `tagbot check`.
 *
 * Mail text is hostile: every string goes through a writer that copies runs
 * of plain bytes with one fwrite and replaces what must not pass (control
 * characters, invalid UTF-8) -- JSON escapes, text gets '?' or U+FFFD so a
 * subject cannot move the cursor of the terminal it is printed on.
 */
#include "autoconf.h"
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "cli/output.h"

static const char replacement[] = "\xEF\xBF\xBD";	/* U+FFFD */

/*
 * Length of the well-formed UTF-8 sequence at s (n >= 1 bytes), or 0 with
 * *bad set to the length of its maximal ill-formed subpart, which becomes
 * one U+FFFD (Unicode 15, 3.9 "U+FFFD Substitution of Maximal Subparts",
 * as Python and browsers do).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t need;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		lo = c == 0xE0 ? 0xA0 : 0x80;	/* no overlong forms */
		hi = c == 0xED ? 0x9F : 0xBF;	/* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF;	/* nothing past U+10FFFF */
	} else {
		*bad = 1;
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

/* --- JSON ---------------------------------------------------------------- */

/* The line a finding points at in the file, and whether the decoded line
 * must be named because the file line is only the message's start. */
static size_t file_line(const struct output_ctx *c, size_t line, bool *name_decoded)
{
	*name_decoded = false;
	if (line == 0)
		return c->msg_line ? c->msg_line : 1;
	if (c->text_line)
		return c->text_line + line - 1;
	if (c->msg_line) {
		*name_decoded = true;
		return c->msg_line;
	}
	return line;
}

static void json_escape_byte(FILE *f, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	if (c == '"' || c == '\\') {
		esc[1] = (char)c;
		fwrite(esc, 1, 2, f);
	} else {
		fwrite(esc, 1, sizeof(esc), f);
	}
}

/* Writes n bytes at s as a JSON string. */
static void json_string_n(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0, len, bad;

	putc('"', f);
	while (i < n) {
		unsigned char c = u[i];

		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (len = utf8_seq(u + i, n - i, &bad)) != 0) {
			/* U+2028 and U+2029 are valid JSON but end a JavaScript line. */
			if (len == 3 && c == 0xE2 && u[i + 1] == 0x80 && (u[i + 2] & 0xFE) == 0xA8) {
				fwrite(s + run, 1, i - run, f);
				fputs(u[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", f);
				run = i + len;
			}
			i += len;
			continue;
		}
		fwrite(s + run, 1, i - run, f);
		if (c >= 0x80) {
			fputs(replacement, f);
			i += bad;
		} else {
			json_escape_byte(f, c);
			i++;
		}
		run = i;
	}
	fwrite(s + run, 1, n - run, f);
	putc('"', f);
}

void output_json_string(FILE *f, const char *s)
{
	json_string_n(f, s ? s : "", s ? strlen(s) : 0);
}

static void json_key_str(FILE *f, const char *key, const char *val)
{
	fputs(key, f);
	output_json_string(f, val);
}

static void json_key_uint(FILE *f, const char *key, unsigned long long v)
{
	char digits[24], *d = digits + sizeof(digits);

	fputs(key, f);
	do
		*--d = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	fwrite(d, 1, (size_t)(digits + sizeof(digits) - d), f);
}

static void json_key_int(FILE *f, const char *key, int v)
{
	if (v < 0) {
		fputs(key, f);
		fprintf(f, "%d", v);
		return;
	}
	json_key_uint(f, key, (unsigned)v);
}

static void json_key_bool(FILE *f, const char *key, bool v)
{
	fputs(key, f);
	fputs(v ? "true" : "false", f);
}

/* A string, or null when s is NULL or empty. */
static void json_key_str_or_null(FILE *f, const char *key, const char *s)
{
	if (s && *s) {
		json_key_str(f, key, s);
	} else {
		fputs(key, f);
		fputs("null", f);
	}
}

static void json_finding(FILE *f, const struct output_ctx *c, const struct finding *x)
{
	bool decoded;
	size_t in_file = file_line(c, x->line, &decoded);

	json_key_str(f, "{\"rule\":", x->rule);
	json_key_str(f, ",\"severity\":", severity_name(x->severity));
	json_key_uint(f, ",\"line\":", x->line);
	/* null where text output can only name the message's first line */
	if (decoded) {
		fputs(",\"file_line\":null", f);
	} else {
		json_key_uint(f, ",\"file_line\":", in_file);
	}
	json_key_str(f, ",\"text\":", x->text);
	json_key_str(f, ",\"message\":", x->message);
	json_key_str(f, ",\"doc\":", x->doc);
	putc('}', f);
}

/* {"line":N,"text":"..."} for one line of the commit message. */
static void json_line(FILE *f, const struct line *l)
{
	json_key_uint(f, "{\"line\":", l->lineno);
	fputs(",\"text\":", f);
	json_string_n(f, l->p, l->len);
	putc('}', f);
}

/* What the model read: the title, the message's ends, the trailer block. */
static void json_model(FILE *f, const struct patch *p)
{
	bool first = true;

	json_key_str(f, ",\"title\":", p->subject_body);
	if (p->nlines) {
		fputs(",\"message\":{\"first\":", f);
		json_line(f, &p->lines[0]);
		fputs(",\"last\":", f);
		json_line(f, &p->lines[p->nlines - 1]);
		putc('}', f);
	} else {
		fputs(",\"message\":null", f);
	}
	fputs(",\"trailers\":[", f);
	for (size_t i = 0; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i];

		if (!t->in_block || t->kind != TRAILER_TAG || !t->has_colon)
			continue;
		if (!first)
			putc(',', f);
		first = false;
		json_key_str(f, "{\"token\":", t->token);
		json_key_str(f, ",\"value\":", t->value);
		json_key_uint(f, ",\"line\":", t->line.lineno);
		putc('}', f);
	}
	putc(']', f);
}

static bool shown(const struct finding *x, enum severity min)
{
	return x->severity != SEV_OFF && x->severity >= min;
}

static void json_patch(FILE *f, const struct output_ctx *c, const struct patch *p,
		       const struct findings *fs, enum severity min)
{
	const struct series *s = &p->series;
	bool first = true;

	json_key_str(f, "{\"file\":", c->file);
	if (c->commit)
		json_key_str(f, ",\"commit\":", c->commit);
	json_key_uint(f, ",\"mail\":", c->mail ? c->mail : 1);
	json_key_str_or_null(f, ",\"message_id\":", p->message_id);
	/* --git: the commit's own subject, not the mail's made for it */
	json_key_str(f, ",\"subject\":", c->commit ? p->subject_body : p->subject);
	json_key_str(f, ",\"kind\":", patch_kind_name(p->kind));
	json_key_str(f, ",\"author\":{\"name\":", p->author.name);
	json_key_str(f, ",\"email\":", p->author.email);
	json_key_int(f, "},\"series\":{\"version\":", s->version);
	json_key_int(f, ",\"index\":", s->index);
	json_key_int(f, ",\"total\":", s->total);
	json_key_bool(f, ",\"rfc\":", s->rfc);
	json_key_bool(f, ",\"resend\":", s->resend);
	putc('}', f);
	json_model(f, p);
	fputs(",\"findings\":[", f);
	for (size_t i = 0; fs && i < fs->n; i++) {
		if (!shown(&fs->v[i], min))
			continue;
		if (!first)
			putc(',', f);
		first = false;
		json_finding(f, c, &fs->v[i]);
	}
	fputs("]}\n", f);
}

/* --- text ---------------------------------------------------------------- */

/* Writes n bytes at s for a terminal: C0 and C1 controls (but tab) become
 * '?', invalid UTF-8 becomes U+FFFD. */
static void text_put_n(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0, len, bad;

	while (i < n) {
		unsigned char c = u[i];

		if ((c >= 0x20 && c < 0x7F) || c == '\t') {
			i++;
			continue;
		}
		len = c >= 0x80 ? utf8_seq(u + i, n - i, &bad) : 0;
		if (len && !(len == 2 && c == 0xC2 && u[i + 1] < 0xA0)) {
			i += len;
			continue;
		}
		fwrite(s + run, 1, i - run, f);
		if (len) {			/* a C1 control, U+0080..U+009F */
			putc('?', f);
			i += len;
		} else if (c >= 0x80) {
			fputs(replacement, f);
			i += bad;
		} else {
			putc('?', f);
			i++;
		}
		run = i;
	}
	fwrite(s + run, 1, n - run, f);
}

static void text_put(FILE *f, const char *s)
{
	if (s)
		text_put_n(f, s, strlen(s));
}

static const char *const severity_upper[] = {
	[SEV_OFF] = "OFF", [SEV_CHECK] = "CHECK", [SEV_WARNING] = "WARNING", [SEV_ERROR] = "ERROR",
};

static const char *sev_upper(enum severity s)
{
	return (unsigned)s < ARRAY_SIZE(severity_upper) ? severity_upper[s] : "?";
}

/* What a line names first: the file, or with --git the commit's id in the
 * 12 digits git and checkpatch -g show. */
static void text_where(FILE *f, const struct output_ctx *c)
{
	if (c->commit)
		fprintf(f, "%.12s", c->commit);
	else
		text_put(f, c->file);
}

/* FILE: <message-id> "subject" (--git: ID: commit "subject"), and in
 * verbose mode why nothing follows. */
static void text_header(FILE *f, const struct output_ctx *c, const struct patch *p, size_t nshown)
{
	const char *subject = c->commit ? p->subject_body : p->subject;

	text_where(f, c);
	if (c->commit) {
		fputs(": commit", f);
	} else if (p->msg && p->msg->nheaders == 0 && (!p->message_id || !*p->message_id)) {
		fputs(": commit message", f);
	} else if (p->message_id && *p->message_id) {
		fputs(": <", f);
		text_put(f, p->message_id);
		putc('>', f);
	} else {
		fputs(": (no Message-ID)", f);
	}
	if (subject && *subject) {
		fputs(" \"", f);
		text_put(f, subject);
		putc('"', f);
	}
	/* a mail with several patch attachments: which one */
	if (p->msg && p->msg->nmore && p->attachment && *p->attachment) {
		fputs(" [attachment ", f);
		text_put(f, p->attachment);
		putc(']', f);
	}
	if (!patch_checkable(p)) {
		fputs(" (", f);
		fputs(patch_kind_name(p->kind), f);
		fputs(", not checked)", f);
	} else if (p->kind == KIND_OTHER) {
		/* patch.h (c): the daemon would not answer it */
		fputs(nshown ? " (other: no patch prefix, not a submission)"
			     : " (other: no patch prefix, not a submission; no findings)", f);
	} else if (!nshown) {
		fputs(" (no findings)", f);
	}
	putc('\n', f);
}

static void text_finding(FILE *f, const struct output_ctx *c, const struct finding *x)
{
	bool name_decoded;
	size_t line = file_line(c, x->line, &name_decoded);

	text_where(f, c);
	fprintf(f, ":%zu: %s:", line, sev_upper(x->severity));
	text_put(f, x->rule);
	fputs(": ", f);
	text_put(f, x->message);
	if (name_decoded)
		fprintf(f, " [decoded text line %zu]", x->line);
	putc('\n', f);
	if (!c->terse && x->text && *x->text) {
		fputs("    | ", f);
		text_put(f, x->text);
		putc('\n', f);
	}
}

static void text_patch(FILE *f, const struct output_ctx *c, const struct patch *p,
		       const struct findings *fs, enum severity min)
{
	size_t nshown = 0;

	for (size_t i = 0; fs && i < fs->n; i++)
		nshown += shown(&fs->v[i], min);
	if (!c->terse && (nshown || c->verbose))
		text_header(f, c, p, nshown);
	for (size_t i = 0; fs && i < fs->n; i++)
		if (shown(&fs->v[i], min))
			text_finding(f, c, &fs->v[i]);
}

/* --- entry points -------------------------------------------------------- */

void output_patch_ctx(FILE *f, enum output_format fmt, const struct output_ctx *c,
		      const struct patch *p, const struct findings *fs, enum severity min)
{
	if (fmt == OUTPUT_JSON)
		json_patch(f, c, p, fs, min);
	else
		text_patch(f, c, p, fs, min);
}

void output_patch(FILE *f, enum output_format fmt, const char *file,
		  const struct patch *p, const struct findings *fs, enum severity min)
{
	struct output_ctx c = { .file = file };

	output_patch_ctx(f, fmt, &c, p, fs, min);
}

void output_file_total(FILE *f, const char *file, const struct output_total *t)
{
	text_put(f, file);
	fprintf(f, ": total: %zu errors, %zu warnings, %zu checks, %zu patches checked\n",
		t->errors, t->warnings, t->checks, t->patches);
}

void output_error(FILE *f, enum output_format fmt, const struct output_ctx *where,
		  const char *msgid, const char *error)
{
	if (fmt == OUTPUT_JSON) {
		json_key_str(f, "{\"file\":", where->file);
		if (where->mail)
			json_key_uint(f, ",\"mail\":", where->mail);
		json_key_str_or_null(f, ",\"message_id\":", msgid);
		json_key_str(f, ",\"error\":", error);
		fputs("}\n", f);
		return;
	}
	text_put(f, where->file);
	fputs(": ERROR: ", f);
	if (msgid) {
		putc('<', f);
		text_put(f, msgid);
		fputs(">: ", f);
	}
	text_put(f, error);
	putc('\n', f);
}
