/*
 * signoff.c - sign-offs (tagbot-rules(7)): Signed-off-by, the other "-by:"
 * tags and whether the author signed the patch off.
 *
 * Also whether whoever sent the patch signed it off (SUBMITTER_SIGN_OFF),
 * and whether the From: that names the author is one git reads as meant
 * (BAD_FROM_ADDRESS).
 *
 * Tags come only from the commit message (p->trailers and p->lines): the
 * parser has already cut the text at the patch separator, so a
 * "+Signed-off-by:" in the diff can never reach us.
 */
#include "autoconf.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/address.h"
#include "mail/mailmap.h"
#include "mail/msgid.h"
#include "lib/buf.h"
#include "mail/message.h"
#include "rules/rules_p.h"
#include "lib/utf8.h"
#include "lib/ascii.h"

#define SUGGEST_DISTANCE 2	/* tagbot-rules(7): suggest within edit distance 2 */
#define QUOTE_MAX	80	/* bytes of mail text quoted back in a message */

/* "%s%s<%s>" arguments: "Name <addr>", or "<addr>" when there is no name. */
#define NAME_SP(n)	((n) && *(n) ? (n) : ""), ((n) && *(n) ? " " : "")

/* The documented tags: submitting-patches.rst, and Originally-by: from
 * maintainer-tip.rst. */
static const char *const standard_tags[] = {
	"Signed-off-by", "Co-developed-by", "Acked-by", "Tested-by",
	"Reviewed-by", "Reported-by", "Suggested-by", "Originally-by", "Assisted-by",
};

/* Tags used in mainline that happen to lie within the edit distance of a
 * documented one: never typos. */
static const char *const near_tags[] = {
	"Nacked-by", "NAKed-by", "Cced-by", "Ported-by",
};

/* Tags other projects use, too far from ours for the edit distance. */
static const struct {
	const char *seen, *use;
} foreign_tags[] = {
	{ "Co-authored-by", "Co-developed-by" },	/* GitHub */
};

/* What a tag's value should hold. */
enum tag_value {
	VALUE_NONE,	/* an unknown tag: its value is not checked */
	VALUE_PERSON,	/* Name <address> */
	VALUE_AGENT	/* Assisted-by: AGENT:MODEL [TOOL...] */
};

struct signoff {
	const struct line *line;	/* foreign */
	const char *value;		/* foreign; the tag's value as written */
	struct person who;		/* owned; empty unless parsed */
	bool parsed;
};

struct signoffs {
	struct signoff *v;	/* owned */
	size_t n, alloc;
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool ends_with_by(const char *tok)
{
	size_t n = strlen(tok);

	return n > 3 && !strcasecmp(tok + n - 3, "-by");
}

/* The standard spelling of tok, or NULL when it is not a standard tag. */
static const char *tag_standard(const char *tok)
{
	for (size_t i = 0; i < ARRAY_SIZE(standard_tags); i++)
		if (!strcasecmp(tok, standard_tags[i]))
			return standard_tags[i];
	return NULL;
}

/* The standard tag a non-standard tok was probably meant to be, or NULL. */
static const char *tag_suggest(const char *tok)
{
	const char *best = NULL;
	size_t best_d = SUGGEST_DISTANCE + 1;

	for (size_t i = 0; i < ARRAY_SIZE(near_tags); i++)
		if (!strcasecmp(tok, near_tags[i]))
			return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(standard_tags); i++) {
		size_t d = utf8_edit_distance(tok, standard_tags[i]);

		if (d < best_d) {
			best_d = d;
			best = standard_tags[i];
		}
	}
	return best;
}

static const char *find_and(const char *s, const char *end)
{
	for (; s + 5 <= end; s++)
		if (!strncasecmp(s, "-and-", 5))
			return s;
	return NULL;
}

/*
 * "Reported-and-tested-by" -> "Reported-by: and Tested-by:" in *out;
 * false when tok is not a combined tag.
 */
static bool tag_split(const char *tok, struct buf *out)
{
	const char *end = tok + strlen(tok) - 3;	/* before "-by" */
	const char *part = tok, *sep;
	bool first = true;

	if (!find_and(tok, end))
		return false;
	while (part < end) {
		sep = find_and(part, end);
		if (!sep)
			sep = end;
		if (!first)
			buf_addstr(out, sep == end ? " and " : ", ");
		buf_addch(out, first ? *part : (*part >= 'a' && *part <= 'z' ? *part - 'a' + 'A' : *part));
		buf_add(out, part + 1, (size_t)(sep - part - 1));
		buf_addstr(out, "-by:");
		first = false;
		part = sep == end ? end : sep + 5;
	}
	return true;
}

/* The tag another project uses for tok (Co-authored-by -> Co-developed-by), or NULL. */
static const char *tag_foreign(const char *tok)
{
	for (size_t i = 0; i < ARRAY_SIZE(foreign_tags); i++)
		if (!strcasecmp(tok, foreign_tags[i].seen))
			return foreign_tags[i].use;
	return NULL;
}

/*
 * Reports a non-standard or miswritten tag name; says what its value holds.
 * typo_told: MISSING_SIGN_OFF tells this misspelt sign-off already.
 * tagbot-rules(7) BAD_SIGN_OFF: a near miss of a documented tag is a typo (a
 * warning); a combined tag and any other unknown tag only a check, as
 * mainline uses many (Debugged-by:, Bisected-by:) and reviewers give some.
 */
