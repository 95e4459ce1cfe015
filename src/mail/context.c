#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/context.h"
#include "lib/ascii.h"
#include "mail/msgid.h"
#include "lib/utf8.h"

#define SLUG_HASH_MIN	8	/* hex digits of the hash b4 appends */
#define SLUG_HASH_MAX	16

void msg_context_init(struct msg_context *c)
{
	memset(c, 0, sizeof(*c));
	c->version = 1;
}

void msg_context_release(struct msg_context *c)
{
	free(c->message_id);
	free(c->subject);
	free(c->sender);
	free(c->kind);
	free(c->change_id);
	free(c->in_reply_to);
	free(c->references);
	free(c->list_id);
	msg_context_init(c);
}

/* Lower-case copy of the cleaned text, or NULL when nothing is left. */
static char *clean_lower(const char *s, size_t max, bool lower)
{
	char *t = utf8_clean_line(s, strlen(s), max);

	if (!*t) {
		free(t);
		return NULL;
	}
	for (char *p = t; lower && *p; p++)
		*p = (char)ascii_tolower((unsigned char)*p);
	return t;
}

/* A key that can sit in a space-separated list. */
/* The first reference (the thread root) and the last CONTEXT_REFS_MAX - 1. */
static char *join_refs(const struct patch *p)
{
	struct buf b;
	size_t tail = CONTEXT_REFS_MAX - 1;

	buf_init(&b, 0);
	for (size_t i = 0; i < p->nreferences; i++) {
		char *k;

		if (i > 0 && p->nreferences - i > tail)
			continue;
		if (!(k = msgid_ref_key(p->references[i])))
			continue;
		buf_printf(&b, "%s%s", b.len ? " " : "", k);
		free(k);
	}
	if (!b.len) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* "Name <id>" or "id": the id, lower-cased. */
static char *list_key(const char *v)
{
	const char *lt = v ? strrchr(v, '<') : NULL, *gt = lt ? strchr(lt, '>') : NULL;
	char *s, *k;

	if (!v || !*v)
		return NULL;
	s = lt && gt ? xstrndup(lt + 1, (size_t)(gt - lt - 1)) : xstrdup(v);
	k = clean_lower(s, CONTEXT_LIST_ID_MAX, true);
	free(s);
	return k;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ascii_is_xdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ascii_is_digit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* s (n bytes) less a leading "YYYYMMDD-"; NULL when it has none. */
static const char *after_date(const char *s, size_t n)
{
	return n > 9 && all_digits(s, 8) && s[8] == '-' ? s + 9 : NULL;
}

/* Cuts a trailing "-HASH" from [s, *end); false when there is none. */
static bool cut_hash(const char *s, const char **end)
{
	const char *dash = *end;

	while (dash > s && dash[-1] != '-')
		dash--;
	if (dash <= s + 1)
		return false;
	if ((size_t)(*end - dash) < SLUG_HASH_MIN || (size_t)(*end - dash) > SLUG_HASH_MAX ||
	    !all_hex(dash, (size_t)(*end - dash)))
		return false;
	*end = dash - 1;
	return true;
}

/* Cuts a trailing "-<digits>" (or, with v, "-v<digits>"). */
static bool cut_number(const char *s, const char **end, bool v)
{
	const char *dash = *end;

	while (dash > s && dash[-1] != '-')
		dash--;
	if (dash <= s + 1)
		return false;
	if (v && (*dash != 'v' || dash + 1 >= *end))
		return false;
	if (!all_digits(dash + v, (size_t)(*end - dash - v)))
		return false;
	*end = dash - 1;
	return true;
}

static char *slug(const char *s, const char *end)
{
	char *raw, *t;

	if (end <= s || (size_t)(end - s) > CONTEXT_CHANGE_ID_MAX)
		return NULL;
	raw = xstrndup(s, (size_t)(end - s));
	t = clean_lower(raw, CONTEXT_CHANGE_ID_MAX, false);
	free(raw);
	return t;
}

char *context_change_slug_footer(const char *v)
{
	const char *s, *end;
	size_t n;

	if (!v)
		return NULL;
	while (ascii_is_space((unsigned char)*v))
		v++;
	n = strcspn(v, " \t\r\n");
	if (!(s = after_date(v, n)))
		return slug(v, v + n);	/* not b4's form: the value as it is */
	end = v + n;
	if (!cut_hash(s, &end))
		return slug(v, v + n);
	return slug(s, end);
}

char *context_change_slug_msgid(const char *msgid)
{
	char *key = msgid_ref_key(msgid), *at, *out = NULL;
	const char *s, *end;

	if (!key)
		return NULL;
	at = strrchr(key, '@');
	end = at ? at : key + strlen(key);
	s = after_date(key, (size_t)(end - key));
	if (s && cut_hash(s, &end) && cut_number(s, &end, false) && cut_number(s, &end, true))
		out = slug(s, end);
	free(key);
	return out;
}

char *context_subject(const struct patch *p)
{
	char *s = clean_lower(p->subject_body ? p->subject_body : "", CONTEXT_SUBJECT_MAX, false);

	return s ? s : xstrdup("");
}

static char *change_id_of(const struct patch *p)
{
	if (p->change_id && *p->change_id)
		return context_change_slug_footer(p->change_id);
	return context_change_slug_msgid(p->message_id);
}

void context_from_patch(const struct message *m, const struct patch *p, time_t now,
			struct msg_context *out)
{
	const char *from = p->author.email && *p->author.email ? p->author.email
							       : p->sender.email;
	const char *list = p->list_id;

	(void)m;
	msg_context_release(out);
	out->message_id = msgid_ref_key(p->message_id);
	out->subject = context_subject(p);
	out->sender = from ? clean_lower(from, CONTEXT_ADDR_MAX, true) : NULL;
	if (!out->sender)
		out->sender = xstrdup("");
	out->kind = xstrdup(patch_kind_name(p->kind));
	out->version = p->series.version > 0 ? p->series.version : 1;
	out->index = p->series.index > 0 ? p->series.index : 0;
	out->total = p->series.total > 0 ? p->series.total : 0;
	out->change_id = change_id_of(p);
	out->in_reply_to = msgid_ref_key(p->in_reply_to);
	out->references = join_refs(p);
	out->list_id = list_key(list);
	out->time = now;
}

char *context_thread_root(const struct msg_context *c)
{
	if (c->references && *c->references)
		return xstrndup(c->references, strcspn(c->references, " "));
	if (c->in_reply_to)
		return xstrdup(c->in_reply_to);
	return c->message_id ? xstrdup(c->message_id) : NULL;
}

bool context_refers_to(const struct msg_context *c, const char *key)
{
	size_t n = key ? strlen(key) : 0;

	if (!n)
		return false;
	if (c->in_reply_to && !strcmp(c->in_reply_to, key))
		return true;
	for (const char *r = c->references; r && *r;) {
		size_t k = strcspn(r, " ");

		if (k == n && !memcmp(r, key, n))
			return true;
		r += k;
		r += *r == ' ';
	}
	return false;
}

bool context_is_of(const struct msg_context *c, const char *msgid)
{
	char *k = msgid_ref_key(msgid);
	bool same = k && c->message_id && !strcmp(k, c->message_id);

	free(k);
	return same;
}
