/*
 * reports.c - reports and fixes (tagbot-rules(7)): Reported-by and the link
 * to its report, Fixes:, Cc: stable, and how commits are cited in the message.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "mail/commitref.h"
#include "rules/rules_p.h"
#include "lib/ascii.h"

#define SHA_MIN		COMMITREF_SHA_MIN
#define SHA_MAX		COMMITREF_SHA_MAX

/* Text in a commit message that says a crash or a report is being fixed. */
static const struct {
	const char *text;
	bool nocase;
} crash_markers[] = {
	{ "BUG: KASAN:", false },
	{ "BUG: KCSAN:", false },
	{ "BUG: KMSAN:", false },
	{ "UBSAN:", false },
	{ "Call Trace:", false },
	{ "syzbot", true },
	{ "syzkaller", true },
};

static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && ascii_is_blank(*s))
		s++;
	return s;
}

static bool same_text(const char *s, const char *lit, size_t k, bool nocase)
{
	if (!nocase)
		return !memcmp(s, lit, k);
	for (size_t i = 0; i < k; i++)
		if (ascii_tolower((unsigned char)s[i]) != ascii_tolower((unsigned char)lit[i]))
			return false;
	return true;
}

/* The next c in s[0..n), or end (s + n). */
static const char *next_byte(const char *s, const char *end, int c)
{
	const char *hit = s < end ? memchr(s, c, (size_t)(end - s)) : NULL;

	return hit ? hit : end;
}

/*
 * Offset of the first occurrence of lit in n bytes at s, or n; ASCII
 * letters in any case when nocase.  Every line of every commit message is
 * searched for a dozen words: memchr() finds where lit's first letter is
 * (in either case), so the words are compared only there.
 */
static size_t find_text(const char *s, size_t n, const char *lit, bool nocase)
{
	size_t k = strlen(lit);
	int lo = nocase ? ascii_tolower((unsigned char)lit[0]) : (unsigned char)lit[0];
	int up = nocase ? ascii_toupper((unsigned char)lit[0]) : lo;
	const char *end, *a, *b;

	if (!k || k > n)
		return k ? n : 0;
	end = s + n - k + 1;	/* where a match can start */
	a = next_byte(s, end, lo);
	b = up != lo ? next_byte(s, end, up) : end;
	while (a < end || b < end) {
		const char *at = a < b ? a : b;

		if (same_text(at + 1, lit + 1, k - 1, nocase))
			return (size_t)(at - s);
		if (at == a)
			a = next_byte(a + 1, end, lo);
		else
			b = next_byte(b + 1, end, up);
	}
	return n;
}

/* ---- BAD_REPORTED_BY_LINK ------------------------------------------- */

static bool is_tag(const struct trailer *t, const char *name)
{
	return t->kind == TRAILER_TAG && t->has_colon && trailer_is(t, name);
}

static bool is_report(const struct trailer *t)
{
	return is_tag(t, "Reported-by") || is_tag(t, "Reported-and-tested-by");
}

static bool is_report_link(const struct trailer *t, unsigned follow)
{
	const char *v = t->value;

	if (!((follow & FOLLOW_CLOSES) && is_tag(t, "Closes")) &&
	    !((follow & FOLLOW_LINK) && is_tag(t, "Link")))
		return false;
	if (*v == '<')
		v++;
	return ascii_has_prefix_ci(v, strlen(v), "http://") || ascii_has_prefix_ci(v, strlen(v), "https://");
}

static const char *report_followers(unsigned follow)
{
	switch (follow & (FOLLOW_CLOSES | FOLLOW_LINK)) {
	case FOLLOW_CLOSES:
		return "a Closes:";
	case FOLLOW_LINK:
		return "a Link:";
	default:
		return "a Closes: (or Link:)";
	}
}

/*
 * Whether the group of reports ending at t[last] is followed by its link:
 * a Closes:/Link: with a URL anywhere after it in the trailer block (a
 * Fixes: may stand between) and before the next report.  A group in the
 * prose, outside the block, needs the link right after it.
 */
static bool report_linked(const struct patch *p, size_t last, unsigned follow)
{
	const struct trailer *t = p->trailers;

	if (!t[last].in_block)
		return last + 1 < p->ntrailers && is_report_link(&t[last + 1], follow) &&
		       patch_trailers_adjacent(p, &t[last], &t[last + 1]);
	for (size_t j = last + 1; j < p->ntrailers && t[j].in_block && !is_report(&t[j]); j++)
		if (is_report_link(&t[j], follow))
			return true;
	return false;
}

