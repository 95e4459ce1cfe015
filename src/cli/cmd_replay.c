/*
 * cmd_replay.c - `tagbot replay`: mails from input.h's readers through
 * the offline daemon (daemon.h) over a scratch store, reported through the daemon's decision hook.  Nothing of
 * the daemon's logic is repeated here: what replay prints is what `tagbot
 * run` would have decided, with each mail's Date as the clock, so the rate
 * limits and series windows see the list's own pace.  With --show-replies
 * the daemon's reply hook prints each reply as it is queued.
 */
#include "autoconf.h"
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "cli/cmd_check.h"
#include "cli/cmd_replay.h"
#include "daemon/daemon.h"
#include "cli/input.h"
#include "config/listpolicy.h"
#include "lib/log.h"
#include "mail/maildate.h"
#include "mail/message.h"
#include "reply/reply.h"
#include "mail/msgid.h"
#include "lib/utf8.h"

#define DEFAULT_CONFIG		SYSCONFDIR "/tagbot.ini"
#define REPLAY_MAX_TALLY	512	/* distinct decision labels / rule IDs counted */
#define REPLAY_ID_MAX		200	/* bytes of a Message-ID printed */
#define REPLAY_HEADER_MAX	998	/* bytes of a reply's header value printed */
#define DATE_SCAN_MAX		((size_t)256 * 1024) /* raw header bytes searched for Date */
#define DATE_VALUE_MAX		256	/* bytes of a Date value read */
#define DAY_SECONDS		86400
#define STATS_TOP_PERSONS	10	/* rows of --stats' replies by person */

static const char usage[] =
	"usage: tagbot replay [-c FILE] [--since DATE] [--until DATE] [--show-replies]\n"
	"                     [--stats] SOURCE...\n"
	"\n"
	"Runs the daemon's whole pipeline (policy, [list ...] sections, dedupe,\n"
	"series, rate limits) over mboxes, Maildirs and directories of mail, with\n"
	"sending off and a scratch database instead of [tagbot] state, and prints\n"
	"what `tagbot run` would have done with each message, then totals per\n"
	"decision and per rule.  Each mail's Date header is the clock.  The parts\n"
	"of a series wait for its reply (\"skipped: series\"); when the series has\n"
	"nothing to say, each part gets a second line, \"clean\".\n"
	"\n"
	"options:\n"
	"  -c, --config FILE   the ini file (default " DEFAULT_CONFIG ")\n"
	"      --since DATE    only mails dated DATE (YYYY-MM-DD, UTC) or later\n"
	"      --until DATE    only mails dated DATE or earlier\n"
	"  -q, --quiet         no line per message\n"
	"      --show-replies  print each reply that would be sent: its To, Cc,\n"
	"                      Subject, In-Reply-To and text\n"
	"      --stats         after the totals, what the bot would say to the\n"
	"                      list: the replies by rule and by person (the 10\n"
	"                      most told), and the decisions, most first\n"
	"  -h, --help          show this text\n"
	"\n"
	"exit status: 0 done, 2 usage, configuration or unreadable input.\n";

/* The raw Date header (unfolded, at most DATE_VALUE_MAX bytes) of raw into
 * out; -1 when there is none in the header. */
static int raw_date(const char *raw, size_t len, char out[DATE_VALUE_MAX + 1])
{
	size_t i = 0, max = len < DATE_SCAN_MAX ? len : DATE_SCAN_MAX, n = 0;
	bool in_date = false;

	while (i < max) {
		const char *nl = memchr(raw + i, '\n', max - i);
		size_t l = nl ? (size_t)(nl - (raw + i)) : max - i;
		const char *v = raw + i;

		if (l == 0 || (l == 1 && *v == '\r'))
			break;
		if (in_date && *v != ' ' && *v != '\t')
			break;	/* the next header */
		if (!in_date && l > 5 && !strncasecmp(v, "Date:", 5)) {
			in_date = true;
			v += 5;
			l -= 5;
		}
		for (size_t k = 0; in_date && k < l && n < DATE_VALUE_MAX; k++)
			out[n++] = v[k] == '\0' || v[k] == '\r' ? ' ' : v[k];
		i += l + 1;
	}
	out[n] = '\0';
	return in_date ? 0 : -1;
}

/* ------------------------------------------------------------- tallies */

