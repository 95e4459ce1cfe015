/*
 * mailmap.c - git's .mailmap format (see mailmap.h).
 *
 * Entries live in one array sorted by (address, name) once parsing is done,
 * so a lookup is a binary search: the kernel's file has a thousand lines,
 * and every patch asks about two or three addresses.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/ascii.h"
#include "lib/lib.h"
#include "mail/mailmap.h"

struct mm_entry {
	char *old_email;	/* owned; lower-cased */
	char *old_name;		/* owned; NULL: any name */
	char *new_email;	/* owned; as written */
};

struct mailmap {
	struct mm_entry *v;	/* owned */
	size_t n, alloc;
	bool sorted;
};

struct mailmap *mailmap_new(void)
{
	struct mailmap *mm = xcalloc(1, sizeof(*mm));

	mm->sorted = true;
	return mm;
}

static char *dup_trim(const char *s, const char *e)
{
	while (s < e && ascii_is_lws(*s))
		s++;
	while (e > s && ascii_is_lws(e[-1]))
		e--;
	return s < e ? xstrndup(s, (size_t)(e - s)) : NULL;
}

static char *dup_lower(const char *s, const char *e)
{
	char *d = dup_trim(s, e);

	for (char *p = d; p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return d;
}

/* "[name] <email>" at [*s, e): fills name and email (malloc'ed or NULL)
 * and moves *s past '>'.  False when no complete <...> follows. */
static bool next_pair(const char **s, const char *e, char **name, char **email)
{
	const char *lt = memchr(*s, '<', (size_t)(e - *s)), *gt;

	*name = *email = NULL;
	if (!lt || !(gt = memchr(lt, '>', (size_t)(e - lt))))
		return false;
	*name = dup_trim(*s, lt);
	*email = dup_trim(lt + 1, gt);
	*s = gt + 1;
	return true;
}

static void add_entry(struct mailmap *mm, char *old_email, char *old_name, char *new_email)
{
	struct mm_entry *x;

	ARRAY_GROW(mm->v, mm->alloc, mm->n + 1);
	x = &mm->v[mm->n++];
	x->old_email = dup_lower(old_email, old_email + strlen(old_email));
	x->old_name = old_name;
	x->new_email = new_email;
	mm->sorted = false;
}

static void parse_line(struct mailmap *mm, const char *s, const char *e)
{
	char *name1, *email1, *name2 = NULL, *email2 = NULL;

	if (s < e && *s == '#')
		return;
	if (!next_pair(&s, e, &name1, &email1))
		return;
	next_pair(&s, e, &name2, &email2);
	/* "Proper Name <proper@x>" maps a name, no address: nothing for us */
	if (email1 && email2)
		add_entry(mm, email2, name2, email1), name2 = email1 = NULL;
	free(email2);
	free(email1);
	free(name2);
	free(name1);
}

static int entry_cmp(const void *x, const void *y)
{
	const struct mm_entry *a = x, *b = y;
	int r = strcmp(a->old_email, b->old_email);

	if (r)
		return r;
	if (!a->old_name || !b->old_name)
		return !!a->old_name - !!b->old_name;	/* the nameless first */
	return strcasecmp(a->old_name, b->old_name);
}

void mailmap_parse(struct mailmap *mm, const char *s, size_t n)
{
	const char *e = s + n;

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e;

		parse_line(mm, s, le);
		s = nl ? nl + 1 : e;
	}
	if (!mm->sorted)
		qsort(mm->v, mm->n, sizeof(*mm->v), entry_cmp);
	mm->sorted = true;
}

size_t mailmap_count(const struct mailmap *mm)
{
	return mm ? mm->n : 0;
}

/* Index of the first entry for the lower-cased address key, or mm->n. */
static size_t first_of(const struct mailmap *mm, const char *key)
{
	size_t lo = 0, hi = mm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(mm->v[mid].old_email, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mm->n && !strcmp(mm->v[lo].old_email, key) ? lo : mm->n;
}

const char *mailmap_lookup(const struct mailmap *mm, const char *name, const char *email)
{
	char *key;
	const char *found = NULL;
	size_t i;

	if (!mm || !email || !*email)
		return email;
	key = dup_lower(email, email + strlen(email));
	for (i = key ? first_of(mm, key) : mm->n; i < mm->n && !strcmp(mm->v[i].old_email, key); i++) {
		const struct mm_entry *x = &mm->v[i];

		if (!x->old_name)
			found = found ? found : x->new_email;
		else if (name && !strcasecmp(x->old_name, name))
			found = x->new_email;	/* the name-specific entry wins */
	}
	free(key);
	return found ? found : email;
}

bool mailmap_same(const struct mailmap *mm, const char *name_a, const char *email_a,
		  const char *name_b, const char *email_b)
{
	const char *pa, *pb;

	if (!mm || !mm->n || !email_a || !email_b || !*email_a || !*email_b)
		return false;
	pa = mailmap_lookup(mm, name_a, email_a);
	pb = mailmap_lookup(mm, name_b, email_b);
	return !strcasecmp(pa, pb) || !strcasecmp(pa, email_b) || !strcasecmp(email_a, pb);
}

void mailmap_free(struct mailmap *mm)
{
	if (!mm)
		return;
	for (size_t i = 0; i < mm->n; i++) {
		free(mm->v[i].old_email);
		free(mm->v[i].old_name);
		free(mm->v[i].new_email);
	}
	free(mm->v);
	free(mm);
}
