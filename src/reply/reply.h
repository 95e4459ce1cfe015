/*
 * reply.h - the face of reply/: whether (policy.h), to whom (recipients.h,
 * ccmode.h for maintainer commands) and what to answer (this file), from
 * the settings the caller gives (settings.h).  Pure: no I/O, no store.
 *
 * Findings + the patch they are about -> a complete threaded
 * reply (RFC 5322, RFC 3834) and its envelope.  Pure: the caller records
 * the reply (store_record_reply) before any sink sends it.
 *
 * Headers: From (the bot), To (the real author, tagbot-rules(7) THE MODEL), Cc
 * (per settings->to), Reply-To (when set), Subject "Re: <original>" (no
 * second Re:), Date, Message-ID (new, on the bot's domain), In-Reply-To,
 * References, Auto-Submitted: auto-generated, X-Mailer, X-Tagbot-Rules,
 * MIME-Version, Content-Type text/plain; charset=UTF-8 and
 * Content-Transfer-Encoding.  Lines end in CRLF; long headers are folded at
 * 78 columns, never past 998; non-ASCII header text is RFC 2047 encoded.
 *
 * Transfer encoding: 7bit when the body is ASCII with lines of at most 998
 * octets (the common case: readable as it is), quoted-printable otherwise.
 * Not 8bit: a reply may go through SMTP servers without 8BITMIME, and
 * libcurl does not negotiate it, so 8bit would be a protocol violation there.
 *
 * Body: a greeting by name, one paragraph per finding at or above
 * settings->min_severity (the offending line quoted with "| ", the
 * message, the document), and a footer.  Every line we write ourselves is
 * indented or starts with a word that is not a trailer token, so b4 and
 * patchwork never harvest a tag from the reply.
 *
 * Security: nothing from the incoming mail can add a header, a recipient or
 * a line break to the headers.  Every value taken from it (Subject, names,
 * addresses, Message-IDs, References) has control characters replaced
 * before use; addresses and Message-IDs must pass the strict checks below
 * or are dropped (a Message-ID with a space, quote or CR LF is left out of
 * References, not copied).
 */
#ifndef TAGBOT_REPLY_H
#define TAGBOT_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/err.h"
#include "mail/patch.h"
#include "reply/settings.h"
#include "rules/rules.h"

#define REPLY_MAX_REFERENCES	20	/* the first (the thread root) and the last 19 */
#define REPLY_MAX_RCPT		50	/* envelope recipients; more Cc are dropped */
#define REPLY_MAX_FINDINGS	30	/* paragraphs; the rest are counted */
#define REPLY_SUBJECT_MAX	512	/* bytes of the original subject kept */
#define REPLY_NAME_MAX		128	/* bytes of a display name kept */
#define REPLY_QUOTE_MAX		400	/* bytes of an offending line quoted */
#define REPLY_WRAP		72	/* body text column */

struct reply {
	char *msgid;		/* owned; the new Message-ID, without <> */
	char *envelope_from;	/* owned; the bot's addr-spec (MAIL FROM) */
	char **rcpt;		/* owned; To then Cc addr-specs, no duplicates (RCPT TO) */
	size_t nrcpt;
	char *raw;		/* owned; the whole mail, CRLF, NUL-terminated */
	size_t len;
	size_t nfindings;	/* findings the reply talks about */
};

/* Allocates nothing. */
void reply_init(struct reply *r);
void reply_release(struct reply *r);

/*
 * Builds the reply to parent about f at time now.  parent->msg (when set)
 * supplies the original Subject, To, Cc and list headers.  Fails with
 * ERR_FINAL when no finding reaches min_severity, when settings->from is not
 * a valid address, or when the patch has no valid address to reply to.
 */
int reply_build(struct reply *r, const struct patch *parent, const struct findings *f,
		const struct reply_settings *s, time_t now, struct err *e);

/* --- the checks, exposed for tests and for the policy ------------------ */

