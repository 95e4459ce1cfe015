#include "autoconf.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "mail/address.h"
#include "rules/rules.h"
#include "lib/buf.h"
#include "reply/reply.h"
#include "reply/recipients.h"
#include "lib/ascii.h"
#include "mail/msgid.h"
#include "lib/utf8.h"

#define HDR_FOLD	78	/* fold before this column when a token allows it */
#define HDR_WORD_MAX	75	/* one RFC 2047 encoded word */
#define PLAIN_WORD_MAX	70	/* longer words get encoded (so they can be split) */
#define LINE_MAX_OCTETS	998	/* RFC 5322 2.1.1 */
#define QP_LINE		76	/* RFC 2045 6.7 */
#define RULE_ID_MAX	64	/* of one X-Tagbot-Rules entry */
#define BODY_CAP	((size_t)4 * 1024 * 1024)

static const char default_footer[] =
	"tagbot checks patch tags against Documentation/process/ and can be wrong.\n"
	"Run \"tagbot check\" before sending; reply to this mail to reach a human.";

static const struct {
	const char *name;
	enum reply_to to;
} reply_to_names[] = {
	{ "author", REPLY_TO_AUTHOR },
	{ "author+list", REPLY_TO_AUTHOR_LIST },
	{ "all", REPLY_TO_ALL },
};

int reply_to_parse(const char *s, enum reply_to *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(reply_to_names); i++) {
		if (!strcasecmp(s, reply_to_names[i].name)) {
			*out = reply_to_names[i].to;
			return 0;
		}
	}
	return -1;
}

void reply_settings_init(struct reply_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->cc_author = true;
	s->from = "tagbot <tagbot@localhost.localdomain>";
	s->to = REPLY_TO_AUTHOR;
	s->min_severity = SEV_WARNING;
}

void reply_init(struct reply *r)
{
	memset(r, 0, sizeof(*r));
}

void reply_release(struct reply *r)
{
	free(r->msgid);
	free(r->envelope_from);
	for (size_t i = 0; i < r->nrcpt; i++)
		free(r->rcpt[i]);
	free(r->rcpt);
	free(r->raw);
	reply_init(r);
}

/* --- cleaning text from the mail ---------------------------------------- */

/* For the body: keeps spaces and tabs as written (a doubled space may be
 * the finding), replaces other control characters and bad bytes. */
static void add_body_text(struct buf *b, const char *s, size_t n, size_t max)
{
	size_t start = b->len;

	for (size_t i = 0; i < n;) {
		uint32_t c;
		size_t len = utf8_decode(s + i, n - i, &c);

		if (b->len - start + (len ? len : 3) > max) {
			buf_addstr(b, " [...]");
			return;
		}
		if (!len || (utf8_is_control(c) && c != '\t'))
			buf_addstr(b, UTF8_REPLACEMENT);
		else
			buf_add(b, s + i, len);
		i += len ? len : 1;
	}
}

/* --- header writing ---------------------------------------------------- */

struct hdr {
	struct buf *b;
	size_t col;		/* bytes on the current line */
	bool first;		/* no token yet on the header's first line */
};

static void hdr_start(struct hdr *h, struct buf *b, const char *name)
{
	h->b = b;
	buf_addstr(b, name);
	buf_addch(b, ':');
	h->col = strlen(name) + 1;
	h->first = true;
}

/* Tokens hold no white space; folding goes between them. */
static void hdr_token(struct hdr *h, const char *tok, size_t n)
{
	if (!h->first && h->col + 1 + n > HDR_FOLD) {
		buf_addstr(h->b, "\r\n");
		h->col = 0;
	}
	buf_addch(h->b, ' ');
	buf_add(h->b, tok, n);
	h->col += 1 + n;
	h->first = false;
}

static void hdr_end(struct hdr *h)
{
	buf_addstr(h->b, "\r\n");
}

static void hdr_simple(struct buf *b, const char *name, const char *value)
{
	struct hdr h;

	hdr_start(&h, b, name);
	hdr_token(&h, value, strlen(value));
	hdr_end(&h);
}

/* Splits clean text at its single spaces into tokens. */
static void hdr_words(struct hdr *h, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n)
			hdr_token(h, s, n);
		s += n;
		s += *s == ' ';
	}
}

/* The literal characters RFC 2047 5(3) allows in an encoded word in a
 * phrase; the same set is safe in unstructured text. */
static bool q_literal(unsigned char c)
{
	return ascii_is_alnum(c) || c == '!' || c == '*' || c == '+' || c == '-' || c == '/';
}

static size_t q_encode_char(const unsigned char *s, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == ' ')
			out[o++] = '_';
		else if (q_literal(s[i]))
			out[o++] = (char)s[i];
		else
			o += (size_t)sprintf(out + o, "=%02X", s[i]);
	}
	return o;
}

/* Clean UTF-8 text as a run of encoded words, split on character
 * boundaries so each decodes on its own. */
static void hdr_encoded(struct hdr *h, const char *s)
{
	static const char open[] = "=?UTF-8?Q?";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), wlen;
	char word[HDR_WORD_MAX + 1], enc[16];

	memcpy(word, open, sizeof(open) - 1);
	wlen = sizeof(open) - 1;
	for (size_t i = 0; i < n;) {
		uint32_t c;
		size_t len = utf8_decode(s + i, n - i, &c);
		size_t elen = q_encode_char(p + i, len ? len : 1, enc);

		if (wlen + elen + 2 > HDR_WORD_MAX) {
			memcpy(word + wlen, "?=", 2);
			hdr_token(h, word, wlen + 2);
			wlen = sizeof(open) - 1;
		}
		memcpy(word + wlen, enc, elen);
		wlen += elen;
		i += len ? len : 1;
	}
	if (wlen > sizeof(open) - 1) {
		memcpy(word + wlen, "?=", 2);
		hdr_token(h, word, wlen + 2);
	}
}

/* Plain when every byte is printable ASCII, no word is too long to fold
 * and nothing looks like an encoded word; else encoded. */
static bool plain_ok(const char *s)
{
	size_t word = 0;

	if (strstr(s, "=?"))
		return false;
	for (; *s; s++) {
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			return false;
		word = *s == ' ' ? 0 : word + 1;
		if (word > PLAIN_WORD_MAX)
			return false;
	}
	return true;
}

