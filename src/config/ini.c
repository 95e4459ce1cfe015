/*
 * ini.c - reading the ini file: iniparser's dictionary, the entries of the
 * file checked against the sections and keys config/ knows (with the
 * nearest known name for a typo), and the lookup of one key.
 *
 * iniparser lower-cases section names and keys, cuts unquoted values at
 * ';' or '#', joins lines ending in '\' and holds at most 1023 characters
 * per (joined) line.  It keeps entries in file order, a section as a key
 * with a NULL value and "section:key" for the rest, so one walk over the
 * dictionary sees everything the admin wrote, including keys placed before
 * any section (":key"), which the section API would hide.
 */
#include "autoconf.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/ascii.h"
#include "lib/buf.h"
#include "lib/utf8.h"
#include "config/config_p.h"

void cfg_suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = SUGGEST_MAX_DIST + 1;
}

void cfg_suggest_try(struct suggest *s, const char *candidate)
{
	size_t d = utf8_edit_distance(s->word, candidate);

	if (d < s->dist) {
		s->dist = d;
		s->best = candidate;
	}
}


/*
 * "FILE: [section] key: problem", from the problem already in ld->e.  A
 * custom rule's section is shown with its ID upper-cased, as the rule
 * will report it, not as iniparser lower-cased it.
 */
int cfg_fail_at(struct load *ld, const char *section, const char *key)
{
	char shown[128];
	size_t n = 0;

	for (; section[n] && n < sizeof(shown) - 1; n++)
		shown[n] = section[n];
	shown[n] = '\0';
	if (cfg_is_custom_section(section))
		for (char *p = shown + strlen(CUSTOM_SECTION) - 1; *p; p++)
			*p = (char)ascii_toupper((unsigned char)*p);
	if (key)
		err_prefix(ld->e, "%s: [%s] %s", ld->path, shown, key);
	else
		err_prefix(ld->e, "%s: [%s]", ld->path, shown);
	cfg_problem(ld, section, key, ld->e->msg);
	return -1;
}

/* Tries the keys of a table that ends with a NULL key. */
static void suggest_keys(struct suggest *sg, const struct key_def *keys)
{
	for (; keys->key; keys++)
		cfg_suggest_try(sg, keys->key);
}

/* Tries the keys of fixed section name. */
static void suggest_section_keys(struct suggest *sg, const char *name)
{
	for (const struct section_def *t = cfg_sections; t->name; t++)
		for (size_t i = 0; i < t->n && !strcmp(t->name, name); i++)
			cfg_suggest_try(sg, t->keys[i].key);
}