static enum tag_value check_tag_name(struct rule_ctx *c, const struct trailer *t,
				     bool typo_told)
{
	const char *std = tag_standard(t->token);
	struct buf split;

	if (std) {
		if (strcmp(std, t->token))
			rule_emit(c, R_BAD_SIGN_OFF, &t->line,
				  "%s: should be written %s:, with this capitalisation.", t->token, std);
		return !strcmp(std, "Assisted-by") ? VALUE_AGENT : VALUE_PERSON;
	}
	buf_init(&split, 4096);
	if (tag_split(t->token, &split)) {
		/* Only the tip tree asks to split them (maintainer-tip.rst);
		 * reviewers give them in this form elsewhere: a check. */
		rule_emit_sev(c, R_BAD_SIGN_OFF, SEV_CHECK, &t->line,
			      "%s: combines several tags; the tip tree (maintainer-tip.rst) "
			      "asks for separate %s lines.", t->token, split.data);
		buf_release(&split);
		return VALUE_PERSON;
	}
	buf_release(&split);
	std = tag_suggest(t->token);
	if (std) {
		if (!typo_told)
			rule_emit(c, R_BAD_SIGN_OFF, &t->line,
				  "%s: is not a standard tag; did you mean %s:?", t->token, std);
		return !strcmp(std, "Assisted-by") ? VALUE_AGENT : VALUE_PERSON;
	}
	std = tag_foreign(t->token);
	if (std)
		rule_emit_sev(c, R_BAD_SIGN_OFF, SEV_CHECK, &t->line,
			      "%s: is not a kernel tag; the kernel's is %s:.", t->token, std);
	else
		rule_emit_sev(c, R_BAD_SIGN_OFF, SEV_CHECK, &t->line,
			      "%s: is not one of the documented tags (Signed-off-by:, "
			      "Co-developed-by:, Acked-by:, Tested-by:, Reviewed-by:, Reported-by:, "
			      "Suggested-by:, Originally-by:, Assisted-by:).", t->token);
	return std ? VALUE_PERSON : VALUE_NONE;
}

/* The raw line must read "Token: value": colon right after, one space. */
static void check_spacing(struct rule_ctx *c, const struct trailer *t)
{
	const struct line *l = &t->line;
	size_t tl = strlen(t->token), i = t->lead_ws + tl, spaces = 0;
	bool tab = false;

	if (i >= l->len || memcmp(l->p + t->lead_ws, t->token, tl))
		return;
	if (l->p[i] != ':') {
		rule_emit(c, R_BAD_SIGN_OFF, l,
			  "Please remove the white space before the colon of %s:.", t->token);
		return;
	}
	for (i++; i < l->len && ascii_is_blank(l->p[i]); i++, spaces++)
		tab |= l->p[i] == '\t';
	if (i < l->len && (spaces != 1 || tab))
		rule_emit(c, R_BAD_SIGN_OFF, l,
			  "Please put exactly one space after %s:.", t->token);
}

/* What may follow an address: nothing, "# comment" or "(comment)". */
static bool comment_ok(const char *s, const char *end)
{
	while (s < end && ascii_is_blank(*s))
		s++;
	while (end > s && ascii_is_blank(end[-1]))
		end--;
	if (s == end)
		return true;
	if (*s == '#')
		return true;
	return *s == '(' && end[-1] == ')' && end - s > 2;
}

/* At [s, end), after blanks, a '(' that is never closed. */
static bool open_paren(const char *s, const char *end)
{
	int depth = 0;

	while (s < end && ascii_is_blank(*s))
		s++;
	if (s == end || *s != '(')
		return false;
	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end)
			s++;
		else if (*s == '(')
			depth++;
		else if (*s == ')' && --depth == 0)
			return false;
	}
	return true;
}

/*
 * address_parse() of a person trailer's n bytes at v, but an address with
 * no name followed by a parenthesis never closed is none either: in
 * "a@b (Jane Doe" the name is in a comment left open, as in "\"Jane Doe
 * <a@b>" it is in a quote left open, which address_parse() refuses.
 */
static int parse_person(struct person *who, const char *v, size_t n, const char **rest)
{
	const char *r = NULL;

	if (address_parse(who, v, n, &r) < 0)
		return -1;
	if (!*who->name && r && open_paren(r, v + n)) {
		person_release(who);
		who->name = xstrdup("");
		who->email = xstrdup("");
		return -1;
	}
	if (rest)
		*rest = r;
	return 0;
}

static void check_person(struct rule_ctx *c, const struct trailer *t)
{
	size_t n = strlen(t->value);
	const char *rest = NULL;
	struct person who;

	if (parse_person(&who, t->value, n, &rest) < 0) {
		rule_emit_sev(c, R_BAD_SIGN_OFF, SEV_ERROR, &t->line,
			      "The address in %s: cannot be parsed; write it as "
			      "Full Name <user@example.org>.", t->token);
		person_release(&who);
		return;
	}
	if (rest && rest >= t->value && rest <= t->value + n &&
	    !comment_ok(rest, t->value + n)) {
		while (ascii_is_blank(*rest))
			rest++;
		rule_emit(c, R_BAD_SIGN_OFF, &t->line,
			  "Only a \"# comment\" or a \"(comment)\" may follow the address in %s:; "
			  "please remove or mark \"%.*s\".", t->token, QUOTE_MAX, rest);
	}
	person_release(&who);
}

#define CODING_ASSISTANTS "Documentation/process/coding-assistants.rst"

/*
 * What is wrong with an Assisted-by: value, which coding-assistants.rst
 * defines as AGENT:MODEL [TOOL...]; NULL when it has that form.
 */
static const char *agent_problem(const char *v)
{
	char *main = trailer_value_main(v);
	size_t word = strcspn(main, " \t");
	const char *colon = memchr(main, ':', word), *why = NULL;

	if (!*main)
		why = "is empty";
	else if (strpbrk(main, "<>@"))
		why = "names a person or an address, not the tool";
	else if (!colon)
		why = "has no :MODEL part after the agent's name";
	else if (colon == main)
		why = "has no AGENT name before the colon";
	else if (colon == main + word - 1)
		why = "has no MODEL after the colon";
	free(main);
	return why;
}

static void check_agent(struct rule_ctx *c, const struct trailer *t)
{
	const char *why = agent_problem(t->value);

	if (why)
		rule_emit_doc(c, R_BAD_SIGN_OFF, CODING_ASSISTANTS, &t->line,
			      "This %s: %s; write it as %s: AGENT:MODEL, then any tools used "
			      "(%s: Claude:claude-3-opus coccinelle).", t->token, why, t->token,
			      t->token);
}

static bool names_equal(const char *a, const char *b);
static bool name_within(const char *a, const char *b);

static bool same_person(const struct person *a, const struct person *b)
{
	return address_same(a->email, b->email) &&
	       (names_equal(a->name, b->name) || !utf8_name_cmp(a->name, b->name));
}

static const struct mailmap *mailmap_of(const struct rule_ctx *c)
{
	return c->settings ? c->settings->mailmap : NULL;
}

