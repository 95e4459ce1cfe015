/*
 * linkref.h - archive URLs and the Message-IDs they name (tagbot-rules(7)
 * LINKS): lore, lkml.kernel.org/r, (patch.)msgid.link, patchwork.  Pure
 * functions; the URL forms are a pattern_list so admins can add their own.
 */
#ifndef TAGBOT_LINKREF_H
#define TAGBOT_LINKREF_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/pattern.h"
#include "mail/msgid.h"

/* NULL-terminated default pattern sources (PCRE2, one capture group: the
 * path segment that holds the Message-ID). */
extern const char *const linkref_default_archives[];
/* NULL-terminated default bug-tracker URL patterns (LINK_SHOULD_BE_CLOSES). */
extern const char *const linkref_default_bugtrackers[];
/* NULL-terminated old-archive host patterns (PREFER_LORE_ARCHIVE). */
extern const char *const linkref_old_archives[];

/*
 * When the URL (n bytes) matches an archive pattern, returns the Message-ID it
 * names: percent-decoded (%40 %2B %3D %2F and any other %XX), <> removed;
 * malloc'ed.  Otherwise NULL.
 */
char *linkref_msgid(const struct pattern_list *archives, const char *url, size_t n);

/*
 * b4-style Message-ID "20240115-topic-name-v3-2-0123abcd@domain": on success
 * sets *stem (malloc'ed: "20240115-topic-name" + "@domain") and *version
 * (1 when no -vN- part) and returns true.
 */
bool linkref_b4_parse(const char *msgid, char **stem, int *version);

/* Percent-decodes n bytes; malloc'ed. */
char *linkref_percent_decode(const char *s, size_t n);

#endif
