/*
 * keys.c - the key tables: one per section, each offset into the struct of
 * its own section, so [source NAME] reads the rows of [source] into its own
 * struct config_source as they are.
 */
#include "autoconf.h"
#include <stddef.h>
#include <string.h>

#include "lib/buf.h"
#include "config/config_p.h"

#define ROW(type, key, fn, field) { key, fn, offsetof(type, field), 0 }
#define PATH_ROW(type, key, fn, field) { key, fn, offsetof(type, field), KEY_PATH }

/* A list's replacement comes before its additions wherever they stand in
 * the file: rows are applied in table order. */
static const struct key_def rules_keys[] = {
	ROW(struct rule_settings, "archive_patterns", cfg_parse_patterns, archives),
	ROW(struct rule_settings, "archive_patterns_add", cfg_parse_patterns_add, archives),
	ROW(struct rule_settings, "bugtracker_patterns", cfg_parse_patterns, bugtrackers),
	ROW(struct rule_settings, "bugtracker_patterns_add", cfg_parse_patterns_add, bugtrackers),
	ROW(struct rule_settings, "reported_by_followers", cfg_parse_followers,
	    reported_by_followers),
	ROW(struct rule_settings, "mailmap", cfg_parse_mailmap, mailmap),
};

/* [lookup] enabled turns the rules' lookups on: a field of the rules. */
static const struct key_def lookup_rules_keys[] = {
	ROW(struct rule_settings, "enabled", cfg_parse_bool, lookups),
};

static const struct key_def lookup_keys[] = {
	ROW(struct lookup_settings, "archive_url", cfg_parse_http_url, archive_url),
	ROW(struct lookup_settings, "timeout", cfg_parse_seconds, timeout),
	ROW(struct lookup_settings, "concurrency", cfg_parse_batch, concurrency),
	ROW(struct lookup_settings, "rate", cfg_parse_rate_limit, rate),
	ROW(struct lookup_settings, "cache_ttl", cfg_parse_ttl, cache_ttl),
	PATH_ROW(struct lookup_settings, "ca_file", cfg_parse_str, ca_file),
	ROW(struct lookup_settings, "user_agent", cfg_parse_user_agent, user_agent),
};

static const struct key_def tagbot_keys[] = {
	PATH_ROW(struct config_tagbot, "state", cfg_parse_str, state),	/* unless a URL */
	PATH_ROW(struct config_tagbot, "state_password_file", cfg_parse_str,
		 state_password_file),
	ROW(struct config_tagbot, "state_password_command", cfg_parse_str,
	    state_password_command),
	ROW(struct config_tagbot, "log", cfg_parse_log_target, log),
	ROW(struct config_tagbot, "log_level", cfg_parse_log_level, log_level),
	ROW(struct config_tagbot, "min_reply_severity", cfg_parse_reply_severity,
	    min_reply_severity),
	ROW(struct config_tagbot, "dry_run", cfg_parse_bool, dry_run),
};

const struct key_def cfg_source_keys[] = {
	ROW(struct config_source, "type", cfg_parse_source_type, type),
	ROW(struct config_source, "host", cfg_parse_host, host),
	ROW(struct config_source, "port", cfg_parse_port, port),
	ROW(struct config_source, "tls", cfg_parse_tls, tls),
	PATH_ROW(struct config_source, "ca_file", cfg_parse_str, ca_file),
	ROW(struct config_source, "user", cfg_parse_str, user),
	PATH_ROW(struct config_source, "password_file", cfg_parse_str, password_file),
	ROW(struct config_source, "password_command", cfg_parse_str, password_command),
	ROW(struct config_source, "folder", cfg_parse_str, folder),
	ROW(struct config_source, "idle", cfg_parse_bool, idle),
	ROW(struct config_source, "poll_interval", cfg_parse_seconds, poll_interval),
	ROW(struct config_source, "mark_seen", cfg_parse_bool, mark_seen),
	ROW(struct config_source, "backfill", cfg_parse_bool, backfill),
	PATH_ROW(struct config_source, "path", cfg_parse_str, path),
	ROW(struct config_source, "batch", cfg_parse_batch, batch),
	ROW(struct config_source, "timeout", cfg_parse_seconds, timeout),
	ROW(struct config_source, "max_message_size", cfg_parse_message_size, max_message_size),
	ROW(struct config_source, "retry_after", cfg_parse_grace, retry_after),
	ROW(struct config_source, "groups", cfg_parse_list, groups),
	{ NULL, NULL, 0, 0 }
};

static const struct key_def sink_keys[] = {
	ROW(struct config_sink, "type", cfg_parse_sink_type, type),
	ROW(struct config_sink, "url", cfg_parse_smtp_url, url),
	ROW(struct config_sink, "tls", cfg_parse_tls, tls),
	PATH_ROW(struct config_sink, "ca_file", cfg_parse_str, ca_file),
	ROW(struct config_sink, "user", cfg_parse_str, user),
	PATH_ROW(struct config_sink, "password_file", cfg_parse_str, password_file),
	ROW(struct config_sink, "password_command", cfg_parse_str, password_command),
	PATH_ROW(struct config_sink, "path", cfg_parse_str, path),
	ROW(struct config_sink, "copy_to", cfg_parse_str, copy_to),
	ROW(struct config_sink, "copy_folder", cfg_parse_str, copy_folder),
	ROW(struct config_sink, "resend_after", cfg_parse_grace, resend_after),
	ROW(struct config_sink, "connect_timeout", cfg_parse_seconds, connect_timeout),
};