static void hdr_text(struct hdr *h, const char *clean)
{
	if (plain_ok(clean))
		hdr_words(h, clean);
	else
		hdr_encoded(h, clean);
}

/* A display name: atoms as they are, specials in a quoted-string,
 * anything else encoded. */
static void hdr_phrase(struct hdr *h, const char *clean)
{
	bool atoms = true;
	struct buf q;

	if (!*clean)
		return;
	if (!plain_ok(clean)) {
		hdr_encoded(h, clean);
		return;
	}
	for (const char *p = clean; *p; p++)
		if (!address_is_atext((unsigned char)*p) && *p != ' ')
			atoms = false;
	if (atoms) {
		hdr_words(h, clean);
		return;
	}
	buf_init(&q, 0);
	buf_addch(&q, '"');
	for (const char *p = clean; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_addch(&q, '\\');
		buf_addch(&q, *p);
	}
	buf_addch(&q, '"');
	hdr_token(h, q.data, q.len);
	buf_release(&q);
}

/* "Name <addr>" (addr already checked by address_header_safe). */
static void hdr_mailbox(struct buf *b, const char *header, const char *name, const char *addr)
{
	char *clean = utf8_clean_line(name, strlen(name), REPLY_NAME_MAX);
	struct hdr h;
	struct buf a;

	buf_init(&a, 0);
	buf_printf(&a, "<%s>", addr);
	hdr_start(&h, b, header);
	hdr_phrase(&h, clean);
	hdr_token(&h, a.data, a.len);
	hdr_end(&h);
	buf_release(&a);
	free(clean);
}

/* A list of tokens: Message-IDs in <> separated by white space only, or
 * addresses and rule IDs separated by commas. */
static void hdr_list(struct buf *b, const char *header, char *const *v, size_t n,
		     bool msgids)
{
	struct hdr h;
	struct buf t;

	buf_init(&t, 0);
	hdr_start(&h, b, header);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&t);
		if (msgids)
			buf_printf(&t, "<%s>", v[i]);
		else
			buf_printf(&t, "%s%s", v[i], i + 1 < n ? "," : "");
		hdr_token(&h, t.data, t.len);
	}
	hdr_end(&h);
	buf_release(&t);
}

/* --- recipients -------------------------------------------------------- */

struct addrs {
	char **v;	/* owned */
	size_t n, alloc;
};

static void addrs_release(struct addrs *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static bool is_bot(const struct reply_settings *s, const char *bot, const char *addr)
{
	if (address_same(bot, addr))
		return true;
	for (size_t i = 0; i < s->nbot_addresses; i++)
		if (address_same(s->bot_addresses[i], addr))
			return true;
	return false;
}

/* Adds addr when it is valid, new, not the bot's and there is room. */
static bool addrs_add(struct addrs *a, const char *addr, const struct reply_settings *s,
		      const char *bot)
{
	if (!address_header_safe(addr) || a->n >= REPLY_MAX_RCPT || is_bot(s, bot, addr))
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!strcasecmp(a->v[i], addr))
			return false;
	ARRAY_GROW(a->v, a->alloc, a->n + 1);
	a->v[a->n++] = xstrdup(addr);
	return true;
}

/* Each mailbox of a raw To:/Cc: value that may be mailed (to = all). */
static void add_raw_list(struct addrs *a, const char *raw, const struct patch *p,
			 const struct reply_settings *s, const char *bot)
{
	struct address_list l;

	if (!raw)
		return;
	address_list_parse(&l, raw, strnlen(raw, 64 * 1024), REPLY_MAX_RCPT);
	for (size_t i = 0; i < l.n; i++)
		if (recipients_may_mail(p, s, l.v[i].email))
			addrs_add(a, l.v[i].email, s, bot);
	address_list_release(&l);
}

static const char *hdr_raw(const struct patch *p, const char *name)
{
	return p->msg ? message_header_raw(p->msg, name) : NULL;
}

/* --- ids, dates -------------------------------------------------------- */

static char *new_msgid(const char *domain, time_t now)
{
	uint64_t rnd = 0;
	char *id;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd ^= ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&rnd ^ (uint64_t)now;
	id = xmalloc(64 + strlen(domain));
	sprintf(id, "tagbot.%lld.%016llx@%s", (long long)now, (unsigned long long)rnd, domain);
	return id;
}

static void rfc5322_date(char *out, size_t size, time_t t)
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, size, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec);
}

/* The parent's References (valid ones only), then the parent itself;
 * trimmed to the first and the last ones, as RFC 5322 3.6.4 allows. */
static void collect_refs(struct addrs *refs, const struct patch *p, bool parent_ok)
{
	struct addrs all = { 0 };
	size_t keep_tail = REPLY_MAX_REFERENCES - 1;

	for (size_t i = 0; i < p->nreferences; i++) {
		if (!msgid_header_safe(p->references[i]))
			continue;
		ARRAY_GROW(all.v, all.alloc, all.n + 1);
		all.v[all.n++] = xstrdup(p->references[i]);
	}
	if (parent_ok && (all.n == 0 || strcmp(all.v[all.n - 1], p->message_id))) {
		ARRAY_GROW(all.v, all.alloc, all.n + 1);
		all.v[all.n++] = xstrdup(p->message_id);
	}
	for (size_t i = 0; i < all.n; i++) {
		if (i == 0 || i + keep_tail >= all.n) {
			ARRAY_GROW(refs->v, refs->alloc, refs->n + 1);
			refs->v[refs->n++] = all.v[i];
		} else {
			free(all.v[i]);
		}
	}
	free(all.v);
}

/*
 * One item of a reply: a distinct finding (its rule, finding_key() and
 * what it says),
 * shown as its first occurrence, with every part and line it occurs at.
 */
struct item {
	const struct finding *f;	/* foreign; the first */
	char *key;			/* owned */
	struct at {
		size_t part, line;	/* part: 0 in a reply to one patch */
	} *at;				/* owned; in the order found */
	size_t nat, alloc;
};