/* Words that, on a line that also speaks of a report, say it was not public. */
static const char *const private_words[] = {
	"private", "off-list", "offlist", "off list", "directly", "internal", "not public",
};

/* A line whose first word is a "-by:" tag: "Reported-by: x <x@internal.example>". */
static bool is_by_line(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && (ascii_is_alnum(s[k]) || s[k] == '-'))
		k++;
	return k >= 3 && k < n && s[k] == ':' && !strncasecmp(s + k - 3, "-by", 3);
}

/* A line that only lists people: "Cc: x", "To: x", or a "-by:" tag (b4 and
 * git send-email put the Cc list below "---"). */
static bool is_people_line(const char *s, size_t n)
{
	static const char *const tokens[] = { "Cc", "To", "From", "Bcc" };
	size_t k = 0;

	if (is_by_line(s, n))
		return true;
	while (k < n && ascii_is_alnum(s[k]))
		k++;
	if (k == n || s[k] != ':')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(tokens); i++)
		if (k == strlen(tokens[i]) && !strncasecmp(s, tokens[i], k))
			return true;
	return false;
}

/* Words that, beside "security", make a line speak of a security fix. */
static const char *const security_words[] = { "fix", "bug", "issue", "vulnerab", "flaw" };

static bool has_any(const char *s, size_t n, const char *const *words, size_t nwords)
{
	for (size_t k = 0; k < nwords; k++)
		if (find_text(s, n, words[k], true) < n)
			return true;
	return false;
}

/* A line that says a report was not public: it speaks of a report and
 * says private (or the like), or it speaks of a security fix, whose
 * reports go to the security team in private (security-bugs.rst). */
static bool says_private(const char *s, size_t n)
{
	if (is_by_line(s, n))
		return false;
	if (find_text(s, n, "security", true) < n &&
	    has_any(s, n, security_words, ARRAY_SIZE(security_words)))
		return true;
	return find_text(s, n, "report", true) < n &&
	       has_any(s, n, private_words, ARRAY_SIZE(private_words));
}

/*
 * The next line of the notes below "---" (version notes, diffstat) before
 * the diff: *s and *n, from *cur on; false at their end or without notes.
 */
static bool next_note(const struct patch *p, const char **cur, const char **s, size_t *n)
{
	const char *end, *nl;

	if (!p->after || p->sep != SEP_DASHES)
		return false;
	end = p->after + p->after_len;
	if (!*cur)
		*cur = p->after;
	if (*cur >= end)
		return false;
	*s = *cur;
	nl = memchr(*s, '\n', (size_t)(end - *s));
	*n = nl ? (size_t)(nl - *s) : (size_t)(end - *s);
	if (ascii_has_prefix_ci(*s, *n, "diff -") || ascii_has_prefix_ci(*s, *n, "Index: "))
		return false;
	*cur = *s + *n + (*s + *n < end);
	return true;
}

/*
 * Whether the author says the report was not public ("reported on a
 * private chat", "reported to me directly"), in the commit message or in
 * the notes below "---" before the diff: then there is no URL to give.
 */
static bool report_private(const struct patch *p)
{
	const char *cur = NULL, *s;
	size_t n;

	for (size_t i = 0; i < p->nlines; i++)
		if (says_private(p->lines[i].p, p->lines[i].len))
			return true;
	while (next_note(p, &cur, &s, &n))
		if (says_private(s, n))
			return true;
	return false;
}

/*
 * Whether the reporter of t is named in the version notes below "---"
 * ("Fix up issues as pointed out by Jane Roe"): then the report was a
 * review of an earlier version, and a link to it belongs below "---", not
 * in the commit (the link policy); the rule stays silent.
 */
static bool reporter_in_notes(const struct patch *p, const struct trailer *t)
{
	struct person who;
	const char *cur = NULL, *s;
	size_t n;
	bool found = false;

	if (address_parse(&who, t->value, strlen(t->value), NULL) < 0) {
		person_release(&who);
		return false;
	}
	while (!found && next_note(p, &cur, &s, &n))
		found = !is_people_line(s, n) &&
			((strlen(who.name) >= 4 && find_text(s, n, who.name, true) < n) ||
			 (who.email[0] && find_text(s, n, who.email, true) < n));
	person_release(&who);
	return found;
}

/* Whether a reporter of the group t[first..last] is named in the notes. */
static bool group_in_notes(const struct patch *p, size_t first, size_t last)
{
	for (size_t i = first; i <= last; i++)
		if (reporter_in_notes(p, &p->trailers[i]))
			return true;
	return false;
}