struct tally {
	char *name[REPLAY_MAX_TALLY];	/* owned */
	size_t count[REPLAY_MAX_TALLY][2];
	size_t n;
};

/* Adds one to column col of name (the last slot takes the overflow). */
static void tally_add(struct tally *t, const char *name, int col)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name))
			break;
	if (i == t->n) {
		if (t->n == REPLAY_MAX_TALLY)
			i = t->n - 1;
		else
			t->name[t->n++] = xstrdup(name);
	}
	t->count[i][col]++;
}

/* Takes one off column col of name, when it has one. */
static void tally_sub(struct tally *t, const char *name, int col)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name)) {
			if (t->count[i][col])
				t->count[i][col]--;
			return;
		}
}

static void tally_release(struct tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	t->n = 0;
}

/* ------------------------------------------------------------ reporting */

/* A decision a later one may replace: a part held for its series' reply
 * or a reply held by a rate limit; when that reply is queued to the same
 * message, the message is counted once, as answered. */
struct provisional {
	char *key;	/* owned; msgid_key() form */
	char *label;	/* owned; what it was counted as */
	char *rules;	/* owned; the rules counted with it, or NULL */
	int col;	/* their rules column, -1: none */
};

struct replay {
	FILE *out;
	bool quiet;
	bool show_replies;
	size_t messages;	/* handed to the daemon */
	size_t outside;		/* left out by --since / --until */
	size_t undated;		/* no usable Date: decided at replay time */
	size_t unreadable;	/* the readers' INPUT_SKIP */
	struct tally decisions;
	struct tally rules;	/* col 0: in would-be replies, 1: held or disabled */
	bool stats;
	size_t replies;		/* queued replies (--stats) */
	struct tally persons;	/* col 0: replies to each To address (--stats) */
	struct provisional *prov;	/* owned */
	size_t nprov, aprov;
};

/* The distinct rules of f at or above min, ", "-separated, into b. */
static void rule_list(const struct findings *f, enum severity min, struct buf *b)
{
	for (size_t i = 0; f && i < f->n; i++) {
		bool dup = false;

		if (f->v[i].severity < min)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = f->v[j].severity >= min && !strcmp(f->v[j].rule, f->v[i].rule);
		if (!dup)
			buf_printf(b, "%s%s", b->len ? ", " : "", f->v[i].rule);
	}
}

