/*
 * patch.h - a parsed message -> what a maintainer sees: kind, subject tags,
 * author, commit message, trailers, the diff (tagbot-rules(7) THE MODEL).
 *
 * A mail that holds several patches (an mbox pasted into the body, a
 * second patch after a scissors line, or several patch attachments: see
 * message.h text and more) yields several struct patch, one per part, each
 * with its own commit message and trailers.  Each attachment is split on
 * its own, in MIME order, and its parts name it (attachment).
 *
 * Splitting: a part starts after a "From <40 hex> ..." line (git
 * format-patch's mbox line; the pasted headers up to the first blank line
 * are read as in-body headers, any name allowed, so a pasted format-patch
 * file's From: is the author and its Subject: the subject) or after a scissors line
 * as git mailinfo defines one ("-- >8 --", "-- >8 -- cut here -- >8 --",
 * marks ">8", "8<", ">%", "%<") that stands above the part's patch start,
 * or anywhere when an in-body From:/Subject:/Date: follows it.  As git am
 * --scissors does, the text above such a cut is chat and is dropped when
 * it holds no diff; so is the first part (the text above the first split).
 * A part without an in-body Subject: has the mail's subject.
 *
 * Only submissions are patches.  The mail's own headers decide the kind of
 * every part of it, attachments and pasted or scissors patches included:
 *
 *  (a) a reply: every part is KIND_REPLY (never checked, never answered),
 *      whatever it holds, when the mail's Subject
 *        - opens with a reply or forward prefix (patch_subject_is_reply():
 *          Re, RE, Aw, AW, Fwd, Fw, WG, Sv, VS, Odp, Antw, Ynt, Rif, Tr,
 *          回复, 答复, 回覆, 转发, any case, ASCII or full-width colon;
 *          another 2-3 letter word only before a '['), or
 *        - holds "(was: ...)" or "[Was: ...]" anywhere, and does not open
 *          with a patch prefix ("[PATCH v2] foo (was: bar)" renamed a patch), or
 *        - has no patch prefix (nor [GIT PULL]), the mail has a non-empty
 *          In-Reply-To: and its own words quote (message.h body_quotes):
 *          a reply whose client dropped the "Re:".
 *  (b) a pull request: every part is KIND_PULL when the Subject has
 *      [GIT PULL], or a [GIT] group and the mail's text holds git
 *      request-pull's "are available in the Git repository at" and a URL.
 *  (c) no submission: a part is KIND_OTHER, even one holding a diff
 *      inline or attached, when the mail's Subject has no patch prefix (a
 *      leading bracket group holding the word PATCH, or RFC with an n/m:
 *      "[PATCH]", "[RFC PATCH v2 1/3]", "[net-next PATCH]", "[PATCHv2]",
 *      "[PATCH 6.1.y]"; reply prefixes before it skipped; one bracket
 *      missing, "PATCH] foo" or "[PATCH foo", still counts) and the part
 *      is no git format-patch body (a Signed-off-by: in the trailer block,
 *      the "---" separator, a diffstat and the diff), which older git
 *      send-email and format-patch -k send without a prefix.  A question
 *      with a sketch diff, a bug report with a tentative fix, or "Please
 *      apply <commit> to 6.1" with the backport attached carries neither.
 *      A part's in-body Subject: never makes a mail a submission.
 *      tagbot check still runs the rules on such a part when it holds a
 *      diff (patch_checkable()); the daemon answers only KIND_PATCH and
 *      KIND_COVER.
 *  (d) otherwise each part is KIND_PATCH (a diff), KIND_COVER ([... 0/N],
 *      no diff) or KIND_OTHER.
 *
 * In-body headers (From:, Date:, Subject: at the top of a part, folded
 * lines joined, RFC 2047 decoded) end at a blank line or at the first line
 * that is not one of them.  As in git mailinfo, they name the author and
 * the subject only when something follows the part's patch separator (a
 * diff, a diffstat); otherwise they are dropped from the text and the
 * mail's headers count.  The header From: is a relay when its address
 * starts "devnull+" or its name ends " via <something>" ("via B4 Relay",
 * "via Linux-leds"); then the author is X-Original-From:, else Reply-To:
 * (a bare address there keeps the From: name without " via ..."), else
 * the From: address with the " via ..." cut from the name.  An in-body
 * From:, or the one header From: when there is no in-body one and no
 * relay took over, that is not one well-formed mailbox gives the author
 * git am records from it (address_recover(), person_git_ident()), and
 * bad_from keeps it: git mailinfo takes that From: whatever it holds.
 */
