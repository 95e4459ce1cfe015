/*
 * settings.h - what the caller tells the reply folder: the bot's
 * addresses, whom to answer, what to leave out.  A small const struct the
 * daemon fills from the configuration (config/ knows the ini file; nothing
 * in reply/ does):
 *
 *	struct reply_settings rs;
 *
 *	reply_settings_init(&rs);
 *	rs.from = "tagbot <tagbot@example.org>";
 *	rs.to = REPLY_TO_AUTHOR_LIST;
 *	reply_build(&r, patch, &findings, &rs, time(NULL), &e);
 */
#ifndef TAGBOT_REPLY_SETTINGS_H
#define TAGBOT_REPLY_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"

struct recipients;

/* Whom a reply goes to (the ini key [reply] to). */
enum reply_to {
	REPLY_TO_AUTHOR,	/* "author": To the author only */
	REPLY_TO_AUTHOR_LIST,	/* "author+list": Cc the list the patch came from */
	REPLY_TO_ALL		/* "all": Cc the list, the sender and the patch's To and Cc */
};

/* Parses "author", "author+list", "all"; -1 when unknown. */
int reply_to_parse(const char *s, enum reply_to *out);

struct reply_settings {
	const char *from;		/* foreign; "tagbot <tagbot@example.org>" */
	enum reply_to to;
	const char *reply_to;		/* foreign; an address for Reply-To, NULL or "" for none */
	const char *footer;		/* foreign; footer text (LF lines), NULL for the default */
	const char *msgid_domain;	/* foreign; NULL: the domain of from */
	enum severity min_severity;	/* findings below it are left out */
	const char *const *bot_addresses; /* foreign; never put in Cc (from is implied) */
	size_t nbot_addresses;
	bool cc_author;			/* Cc the in-body From: author (recipients.h) */
	const char *list_address;	/* foreign; the mail's configured list's address
					 * ([list ID] address), Cc'd per to; NULL: none */
	const char *const *list_addresses; /* foreign; every configured list's address:
					    * never answered */
	size_t nlist_addresses;
	/* foreign, or NULL: whom a reply to one patch goes to, as
	 * recipients_find() found it with these settings -- a caller that
	 * decides a patch in several steps finds it once (recipients_of()).
	 * Only ever read for that patch (who->of). */
	const struct recipients *who;
};

/* from "tagbot <tagbot@localhost.localdomain>", to author, no Reply-To,
 * default footer, min_severity warning. */
void reply_settings_init(struct reply_settings *s);

#endif