void rules_cover_settles(const struct patch *cover, struct findings *parts, size_t n)
{
	if (!cover || cover->kind != KIND_COVER || !report_private(cover))
		return;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < parts[i].n; j++)
			if (!strcmp(parts[i].v[j].rule, rule_defs[R_BAD_REPORTED_BY_LINK].id))
				parts[i].v[j].severity = SEV_OFF;
}

/*
 * Consecutive Reported-by: lines credit the reporters of one report, so the
 * group as a whole must be followed by the link to it.
 */
static void check_reported_by(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	const struct trailer *t = p->trailers;
	unsigned follow = c->settings->reported_by_followers;
	size_t i = 0, last;

	if (!(follow & (FOLLOW_CLOSES | FOLLOW_LINK)))
		follow = FOLLOW_CLOSES | FOLLOW_LINK;
	if (report_private(p))
		return;
	while (i < p->ntrailers) {
		if (!is_report(&t[i])) {
			i++;
			continue;
		}
		for (last = i; last + 1 < p->ntrailers && is_report(&t[last + 1]) &&
			       patch_trailers_adjacent(p, &t[last], &t[last + 1]); last++)
			;
		if (!report_linked(p, last, follow) && !group_in_notes(p, i, last))
			rule_emit(c, R_BAD_REPORTED_BY_LINK, &t[last].line,
				  "%s: is not followed by %s with the report's URL; if the report "
				  "is public, add one right after this line.",
				  t[last].token, report_followers(follow));
		i = last + 1;
	}
}

/* ---- BAD_FIXES_TAG, MISSING_FIXES_TAG ------------------------------- */

static bool has_upper(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'F')
			return true;
	return false;
}

/* The subject was wrapped when the next line carries on the parenthesis. */
static bool fixes_wrapped(const struct patch *p, size_t i)
{
	const struct line *n;

	if (i + 1 >= p->nlines)
		return false;
	n = &p->lines[i + 1];
	if (!n->len)
		return false;
	return ascii_is_blank(n->p[0]) || find_text(n->p, n->len, "\")", false) < n->len;
}

static const char *fixes_subject_problem(const struct patch *p, size_t i,
					 const struct commitref_fixes *f)
{
	const char *r = f->rest, *e = f->end;

	if (skip_blank(r, e) == e)
		return "Please add the subject of the fixed commit: Fixes: <id> (\"<subject>\").";
	if (r + 2 > e || r[0] != ' ' || r[1] != '(')
		return "Please put one space, then (\"<subject>\"), after the commit id in Fixes:.";
	r++;
	if (e - r < 5 || r[1] != '"')
		return "Please put the subject in Fixes: in double quotes inside the parentheses: "
		       "Fixes: <id> (\"<subject>\").";
	if (e[-1] == ')' && e[-2] == '"')
		return NULL;
	if (fixes_wrapped(p, i))
		return "Please keep the Fixes: tag on one line, even when it is long; do not wrap "
		       "the subject.";
	if (find_text(r, (size_t)(e - r), "\")", false) < (size_t)(e - r))
		return "Nothing should follow (\"<subject>\") in a Fixes: tag; please remove the "
		       "trailing text.";
	return "Please close the subject in Fixes: with \"), as in Fixes: <id> (\"<subject>\").";
}

static const char *fixes_problem(const struct patch *p, size_t i, const struct commitref_fixes *f)
{
	if (f->commit_word)
		return "Please drop the word \"commit\": the tag reads Fixes: <id> (\"<subject>\").";
	if (f->id_inside)
		return "The commit id in Fixes: goes before the parentheses, which hold only the "
		       "subject: Fixes: <12+ hex> (\"<subject>\").";
	if (f->id_bracketed)
		return "Please drop the brackets around the commit id in Fixes: (the documents' "
		       "<id> is a placeholder): Fixes: 0123456789ab (\"<subject>\").";
	if (!f->exact_tag)
		return "Please write this tag as Fixes: <id> (\"<subject>\"), spelled \"Fixes:\" "
		       "with one space after the colon.";
	if (f->id_len < SHA_MIN)
		return "The commit id in Fixes: is too short; please use at least 12 characters "
		       "of the SHA-1: Fixes: <id> (\"<subject>\").";
	if (f->id_len > SHA_MAX)
		return "The commit id in Fixes: is longer than a SHA-1; please use 12 to 40 of "
		       "its characters.";
	if (has_upper(f->id, f->id_len))
		return "Please write the commit id in Fixes: in lower case.";
	return fixes_subject_problem(p, i, f);
}