static const char *author_email(const struct patch *p)
{
	return p->author.email && p->author.email[0] ? p->author.email : NULL;
}

/* The parsed value of t is the same person as who. */
static bool names_person(const struct trailer *t, const struct person *who)
{
	struct person b = { NULL, NULL };
	bool same = address_parse(&b, t->value, strlen(t->value), NULL) == 0 &&
		    same_person(who, &b);

	person_release(&b);	/* address_parse() fills it even when it fails */
	return same;
}

/* who's Signed-off-by: further down the trailer block from trailer i, or NULL. */
static const struct trailer *later_signoff(const struct patch *p, size_t i,
					   const struct person *who)
{
	if (!p->trailers[i].in_block)
		return NULL;
	for (size_t k = i + 1; k < p->ntrailers && p->trailers[k].in_block; k++) {
		const struct trailer *x = &p->trailers[k];

		if (x->kind == TRAILER_TAG && trailer_is(x, "Signed-off-by") && names_person(x, who))
			return x;
	}
	return NULL;
}

static bool same_someone(const struct person *a, const struct person *b,
			 const struct mailmap *mm);

/* The Signed-off-by: t is who's written differently (same name or address). */
static bool next_is_same_someone(const struct rule_ctx *c, const struct trailer *t,
				 const struct person *who)
{
	struct person b = { NULL, NULL };
	bool same = address_parse(&b, t->value, strlen(t->value), NULL) == 0 &&
		    same_someone(who, &b, mailmap_of(c));

	person_release(&b);
	return same;
}

static void check_codeveloper(struct rule_ctx *c, size_t i)
{
	const struct patch *p = c->patch;
	const struct trailer *t = &p->trailers[i];
	const struct trailer *next = i + 1 < p->ntrailers ? &p->trailers[i + 1] : NULL;
	struct person a = { NULL, NULL };
	bool parsed = address_parse(&a, t->value, strlen(t->value), NULL) == 0;
	bool next_sob = next && next->kind == TRAILER_TAG && trailer_is(next, "Signed-off-by") &&
			patch_trailers_adjacent(p, t, next);
	bool paired = parsed && next_sob && names_person(next, &a);
	const struct trailer *later = parsed && !paired ? later_signoff(p, i, &a) : NULL;

	if (parsed && author_email(p) && address_same(a.email, author_email(p)))
		rule_emit(c, R_BAD_SIGN_OFF, &t->line,
			  "Co-developed-by: names the author, whom From: credits already; "
			  "remove this line.");
	if (later)	/* tagbot-rules(7): the pair is there, only split: a check */
		rule_emit_sev(c, R_BAD_SIGN_OFF, SEV_CHECK, &t->line,
			      "Move %s's Signed-off-by: (line %zu) up to directly after this "
			      "Co-developed-by:.", a.name[0] ? a.name : a.email, later->line.lineno);
	else if (parsed && !paired && !(next_sob && next_is_same_someone(c, next, &a)))
		rule_emit(c, R_BAD_SIGN_OFF, &t->line,
			  "%s co-developed this patch but has no Signed-off-by: here; add "
			  "\"Signed-off-by: %s\" right below this line.", a.name[0] ? a.name : a.email,
			  t->value);
	else if (!next_sob)
		rule_emit(c, R_BAD_SIGN_OFF, &t->line,
			  "Co-developed-by: must be immediately followed by a Signed-off-by: "
			  "of the same person.");
	else if (parsed && !paired)
		rule_emit(c, R_BAD_SIGN_OFF, &next->line,
			  "The Signed-off-by: after Co-developed-by: must name the same "
			  "person, with the same name and address.");
	person_release(&a);	/* address_parse() fills it even when it fails */
}

static void signoffs_add(struct signoffs *s, const struct line *l, const char *v, size_t n)
{
	struct signoff *x;

	ARRAY_GROW(s->v, s->alloc, s->n + 1);
	x = &s->v[s->n++];
	x->line = l;
	x->value = v;
	x->parsed = parse_person(&x->who, v, n, NULL) == 0;
}

static void signoffs_release(struct signoffs *s)
{
	for (size_t i = 0; i < s->n; i++)
		person_release(&s->v[i].who);
	free(s->v);
}

/* A "-by:" tag at the start of a line (indented ones are quotes or continuations). */
static bool is_by_tag(const struct trailer *t)
{
	return t->kind == TRAILER_TAG && t->has_colon && t->lead_ws == 0 &&
	       ends_with_by(t->token);
}

static void check_trailer(struct rule_ctx *c, size_t i, const struct trailer *typo_told)
{
	const struct trailer *t = &c->patch->trailers[i];
	enum tag_value v = check_tag_name(c, t, t == typo_told);

	check_spacing(c, t);
	if (v == VALUE_AGENT)
		check_agent(c, t);
	else if (v == VALUE_PERSON)
		check_person(c, t);
	if (trailer_is(t, "Co-developed-by"))
		check_codeveloper(c, i);
}

/* Length of "Token-by" when s holds "Token-by" [ws] ":", else 0. */
static size_t by_token_len(const char *s, size_t n)
{
	size_t i = 0, end;

	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	while (i < n && (s[i] == '-' || (s[i] >= '0' && s[i] <= '9') ||
			 (lower((unsigned char)s[i]) >= 'a' && lower((unsigned char)s[i]) <= 'z')))
		i++;
	end = i;
	while (i < n && ascii_is_blank(s[i]))
		i++;
	if (i == n || s[i] != ':' || end < 4 || strncasecmp(s + end - 3, "-by", 3))
		return 0;
	return end;
}

/* Index of the first line of the last paragraph of the commit message. */
static size_t last_paragraph(const struct patch *p)
{
	size_t end = p->nlines, i;

	while (end > 0 && p->lines[end - 1].len == 0)
		end--;
	for (i = end; i > 0 && p->lines[i - 1].len > 0; i--)
		;
	return i;
}

/*
 * An indented tag in the closing paragraph is read by git as part of the
 * trailer above it; the trailer parser has folded it away, so look at the
 * lines.  It still counts as a sign-off: the intent is plain.
 */
