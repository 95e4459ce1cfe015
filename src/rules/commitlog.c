/*
 * commitlog.c - the rest of the commit message (tagbot-rules(7)): besides
 * its tags (description, version notes, separators, comment lines, Change-Id), the
 * subject (tool names, format-patch placeholders), and a format-patch file
 * pasted into the mail instead of sent.
 *
 * Cover letters are no commit: only EMAIL_SUBJECT and PLACEHOLDER_USE look
 * at them.
 */
#include "autoconf.h"
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "rules/rules_p.h"
#include "lib/ascii.h"

#define SUBJECT_MAX	4096	/* bytes of a subject looked at */

static bool is_word(int c)
{
	return ascii_is_alnum(c) || c == '_';
}

/* Offset of needle in n bytes at s, or n. */
static size_t find(const char *s, size_t n, const char *needle)
{
	const char *at = memmem(s, n, needle, strlen(needle));

	return at ? (size_t)(at - s) : n;
}

static bool blank(const struct line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (!ascii_is_blank((unsigned char)l->p[i]))
			return false;
	return true;
}

/* Longer subjects (without the [PATCH] prefix) over a message with no
 * description are taken for a title and a description that git joined,
 * when the blank line between them was missing. */
#define SUBJECT_RUN_ON	100

/* Tags that are no description even above the trailer block (besides "-by:"). */
static const char *const known_tags[] = {
	"Fixes", "Link", "Closes", "Cc", "BugLink", "Message-ID", "Change-Id",
};

/* A "Token: value" line with a known token or one ending in "-by". */
static bool tag_line(const struct line *l)
{
	size_t i = 0, k;

	if (trailer_classify(l->p, l->len) != TRAILER_TAG)
		return false;
	while (i < l->len && ascii_is_blank((unsigned char)l->p[i]))
		i++;
	for (k = i; k < l->len && (ascii_is_alnum((unsigned char)l->p[k]) || l->p[k] == '-'); k++)
		;
	if (k - i > 3 && !strncasecmp(l->p + k - 3, "-by", 3))
		return true;
	for (size_t t = 0; t < ARRAY_SIZE(known_tags); t++)
		if (k - i == strlen(known_tags[t]) && !strncasecmp(l->p + i, known_tags[t], k - i))
			return true;
	return false;
}

/*
 * Whether lines [0, end) hold a description: a paragraph with a line that
 * is not a tag (or the continuation of one).  A paragraph of tags set apart
 * from the trailer block ("Assisted-by: ...", blank, "Signed-off-by: ...")
 * describes nothing.
 */
static bool described(const struct line *lines, size_t end)
{
	bool in_tags = false;

	for (size_t i = 0; i < end; i++) {
		const struct line *l = &lines[i];

		if (blank(l)) {
			in_tags = false;
			continue;
		}
		if (tag_line(l))
			in_tags = true;
		else if (!in_tags || trailer_classify(l->p, l->len) != TRAILER_CONTINUATION)
			return true;
	}
	return false;
}

static void check_description(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	size_t end = p->block_start < p->nlines ? p->block_start : p->nlines;

	if (described(p->lines, end))
		return;
	for (size_t i = 0; i < end; i++)
		if (!blank(&p->lines[i])) {
			end = i;	/* point at the first tag */
			break;
		}
	if (end < p->nlines && strlen(p->subject_body) > SUBJECT_RUN_ON)
		rule_emit(c, R_COMMIT_MESSAGE, &p->lines[end],
			  "The commit message holds only tags, and the %zu-character subject looks "
			  "like the title and the description run together: put a blank line after "
			  "the title.", strlen(p->subject_body));
	else if (end < p->nlines)
		rule_emit(c, R_COMMIT_MESSAGE, &p->lines[end],
			  "The commit message holds only tags; say what the patch changes and why.");
	else
		rule_emit(c, R_COMMIT_MESSAGE, NULL,
			  "The commit message is empty below the subject; say what the patch "
			  "changes and why.");
}

/* "vN" at s: returns the bytes it takes, 0 when s holds no version. */
static size_t version_at(const char *s, size_t n)
{
	size_t i = 1;

	if (!n || (s[0] != 'v' && s[0] != 'V'))
		return 0;
	while (i < n && ascii_is_digit((unsigned char)s[i]))
		i++;
	return i > 1 ? i : 0;
}

static const char *const changes_words[] = { "changes in ", "changes since ", "changes from " };

