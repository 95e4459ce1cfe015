/*
 * config.h - the face of config/ (config.h, listpolicy.h for per-list
 * settings, secret.h for passwords): the only folder that includes
 * iniparser.  It hands each lower folder a small struct of its own
 * (rule_settings, reply_settings, lookup_settings, ...); nothing below
 * daemon/ and cli/ includes a header of this folder.
 *
 *	struct config c;
 *
 *	if (config_load(&c, path, &e) < 0)
 *		return -1;			// e names file, section and key
 *	rules_run(p, &c.rules, &findings);
 *	config_release(&c);
 *
 * The ini file (iniparser) -> a typed struct config.  The only
 * module that includes iniparser.
 *
 * Every error names the file, the section and the key.  An unknown section,
 * key or rule ID is an error: a typo must never silently disable a rule.
 * Without a file, config_init() gives the embedded default severities.
 *
 * Sections: [rules] (severities, URL pattern lists, reported_by_followers),
 * [lookup] (enabled), one [rule ID] section per custom rule, and the
 * daemon's [tagbot], [source], [sink] and [reply], and the per-list
 * [default] and [list ID] (struct list_policy).  Each key is one row of
 * the key tables in keys.c; etc/tagbot.ini and tagbot.ini(5) document
 * every key with its default.
 *
 * Paths (state, path, ca_file, password_file) that are relative are taken
 * relative to the directory of the ini file, so a configuration can travel
 * with the files it names; config_load() stores them resolved.
 *
 * Checks made at load, so a daemon never starts (or reloads) half-right:
 * the keys a type needs are set (host and user for imap, path for a
 * Maildir, url for smtp); tls = none only for a loopback host (127.0.0.0/8,
 * ::1, localhost; imap_source and smtp_sink check the resolved addresses
 * again); at most one of password_file and password_command; a
 * password_file must be private (secret.h refuses one readable by group or
 * others); from, reply_to and copy_to are addresses.
 */
#ifndef TAGBOT_CONFIG_H
#define TAGBOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "lib/log.h"
#include "mail/listid.h"
#include "transport/lookup.h"
#include "reply/reply.h"
#include "rules/rules.h"

#define CONFIG_MAX_BYTES	(1024 * 1024)	/* an ini file larger than this is refused */
#define CONFIG_MAX_PATTERNS	64	/* patterns in one list key */
#define CONFIG_MAX_CUSTOM	256	/* [rule ID] sections */
#define CONFIG_MAX_ID		64	/* characters of a custom rule ID */
#define CONFIG_MAX_LIST		256	/* addresses in bot_addresses, ignore_senders */
#define CONFIG_DEFAULT_STATE	"/var/lib/tagbot/tagbot.db"
#define CONFIG_DEFAULT_RESEND_AFTER 120	/* seconds before an unconfirmed reply is resent */
#define CONFIG_DEFAULT_CONNECT_TIMEOUT 10 /* [sink]: seconds up to a greeted, logged-in session */
#define CONFIG_DEFAULT_SOURCE_TIMEOUT 60 /* [source]: seconds a server may keep us waiting */
#define CONFIG_DEFAULT_MAX_MESSAGE ((int)25 * 1024 * 1024) /* [source]: bytes of one mail */
#define CONFIG_MIN_MAX_MESSAGE	(64 * 1024)	/* max_message_size: its range, up to the */
#define CONFIG_MAX_MAX_MESSAGE	((int)128 * 1024 * 1024) /* parser's MESSAGE_MAX_SIZE */
#define CONFIG_DEFAULT_RETRY_AFTER 300	/* [source]: seconds before mail not delivered is
					 * asked for again (then twice as long each time) */
#define CONFIG_DEFAULT_SERIES_WAIT 600	/* seconds a per-series reply waits for missing patches */
#define CONFIG_MAX_SERIES_WAIT	(7 * 86400) /* its cap: a week */
#define CONFIG_MAX_REPEAT_AFTER	180	/* days: as long as the state keeps what was told */
#define CONFIG_MAX_LISTS	256	/* [list ID] sections */
#define CONFIG_MAX_LIST_ID	MAIL_LIST_ID_MAX /* bytes of a list ID (section name or header) */
#define CONFIG_MAX_SOURCES	32	/* [source NAME] sections */
#define CONFIG_MAX_SOURCE_NAME	32	/* bytes of a source's NAME */
#define CONFIG_MAX_GROUP	255	/* bytes of one NNTP group name or wildmat */