static int check_section(struct load *ld, const char *name)
{
	char id[CONFIG_MAX_ID + 1];
	struct suggest sg;
	const char *lid;

	if (cfg_is_fixed_section(name))
		return 0;
	if (cfg_is_source_section(name))
		return cfg_source_section_name(name, &lid, ld->e) < 0 ? cfg_fail_at(ld, name, NULL) : 0;
	if (cfg_is_custom_section(name))
		return cfg_custom_id(name, id, ld->e) < 0 ? cfg_fail_at(ld, name, NULL) : 0;
	if (cfg_is_policy_section(name)) {
		if (cfg_is_list_section(name) && cfg_list_section_id(name, &lid, ld->e) < 0)
			return cfg_fail_at(ld, name, NULL);
		return 0;
	}
	cfg_suggest_init(&sg, name);
	for (const struct section_def *t = cfg_sections; t->name; t++)
		cfg_suggest_try(&sg, t->name);
	cfg_suggest_try(&sg, DEFAULT_SECTION);
	if (sg.best)
		err_set(ld->e, ERR_FINAL, "unknown section (did you mean [%s]?)", sg.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown section");
	return cfg_fail_at(ld, name, NULL);
}

/* An unknown key in [rules]: most likely a misspelt rule ID. */
static int unknown_rules_key(struct load *ld, const char *key)
{
	char upper[SUGGEST_MAX_LEN + 1];
	struct suggest sk, sr;
	size_t n = strlen(key) < SUGGEST_MAX_LEN ? strlen(key) : SUGGEST_MAX_LEN;

	cfg_suggest_init(&sk, key);
	suggest_section_keys(&sk, "rules");
	cfg_suggest_init(&sr, key);
	for (size_t i = 0; i < RULE_COUNT; i++)
		cfg_suggest_try(&sr, rule_defs[i].id);
	if (sk.best && sk.dist < sr.dist) {
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sk.best);
		return cfg_fail_at(ld, "rules", key);
	}
	for (size_t i = 0; i < n; i++)
		upper[i] = (char)ascii_toupper((unsigned char)key[i]);
	upper[n] = '\0';
	if (sr.best)
		err_set(ld->e, ERR_FINAL, "unknown rule ID (did you mean %s?)", sr.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown rule ID");
	return cfg_fail_at(ld, "rules", upper);
}

/* An unknown key in [default] or [list ID]: a policy key or a rule ID
 * (iniparser lower-cased it; rule IDs are compared upper-cased). */
int cfg_unknown_policy_key(struct load *ld, const char *section, const char *key)
{
	char upper[SUGGEST_MAX_LEN + 1];
	size_t n = strlen(key) < SUGGEST_MAX_LEN ? strlen(key) : SUGGEST_MAX_LEN;
	struct suggest sk, sr;

	for (size_t i = 0; i < n; i++)
		upper[i] = (char)ascii_toupper((unsigned char)key[i]);
	upper[n] = '\0';
	cfg_suggest_init(&sk, key);
	suggest_keys(&sk, cfg_policy_keys);
	cfg_suggest_init(&sr, upper);
	for (size_t i = 0; i < RULE_COUNT; i++)
		cfg_suggest_try(&sr, rule_defs[i].id);
	if (sr.best && sr.dist < sk.dist) {
		/* shown as the rule ID it almost is, like [rules] does */
		err_set(ld->e, ERR_FINAL, "unknown rule ID (did you mean %s?)", sr.best);
		return cfg_fail_at(ld, section, upper);
	}
	if (sk.best)
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sk.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown key or rule ID (expected enabled, to, "
			"reply_mode, min_reply_severity, address or a rule ID)");
	return cfg_fail_at(ld, section, key);
}

static int unknown_key(struct load *ld, const char *section, const char *key, bool custom)
{
	const char *rows = cfg_is_source_section(section) ? "source" : section;
	struct suggest sg;

	if (!strcmp(section, "rules"))
		return unknown_rules_key(ld, key);
	if (cfg_is_policy_section(section))
		return cfg_unknown_policy_key(ld, section, key);
	cfg_suggest_init(&sg, key);
	if (custom)
		suggest_keys(&sg, cfg_rule_keys);
	else
		suggest_section_keys(&sg, rows);
	if (sg.best)
		err_set(ld->e, ERR_FINAL, "unknown key (did you mean %s?)", sg.best);
	else
		err_set(ld->e, ERR_FINAL, "unknown key");
	return cfg_fail_at(ld, section, key);
}

/* Entry "section:key": both known?  Sections themselves precede their keys. */
static int check_key(struct load *ld, const char *entry)
{
	const char *colon = strchr(entry, ':');
	char section[256];
	const char *key;
	bool custom;

	if (!colon || (size_t)(colon - entry) >= sizeof(section)) {
		err_set(ld->e, ERR_FINAL, "%s: %s: unexpected entry", ld->path, entry);
		cfg_problem(ld, NULL, entry, ld->e->msg);
		return -1;
	}
	key = colon + 1;
	if (colon == entry) {
		err_set(ld->e, ERR_FINAL, "%s: %s: key outside any section", ld->path, key);
		cfg_problem(ld, "", key, ld->e->msg);
		return -1;
	}
	memcpy(section, entry, (size_t)(colon - entry));
	section[colon - entry] = '\0';
	custom = cfg_is_custom_section(section);
	if (cfg_is_source_section(section))
		return cfg_find_key("source", key) ? 0 : unknown_key(ld, section, key, false);
	if (cfg_is_policy_section(section))
		return cfg_key_in(cfg_policy_keys, key) || rule_find(key) >= 0 ? 0
			: cfg_unknown_policy_key(ld, section, key);
	if (custom ? cfg_key_in(cfg_rule_keys, key) != NULL
		   : cfg_find_key(section, key) || (!strcmp(section, "rules") && rule_find(key) >= 0))
		return 0;
	return unknown_key(ld, section, key, custom);
}

/* Every section and key of the file is one we know; the keys of a
 * section found bad are not named again. */
int cfg_check_entries(struct load *ld)
{
	bool bad_section = false;
	int rc = 0;

	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (!k)
			continue;
		if (!ld->d->val[i]) {
			bad_section = check_section(ld, k) < 0;
			rc |= bad_section ? -1 : 0;
		} else if (!bad_section && check_key(ld, k) < 0) {
			rc = -1;
		}
	}
	return rc;
}