static void check_indented(struct rule_ctx *c, struct signoffs *s)
{
	const struct patch *p = c->patch;

	for (size_t i = last_paragraph(p); i < p->nlines; i++) {
		const struct line *l = &p->lines[i];
		size_t ws = 0, tl;

		while (ws < l->len && ascii_is_blank(l->p[ws]))
			ws++;
		if (!ws || !(tl = by_token_len(l->p + ws, l->len - ws)))
			continue;
		rule_emit(c, R_BAD_SIGN_OFF, l,
			  "Please remove the white space before %.*s:; git reads an indented "
			  "line as part of the trailer above it.", (int)tl, l->p + ws);
		if (tl == 13 && !strncasecmp(l->p + ws, "Signed-off-by", 13)) {
			const char *v = (const char *)memchr(l->p + ws, ':', l->len - ws) + 1;

			signoffs_add(s, l, v, (size_t)(l->p + l->len - v));
		}
	}
}

struct dup_key {
	char *key;	/* owned */
	size_t idx;
};

/* Lower-cased "token:value" with white space removed (as checkpatch compares). */
static char *trailer_key(const struct trailer *t)
{
	struct buf b;

	buf_init(&b, 0);
	for (const char *s = t->token; *s; s++)
		buf_addch(&b, lower((unsigned char)*s));
	buf_addch(&b, ':');
	for (const char *s = t->value; *s; s++)
		if (!ascii_is_blank(*s))
			buf_addch(&b, lower((unsigned char)*s));
	return buf_detach(&b, NULL);
}

static int dup_cmp(const void *x, const void *y)
{
	const struct dup_key *a = x, *b = y;
	int r = strcmp(a->key, b->key);

	return r ? r : (a->idx > b->idx) - (a->idx < b->idx);
}

static void check_duplicates(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	struct dup_key *keys = xcalloc(p->ntrailers ? p->ntrailers : 1, sizeof(*keys));
	size_t n = 0;

	for (size_t i = 0; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i];

		/* Prose may repeat "Before:" and "After:"; the block may not. */
		if (t->kind == TRAILER_TAG && t->has_colon && (t->in_block || is_by_tag(t)))
			keys[n++] = (struct dup_key){ trailer_key(t), i };
	}
	qsort(keys, n, sizeof(*keys), dup_cmp);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (strcmp(keys[i].key, keys[first].key)) {
			first = i;
			continue;
		}
		rule_emit(c, R_BAD_SIGN_OFF, &p->trailers[keys[i].idx].line,
			  "This %s: line repeats line %zu; please remove the duplicate.",
			  p->trailers[keys[i].idx].token, p->trailers[keys[first].idx].line.lineno);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i].key);
	free(keys);
}

static bool name_matches(const struct person *sob, const struct person *author)
{
	return !author->name || !author->name[0] || names_equal(sob->name, author->name);
}

/* Where the author was read: the in-body From: wins over the header's. */
static const char *author_source(const struct patch *p)
{
	return p->author_from_body ? "the in-body From:" : "From:";
}

/* The reply's "you" (the patch's submitter) is the author: the same person,
 * or the one who signed x, the author's sign-off, from the sending address. */
static bool sent_by_author(const struct rule_ctx *c, const struct signoff *x)
{
	const struct patch *p = c->patch;
	struct person sub = { NULL, NULL };
	bool same = patch_submitter(p, &sub) == 0 &&
		    (same_someone(&sub, &p->author, mailmap_of(c)) ||
		     address_same(sub.email, x->who.email));

	person_release(&sub);
	return same;
}

/*
 * NO_AUTHOR_SIGN_OFF when From: names the author, so the sender: they are
 * told to sign, not that "the author" must, which reads as an invitation
 * to claim someone else's patch.  first: the first sign-off, whose signer
 * is likely the author when the patch is another's.
 */
static void report_no_author(struct rule_ctx *c, const struct signoff *first)
{
	const struct person *au = &c->patch->author;

	if (first && first->who.email[0])
		rule_emit(c, R_NO_AUTHOR_SIGN_OFF, NULL,
			  "No Signed-off-by: is yours (From: %s%s<%s>), and git am records "
			  "From: as the author. If you wrote the patch, add your Signed-off-by:. "
			  "If it is someone else's (the first sign-off is %s%s<%s>), put an "
			  "in-body \"From: %s%s<%s>\" line at the top of the message, so git am "
			  "records its author, and add your own Signed-off-by: as the last one.",
			  NAME_SP(au->name), au->email, NAME_SP(first->who.name),
			  first->who.email, NAME_SP(first->who.name), first->who.email);
	else
		rule_emit(c, R_NO_AUTHOR_SIGN_OFF, NULL,
			  "No Signed-off-by: is yours (From: %s%s<%s>), and git am records "
			  "From: as the author. If you wrote the patch, add your Signed-off-by:. "
			  "If it is someone else's, put an in-body From: line with its author at "
			  "the top of the message and add your own Signed-off-by: as the last one.",
			  NAME_SP(au->name), au->email);
}

static void report_author(struct rule_ctx *c, const struct signoff *by_addr,
			  const struct signoff *by_name, const struct signoff *first)
{
	const struct patch *p = c->patch;
	const struct person *au = &p->author;
	const char *src = author_source(p);

	if (by_addr && !by_addr->who.name[0])
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, by_addr->line,
			  "Signed-off-by: <%s> has no name, but %s says \"%s\"; sign off as "
			  "\"%s <%s>\".", by_addr->who.email, src, au->name, au->name,
			  by_addr->who.email);
	else if (by_addr && !p->author_from_body && name_within(by_addr->who.name, au->name))
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, by_addr->line,
			  "From: says \"%s\", more than the \"%s\" you sign with, as a mail "
			  "system adds; keep the sign-off and put an in-body \"From: %s <%s>\" line "
			  "at the top of the message, so git am records that name.", au->name,
			  by_addr->who.name, by_addr->who.name, by_addr->who.email);
	else if (by_addr)
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, by_addr->line,
			  "Signed-off-by: says \"%s\" but %s says \"%s\"; use the same name "
			  "in both.", by_addr->who.name, src, au->name);
	else if (by_name && p->author_from_body)
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, by_name->line,
			  "Signed-off-by: has <%s> but the in-body From: has <%s>; make the "
			  "in-body From: and %s Signed-off-by: the same address.",
			  by_name->who.email, au->email,
			  sent_by_author(c, by_name) ? "your" : "the author's");
	else if (by_name)
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, by_name->line,
			  "Signed-off-by: has <%s> but From: has <%s>, which git am records "
			  "as the author; make them one: sign off with <%s>, or, for the patch "
			  "to be recorded under <%s>, put an in-body From: line with it at the "
			  "top of the message.", by_name->who.email, au->email, au->email,
			  by_name->who.email);
	else if (p->author_from_body)
		rule_emit(c, R_NO_AUTHOR_SIGN_OFF, NULL,
			  "No Signed-off-by: is from the author (in-body From: %s%s<%s>); the "
			  "author must add one.", NAME_SP(au->name), au->email);
	else
		report_no_author(c, first);
}

