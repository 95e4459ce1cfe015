/*
 * sources.c - [source] and the [source NAME] sections: each a struct
 * config_source, read with the keys of [source].
 */
#include "autoconf.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ascii.h"
#include "lib/buf.h"
#include "config/config_p.h"

bool cfg_is_source_section(const char *s)
{
	return !strncmp(s, SOURCE_SECTION, strlen(SOURCE_SECTION));
}

/* The NAME of a [source NAME] section into *name (points into section):
 * it names the source in logs and in `tagbot status`. */
int cfg_source_section_name(const char *section, const char **name, struct err *e)
{
	const char *s = section + strlen(SOURCE_SECTION);
	size_t n;

	s += strspn(s, " \t");
	*name = s;
	n = strlen(s);
	if (!n)
		return err_set(e, ERR_FINAL, "a named source needs a name: [source lkml]");
	if (n > CONFIG_MAX_SOURCE_NAME)
		return err_set(e, ERR_FINAL, "source name longer than %d bytes",
			       CONFIG_MAX_SOURCE_NAME);
	for (const char *p = s; *p; p++)
		if (!ascii_is_alnum((unsigned char)*p) && !strchr("-_.", *p))
			return err_set(e, ERR_FINAL, "a source name holds only letters, digits, "
				       "'-', '_' and '.'");
	return 0;
}


void cfg_source_defaults(struct config_source *s)
{
	memset(s, 0, sizeof(*s));
	s->type = SOURCE_MAILDIR;
	s->folder = xstrdup("INBOX");
	s->idle = true;
	s->poll_interval = 60;
	s->batch = 50;
	s->timeout = CONFIG_DEFAULT_SOURCE_TIMEOUT;
	s->max_message_size = CONFIG_DEFAULT_MAX_MESSAGE;
	s->retry_after = CONFIG_DEFAULT_RETRY_AFTER;
}

/* The owned strings of a struct config_source. */
static const size_t source_strings[] = {
	offsetof(struct config_source, name), offsetof(struct config_source, host),
	offsetof(struct config_source, ca_file), offsetof(struct config_source, user),
	offsetof(struct config_source, password_file),
	offsetof(struct config_source, password_command),
	offsetof(struct config_source, folder), offsetof(struct config_source, path),
};

void cfg_source_release(struct config_source *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(source_strings); i++) {
		char **f = (char **)((char *)s + source_strings[i]);

		free(*f);
		*f = NULL;
	}
	cfg_list_release(&s->groups);
}

/* One [source NAME]: the defaults of [source], then the rows of [source]
 * read from this section, into the same fields of its own struct. */
static int add_source(struct load *ld, const char *section, size_t *alloc)
{
	struct config *c = ld->c;
	struct config_source *s;
	const char *name;

	if (cfg_source_section_name(section, &name, ld->e) < 0)
		return cfg_fail_at(ld, section, NULL);
	if (c->nsources >= CONFIG_MAX_SOURCES) {
		err_set(ld->e, ERR_FINAL, "more than %d source sections", CONFIG_MAX_SOURCES);
		return cfg_fail_at(ld, section, NULL);
	}
	ARRAY_GROW(c->sources, *alloc, c->nsources + 1);
	s = &c->sources[c->nsources++];	/* released with c on failure */
	cfg_source_defaults(s);
	s->name = xstrdup(name);
	return cfg_apply_keys(ld, section, cfg_source_keys, SIZE_MAX, s);
}

int cfg_apply_sources(struct load *ld)
{
	size_t alloc = 0;
	int rc = 0;

	ld->c->source_set = cfg_has_section(ld, "source");
	for (ssize_t i = 0; i < ld->d->size; i++) {
		const char *k = ld->d->key[i];

		if (k && !ld->d->val[i] && cfg_is_source_section(k) && add_source(ld, k, &alloc) < 0)
			rc = -1;
	}
	return rc;
}

/* The section of s as cfg_fail_at() names it: "source" or "source NAME". */
const char *cfg_section_of(const struct config_source *s, char *out, size_t size)
{
	if (!s->name)
		return "source";
	snprintf(out, size, "%s%s", SOURCE_SECTION, s->name);
	return out;
}


size_t config_sources(const struct config *c, const struct config_source **out, size_t max)
{
	size_t n = 0;

	if ((c->source_set || !c->nsources) && n < max)
		out[n++] = &c->source;
	for (size_t i = 0; i < c->nsources && n < max; i++)
		out[n++] = &c->sources[i];
	return n;
}

const char *config_source_label(const struct config_source *s, char *out, size_t size)
{
	if (s->name)
		snprintf(out, size, "[%s%s]", SOURCE_SECTION, s->name);
	else
		snprintf(out, size, "[source]");
	return out;
}

/* The directory part of path, "." when it has none. */