static void count_rules(struct replay *r, const struct findings *f, enum severity min, int col)
{
	struct buf b;
	char *p, *save = NULL;

	buf_init(&b, 0);
	rule_list(f, min, &b);
	if (b.len)
		for (p = strtok_r(b.data, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
			tally_add(&r->rules, p, col);
	buf_release(&b);
}

/* "would reply", "clean", "skipped: why", "held: why": also the tally key. */
static void decision_label(const struct daemon_decision *dd, struct buf *b, int *rules_col)
{
	*rules_col = -1;
	switch (dd->decision) {
	case STORE_REPLIED:
		buf_printf(b, "would reply");
		*rules_col = 0;
		break;
	case STORE_CLEAN:
		buf_printf(b, "clean");
		break;
	case STORE_ERROR:
		buf_printf(b, "skipped: unparsable or unreadable");
		break;
	default:
		if (dd->why && !strncmp(dd->why, "rate-limit", 10)) {
			buf_printf(b, "held: %s", dd->why);
			*rules_col = 1;
		} else {
			buf_printf(b, "skipped: %s", dd->why ? dd->why : "?");
			if (dd->why && !strcmp(dd->why, LIST_DISABLED_REASON))
				*rules_col = 1;
		}
		break;
	}
}

static bool is_provisional(const char *label)
{
	return !strcmp(label, "skipped: series") || !strncmp(label, "held: ", 6);
}

static void count_rules_text(struct replay *r, const char *list, int col, bool add)
{
	char *b = xstrdup(list), *p, *save = NULL;

	for (p = strtok_r(b, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
		if (add)
			tally_add(&r->rules, p, col);
		else
			tally_sub(&r->rules, p, col);
	}
	free(b);
}

static void provisional_free(struct provisional *p)
{
	free(p->key);
	free(p->label);
	free(p->rules);
}

/* key was answered: what it was counted as before is taken back. */
static void settle(struct replay *r, const char *key)
{
	char *k = msgid_key(key);

	for (size_t i = 0; k && i < r->nprov; i++) {
		struct provisional *p = &r->prov[i];

		if (strcmp(p->key, k))
			continue;
		tally_sub(&r->decisions, p->label, 0);
		if (p->rules && p->col >= 0)
			count_rules_text(r, p->rules, p->col, false);
		provisional_free(p);
		r->prov[i] = r->prov[--r->nprov];
		break;
	}
	free(k);
}

static void remember(struct replay *r, const char *key, const char *label,
		     const struct buf *rules, int col)
{
	char *k = msgid_key(key);
	struct provisional *p;

	if (!k)
		return;
	ARRAY_GROW(r->prov, r->aprov, r->nprov + 1);
	p = &r->prov[r->nprov++];
	p->key = k;
	p->label = xstrdup(label);
	p->rules = rules->len ? xstrdup(rules->data) : NULL;
	p->col = col;
}

/*
 * One line per decision, as the daemon makes them (a series' lead shows
 * "skipped: series" and later "would reply"); the totals count each
 * message once, by its last decision.
 */
static void on_decision(void *arg, const struct daemon_decision *dd)
{
	struct replay *r = arg;
	struct buf label, rules;
	char *id = utf8_clean_line(dd->key, strlen(dd->key), REPLAY_ID_MAX);
	int col;

	buf_init(&label, 0);
	buf_init(&rules, 0);
	decision_label(dd, &label, &col);
	/* A series part's "skipped: series" is replaced by its series' outcome. */
	if (dd->decision == STORE_REPLIED || dd->decision == STORE_CLEAN)
		settle(r, dd->key);
	tally_add(&r->decisions, label.data, 0);
	if (col >= 0) {
		rule_list(dd->f, dd->min, &rules);
		count_rules(r, dd->f, dd->min, col);
	}
	if (is_provisional(label.data))
		remember(r, dd->key, label.data, &rules, col);
	if (!r->quiet) {
		fprintf(r->out, "%s: %s", id, label.data);
		if (rules.len)
			fprintf(r->out, " (%s)", rules.data);
		fputc('\n', r->out);
	}
	buf_release(&rules);
	buf_release(&label);
	free(id);
}

/* One header of the reply, on one line, or nothing when it has none. */
static void print_header(FILE *out, const struct message *m, const char *name, bool decoded)
{
	const char *v = decoded ? message_header(m, name) : message_header_raw(m, name);
	char *clean;

	if (!v)
		return;
	clean = utf8_clean_line(v, strlen(v), REPLAY_HEADER_MAX);
	fprintf(out, "%s: %s\n", name, clean);
	free(clean);
}

/* --show-replies: a reply as it was queued, read back as a mail; --stats:
 * counted for its first recipient (the To: person). */
static void on_reply(void *arg, const char *parent, const struct reply *r)
{
	struct replay *rp = arg;
	char *id;
	struct message m;
	struct err e;

	if (rp->stats) {
		rp->replies++;
		tally_add(&rp->persons, r->nrcpt ? r->rcpt[0] : "?", 0);
	}
	if (!rp->show_replies)
		return;
	id = utf8_clean_line(parent, strlen(parent), REPLAY_ID_MAX);
	message_init(&m);
	fprintf(rp->out, "----- reply to <%s> -----\n", id);
	if (message_parse(&m, r->raw, r->len, &e) < 0) {
		fprintf(rp->out, "(cannot show it: %s)\n", e.msg);
	} else {
		print_header(rp->out, &m, "To", true);
		print_header(rp->out, &m, "Cc", true);
		print_header(rp->out, &m, "Subject", true);
		print_header(rp->out, &m, "In-Reply-To", false);
		fprintf(rp->out, "\n%s", m.text);
		if (m.text_len && m.text[m.text_len - 1] != '\n')
			fputc('\n', rp->out);
	}
	fprintf(rp->out, "----- end of reply to <%s> -----\n", id);
	message_release(&m);
	free(id);
}

/* Rows a later decision emptied are left out. */
static void print_tally(FILE *out, const struct tally *t, bool two)
{
	for (size_t i = 0; i < t->n; i++) {
		if (!t->count[i][0] && !t->count[i][1])
			continue;
		if (two)
			fprintf(out, "  %-32s %6zu %6zu\n", t->name[i], t->count[i][0],
				t->count[i][1]);
		else
			fprintf(out, "  %-32s %6zu\n", t->name[i], t->count[i][0]);
	}
}

static void print_totals(const struct replay *r)
{
	FILE *out = r->out;

	fprintf(out, "-- totals\n");
	fprintf(out, "messages %zu", r->messages);
	if (r->outside)
		fprintf(out, " (%zu more outside --since/--until)", r->outside);
	if (r->unreadable)
		fprintf(out, " (%zu unreadable)", r->unreadable);
	fputc('\n', out);
	fprintf(out, "decisions:\n");
	print_tally(out, &r->decisions, false);
	fprintf(out, "rules:                          %6s %6s\n", "reply", "held");
	print_tally(out, &r->rules, true);
	fprintf(out, "(\"held\": rules of replies held by a rate limit or a list's enabled = no)\n");
	if (r->undated)
		fprintf(out, "clock: the mails' Date headers; %zu without a usable Date were "
			"evaluated at replay time\n", r->undated);
	else
		fprintf(out, "clock: the mails' Date headers\n");
}

/* Rows of column col of t, most first (ties by name), at most max of them,
 * each with its share of total. */
static void print_ranked(FILE *out, const struct tally *t, int col, size_t max, size_t total)
{
	size_t order[REPLAY_MAX_TALLY], n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->count[i][col])
			order[n++] = i;
	for (size_t i = 1; i < n; i++)	/* insertion sort: a few hundred rows at most */
		for (size_t j = i; j > 0; j--) {
			size_t a = order[j - 1], b = order[j];

			if (t->count[a][col] > t->count[b][col] ||
			    (t->count[a][col] == t->count[b][col] && strcmp(t->name[a], t->name[b]) <= 0))
				break;
			order[j - 1] = b;
			order[j] = a;
		}
	for (size_t i = 0; i < n && i < max; i++)
		fprintf(out, "  %-40s %6zu %5.1f%%\n", t->name[order[i]], t->count[order[i]][col],
			total ? 100.0 * (double)t->count[order[i]][col] / (double)total : 0.0);
	if (n > max)
		fprintf(out, "  (%zu more)\n", n - max);
}

/* --stats: what the bot would say to the list, at a glance. */
static void print_stats(const struct replay *r)
{
	FILE *out = r->out;
	size_t decided = 0;

	for (size_t i = 0; i < r->decisions.n; i++)
		decided += r->decisions.count[i][0];
	fprintf(out, "-- stats\n");
	fprintf(out, "replies %zu, to %zu persons\n", r->replies, r->persons.n);
	fprintf(out, "replies by rule (share of the replies):\n");
	print_ranked(out, &r->rules, 0, REPLAY_MAX_TALLY, r->replies);
	fprintf(out, "replies by person (the %d most told):\n", STATS_TOP_PERSONS);
	print_ranked(out, &r->persons, 0, STATS_TOP_PERSONS, r->replies);
	fprintf(out, "decisions (share of the messages):\n");
	print_ranked(out, &r->decisions, 0, REPLAY_MAX_TALLY, decided);
}

/* ----------------------------------------------------------------- run */

static volatile sig_atomic_t got_stop;

static void on_signal(int sig)
{
	(void)sig;
	got_stop = 1;
}

struct replay_opts {
	const char *config;
	time_t since, until;	/* 0: no bound; until is exclusive (the next day) */
	bool quiet;
	bool show_replies;
	bool stats;
	char **sources;
	size_t nsources;
};

/* Whether m falls inside the --since/--until window; *clock its Date (0:
 * none usable). */
static bool in_window(time_t *clock, struct replay *r, const struct replay_opts *o,
		      const struct input_msg *m)
{
	char v[DATE_VALUE_MAX + 1];
	time_t t;

	if (raw_date(m->data, m->len, v) < 0 || maildate_parse(v, &t) < 0) {
		if (o->since || o->until) {
			r->outside++;
			return false;
		}
		r->undated++;
		*clock = 0;
		return true;
	}
	if ((o->since && t < o->since) || (o->until && t >= o->until)) {
		r->outside++;
		return false;
	}
	*clock = t;
	return true;
}

static int feed(struct daemon *d, struct replay *r, const struct replay_opts *o, struct err *e)
{
	struct input *in = input_new((const char *const *)o->sources, o->nsources);
	struct input_msg m;
	enum input_status st;
	char name[512];
	int rc = 0;

	while (rc == 0 && !got_stop && (st = input_next(in, &m, e)) != INPUT_END) {
		struct daemon_mail dm = { .name = name };

		if (st == INPUT_SKIP) {
			fprintf(stderr, "tagbot replay: %s\n", e->msg);
			r->unreadable++;
			continue;
		}
		if (!in_window(&dm.clock, r, o, &m))
			continue;
		snprintf(name, sizeof(name), "%s#%zu", m.file, m.index);
		r->messages++;
		dm.raw = m.data;
		dm.len = m.len;
		rc = daemon_offline_take(d, &dm, e);
	}
	if (rc == 0)
		rc = daemon_offline_finish(d, e);
	input_free(in);
	return rc;
}

static int replay_run(const struct replay_opts *o, struct err *e)
{
	struct replay r = { .out = stdout, .quiet = o->quiet, .show_replies = o->show_replies,
			    .stats = o->stats };
	struct daemon_offline_opts dopts = {
		.config = o->config, .on_decision = on_decision,
		.on_reply = o->show_replies || o->stats ? on_reply : NULL, .arg = &r,
	};
	struct sigaction sa;
	struct daemon *d = NULL;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = daemon_offline_open(&d, &dopts, e);
	if (rc == 0) {
		/* the daemon's own lines only when something is wrong */
		log_setup(LOG_TARGET_STDERR, LOGL_ERROR, "tagbot");
		rc = feed(d, &r, o, e);
		if (rc == 0)
			print_totals(&r);
		if (rc == 0 && o->stats)
			print_stats(&r);
	}
	daemon_offline_close(d);
	tally_release(&r.decisions);
	tally_release(&r.rules);
	tally_release(&r.persons);
	for (size_t i = 0; i < r.nprov; i++)
		provisional_free(&r.prov[i]);
	free(r.prov);
	if (rc == 0 && got_stop)
		return err_set(e, ERR_FINAL, "interrupted");
	return rc;
}

enum { OPT_SINCE = 256, OPT_UNTIL, OPT_SHOW_REPLIES, OPT_STATS };

static const struct option options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "show-replies", no_argument, NULL, OPT_SHOW_REPLIES },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* "tagbot replay: WHAT'ARG'", the usage, -1. */
static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "tagbot replay: %s%s%s%s\n%s", what, arg ? "'" : "", arg ? arg : "",
		arg ? "'" : "", usage);
	return -1;
}