const char *cfg_lookup(const struct load *ld, const char *section, const char *key)
{
	char entry[512];

	snprintf(entry, sizeof(entry), "%s:%s", section, key);
	return iniparser_getstring(ld->d, entry, NULL);
}

bool cfg_has_section(const struct load *ld, const char *section)
{
	return iniparser_getsecnkeys(ld->d, section) > 0;
}

/* --------------------------------------------------------- reading the file */

/*
 * iniparser reports through a printf-like callback with no user pointer,
 * once for each line it cannot read, and then gives no dictionary at all:
 * the lines are gathered here, each a whole message on one line with the
 * line number iniparser put in it, and recorded as problems once it
 * returns.
 */
static struct {
	char **msg;		/* owned */
	int *line;		/* owned */
	size_t n, alloc, alloc_line;
} ini_errors;

/* The number of the last "(N)" of s: iniparser's "... in FILE (N)". */
static int ini_error_line(const char *s)
{
	const char *open = NULL;
	int line = 0;

	for (const char *p = strchr(s, '('); p; p = strchr(p + 1, '('))
		open = p;
	if (open && sscanf(open, "(%d)", &line) == 1 && line > 0)
		return line;
	return 0;
}

static int ini_error_cb(const char *fmt, ...)
{
	char tmp[ERR_MSG_MAX];
	size_t len;
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	p = tmp;
	if (!strncmp(p, "iniparser: ", 11))
		p += 11;
	for (char *q = p; *q; q++)
		if (*q == '\n')
			*q = ' ';
	for (len = strlen(p); len && p[len - 1] == ' '; len--)
		p[len - 1] = '\0';
	ARRAY_GROW(ini_errors.msg, ini_errors.alloc, ini_errors.n + 1);
	ARRAY_GROW(ini_errors.line, ini_errors.alloc_line, ini_errors.n + 1);
	ini_errors.line[ini_errors.n] = ini_error_line(p);
	ini_errors.msg[ini_errors.n++] = xstrdup(p);
	return 0;
}

/* The lines iniparser could not read, as problems of ld; forgotten here. */
static void ini_errors_record(struct load *ld)
{
	char msg[ERR_MSG_MAX];

	for (size_t i = 0; i < ini_errors.n; i++) {
		snprintf(msg, sizeof(msg), "%s: %s", ld->path, ini_errors.msg[i]);
		cfg_problem_line(ld, ini_errors.line[i], msg);
		free(ini_errors.msg[i]);
	}
	free(ini_errors.msg);
	free(ini_errors.line);
	memset(&ini_errors, 0, sizeof(ini_errors));
}

/* A problem of the file as a whole, from e. */
static int ini_fail(struct load *ld)
{
	cfg_problem_line(ld, 0, ld->e->msg);
	return -1;
}

int cfg_ini_read(struct load *ld)
{
	const char *path = ld->path;
	struct stat st;
	FILE *f;

	if (stat(path, &st) < 0) {
		err_set(ld->e, ERR_FINAL, "%s: cannot read: %s", path, strerror(errno));
		return ini_fail(ld);
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(ld->e, ERR_FINAL, "%s: not a regular file", path);
		return ini_fail(ld);
	}
	if (st.st_size > CONFIG_MAX_BYTES) {
		err_set(ld->e, ERR_FINAL, "%s: larger than %d bytes", path, CONFIG_MAX_BYTES);
		return ini_fail(ld);
	}
	f = fopen(path, "r");
	if (!f) {
		err_set(ld->e, ERR_FINAL, "%s: cannot read: %s", path, strerror(errno));
		return ini_fail(ld);
	}
	fclose(f);
	iniparser_set_error_callback(ini_error_cb);
	ld->d = iniparser_load(path);
	iniparser_set_error_callback(NULL);
	if (ld->d && !ini_errors.n)
		return 0;
	if (ld->d)
		iniparser_freedict(ld->d);
	ld->d = NULL;
	if (!ini_errors.n) {
		err_set(ld->e, ERR_FINAL, "%s: cannot parse", path);
		return ini_fail(ld);
	}
	ini_errors_record(ld);
	return -1;
}