/* The distinct rule IDs of the items shown, in order. */
static void collect_rules(struct addrs *ids, const struct item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *rule = items[i].f->rule;
		char *id = utf8_clean_line(rule, strlen(rule), RULE_ID_MAX);
		bool dup = !*id || strchr(id, ' ');

		for (size_t j = 0; j < ids->n && !dup; j++)
			dup = !strcmp(ids->v[j], id);
		if (dup) {
			free(id);
			continue;
		}
		ARRAY_GROW(ids->v, ids->alloc, ids->n + 1);
		ids->v[ids->n++] = id;
	}
}

/* --- body -------------------------------------------------------------- */

/* What a reply is made of, gathered from the mail it answers. */
struct parts {
	const struct patch *parent; /* foreign; the mail answered */
	struct person from;	/* owned */
	struct recipients own;	/* owned; whom to answer, unless the settings knew */
	const struct recipients *who; /* foreign (own, or the settings') */
	const struct person *to; /* foreign (who->to) */
	struct addrs cc, refs, rules;
	struct item *items;	/* owned; one per distinct finding reported */
	size_t nused, nall, alloc; /* shown (REPLY_MAX_FINDINGS at most), all */
	char *subject;		/* owned; cleaned original subject */
	bool parent_ok;		/* parent's Message-ID may go in the headers */
};

/* "Token:" as a trailer starts (Signed-off-by:, Fixes:, Link:). */
static bool trailer_word(const char *w, size_t n)
{
	if (n < 2 || w[n - 1] != ':' || !((w[0] | 0x20) >= 'a' && (w[0] | 0x20) <= 'z'))
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!ascii_is_alnum((unsigned char)w[i]) && w[i] != '-')
			return false;
	return true;
}

struct word {
	const char *p;
	size_t n;
};

static void put_line(struct buf *b, const char *indent, const struct word *w, size_t from,
		     size_t to)
{
	buf_addstr(b, indent);
	for (size_t i = from; i < to; i++) {
		if (i > from)
			buf_addch(b, ' ');
		buf_add(b, w[i].p, w[i].n);
	}
	buf_addch(b, '\n');
}

/*
 * Word-wraps clean text (one line, single spaces) at REPLY_WRAP columns,
 * each line starting with indent.  A wrapped line never starts with a
 * trailer-shaped word ("... add a\n   Signed-off-by: line"): the word
 * before it moves down too, so no tool reads our prose as a tag.
 */
static void wrap(struct buf *b, const char *text, const char *indent)
{
	struct word *w = NULL;
	size_t n = 0, alloc = 0, ind = strlen(indent), start = 0, col;

	for (const char *t = text; *t;) {
		size_t len = strcspn(t, " ");

		if (len) {
			ARRAY_GROW(w, alloc, n + 1);
			w[n].p = t;
			w[n++].n = len;
		}
		t += len;
		t += *t == ' ';
	}
	while (start < n) {
		size_t end = start + 1;

		col = ind + w[start].n;
		while (end < n && col + 1 + w[end].n <= REPLY_WRAP)
			col += 1 + w[end++].n;
		if (end < n && end - start > 1 && trailer_word(w[end].p, w[end].n))
			end--;
		put_line(b, indent, w, start, end);
		start = end;
	}
	free(w);
}

static void wrap_raw(struct buf *b, const char *s, const char *indent)
{
	char *clean = utf8_clean_line(s, strlen(s), 4096);

	wrap(b, clean, indent);
	free(clean);
}

/*
 * "See: DOC; tagbot-rules(7) RULE": the document a finding rests on, and,
 * for a built-in rule, where the manual explains it.  A custom rule has only
 * its admin's doc (or nothing).
 */
static void see_line(struct buf *b, const char *rule, const char *doc)
{
	bool builtin = rule && rule_find(rule) >= 0;
	struct buf see;

	if (!(doc && *doc) && !builtin)
		return;
	buf_init(&see, 0);
	buf_addstr(&see, "See: ");
	if (doc && *doc)
		buf_printf(&see, "%s%s", doc, builtin ? "; " : "");
	if (builtin)
		buf_printf(&see, "tagbot-rules(7) %s", rule_defs[rule_find(rule)].id);
	wrap_raw(b, see.data, "   ");
	buf_release(&see);
}

/* The lines of it at one part (from at[*i] on, while the part is the
 * same), after lead: "<lead> line 12" or "<lead> lines 12, 14", nothing
 * when the finding is about the mail as a whole; moves *i past them. */
static void item_lines(struct buf *w, const struct item *it, size_t *i, const char *lead)
{
	size_t part = it->at[*i].part, n = 0, from = *i;

	for (; *i < it->nat && it->at[*i].part == part; (*i)++)
		n += it->at[*i].line && (*i == from || it->at[*i].line != it->at[*i - 1].line);
	if (!n)
		return;
	buf_addstr(w, lead);
	buf_addstr(w, n == 1 ? " line" : " lines");
	for (size_t j = from, k = 0; j < *i; j++) {
		if (!it->at[j].line || (j > from && it->at[j].line == it->at[j - 1].line))
			continue;
		buf_printf(w, "%s %zu", k++ ? "," : "", it->at[j].line);
	}
}

/*
 * An item's first line: "3. RULE (warning), lines 12, 14:", with the other
 * parts it occurs in named by labels[part] (a series reply; NULL in a reply
 * to one patch): "..., line 12, also in patch 4/5 line 9:".  Wrapped, its
 * later lines indented as the item's text.
 */
static void item_head(struct buf *b, size_t k, const struct item *it, const char *rule,
		      char *const *labels)
{
	struct buf w, out;
	size_t i = 0, others = 0;

	buf_init(&w, 0);
	buf_printf(&w, "%zu. %s (%s)", k + 1, rule, severity_name(it->f->severity));
	item_lines(&w, it, &i, ",");
	while (labels && i < it->nat) {
		buf_addstr(&w, others++ ? ", " : ", also in ");
		buf_addstr(&w, labels[it->at[i].part]);
		item_lines(&w, it, &i, "");
	}
	buf_addch(&w, ':');
	buf_init(&out, 0);
	wrap(&out, w.data, "   ");
	buf_addstr(b, out.data + 3);
	buf_release(&out);
	buf_release(&w);
}

