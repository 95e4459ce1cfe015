#include "autoconf.h"
#include "mail/address.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "lib/ascii.h"

/* RFC 5321 limits, used as plausibility bounds. */
#define ADDRESS_MAX_LOCAL	64
#define ADDRESS_MAX_LEN		254

static void trim(const char **s, const char **e)
{
	while (*s < *e && ascii_is_lws(**s))
		(*s)++;
	while (*e > *s && ascii_is_lws((*e)[-1]))
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
		else if (ascii_is_lws(*s)) {
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

	while (ae < e && !ascii_is_lws(*ae) && !strchr("(),;>#", *ae))
		ae++;
	if (!has_at(s, ae))
		return -1;
	p->email = xstrndup(s, (size_t)(ae - s));
	c = ae;
	while (c < e && ascii_is_lws(*c))
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
	while (s < e && ascii_is_lws(*s))
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
	return c >= 0x80 || ascii_is_ldh(c) || c == '_';
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

/* --- RFC 5322 mailboxes in raw header values ---------------------------- */

static bool is_atext(unsigned char c)
{
	return c >= 0x80 || ascii_is_alnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

/* After the quoted-string at s ('"'), or NULL when it does not end. */
static const char *quoted_end(const char *s, const char *e)
{
	for (s++; s < e; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* After the (nested) comment at s ('('), or NULL when it does not end. */
static const char *comment_end(const char *s, const char *e)
{
	int depth = 0;

	for (; s < e; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '(')
			depth++;
		else if (*s == ')' && --depth == 0)
			return s + 1;
	}
	return NULL;
}

/* After the domain literal at s ('['), or NULL. */
static const char *literal_end(const char *s, const char *e)
{
	for (s++; s < e; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '[')
			return NULL;
		else if (*s == ']')
			return s + 1;
	}
	return NULL;
}

/*
 * After the encoded-word at s ("=?charset?Q?text?="), or NULL.  Its text
 * is taken as printable ASCII up to "?=", wider than RFC 2047 allows in a
 * phrase: a word that hides '<', ',' or '@' stays one word of the display
 * name, where it is decoded, and never becomes an address or a separator.
 */
static const char *eword_end(const char *s, const char *e)
{
	const char *p = s + 2;
	int marks = 0;

	if (e - s < 8 || s[0] != '=' || s[1] != '?')
		return NULL;
	for (; p + 1 < e; p++) {
		unsigned char c = (unsigned char)*p;

		if (c <= ' ' || c >= 0x7f)
			return NULL;
		if (c != '?')
			continue;
		if (marks == 2)
			return p[1] == '=' ? p + 2 : NULL;
		if (++marks == 2 && !strchr("BbQq", p[-1]))
			return NULL;
	}
	return NULL;
}

/*
 * After the token at s that may hold specials (a quoted-string, comment,
 * domain literal or, with words, an encoded-word), s + 1 for any other
 * byte, NULL for one that does not end.
 */
static const char *token_end(const char *s, const char *e, bool words)
{
	const char *t;

	switch (*s) {
	case '"':
		return quoted_end(s, e);
	case '(':
		return comment_end(s, e);
	case '[':
		return literal_end(s, e);
	case '=':
		return words && (t = eword_end(s, e)) ? t : s + 1;
	default:
		return s + 1;
	}
}

/* The first c at the top level of [s, e), outside the tokens above (and
 * with words, outside encoded-words). */
static const char *find_top(const char *s, const char *e, char c, bool words)
{
	while (s && s < e && *s != c)
		s = token_end(s, e, words);
	return s && s < e ? s : NULL;
}

/* Skips white space and comments; NULL at an unterminated comment. */
static const char *skip_cfws(const char *s, const char *e)
{
	while (s && s < e && (ascii_is_lws(*s) || *s == '('))
		s = *s == '(' ? comment_end(s, e) : s + 1;
	return s;
}

/* A dot-atom: atext runs joined by single dots. */
static bool dot_atom(const char *s, const char *e)
{
	bool dot = true;

	if (s == e)
		return false;
	for (; s < e; s++) {
		if (*s == '.') {
			if (dot)
				return false;
			dot = true;
		} else if (is_atext((unsigned char)*s)) {
			dot = false;
		} else {
			return false;
		}
	}
	return !dot;
}

/* local-part "@" domain, exactly [s, e). */
static bool addr_spec(const char *s, const char *e)
{
	const char *at = s < e && *s == '"' ? quoted_end(s, e) : memchr(s, '@', (size_t)(e - s));

	if (!at || at >= e || *at != '@' || at == s)
		return false;
	if (*s != '"' && !dot_atom(s, at))
		return false;
	if (at + 1 < e && at[1] == '[')
		return literal_end(at + 1, e) == e;
	return dot_atom(at + 1, e);
}

/* A display name: words, quoted-strings, encoded-words, comments; a '.'
 * or '@' in a word is taken (obs-phrase, and mailers that write an
 * address as the name), any other special is not. */
static bool phrase_ok(const char *s, const char *e)
{
	while (s && s < e) {
		if (*s == '"' || *s == '(' || *s == '=')
			s = token_end(s, e, true);
		else if (ascii_is_lws(*s) || *s == '.' || *s == '@' || is_atext((unsigned char)*s))
			s++;
		else
			return false;
	}
	return s != NULL;
}

/* Folds runs of white space and control bytes to one space and trims,
 * in place. */
static void fold_spaces(char *s)
{
	char *d = s, *start = s;
	bool space = false;

	for (; *s; s++) {
		if ((unsigned char)*s <= ' ' || *s == 0x7f) {
			space = true;
			continue;
		}
		if (space && d > start)
			*d++ = ' ';
		space = false;
		*d++ = *s;
	}
	*d = '\0';
}

/*
 * The text of a display name (comments: a phrase, whose comments are no
 * part of the name) or of a comment's inside: quotes and quoted pairs
 * undone, raw 8-bit read as UTF-8 (else Latin-1), encoded-words decoded,
 * white space folded, control bytes made spaces.
 */
static char *decode_name(const char *s, const char *e, bool comments)
{
	struct buf b;
	char *u, *d;
	size_t n;

	buf_init(&b, 0);
	while (s < e) {
		const char *t = NULL;

		if (*s == '"' || (*s == '(' && comments))
			t = token_end(s, e, false);
		if (t && *s == '(') {
			s = t;
			continue;
		}
		if (t) {
			for (s++; s < t - 1; s++) {
				if (*s == '\\' && s + 1 < t - 1)
					s++;
				buf_addch(&b, *s);
			}
			s = t;
			continue;
		}
		if (*s == '\\' && s + 1 < e)
			s++;
		buf_addch(&b, *s++);
	}
	u = message_to_utf8(b.data ? b.data : "", b.len, NULL, &n, NULL);
	d = message_decode_2047(u, n);
	fold_spaces(d);
	free(u);
	buf_release(&b);
	return d;
}

/* "[phrase] <[route:]addr-spec>" with nothing but CFWS after it. */
static int parse_name_addr(struct person *p, const char *s, const char *lt, const char *e)
{
	const char *a = skip_cfws(lt + 1, e), *gt, *ae;

	if (!phrase_ok(s, lt) || !a)
		return -1;
	if (a < e && *a == '@') {		/* obs-route "@a,@b:" */
		a = find_top(a, e, ':', false);
		if (!a)
			return -1;
		a = skip_cfws(a + 1, e);
	}
	gt = a ? find_top(a, e, '>', false) : NULL;
	if (!gt || skip_cfws(gt + 1, e) != e)
		return -1;
	for (ae = gt; ae > a && ascii_is_lws(ae[-1]); ae--)
		;
	if (!addr_spec(a, ae))
		return -1;
	p->email = xstrndup(a, (size_t)(ae - a));
	p->name = decode_name(s, lt, true);
	return 0;
}

/* "addr-spec [(comment)]": the comment is the name. */
static int parse_bare_spec(struct person *p, const char *s, const char *e)
{
	const char *a = skip_cfws(s, e), *ae, *c, *ce;

	if (!a)
		return -1;
	for (ae = a; ae && ae < e && !ascii_is_lws(*ae) && *ae != '(';)
		ae = *ae == '"' || *ae == '[' ? token_end(ae, e, false) : ae + 1;
	if (!ae || !addr_spec(a, ae))
		return -1;
	for (c = ae; c < e && ascii_is_lws(*c); c++)
		;
	ce = c < e && *c == '(' ? comment_end(c, e) : NULL;
	if (skip_cfws(ae, e) != e)
		return -1;
	p->email = xstrndup(a, (size_t)(ae - a));
	p->name = ce ? decode_name(c + 1, ce - 1, false) : xstrdup("");
	return 0;
}

/* One mailbox, exactly [s, e). */
static int parse_mailbox(struct person *p, const char *s, const char *e)
{
	const char *lt = find_top(s, e, '<', true);

	p->name = p->email = NULL;
	return lt ? parse_name_addr(p, s, lt, e) : parse_bare_spec(p, s, e);
}

/*
 * The next element of an address list at *pos: its span, with a group's
 * "name:" skipped and its ";" taken as a separator.  False at the end.
 */
static bool next_element(const char **pos, const char *e, const char **es, const char **ee)
{
	const char *s = *pos;
	bool angle = false;

	if (s >= e)
		return false;
	*es = s;
	while (s && s < e) {
		if (*s == '<')
			angle = true;
		else if (*s == '>')
			angle = false;
		else if (!angle && (*s == ',' || *s == ';'))
			break;
		else if (!angle && *s == ':')
			*es = s + 1;	/* a group's display name */
		s = token_end(s, e, !angle);
	}
	if (!s) {		/* an unterminated quote or comment: the rest */
		*ee = *pos = e;
		return true;
	}
	*ee = s;
	*pos = s < e ? s + 1 : e;
	return true;
}

void address_list_parse(struct address_list *l, const char *raw, size_t n, size_t max)
{
	const char *e = raw + n, *pos = raw, *es, *ee;
	size_t alloc = 0;

	memset(l, 0, sizeof(*l));
	while (next_element(&pos, e, &es, &ee)) {
		struct person p;

		if (skip_cfws(es, ee) == ee)
			continue;	/* an empty element: ",,", a group's end */
		if (parse_mailbox(&p, es, ee) < 0) {
			person_release(&p);
			l->bad++;
			continue;
		}
		if (l->n >= max) {
			person_release(&p);
			l->dropped++;
			continue;
		}
		ARRAY_GROW(l->v, alloc, l->n + 1);
		l->v[l->n++] = p;
	}
}

void address_list_release(struct address_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		person_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int address_parse_mailbox(struct person *p, const char *raw, size_t n)
{
	struct address_list l;
	int rc = -1;

	address_list_parse(&l, raw ? raw : "", raw ? n : 0, 2);
	if (l.n == 1 && !l.bad && !l.dropped) {
		*p = l.v[0];
		l.n = 0;
		rc = 0;
	} else {
		p->name = xstrdup("");
		p->email = xstrdup("");
	}
	address_list_release(&l);
	return rc;
}

/* --- what git makes of a From: that is not one -------------------------- */

/* Mirrors mailinfo.c (handle_from() and its helpers) and ident.c, so that
 * the author we check is the one git am will record. */

/* git's isspace(): its ctype knows these four, not '\v' or '\f'. */
static bool git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* cleanup_space(): each run of white space becomes one ' ', in place. */
static void git_fold(char *s)
{
	char *d = s;

	while (*s) {
		if (!git_space(*s)) {
			*d++ = *s++;
			continue;
		}
		*d++ = ' ';
		while (git_space(*s))
			s++;
	}
	*d = '\0';
}

/* strbuf_trim(): s without white space at either end, in place. */
static char *git_trim(char *s)
{
	size_t n;

	while (git_space(*s))
		s++;
	n = strlen(s);
	while (n && git_space(s[n - 1]))
		n--;
	s[n] = '\0';
	return s;
}

/*
 * unquote_quoted_pair(): a quoted-string loses its quotes, a (comment)
 * keeps its parentheses, nested ones too; in both a backslash takes the
 * next byte as it is; one that is not closed runs to the end.  Outside
 * them a backslash is a byte like any other.  Malloc'ed.
 */
static char *git_unquote(const char *s)
{
	struct buf b;

	buf_init(&b, strlen(s) + 1);
	while (*s) {
		char open = *s++;
		int depth = 1;

		if (open != '"' && open != '(') {
			buf_addch(&b, open);
			continue;
		}
		if (open == '(')
			buf_addch(&b, '(');
		while (*s && depth) {
			char c = *s++;

			if (c == '\\') {
				if (!*s)
					break;
				c = *s++;
			} else if (open == '"' && c == '"') {
				break;
			} else if (open == '(' && (c == '(' || c == ')')) {
				depth += c == '(' ? 1 : -1;
			}
			buf_addch(&b, c);
		}
	}
	return buf_detach(&b, NULL);
}

/* get_sane_name(): the name, unless it could be taken for an address. */
static char *git_sane_name(const char *name, const char *email)
{
	size_t n = strlen(name);

	return xstrdup(!n || n > 60 || strpbrk(name, "@<>") ? email : name);
}

/* parse_bogus_from(): "name <x>" without an '@', from the folded value. */
static void git_bogus_from(struct person *p, const char *from)
{
	const char *bra = strchr(from, '<'), *ket = bra ? strchr(bra, '>') : NULL;
	char *name;

	if (!ket) {
		p->name = xstrdup("");
		p->email = xstrdup("");
		return;
	}
	p->email = xstrndup(bra + 1, (size_t)(ket - bra - 1));
	name = xstrndup(from, (size_t)(bra - from));
	p->name = git_sane_name(git_trim(name), p->email);
	free(name);
}

int address_recover(struct person *p, const char *s, size_t n)
{
	char *from = xstrndup(s, strnlen(s, n)), *f, *at, *name;
	size_t el, cut;

	git_fold(from);
	f = git_unquote(from);
	at = strchr(f, '@');
	if (!at) {
		git_bogus_from(p, from);
		free(from);
		free(f);
		return -1;
	}
	/* The word around the '@', from a '<' or white space before it. */
	while (at > f && !git_space(at[-1])) {
		if (at[-1] == '<') {
			at[-1] = ' ';
			break;
		}
		at--;
	}
	el = strcspn(at, " \n\t\r\v\f>");
	p->email = xstrndup(at, el);
	cut = el + (at[el] ? 1 : 0);	/* and the byte that ended it */
	memmove(at, at + cut, strlen(at + cut) + 1);
	/* The rest is the name: "Jane Doe", or "(Jane Doe)" after the address. */
	git_fold(f);
	name = git_trim(f);
	el = strlen(name);
	if (el && name[0] == '(' && name[el - 1] == ')') {
		name[el - 1] = '\0';
		name++;
	}
	p->name = git_sane_name(name, p->email);
	free(from);
	free(f);
	return 0;
}

/* ident.c's crud(): what git cuts from the ends of a name or an address. */
static bool git_crud(unsigned char c)
{
	return c <= ' ' || (c && strchr(".,:;<>\"\\'", c));
}

/* strbuf_addstr_without_crud(), in place. */
static void git_uncrud(char *s)
{
	const char *src = s;
	size_t n;
	char *d = s;

	while (*src && git_crud((unsigned char)*src))
		src++;
	n = strlen(src);
	while (n && git_crud((unsigned char)src[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++)
		if (src[i] != '\n' && src[i] != '<' && src[i] != '>')
			*d++ = src[i];
	*d = '\0';
}

void person_git_ident(struct person *p)
{
	git_uncrud(p->name);
	git_uncrud(p->email);
}

/* --- what a header of ours may carry ------------------------------------ */

bool address_is_atext(int c)
{
	return c >= 0 && c < 0x80 && is_atext((unsigned char)c);
}

bool address_domain_safe(const char *d)
{
	size_t label = 0;

	if (!*d)
		return false;
	for (const char *p = d;; p++) {
		if (*p == '.' || !*p) {
			if (label == 0 || p[-1] == '-' || p[-(ptrdiff_t)label] == '-')
				return false;
			if (!*p)
				return true;
			label = 0;
		} else if (ascii_is_ldh((unsigned char)*p)) {
			label++;
		} else {
			return false;
		}
	}
}

bool address_header_safe(const char *addr)
{
	const char *at;
	size_t n;

	if (!addr || (n = strlen(addr)) == 0 || n > 254 || !(at = strchr(addr, '@')))
		return false;
	if (at == addr || at[-1] == '.' || addr[0] == '.' || at - addr > 64)
		return false;
	/* Legal atext, but a lax reader would decode it as RFC 2047. */
	if (strstr(addr, "=?"))
		return false;
	for (const char *p = addr; p < at; p++) {
		unsigned char c = (unsigned char)*p;

		if (!(address_is_atext(c) || (c == '.' && p[1] != '.')))
			return false;
	}
	return address_domain_safe(at + 1);
}

char *address_strip_plus(const char *addr)
{
	const char *at = strrchr(addr, '@'), *plus = strchr(addr, '+');
	char *out;

	if (!at || !plus || plus > at)
		return xstrdup(addr);
	out = xmalloc(strlen(addr) + 1);
	memcpy(out, addr, (size_t)(plus - addr));
	strcpy(out + (plus - addr), at);
	return out;
}
