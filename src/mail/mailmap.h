/*
 * mailmap.h - git's .mailmap (gitmailmap(5)) read into a table that says
 * whether two addresses belong to one person.  A pure parser over memory:
 * the caller reads the file.  Parse once, then look up in O(log n).
 *
 *	struct mailmap *mm = mailmap_new();
 *
 *	mailmap_parse(mm, text, len);
 *	if (mailmap_same(mm, "Jane Doe", "jd@old.example", NULL, "jane@example.org"))
 *		...
 *	mailmap_free(mm);
 *
 * The four line forms, addresses compared without case, as git does:
 *
 *	Proper Name <proper@x>				(a name only: no address mapped)
 *	<proper@x> <commit@x>				commit@x -> proper@x
 *	Proper Name <proper@x> <commit@x>		commit@x -> proper@x
 *	Proper Name <proper@x> Commit Name <commit@x>	commit@x under that name -> proper@x
 *
 * A line starting with '#' is a comment, and so is anything after the last
 * address of a line.
 */
#ifndef TAGBOT_MAILMAP_H
#define TAGBOT_MAILMAP_H

#include <stdbool.h>
#include <stddef.h>

struct mailmap;

/* An empty table. */
struct mailmap *mailmap_new(void);

/* Adds the entries of the n bytes at s (a whole .mailmap file); lines that
 * hold no address are skipped.  May be called again for another file. */
void mailmap_parse(struct mailmap *mm, const char *s, size_t n);

/* Number of address mappings held. */
size_t mailmap_count(const struct mailmap *mm);

/*
 * The proper address of the person who wrote as name (may be NULL) <email>:
 * an entry for that name and address first, then one for the address
 * alone; email itself when none maps it.  The pointer is into mm or is
 * email; valid while both are.
 */
const char *mailmap_lookup(const struct mailmap *mm, const char *name, const char *email);

/* Whether <email_a> and <email_b> are one person: both map to the same
 * proper address, or one maps to the other.  False when mm is NULL. */
bool mailmap_same(const struct mailmap *mm, const char *name_a, const char *email_a,
		  const char *name_b, const char *email_b);

void mailmap_free(struct mailmap *mm);

#endif
