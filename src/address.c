#include "autoconf.h"
#include "address.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"

/* RFC 5321 limits, used as plausibility bounds. */
#define ADDRESS_MAX_LOCAL	64
#define ADDRESS_MAX_LEN		254

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && is_ws(**s))
		(*s)++;
	while (*e > *s && is_ws((*e)[-1]))
		(*e)--;
}

/*
 * Copies a display name, dropping the quotes of quoted strings and the
 * backslash of quoted pairs, and folding runs of white space to one space.
 */
static char *name_dup(const char *s, const char *e)
{
	struct buf b;
	bool space = false;

	trim(&s, &e);
	buf_init(&b, 0);
	for (; s < e; s++) {
		if (*s == '"')
			continue;
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (is_ws(*s)) {
			space = true;
			continue;
		}
		if (space && b.len)
			buf_addch(&b, ' ');
		space = false;
		buf_addch(&b, *s);
	}
	return buf_detach(&b, NULL);
}

/*
 * Finds the first '<' outside quoted strings and (comments), or NULL.  A
 * quoted name may hold '<', ',' and '@'.
 */
static const char *find_angle(const char *s, const char *e)
{
	bool quoted = false;
	int depth = 0;

	for (; s < e; s++) {
		if (*s == '\\' && s + 1 < e) {
			s++;
			continue;
		}
		if (*s == '"' && !depth)
			quoted = !quoted;
		else if (quoted)
			continue;
		else if (*s == '(')
			depth++;
		else if (*s == ')' && depth)
			depth--;
		else if (*s == '<' && !depth)
			return s;
	}
	return NULL;
}

static bool has_at(const char *s, const char *e)
{
	const char *at = memchr(s, '@', (size_t)(e - s));

	return at && at > s && at + 1 < e;
}

/* "Name <a@b>" and "<a@b>". */
static int parse_angle(struct person *p, const char *s, const char *lt,
		       const char *e, const char **rest)
{
	const char *a = lt + 1, *gt = memchr(a, '>', (size_t)(e - a));
	const char *ae;

	if (!gt)
		return -1;
	ae = gt;
	trim(&a, &ae);
	if (!has_at(a, ae))
		return -1;
	p->name = name_dup(s, lt);
	p->email = xstrndup(a, (size_t)(ae - a));
	if (rest)
		*rest = gt + 1;
	return 0;
}

/* "a@b", "a@b (Name)". The addr-spec ends at white space or a separator. */
static int parse_bare(struct person *p, const char *s, const char *e,
		      const char **rest)
{
	const char *ae = s, *c, *ce;

	while (ae < e && !is_ws(*ae) && !strchr("(),;>#", *ae))
		ae++;
	if (!has_at(s, ae))
		return -1;
	p->email = xstrndup(s, (size_t)(ae - s));
	c = ae;
	while (c < e && is_ws(*c))
		c++;
	if (c < e && *c == '(' && (ce = memchr(c, ')', (size_t)(e - c)))) {
		p->name = name_dup(c + 1, ce);
		ae = ce + 1;
	} else {
		p->name = xstrdup("");
	}
	if (rest)
		*rest = ae;
	return 0;
}

int address_parse(struct person *p, const char *s, size_t n, const char **rest)
{
	const char *e = s + n, *lt;
	int r;

	p->name = p->email = NULL;
	while (s < e && is_ws(*s))
		s++;
	lt = find_angle(s, e);
	r = lt ? parse_angle(p, s, lt, e, rest) : parse_bare(p, s, e, rest);
	if (r < 0) {
		person_release(p);
		p->name = xstrdup("");
		p->email = xstrdup("");
	}
	return r;
}

void person_release(struct person *p)
{
	free(p->name);
	free(p->email);
	p->name = p->email = NULL;
}

/* Local part without "+sub", and domain, of an address. */
static void address_split(const char *a, size_t *local, const char **dom)
{
	const char *at = strrchr(a, '@');
	const char *plus;
	size_t n = at ? (size_t)(at - a) : strlen(a);

	plus = memchr(a, '+', n);
	*local = plus ? (size_t)(plus - a) : n;
	*dom = at ? at + 1 : "";
}

bool address_same(const char *a, const char *b)
{
	size_t la, lb;
	const char *da, *db;

	if (!a || !b || !*a || !*b)
		return false;
	address_split(a, &la, &da);
	address_split(b, &lb, &db);
	return la == lb && !strncasecmp(a, b, la) && !strcasecmp(da, db);
}

static bool local_char_ok(unsigned char c)
{
	return c >= 0x80 || (c > ' ' && c < 0x7f && !strchr("()<>[]:;@\\,\"", c));
}

static bool local_valid(const char *s, size_t n)
{
	if (n == 0 || n > ADDRESS_MAX_LOCAL)
		return false;
	if (s[0] == '"')	/* quoted local part: anything printable */
		return n >= 2 && s[n - 1] == '"';
	if (s[0] == '.' || s[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!local_char_ok((unsigned char)s[i]) || (s[i] == '.' && s[i + 1] == '.'))
			return false;
	return true;
}

static bool label_char_ok(unsigned char c)
{
	return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Dotted labels, at least two of them; or an [address literal]. */
static bool domain_valid(const char *s)
{
	size_t n = strlen(s), label = 0, dots = 0;

	if (n && s[0] == '[')
		return n > 2 && s[n - 1] == ']';
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (label == 0 || s[i - 1] == '-' || s[i - label] == '-')
				return false;
			dots += i < n;
			label = 0;
		} else if (!label_char_ok((unsigned char)s[i])) {
			return false;
		} else {
			label++;
		}
	}
	return dots > 0;
}

bool address_valid(const char *email)
{
	const char *at;

	if (!email || strlen(email) > ADDRESS_MAX_LEN)
		return false;
	at = strrchr(email, '@');
	return at && local_valid(email, (size_t)(at - email)) && domain_valid(at + 1);
}
