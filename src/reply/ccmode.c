/*
 * ccmode.c - maintainer Cc mode, the pure part: requests, commands,
 * maintainers, threads and the explain texts (see ccmode.h).
 */
#include "autoconf.h"
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/address.h"
#include "lib/buf.h"
#include "reply/ccmode.h"
#include "lib/ascii.h"

static const char *const command_names[] = {
	[CC_RECHECK] = "recheck",
	[CC_EXPLAIN] = "explain",
	[CC_QUIET] = "quiet",
};

const char *cc_command_name(enum cc_command_kind k)
{
	return (unsigned)k < ARRAY_SIZE(command_names) ? command_names[k] : "?";
}

/* ------------------------------------------------------------ commands */

static bool blank(char c)
{
	return ascii_is_blank(c) || c == '\r';
}

/* s[0..n) starts with word (any case) followed by the end or a blank. */
static size_t take_word(const char *s, size_t n, const char *word)
{
	size_t k = strlen(word);

	if (n < k || strncasecmp(s, word, k) || (n > k && !blank(s[k])))
		return 0;
	return k;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && blank(s[i]))
		i++;
	return i;
}

/* A rule ID: letters, digits and '_' (custom IDs are upper case too). */
static bool take_rule_id(const char *s, size_t n, char *out)
{
	if (n == 0 || n > CC_RULE_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!ascii_is_alnum(c) && c != '_')
			return false;
		out[i] = (char)ascii_toupper(c);
	}
	out[n] = '\0';
	return true;
}

/* One trimmed line: a command into *c, or false. */
static bool parse_line(const char *s, size_t n, struct cc_command *c)
{
	static const char prefix[] = "tagbot:";
	size_t i, k;

	if (n < sizeof(prefix) - 1 || strncasecmp(s, prefix, sizeof(prefix) - 1))
		return false;
	i = skip_blanks(s, n, sizeof(prefix) - 1);
	memset(c, 0, sizeof(*c));
	for (size_t w = 0; w < ARRAY_SIZE(command_names); w++) {
		if (!(k = take_word(s + i, n - i, command_names[w])))
			continue;
		c->kind = (enum cc_command_kind)w;
		i = skip_blanks(s, n, i + k);
		if (c->kind != CC_EXPLAIN)
			return i == n;
		k = i;
		while (k < n && !blank(s[k]))
			k++;
		return skip_blanks(s, n, k) == n && take_rule_id(s + i, k - i, c->arg);
	}
	return false;
}

static bool already(const struct cc_commands *out, const struct cc_command *c)
{
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].kind == c->kind && !strcmp(out->v[i].arg, c->arg))
			return true;
	return false;
}

static void add_command(struct cc_commands *out, const struct cc_command *c)
{
	if (already(out, c))
		return;
	if (out->n >= CC_MAX_COMMANDS) {
		out->dropped++;
		return;
	}
	out->v[out->n++] = *c;
	out->recheck |= c->kind == CC_RECHECK;
	out->quiet |= c->kind == CC_QUIET;
}

void ccmode_parse_commands(const char *text, size_t n, struct cc_commands *out)
{
	size_t lineno = 0, i = 0;

	memset(out, 0, sizeof(*out));
	if (!text)
		return;
	if (n > CC_TEXT_MAX)
		n = CC_TEXT_MAX;
	while (i < n) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
		const char *s = text + i;
		size_t a = skip_blanks(s, len, 0), b = len;
		struct cc_command c;

		lineno++;
		i += len + 1;
		/* "-- " is the signature delimiter: nothing below is the mail's own. */
		if (len >= 3 && !strncmp(s, "-- ", 3) && skip_blanks(s, len, 3) == len)
			break;
		while (b > a && blank(s[b - 1]))
			b--;
		if (len > CC_LINE_MAX || b == a || s[a] == '>' || memchr(s + a, '\0', b - a))
			continue;
		if (parse_line(s + a, b - a, &c)) {
			c.line = lineno;
			add_command(out, &c);
		}
	}
}