/*
 * Where a missing sign-off belongs: the last line of the commit message
 * that is not blank, the text left out (the line is not what is wrong), so
 * an editor jumps to where "git commit -s" would add one.  NULL for an
 * empty commit message: then the mail as a whole.
 */
static const struct line *end_of_message(const struct patch *p, struct line *out)
{
	for (size_t i = p->nlines; i-- > 0;) {
		const struct line *l = &p->lines[i];
		size_t k = 0;

		while (k < l->len && (ascii_is_blank(l->p[k]) || l->p[k] == '\r'))
			k++;
		if (k < l->len) {
			*out = (struct line){ l->p, 0, l->lineno };
			return out;
		}
	}
	return NULL;
}

/* The first line of text after the "---" separator that starts with
 * "Signed-off-by:" (above the diff), in *out; NULL when none. */
static const struct line *signoff_below(const struct patch *p, struct line *out)
{
	const char *s = p->after, *end = p->after ? p->after + p->after_len : NULL;
	size_t lineno = p->sep_lineno + 1;

	if (!s || p->sep != SEP_DASHES)
		return NULL;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (n >= 14 && !strncasecmp(s, "Signed-off-by:", 14)) {
			*out = (struct line){ s, n, lineno };
			return out;
		}
		if (n >= 10 && !strncmp(s, "diff --git", 10))
			break;
		lineno++;
		s += n + (nl != NULL);
	}
	return NULL;
}

/* A misspelled Signed-off-by: tag in the trailers ("Signed-of-by:"), or NULL. */
static const struct trailer *misspelled_signoff(const struct patch *p)
{
	for (size_t i = 0; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i];
		const char *std = is_by_tag(t) && !tag_standard(t->token) ? tag_suggest(t->token)
									  : NULL;

		if (std && !strcmp(std, "Signed-off-by"))
			return t;
	}
	return NULL;
}

/* MISSING_SIGN_OFF, saying why when a sign-off is there but does not count. */
static void report_missing(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	const struct trailer *typo = misspelled_signoff(p);
	struct line end, under;
	const struct line *below = typo ? NULL : signoff_below(p, &under);
	const struct line *at = end_of_message(p, &end);

	if (typo)	/* told here only: no BAD_SIGN_OFF for the line too */
		rule_emit(c, R_MISSING_SIGN_OFF, &typo->line,
			  "The commit message has no Signed-off-by:; this %s: is misspelled "
			  "and does not count: write it Signed-off-by:.", typo->token);
	else if (below)	/* at the sign-off, so a series' parts say the same */
		rule_emit(c, R_MISSING_SIGN_OFF, below,
			  "The commit message has no Signed-off-by: above the --- line; this one "
			  "is below it, where git am drops it: move it up.");
	else
		rule_emit(c, R_MISSING_SIGN_OFF, at,
			  "The commit message has no Signed-off-by:; add one with your real "
			  "name and address (git commit -s) to certify the Developer's "
			  "Certificate of Origin.");
}

/*
 * A mail provider rewrote From: (the author, as git am will record it) to
 * the account it authenticated, and the sign-off x matches what the sender
 * wrote (patch_provider_original()): the fix is an in-body From:, never a
 * sign-off changed to the rewritten From:.  True when told.
 */
static bool report_rewritten_from(struct rule_ctx *c, const struct signoffs *s)
{
	const struct patch *p = c->patch;
	struct person orig;
	bool told = false;

	if (p->author_from_body)
		return false;
	if (patch_provider_original(p, &orig) < 0) {
		person_release(&orig);	/* "" even when there is none */
		return false;
	}
	for (size_t i = 0; i < s->n && !told; i++) {
		const struct signoff *x = &s->v[i];

		if (!x->parsed || !address_same(x->who.email, orig.email) ||
		    !name_matches(&x->who, &orig))
			continue;
		rule_emit(c, R_FROM_SIGN_OFF_MISMATCH, x->line,
			  "Your mail provider rewrote From: to <%s> (X-Google-Original-From: "
			  "keeps <%s>), and git am records From: as the author; keep this "
			  "sign-off and put an in-body \"From: %s%s<%s>\" line at the top of "
			  "the message.", p->author.email, orig.email, NAME_SP(x->who.name),
			  x->who.email);
		told = true;
	}
	person_release(&orig);
	return told;
}

/*
 * A From: that is not one well-formed mailbox: git am still records an
 * author, read as git mailinfo reads it (patch.bad_from), and the checks
 * below hold the sign-offs against that one.  Say what it will be, so the
 * sender sees what to fix rather than wonder at a guessed name.
 */
static void check_from(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	const struct person *au = &p->author;
	const char *src = p->author_from_body ? "The in-body From:" : "The From: header";
	char *from;

	if (!p->bad_from)
		return;
	from = utf8_clean_line(p->bad_from, strlen(p->bad_from), QUOTE_MAX);
	if (!*au->name && !*au->email)
		rule_emit(c, R_BAD_FROM_ADDRESS, NULL,
			  "%s is not one well-formed address (From: %s), and git am finds no "
			  "author in it and stops; write it as \"Full Name <user@example.org>\".",
			  src, from);
	else
		rule_emit(c, R_BAD_FROM_ADDRESS, NULL,
			  "%s is not one well-formed address (From: %s), so git am records the "
			  "author as %s%s<%s>; write it as \"Full Name <user@example.org>\", "
			  "every quote and parenthesis closed.", src, from, NAME_SP(au->name),
			  au->email);
	free(from);
}

