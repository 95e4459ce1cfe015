/*
 * links.c - tagbot-rules(7) LINKS: Link:, Closes: and the URLs of a commit
 * message, under the 2025 policy (a Link: only to information that is not
 * in the commit).
 *
 * Two passes.  rules_links() reads the lines alone.  rules_lookups() adds
 * what needs to know what a link points at: LINK_DEAD, LINK_NO_NEW_INFO and
 * the archive signal of LINK_TO_PREVIOUS_VERSION; and, from what the
 * daemon's store knows of the target (linkstore_results),
 * LINK_TO_PREVIOUS_VERSION and LINK_TO_OWN_SERIES, which need no [lookup].
 * No I/O in either: the caller fetched the results and passed them to
 * rules_run_lookups().  A result the lookup could not settle
 * (LOOKUP_UNKNOWN, others < 0) never becomes a finding, and a line the
 * first pass reported as a link to the mail itself, its series or an
 * earlier version gets no second finding from the second.
 *
 * Lines are read as "Token: value" wherever they stand in the commit
 * message, trailer block or not: a Link: in the middle of the prose is as
 * much a link as one in the block.  The URL after Link:/Closes: ends at
 * white space; what follows (" # [1]", "[1]", "(v1)") is a comment, unlike
 * checkpatch, which reads the whole value as the URL.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/linkref.h"
#include "rules/linkfacts.h"
#include "rules/rules_p.h"
#include "lib/ascii.h"
#include "mail/msgid.h"

#define LINK_MAX_TOKEN	64	/* longer "tokens" are prose, not tags */
#define LINK_MAX_URL	4096	/* URLs looked at; longer ones are cut */
#define LINK_SHOW_MAX	200	/* bytes of a URL quoted in a message */
#define B4_DATE_PREFIX	9	/* "YYYYMMDD-" in front of a b4 stem */
#define GSE_STAMP_LEN	14	/* git send-email's %Y%m%d%H%M%S */

/* A "Token: value" line. */
struct tagline {
	const struct line *l;
	const char *tok;
	size_t toklen;
	const char *val;	/* trimmed */
	size_t vallen;
};

/* What every link of one patch is compared with. */
struct linkctx {
	struct rule_ctx *c;
	const struct patch *p;
	const char *own_id;	/* foreign; "" when unknown */
	char *own_stem;		/* owned; b4 stem of own_id, NULL when not b4 */
	char *own_family;	/* owned; see family_key() */
	int own_version;	/* highest of the b4 and the subject version */
	bool fresh;		/* not a backport: provenance links are the author's */
};

static bool tok_is(const struct tagline *t, const char *name)
{
	return t->toklen == strlen(name) && !strncasecmp(t->tok, name, t->toklen);
}

/* Splits a line that starts (in column 0) with "Token:" into t. */
static bool split_tag(const struct line *l, struct tagline *t)
{
	const char *s = l->p, *e = l->p + l->len;
	const char *q = s;

	if (q == e || !ascii_is_alpha((unsigned char)*q))
		return false;
	while (q < e && (ascii_is_alnum((unsigned char)*q) || *q == '-'))
		q++;
	if ((size_t)(q - s) > LINK_MAX_TOKEN)
		return false;
	t->l = l;
	t->tok = s;
	t->toklen = (size_t)(q - s);
	while (q < e && ascii_is_blank((unsigned char)*q))
		q++;
	if (q == e || *q != ':')
		return false;
	q++;
	while (q < e && ascii_is_blank((unsigned char)*q))
		q++;
	while (e > q && ascii_is_blank((unsigned char)e[-1]))
		e--;
	t->val = q;
	t->vallen = (size_t)(e - q);
	return true;
}

static bool is_http(const char *s, size_t n)
{
	return (ascii_has_prefix_ci(s, n, "http://") && n > 7) || (ascii_has_prefix_ci(s, n, "https://") && n > 8);
}

static size_t token_len(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && !ascii_is_blank((unsigned char)s[k]))
		k++;
	return k;
}

static int show_len(size_t n)
{
	return (int)(n < LINK_SHOW_MAX ? n : LINK_SHOW_MAX);
}