enum source_type {
	SOURCE_MAILDIR = 0,	/* the embedded default: no servers */
	SOURCE_IMAP,
	SOURCE_NNTP
};

enum sink_type {
	SINK_MAILDIR = 0,	/* the embedded default */
	SINK_SMTP
};

/* tls = implicit|starttls|none; DEFAULT: implicit for IMAP, from the URL
 * scheme for SMTP (smtps:// implicit, smtp:// starttls). */
enum config_tls {
	CONFIG_TLS_DEFAULT = 0,
	CONFIG_TLS_IMPLICIT,
	CONFIG_TLS_STARTTLS,
	CONFIG_TLS_NONE
};

/* "implicit", "starttls", "none" (and "default"). */
const char *config_tls_name(enum config_tls t);

/* [tagbot] */
struct config_tagbot {
	char *state;			/* owned; the SQLite file, resolved, or a
					 * postgresql:// URL (as written) */
	char *state_password_file;	/* owned; resolved; PostgreSQL's password */
	char *state_password_command;	/* owned; run with /bin/sh -c */
	enum log_target log;		/* stderr */
	enum log_level log_level;	/* info */
	enum severity min_reply_severity; /* warning */
	bool dry_run;			/* no */
};

/* A list key: comma-separated values, trimmed. */
struct config_list {
	char **v;			/* owned */
	size_t n;
	bool set;			/* the key was given (possibly empty) */
};

/* [source] or [source NAME] */
struct config_source {
	char *name;			/* owned; NAME, or NULL for [source] */
	enum source_type type;
	char *host;			/* owned; imap, nntp */
	int port;			/* 0: imap 993 implicit, 143 otherwise;
					 * nntp 563 implicit, 119 otherwise */
	enum config_tls tls;
	char *ca_file;			/* owned; NULL: the system store */
	char *user;			/* owned */
	char *password_file;		/* owned; resolved */
	char *password_command;		/* owned; run with /bin/sh -c */
	char *folder;			/* owned; "INBOX" */
	bool idle;			/* yes */
	int poll_interval;		/* seconds; 60 */
	bool mark_seen;			/* no */
	bool backfill;			/* no: start at UIDNEXT / only new/ */
	char *path;			/* owned; maildir, resolved */
	int batch;			/* messages per fetch and transaction; 50 */
	int timeout;			/* imap, nntp: seconds a connect or a read or
					 * write may wait; CONFIG_DEFAULT_SOURCE_TIMEOUT */
	int max_message_size;		/* bytes; larger mail is read past and skipped;
					 * CONFIG_DEFAULT_MAX_MESSAGE */
	int retry_after;		/* seconds; CONFIG_DEFAULT_RETRY_AFTER; 0: every poll */
	struct config_list groups;	/* owned; nntp: group names and wildmats */
};

/* [sink] */
struct config_sink {
	enum sink_type type;
	char *url;			/* owned; smtp://host:port or smtps://host:port */
	enum config_tls tls;
	char *ca_file;			/* owned */
	char *user;			/* owned */
	char *password_file;		/* owned; resolved */
	char *password_command;		/* owned */
	char *path;			/* owned; maildir, resolved */
	char *copy_to;			/* owned; extra envelope recipient (the bot's
					 * mailbox); NULL: the address of [reply] from */
	char *copy_folder;		/* owned; where that copy lands; "INBOX" */
	int resend_after;		/* seconds; CONFIG_DEFAULT_RESEND_AFTER */
	int connect_timeout;		/* seconds; CONFIG_DEFAULT_CONNECT_TIMEOUT */
};

/* [reply] reply_mode = per-patch|per-series */
enum reply_mode {
	REPLY_PER_PATCH = 0,	/* one reply per patch mail */
	REPLY_PER_SERIES	/* one reply per series, to the cover letter or first
				 * patch (the default) */
};

/* "per-patch", "per-series". */
const char *config_reply_mode_name(enum reply_mode m);