static void body_item(struct buf *b, size_t k, const struct item *it, char *const *labels)
{
	const struct finding *f = it->f;
	char *rule = utf8_clean_line(f->rule, strlen(f->rule), RULE_ID_MAX);

	item_head(b, k, it, rule, labels);
	free(rule);
	if (f->text && *f->text) {
		/* "| " keeps the quoted tag from being read as a tag of the reply. */
		buf_addstr(b, "\n| ");
		add_body_text(b, f->text, strlen(f->text), REPLY_QUOTE_MAX);
		buf_addstr(b, "\n");
	}
	buf_addch(b, '\n');
	if (f->message && *f->message)
		wrap_raw(b, f->message, "   ");
	see_line(b, f->rule, f->doc);
	buf_addch(b, '\n');
}

/* The footer, line by line, each line cleaned (an admin's text still must
 * not carry control characters into the mail). */
static void body_footer(struct buf *b, const char *footer)
{
	const char *s = footer ? footer : default_footer;

	buf_addstr(b, "-- \n");
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = utf8_clean_line(s, n, LINE_MAX_OCTETS / 2);

		buf_addstr(b, line);
		buf_addch(b, '\n');
		free(line);
		s += n;
		s += *s == '\n';
	}
}

static void body_hello(struct buf *b, const struct person *to)
{
	char *name = utf8_clean_line(to->name ? to->name : "", to->name ? strlen(to->name) : 0,
				      REPLY_NAME_MAX);

	if (*name)
		buf_printf(b, "Hello %s,\n\n", name);
	else
		buf_addstr(b, "Hello,\n\n");
	free(name);
}

/*
 * What was checked: the patch by its subject, or, when the patch came as an
 * attachment, the attachment by its file name (the mail's subject may say
 * anything, "patch attached" or a question).
 */
static void body_what(struct buf *b, const struct patch *p, const char *subject)
{
	const struct message *m = p->msg;
	char *file;

	if (!m || !m->text_is_attachment) {
		buf_addstr(b, "tagbot checked the tags of your patch\n\n");
		wrap(b, subject, "    ");
		return;
	}
	file = utf8_clean_line(m->text_name ? m->text_name : "",
				m->text_name ? strlen(m->text_name) : 0, REPLY_SUBJECT_MAX);
	if (*file) {
		buf_addstr(b, "tagbot checked the tags of the patch you attached\n\n");
		wrap(b, file, "    ");
	} else {
		buf_addstr(b, "tagbot checked the tags of the patch attached to your mail");
	}
	free(file);
}

static void build_body(struct buf *b, const struct parts *pp, const struct reply_settings *s)
{
	body_hello(b, pp->to);
	body_what(b, pp->parent, pp->subject);
	buf_printf(b, "\nand found %zu thing%s to look at:\n\n", pp->nall,
		   pp->nall == 1 ? "" : "s");
	for (size_t i = 0; i < pp->nused; i++)
		body_item(b, i, &pp->items[i], NULL);
	if (pp->nall > pp->nused)
		buf_printf(b, "... and %zu more; \"tagbot check\" on the patch lists them all.\n\n",
			   pp->nall - pp->nused);
	body_footer(b, s->footer);
}

/* 7bit when every byte is ASCII and no line passes 998 octets. */
static bool body_7bit(const struct buf *body)
{
	size_t col = 0;

	for (size_t i = 0; i < body->len; i++) {
		unsigned char c = (unsigned char)body->data[i];

		if (c >= 0x80)
			return false;
		col = c == '\n' ? 0 : col + 1;
		if (col > LINE_MAX_OCTETS)
			return false;
	}
	return true;
}

static void put_crlf(struct buf *out, const struct buf *body)
{
	for (size_t i = 0; i < body->len; i++) {
		if (body->data[i] == '\n')
			buf_addch(out, '\r');
		buf_addch(out, body->data[i]);
	}
}

/* Quoted-printable (RFC 2045 6.7): soft breaks keep lines at 76. */
static void put_qp(struct buf *out, const struct buf *body)
{
	size_t col = 0;

	for (size_t i = 0; i < body->len; i++) {
		unsigned char c = (unsigned char)body->data[i];
		bool eol = i + 1 == body->len || body->data[i + 1] == '\n';
		char enc[4];
		size_t n;

		if (c == '\n') {
			buf_addstr(out, "\r\n");
			col = 0;
			continue;
		}
		/* White space at the end of a line is encoded: transports strip it. */
		if ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !eol))
			enc[0] = (char)c, n = 1;
		else
			n = (size_t)snprintf(enc, sizeof(enc), "=%02X", c);
		if (col + n > QP_LINE - 1 && !(eol && col + n <= QP_LINE)) {
			buf_addstr(out, "=\r\n");
			col = 0;
		}
		buf_add(out, enc, n);
		col += n;
	}
}

/* --- assembly ---------------------------------------------------------- */

static void addrs_drop(struct addrs *a, const char *addr)
{
	for (size_t i = 0; i < a->n; i++) {
		if (!strcasecmp(a->v[i], addr)) {
			free(a->v[i]);
			memmove(a->v + i, a->v + i + 1, (--a->n - i) * sizeof(char *));
			return;
		}
	}
}

static void parts_release(struct parts *p)
{
	person_release(&p->from);
	if (p->who == &p->own)
		recipients_release(&p->own);
	addrs_release(&p->cc);
	addrs_release(&p->refs);
	addrs_release(&p->rules);
	for (size_t i = 0; i < p->nall; i++) {
		free(p->items[i].key);
		free(p->items[i].at);
	}
	free(p->items);
	free(p->subject);
}

static bool has_re(const char *subject)
{
	return !strncasecmp(subject, "re:", 3);
}

/* The headers of reply r (its Message-ID made) made of pp, up to the
 * content's. */