/* --- maintainer Cc mode ------------------------------------------------ */

#define REPLY_MAX_EXPLAIN	8	/* explain sections in one reply */

/* One "tagbot: explain RULE_ID" answer; ccmode_explain() fills it. */
struct reply_explain {
	const char *id;		/* foreign; the rule ID asked about */
	bool known;		/* false: no such rule (the reply says so) */
	const char *severity;	/* foreign; its severity here ("off" ...) */
	const char *summary;	/* foreign; what the rule asks */
	const char *checks;	/* foreign; when it fires */
	const char *why;	/* foreign */
	const char *fix;	/* foreign */
	const char *doc;	/* foreign; the document and section, "" when none */
};

/* What a Cc-mode reply answers. */
struct reply_cc {
	const struct patch *request;	/* foreign; the mail that reached the bot: the
					 * reply goes To its sender, under it in the thread */
	const struct patch *patch;	/* foreign; the patch checked; NULL when none */
	const struct findings *findings; /* foreign; of patch; NULL: not checked */
	const struct reply_explain *explain; /* foreign; nexplain answers */
	size_t nexplain;
	const char *note;		/* foreign; one sentence (why nothing was checked) or NULL */
};

/*
 * Builds the Cc-mode reply: From the bot, To the request's sender, Cc per
 * s->to: the patch's author always (the author's copy is the point), with
 * author+list also the list of the request, with all also the request's To
 * and Cc; Subject "Re: " the request's subject; In-Reply-To the request,
 * References the request's extended by it.  Body: the check of the patch
 * (its findings at or above min_severity, or "No tag problems found."),
 * then the explain sections, then the note.  ERR_FINAL when there is
 * nothing to say, from is invalid or the request's sender has no valid
 * address.
 */
int reply_build_cc(struct reply *r, const struct reply_cc *c, const struct reply_settings *s,
		   time_t now, struct err *e);


/* --- series replies (reply_mode = per-series) -------------------------- */

/* reply_build_series()'s total for the replies a rate limit held back for
 * one recipient: unrelated patches, listed by subject, not a series. */
#define REPLY_HELD	0
/* ... and for one mail that holds several patches (attachments, a pasted
 * mbox, a scissors patch): parts by subject, the attachment's file name in
 * it, under the mail's subject. */
#define REPLY_PARTS	(-1)

/* One part of a series, in the order the reply lists them. */
struct reply_series_part {
	int index;			/* 0: the cover letter */
	const char *subject;		/* foreign; without its prefix; NULL: did not arrive */
	const struct findings *findings; /* foreign; NULL when it did not arrive */
};

/* What a series reply answers. */
struct reply_series {
	const struct patch *lead;	/* foreign; the cover letter, else the first
					 * patch: the reply goes under it */
	const struct reply_series_part *parts;	/* foreign; n of them, in order */
	size_t n;
	int total;			/* the series' size (the 5 of 2/5), REPLY_HELD
					 * or REPLY_PARTS (above) */
};

/*
 * The one reply to series sr: headers as reply_build() gives them for
 * sr->lead, a body listing the findings at
 * or above s->min_severity patch by patch (at most REPLY_MAX_FINDINGS in
 * all), one item per distinct finding (finding_key() and what it says,
 * case and white space aside) at the first part
 * that has it, naming the other parts and lines; one line counting the
 * parts with no finding at all, and one sentence naming the parts that
 * did not arrive ("were not on the list", as ranges).  A part
 * whose findings are all said at an earlier part, told before (off) or
 * below s->min_severity is left out.  sr->total is the series' size,
 * REPLY_HELD for held replies folded into one (parts by subject), or
 * REPLY_PARTS for the patches of one mail.
 * Fails with ERR_FINAL as reply_build() does, also when no part has a
 * finding to report.
 */
int reply_build_series(struct reply *r, const struct reply_series *sr,
		       const struct reply_settings *s, time_t now, struct err *e);

#endif