static bool is_fixes_line(const struct patch *p, size_t i, struct commitref_fixes *f)
{
	return commitref_fixes_parse(&p->lines[i], i >= p->block_start, f);
}

/* Reports malformed Fixes tags; true when the message has any Fixes tag. */
static bool check_fixes(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	bool any = false;

	for (size_t i = 0; i < p->nlines; i++) {
		struct commitref_fixes f;
		const char *msg;

		if (!is_fixes_line(p, i, &f))
			continue;
		any = true;
		msg = fixes_problem(p, i, &f);
		if (msg)
			rule_emit(c, R_BAD_FIXES_TAG, &p->lines[i], "%s", msg);
	}
	return any;
}

enum stable_kind {
	NOT_STABLE,
	STABLE,
	STABLE_NOAUTOSEL	/* "do not pick this for stable" */
};

static enum stable_kind stable_kind(const char *email)
{
	if (!strcasecmp(email, "stable@vger.kernel.org") || !strcasecmp(email, "stable@kernel.org"))
		return STABLE;
	if (!strcasecmp(email, "stable+noautosel@kernel.org"))
		return STABLE_NOAUTOSEL;
	return NOT_STABLE;
}

/* The kind of stable address a Cc: line (raw, as in the text) names. */
static enum stable_kind line_stable_cc(const struct line *l)
{
	struct person who;
	enum stable_kind k;
	const char *v;

	if (!ascii_has_prefix_ci(l->p, l->len, "cc:"))
		return NOT_STABLE;
	v = skip_blank(l->p + 3, l->p + l->len);
	k = address_parse(&who, v, (size_t)(l->p + l->len - v), NULL) < 0 ? NOT_STABLE
									 : stable_kind(who.email);
	person_release(&who);
	return k;
}

/* The first crash or report marker in line l, or NULL. */
static const char *crash_marker(const struct line *l)
{
	for (size_t k = 0; k < ARRAY_SIZE(crash_markers); k++)
		if (find_text(l->p, l->len, crash_markers[k].text, crash_markers[k].nocase) < l->len)
			return crash_markers[k].text;
	return line_stable_cc(l) == STABLE ? "Cc: stable" : NULL;
}

static bool is_revert(const struct patch *p)
{
	if (p->subject_body && !strncmp(p->subject_body, "Revert ", 7))
		return true;
	for (size_t i = 0; i < p->nlines; i++)
		if (ascii_has_prefix_ci(p->lines[i].p, p->lines[i].len, "This reverts commit") &&
		    !memcmp(p->lines[i].p, "This", 4))
			return true;
	return false;
}

static void check_missing_fixes(struct rule_ctx *c, bool has_fixes)
{
	const struct patch *p = c->patch;

	if (has_fixes || !rule_enabled(c, R_MISSING_FIXES_TAG) || is_revert(p))
		return;
	for (size_t i = 0; i < p->nlines; i++) {
		const char *m = crash_marker(&p->lines[i]);

		if (m) {
			rule_emit(c, R_MISSING_FIXES_TAG, &p->lines[i],
				  "The commit message mentions \"%s\", so this looks like a fix; if "
				  "it is, please add a Fixes: tag naming the commit that introduced "
				  "the bug.", m);
			return;
		}
	}
}

/* ---- BAD_STABLE_ADDRESS_STYLE --------------------------------------- */

/* A note after the address must be "# note". */
static bool note_ok(const char *s, const char *end)
{
	s = skip_blank(s, end);
	if (s == end)
		return true;
	return *s == '#' && skip_blank(s + 1, end) < end;
}