static void put_headers(struct buf *b, const struct parts *pp, const struct reply *r,
			const struct reply_settings *s, time_t now)
{
	struct hdr h;
	char date[64], id[MSGID_HEADER_MAX + 64];

	hdr_mailbox(b, "From", pp->from.name, pp->from.email);
	hdr_mailbox(b, "To", pp->to->name ? pp->to->name : "", pp->to->email);
	if (pp->cc.n)
		hdr_list(b, "Cc", pp->cc.v, pp->cc.n, false);
	if (s->reply_to && address_header_safe(s->reply_to))
		hdr_mailbox(b, "Reply-To", "", s->reply_to);
	hdr_start(&h, b, "Subject");
	if (!has_re(pp->subject))
		hdr_token(&h, "Re:", 3);
	hdr_text(&h, pp->subject);
	hdr_end(&h);
	rfc5322_date(date, sizeof(date), now);
	buf_printf(b, "Date: %s\r\n", date);
	snprintf(id, sizeof(id), "<%s>", r->msgid);
	hdr_simple(b, "Message-ID", id);
	if (pp->parent_ok) {
		snprintf(id, sizeof(id), "<%s>", pp->parent->message_id);
		hdr_simple(b, "In-Reply-To", id);
	}
	if (pp->refs.n)
		hdr_list(b, "References", pp->refs.v, pp->refs.n, true);
	buf_addstr(b, "Auto-Submitted: auto-generated\r\n");
	buf_addstr(b, "X-Mailer: tagbot " PACKAGE_VERSION "\r\n");
	if (pp->rules.n)
		hdr_list(b, "X-Tagbot-Rules", pp->rules.v, pp->rules.n, false);
}

/* The body is text, quoted-printable when it is not 7bit (body_7bit()). */
static void put_content_headers(struct buf *b, bool qp)
{
	buf_addstr(b, "MIME-Version: 1.0\r\n");
	buf_addstr(b, "Content-Type: text/plain; charset=UTF-8\r\n");
	buf_printf(b, "Content-Transfer-Encoding: %s\r\n", qp ? "quoted-printable" : "7bit");
}

/* Whether messages a and b say the same, case and white space aside (their
 * numbers count: "line 7" is not "line 9"). */
static bool same_words(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	for (;;) {
		bool sa = ascii_is_space((unsigned char)*a), sb = ascii_is_space((unsigned char)*b);

		while (ascii_is_space((unsigned char)*a))
			a++;
		while (ascii_is_space((unsigned char)*b))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (sa != sb || ascii_tolower((unsigned char)*a) != ascii_tolower((unsigned char)*b))
			return false;
		a++;
		b++;
	}
}

/* Adds finding x of part `part` to pp's items: to the item with its rule
 * and key that says the same (its text shown once is true for every part
 * and line it names: a rule told per person names the part's author), else
 * as a new one. */
static void add_item(struct parts *pp, const struct finding *x, size_t part)
{
	char *key = finding_key(x);
	struct item *it = NULL;

	for (size_t i = 0; i < pp->nall && !it; i++)
		if (!strcmp(pp->items[i].f->rule, x->rule) && !strcmp(pp->items[i].key, key) &&
		    same_words(pp->items[i].f->message, x->message))
			it = &pp->items[i];
	if (it) {
		free(key);
	} else {
		ARRAY_GROW(pp->items, pp->alloc, pp->nall + 1);
		it = &pp->items[pp->nall++];
		memset(it, 0, sizeof(*it));
		it->f = x;
		it->key = key;
	}
	ARRAY_GROW(it->at, it->alloc, it->nat + 1);
	it->at[it->nat].part = part;
	it->at[it->nat++].line = x->line;
}

/* Keeps the findings at or above the reply's severity, one item per
 * distinct finding, the first REPLY_MAX_FINDINGS of them to show; f may be
 * NULL; partof[i] is the part of f->v[i] (NULL: all one patch's). */
static void pick_findings(struct parts *pp, const struct findings *f, const size_t *partof,
			  const struct reply_settings *s)
{
	for (size_t i = 0; f && i < f->n; i++) {
		if (f->v[i].severity < s->min_severity || f->v[i].severity == SEV_OFF)
			continue;
		add_item(pp, &f->v[i], partof ? partof[i] : 0);
	}
	pp->nused = pp->nall < REPLY_MAX_FINDINGS ? pp->nall : REPLY_MAX_FINDINGS;
}

/* What every reply to msg needs first: its subject, our From: and whom to
 * answer. */
static int gather_start(struct parts *pp, const struct patch *msg, const char **subj,
			const struct reply_settings *s, struct err *e)
{
	pp->parent = msg;
	*subj = msg->msg ? message_header(msg->msg, "Subject") : NULL;
	if (!*subj)
		*subj = msg->subject ? msg->subject : "";
	if (!s->from || address_parse(&pp->from, s->from, strlen(s->from), NULL) < 0 ||
	    !address_header_safe(pp->from.email))
		return err_set(e, ERR_FINAL, "reply: [reply] from is not a valid address");
	pp->who = recipients_of(msg, s, &pp->own);
	if (!pp->who->to.email[0])
		return err_set(e, ERR_FINAL, "message <%.200s>: nobody to reply to: %s",
			       msg->message_id ? msg->message_id : "", pp->who->why);
	pp->to = &pp->who->to;
	return 0;
}

/* Whether every item is about the sender's own part (their sign-off):
 * then the patch's author has nothing to do, and is not Cc'd. */
static bool sender_only(const struct parts *pp)
{
	for (size_t i = 0; i < pp->nall; i++)
		if (strcmp(pp->items[i].f->rule, "SUBMITTER_SIGN_OFF"))
			return false;
	return true;
}

/* Cc per recipients.h: the in-body author (unless only the sender has
 * something to do), the configured list, and for to = all the mail's To
 * and Cc. */
static void collect_cc(struct parts *pp, const struct reply_settings *s)
{
	const struct recipients *who = pp->who;
	const struct patch *p = pp->parent;
	const char *bot = pp->from.email;

	if (!sender_only(pp) && who->author.email[0])
		addrs_add(&pp->cc, who->author.email, s, bot);
	if (who->list)
		addrs_add(&pp->cc, who->list, s, bot);
	if (s->to != REPLY_TO_ALL)
		return;
	add_raw_list(&pp->cc, hdr_raw(p, "To"), p, s, bot);
	add_raw_list(&pp->cc, hdr_raw(p, "Cc"), p, s, bot);
}

/* The rest of a reply to parent about the findings picked before
 * (pick_findings()); there must be one to report. */
