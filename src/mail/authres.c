/*
 * authres.c - Authentication-Results values (RFC 8601) and the From
 * domain's authentication (see authres.h).
 *
 * A recursive-descent reader over (s, n): every element may be preceded
 * by CFWS, so each step skips it first.  Values the decision does not
 * need (reason=, header.b=, smtp.mailfrom=, ...) are read and dropped.
 */
#include "autoconf.h"
#include <string.h>
#include <strings.h>

#include "mail/authres.h"
#include "lib/ascii.h"

struct cursor {
	const char *s;
	size_t n, i;
};

static int peek(const struct cursor *c)
{
	return c->i < c->n ? (unsigned char)c->s[c->i] : -1;
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* White space and comments: "(...)", nested, "\x" quoting any byte.
 * -1 for a comment left open. */
static int skip_cfws(struct cursor *c)
{
	size_t depth = 0;

	for (; c->i < c->n; c->i++) {
		int ch = (unsigned char)c->s[c->i];

		if (depth && ch == '\\') {
			if (++c->i >= c->n)
				return -1;
		} else if (ch == '(') {
			depth++;
		} else if (depth && ch == ')') {
			depth--;
		} else if (!depth && !ascii_is_lws(ch)) {
			return 0;
		}
	}
	return depth ? -1 : 0;
}

/* Skips CFWS, then takes ch when it is next. */
static bool take(struct cursor *c, int ch)
{
	if (skip_cfws(c) < 0 || peek(c) != ch)
		return false;
	c->i++;
	return true;
}

/* A Keyword (ldh-str), lower case, into out[size]; -1 when none or longer. */
static int read_keyword(struct cursor *c, char *out, size_t size)
{
	size_t k = 0;

	if (skip_cfws(c) < 0 || !ascii_is_ldh(peek(c)))
		return -1;
	for (; ascii_is_ldh(peek(c)); c->i++) {
		if (k + 1 >= size)
			return -1;
		out[k++] = (char)lower(peek(c));
	}
	out[k] = '\0';
	return 0;
}

/* A value character: RFC 2045 token characters, and for a pvalue
 * (local-part "@" domain, base64 signatures) also @ / = ? as well. */
static bool is_value_char(int ch, bool pvalue)
{
	if (ch <= ' ' || ch >= 127 || strchr("()<>,;:\\\"[]", ch))
		return false;
	return pvalue || !strchr("@/?=", ch);
}

/* Appends ch to out[size] at *k, or notes that it does not fit. */
static void put(char *out, size_t size, size_t *k, int ch, bool *overlong)
{
	if (!out)
		return;
	if (*k + 1 < size)
		out[(*k)++] = (char)ch;
	else
		*overlong = true;
}

/* A quoted-string at c (its '"' next): its content, unquoted. */
static int read_quoted(struct cursor *c, char *out, size_t size, size_t *k, bool *overlong)
{
	for (c->i++; c->i < c->n; c->i++) {
		int ch = (unsigned char)c->s[c->i];

		if (ch == '"') {
			c->i++;
			return 0;
		}
		if (ch == '\\' && ++c->i >= c->n)
			break;
		put(out, size, k, (unsigned char)c->s[c->i], overlong);
	}
	return -1;
}

/*
 * A value (token or quoted-string) or, with pvalue, a pvalue (also
 * [local-part] "@" domain) into out[size] (NULL: dropped), NUL-ended.
 * -1 when there is none; a value too long for out sets *overlong.
 */
static int read_value(struct cursor *c, char *out, size_t size, bool pvalue, bool *overlong)
{
	size_t k = 0, start;

	if (skip_cfws(c) < 0)
		return -1;
	start = c->i;
	if (peek(c) == '"' && read_quoted(c, out, size, &k, overlong) < 0)
		return -1;
	if (c->i > start && !(pvalue && peek(c) == '@'))
		goto done;
	for (; is_value_char(peek(c), pvalue); c->i++)
		put(out, size, &k, peek(c), overlong);
	if (c->i == start)
		return -1;
done:
	if (out)
		out[k] = '\0';
	return 0;
}

static void lower_str(char *s)
{
	for (; *s; s++)
		*s = (char)lower((unsigned char)*s);
}

/* Where a property's value is kept: header.d, header.i, header.from. */
static char *kept_property(struct authres_result *r, const char *ptype, const char *prop)
{
	if (strcmp(ptype, "header"))
		return NULL;
	if (!strcmp(prop, "d"))
		return r->header_d;
	if (!strcmp(prop, "i"))
		return r->header_i;
	if (!strcmp(prop, "from"))
		return r->header_from;
	return NULL;
}

/* "ptype.property=pvalue" after its ptype was read; r NULL: dropped. */
static int read_propspec(struct cursor *c, const char *ptype, struct authres_result *r)
{
	char prop[AUTHRES_KEYWORD_MAX + 1], *keep;
	bool overlong = false;

	if (!take(c, '.') || read_keyword(c, prop, sizeof(prop)) < 0 || !take(c, '='))
		return -1;
	keep = r ? kept_property(r, ptype, prop) : NULL;
	if (!keep)
		return read_value(c, NULL, 0, true, &overlong);
	if (*keep)
		r->unusable = true;	/* given twice: which one would be meant? */
	if (read_value(c, keep, AUTHRES_VALUE_MAX + 1, true, &overlong) < 0)
		return -1;
	lower_str(keep);
	if (overlong || !*keep)
		r->unusable = true;
	return 0;
}

/* "method[/version]=result [reason=value] [propspec...]" after its ';'.
 * r NULL: read and dropped (past AUTHRES_MAX_RESULTS). */
static int read_resinfo(struct cursor *c, struct authres_result *r)
{
	struct authres_result scratch;
	char word[AUTHRES_KEYWORD_MAX + 1];
	bool overlong = false;

	if (!r)
		r = &scratch;
	memset(r, 0, sizeof(*r));
	if (read_keyword(c, r->method, sizeof(r->method)) < 0)
		return -1;
	if (take(c, '/') && read_keyword(c, word, sizeof(word)) < 0)
		return -1;
	if (!take(c, '=') || read_keyword(c, r->result, sizeof(r->result)) < 0)
		return -1;
	for (;;) {
		if (skip_cfws(c) < 0)
			return -1;
		if (c->i >= c->n || peek(c) == ';')
			return 0;
		if (read_keyword(c, word, sizeof(word)) < 0)
			return -1;
		/* reason=value, and the like some servers add (action=none) */
		if (take(c, '=')) {
			if (read_value(c, NULL, 0, false, &overlong) < 0)
				return -1;
		} else if (read_propspec(c, word, r) < 0) {
			return -1;
		}
	}
}

/* authserv-id and the optional version. */
static int read_head(struct cursor *c, struct authres *out)
{
	bool overlong = false;
	size_t start;

	if (read_value(c, out->authserv_id, sizeof(out->authserv_id), false, &overlong) < 0 ||
	    overlong) {
		out->authserv_id[0] = '\0';
		return -1;
	}
	if (skip_cfws(c) < 0)
		return -1;
	start = c->i;
	while (peek(c) >= '0' && peek(c) <= '9')
		c->i++;
	if (c->i > start && (c->i - start != 1 || c->s[start] != '1'))
		return -1;	/* a version this reader does not know */
	return 0;
}

/* "none" and nothing after it: no method was applied. */
static bool is_none(const struct cursor *c)
{
	struct cursor after = *c;
	char word[AUTHRES_KEYWORD_MAX + 1];

	return read_keyword(&after, word, sizeof(word)) == 0 && !strcmp(word, "none") &&
	       skip_cfws(&after) == 0 && after.i >= after.n;
}

int authres_parse(const char *s, size_t n, struct authres *out)
{
	struct cursor c = { s, s ? n : 0, 0 };

	memset(out, 0, sizeof(*out));
	if (read_head(&c, out) < 0 || !take(&c, ';'))
		return -1;
	if (is_none(&c)) {
		out->none = true;
		return 0;
	}
	for (;;) {
		struct authres_result *r = out->n < AUTHRES_MAX_RESULTS ? &out->v[out->n] : NULL;

		if (read_resinfo(&c, r) < 0)
			return -1;
		if (r)
			out->n++;
		else
			out->dropped++;
		if (c.i >= c.n)
			return 0;
		c.i++;	/* the ';' read_resinfo() stopped at */
		/* A ';' ending the value, as some servers write it. */
		if (skip_cfws(&c) < 0)
			return -1;
		if (c.i >= c.n)
			return 0;
	}
}

bool authres_id_is(const char *s, size_t n, const char *authserv_id)
{
	struct cursor c = { s, s ? n : 0, 0 };
	char id[AUTHRES_ID_MAX + 1];
	bool overlong = false;

	if (!authserv_id || !*authserv_id)
		return false;
	if (read_value(&c, id, sizeof(id), false, &overlong) < 0 || overlong)
		return false;
	return !strcasecmp(id, authserv_id);
}

/* ------------------------------------------------------------ deciding */

/* d equals domain, or domain is a subdomain of d (d holding a dot). */
static bool aligned(const char *d, const char *domain)
{
	size_t ld = strlen(d), ln = strlen(domain);

	if (!ld)
		return false;
	if (!strcasecmp(d, domain))
		return true;
	return strchr(d, '.') && ln > ld + 1 && domain[ln - ld - 1] == '.' &&
	       !strcasecmp(domain + ln - ld, d);
}

bool authres_result_passes(const struct authres_result *r, const char *from_domain)
{
	const char *d;

	if (r->unusable || strcmp(r->result, "pass") || !from_domain || !*from_domain)
		return false;
	if (!strcmp(r->method, "dmarc"))
		return !*r->header_from || !strcasecmp(r->header_from, from_domain);
	if (strcmp(r->method, "dkim"))
		return false;
	d = r->header_d;
	if (!*d && *r->header_i) {
		const char *at = strrchr(r->header_i, '@');

		d = at ? at + 1 : r->header_i;
	}
	return aligned(d, from_domain);
}

const char *authres_verdict_name(enum authres_verdict v)
{
	static const char *const names[] = {
		[AUTHRES_DKIM_PASS] = "dkim=pass",
		[AUTHRES_DMARC_PASS] = "dmarc=pass",
		[AUTHRES_NO_TRUSTED_ID] = "no trusted authserv-id is set",
		[AUTHRES_NO_FROM_DOMAIN] = "the From address has no domain",
		[AUTHRES_NO_HEADER] = "no Authentication-Results from the trusted authserv-id",
		[AUTHRES_UNREADABLE] = "the trusted Authentication-Results does not parse",
		[AUTHRES_NO_PASS] = "the trusted Authentication-Results holds no aligned "
				    "dkim=pass nor dmarc=pass",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

/* The first (topmost) Authentication-Results header naming authserv_id. */
static const struct header *trusted_header(const struct message *m, const char *authserv_id)
{
	for (size_t i = 0; i < m->nheaders; i++) {
		const struct header *h = &m->headers[i];
		const char *raw;

		if (!h->name || strcasecmp(h->name, "Authentication-Results"))
			continue;
		raw = message_header_raw_of(m, h);
		if (raw && authres_id_is(raw, strlen(raw), authserv_id))
			return h;
	}
	return NULL;
}

enum authres_verdict authres_from_authenticated(const struct message *m,
						const char *authserv_id,
						const char *from_domain)
{
	const struct header *h;
	struct authres ar;
	bool dmarc = false;

	if (!authserv_id || !*authserv_id)
		return AUTHRES_NO_TRUSTED_ID;
	if (!from_domain || !*from_domain)
		return AUTHRES_NO_FROM_DOMAIN;
	if (!m || !(h = trusted_header(m, authserv_id)))
		return AUTHRES_NO_HEADER;
	if (authres_parse(h->raw, strlen(h->raw), &ar) < 0)
		return AUTHRES_UNREADABLE;
	for (size_t i = 0; i < ar.n; i++) {
		if (!authres_result_passes(&ar.v[i], from_domain))
			continue;
		if (!strcmp(ar.v[i].method, "dkim"))
			return AUTHRES_DKIM_PASS;
		dmarc = true;
	}
	return dmarc ? AUTHRES_DMARC_PASS : AUTHRES_NO_PASS;
}
