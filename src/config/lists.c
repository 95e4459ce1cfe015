/*
 * lists.c - [default] and [list ID]: the per-list policies, and which of
 * them a mail gets (config.h).
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail/address.h"
#include "mail/listid.h"
#include "lib/ascii.h"
#include "lib/buf.h"
#include "config/config_p.h"

bool cfg_is_list_section(const char *s)
{
	return !strncmp(s, LIST_SECTION, strlen(LIST_SECTION)) || !strcmp(s, "list");
}

bool cfg_is_policy_section(const char *s)
{
	return !strcmp(s, DEFAULT_SECTION) || cfg_is_list_section(s);
}

/* The ID of a [list ID] section into *id (points into section); -1 with e
 * set when it is missing or malformed. */
int cfg_list_section_id(const char *section, const char **id, struct err *e)
{
	const char *s = section + strlen("list");
	size_t n;

	s += strspn(s, " \t");
	*id = s;
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a list section needs a list ID: "
			       "[list linux-leds.vger.kernel.org]");
	if (n > CONFIG_MAX_LIST_ID)
		return err_set(e, ERR_FINAL, "list ID longer than %d bytes", CONFIG_MAX_LIST_ID);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("<>\":", *p))
			return err_set(e, ERR_FINAL, "a list ID is printable ASCII without "
				       "spaces, <>, quotes or ':' (the id of List-Id)");
	return 0;
}


/* ------------------------------------------------------ per-list policy */

/* Layer 1 of config.h: what the global keys say. */
void cfg_policy_from_globals(const struct config *c, struct list_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
	p->to = c->reply.to;
	p->reply_mode = c->reply.reply_mode;
	p->min_reply_severity = c->tagbot.min_reply_severity;
	memcpy(p->severity, c->rules.severity, sizeof(p->severity));
}

int config_mail_list_id(const char *list_id, const char *x_mailing_list, char *out,
			size_t size)
{
	return mail_list_id(list_id, x_mailing_list, out, size);
}

/* a and b (lower case) name the same list: the first '@' of each is a '.'. */
static bool same_list(const char *a, const char *b)
{
	bool at_a = false, at_b = false;

	for (;; a++, b++) {
		char ca = *a, cb = *b;

		if (ca == '@' && !at_a) {
			ca = '.';
			at_a = true;
		}
		if (cb == '@' && !at_b) {
			cb = '.';
			at_b = true;
		}
		if (ca != cb)
			return false;
		if (!ca)
			return true;
	}
}

const struct list_policy *config_policy_for(const struct config *c, const char *list_id)
{
	char want[CONFIG_MAX_LIST_ID + 1];

	if (!list_id || mail_list_id(list_id, NULL, want, sizeof(want)) < 0)
		return &c->lists.dflt;
	for (size_t i = 0; i < c->lists.n; i++)
		if (same_list(c->lists.v[i].id, want))
			return &c->lists.v[i];
	return &c->lists.dflt;
}

static bool per_series(const struct list_policy *p)
{
	return p->enabled && p->reply_mode == REPLY_PER_SERIES;
}

bool config_answers_per_series(const struct config *c)
{
	if (per_series(&c->lists.dflt))
		return true;
	for (size_t i = 0; i < c->lists.n; i++)
		if (per_series(&c->lists.v[i]))
			return true;
	return false;
}

/* One "KEY = value" of a policy section into p. */
static int apply_policy_entry(struct load *ld, const char *section, const char *key,
			      const char *v, struct list_policy *p)
{
	const struct key_def *k = cfg_key_in(cfg_policy_keys, key);
	int id;

	if (k && !strcmp(key, "address") && !p->id) {
		err_set(ld->e, ERR_FINAL, "a list's address belongs in its [list ID] section");
		return cfg_fail_at(ld, section, key);
	}
	if (k) {
		if (k->parse(v, (char *)p + k->offset, ld->e) < 0)
			return cfg_fail_at(ld, section, key);
		return 0;
	}
	id = rule_find(key);
	if (id < 0)	/* cfg_check_entries() let nothing else through */
		return cfg_unknown_policy_key(ld, section, key);
	if (cfg_parse_severity(v, &p->severity[id], ld->e) < 0)
		return cfg_fail_at(ld, section, rule_defs[id].id);
	return 0;
}

/* The keys of section, in file order, over p. */
static int apply_policy_section(struct load *ld, const char *section, struct list_policy *p)
{
	size_t n = strlen(section);
	int rc = 0;

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (!k || !ld->d->val[i] || strncmp(k, section, n) || k[n] != ':')
			continue;
		if (apply_policy_entry(ld, section, k + n + 1, ld->d->val[i], p) < 0)
			rc = -1;
	}
	return rc;
}

/* One [list ID] section: the [default] layer, then its own keys. */
static int add_list(struct load *ld, const char *section)
{
	struct config_lists *l = &ld->c->lists;
	struct list_policy *p;
	const char *id;

	if (cfg_list_section_id(section, &id, ld->e) < 0)
		return cfg_fail_at(ld, section, NULL);
	for (size_t i = 0; i < l->n; i++) {
		if (same_list(l->v[i].id, id)) {
			err_set(ld->e, ERR_FINAL, "names the same list as [list %s]", l->v[i].id);
			return cfg_fail_at(ld, section, NULL);
		}
	}
	if (l->n >= CONFIG_MAX_LISTS) {
		err_set(ld->e, ERR_FINAL, "more than %d list sections", CONFIG_MAX_LISTS);
		return cfg_fail_at(ld, section, NULL);
	}
	ARRAY_GROW(l->v, l->alloc, l->n + 1);
	p = &l->v[l->n];
	*p = l->dflt;
	p->id = xstrdup(id);
	l->n++;		/* owned by l now, released with it on failure */
	return apply_policy_section(ld, section, p);
}

/* Each [list ID] address, checked as a header address, gathered for
 * reply_settings. */
static int list_addresses(struct load *ld)
{
	struct config_lists *l = &ld->c->lists;
	char section[CONFIG_MAX_LIST_ID + 8];
	int rc = 0;

	l->addresses = xcalloc(l->n + 1, sizeof(*l->addresses));
	for (size_t i = 0; i < l->n; i++) {
		const char *a = l->v[i].address;

		if (!a)
			continue;
		if (!address_header_safe(a)) {
			snprintf(section, sizeof(section), "list %s", l->v[i].id);
			err_set(ld->e, ERR_FINAL, "\"%.200s\" is not a plain mail address "
				"(local@domain, no name)", a);
			rc = cfg_fail_at(ld, section, "address");
			continue;
		}
		l->addresses[l->naddresses++] = a;
	}
	return rc;
}

/* Runs after the global keys: layers 1 to 3 of config.h. */
int cfg_apply_lists(struct load *ld)
{
	struct config *c = ld->c;
	int rc;

	cfg_policy_from_globals(c, &c->lists.dflt);
	rc = apply_policy_section(ld, DEFAULT_SECTION, &c->lists.dflt);
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && cfg_is_list_section(k) && add_list(ld, k) < 0)
			rc = -1;
	}
	return list_addresses(ld) < 0 ? -1 : rc;
}

void cfg_lists_release(struct config_lists *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].id);
		free(l->v[i].address);
	}
	free(l->v);
	free(l->addresses);
	memset(l, 0, sizeof(*l));
}