/*
 * A sign-off with the author's address and name settles it.  Otherwise one
 * with the address but another name, then one with the name but another
 * address, is the author's sign-off written differently (a mismatch, not a
 * missing sign-off, as checkpatch has it).  Under a From: git misreads
 * (patch.bad_from) such a sign-off, or one whose address that From: holds,
 * is the author's, and the From: is what to fix: BAD_FROM_ADDRESS says so,
 * and a mismatch against git's guess would ask for the wrong change.
 */
static void check_author(struct rule_ctx *c, const struct signoffs *s)
{
	const struct person *au = &c->patch->author;
	const char *bad_from = c->patch->bad_from;
	const struct signoff *by_addr = NULL, *by_name = NULL, *first = NULL;

	if (!s->n) {
		report_missing(c);
		return;
	}
	if (!author_email(c->patch))
		return;
	for (size_t i = 0; i < s->n; i++) {
		const struct signoff *x = &s->v[i];

		if (!x->parsed && strcasestr(x->value, au->email))
			return;	/* the author's, miswritten: BAD_SIGN_OFF says how */
		if (!x->parsed)
			continue;
		if (bad_from && strcasestr(bad_from, x->who.email))
			return;
		if (!first || x->line->lineno < first->line->lineno)
			first = x;
		if (address_same(x->who.email, au->email)) {
			if (name_matches(&x->who, au))
				return;
			if (!by_addr)
				by_addr = x;
		} else if (!by_name && au->name && au->name[0] && x->who.name[0] &&
			   names_equal(x->who.name, au->name)) {
			by_name = x;
		}
	}
	if (bad_from && (by_addr || by_name))
		return;
	if (!report_rewritten_from(c, s))
		report_author(c, by_addr, by_name, first);
}

/*
 * An unnamed address whose local part spells a name: "<xiaopeitux@...>" and
 * "Pei Xiao": every word of named's name (two at least, each two letters or
 * more) is in unnamed's local part, case-insensitively.
 */
static bool name_in_address(const struct person *unnamed, const struct person *named)
{
	size_t local, words = 0;
	char *part;
	bool all = true;

	if ((unnamed->name && *unnamed->name) || !unnamed->email || !named->name)
		return false;
	local = strcspn(unnamed->email, "@");
	part = xstrndup(unnamed->email, local);
	for (const char *w = named->name; *w && all;) {
		size_t n = strcspn(w, " \t-.");
		char word[64];

		if (n >= 2 && n < sizeof(word)) {
			memcpy(word, w, n);
			word[n] = '\0';
			all = strcasestr(part, word) != NULL;
			words++;
		} else if (n) {
			all = false;	/* an initial, or a word too long to be a name */
		}
		w += n;
		w += *w != '\0';
	}
	free(part);
	return all && words >= 2;
}

/* qsort() comparison of two C strings. */
static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The words of a name key, sorted, one space between; malloc'ed. */
static char *sorted_words(const char *key)
{
	char *copy = xstrdup(key), *save = NULL, **w = NULL;
	size_t n = 0, alloc = 0;
	struct buf b;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		ARRAY_GROW(w, alloc, n + 1);
		w[n++] = t;
	}
	if (n)
		qsort(w, n, sizeof(*w), str_cmp);
	buf_init(&b, 0);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", w[i]);
	free(w);
	free(copy);
	return buf_detach(&b, NULL);
}

/*
 * tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP: one name written two ways.  The same words
 * (utf8_name_key(): decoded, NFC, no case, no quotes, commas as spaces) in
 * any order, with comments left out ("Jane Doe (Nokia)" / "Jane Doe",
 * "Doe, Jane" / "Jane Doe") or read as words ("Jane (JD) Doe" / "Jane Doe
 * (JD)" / Jane "JD" Doe).  Two empty names are not equal.
 */
static bool names_equal(const char *a, const char *b)
{
	bool same = false;

	/* One string twice (a sign-off under its own From:, the usual case):
	 * equal when it has a word, which its key with the comments read as
	 * words has if any of its keys has one.  An ASCII letter or digit is
	 * one (no key drops it): then the key need not be made. */
	if (a && b && !strcmp(a, b)) {
		char *k;

		for (const char *s = a; *s; s++)
			if (ascii_is_alnum((unsigned char)*s))
				return true;
		k = utf8_name_key(a, true);

		same = *k;
		free(k);
		return same;
	}
	for (int comments = 0; comments < 2 && !same && a && b; comments++) {
		char *ka = utf8_name_key(a, comments), *kb = utf8_name_key(b, comments);
		char *wa = sorted_words(ka), *wb = sorted_words(kb);

		same = *wa && !strcmp(wa, wb);
		free(wa);
		free(wb);
		free(ka);
		free(kb);
	}
	return same;
}

/* Word w stands in padded, a list of words each with a space either side. */
static bool word_in(const char *padded, const char *w)
{
	struct buf needle;
	bool found;

	buf_init(&needle, 0);
	buf_printf(&needle, " %s ", w);
	found = strstr(padded, needle.data) != NULL;
	buf_release(&needle);
	return found;
}

/* Every word of name a is a word of name b ("Prabhakar" / "Lad
 * Prabhakar"), comments left out, and one of them has two letters or more. */
static bool name_within(const char *a, const char *b)
{
	char *ka = utf8_name_key(a, false), *kb = utf8_name_key(b, false), *save = NULL;
	struct buf padded;
	bool all = true, long_word = false;

	buf_init(&padded, 0);
	buf_printf(&padded, " %s ", kb);
	for (char *w = strtok_r(ka, " ", &save); w && all; w = strtok_r(NULL, " ", &save)) {
		all = word_in(padded.data, w);
		long_word |= strlen(w) >= 2;
	}
	all = all && long_word;
	buf_release(&padded);
	free(ka);
	free(kb);
	return all;
}

/* Appends " word" for each run of ASCII letters of s (up to stop),
 * lower-cased, runs of two letters or more; returns how many. */
static size_t letter_runs(struct buf *out, const char *s, const char *stop)
{
	size_t n = 0;

	while (*s && s != stop) {
		size_t k = 0;

		while (s + k != stop && ascii_is_alpha(s[k]))
			k++;
		if (k >= 2) {
			buf_addch(out, ' ');
			for (size_t i = 0; i < k; i++)
				buf_addch(out, lower((unsigned char)s[i]));
			n++;
		}
		s += k ? k : 1;
	}
	buf_addch(out, ' ');
	return n;
}