static const struct key_def reply_keys[] = {
	ROW(struct config_reply, "from", cfg_parse_str, from),
	ROW(struct config_reply, "to", cfg_parse_reply_to, to),
	ROW(struct config_reply, "reply_to", cfg_parse_str, reply_to),
	ROW(struct config_reply, "footer", cfg_parse_footer, footer),
	ROW(struct config_reply, "bot_addresses", cfg_parse_list, bot_addresses),
	ROW(struct config_reply, "ignore_senders", cfg_parse_list, ignore_senders),
	ROW(struct config_reply, "max_per_author_per_hour", cfg_parse_rate,
	    max_per_author_per_hour),
	ROW(struct config_reply, "max_per_minute", cfg_parse_rate, max_per_minute),
	ROW(struct config_reply, "max_share_per_sender", cfg_parse_percent, max_share_per_sender),
	ROW(struct config_reply, "reply_mode", cfg_parse_reply_mode, reply_mode),
	ROW(struct config_reply, "series_wait", cfg_parse_series_wait, series_wait),
	ROW(struct config_reply, "repeat_after", cfg_parse_repeat_after, repeat_after),
	ROW(struct config_reply, "maintainers", cfg_parse_maintainers, maintainers),
	ROW(struct config_reply, "cc_author", cfg_parse_bool, cc_author),
	ROW(struct config_reply, "answer_rfc", cfg_parse_bool, answer_rfc),
	ROW(struct config_reply, "trusted_authserv_id", cfg_parse_authserv_id,
	    trusted_authserv_id),
};

#define SECTION(name, keys, field) \
	{ name, keys, ARRAY_SIZE(keys), offsetof(struct config, field) }

const struct section_def cfg_sections[] = {
	SECTION("rules", rules_keys, rules),
	SECTION("lookup", lookup_rules_keys, rules),
	SECTION("lookup", lookup_keys, lookup),
	SECTION("tagbot", tagbot_keys, tagbot),
	{ "source", cfg_source_keys, ARRAY_SIZE(cfg_source_keys) - 1,
	  offsetof(struct config, source) },
	SECTION("sink", sink_keys, sink),
	SECTION("reply", reply_keys, reply),
	{ NULL, NULL, 0, 0 }
};

/* The keys of a [rule ID] section. */
const struct key_def cfg_rule_keys[] = {
	{ "pattern", cfg_parse_string, offsetof(struct rule_draft, pattern), KEY_REQUIRED },
	{ "where", cfg_parse_where, offsetof(struct rule_draft, where), KEY_REQUIRED },
	ROW(struct rule_draft, "severity", cfg_parse_severity, severity),
	ROW(struct rule_draft, "must_match", cfg_parse_bool, must_match),
	ROW(struct rule_draft, "caseless", cfg_parse_bool, caseless),
	{ "message", cfg_parse_string, offsetof(struct rule_draft, message), KEY_REQUIRED },
	ROW(struct rule_draft, "doc", cfg_parse_string, doc),
	{ NULL, NULL, 0, 0 }
};

/* Keys of [default] and [list ID] besides RULE_ID = severity. */
const struct key_def cfg_policy_keys[] = {
	ROW(struct list_policy, "enabled", cfg_parse_bool, enabled),
	ROW(struct list_policy, "to", cfg_parse_reply_to, to),
	ROW(struct list_policy, "reply_mode", cfg_parse_reply_mode, reply_mode),
	ROW(struct list_policy, "min_reply_severity", cfg_parse_reply_severity,
	    min_reply_severity),
	ROW(struct list_policy, "address", cfg_parse_str, address),
	{ NULL, NULL, 0, 0 }
};

const struct key_def *cfg_key_in(const struct key_def *keys, const char *key)
{
	for (; keys->key; keys++)
		if (!strcmp(keys->key, key))
			return keys;
	return NULL;
}

bool cfg_is_fixed_section(const char *s)
{
	for (const struct section_def *t = cfg_sections; t->name; t++)
		if (!strcmp(t->name, s))
			return true;
	return false;
}

const struct key_def *cfg_find_key(const char *section, const char *key)
{
	for (const struct section_def *t = cfg_sections; t->name; t++)
		for (size_t i = 0; i < t->n; i++)
			if (!strcmp(t->name, section) && !strcmp(t->keys[i].key, key))
				return &t->keys[i];
	return NULL;
}

/* Reads the keys (at most n, up to a NULL key) that section sets into the
 * struct at base. */
int cfg_apply_keys(struct load *ld, const char *section, const struct key_def *keys, size_t n,
		   void *base)
{
	int rc = 0;

	for (size_t i = 0; i < n && keys[i].key; i++) {
		const char *v = cfg_lookup(ld, section, keys[i].key);

		if (v && keys[i].parse(v, (char *)base + keys[i].offset, ld->e) < 0)
			rc = cfg_fail_at(ld, section, keys[i].key);
	}
	return rc;
}

int cfg_apply_fixed_keys(struct load *ld)
{
	int rc = 0;

	for (const struct section_def *t = cfg_sections; t->name; t++)
		if (cfg_apply_keys(ld, t->name, t->keys, t->n, (char *)ld->c + t->base) < 0)
			rc = -1;
	return rc;
}