/*
 * A version label ("# v1", "[v2]", "(v1)", "[PATCH v2]"): returns N, or 0
 * when the text is no such label.  "v1.2" is a release, not a posting.
 */
static int label_version(const char *s, size_t n)
{
	size_t i = 0, d;
	int v = 0;

	while (i < n && (ascii_is_blank((unsigned char)s[i]) || s[i] == '#' || s[i] == '[' || s[i] == '('))
		i++;
	if (ascii_has_prefix_ci(s + i, n - i, "patch") && i + 5 < n && ascii_is_blank((unsigned char)s[i + 5]))
		for (i += 5; i < n && ascii_is_blank((unsigned char)s[i]); i++)
			;
	if (i >= n || (s[i] != 'v' && s[i] != 'V'))
		return 0;
	for (d = ++i; i < n && ascii_is_digit((unsigned char)s[i]) && i - d < 3; i++)
		v = v * 10 + (s[i] - '0');
	if (i == d || (i < n && (ascii_is_alnum((unsigned char)s[i]) || s[i] == '.')))
		return 0;
	return v;
}

/*
 * Separates a label written against the URL ("...c.com/[1]", "...(v1)")
 * from it: returns the URL's length and points *label at the rest.
 */
static size_t url_cut_label(const char *u, size_t n, const char **label, size_t *label_len)
{
	*label = u + n;
	*label_len = 0;
	if (n && (u[n - 1] == ']' || u[n - 1] == ')')) {
		char open = u[n - 1] == ']' ? '[' : '(';
		size_t k = n - 1;

		while (k > 0 && u[k] != open && u[k] != '/')
			k--;
		/* A URL may hold parentheses; only "(vN)" is taken as a label. */
		if (u[k] == open && k > 0 && (open == '[' || label_version(u + k, n - k))) {
			*label = u + k;
			*label_len = n - k;
			return k;
		}
	}
	return n;
}

/* b4 stems of one change: equal but for the date, which b4 sets per posting. */
static bool same_change(const char *stem_a, const char *stem_b)
{
	if (strlen(stem_a) <= B4_DATE_PREFIX || strlen(stem_b) <= B4_DATE_PREFIX)
		return false;
	return msgid_same(stem_a + B4_DATE_PREFIX, stem_b + B4_DATE_PREFIX);
}