static int gather(struct parts *pp, const struct patch *parent, const struct reply_settings *s,
		  struct err *e)
{
	const char *subj;

	if (gather_start(pp, parent, &subj, s, e) < 0)
		return -1;
	if (!pp->nall)
		return err_set(e, ERR_FINAL, "message <%.200s>: nothing to reply about",
			       parent->message_id ? parent->message_id : "");
	pp->subject = utf8_clean_line(subj, strlen(subj), REPLY_SUBJECT_MAX);
	pp->parent_ok = parent->message_id && msgid_header_safe(parent->message_id);
	/* The To goes in first: it takes one of REPLY_MAX_RCPT's places, and a
	 * copy of it in the mail's To or Cc is a duplicate.  Then it leaves
	 * the Cc: in To: never Cc'd again. */
	addrs_add(&pp->cc, pp->to->email, s, pp->from.email);
	collect_cc(pp, s);
	addrs_drop(&pp->cc, pp->to->email);
	collect_refs(&pp->refs, parent, pp->parent_ok);
	collect_rules(&pp->rules, pp->items, pp->nused);
	return 0;
}

static const char *bot_domain(const struct reply_settings *s, const char *from)
{
	if (s->msgid_domain && address_domain_safe(s->msgid_domain))
		return s->msgid_domain;
	return strchr(from, '@') + 1;
}

static void fill_rcpt(struct reply *r, const struct parts *pp)
{
	r->rcpt = xcalloc(pp->cc.n + 1, sizeof(*r->rcpt));
	r->rcpt[r->nrcpt++] = xstrdup(pp->to->email);
	for (size_t i = 0; i < pp->cc.n; i++)
		r->rcpt[r->nrcpt++] = xstrdup(pp->cc.v[i]);
}

/* Makes r of what was gathered and the body built from it: its
 * Message-ID, envelope and the mail itself, quoted-printable when the
 * body is not 7-bit.  Releases body. */
static void assemble(struct reply *r, struct parts *pp, struct buf *body,
		     const struct reply_settings *s, time_t now)
{
	struct buf out;
	bool qp = !body_7bit(body);

	r->msgid = new_msgid(bot_domain(s, pp->from.email), now);
	r->envelope_from = xstrdup(pp->from.email);
	r->nfindings = pp->nall;
	fill_rcpt(r, pp);
	buf_init(&out, 0);
	put_headers(&out, pp, r, s, now);
	put_content_headers(&out, qp);
	buf_addstr(&out, "\r\n");
	if (qp)
		put_qp(&out, body);
	else
		put_crlf(&out, body);
	r->raw = buf_detach(&out, &r->len);
	buf_release(body);
}

int reply_build(struct reply *r, const struct patch *parent, const struct findings *f,
		const struct reply_settings *s, time_t now, struct err *e)
{
	struct parts pp;
	struct buf body;

	reply_init(r);
	memset(&pp, 0, sizeof(pp));
	pick_findings(&pp, f, NULL, s);
	if (gather(&pp, parent, s, e) < 0) {
		parts_release(&pp);
		return -1;
	}
	buf_init(&body, BODY_CAP);
	build_body(&body, &pp, s);
	assemble(r, &pp, &body, s, now);
	parts_release(&pp);
	return 0;
}

/* --- maintainer Cc mode ------------------------------------------------ */

/* The patch's submitter and in-body author first (always: the copy for
 * them is the point), then what s->to adds from the request; never the
 * request's sender, who is in To. */
static void cc_recipients(struct parts *pp, const struct reply_cc *c,
			  const struct reply_settings *s)
{
	struct recipients pw;

	if (c->patch && recipients_find(&pw, c->patch, s) == 0) {
		addrs_add(&pp->cc, pw.to.email, s, pp->from.email);
		if (pw.author.email[0])
			addrs_add(&pp->cc, pw.author.email, s, pp->from.email);
	}
	if (c->patch)
		recipients_release(&pw);
	if (pp->who->list)
		addrs_add(&pp->cc, pp->who->list, s, pp->from.email);
	if (s->to == REPLY_TO_ALL) {
		add_raw_list(&pp->cc, hdr_raw(c->request, "To"), c->request, s, pp->from.email);
		add_raw_list(&pp->cc, hdr_raw(c->request, "Cc"), c->request, s, pp->from.email);
	}
	addrs_drop(&pp->cc, pp->to->email);
}

static int cc_gather(struct parts *pp, const struct reply_cc *c, const struct reply_settings *s,
		     struct err *e)
{
	const struct patch *rq = c->request;
	const char *subj;

	if (gather_start(pp, rq, &subj, s, e) < 0)
		return -1;
	if (!c->findings && !c->nexplain && !c->note)
		return err_set(e, ERR_FINAL, "message <%.200s>: nothing to reply about",
			       rq->message_id ? rq->message_id : "");
	pick_findings(pp, c->findings, NULL, s);
	pp->subject = utf8_clean_line(subj, strlen(subj), REPLY_SUBJECT_MAX);
	pp->parent_ok = rq->message_id && msgid_header_safe(rq->message_id);
	cc_recipients(pp, c, s);
	collect_refs(&pp->refs, rq, pp->parent_ok);
	collect_rules(&pp->rules, pp->items, pp->nused);
	return 0;
}

/* "the patch\n\n    SUBJECT\n\nby NAME <ADDR>." */
static void cc_body_patch(struct buf *b, const struct patch *p)
{
	const char *subj = p->msg ? message_header(p->msg, "Subject") : NULL;
	const struct person *author = p->author.email && address_header_safe(p->author.email) ?
				      &p->author : NULL;
	char *clean;

	if (!subj)
		subj = p->subject ? p->subject : "";
	clean = utf8_clean_line(subj, strlen(subj), REPLY_SUBJECT_MAX);
	buf_addstr(b, "tagbot checked the tags of the patch\n\n");
	wrap(b, clean, "    ");
	free(clean);
	if (author) {
		clean = utf8_clean_line(author->name ? author->name : "",
					 author->name ? strlen(author->name) : 0, REPLY_NAME_MAX);
		buf_printf(b, "\nby %s%s<%s>.", clean, *clean ? " " : "", author->email);
		free(clean);
	}
	buf_addch(b, '\n');
}

