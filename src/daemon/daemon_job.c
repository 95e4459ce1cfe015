/*
 * daemon_job.c - a job's life: made when a source hands a message over,
 * kept (its foreign bytes copied) when it waits for its lookups, freed
 * once decided; and the store's key of a mail without a Message-ID.  The
 * pipeline (daemon_msg.c), deferral (daemon_lookup.c) and the mail not
 * delivered whole (daemon_unread.c) share it.
 */
#include "autoconf.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_p.h"
#include "lib/buf.h"
#include "mail/msgid.h"

/* ------------------------------------------------------------ keys */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *daemon_synthetic_key(const struct message *msg, const char *raw, size_t len)
{
	static const char *const names[] = { "From", "Subject", "Date" };
	uint64_t h = 0xcbf29ce484222325ULL;
	char key[64];

	if (msg) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			const char *v = message_header_raw(msg, names[i]);

			if (v)
				h = fnv1a(h, v, strlen(v) + 1);
		}
		h = fnv1a(h, msg->text, msg->text_len);
	} else {
		h = fnv1a(h, raw, len);
	}
	snprintf(key, sizeof(key), "no-message-id.%016" PRIx64 "@tagbot.invalid", h);
	return xstrdup(key);
}

/* ------------------------------------------------------------ jobs */

struct job *daemon_job_new(struct source *src, const struct origin *o, const char *raw,
			   size_t len)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->src = src;
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

void daemon_decision_release(struct decision *rec)
{
	if (!rec->built)
		return;
	recipients_release(&rec->who);
	free(rec->told_to);
	msg_context_release(&rec->ctx);
	findings_release(&rec->f);
	memset(rec, 0, sizeof(*rec));
}

void daemon_job_free(struct job *j)
{
	if (!j)
		return;
	daemon_decision_release(&j->rec);
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