/* ----------------------------------------------------------- addresses */

/* Whether a raw To:/Cc: value names the bot (address_list_parse: an
 * address only an encoded-word spells is none). */
static bool names_bot(const char *raw, const struct policy_settings *ps)
{
	struct address_list l;
	bool hit = false;

	address_list_parse(&l, raw, strnlen(raw, CC_LIST_MAX), CC_MAX_ADDRESSES);
	for (size_t i = 0; i < l.n && !hit; i++)
		hit = policy_is_bot_address(ps, l.v[i].email);
	address_list_release(&l);
	return hit;
}

bool ccmode_to_bot(const struct message *msg, const struct policy_settings *ps)
{
	static const char *const names[] = { "To", "Cc" };

	if (!msg)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		/* Every To:/Cc: line counts, not only the first. */
		for (size_t h = 0; h < msg->nheaders; h++) {
			const struct header *x = &msg->headers[h];

			const char *raw;

			if (strcasecmp(x->name, names[i]))
				continue;
			raw = message_header_raw_of(msg, x);
			if (raw && names_bot(raw, ps))
				return true;
		}
	}
	return false;
}

bool ccmode_is_request(const struct patch *p, const struct policy_settings *ps)
{
	if (p->kind == KIND_PATCH || p->kind == KIND_COVER)
		return false;
	return ccmode_to_bot(p->msg, ps);
}

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool maint_match(const char *entry, const char *addr)
{
	struct person p;
	char *bare;
	bool hit;

	if (!is_pattern(entry)) {
		/* "Name <addr>" is allowed, as in bot_addresses. */
		hit = address_parse(&p, entry, strlen(entry), NULL) == 0 &&
		      address_same(p.email, addr);
		person_release(&p);
		return hit;
	}
	if (!fnmatch(entry, addr, FNM_CASEFOLD))
		return true;
	bare = address_strip_plus(addr);
	hit = !fnmatch(entry, bare, FNM_CASEFOLD);
	free(bare);
	return hit;
}

bool ccmode_is_maintainer(const char *const *maint, size_t n, const char *addr)
{
	if (!addr || !*addr || !address_valid(addr))
		return false;
	for (size_t i = 0; i < n; i++)
		if (maint[i] && *maint[i] && maint_match(maint[i], addr))
			return true;
	return false;
}

/* -------------------------------------------------------------- threads */

static bool id_set(const char *s)
{
	return s && *s;
}

const char *ccmode_thread_root(const struct patch *p)
{
	for (size_t i = 0; i < p->nreferences; i++)
		if (id_set(p->references[i]))
			return p->references[i];
	if (id_set(p->in_reply_to))
		return p->in_reply_to;
	return p->message_id ? p->message_id : "";
}

static bool listed(const char *const *v, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], id))
			return true;
	return false;
}

size_t ccmode_parent_ids(const struct patch *p, const char **out, size_t max)
{
	size_t n = 0;

	if (max > CC_MAX_PARENTS)
		max = CC_MAX_PARENTS;
	if (id_set(p->in_reply_to) && n < max)
		out[n++] = p->in_reply_to;
	for (size_t i = p->nreferences; i-- > 0 && n < max;) {
		const char *id = p->references[i];

		if (id_set(id) && !listed(out, n, id) &&
		    !(p->message_id && !strcmp(id, p->message_id)))
			out[n++] = id;
	}
	return n;
}

/* -------------------------------------------------------------- explain */

/* What tagbot-rules(7) says of each rule, in the words of a reply: when it
 * fires, why it matters, what to do. */
