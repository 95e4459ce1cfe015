/*
 * rules_cfg.c - [rules] RULE_ID = severity, the [rule ID] sections of
 * custom rules, and the rules a command line turns off.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ascii.h"
#include "lib/buf.h"
#include "config/config_p.h"

int cfg_parse_string(const char *v, void *ptr, struct err *e)
{
	*(const char **)ptr = v;
	return 0;
}

static bool is_token(const char *s)
{
	if (!ascii_is_alpha((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!ascii_is_alnum((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

int cfg_parse_where(const char *v, void *ptr, struct err *e)
{
	static const struct { const char *name; enum custom_scope scope; } scopes[] = {
		{ "subject", SCOPE_SUBJECT }, { "commit", SCOPE_COMMIT },
		{ "trailers", SCOPE_TRAILERS }, { "body", SCOPE_BODY }, { "diff", SCOPE_DIFF },
	};
	struct draft_where *w = ptr;

	if (!strncasecmp(v, "trailer:", 8)) {
		if (!is_token(v + 8))
			return err_set(e, ERR_FINAL, "\"%s\": trailer:<Token> needs a token of "
				       "letters, digits and -", v);
		w->scope = SCOPE_TRAILER;
		w->token = v + 8;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(scopes); i++) {
		if (!strcasecmp(v, scopes[i].name)) {
			w->scope = scopes[i].scope;
			w->token = NULL;
			return 0;
		}
	}
	return err_set(e, ERR_FINAL, "\"%s\" is not subject, commit, trailers, "
		       "trailer:<Token>, body or diff", v);
}

/* ------------------------------------------- rules chosen on a command line */

/* What config_rules_select() works on: one mark per rule, built-in first,
 * then the custom rules in file order. */
struct rule_marks {
	struct config *c;
	bool *marked;		/* owned; RULE_COUNT + ncustom */
};

/* Marks rule id (built-in or custom, any case); an unknown one is an error
 * with the nearest ID, as in the ini file. */
static int mark_rule(const char *id, size_t i, void *arg, struct err *e)
{
	struct rule_marks *m = arg;
	const struct rule_settings *r = &m->c->rules;
	struct suggest sg;
	int k = rule_find(id);

	if (k >= 0) {
		m->marked[k] = true;
		return 0;
	}
	cfg_suggest_init(&sg, id);
	for (size_t j = 0; j < r->ncustom; j++) {
		if (!strcasecmp(r->custom[j].id, id)) {
			m->marked[RULE_COUNT + j] = true;
			return 0;
		}
		cfg_suggest_try(&sg, r->custom[j].id);
	}
	for (size_t j = 0; j < RULE_COUNT; j++)
		cfg_suggest_try(&sg, rule_defs[j].id);
	if (sg.best)
		return err_set(e, ERR_FINAL, "%s: unknown rule ID (did you mean %s?)", id, sg.best);
	return err_set(e, ERR_FINAL, "%s: unknown rule ID", id);
}

/* Sets every rule whose mark is want off. */
static void rules_off(struct rule_settings *r, const bool *marked, bool want)
{
	for (size_t k = 0; k < RULE_COUNT; k++)
		if (marked[k] == want)
			r->severity[k] = SEV_OFF;
	for (size_t j = 0; j < r->ncustom; j++)
		if (marked[RULE_COUNT + j] == want)
			r->custom[j].severity = SEV_OFF;
}

int config_rules_select(struct config *c, const char *list, bool only, struct err *e)
{
	struct rule_marks m = { c, xcalloc(RULE_COUNT + c->rules.ncustom, sizeof(bool)) };
	int rc = cfg_each_word(list, ", \t", mark_rule, &m, e);

	if (rc == 0)
		rules_off(&c->rules, m.marked, !only);
	free(m.marked);
	return rc;
}