/* Version notes: "v2:", "v1 -> v2", "Changes in/since/from v2", "Changelog:". */
bool rules_version_note(const struct line *l)
{
	const char *s = l->p;
	size_t n = l->len, i = 0, k;

	while (i < n && (ascii_is_blank((unsigned char)s[i]) || s[i] == '-' || s[i] == '*'))
		i++;
	s += i;
	n -= i;
	if ((k = version_at(s, n))) {
		for (i = k; i < n && ascii_is_blank((unsigned char)s[i]); i++)
			;
		if (i < n && s[i] == ':')
			return true;
		if (i + 1 < n && s[i] == '-' && s[i + 1] == '>') {
			for (i += 2; i < n && ascii_is_blank((unsigned char)s[i]); i++)
				;
			return version_at(s + i, n - i) > 0;
		}
		return false;
	}
	for (size_t w = 0; w < ARRAY_SIZE(changes_words); w++) {
		k = strlen(changes_words[w]);
		if (ascii_has_prefix_ci(s, n, changes_words[w]))
			return version_at(s + k, n - k) > 0;
	}
	if (ascii_has_prefix_ci(s, n, "changelog") || ascii_has_prefix_ci(s, n, "change log")) {
		i = s[6] == ' ' ? 10 : 9;
		while (i < n && ascii_is_blank((unsigned char)s[i]))
			i++;
		return i == n || s[i] == ':' || version_at(s + i, n - i) > 0;
	}
	return false;
}

/*
 * "--- " and text: git mailinfo's patchbreak() takes it for a diff's
 * "--- <file>" header and drops the rest of the message.  A longer run of
 * dashes ("-----", an RST underline, ASCII art) or "---text" it keeps, and
 * "---" alone is the separator that ended the message (patch.c).
 */
static bool bad_separator(const struct line *l)
{
	return l->len > 4 && !memcmp(l->p, "--- ", 4) && !ascii_is_space((unsigned char)l->p[4]);
}

/* A '#' line above the trailer block, or below it where git's "# Conflicts:"
 * and its file list are left (the block's own comments are annotations). */
static bool comment_line(const struct patch *p, size_t i)
{
	return (i < p->block_start || i >= p->block_end) && p->lines[i].len &&
	       p->lines[i].p[0] == '#';
}

/* One finding for a run of "#" lines starting at line i (git's leftover
 * "# Conflicts:" and its file list are one thing to delete). */
static void report_comments(struct rule_ctx *c, size_t i)
{
	const struct patch *p = c->patch;
	size_t n = 1;

	while (i + n < p->nlines && comment_line(p, i + n))
		n++;
	if (n == 1)
		rule_emit(c, R_COMMIT_COMMENT_SYMBOL, &p->lines[i],
			  "git drops commit-message lines that start with #, so this line would "
			  "vanish: delete it, or indent it if it is meant to stay.");
	else
		rule_emit(c, R_COMMIT_COMMENT_SYMBOL, &p->lines[i],
			  "git drops commit-message lines that start with #, so this line and the "
			  "%zu after it would vanish: delete them, or indent them if they are meant "
			  "to stay.", n - 1);
}

static void check_lines(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	bool noted = false;

	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++) {
		const struct line *l = &p->lines[i];
		size_t k = 0;

		/* One finding for a block of version notes is enough. */
		if (!noted && rules_version_note(l)) {
			rule_emit(c, R_COMMIT_LOG_VERSIONING, l,
				  "Move version notes below the --- line, where git am drops them.");
			noted = true;
		}
		if (bad_separator(l))
			rule_emit(c, R_BAD_COMMIT_SEPARATOR, l,
				  "git am takes a line starting with \"--- \" for the start of the diff and drops the rest of the commit message; please reword or indent this line.");
		if (comment_line(p, i) && !(i > 0 && comment_line(p, i - 1)))
			report_comments(c, i);
		while (k < l->len && ascii_is_blank((unsigned char)l->p[k]))
			k++;
		if (ascii_has_prefix_ci(l->p + k, l->len - k, "change-id:"))
			rule_emit(c, R_GERRIT_CHANGE_ID, l,
				  "Gerrit Change-Id: trailers mean nothing outside Gerrit: please remove it before posting.");
	}
}

/*
 * Tools that find problems.  checkpatch, smatch and coccinelle are names
 * and nothing else; "sparse" is an English word ("sparse file"), so it
 * counts only when the next word says it is the tool talking.
 */
static const struct {
	const char *name;
	bool needs_context;
} tools[] = {
	{ "checkpatch", false }, { "smatch", false }, { "coccinelle", false },
	{ "coccicheck", false }, { "sparse", true },
};

