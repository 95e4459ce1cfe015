#include "autoconf.h"
#include "rules/linkfacts.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ascii.h"
#include "lib/buf.h"

static const char *const status_names[] = {
	[LOOKUP_UNKNOWN] = "unknown", [LOOKUP_ALIVE] = "alive", [LOOKUP_DEAD] = "dead",
};

const char *lookup_status_name(enum lookup_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

void lookup_results_init(struct lookup_results *r)
{
	r->v = NULL;
	r->n = r->alloc = 0;
}

void lookup_result_release(struct lookup_result *r)
{
	free(r->url);
	free(r->msgid);
	free(r->subject);
	free(r->author);
	free(r->sender);
}

void lookup_results_release(struct lookup_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		lookup_result_release(&r->v[i]);
	free(r->v);
	lookup_results_init(r);
}

const struct lookup_result *lookup_results_find(const struct lookup_results *r,
						const char *url, size_t n)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (strlen(r->v[i].url) == n && !memcmp(r->v[i].url, url, n))
			return &r->v[i];
	return NULL;
}

/* --- which lines hold a link -------------------------------------------- */

static bool is_version_label(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 4 || s[0] != '(' || (s[1] != 'v' && s[1] != 'V') || s[n - 1] != ')')
		return false;
	while (i < n - 1 && s[i] >= '0' && s[i] <= '9')
		i++;
	return i == n - 1 && i > 2;
}

/* "...c.com/[1]" and "...(v1)": a label glued to the URL (as rules/links.c
 * reads it: a URL may hold parentheses, only "(vN)" is a label). */
static size_t cut_label(const char *u, size_t n)
{
	size_t k;

	if (!n || (u[n - 1] != ']' && u[n - 1] != ')'))
		return n;
	k = n - 1;
	while (k > 0 && u[k] != (u[n - 1] == ']' ? '[' : '(') && u[k] != '/')
		k--;
	if (k > 0 && u[k] == '[')
		return k;
	if (k > 0 && u[k] == '(' && is_version_label(u + k, n - k))
		return k;
	return n;
}

bool lookup_link_line(const struct line *l, const char **url, size_t *n, bool *is_link)
{
	const char *s = l->p, *e = l->p + l->len, *q;
	size_t k;

	if (ascii_has_prefix_ci(s, l->len, "Link"))
		q = s + 4, *is_link = true;
	else if (ascii_has_prefix_ci(s, l->len, "Closes"))
		q = s + 6, *is_link = false;
	else
		return false;
	while (q < e && ascii_is_blank((unsigned char)*q))
		q++;
	if (q == e || *q != ':')
		return false;
	for (q++; q < e && ascii_is_blank((unsigned char)*q); q++)
		;
	for (k = 0; q + k < e && !ascii_is_blank((unsigned char)q[k]); k++)
		;
	k = cut_label(q, k);
	if (!((ascii_has_prefix_ci(q, k, "http://") && k > 7) || (ascii_has_prefix_ci(q, k, "https://") && k > 8)))
		return false;
	*url = q;
	*n = k;
	return true;
}