/* The change name of a b4 "change-id:" footer (YYYYMMDD-<name>-<hash>). */
static bool change_id_matches(const char *change_id, const char *stem)
{
	const char *name, *end, *at;

	if (!change_id || strlen(change_id) <= B4_DATE_PREFIX || strlen(stem) <= B4_DATE_PREFIX)
		return false;
	name = change_id + B4_DATE_PREFIX;
	end = strrchr(name, '-');
	at = strrchr(stem, '@');
	if (!end || !at)
		return false;
	return (size_t)(at - (stem + B4_DATE_PREFIX)) == (size_t)(end - name) &&
	       !memcmp(stem + B4_DATE_PREFIX, name, (size_t)(end - name));
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static char *key_join(const char *kind, const char *a, size_t alen, const char *b)
{
	struct buf k;

	buf_init(&k, 0);
	buf_addstr(&k, kind);
	buf_add(&k, a, alen);
	buf_addch(&k, '|');
	buf_addstr(&k, b);
	return buf_detach(&k, NULL);
}

/* git send-email: <stamp>.<pid>-<n>-<user@domain>, one stamp per run. */
static char *gse_key(const char *id, const char *at, const char *domain)
{
	const char *q = id, *stamp_end;
	char *tail, *key;

	while (q < at && ascii_is_digit((unsigned char)*q))
		q++;
	if (q - id != GSE_STAMP_LEN || *q != '.')
		return NULL;
	for (q++; q < at && ascii_is_digit((unsigned char)*q); q++)
		;
	stamp_end = q;
	if (q >= at || *q != '-' || !ascii_is_digit((unsigned char)q[1]))
		return NULL;
	for (q++; q < at && ascii_is_digit((unsigned char)*q); q++)
		;
	if (q + 1 >= at || *q != '-')
		return NULL;
	tail = key_join("", q + 1, (size_t)(at - q - 1), domain);
	key = key_join("gse:", id, (size_t)(stamp_end - id), tail);
	free(tail);
	return key;
}

/* git format-patch --thread: <sha or "cover">.<time>.git.<user@domain>. */
static char *fp_key(const char *id, const char *at, const char *domain)
{
	const char *dot = memchr(id, '.', (size_t)(at - id));
	const char *git = dot ? strstr(dot, ".git.") : NULL;

	if (!git || git >= at || git == dot)
		return NULL;
	return key_join("fp:", dot, (size_t)(at - dot), domain);
}

/*
 * The series a Message-ID belongs to, as the tools that send series write
 * it: b4 (the stem without its date, and the version), git send-email and
 * git format-patch.  NULL when the ID says nothing about its series.
 */
static char *family_key(const char *id)
{
	const char *at = strrchr(id, '@');
	char *stem, *key, *domain;
	int ver;

	if (!at)
		return NULL;
	if (linkref_b4_parse(id, &stem, &ver)) {
		char v[16];

		lower(strrchr(stem, '@'));
		snprintf(v, sizeof(v), "v%d", ver);
		key = key_join("b4:", v, strlen(v), stem + B4_DATE_PREFIX);
		free(stem);
		return key;
	}
	domain = xstrdup(at);
	lower(domain);
	key = gse_key(id, at, domain);
	if (!key)
		key = fp_key(id, at, domain);
	free(domain);
	return key;
}

static bool same_family(const char *a, const char *b)
{
	char *ka = family_key(a), *kb = family_key(b);
	bool same = ka && kb && !strcmp(ka, kb);

	free(ka);
	free(kb);
	return same;
}

/* "6.1", "5.15.y", "7.0-6.18": the stable tree a backport is for. */
static bool is_stable_tag(const char *t)
{
	size_t i = 0;

	while (ascii_is_digit((unsigned char)t[i]))
		i++;
	return i > 0 && t[i] == '.' && ascii_is_digit((unsigned char)t[i + 1]);
}

/* Lines a backport starts or ends with (stable-kernel-rules.rst). */
static bool upstream_marker(const struct line *l)
{
	const char *s = l->p;
	size_t n = l->len, i = 0, h;

	while (i < n && (ascii_is_blank((unsigned char)s[i]) || s[i] == '[' || s[i] == '('))
		i++;
	if (ascii_has_prefix_ci(s + i, n - i, "upstream commit") ||
	    ascii_has_prefix_ci(s + i, n - i, "cherry picked from commit"))
		return true;
	if (!ascii_has_prefix_ci(s + i, n - i, "commit "))
		return false;
	for (i += 7, h = i; i < n && ascii_is_xdigit((unsigned char)s[i]); i++)
		;
	return i - h >= 12 && ascii_has_prefix_ci(s + i, n - i, " upstream");
}

static bool is_backport(const struct patch *p)
{
	for (size_t i = 0; i < p->series.ntags; i++) {
		const char *t = p->series.tags[i];

		if (!strcasecmp(t, "AUTOSEL") || !strcasecmp(t, "stable") || is_stable_tag(t))
			return true;
	}
	for (size_t i = 0; i < p->nlines; i++)
		if (upstream_marker(&p->lines[i]))
			return true;
	return false;
}

static void linkctx_init(struct linkctx *x, struct rule_ctx *c)
{
	const struct patch *p = c->patch;
	int b4ver = 0;

	memset(x, 0, sizeof(*x));
	x->c = c;
	x->p = p;
	x->own_id = p->message_id ? p->message_id : "";
	if (*x->own_id)
		linkref_b4_parse(x->own_id, &x->own_stem, &b4ver);
	x->own_family = *x->own_id ? family_key(x->own_id) : NULL;
	x->own_version = p->series.version > b4ver ? p->series.version : b4ver;
	x->fresh = !is_backport(p);
}

static void linkctx_release(struct linkctx *x)
{
	free(x->own_stem);
	free(x->own_family);
}

/* Why a value is not an http(s) URL, and what to write instead. */
static void wrong_link(struct linkctx *x, const struct tagline *t)
{
	const char *v = t->val;
	size_t n = token_len(t->val, t->vallen), k;
	int tl = (int)t->toklen;

	if (!t->vallen) {
		rule_emit(x->c, R_COMMIT_LOG_WRONG_LINK, t->l,
			  "This %.*s: tag has no URL: give the http(s) address it refers to.", tl, t->tok);
		return;
	}
	if (n >= 2 && v[0] == '<' && v[n - 1] == '>') {
		v++;
		n -= 2;
		if (is_http(v, n)) {
			rule_emit(x->c, R_COMMIT_LOG_WRONG_LINK, t->l,
				  "Write the URL without angle brackets: %.*s: %.*s", tl, t->tok,
				  show_len(n), v);
			return;
		}
	}
	for (k = 0; k < n && v[k] != '/' && v[k] != ':'; k++)
		;
	if (k == n && memchr(v, '@', n) && v[0] != '@' && v[n - 1] != '@') {
		rule_emit(x->c, R_COMMIT_LOG_WRONG_LINK, t->l,
			  "This looks like a bare Message-ID: write it as an archive URL, %.*s: https://lore.kernel.org/r/%.*s",
			  tl, t->tok, show_len(n), v);
	} else if (k < n && v[k] == '/' && memchr(v, '.', k) && !memchr(v, '@', k)) {
		rule_emit(x->c, R_COMMIT_LOG_WRONG_LINK, t->l,
			  "This URL has no scheme: write %.*s: https://%.*s", tl, t->tok, show_len(n), v);
	} else {
		rule_emit(x->c, R_COMMIT_LOG_WRONG_LINK, t->l,
			  "A %.*s: tag takes an http(s) URL, which this value is not.", tl, t->tok);
	}
}

/*
 * Whether the link on line l ends in a reference mark ("... [1]", "...c.com/[2]")
 * that another line of the commit message uses ("support for this [1]"):
 * the text leans on what the link holds, whatever posting it is.
 */
static bool cited_reference(const struct patch *p, const struct line *l)
{
	size_t e = l->len, k;

	while (e > 0 && ascii_is_space((unsigned char)l->p[e - 1]))
		e--;
	if (e < 3 || l->p[e - 1] != ']')
		return false;
	for (k = e - 1; k > 0 && ascii_is_digit((unsigned char)l->p[k - 1]); k--)
		;
	if (k == e - 1 || k == 0 || l->p[k - 1] != '[')
		return false;
	k--;
	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++)
		if (p->lines[i].p != l->p &&
		    memmem(p->lines[i].p, p->lines[i].len, l->p + k, e - k))
			return true;
	return false;
}