/* [reply] */
struct config_reply {
	char *from;			/* owned; "tagbot <tagbot@localhost.localdomain>" */
	enum reply_to to;		/* author */
	char *reply_to;			/* owned; NULL: no Reply-To */
	char *footer;			/* owned; NULL: reply.c's default; "\n" read as a line break */
	struct config_list bot_addresses;  /* owned; none */
	struct config_list ignore_senders; /* owned; not set: policy's defaults (the known bots) */
	int max_per_author_per_hour;	/* 10; 0 = no limit */
	int max_per_minute;		/* 30; 0 = no limit */
	int max_share_per_sender;	/* 50 (percent of max_per_minute); 0: none */
	enum reply_mode reply_mode;	/* per-series; a list's policy may override it */
	int series_wait;		/* seconds; CONFIG_DEFAULT_SERIES_WAIT */
	struct config_list maintainers;	/* owned; addresses or fnmatch patterns
					 * ("*@kernel.org") allowed to send
					 * "tagbot:" commands; none */
	bool cc_author;			/* yes: Cc the in-body From: author */
	bool answer_rfc;		/* no: RFC postings get no reply */
	char *trusted_authserv_id;	/* owned; the authserv-id of the admin's own
					 * receiving server, whose topmost
					 * Authentication-Results alone can vouch for a
					 * command's From (authres.h); NULL: none, and
					 * commands are refused */
	int repeat_after;		/* 180 (days) a finding is not told again; 0: always */
};

/*
 * The effective policy for the mail of one list.
 *
 * Layers, each overriding only the keys it sets:
 *   1. the global keys: [rules] RULE_ID = severity, [tagbot]
 *      min_reply_severity, [reply] to and reply_mode; enabled = yes;
 *   2. [default]: applies to every mail, from a list or not;
 *   3. [list ID]: mail whose list ID (below) is ID.
 * [list ID] alone has address: the list's posting address, the only
 * address a reply Cc's as "the list" (never the mail's List-Post).
 * Keys of [default] and [list ID]: enabled (yes|no), to, reply_mode,
 * min_reply_severity (same values as the global keys) and RULE_ID =
 * error|warning|check|off for a built-in rule (custom [rule ID] sections
 * keep their own severity).  enabled = no: check and record, never reply.
 *
 * The list ID of a mail is the id inside <> of its List-Id header, or else
 * the value of X-Mailing-List; compared case-insensitively, and the first
 * '@' counts as '.', so "linux-leds@vger.kernel.org" (X-Mailing-List form)
 * and "linux-leds.vger.kernel.org" (List-Id form) name the same list.
 *
 * All layers are resolved by config_load(): a policy is complete, nothing
 * needs to consult the layer below.
 */
struct list_policy {
	char *id;			/* owned; the section's ID as written (lower
					 * case); NULL for the [default] layer */
	bool enabled;
	enum reply_to to;
	enum reply_mode reply_mode;
	enum severity min_reply_severity;
	enum severity severity[RULE_COUNT]; /* built-in rules; replaces rules.severity */
	char *address;			/* owned; [list ID] address: the list's posting
					 * address; NULL: none ([default] has none) */
};

struct config_lists {
	struct list_policy dflt;	/* owned; layers 1 and 2 */
	struct list_policy *v;		/* owned; one per [list ID], in file order */
	size_t n, alloc;
	const char **addresses;		/* owned array of foreign strings: the
					 * lists' addresses, for reply_settings */
	size_t naddresses;
};

struct config {
	char *path;			/* owned; NULL for the embedded defaults */
	struct rule_settings rules;	/* owned; [rules], [rule ID], [lookup] enabled */
	struct config_tagbot tagbot;	/* owned */
	struct config_source source;	/* owned; [source] */
	bool source_set;		/* the file sets keys of [source] */
	struct config_source *sources;	/* owned; [source NAME], in file order */
	size_t nsources;
	struct config_sink sink;	/* owned */
	struct config_reply reply;	/* owned */
	struct config_lists lists;	/* owned; [default], [list ID] */
	struct lookup_settings lookup;	/* owned; [lookup] but enabled (rules.lookups) */
};

/* The embedded defaults (compiles the default patterns). */
void config_init(struct config *c);

/*
 * Loads path over the defaults.  On error returns -1 with e set
 * ("FILE: [section] key: problem"), and c is left untouched: as
 * config_init() made it on a first load, the old configuration on a
 * reload.  On success the previous contents of c are released.
 *
 * A bad file is read to its end: every unknown section or key, every bad
 * value and every failed check across keys is a problem of its own (a
 * check across the keys of a section is skipped when a key of it is
 * already wrong, and a bad section's keys are not named again).  e holds
 * the first in file order, followed by " (and N more problems)" when
 * there are more.
 */
int config_load(struct config *c, const char *path, struct err *e);

#define CONFIG_MAX_PROBLEMS	50	/* problems reported, then "and N more problems" */