static void cc_body_check(struct buf *b, const struct reply_cc *c, const struct parts *pp)
{
	cc_body_patch(b, c->patch);
	if (!pp->nall) {
		buf_addstr(b, "\nNo tag problems found.\n\n");
		return;
	}
	buf_printf(b, "\nIt found %zu thing%s to look at:\n\n", pp->nall, pp->nall == 1 ? "" : "s");
	for (size_t i = 0; i < pp->nused; i++)
		body_item(b, i, &pp->items[i], NULL);
	if (pp->nall > pp->nused)
		buf_printf(b, "... and %zu more; \"tagbot check\" on the patch lists them all.\n\n",
			   pp->nall - pp->nused);
}

/* One labelled paragraph, indented so no line reads as a trailer. */
static void cc_para(struct buf *b, const char *label, const char *text)
{
	struct buf t;

	if (!text || !*text)
		return;
	buf_init(&t, 0);
	buf_printf(&t, "%s%s", label, text);
	wrap_raw(b, t.data, "   ");
	buf_release(&t);
}

static void cc_body_explain(struct buf *b, const struct reply_explain *x)
{
	char *id = utf8_clean_line(x->id ? x->id : "", x->id ? strlen(x->id) : 0, RULE_ID_MAX);

	if (!x->known) {
		buf_printf(b, "There is no rule %s here. \"tagbot check\" names the rule of each\n"
			   "finding; the rules are explained in tagbot-rules(7).\n\n", *id ? id : "(none)");
		free(id);
		return;
	}
	buf_printf(b, "%s (%s here):\n\n", id, x->severity ? x->severity : "?");
	free(id);
	cc_para(b, "", x->summary);
	cc_para(b, "It reports ", x->checks);
	cc_para(b, "Why it matters: ", x->why);
	cc_para(b, "How to fix: ", x->fix);
	see_line(b, x->id, x->doc);
	buf_addch(b, '\n');
}

static void cc_build_body(struct buf *b, const struct reply_cc *c, const struct parts *pp,
			  const struct reply_settings *s)
{
	char *name = utf8_clean_line(pp->to->name ? pp->to->name : "",
				      pp->to->name ? strlen(pp->to->name) : 0, REPLY_NAME_MAX);

	if (*name)
		buf_printf(b, "Hello %s,\n\n", name);
	else
		buf_addstr(b, "Hello,\n\n");
	free(name);
	if (c->findings && c->patch)
		cc_body_check(b, c, pp);
	for (size_t i = 0; i < c->nexplain && i < REPLY_MAX_EXPLAIN; i++)
		cc_body_explain(b, &c->explain[i]);
	if (c->note) {
		wrap_raw(b, c->note, "");
		buf_addch(b, '\n');
	}
	body_footer(b, s->footer);
}

int reply_build_cc(struct reply *r, const struct reply_cc *c, const struct reply_settings *s,
		   time_t now, struct err *e)
{
	struct parts pp;
	struct buf body;

	reply_init(r);
	memset(&pp, 0, sizeof(pp));
	if (!c || !c->request)
		return err_set(e, ERR_FINAL, "reply: no request to answer");
	if (cc_gather(&pp, c, s, e) < 0) {
		parts_release(&pp);
		return -1;
	}
	buf_init(&body, BODY_CAP);
	cc_build_body(&body, c, &pp, s);
	assemble(r, &pp, &body, s, now);
	parts_release(&pp);
	return 0;
}

/* --- series replies ---------------------------------------------------- */

/* All parts' findings in one list (shallow copies: the strings stay the
 * parts'), for the recipients, References and X-Tagbot-Rules; *partof the
 * part of each (malloc'ed). */
static void series_merge_findings(const struct reply_series *sr, struct findings *all,
				  size_t **partof)
{
	size_t alloc = 0;

	findings_init(all);
	*partof = NULL;
	for (size_t i = 0; i < sr->n; i++) {
		const struct findings *f = sr->parts[i].findings;

		for (size_t j = 0; f && j < f->n; j++) {
			ARRAY_GROW(all->v, all->alloc, all->n + 1);
			ARRAY_GROW(*partof, alloc, all->n + 1);
			(*partof)[all->n] = i;
			all->v[all->n++] = f->v[j];
		}
	}
}

static void series_part_title(struct buf *b, const struct reply_series_part *p, int total)
{
	char *subj = p->subject ? utf8_clean_line(p->subject, strlen(p->subject),
						   REPLY_SUBJECT_MAX) : NULL;

	/* The subject goes on indented lines: a word of it at the start of a
	 * line could read as a tag. */
	if (total == REPLY_HELD || total == REPLY_PARTS)
		buf_addstr(b, "Patch:\n");
	else if (p->index == 0)
		buf_printf(b, "Cover letter (0/%d):\n", total);
	else
		buf_printf(b, "Patch %d/%d:\n", p->index, total);
	if (subj && *subj)
		wrap(b, subj, "    ");
	free(subj);
}

/* How an item names part p where it occurs in more than one: "patch 2/5",
 * "the cover letter", or the patch's subject in quotes. */
static char *series_label(const struct reply_series_part *p, int total)
{
	struct buf b;
	char *subj;

	buf_init(&b, 0);
	if (total != REPLY_HELD && total != REPLY_PARTS) {
		if (p->index == 0)
			buf_addstr(&b, "the cover letter");
		else
			buf_printf(&b, "patch %d/%d", p->index, total);
		return buf_detach(&b, NULL);
	}
	subj = utf8_clean_line(p->subject ? p->subject : "", p->subject ? strlen(p->subject) : 0,
			       REPLY_SUBJECT_MAX);
	buf_printf(&b, "\"%s\"", subj);
	free(subj);
	return buf_detach(&b, NULL);
}

/*
 * The parts, each with the items first found in it (*k: the next item);
 * a part whose findings were all said at an earlier part, told before or
 * are below the reply's severity is left out, and one with no finding at
 * all is counted in *clean.
 */