/*
 * The local parts of both addresses hold every word of one of the two
 * names: "Claudiu Beznea" <claudiu.beznea@...> and <claudiu.beznea.uj@...>.
 * Words are runs of ASCII letters, two or more.
 */
static bool local_parts_share_name(const struct person *a, const struct person *b)
{
	const struct person *who[2] = { a, b };
	struct buf la, lb, nw;
	bool shared = false;

	buf_init(&la, 0);
	buf_init(&lb, 0);
	letter_runs(&la, a->email, strchr(a->email, '@'));
	letter_runs(&lb, b->email, strchr(b->email, '@'));
	for (int i = 0; i < 2 && !shared; i++) {
		char *key = utf8_name_key(who[i]->name ? who[i]->name : "", false), *save = NULL;

		buf_init(&nw, 0);
		if (letter_runs(&nw, key, NULL) > 0) {
			shared = true;
			for (char *w = strtok_r(nw.data, " ", &save); w && shared;
			     w = strtok_r(NULL, " ", &save))
				shared = word_in(la.data, w) && word_in(lb.data, w);
		}
		buf_release(&nw);
		free(key);
	}
	buf_release(&la);
	buf_release(&lb);
	return shared;
}

/*
 * One person, two addresses (tagbot-rules(7) SUBMITTER_SIGN_OFF): the same
 * address; a mailmap that joins them; when both have a name, the same name
 * (names_equal()), one name's words all in the other's, or local parts
 * that share a name; an unnamed address that spells the other's name
 * (name_in_address()).
 */
static bool same_someone(const struct person *a, const struct person *b,
			 const struct mailmap *mm)
{
	if (a->email && b->email && *a->email && address_same(a->email, b->email))
		return true;
	if (mailmap_same(mm, a->name, a->email, b->name, b->email))
		return true;
	if (a->name && b->name && *a->name && *b->name)
		return names_equal(a->name, b->name) || name_within(a->name, b->name) ||
		       name_within(b->name, a->name) || local_parts_share_name(a, b);
	return name_in_address(a, b) || name_in_address(b, a);
}

/* n digits or more at *s; moves past them. */
static bool skip_digits(const char **s, size_t n)
{
	const char *start = *s;

	while (**s >= '0' && **s <= '9')
		(*s)++;
	return (size_t)(*s - start) >= n;
}

/*
 * The address git send-email minted the Message-ID for, malloc'ed, or NULL
 * when the ID has another form.  git-send-email.perl's make_message_id()
 * writes <STAMP.PID-SERIAL-ADDRESS>, STAMP the time as %Y%m%d%H%M%S and
 * ADDRESS the sender identity it was configured with, whatever From: a
 * mail provider later rewrote: <20250604041418.1188792-1-jane@example.org>.
 */
static char *msgid_minted_for(const struct patch *p)
{
	const char *v = p->msg ? message_header(p->msg, "Message-ID") : NULL;
	char *id = v ? msgid_strip(v) : NULL, *addr = NULL;
	const char *s = id;

	if (s && skip_digits(&s, 14) && *s++ == '.' && skip_digits(&s, 1) && *s++ == '-' &&
	    skip_digits(&s, 1) && *s++ == '-' && address_valid(s))
		addr = xstrdup(s);
	free(id);
	return addr;
}

static bool is_word(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !strncasecmp(s, w, n);
}

/* The name holds the word "bot" or "robot" ("kernel test robot"). */
static bool bot_name(const char *name)
{
	for (const char *s = name; s && *s;) {
		size_t n = strcspn(s, " \t-_.,()\"'");

		if (is_word(s, n, "bot") || is_word(s, n, "robot"))
			return true;
		s += n;
		s += *s != '\0';
	}
	return false;
}

/*
 * Mail a program sent: Auto-Submitted: other than "no" (RFC 3834), a name
 * with the word bot or robot, or an address whose local part (before any
 * +tag) ends in "bot" (syzbot+..., patchwork-bot@, sashiko-bot@).
 */
static bool from_bot(const struct patch *p, const struct person *sub)
{
	const char *as = p->msg ? message_header(p->msg, "Auto-Submitted") : NULL;
	size_t local = strcspn(sub->email, "+@");

	if (as && strncasecmp(as, "no", 2))
		return true;
	if (bot_name(sub->name))
		return true;
	return local >= 3 && !strncasecmp(sub->email + local - 3, "bot", 3);
}

/* The sender of the mail, as SUBMITTER_SIGN_OFF knows them. */
struct sender {
	struct person who;	/* owned; patch_submitter() */
	char *minted;		/* owned; msgid_minted_for(), or NULL */
	const struct mailmap *mm;	/* foreign */
};

/* p is the sender: the same someone, or the address git send-email was
 * configured with (the Message-ID's). */
static bool is_sender(const struct sender *s, const struct person *p)
{
	return same_someone(p, &s->who, s->mm) ||
	       (s->minted && p->email && address_same(p->email, s->minted));
}

/*
 * Whether the sender is another person than the author, on evidence
 * (tagbot-rules(7): when in doubt, silence): both have a name, and none of the
 * ways one person writes from two addresses joins them.  An unnamed sender
 * (<1234567@mail.example>) tells nothing of who they are.
 */
static bool sender_is_other(const struct patch *p, const struct sender *s)
{
	const struct person *au = &p->author;

	if (!s->who.name || !*s->who.name || !au->name || !*au->name)
		return false;
	return !is_sender(s, au) && !from_bot(p, &s->who);
}

/* The sender's Co-developed-by: right above their sign-off x (the pair
 * submitting-patches.rst puts last for a co-developer who submits), or NULL. */
static const struct trailer *own_codeveloper(const struct patch *p, const struct sender *snd,
					     const struct signoff *x)
{
	for (size_t i = 1; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i], *cd = &p->trailers[i - 1];
		struct person who = { NULL, NULL };
		bool mine;

		if (&t->line != x->line)
			continue;
		if (cd->kind != TRAILER_TAG || !trailer_is(cd, "Co-developed-by") ||
		    !patch_trailers_adjacent(p, cd, t))
			return NULL;
		mine = address_parse(&who, cd->value, strlen(cd->value), NULL) == 0 &&
		       is_sender(snd, &who);
		person_release(&who);
		return mine ? cd : NULL;
	}
	return NULL;
}