static const struct {
	const char *checks, *why, *fix;
} rule_texts[RULE_COUNT] = {
	[R_MISSING_SIGN_OFF] = {
		"a patch whose commit message has no Signed-off-by: line (one inside the diff or below the --- line does not count).",
		"The sign-off is the Developer's Certificate of Origin: without it the patch cannot be applied.",
		"add a sign-off with your real name and address as the last trailer, e.g. with git commit -s." },
	[R_NO_AUTHOR_SIGN_OFF] = {
		"a patch with sign-offs of which none is the author's (compared by address, case and a +sub part ignored).",
		"The author certifies the origin of the work; a sign-off by someone else does not do that for them.",
		"the author adds their own sign-off, with the address of From: (or of the in-body From:); whoever sends someone else's patch puts an in-body From: line naming its author at the top and adds their own sign-off last." },
	[R_FROM_SIGN_OFF_MISMATCH] = {
		"the author's sign-off matches the From: line by address but not by name, or by name but not by address (comments such as \"(ACME)\", quotes and word order do not count).",
		"The commit records the From: line as the author; a different sign-off makes it unclear who certified the work.",
		"use the same name and address in From: (or the in-body From:) and in the sign-off; when your mail system changes the name or, as X-Google-Original-From: shows, the address in From:, add an in-body From: line rather than a new sign-off." },
	[R_BAD_FROM_ADDRESS] = {
		"a From: (the header's, or the in-body one that names the author) that is not one well-formed address: a quote or parenthesis left open, a missing >, no address at all.",
		"git am still records an author from it, guessed as git mailinfo reads it, which is often not the name or address the sender meant (or none, and git am stops).",
		"write it as \"From: Full Name <user@example.org>\" with every quote and parenthesis closed, in your mailer or git config (user.name, sendemail.from)." },
	[R_BAD_SIGN_OFF] = {
		"a -by: tag that is a misspelt standard one (other unknown tags are only a check), in the wrong case, badly spaced, with an unparsable address, repeated, or a Co-developed-by: without its Signed-off-by:; a combined tag (Reported-and-tested-by:) is only a check, as only the tip tree asks to split it.",
		"Tools (b4, patchwork, git interpret-trailers) and people count these tags; a malformed one is lost or miscounted.",
		"use the standard tags (Signed-off-by, Co-developed-by, Acked-by, Tested-by, Reviewed-by, Reported-by, Suggested-by, Originally-by, Assisted-by), one per line, \"Tag: Name <address>\"." },
	[R_SUBMITTER_SIGN_OFF] = {
		"a patch sent by someone who is, on evidence, not its author (From:, or the address behind a B4 Relay: not the same name, address, git send-email identity or .mailmap entry) and whose own Signed-off-by: is missing or above the author's; not for bots or pull requests.",
		"Each person who handles a patch on its way adds their sign-off, so the chain shows how it travelled.",
		"add your own Signed-off-by: as the last sign-off of a patch you send for someone else; when it follows your Co-developed-by:, move the two lines to the end together." },
	[R_BAD_REPORTED_BY_LINK] = {
		"a Reported-by: group not followed by a Closes: or Link: with an http(s) URL of the report.",
		"The report holds the details the commit message leaves out, and Closes: lets trackers close it.",
		"add \"Closes: <URL of the report>\" right after the Reported-by: line(s) if the report is public." },
	[R_BAD_FIXES_TAG] = {
		"a Fixes line that is not Fixes: <12 to 40 lower-case hex> (\"<subject>\") on one line with single spaces.",
		"Stable maintainers and scripts parse Fixes: to find which kernels need the patch.",
		"write it with git log -1 --format='Fixes: %h (\"%s\")' --abbrev=12 COMMIT, on one line." },
	[R_MISSING_FIXES_TAG] = {
		"a commit message that cites a crash or report (BUG: KASAN:, UBSAN:, Call Trace:, syzbot, Cc: stable) but has no Fixes: tag, and is no revert.",
		"Without Fixes: the stable kernels that carry the bug may not get the fix.",
		"add Fixes: naming the commit that introduced the bug, if there is one." },
	[R_BAD_STABLE_ADDRESS_STYLE] = {
		"a Cc: to stable@vger.kernel.org or stable@kernel.org with a display name or a note not written as \"# note\", or stable+noautosel@kernel.org without a reason.",
		"The stable team's scripts read these lines as they are documented.",
		"write \"Cc: stable@vger.kernel.org # 6.1.x\" with no name; give a reason after # for noautosel." },
	[R_GIT_COMMIT_ID] = {
		"a commit cited as \"commit <hex>\" not in the form commit <12+ hex> (\"<subject>\").",
		"Short or bare IDs become ambiguous; the subject lets readers find the commit in any tree.",
		"cite it as commit 0123456789ab (\"subsystem: subject of that commit\")." },
	[R_UNKNOWN_COMMIT_ID] = {
		"a commit named in Fixes: or as \"commit <id>\" that the git repository tagbot check runs in does not hold (never checked outside one, nor by the daemon).",
		"A Fixes: to a commit nobody can find tells the stable team nothing; usually the id is from a rebased branch.",
		"use the id of the commit as it is in the tree the patch applies to (git log --oneline -1 <id>)." },
	[R_LINK_TO_SELF] = {
		"a Link: or Closes: that names this mail's own Message-ID.",
		"A link to the posting itself adds nothing the commit does not already hold (the 2025 Link policy).",
		"drop the link; the maintainer's tools add provenance when the patch is applied." },
	[R_LINK_TO_PREVIOUS_VERSION] = {
		"a Link: in the commit message to an earlier posting of the same patch (a lower -vN- b4 ID, a known earlier version, or a link labelled as a version).",
		"Version history is for reviewers, not for the commit that is kept forever.",
		"move the link below the --- line or into the cover letter." },
	[R_LINK_TO_OWN_SERIES] = {
		"a Link: to this series' own cover letter or another patch of it (an ID in In-Reply-To/References).",
		"A link back into the same series adds nothing once the series is applied.",
		"drop it, or put what it explains into the commit message." },
	[R_LINK_SHOULD_BE_CLOSES] = {
		"a Link: to a bug tracker entry (bugzilla, GitHub or GitLab issues, Launchpad, syzkaller, Debian bugs).",
		"Closes: tells trackers and readers that this patch fixes the report.",
		"use Closes: when the patch fixes the report; keep Link: for a partial fix." },
	[R_PROVENANCE_LINK] = {
		"in a fresh posting, a Message-ID: trailer or a Link: to patch.msgid.link.",
		"These are added when a patch is applied and only point back at a submission.",
		"drop them from the patch you send; the maintainer's tools add them." },
	[R_LINK_NO_NEW_INFO] = {
		"a Link: to an archived patch posting whose thread holds no reply from anyone but its author (only with lookups enabled).",
		"A Link: belongs in a commit only when it leads to information the commit does not hold.",
		"drop the link, or link the discussion that matters." },
	[R_LINK_DEAD] = {
		"a Link: or Closes: URL that answers 404 or 410, or whose host does not resolve (only with lookups enabled; timeouts never count).",
		"A dead link leaves readers of the commit with nothing.",
		"fix the URL, or link an archive copy (lore.kernel.org)." },
	[R_COMMIT_LOG_WRONG_LINK] = {
		"a Link: or Closes: whose value is not a plain http(s) URL (in <>, without scheme, or a bare Message-ID).",
		"Tools and people follow the URL as it is written.",
		"write the plain URL; for a Message-ID use https://lore.kernel.org/r/<id>." },
	[R_COMMIT_LOG_USE_LINK] = {
		"a made-up link tag before a URL: BugLink:, Bug:, Bugzilla:, References:, URL:, Patchwork:, Bug-Link:, lower-case link:.",
		"Only Link: and Closes: are documented, so only they are understood by tools.",
		"use Link: or Closes:." },
	[R_PREFER_LORE_ARCHIVE] = {
		"a URL to an old mail archive (lkml.org, marc.info, spinics.net, mail-archive.com, pipermail, hypermail).",
		"Those archives come and go; lore.kernel.org keeps every list and finds a mail by Message-ID.",
		"link the same mail as https://lore.kernel.org/r/<Message-ID>." },
	[R_COMMIT_MESSAGE] = {
		"a commit message with no description besides its trailer block.",
		"The commit message is where the why of the change is kept.",
		"describe what the patch changes and why." },
	[R_COMMIT_LOG_VERSIONING] = {
		"version notes above the --- line (vN:, vN -> vM, Changes in vN, Changes since vN, Changelog:).",
		"Notes above --- end up in the commit; they are only of use during review.",
		"move the version notes below the --- line." },
	[R_BAD_COMMIT_SEPARATOR] = {
		"a commit-message line of \"--- \" and more text, which is not a diff header.",
		"git am takes such a line for the start of the diff and drops the rest of the commit message.",
		"reword or indent the line." },
	[R_COMMIT_COMMENT_SYMBOL] = {
		"a commit-message line starting with # other than a trailer comment.",
		"git drops lines starting with # when it commits, so the text is lost.",
		"indent the line or reword it so it does not start with #." },
	[R_GERRIT_CHANGE_ID] = {
		"a Change-Id: trailer.",
		"Gerrit's IDs mean nothing in the kernel's history.",
		"drop the Change-Id: line (and the Gerrit commit hook)." },
	[R_EMAIL_SUBJECT] = {
		"a subject that names the tool that found the problem (checkpatch, sparse, smatch, coccinelle) instead of the change.",
		"The subject is the one line most readers see; it should say what the change does.",
		"say what the patch changes, e.g. \"leds: foo: drop unused variable\"." },
	[R_PLACEHOLDER_USE] = {
		"a cover letter or patch still holding *** SUBJECT HERE *** or *** BLURB HERE ***.",
		"The placeholders of git format-patch --cover-letter were meant to be replaced.",
		"fill in the subject and the text of the cover letter and send it again." },
	[R_PASTED_FORMAT_PATCH] = {
		"a mail whose text is a pasted git format-patch file (From <sha> Mon Sep 17 00:00:00 2001, From:, Subject:).",
		"A pasted file reaches git am with a mail client's changes (wrapping, white space) and its headers inside the body.",
		"send the patch with git send-email (or b4 send) instead of pasting the file into a mail." },
};