#ifndef TAGBOT_PATCH_H
#define TAGBOT_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/address.h"
#include "mail/message.h"
#include "mail/trailer.h"

#define PATCH_MAX_PARTS		64	/* patches split out of one mail */
#define PATCH_MAX_LINES		200000	/* commit-message lines looked at */
#define PATCH_MAX_TRAILERS	10000	/* trailers parsed; more are ignored */

enum patch_kind {
	KIND_PATCH,
	KIND_COVER,
	KIND_REPLY,
	KIND_PULL,
	KIND_OTHER
};

/* "patch", "cover", "reply", "pull", "other". */
const char *patch_kind_name(enum patch_kind k);

struct patch;

/* Whether tagbot check runs the rules on p: a patch or cover letter, or a
 * diff in a mail that is no submission ((c) above: KIND_OTHER with
 * has_diff), since whoever runs check asked for it. */
bool patch_checkable(const struct patch *p);

struct series {
	int version;	/* 1 when not given */
	int index;	/* 0 when not given */
	int total;	/* 0 when not given */
	bool rfc;
	bool resend;
	bool prefixed;	/* a bracket group holds PATCH, or RFC with an n/m: a patch prefix */
	char **tags;	/* owned; other bracket tags ("net-next", "6.1", "AUTOSEL") */
	size_t ntags;
};

/* Which separator ended the commit message. */
enum patch_sep {
	SEP_NONE,	/* no separator: the commit message runs to the end */
	SEP_DASHES,	/* "---" */
	SEP_DIFF,	/* "diff -" */
	SEP_INDEX,	/* "Index: " */
	SEP_SCISSORS	/* "-- >8 --" (only when more parts than PATCH_MAX_PARTS,
			 * or in a bare commit message) */
};

struct patch {
	const struct message *msg;	/* foreign: the mail this came from */
	enum patch_kind kind;

	char *subject;		/* owned; full decoded subject (in-body Subject: wins) */
	char *subject_body;	/* owned; the title: subject without reply prefixes,
				 * bracket groups and colons in front (git mailinfo's
				 * cleanup_subject(), reply prefixes in any language) */
	char *message_id;	/* owned; without <>, "" when absent */
	char *in_reply_to;	/* owned; without <>, "" when absent */
	char **references;	/* owned; Message-IDs without <>, in order */
	size_t nreferences;
	char *list_id;		/* owned; the list ID (mail_list_id(): List-Id or
				 * X-Mailing-List, lower case), "" when none */

	struct person author;	/* owned; the real author (in-body From:, relay rules) */
	struct person sender;	/* owned; the header From: as written */
	bool author_from_body;	/* author came from an in-body From: */
	char *bad_from;		/* owned; NULL, or the From: (RFC 2047 decoded) the
				 * author was read from when it is not one
				 * well-formed mailbox: the author is then what git
				 * am records, to be named in a finding, never
				 * mailed (recipients_find()) */
	struct line pasted;	/* the "From <40 hex> Mon Sep 17 00:00:00 2001" line
				 * above the part when the part is a git format-patch
				 * file pasted into the text, not attached (From: and
				 * Subject: follow it); len 0 otherwise */
	struct series series;	/* owned */

	const char *text;	/* foreign: this part's text inside msg->text, or inside
				 * msg->more[].text for a further attachment */
	size_t text_len;
	size_t first_lineno;	/* line number of text[0] in that text (lines of
				 * each attachment count from 1) */
	const char *attachment;	/* foreign: the file name of the attachment the part
				 * is in (msg->text_name, msg->more[].name), "" when
				 * inline or unnamed */

	struct line *lines;	/* owned array (pointing into text): the commit message */
	size_t nlines;
	size_t block_start;	/* index into lines of the trailer block; nlines if none */
	size_t block_end;	/* index past its last line; nlines if none.  Below it
				 * only blank lines, '#' comments and an old
				 * "Conflicts:" list (trailer_block_find()) */
	struct trailer *trailers; /* owned; see trailers_parse() */
	size_t ntrailers;

