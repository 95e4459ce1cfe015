/*
 * status.c - `tagbot status`: what the state says of the daemon's work
 * (checkpoints, decisions by source and list, the outbox, the sink, the
 * last errors and the mail not delivered whole), read from the state
 * while a daemon may be writing it.
 */
#include "autoconf.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_p.h"
#include "config/secret.h"

static void print_checkpoint(void *ctx, const char *source, const char *folder,
			     const struct store_checkpoint *cp)
{
	fprintf(ctx, "checkpoint %s %s: uidvalidity %" PRIu32 ", last uid %" PRIu32 "\n", source,
		*folder ? folder : "-", cp->uidvalidity, cp->last_uid);
}

static void print_tally(FILE *out, const char *what, const char *name,
			const struct store_tally *t)
{
	fprintf(out, "%s %s: %ld messages: replied %ld, clean %ld, skipped %ld, error %ld\n",
		what, name, t->messages, t->replied, t->clean, t->skipped, t->errors);
}

static void print_source_tally(void *ctx, const struct store_tally *t)
{
	print_tally(ctx, "source", t->name, t);
}

/* The list by its ID (config_mail_list_id), as [list ID] names it. */
static void print_list_tally(void *ctx, const struct store_tally *t)
{
	char id[CONFIG_MAX_LIST_ID + 1];

	if (!*t->name || config_mail_list_id(t->name, NULL, id, sizeof(id)) < 0)
		snprintf(id, sizeof(id), "(none)");
	print_tally(ctx, "list", id, t);
}

struct error_list {
	FILE *out;
	size_t n;
};

static void print_error(void *ctx, const struct store_error_row *r)
{
	struct error_list *l = ctx;
	char when[32];
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&r->time, &tm));
	fprintf(l->out, "  %s %s <%s>: %s\n", when, r->what, r->msgid, r->detail);
	l->n++;
}

static void when_str(time_t t, char *b, size_t n)
{
	struct tm tm;

	strftime(b, n, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
}

/* One message a source did not deliver whole: "WHEN SOURCE FOLDER uid N:
 * skipped: unavailable after 5 tries: REASON", "... skipped: too-large
 * (BYTES bytes): REASON", or "... not delivered, try 2 of 5, next at
 * WHEN: REASON". */
static void print_unread(void *ctx, const struct store_unread *u)
{
	struct error_list *l = ctx;
	char when[32], next[32];

	when_str(u->time, when, sizeof(when));
	fprintf(l->out, "  %s %s %s uid %" PRIu32 ": ", when, u->source, *u->folder ? u->folder :
		"-", u->uid);
	if (u->state == STORE_UNREAD_TOO_LARGE) {
		fprintf(l->out, "skipped: too-large (%" PRIu64 " bytes): %s\n", u->size, u->reason);
	} else if (u->state == STORE_UNREAD_UNAVAILABLE) {
		fprintf(l->out, "skipped: unavailable after %d tries: %s\n", u->tries, u->reason);
	} else {
		when_str(u->next_try, next, sizeof(next));
		fprintf(l->out, "not delivered, try %d of %d, next at %s: %s\n", u->tries,
			DAEMON_RETRY_TRIES, next, u->reason);
	}
	l->n++;
}

/* "sink URL: ok since ..." or "sink URL: failing since ...: REASON". */
static int print_sink(struct store *st, FILE *out, struct err *e)
{
	struct store_sink_state ss = { 0 };
	char since[32], next[32];
	bool found;

	if (store_sink_state_get(st, &ss, &found, e) < 0)
		return -1;
	if (!found) {
		fprintf(out, "sink: no fault seen\n");
		return 0;
	}
	when_str(ss.since, since, sizeof(since));
	when_str(ss.next_try, next, sizeof(next));
	if (ss.failing)
		fprintf(out, "sink %s: failing since %s, %d tries, next at %s (or on SIGHUP): %s\n",
			ss.sink, since, ss.failures, next, ss.reason);
	else
		fprintf(out, "sink %s: ok since %s\n", ss.sink, since);
	store_sink_state_release(&ss);
	return 0;
}

int daemon_status(const char *config, FILE *out, struct err *e)
{
	struct store_settings ss;
	struct store_counts c;
	struct config cfg;
	struct store *st = NULL;
	struct error_list errors = { out, 0 };
	char *password = NULL, *shown;
	int rc = -1;

	config_init(&cfg);
	if (config_load(&cfg, config, e) < 0)
		goto out;
	if (!store_is_url(cfg.tagbot.state) && access(cfg.tagbot.state, F_OK) < 0) {
		err_set(e, ERR_FINAL, "%s: no state yet (tagbot run has not run): %s",
			cfg.tagbot.state, strerror(errno));
		goto out;
	}
	if (daemon_state_settings(&cfg.tagbot, &ss, &password, e) < 0)
		goto out;
	rc = store_open(&st, &ss, e);
	secret_free(password);
	if (rc < 0) {
		err_prefix(e, "[tagbot] state");
		goto out;
	}
	rc = -1;
	shown = store_mask_url(cfg.tagbot.state);
	fprintf(out, "state %s\n", shown);
	free(shown);
	if (store_checkpoint_foreach(st, print_checkpoint, out, e) < 0 ||
	    store_counts(st, &c, e) < 0)
		goto out;
	fprintf(out, "messages %ld: replied %ld, clean %ld, skipped %ld, error %ld\n",
		c.messages, c.replied, c.clean, c.skipped, c.errors);
	if (store_counts_by_source(st, print_source_tally, out, e) < 0 ||
	    store_counts_by_list(st, print_list_tally, out, e) < 0)
		goto out;
	fprintf(out, "outbox: queued %ld, sent %ld, failed %ld\n", c.queued, c.sent, c.failed);
	if (print_sink(st, out, e) < 0)
		goto out;
	fprintf(out, "last errors:\n");
	rc = store_recent_errors(st, DAEMON_STATUS_ERRORS, print_error, &errors, e);
	if (rc == 0 && errors.n == 0)
		fprintf(out, "  none\n");
	if (rc < 0)
		goto out;
	/* The mail the sources did not deliver whole, and what became of it. */
	errors.n = 0;
	fprintf(out, "unread mail:\n");
	rc = store_unread_recent(st, DAEMON_STATUS_ERRORS, print_unread, &errors, e);
	if (rc == 0 && errors.n == 0)
		fprintf(out, "  none\n");
out:
	store_close(st);
	config_release(&cfg);
	return rc;
}