/* A Link: or Closes: value taken apart. */
struct link_value {
	const char *url;	/* the tag's value, url_len bytes of it */
	size_t url_len;
	const char *id;		/* the Message-ID an archive URL names; NULL: none */
	const char *label;	/* what follows the URL ("[v2]", "# v2"), label_len bytes */
	size_t label_len;
};

/* The signals of tagbot-rules(7) that work offline; the bot's memory of earlier
 * postings and archive lookups are for the lookup code. */
static bool previous_version(struct linkctx *x, const struct link_value *lv, char *why,
			     size_t whylen)
{
	char *stem = NULL;
	int v = label_version(lv->label, lv->label_len), ver;
	bool prev = false;

	if (v) {
		snprintf(why, whylen, "it is labelled v%d", v);
		return true;
	}
	if (!lv->id || !linkref_b4_parse(lv->id, &stem, &ver))
		return false;
	if (ver < x->own_version &&
	    ((x->own_stem && same_change(stem, x->own_stem)) ||
	     (!x->own_stem && x->p->change_id && change_id_matches(x->p->change_id, stem)))) {
		snprintf(why, whylen, "v%d of this patch, this mail is v%d", ver, x->own_version);
		prev = true;
	}
	free(stem);
	return prev;
}

static bool in_refs(const struct patch *p, const char *id)
{
	if (p->in_reply_to && msgid_same(id, p->in_reply_to))
		return true;
	for (size_t i = 0; i < p->nreferences; i++)
		if (msgid_same(id, p->references[i]))
			return true;
	return false;
}

/*
 * A Link: to this series.  Certain when the IDs say they come from the same
 * run of b4 or git.  Otherwise only an ancestor below the thread root of a
 * numbered series counts: a single patch, or a series sent in reply to a
 * report, has the report or its discussion as ancestors, and a link there
 * is the useful kind.
 */
