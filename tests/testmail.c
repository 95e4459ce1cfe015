/*
 * testmail.c - testhelp.h's helpers over parsed mail and findings.
 */
#include "autoconf.h"
#include <stdio.h>
#include <string.h>

#include "mail/message.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "testhelp.h"

void th_check_mail(const char *raw, const struct rule_settings *settings, struct findings *fs)
{
	struct rule_settings defaults;
	struct message m;
	struct patch *p;
	size_t np;
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, strlen(raw), &e) == 0, "parse: %s", e.msg);
	patch_parse(&m, &p, &np);
	ck_assert_uint_ge(np, 1);
	if (!settings) {
		rule_settings_init(&defaults);
		rules_run(&p[0], &defaults, fs);
		rule_settings_release(&defaults);
	} else {
		rules_run(&p[0], settings, fs);
	}
	patches_free(p, np);
	message_release(&m);
}

size_t th_count(const struct findings *fs, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].rule, id))
			n++;
	return n;
}

const char *th_dump(const struct findings *fs)
{
	static char out[8192];
	size_t off = 0;

	out[0] = '\0';
	for (size_t i = 0; i < fs->n && off < sizeof(out) - 1; i++) {
		int n = snprintf(out + off, sizeof(out) - off, "%zu:%s:%s\n", fs->v[i].line,
				 fs->v[i].rule, fs->v[i].message);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return out;
}
