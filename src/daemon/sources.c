/*
 * sources.c - what every source driver (source.h) has: making a source of
 * the driver its type names, freeing it, and where a folder's reading
 * starts after the server told its numbers.
 */
#include "autoconf.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_p.h"
#include "lib/log.h"

struct source *daemon_source_new(const struct config_source *c, const struct source_env *env)
{
	const struct source_ops *ops = c->type == SOURCE_IMAP ? &daemon_imap_source :
		c->type == SOURCE_NNTP ? &daemon_nntp_source : &daemon_maildir_source;
	struct source *s = xcalloc(1, ops->size);
	struct buf b;

	if (ops->init)
		ops->init(s);
	s->ops = ops;
	s->env = env;
	s->c = c;
	config_source_label(c, s->label, sizeof(s->label));
	buf_init(&b, 0);
	/* [source]'s checkpoints keep the names they had before there were
	 * several sources; a named source's are its own, even when another
	 * reads the same server */
	if (c->name)
		buf_printf(&b, "%s/", c->name);
	if (c->type == SOURCE_IMAP)
		buf_printf(&b, "imap:%s@%s", c->user, c->host);
	else if (c->type == SOURCE_NNTP)
		buf_printf(&b, "nntp:%s:%d", c->host,
			   c->port ? c->port : c->tls == CONFIG_TLS_IMPLICIT ||
			   c->tls == CONFIG_TLS_DEFAULT ? 563 : 119);
	else
		buf_printf(&b, "maildir:%s", c->path);
	s->id = buf_detach(&b, NULL);
	s->one.name = xstrdup(c->type == SOURCE_IMAP ? c->folder : "");
	s->f = &s->one;
	return s;
}

void daemon_source_free(struct source *s)
{
	if (!s)
		return;
	if (s->ops->connected(s))
		s->ops->close(s);
	free(s->owner);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i]->name);
		free(s->groups[i]->retries);
		free(s->groups[i]);
	}
	free(s->groups);
	free(s->one.name);
	free(s->one.retries);
	free(s->id);
	if (s->ops->release)
		s->ops->release(s);
	free(s);
}

time_t daemon_source_now(const struct source *s)
{
	return s->env->now(s->env->aux);
}

/* Whether the folder's numbers started again (enum renumber). */
static bool renumbered(const struct store_checkpoint *cp, const struct folder_numbers *n)
{
	if (n->how == RENUMBER_UIDVALIDITY)
		return cp->uidvalidity != n->valid;
	return n->valid < cp->uidvalidity || (n->next ? n->next - 1 : 0) < cp->last_uid;
}

int daemon_folder_start(struct source *s, struct folder *f, const struct folder_numbers *n,
			struct err *e)
{
	const struct source_env *env = s->env;
	struct store_folder where = { s->id, f->name };
	struct store_checkpoint cp = { 0, 0 };
	bool found = f->cp_known;
	uint32_t valid = n->valid, first = n->first, next = n->next;

	if (found)
		cp = f->cp;
	else if (store_checkpoint_get(env->st, &where, &cp, &found, e) < 0)
		return -1;
	if (!found) {
		cp.uidvalidity = valid;
		cp.last_uid = s->c->backfill ? (first ? first - 1 : 0) : (next ? next - 1 : 0);
		log_msg(LOGL_INFO, "%s %s %s: first start: %s", s->label, s->ops->name, f->name,
			s->c->backfill ? "backfill from the first message" : "only mail from now on");
	} else if (renumbered(&cp, n)) {
		if (n->how == RENUMBER_UIDVALIDITY)
			log_msg(LOGL_WARNING, "%s %s %s: UIDVALIDITY changed from %" PRIu32 " to %"
				PRIu32 ": rescanning, known Message-IDs are skipped", s->label,
				s->ops->name, f->name, cp.uidvalidity, valid);
		else
			log_msg(LOGL_WARNING, "%s %s %s: renumbered (low water mark %" PRIu32
				", was %" PRIu32 "; high %" PRIu32 ", last handled %" PRIu32 "): "
				"rescanning, known Message-IDs are skipped", s->label,
				s->ops->name, f->name, valid, cp.uidvalidity, next ? next - 1 : 0,
				cp.last_uid);
		cp.uidvalidity = valid;
		cp.last_uid = first ? first - 1 : 0;
		/* the mail there now is rescanned: see before_start() */
		f->rescan_until = next ? next - 1 : 0;
		/* and the numbers of the mail not delivered name other mail */
		if (daemon_retries_forget(s, f, e) < 0)
			return -1;
	} else if (f->cp_known && cp.uidvalidity == valid) {
		return 0;	/* nothing moved */
	} else if (f->shared && cp.uidvalidity == valid) {
		/* the store's, which another daemon moves: not written back */
		f->cp = f->cp_committed = cp;
		f->cp_known = true;
		return 0;
	} else {
		cp.uidvalidity = valid;	/* a low water mark moves up as articles expire */
	}
	f->cp = f->cp_committed = cp;
	f->cp_known = true;
	/* Not past a message still asked for again (daemon_unread.c). */
	f->cp_committed.last_uid = env->hold(env->aux, cp.last_uid);
	return store_checkpoint_set(env->st, &where, &f->cp_committed, e);
}