static int explain_custom(const char *id, const struct rule_settings *s,
			  struct reply_explain *out)
{
	for (size_t i = 0; s && i < s->ncustom; i++) {
		const struct custom_rule *r = &s->custom[i];

		if (strcasecmp(r->id, id))
			continue;
		out->id = r->id;
		out->known = true;
		out->severity = severity_name(r->severity);
		out->summary = "A rule of this installation's configuration.";
		out->checks = r->must_match ? "a mail where the configured pattern does not match."
					    : "a mail where the configured pattern matches.";
		out->why = "The list's administrator asks for it.";
		out->fix = r->message;
		out->doc = r->doc ? r->doc : "";
		return 0;
	}
	return -1;
}

int ccmode_explain(const char *id, const struct rule_settings *s, struct reply_explain *out)
{
	int i = id ? rule_find(id) : -1;

	memset(out, 0, sizeof(*out));
	out->id = id ? id : "";
	out->doc = "";
	if (i < 0)
		return id ? explain_custom(id, s, out) : -1;
	out->id = rule_defs[i].id;
	out->known = true;
	out->severity = severity_name(s ? s->severity[i] : rule_defs[i].severity);
	out->summary = rule_defs[i].summary;
	out->checks = rule_texts[i].checks;
	out->why = rule_texts[i].why;
	out->fix = rule_texts[i].fix;
	out->doc = rule_defs[i].doc;
	return 0;
}