/* The ID of a [rule ID] section, upper-cased into id; -1 with e set when bad. */
int cfg_custom_id(const char *section, char id[CONFIG_MAX_ID + 1], struct err *e)
{
	const char *s = section + strlen(CUSTOM_SECTION) - 1;	/* "rule" alone too */
	size_t n;

	if (*s)
		s++;
	s += strspn(s, " \t");
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a custom rule section needs an ID: [rule MY_RULE]");
	if (n > CONFIG_MAX_ID)
		return err_set(e, ERR_FINAL, "rule ID longer than %d characters", CONFIG_MAX_ID);
	for (size_t i = 0; i < n; i++) {
		id[i] = (char)ascii_toupper((unsigned char)s[i]);
		if (!ascii_is_upper((unsigned char)id[i]) && !ascii_is_digit((unsigned char)id[i]) && id[i] != '_')
			return err_set(e, ERR_FINAL, "rule ID may hold only A-Z, 0-9 and _");
	}
	id[n] = '\0';
	if (rule_find(id) >= 0)
		return err_set(e, ERR_FINAL, "%s is a built-in rule ID; set its severity "
			       "in [rules] or pick another ID", rule_defs[rule_find(id)].id);
	return 0;
}

bool cfg_is_custom_section(const char *s)
{
	return !strncmp(s, CUSTOM_SECTION, strlen(CUSTOM_SECTION)) || !strcmp(s, "rule");
}


/* [rules] RULE_ID = severity, in file order. */
int cfg_apply_severities(struct load *ld)
{
	static const char prefix[] = "rules:";
	int rc = 0;

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];
		int id;

		if (!k || !ld->d->val[i] || strncmp(k, prefix, sizeof(prefix) - 1))
			continue;
		id = rule_find(k + sizeof(prefix) - 1);
		if (id < 0)
			continue;	/* a table key, applied by cfg_apply_fixed_keys() */
		if (cfg_parse_severity(ld->d->val[i], &ld->c->rules.severity[id], ld->e) < 0)
			rc = cfg_fail_at(ld, "rules", rule_defs[id].id);
	}
	return rc;
}

static void add_custom(struct rule_settings *s, const char *id, const struct rule_draft *d,
		       struct pattern *re)
{
	struct custom_rule *r;

	ARRAY_GROW(s->custom, s->custom_alloc, s->ncustom + 1);
	r = &s->custom[s->ncustom++];
	r->id = xstrdup(id);
	r->severity = d->severity;
	r->scope = d->where.scope;
	r->token = d->where.token ? xstrdup(d->where.token) : NULL;
	r->re = re;
	r->must_match = d->must_match;
	r->message = xstrdup(d->message);
	r->doc = xstrdup(d->doc ? d->doc : "");
}

/* One [rule ID] section -> settings->custom; each of its bad keys is
 * named, and the rule is not compiled then. */
static int apply_custom(struct load *ld, const char *section)
{
	struct rule_draft d = { .severity = SEV_WARNING };
	char id[CONFIG_MAX_ID + 1];
	struct pattern *re;
	int rc = 0;

	if (cfg_custom_id(section, id, ld->e) < 0)
		return cfg_fail_at(ld, section, NULL);
	if (ld->c->rules.ncustom >= CONFIG_MAX_CUSTOM) {
		err_set(ld->e, ERR_FINAL, "more than %d custom rules", CONFIG_MAX_CUSTOM);
		return cfg_fail_at(ld, section, NULL);
	}
	for (const struct key_def *k = cfg_rule_keys; k->key; k++) {
		const char *v = cfg_lookup(ld, section, k->key);

		if (!v && (k->flags & KEY_REQUIRED)) {
			err_set(ld->e, ERR_FINAL, "missing (required)");
			rc = cfg_fail_at(ld, section, k->key);
		}
		if (v && k->parse(v, (char *)&d + k->offset, ld->e) < 0)
			rc = cfg_fail_at(ld, section, k->key);
	}
	if (rc < 0)
		return -1;
	if (!*d.message) {
		err_set(ld->e, ERR_FINAL, "must not be empty");
		return cfg_fail_at(ld, section, "message");
	}
	/* PATTERN_STEPS: each custom rule has a budget per message (rules.h). */
	re = pattern_compile(d.pattern, PATTERN_STEPS | (d.caseless ? PATTERN_CASELESS : 0),
			     ld->e);
	if (!re)
		return cfg_fail_at(ld, section, "pattern");
	add_custom(&ld->c->rules, id, &d, re);
	return 0;
}

int cfg_apply_custom_rules(struct load *ld)
{
	int rc = 0;

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && cfg_is_custom_section(k) && apply_custom(ld, k) < 0)
			rc = -1;
	}
	return rc;
}