static void series_body_parts(struct buf *b, const struct parts *pp,
			      const struct reply_series *sr, char *const *labels, size_t *clean)
{
	const struct reply_series_part *parts = sr->parts;
	size_t k = 0;

	for (size_t i = 0; i < sr->n; i++) {
		if (!parts[i].subject)
			continue;	/* series_missing() */
		if (!parts[i].findings->n) {
			(*clean)++;
			continue;
		}
		for (bool first = true; k < pp->nall && pp->items[k].at[0].part == i; k++) {
			if (first) {
				series_part_title(b, &parts[i], sr->total);
				buf_addch(b, '\n');
				first = false;
			}
			if (k < REPLY_MAX_FINDINGS)
				body_item(b, k, &pp->items[k], labels);
		}
	}
}

/* Whether part i did not reach the bot. */
static bool part_missing(const struct reply_series *sr, size_t i)
{
	return i < sr->n && !sr->parts[i].subject;
}

/* Whether part i came and all its findings were told before (the told
 * memory turned them off): it is not counted among those with nothing. */
static bool part_told(const struct reply_series *sr, size_t i)
{
	const struct findings *f = i < sr->n && sr->parts[i].subject ? sr->parts[i].findings : NULL;

	if (!f || !f->n)
		return false;
	for (size_t k = 0; k < f->n; k++)
		if (f->v[k].severity != SEV_OFF)
			return false;
	return true;
}

typedef bool part_pred(const struct reply_series *sr, size_t i);

/*
 * One sentence for the parts of a series that in() picks, however many:
 * "Patches 2/11 to 5/11 and 8/11" and then one (a single part) or many.
 */
static void parts_sentence(struct buf *b, const struct reply_series *sr, part_pred *in,
			   const char *one, const char *many)
{
	const struct reply_series_part *parts = sr->parts;
	struct buf s;
	size_t count = 0, runs = 0, done = 0, last = 0;

	/* runs: the names to list, a run of three or more being one */
	for (size_t i = 0, len = 0; i < sr->n; i++) {
		if (!in(sr, i))
			continue;
		count++;
		last = i;
		len = i && in(sr, i - 1) ? len + 1 : 1;
		runs += len <= 2 ? 1 : len == 3 ? (size_t)-1 : 0;	/* 3: the two become one */
	}
	if (!count)
		return;
	buf_init(&s, 0);
	buf_addstr(&s, count > 1 ? "Patches" : parts[last].index ? "Patch" : "The cover letter");
	for (size_t i = 0; i < sr->n; i++) {
		size_t j = i;

		if (!in(sr, i) || (i && in(sr, i - 1)))
			continue;
		while (in(sr, j + 1))
			j++;
		for (size_t k = i; k <= j; k = j > i + 1 ? j + 1 : k + 1) {
			done++;
			buf_addstr(&s, done == 1 ? " " : done == runs ? " and " : ", ");
			buf_printf(&s, "%d/%d", parts[k].index, sr->total);
			if (j > i + 1)
				buf_printf(&s, " to %d/%d", parts[j].index, sr->total);
		}
	}
	buf_addstr(&s, count == 1 ? one : many);
	wrap(b, s.data, "");
	buf_addch(b, '\n');
	buf_release(&s);
}

/*
 * The parts that did not reach the bot (neutral: a part may be on another
 * list, or applied already), and those left out because all they have was
 * told before: each a sentence, so "the other N parts" is not read as all.
 */
static void series_missing(struct buf *b, const struct reply_series *sr)
{
	parts_sentence(b, sr, part_missing, " was not on the list; not checked.",
		       " were not on the list; not checked.");
	if (sr->total > 0)
		parts_sentence(b, sr, part_told,
			       " has only what you were told before; not said again.",
			       " have only what you were told before; not said again.");
}

static void series_body(struct buf *b, const struct parts *pp, const struct reply_series *sr,
			const struct reply_settings *s)
{
	int total = sr->total;
	size_t clean = 0;
	char **labels = xcalloc(sr->n ? sr->n : 1, sizeof(*labels));

	for (size_t i = 0; i < sr->n; i++)
		labels[i] = series_label(&sr->parts[i], total);
	body_hello(b, pp->to);
	if (total == REPLY_HELD) {
		buf_addstr(b, "tagbot checked the tags of your patches below (its rate limit held\n"
			   "the replies back, so they come in this one)\n\n");
	} else if (total == REPLY_PARTS) {
		buf_addstr(b, "tagbot checked the tags of the patches of your mail\n\n");
		wrap(b, pp->subject, "    ");
		buf_addch(b, '\n');
	} else {
		buf_addstr(b, "tagbot checked the tags of your series\n\n");
		wrap(b, pp->subject, "    ");
		buf_addch(b, '\n');
	}
	buf_printf(b, "and found %zu thing%s to look at, patch by patch:\n\n", pp->nall,
		   pp->nall == 1 ? "" : "s");
	series_body_parts(b, pp, sr, labels, &clean);
	series_missing(b, sr);
	if (clean)
		buf_printf(b, "The other %zu %s had nothing to look at.\n\n", clean,
			   total > 0 ? (clean == 1 ? "part" : "parts")	/* a series */
				     : (clean == 1 ? "patch" : "patches"));
	if (pp->nall > REPLY_MAX_FINDINGS)
		buf_printf(b, "... and %zu more; \"tagbot check\" on the %s lists them all.\n\n",
			   pp->nall - REPLY_MAX_FINDINGS, total == REPLY_PARTS ? "mail" : "series");
	body_footer(b, s->footer);
	for (size_t i = 0; i < sr->n; i++)
		free(labels[i]);
	free(labels);
}

int reply_build_series(struct reply *r, const struct reply_series *sr,
		       const struct reply_settings *s, time_t now, struct err *e)
{
	struct findings all;
	size_t *partof;
	struct parts pp;
	struct buf body;
	int rc = -1;

	reply_init(r);
	memset(&pp, 0, sizeof(pp));
	series_merge_findings(sr, &all, &partof);
	pick_findings(&pp, &all, partof, s);
	if (gather(&pp, sr->lead, s, e) < 0)
		goto out;
	buf_init(&body, BODY_CAP);
	series_body(&body, &pp, sr, s);
	assemble(r, &pp, &body, s, now);
	rc = 0;
out:
	free(partof);
	free(all.v);	/* the findings themselves belong to the parts */
	parts_release(&pp);
	return rc;
}