/* argv into o; -1 usage error, 0 after --help, 1 to go on. */
static int parse_args(struct replay_opts *o, int argc, char **argv)
{
	int c;

	*o = (struct replay_opts){ .config = DEFAULT_CONFIG };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:qh", options, NULL)) != -1) {
		if (c == 'c') {
			o->config = optarg;
		} else if (c == 'q') {
			o->quiet = true;
		} else if (c == OPT_SHOW_REPLIES) {
			o->show_replies = true;
		} else if (c == OPT_STATS) {
			o->stats = true;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else if (c == OPT_SINCE || c == OPT_UNTIL) {
			time_t *t = c == OPT_SINCE ? &o->since : &o->until;

			if (maildate_parse_day(optarg, t) < 0)
				return usage_error("not a date (YYYY-MM-DD): ", optarg);
			if (c == OPT_UNTIL)
				*t += DAY_SECONDS;	/* the whole day */
		} else {
			return usage_error(c == ':' ? "option needs a value: " : "unknown option ",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no SOURCE given", NULL);
	if (o->since && o->until && o->until <= o->since)
		return usage_error("--until is before --since", NULL);
	o->sources = argv + optind;
	o->nsources = (size_t)(argc - optind);
	return 1;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	struct err e;
	int rc = parse_args(&o, argc, argv);

	if (rc <= 0)
		return rc < 0 ? EXIT_USAGE : EXIT_CLEAN;
	err_init(&e);
	if (replay_run(&o, &e) < 0) {
		fprintf(stderr, "tagbot replay: %s\n", e.msg);
		return EXIT_USAGE;
	}
	return EXIT_CLEAN;
}