/* One problem config_load_report() found in a file. */
struct config_problem {
	const char *msg;	/* "FILE: [section] key: problem", as e would hold it */
	const char *section;	/* as iniparser read it (lower case); NULL: the file */
	const char *key;	/* NULL: the section as a whole */
	int line;		/* of the key (else its section) in the file; 0: unknown */
};

typedef void config_problem_fn(void *arg, const struct config_problem *p);

/*
 * config_load(), and on error report (when not NULL) is called once for
 * each problem, in file order, up to CONFIG_MAX_PROBLEMS; when there are
 * more, once again with "FILE: and N more problems" (section NULL).  For
 * `tagbot check-config`, which prints them all.
 */
int config_load_report(struct config *c, const char *path, config_problem_fn *report,
		       void *arg, struct err *e);

void config_release(struct config *c);

#define MAILMAP_MAX_BYTES	(4 << 20)	/* a .mailmap file; the kernel's is ~100 KB */

/*
 * Reads the .mailmap file at path (git's format, mail/mailmap.h) into a
 * new table in *out.  -1 with e naming the file when it cannot be read or
 * is larger than MAILMAP_MAX_BYTES.  For [rules] mailmap, and for a kernel
 * tree's own .mailmap under tagbot check.
 */
struct mailmap;
int config_read_mailmap(struct mailmap **out, const char *path, struct err *e);

/*
 * Turns rules off for one run of tagbot check, as checkpatch's --ignore and
 * --types do: list names rules (built-in or custom IDs, any case, separated
 * by commas or white space).  only false: the rules named are set off; only
 * true: every rule not named is.  Calls add up (--types A --types B keeps
 * neither: give both in one list).  An unknown ID is an error, with the
 * nearest ID when one is close: a typo never passes silently.  Changes
 * c->rules only, not the per-list policies of the daemon.
 */
int config_rules_select(struct config *c, const char *list, bool only, struct err *e);

/*
 * The policy for mail of list list_id (a List-Id's id, with or without <>
 * and any display name before it, or an X-Mailing-List address).  NULL or
 * a list with no section: the [default] layer.  Never NULL; valid until
 * the next config_load()/config_release() of c.
 */
const struct list_policy *config_policy_for(const struct config *c, const char *list_id);

/* Whether an enabled policy ([default] or a [list ID]) has reply_mode =
 * per-series: whether any mail may be answered by a series reply. */
bool config_answers_per_series(const struct config *c);

/*
 * The list ID of a mail from its List-Id and X-Mailing-List header values
 * (either may be NULL): mail_list_id() (mail/listid.h), the parser a
 * patch's list_id comes from too.  Written to out (lower case, '@' kept);
 * returns -1 when neither gives an ID of 1 to CONFIG_MAX_LIST_ID bytes of
 * printable ASCII.
 */
int config_mail_list_id(const char *list_id, const char *x_mailing_list, char *out,
			size_t size);

/*
 * What `tagbot run` needs besides a valid file: the keys the source and
 * sink types require (config_load() checks them only for a section the
 * file holds, so a file for `tagbot check` need not name a mailbox).
 * Every problem goes to report (when not NULL) as config_load_report()
 * hands them, in the order checked (sources, then the sink); -1 with the
 * first in e when there is one.
 */
int config_check_daemon(const struct config *c, config_problem_fn *report, void *arg,
			struct err *e);

/*
 * The sources `tagbot run` reads, in order: [source] when the file sets it
 * or has no [source NAME] (the embedded default, one Maildir), then each
 * [source NAME].  Writes up to max pointers into c to out; returns how
 * many there are.
 */
size_t config_sources(const struct config *c, const struct config_source **out, size_t max);

/* "[source]" or "[source NAME]" into out, for messages. */
const char *config_source_label(const struct config_source *s, char *out, size_t size);

/* Whether host names the loopback interface without asking DNS:
 * "localhost", 127.0.0.0/8, ::1. */
bool config_host_is_loopback(const char *host);

/* The host of an smtp:// or smtps:// URL into out (no brackets); -1 when
 * the URL has another scheme or no host. */
int config_url_host(const char *url, char *out, size_t size);

/*
 * Whether url holds a user name (with or without a password): an '@'
 * before the end of its authority, the first '/', '?' or '#' after
 * "SCHEME://" (or from the start when there is no "://").  Such a URL is
 * refused and never quoted in a message.
 */
bool config_url_has_userinfo(const char *url);

#endif