/* --------------------------------------------------- lines of the file */

static int line_cmp(const void *a, const void *b)
{
	const struct ini_line *x = a, *y = b;
	int c = strcmp(x->entry, y->entry);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void add_line(struct load *ld, const char *section, const char *key, size_t klen,
		     int line)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, key ? "%s:%.*s" : "%s", section, (int)klen, key ? key : "");
	for (size_t i = 0; i < b.len; i++)
		b.data[i] = (char)ascii_tolower((unsigned char)b.data[i]);
	ARRAY_GROW(ld->lines, ld->lalloc, ld->nlines + 1);
	ld->lines[ld->nlines].entry = buf_detach(&b, NULL);
	ld->lines[ld->nlines++].line = line;
}

/* s[0..n) without the white space around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && ascii_is_space((unsigned char)*s))
		s++, (*n)--;
	while (*n && ascii_is_space((unsigned char)s[*n - 1]))
		(*n)--;
	return s;
}

/*
 * As iniparser reads a line, closely enough to find it again: "[name]"
 * starts a section, "key = value" (or "key: value") is a key, ';' and '#'
 * start comments, a line after one ending in '\' continues it.
 */
void cfg_ini_lines(struct load *ld)
{
	char section[256] = "", *text = NULL;
	size_t cap = 0;
	bool cont = false;
	FILE *f = fopen(ld->path, "r");
	ssize_t len;
	int line = 0;

	if (!f)
		return;
	while ((len = getline(&text, &cap, f)) >= 0) {
		size_t n = (size_t)len;
		const char *s = trim(text, &n);
		bool was_cont = cont;

		line++;
		cont = n && s[n - 1] == '\\';
		if (was_cont || !n || *s == ';' || *s == '#')
			continue;
		if (*s == '[' && memchr(s, ']', n)) {
			size_t k = (size_t)((const char *)memchr(s, ']', n) - s - 1);
			const char *name = trim(s + 1, &k);

			snprintf(section, sizeof(section), "%.*s", (int)k, name);
			add_line(ld, section, NULL, 0, line);
		} else {
			size_t k = strcspn(s, "=:");
			const char *key = trim(s, &k);

			add_line(ld, section, key, k, line);
		}
	}
	free(text);
	fclose(f);
	if (ld->nlines)
		qsort(ld->lines, ld->nlines, sizeof(*ld->lines), line_cmp);
}

/* The first line of entry, or 0. */
static int first_line(const struct load *ld, const char *entry)
{
	size_t lo = 0, hi = ld->nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ld->lines[mid].entry, entry) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ld->nlines && !strcmp(ld->lines[lo].entry, entry) ? ld->lines[lo].line : 0;
}

int cfg_line_of(const struct load *ld, const char *section, const char *key)
{
	struct buf b;
	int line = 0;

	if (!section)
		return 0;
	buf_init(&b, 0);
	if (key)
		buf_printf(&b, "%s:%s", section, key);
	for (size_t i = 0; i < b.len; i++)
		b.data[i] = (char)ascii_tolower((unsigned char)b.data[i]);
	if (key)
		line = first_line(ld, b.data);
	if (!line)
		line = first_line(ld, section);
	buf_release(&b);
	return line;
}

void cfg_ini_lines_release(struct load *ld)
{
	for (size_t i = 0; i < ld->nlines; i++)
		free(ld->lines[i].entry);
	free(ld->lines);
	ld->lines = NULL;
	ld->nlines = ld->lalloc = 0;
}