static bool own_series(struct linkctx *x, const char *id)
{
	const struct patch *p = x->p;
	const char *root;
	char *key;
	bool same;

	if (x->own_family && (key = family_key(id))) {
		same = !strcmp(key, x->own_family);
		free(key);
		if (same)
			return true;
	}
	if (p->series.total <= 0 || !in_refs(p, id))
		return false;
	root = p->nreferences ? p->references[0] : p->in_reply_to;
	return !msgid_same(id, root) || (*x->own_id && same_family(id, x->own_id));
}

/* The host of a b4 provenance link, or NULL. */
static const char *msgid_link_host(const char *u, size_t n)
{
	static const char *const hosts[] = { "patch.msgid.link", "msgid.link" };
	size_t skip = ascii_has_prefix_ci(u, n, "https://") ? 8 : 7;

	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++) {
		size_t k = strlen(hosts[i]);

		if (n > skip + k && !strncasecmp(u + skip, hosts[i], k) && u[skip + k] == '/')
			return hosts[i];
	}
	return NULL;
}

/* The checks that only concern Link: (not Closes:). */
static void link_only(struct linkctx *x, const struct tagline *t, const struct link_value *lv)
{
	struct rule_ctx *c = x->c;
	const char *host;
	char why[128];

	if (!cited_reference(x->p, t->l) &&
	    previous_version(x, lv, why, sizeof(why)))
		rule_emit(c, R_LINK_TO_PREVIOUS_VERSION, t->l,
			  "This Link: points at an earlier posting of this patch (%s), which is history, not information for the commit: move it below the --- line or into the cover letter.",
			  why);
	else if (lv->id && own_series(x, lv->id))
		rule_emit(c, R_LINK_TO_OWN_SERIES, t->l,
			  "This Link: points at this series' own cover letter or another of its patches, which adds little to the commit: drop it, or put it below the --- line.");
	if (pattern_list_match(&c->settings->bugtrackers, lv->url, lv->url_len, NULL, NULL) >= 0)
		rule_emit(c, R_LINK_SHOULD_BE_CLOSES, t->l,
			  "This Link: points at a bug report: if this patch fixes that report, use Closes: instead.");
	if (x->fresh && (host = msgid_link_host(lv->url, lv->url_len)))
		rule_emit(c, R_PROVENANCE_LINK, t->l,
			  "A Link: to %s is added by b4 when a maintainer applies the patch and only points back at this submission: please drop it from the posting.",
			  host);
}

static void check_link(struct linkctx *x, const struct tagline *t, bool is_link)
{
	size_t full = token_len(t->val, t->vallen);
	struct link_value lv = { .url = t->val };
	char *id;

	if (!full || !is_http(t->val, full)) {
		wrong_link(x, t);
		return;
	}
	lv.url_len = url_cut_label(t->val, full, &lv.label, &lv.label_len);
	if (!lv.label_len) {
		lv.label = t->val + full;
		lv.label_len = t->vallen - full;
	}
	if (lv.url_len > LINK_MAX_URL)
		lv.url_len = LINK_MAX_URL;
	lv.id = id = linkref_msgid(&x->c->settings->archives, t->val, lv.url_len);
	if (id && *x->own_id && msgid_same(id, x->own_id))
		rule_emit(x->c, R_LINK_TO_SELF, t->l,
			  "This %.*s: points at this very mail, which adds nothing that is not in the commit: please drop it.",
			  (int)t->toklen, t->tok);
	else if (is_link)
		link_only(x, t, &lv);
	free(id);
}

/* Made-up tags people put before a URL (checkpatch commit 76f381bb77a0). */
static const char *const made_up_link_tags[] = {
	"BugLink", "Bug", "Bugs", "Bugzilla", "Bug-Link", "References", "Reference",
	"URL", "Patchwork", "Links",
};

static bool is_made_up_link(const struct tagline *t)
{
	const char *v = t->val;
	size_t n = t->vallen;

	if (n && *v == '<') {
		v++;
		n--;
	}
	if (!is_http(v, n))
		return false;
	if (tok_is(t, "link"))
		return memcmp(t->tok, "Link", 4) != 0;
	for (size_t i = 0; i < ARRAY_SIZE(made_up_link_tags); i++)
		if (tok_is(t, made_up_link_tags[i]))
			return true;
	return false;
}