static void check_stable_cc(struct rule_ctx *c, const struct trailer *t)
{
	size_t n = strlen(t->value);
	const char *rest = NULL, *end = t->value + n;
	struct person who;
	enum stable_kind k;

	if (address_parse(&who, t->value, n, &rest) < 0) {
		person_release(&who);	/* filled even on failure */
		return;
	}
	k = stable_kind(who.email);
	if (!rest || rest < t->value || rest > end)
		rest = end;
	if (k == STABLE_NOAUTOSEL && skip_blank(rest, end) == end)
		rule_emit(c, R_BAD_STABLE_ADDRESS_STYLE, &t->line,
			  "Cc: %s needs the reason after it, as in \"# <why this must not be "
			  "backported>\".", who.email);
	else if (k != NOT_STABLE && !note_ok(rest, end))
		rule_emit(c, R_BAD_STABLE_ADDRESS_STYLE, &t->line,
			  "Please write the note after Cc: %s as \"# note\" (e.g. \"# 6.1+\"), so "
			  "the stable tools can read it.", who.email);
	else if (k != NOT_STABLE && who.name[0])
		/* Only a check: the tools still find the address, and "Cc: stable
		 * <stable@kernel.org>" is a form the stable maintainers use. */
		rule_emit_sev(c, R_BAD_STABLE_ADDRESS_STYLE, SEV_CHECK, &t->line,
			      "Cc: %s takes no display name (\"%s\"); write \"Cc: %s\", any note "
			      "after it as \"# note\".", who.email, who.name, who.email);
	person_release(&who);
}

static void check_stable(struct rule_ctx *c)
{
	const struct patch *p = c->patch;

	for (size_t i = 0; i < p->ntrailers; i++)
		if (is_tag(&p->trailers[i], "Cc") && p->trailers[i].lead_ws == 0)
			check_stable_cc(c, &p->trailers[i]);
}

/* ---- GIT_COMMIT_ID -------------------------------------------------- */

enum cite_problem {
	CITE_OK,
	CITE_SHORT,
	CITE_UPPER,
	CITE_NO_SUBJECT,
	CITE_NO_QUOTES,
	CITE_UNCLOSED
};

struct cite {
	const char *id;
	int id_len;
	enum cite_problem problem;
};

static enum cite_problem cite_problem(const char *id_end, const char *end, size_t id_len,
				      bool upper)
{
	const char *q = skip_blank(id_end, end);

	if (id_len < SHA_MIN)
		return CITE_SHORT;
	if (upper)
		return CITE_UPPER;
	if (q == end || *q != '(')
		return CITE_NO_SUBJECT;
	if (q + 1 == end || q[1] != '"')
		return CITE_NO_QUOTES;
	if (find_text(q, (size_t)(end - q), "\")", false) == (size_t)(end - q))
		return CITE_UNCLOSED;
	return CITE_OK;
}

/* The first badly cited commit whose "commit" starts in bytes [*from, n) of
 * s; *from is moved past it. */
static bool find_bad_cite(const char *s, size_t len, size_t n, size_t *from, struct cite *out)
{
	const char *end = s + len;

	for (size_t i = *from; i + 6 <= n; i++) {
		const char *id;
		size_t id_len;

		if (!commitref_cite_at(s, len, i, &id, &id_len))
			continue;
		out->problem = cite_problem(id + id_len, end, id_len, has_upper(id, id_len));
		if (out->problem != CITE_OK) {
			out->id = id;
			out->id_len = (int)id_len;
			*from = (size_t)(id + id_len - s);
			return true;
		}
	}
	return false;
}

/* Whether the message names the commit id (n bytes) elsewhere with its
 * subject, in a Fixes: tag or a citation: the reader has it there. */
static bool cited_with_subject(const struct commitrefs *refs, const char *id, size_t n)
{
	for (size_t i = 0; i < refs->n; i++) {
		size_t k = strlen(refs->v[i].id);

		if (refs->v[i].subject && !strncasecmp(refs->v[i].id, id, k < n ? k : n))
			return true;
	}
	return false;
}

/* Whether a URL starts at s (n bytes) whose host is not kernel.org's. */
static bool foreign_url_at(const char *s, size_t n)
{
	size_t k = ascii_has_prefix_ci(s, n, "https://") ? 8 : ascii_has_prefix_ci(s, n, "http://") ? 7 : 0;
	size_t h = k;

	if (!k)
		return false;
	while (h < n && (ascii_is_alnum(s[h]) || s[h] == '-' || s[h] == '.'))
		h++;
	if (h == k)
		return false;
	return !((h - k == 10 || (h - k > 10 && s[h - 11] == '.')) &&
		 !strncasecmp(s + h - 10, "kernel.org", 10));
}

static bool line_has_foreign_url(const struct line *l)
{
	for (size_t i = 0; i + 7 <= l->len; i++)
		if (foreign_url_at(l->p + i, l->len - i))
			return true;
	return false;
}

/* Whether line l holds a reference mark "[n]" whose definition, a line
 * "[n] URL" or "[n]: URL" of the message, gives a URL off kernel.org. */