/* A sign-off below the sender's x is the author's: the chain is out of
 * order.  Only a third person's below it tells nothing of the sender
 * (someone who signed after them, or a stray line): silence. */
static bool author_signs_after(const struct rule_ctx *c, const struct signoffs *s,
			       const struct signoff *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].parsed && s->v[i].line->lineno > x->line->lineno &&
		    same_someone(&s->v[i].who, &c->patch->author, mailmap_of(c)))
			return true;
	return false;
}

/* Who signed s off, for a message: the name, else the address, else the
 * value as written. */
static const char *signer_name(const struct signoff *s)
{
	if (s->parsed && s->who.name[0])
		return s->who.name;
	return s->parsed ? s->who.email : s->value;
}

/* The sender's sign-off mine is not the last one: move it (with its
 * Co-developed-by:, when it has one) below last. */
static void report_order(struct rule_ctx *c, const struct sender *snd,
			 const struct signoff *mine, const struct signoff *last)
{
	const struct trailer *cd = own_codeveloper(c->patch, snd, mine);

	if (cd)
		rule_emit(c, R_SUBMITTER_SIGN_OFF, &cd->line,
			  "You (%s%s<%s>) sent this patch, so this Co-developed-by: and your "
			  "Signed-off-by: after it go last, together, below %s's sign-off.",
			  NAME_SP(snd->who.name), snd->who.email, signer_name(last));
	else
		rule_emit(c, R_SUBMITTER_SIGN_OFF, mine->line,
			  "You (%s%s<%s>) sent this patch, so this Signed-off-by: goes last, "
			  "below %s's.", NAME_SP(snd->who.name), snd->who.email, signer_name(last));
}

#define RCPT_NAMES_MAX	64	/* To: and Cc: mailboxes read for a sender's name */

/*
 * A sender written without a name (a bare address in From:) often lists
 * themselves, named, in the mail's own To: or Cc: ("SeonGu Kang
 * <ksk@example.com>"): that name, when exactly one is given for the
 * sender's address, is taken as theirs, so the same-person tests can run.
 * It only names the person the reply goes to anyway; no recipient follows.
 */
static void name_from_recipients(const struct patch *p, struct person *who)
{
	static const char *const hdrs[] = { "To", "Cc" };
	const char *found = NULL;
	bool two = false;
	struct address_list l[ARRAY_SIZE(hdrs)];

	if (!p->msg || (who->name && *who->name) || !who->email || !*who->email)
		return;
	for (size_t h = 0; h < ARRAY_SIZE(hdrs); h++) {
		const char *v = message_header(p->msg, hdrs[h]);

		address_list_parse(&l[h], v ? v : "", v ? strlen(v) : 0, RCPT_NAMES_MAX);
		for (size_t i = 0; i < l[h].n && !two; i++) {
			const struct person *x = &l[h].v[i];

			if (!*x->name || !address_same(x->email, who->email))
				continue;
			two = found && strcmp(found, x->name);
			found = x->name;
		}
	}
	if (found && !two) {
		free(who->name);
		who->name = xstrdup(found);
	}
	for (size_t h = 0; h < ARRAY_SIZE(hdrs); h++)
		address_list_release(&l[h]);
}

/*
 * tagbot-rules(7) SUBMITTER_SIGN_OFF: whoever sends someone else's patch signs it
 * off too, last (the sign-off chain of "Sign your work").  The submitter's
 * sign-off is the last one matching them; when the author's comes below
 * it, the order is wrong.
 */
static void check_submitter(struct rule_ctx *c, const struct signoffs *s)
{
	const struct patch *p = c->patch;
	const struct signoff *mine = NULL, *last = NULL;
	struct sender snd = { { NULL, NULL }, NULL, mailmap_of(c) };

	if (!s->n || !rule_enabled(c, R_SUBMITTER_SIGN_OFF) || !author_email(p) ||
	    patch_submitter(p, &snd.who) < 0)
		goto out;
	name_from_recipients(p, &snd.who);
	snd.minted = msgid_minted_for(p);
	if (!sender_is_other(p, &snd))
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		const struct signoff *x = &s->v[i];

		if (!last || x->line->lineno > last->line->lineno)
			last = x;
		if (x->parsed && is_sender(&snd, &x->who) &&
		    (!mine || x->line->lineno > mine->line->lineno))
			mine = x;
	}
	if (!mine)
		rule_emit(c, R_SUBMITTER_SIGN_OFF, NULL,
			  "You (%s%s<%s>) sent this patch by %s%s<%s> without a Signed-off-by: "
			  "of your own; add yours as the last one.", NAME_SP(snd.who.name),
			  snd.who.email, NAME_SP(p->author.name), p->author.email);
	else if (mine != last && author_signs_after(c, s, mine))
		report_order(c, &snd, mine, last);
out:
	free(snd.minted);
	person_release(&snd.who);
}

void rules_signoff(struct rule_ctx *ctx)
{
	const struct patch *p = ctx->patch;
	struct signoffs s = { NULL, 0, 0 };
	const struct trailer *typo_told = NULL;

	if (p->kind != KIND_PATCH)
		return;
	for (size_t i = 0; i < p->ntrailers; i++) {
		const struct trailer *t = &p->trailers[i];

		if (is_by_tag(t) && trailer_is(t, "Signed-off-by"))
			signoffs_add(&s, &t->line, t->value, strlen(t->value));
	}
	check_indented(ctx, &s);
	/* One problem, one item: a misspelt sign-off that is the only one is
	 * MISSING_SIGN_OFF's to tell (report_missing()). */
	if (!s.n && rule_enabled(ctx, R_MISSING_SIGN_OFF))
		typo_told = misspelled_signoff(p);
	for (size_t i = 0; i < p->ntrailers; i++)
		if (is_by_tag(&p->trailers[i]))
			check_trailer(ctx, i, typo_told);
	check_duplicates(ctx);
	check_from(ctx);
	check_author(ctx, &s);
	check_submitter(ctx, &s);
	signoffs_release(&s);
}
