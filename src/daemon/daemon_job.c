/*
 * daemon_job.c - a job's life: made when a source hands a message over,
 * kept (its foreign bytes copied) when it waits for its lookups, freed
 * once decided.  The pipeline (daemon_msg.c) and deferral
 * (daemon_lookup.c) share it.
 */
#include "autoconf.h"
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_p.h"
#include "lib/buf.h"
#include "mail/msgid.h"

struct job *daemon_job_new(const struct origin *o, const char *raw, size_t len)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->o = *o;
	j->raw = raw;
	j->len = len;
	j->rawid = raw ? msgid_from_raw(raw, len) : NULL;
	message_init(&j->msg);
	lookup_results_init(&j->res);
	return j;
}

void daemon_job_keep(struct job *j)
{
	if (j->o.name && j->o.name != j->own_name)
		j->o.name = j->own_name = xstrdup(j->o.name);
	if (j->raw && j->raw != j->own_raw) {
		j->own_raw = xmalloc(j->len + 1);
		memcpy(j->own_raw, j->raw, j->len);
		j->own_raw[j->len] = '\0';
		j->raw = j->own_raw;
	}
}

void daemon_job_free(struct job *j)
{
	if (!j)
		return;
	if (j->p)
		patches_free(j->p, j->np);
	message_release(&j->msg);
	lookup_results_release(&j->res);
	free(j->key);
	free(j->rawid);
	free(j->own_raw);
	free(j->own_name);
	free(j);
}
