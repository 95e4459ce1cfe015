/*
 * config_p.h - what the files of config/ share, and nothing outside it
 * includes: the state of one load (struct load), the key tables (keys.c),
 * the value parsers (values.c) and the stages config_load() runs in order.
 *
 * Each stage and check returns 0, or -1 after cfg_fail_at() has named the
 * section and key of the problem left in ld->e.
 */
#ifndef TAGBOT_CONFIG_P_H
#define TAGBOT_CONFIG_P_H

#include <stdbool.h>
#include <stddef.h>

#include <iniparser.h>

#include "config/config.h"

#define SUGGEST_MAX_LEN		64	/* longer words get no "did you mean" */
#define SUGGEST_MAX_DIST	2
#define CUSTOM_SECTION		"rule "	/* [rule MY_RULE] */
#define LIST_SECTION		"list "	/* [list linux-leds.vger.kernel.org] */
#define DEFAULT_SECTION		"default"
#define SOURCE_SECTION		"source "	/* [source NAME] */

/* A problem found in the file (config.c). */
struct problem {
	int line;		/* 0: not known */
	size_t seq;		/* the order it was found in, within a line */
	char *section;		/* owned; NULL: the file */
	char *key;		/* owned; NULL: the section */
	char *msg;		/* owned */
};

/* Where a section or key stands in the file (ini.c). */
struct ini_line {
	char *entry;		/* owned; "section" or "section:key", lower case */
	int line;
};

/* One load of a file. */
struct load {
	const char *path;
	dictionary *d;
	struct config *c;
	struct err *e;		/* the caller's: each problem passes through it */
	struct problem *pv;	/* owned; every problem, as found */
	size_t np, palloc;
	struct ini_line *lines;	/* owned; sorted by entry, then line */
	size_t nlines, lalloc;
};

/* "FILE: [section] key: problem" (key NULL: the section as a whole) from
 * the problem already in ld->e, recorded as a problem; returns -1, and
 * the caller goes on with what does not depend on it. */
int cfg_fail_at(struct load *ld, const char *section, const char *key);
/* Records msg, a whole message, as a problem of section and key. */
void cfg_problem(struct load *ld, const char *section, const char *key, const char *msg);
/* Records msg as a problem of the file at line (0: not known). */
void cfg_problem_line(struct load *ld, int line, const char *msg);
/* Hands the problems, in file order, to report (when not NULL), at most
 * CONFIG_MAX_PROBLEMS, and the first (with how many more) to ld->e. */
void cfg_problems_report(struct load *ld, config_problem_fn *report, void *arg);
void cfg_problems_release(struct load *ld);
/* Whether a problem was recorded for section. */
bool cfg_section_failed(const struct load *ld, const char *section);

/* ------------------------------------------------------------ ini.c */

/* Reads ld->path into ld->d; -1 with every problem recorded (a line
 * iniparser cannot read, each with its number; or the file's own). */
int cfg_ini_read(struct load *ld);
/* Indexes the lines of the sections and keys of ld->path, for problems. */
void cfg_ini_lines(struct load *ld);
/* The line of section's key, else of section; 0 when neither is found. */
int cfg_line_of(const struct load *ld, const char *section, const char *key);
void cfg_ini_lines_release(struct load *ld);
/* Every section and key of the file is one we know. */
int cfg_check_entries(struct load *ld);
/* An unknown key of [default] or [list ID]: names the key or rule ID it is nearest. */
int cfg_unknown_policy_key(struct load *ld, const char *section, const char *key);
/* The value of section's key as the file gives it, or NULL. */
const char *cfg_lookup(const struct load *ld, const char *section, const char *key);
/* Whether the file sets a key of section (a bare header, as the bundled
 * file has, sets nothing). */
bool cfg_has_section(const struct load *ld, const char *section);

/* The known name nearest to word, for "did you mean". */
struct suggest {
	const char *word;
	const char *best;	/* NULL when nothing is close */
	size_t dist;
};

void cfg_suggest_init(struct suggest *s, const char *word);
void cfg_suggest_try(struct suggest *s, const char *candidate);

/* ------------------------------------------------------------ keys.c */

/* Parses value into the field at ptr; on error fills e with the problem only. */
typedef int (*parse_fn)(const char *value, void *ptr, struct err *e);

#define KEY_PATH	1	/* a relative value is taken from the file's directory */
#define KEY_REQUIRED	2	/* a [rule ID] section must set it */

struct key_def {
	const char *key;
	parse_fn parse;
	size_t offset;		/* into the struct of its section */
	unsigned flags;
};

/* The keys of a fixed section, over one struct of struct config (at base). */
struct section_def {
	const char *name;
	const struct key_def *keys;
	size_t n;
	size_t base;		/* offsetof(struct config, ...) */
};

/* The fixed sections in the order they are applied; a NULL name ends it.
 * A section may have more than one table ([lookup]: rules and lookup). */
extern const struct section_def cfg_sections[];
/* Tables that end with a NULL key: [source] (and [source NAME], over
 * their own struct config_source), [rule ID] (struct rule_draft), [default]
 * and [list ID] (struct list_policy). */
extern const struct key_def cfg_source_keys[], cfg_rule_keys[], cfg_policy_keys[];

const struct key_def *cfg_key_in(const struct key_def *keys, const char *key);
bool cfg_is_fixed_section(const char *s);
const struct key_def *cfg_find_key(const char *section, const char *key);
/* The n keys of a table that section sets, into the struct at base. */
int cfg_apply_keys(struct load *ld, const char *section, const struct key_def *keys, size_t n,
		   void *base);