static bool line_refers_foreign(const struct patch *p, const struct line *l)
{
	for (size_t i = 0; i + 2 < l->len; i++) {
		size_t k = i + 1;

		if (l->p[i] != '[')
			continue;
		while (k < l->len && ascii_is_digit(l->p[k]))
			k++;
		if (k == i + 1 || k >= l->len || l->p[k] != ']')
			continue;
		for (size_t j = 0; j < p->nlines; j++) {
			const struct line *d = &p->lines[j];
			const char *q = skip_blank(d->p, d->p + d->len), *e = d->p + d->len;
			size_t mark = k + 1 - i;

			if ((size_t)(e - q) <= mark || memcmp(q, l->p + i, mark))
				continue;
			q += mark;
			if (q < e && *q == ':')
				q++;
			q = skip_blank(q, e);
			if (foreign_url_at(q, (size_t)(e - q)))
				return true;
		}
	}
	return false;
}

static bool blank_line(const struct line *l)
{
	return skip_blank(l->p, l->p + l->len) == l->p + l->len;
}

/*
 * Whether the paragraph of line i points at a repository other than the
 * kernel's: a URL off kernel.org in it, or a reference mark to one ("the
 * vendor SDK [1] at commit 824b817f8").  Its commit ids are not kernel
 * commits, and need no kernel subject.
 */
static bool paragraph_foreign(const struct patch *p, size_t i)
{
	size_t a = i, b = i;

	while (a > 0 && !blank_line(&p->lines[a - 1]))
		a--;
	while (b + 1 < p->nlines && !blank_line(&p->lines[b + 1]))
		b++;
	for (size_t j = a; j <= b; j++)
		if (line_has_foreign_url(&p->lines[j]) || line_refers_foreign(p, &p->lines[j]))
			return true;
	return false;
}

static void report_cite(struct rule_ctx *c, const struct line *l, const struct cite *ct)
{
	int n = ct->id_len;
	const char *id = ct->id;

	switch (ct->problem) {
	case CITE_SHORT:
		rule_emit(c, R_GIT_COMMIT_ID, l, "Please cite commit %.*s with at least 12 "
			  "characters of its id and its subject, as in commit <id> (\"<subject>\").",
			  n, id);
		break;
	case CITE_UPPER:
		rule_emit(c, R_GIT_COMMIT_ID, l, "Please write the id of commit %.*s in lower "
			  "case, as in commit <id> (\"<subject>\").", n, id);
		break;
	case CITE_NO_SUBJECT:
		rule_emit(c, R_GIT_COMMIT_ID, l, "Please cite commit %.*s with its subject, as "
			  "in commit %.*s (\"<subject>\").", n, id, n, id);
		break;
	case CITE_NO_QUOTES:
		rule_emit(c, R_GIT_COMMIT_ID, l, "Please put the subject of commit %.*s in "
			  "double quotes, as in commit %.*s (\"<subject>\").", n, id, n, id);
		break;
	case CITE_UNCLOSED:
		rule_emit(c, R_GIT_COMMIT_ID, l, "Please close the subject of commit %.*s with "
			  "\"), as in commit %.*s (\"<subject>\").", n, id, n, id);
		break;
	case CITE_OK:
		break;
	}
}

static void check_commit_ids(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	struct commitrefs refs;
	struct buf b;

	if (!rule_enabled(c, R_GIT_COMMIT_ID))
		return;
	buf_init(&b, 0);
	commitrefs_init(&refs);
	commitref_find(p->lines, p->nlines, p->block_start, COMMITREF_MAX_REFS, &refs);
	for (size_t i = 0; i < p->nlines; i++) {
		const struct line *l = &p->lines[i];
		struct commitref_fixes f;
		struct cite ct;
		size_t from = 0;

		if (find_text(l->p, l->len, "commit", true) == l->len || is_fixes_line(p, i, &f) ||
		    commitref_log_header(l))
			continue;
		commitref_join(p->lines, p->nlines, i, &b);
		while (find_bad_cite(b.data, b.len, l->len, &from, &ct)) {
			if ((ct.problem == CITE_NO_SUBJECT &&
			     cited_with_subject(&refs, ct.id, (size_t)ct.id_len)) ||
			    paragraph_foreign(p, i))
				continue;
			report_cite(c, l, &ct);
			break;
		}
	}
	commitrefs_release(&refs);
	buf_release(&b);
}

void rules_reports(struct rule_ctx *ctx)
{
	if (ctx->patch->kind != KIND_PATCH)
		return;
	check_reported_by(ctx);
	check_missing_fixes(ctx, check_fixes(ctx));
	check_stable(ctx);
	check_commit_ids(ctx);
}