static const struct pattern_list *old_archives(void)
{
	/* Built-in and constant: compiled once for the life of the process. */
	static struct pattern_list l;
	static bool ready;
	struct err e;

	if (ready)
		return &l;
	pattern_list_init(&l);
	for (const char *const *s = linkref_old_archives; *s; s++) {
		if (pattern_list_add(&l, *s, PATTERN_CASELESS, &e) < 0)
			BUG("built-in pattern %s: %s", *s, e.msg);
	}
	ready = true;
	return &l;
}

/* PREFER_LORE_ARCHIVE: any URL of the line, once per line. */
static void check_old_archive(struct linkctx *x, const struct line *l)
{
	const struct pattern_list *old = old_archives();

	for (size_t i = 0; i + 7 < l->len; i++) {
		const char *u = l->p + i;
		size_t n = l->len - i;

		/* every byte of the line is asked: its first letter first */
		if (ascii_tolower((unsigned char)u[0]) != 'h' ||
		    (!ascii_has_prefix_ci(u, n, "http://") && !ascii_has_prefix_ci(u, n, "https://")))
			continue;
		n = token_len(u, n > LINK_MAX_URL ? LINK_MAX_URL : n);
		if (pattern_list_match(old, u, n, NULL, NULL) >= 0) {
			rule_emit(x->c, R_PREFER_LORE_ARCHIVE, l,
				  "%.*s is an old mail archive: please link to the same message on lore.kernel.org (https://lore.kernel.org/r/<Message-ID>).",
				  show_len(n), u);
			return;
		}
		i += n ? n - 1 : 0;
	}
}

static void check_line(struct linkctx *x, const struct line *l)
{
	struct tagline t;

	check_old_archive(x, l);
	if (!split_tag(l, &t))
		return;
	if (is_made_up_link(&t))
		rule_emit(x->c, R_COMMIT_LOG_USE_LINK, l,
			  "\"%.*s:\" is not a tag tools know: use Link: before a URL, or Closes: for a report this patch fixes.",
			  (int)t.toklen, t.tok);
	if (tok_is(&t, "Link"))
		check_link(x, &t, true);
	else if (tok_is(&t, "Closes"))
		check_link(x, &t, false);
	else if (tok_is(&t, "Message-ID") && x->fresh)
		rule_emit(x->c, R_PROVENANCE_LINK, l,
			  "A Message-ID: trailer is added when a patch is applied and only points back at a submission: please drop it from the posting.");
}

void rules_links(struct rule_ctx *ctx)
{
	const struct patch *p = ctx->patch;
	struct linkctx x;

	/* A cover letter is where links to earlier versions belong. */
	if (p->kind != KIND_PATCH)
		return;
	linkctx_init(&x, ctx);
	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++)
		check_line(&x, &p->lines[i]);
	linkctx_release(&x);
}

/* --- the second pass: what the links point at ----------------------------- */

/* Whether rules_links() reported a link rule on line l of this patch
 * (findings from first on). */
static bool already_reported(const struct rule_ctx *c, size_t first, const struct line *l)
{
	static const enum rule_id link_rules[] = {
		R_LINK_TO_SELF, R_LINK_TO_PREVIOUS_VERSION, R_LINK_TO_OWN_SERIES,
	};

	for (size_t i = first; i < c->out->n; i++) {
		const struct finding *f = &c->out->v[i];

		if (f->line != l->lineno)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(link_rules); k++)
			if (!strcmp(f->rule, rule_defs[link_rules[k]].id))
				return true;
	}
	return false;
}

/* Subjects compared case-insensitively, runs of white space as one. */
static bool same_subject(const char *a, const char *b)
{
	while (ascii_is_blank((unsigned char)*a))
		a++;
	while (ascii_is_blank((unsigned char)*b))
		b++;
	while (*a && *b) {
		if (ascii_is_blank((unsigned char)*a) && ascii_is_blank((unsigned char)*b)) {
			while (ascii_is_blank((unsigned char)*a))
				a++;
			while (ascii_is_blank((unsigned char)*b))
				b++;
			continue;
		}
		if (ascii_tolower((unsigned char)*a) != ascii_tolower((unsigned char)*b))
			return false;
		a++;
		b++;
	}
	while (ascii_is_blank((unsigned char)*a))
		a++;
	while (ascii_is_blank((unsigned char)*b))
		b++;
	return !*a && !*b;
}