int cfg_apply_fixed_keys(struct load *ld);

/* ---------------------------------------------------------- values.c */

/* Called on the word w, the i-th (from 0); -1 with e filled stops. */
typedef int cfg_word_fn(const char *w, size_t i, void *arg, struct err *e);
/* Splits v at the characters of seps into words; calls fn on each
 * (NUL-terminated copy). */
int cfg_each_word(const char *v, const char *seps, cfg_word_fn *fn, void *arg, struct err *e);
void cfg_set_string(char **field, const char *v);
void cfg_list_release(struct config_list *l);

int cfg_parse_bool(const char *v, void *ptr, struct err *e);
int cfg_parse_severity(const char *v, void *ptr, struct err *e);
int cfg_parse_patterns(const char *v, void *ptr, struct err *e);
int cfg_parse_patterns_add(const char *v, void *ptr, struct err *e);
int cfg_parse_followers(const char *v, void *ptr, struct err *e);
int cfg_parse_mailmap(const char *v, void *ptr, struct err *e);
int cfg_parse_str(const char *v, void *ptr, struct err *e);
int cfg_parse_footer(const char *v, void *ptr, struct err *e);
int cfg_parse_port(const char *v, void *ptr, struct err *e);
int cfg_parse_seconds(const char *v, void *ptr, struct err *e);
int cfg_parse_grace(const char *v, void *ptr, struct err *e);
int cfg_parse_batch(const char *v, void *ptr, struct err *e);
int cfg_parse_message_size(const char *v, void *ptr, struct err *e);
int cfg_parse_rate(const char *v, void *ptr, struct err *e);
int cfg_parse_percent(const char *v, void *ptr, struct err *e);
int cfg_parse_rate_limit(const char *v, void *ptr, struct err *e);
int cfg_parse_ttl(const char *v, void *ptr, struct err *e);
int cfg_parse_http_url(const char *v, void *ptr, struct err *e);
int cfg_parse_smtp_url(const char *v, void *ptr, struct err *e);
int cfg_parse_host(const char *v, void *ptr, struct err *e);
int cfg_parse_user_agent(const char *v, void *ptr, struct err *e);
int cfg_parse_source_type(const char *v, void *ptr, struct err *e);
int cfg_parse_sink_type(const char *v, void *ptr, struct err *e);
int cfg_parse_tls(const char *v, void *ptr, struct err *e);
int cfg_parse_log_target(const char *v, void *ptr, struct err *e);
int cfg_parse_log_level(const char *v, void *ptr, struct err *e);
int cfg_parse_reply_severity(const char *v, void *ptr, struct err *e);
int cfg_parse_reply_to(const char *v, void *ptr, struct err *e);
int cfg_parse_reply_mode(const char *v, void *ptr, struct err *e);
int cfg_parse_repeat_after(const char *v, void *ptr, struct err *e);
int cfg_parse_series_wait(const char *v, void *ptr, struct err *e);
int cfg_parse_list(const char *v, void *ptr, struct err *e);
int cfg_parse_maintainers(const char *v, void *ptr, struct err *e);
int cfg_parse_authserv_id(const char *v, void *ptr, struct err *e);

/* ------------------------------------------------------- rules_cfg.c */

struct draft_where {
	enum custom_scope scope;
	const char *token;	/* for SCOPE_TRAILER */
};

/* A [rule ID] section while it is read; strings point into the dictionary. */
struct rule_draft {
	const char *pattern;
	struct draft_where where;
	enum severity severity;
	bool must_match;
	bool caseless;
	const char *message;
	const char *doc;
};

int cfg_parse_string(const char *v, void *ptr, struct err *e);
int cfg_parse_where(const char *v, void *ptr, struct err *e);
bool cfg_is_custom_section(const char *s);
/* The ID of a [rule ID] section, upper-cased into id; -1 with e set when bad. */
int cfg_custom_id(const char *section, char id[CONFIG_MAX_ID + 1], struct err *e);
int cfg_apply_severities(struct load *ld);
int cfg_apply_custom_rules(struct load *ld);

/* ----------------------------------------------------------- lists.c */

bool cfg_is_list_section(const char *s);
bool cfg_is_policy_section(const char *s);
/* The ID of a [list ID] section into *id (points into section); -1 with e
 * set when it is missing or malformed. */
int cfg_list_section_id(const char *section, const char **id, struct err *e);
/* Layer 1 of config.h: what the global keys say. */
void cfg_policy_from_globals(const struct config *c, struct list_policy *p);
/* Runs after the global keys: layers 1 to 3 of config.h. */
int cfg_apply_lists(struct load *ld);
void cfg_lists_release(struct config_lists *l);

/* --------------------------------------------------------- sources.c */

bool cfg_is_source_section(const char *s);
/* The NAME of a [source NAME] section into *name (points into section). */
int cfg_source_section_name(const char *section, const char **name, struct err *e);
void cfg_source_defaults(struct config_source *s);
void cfg_source_release(struct config_source *s);
int cfg_apply_sources(struct load *ld);
/* The section of s as cfg_fail_at() names it: "source" or "source NAME". */
const char *cfg_section_of(const struct config_source *s, char *out, size_t size);

/* ----------------------------------------------------------- check.c */

/* Checks what the file set; a [source] or [sink] it fills must be whole. */
int cfg_validate(struct load *ld);

#endif