	enum patch_sep sep;
	size_t sep_lineno;	/* line of the separator, 0 if none */
	const char *after;	/* foreign: text after the separator (notes, diffstat, diff);
				 * for SEP_DIFF and SEP_INDEX it starts at the separator
				 * line itself (that line is the diff's first) */
	size_t after_len;
	bool has_diff;		/* a unified diff is in after ("diff --git", or "--- ",
				 * "+++ ", "@@ " lines in a row) */
	char *change_id;	/* owned; b4 "change-id:" footer value, "" when absent */
};

/*
 * Splits and parses msg into up to PATCH_MAX_PARTS patches.  *out receives a
 * new array of *nout patches (at least one: a mail with no patch gives one
 * struct of kind cover/reply/pull/other).  Free with patches_free().
 */
void patch_parse(const struct message *msg, struct patch **out, size_t *nout);
void patches_free(struct patch *p, size_t n);

/* Parses a bare commit message (for --commit-msg): kind is KIND_PATCH with
 * no headers; text is borrowed from msg->text.  As git does when it commits:
 * lines starting with '#' are comments and left out of everything (so
 * COMMIT_COMMENT_SYMBOL cannot apply to them), and a "# ----- >8 -----"
 * line (git commit --verbose) and all after it is cut (sep SEP_SCISSORS,
 * after = the rest).  The subject is the first paragraph, as git log's %s
 * shows it: its lines, each without its trailing white space, joined by one
 * space ("line one\nline two\n\nBody." has the subject "line one line
 * two"); lines start after the blank line that ends it, at the first
 * non-blank line.  "---" is no separator here.  Author and sender are
 * empty; IDs are "". */
void patch_parse_commit_msg(const struct message *msg, struct patch *out);

/*
 * Parses a subject's bracket prefix into *s (owned fields) and returns the
 * offset of the subject body. Exposed for tests and for the store.
 * Reply prefixes come first ("Re: AW: [PATCH ...]" sets *is_reply); then
 * bracket groups: PATCH, RFC, RESEND, "GIT PULL"/PULL (*is_pull), vN/VN,
 * n/m, glued forms (PATCHv2, PATCH1/8, RFCv2); other words are tags.
 * is_reply and is_pull may be NULL.
 */
size_t patch_parse_subject(const char *subject, struct series *s, bool *is_reply, bool *is_pull);
void series_release(struct series *s);

/* True when the subject starts with a reply/forward prefix (Re:, AW:, Fwd: ...).
 * Known words (Re, Aw, Fwd, Fw, WG, SV, VS, Odp, Antw, Ynt, Rif, Tr, 回复,
 * 答复, 回覆, 转发, any case, "Re[2]:" too, ':' or the full-width '：')
 * always count; another 2-3 letter word followed by ':' only when a '['
 * follows ("Odg: [PATCH"), so "net: fix" is no reply.  This is the
 * Subject's part of rule (a) above, not the whole of it. */
bool patch_subject_is_reply(const char *subject);

/*
 * True when only continuation lines or # comments stand between trailers a
 * and b of p (a before b): they belong together, as a Reported-by: and its
 * Closes:, or a Co-developed-by: and its Signed-off-by:.
 */
bool patch_trailers_adjacent(const struct patch *p, const struct trailer *a,
			     const struct trailer *b);

/*
 * The submitter of p's mail: the header From:, but behind a relay (as for
 * the author above) X-Original-From:, else Reply-To:.  0 and *out filled
 * (owned: person_release); -1 when no well-formed address is known (out's
 * fields "").  Unlike recipients_find(), which mails this person and so
 * believes " via " only of a configured list, this only names someone in
 * a finding (SUBMITTER_SIGN_OFF), so it reads the mail as patch_parse() does.
 */
int patch_submitter(const struct patch *p, struct person *out);

/*
 * The From: the sender wrote before their mail provider rewrote it to the
 * account it authenticated (Gmail keeps it in X-Google-Original-From:):
 * 0 and *out filled (owned: person_release) when the mail has exactly one
 * such header, holding one well-formed mailbox whose address is not the
 * header From:'s; else -1 (out's fields "", owned all the same).  It only
 * tells what to say about the author's sign-off; git am records the
 * rewritten From:, and no reply is ever addressed from it.
 */
int patch_provider_original(const struct patch *p, struct person *out);

#endif