static const char *const tool_context[] = {
	"warning", "error", "issue", "complain", "report", "cleanup", "clean", "fix", "happy",
};

static bool tool_context_at(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && ascii_is_blank((unsigned char)s[i]))
		i++;
	for (size_t t = 0; t < ARRAY_SIZE(tool_context); t++)
		if (ascii_has_prefix_ci(s + i, n - i, tool_context[t]))
			return true;
	return false;
}

/* The tool named in n bytes of subject, or NULL.  "checkpatch: ..." and
 * "scripts/checkpatch.pl: ..." are patches to the tool, not by it. */
static const char *tool_named(const char *s, size_t n)
{
	for (size_t t = 0; t < ARRAY_SIZE(tools); t++) {
		size_t k = strlen(tools[t].name);

		for (size_t i = 0; k <= n && i <= n - k; i++) {
			const char *e = s + i + k;
			size_t rest = n - i - k;

			if (ascii_tolower((unsigned char)s[i]) !=
			    ascii_tolower((unsigned char)tools[t].name[0]) ||
			    strncasecmp(s + i, tools[t].name, k) || (i && (is_word((unsigned char)s[i - 1]) ||
			    s[i - 1] == '/')) || (rest && is_word((unsigned char)*e)))
				continue;
			if ((rest && *e == ':') || ascii_has_prefix_ci(e, rest, ".pl:"))
				continue;
			if (!tools[t].needs_context || tool_context_at(e, rest))
				return tools[t].name;
		}
	}
	return NULL;
}

static void check_subject(struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	const char *s = p->subject_body && *p->subject_body ? p->subject_body : p->subject;
	const char *tool;
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	tool = tool_named(s, n < SUBJECT_MAX ? n : SUBJECT_MAX);
	if (tool)
		rule_emit(c, R_EMAIL_SUBJECT, NULL,
			  "The subject names the tool that found the problem (%s): please say what the change does instead.",
			  tool);
}

static const char *const placeholders[] = { "*** SUBJECT HERE ***", "*** BLURB HERE ***" };

/* The line of text (n bytes, starting at line first) that holds offset off. */
static struct line line_at(const char *text, size_t n, size_t first, size_t off)
{
	struct line l = { text, 0, first };
	size_t start = 0;

	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			start = i + 1;
			l.lineno++;
		}
	}
	l.p = text + start;
	while (start + l.len < n && text[start + l.len] != '\n')
		l.len++;
	return l;
}

static void check_placeholders(struct rule_ctx *c)
{
	const struct patch *p = c->patch;

	for (size_t i = 0; i < ARRAY_SIZE(placeholders); i++) {
		const char *ph = placeholders[i];
		size_t off;

		if (p->subject && find(p->subject, strlen(p->subject), ph) < strlen(p->subject)) {
			struct line l = { p->subject, strlen(p->subject), 0 };

			rule_emit(c, R_PLACEHOLDER_USE, &l,
				  "The subject still holds git format-patch's placeholder %s: please write the real subject.", ph);
		}
		/* A cover letter's blurb is its whole text; a patch's is its commit message. */
		if (p->kind == KIND_COVER && p->text) {
			off = find(p->text, p->text_len, ph);
			if (off < p->text_len) {
				struct line l = line_at(p->text, p->text_len, p->first_lineno, off);

				rule_emit(c, R_PLACEHOLDER_USE, &l,
					  "The text still holds git format-patch's placeholder %s: please replace it with the real text.", ph);
			}
			continue;
		}
		for (size_t j = 0; j < p->nlines; j++) {
			if (find(p->lines[j].p, p->lines[j].len, ph) < p->lines[j].len) {
				rule_emit(c, R_PLACEHOLDER_USE, &p->lines[j],
					  "The text still holds git format-patch's placeholder %s: please replace it with the real text.", ph);
				break;
			}
		}
	}
}

void rules_commitlog(struct rule_ctx *ctx)
{
	check_subject(ctx);
	check_placeholders(ctx);
	if (ctx->patch->kind != KIND_PATCH)
		return;
	if (ctx->patch->pasted.len)
		rule_emit(ctx, R_PASTED_FORMAT_PATCH, &ctx->patch->pasted,
			  "This is a git format-patch file pasted into a mail: please send the patch with git send-email (or b4) instead.");
	/* An RFC asks about an idea; its author often leaves the message for later. */
	if (!ctx->patch->series.rfc)
		check_description(ctx);
	check_lines(ctx);
}