/* This mail's version: the subject's, or b4's -vN- in its Message-ID. */
static int own_version(const struct patch *p)
{
	char *stem = NULL;
	int v = p->series.version > 0 ? p->series.version : 1, b4 = 0;

	if (p->message_id && *p->message_id && linkref_b4_parse(p->message_id, &stem, &b4))
		free(stem);
	return b4 > v ? b4 : v;
}

static bool earlier_posting(const struct patch *p, const struct lookup_result *r)
{
	return r->is_patch && r->subject && *r->subject && p->subject_body &&
	       same_subject(r->subject, p->subject_body) && r->version < own_version(p);
}

static void dead(struct rule_ctx *c, const struct line *l, const struct lookup_result *r,
		 bool is_link)
{
	const char *tag = is_link ? "Link" : "Closes";

	if (r->http_code == 404 || r->http_code == 410)
		rule_emit(c, R_LINK_DEAD, l,
			  "This %s: answers %ld (%s): check the address, or drop the tag.", tag,
			  r->http_code, r->http_code == 404 ? "not found" : "gone");
	else
		rule_emit(c, R_LINK_DEAD, l,
			  "The host of this %s: URL does not resolve: check the address, or drop the tag.",
			  tag);
}

static void check_archive_link(struct rule_ctx *c, size_t first, const struct line *l,
			       const struct lookup_result *r)
{
	const struct patch *p = c->patch;

	if (!r->msgid || r->status != LOOKUP_ALIVE || already_reported(c, first, l))
		return;
	if (earlier_posting(p, r) && !cited_reference(p, l))
		rule_emit(c, R_LINK_TO_PREVIOUS_VERSION, l,
			  "This Link: points at v%d of this patch (the archive says so), this mail is v%d: that is history, not information for the commit: move it below the --- line or into the cover letter.",
			  r->version, own_version(p));
	else if (r->is_patch && r->others == 0)
		rule_emit(c, R_LINK_NO_NEW_INFO, l,
			  "This Link: points at a patch posting that nobody but its author answered, so it holds nothing that is not in the commit: drop it, or link to the discussion or report that explains the change.");
}

/* What the store knows: true when that settled the link. */
static bool check_known(struct rule_ctx *c, size_t first, const struct line *l,
			const struct lookup_result *r)
{
	if (!r->earlier_version && !r->same_series)
		return false;
	if (already_reported(c, first, l))
		return true;
	if (r->earlier_version && !cited_reference(c->patch, l))
		rule_emit(c, R_LINK_TO_PREVIOUS_VERSION, l,
			  "This Link: points at an earlier version of this patch (the bot saw it posted), which is history, not information for the commit: move it below the --- line or into the cover letter.");
	else if (!r->earlier_version)
		rule_emit(c, R_LINK_TO_OWN_SERIES, l,
			  "This Link: points at another mail of this patch's own series (the bot saw it posted), which adds little to the commit: drop it, or put it below the --- line.");
	return true;
}

void rules_lookups(struct rule_ctx *ctx, const struct lookup_results *res, size_t first)
{
	const struct patch *p = ctx->patch;

	if (p->kind != KIND_PATCH || !res)
		return;
	for (size_t i = 0; i < p->nlines && i < PATCH_MAX_LINES; i++) {
		const struct line *l = &p->lines[i];
		const struct lookup_result *r;
		const char *url;
		size_t n;
		bool is_link;

		if (!lookup_link_line(l, &url, &n, &is_link) ||
		    !(r = lookup_results_find(res, url, n)))
			continue;
		if ((is_link && check_known(ctx, first, l, r)) || !ctx->settings->lookups)
			continue;
		if (r->status == LOOKUP_DEAD)
			dead(ctx, l, r, is_link);
		else if (is_link)
			check_archive_link(ctx, first, l, r);
	}
}
