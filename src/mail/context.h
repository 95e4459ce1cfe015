/*
 * context.h - what the store remembers of every message the daemon sees:
 * enough to group a series, to link versions of one work, to name a
 * thread, without keeping the mail itself.
 *
 * Every string is bounded (CONTEXT_*_MAX) and cleaned of control
 * characters, so a hostile header cannot bloat the store or smuggle a line
 * break into a log line.
 *
 * change_id: the b4 change-id, reduced to its slug so the footer of a cover
 * letter and the Message-IDs b4 gives its patches agree: the footer
 * "20241031-must_check-devm_mutex_init-cac583bda8fe" and the Message-ID
 * "20250204-must_check-devm_mutex_init-v2-1-7b6271c4b7e6@weissschuh.net"
 * both give "must_check-devm_mutex_init".  NULL when neither is there.
 */
#ifndef TAGBOT_CONTEXT_H
#define TAGBOT_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/err.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "mail/msgid.h"

#define CONTEXT_SUBJECT_MAX	512	/* bytes of the subject kept */
#define CONTEXT_ADDR_MAX	254	/* bytes of the sender's address kept */
#define CONTEXT_LIST_ID_MAX	255	/* bytes of the list id kept */
#define CONTEXT_CHANGE_ID_MAX	200	/* bytes of a change-id slug */
#define CONTEXT_REFS_MAX	20	/* References kept: the first and the last 19 */

struct msg_context {
	char *message_id;	/* owned; normalized key (msgid_key) */
	char *subject;		/* owned; subject without "Re:" and the [PATCH ...] prefix */
	char *sender;		/* owned; the real author's address, lower-cased */
	char *kind;		/* owned; patch_kind_name() */
	int version, index, total;	/* version 1 when unlabelled; 0/0 when no n/m */
	char *change_id;	/* owned; b4 change-id footer or b4 Message-ID stem; NULL */
	char *in_reply_to;	/* owned; normalized; NULL */
	char *references;	/* owned; normalized keys separated by one space; NULL */
	char *list_id;		/* owned; List-Id / X-Mailing-List id, NULL */
	time_t time;
};

/* All fields NULL / 0 (version 1). */
void msg_context_init(struct msg_context *c);
void msg_context_release(struct msg_context *c);

/* The context of one checked part of a parsed mail.  m may be NULL (then
 * p->msg is used).  out is released first.  message_id is NULL when the
 * patch has no usable Message-ID (the caller keys the row itself). */
void context_from_patch(const struct message *m, const struct patch *p, time_t now,
			struct msg_context *out);

/* The subject of p as the context keeps it (msg_context.subject: without
 * the bracket prefix, cleaned, capped); malloc'ed, "" when none. */
char *context_subject(const struct patch *p);

/* The change-id slug of a b4 "change-id:" footer value, or of a b4-style
 * Message-ID; malloc'ed, NULL when s has neither form. */
char *context_change_slug_footer(const char *s);
char *context_change_slug_msgid(const char *msgid);

/* The thread's root key: the first References key, else In-Reply-To, else
 * the message itself; malloc'ed, NULL when c has none of them. */
char *context_thread_root(const struct msg_context *c);

/* Whether key is c's In-Reply-To or one of its References. */
bool context_refers_to(const struct msg_context *c, const char *key);

/* Whether c is the context of the mail whose Message-ID is msgid, in any
 * form the store takes as the same (msgid_key(): with or without
 * "<>", the domain in any case).  c->message_id is a store key, so a plain
 * strcmp() against a header's Message-ID fails on "@EXAMPLE.COM". */
bool context_is_of(const struct msg_context *c, const char *msgid);

#endif
