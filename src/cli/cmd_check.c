/*
 * cmd_check.c - `tagbot check`: options, then input -> message -> patches ->
 * rules -> output for every message, counting as it goes.
 *
 * One broken mail never stops the batch: a file that cannot be read or a
 * mail that cannot be parsed is reported, remembered for the exit status,
 * and the run goes on with the next one.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "cli/cmd_check.h"
#include "mail/commitref.h"
#include "config/config.h"
#include "daemon/cachestore.h"
#include "cli/fix.h"
#include "cli/gitrepo.h"
#include "cli/input.h"
#include "transport/lookup.h"
#include "mail/message.h"
#include "cli/output.h"
#include "mail/patch.h"
#include "rules/rules.h"
#include "store/store.h"
#include "lib/ascii.h"
#include "mail/msgid.h"

#define TEXT_MATCH_BUDGET	((size_t)16 * 1024 * 1024) /* bytes compared to place a text */
#define STDOUT_BUFFER		((size_t)64 * 1024)
#define TREE_CONFIG		".tagbot.ini"		/* at the top of a git tree */
#define USER_CONFIG		"tagbot/tagbot.ini"	/* under $XDG_CONFIG_HOME */

static const char check_usage[] =
	"usage: tagbot check [options] FILE...\n"
	"       tagbot check [options] --commit-msg FILE\n"
	"       tagbot check [options] --git REV-RANGE\n"
	"\n"
	"Checks the tags of patch mails. FILE is a mail, an mbox (mboxo or mboxrd),\n"
	"a Maildir, a directory of .eml/.patch files, or - for standard input; a\n"
	"mail or mbox may be compressed with gzip, xz or zstd.\n"
	"\n"
	"options:\n"
	"  -c, --config FILE         read settings from FILE (default: ./" TREE_CONFIG " at the\n"
	"                            top of the git tree, else $XDG_CONFIG_HOME/" USER_CONFIG ",\n"
	"                            else built-in)\n"
	"      --no-config           do not look for those two files\n"
	"      --ignore TYPE,...     turn these rules off\n"
	"      --types TYPE,...      turn every other rule off\n"
	"      --format=text|json    checkpatch-style lines (default) or JSON Lines\n"
	"      --min-severity=LEVEL  show error, warning or check and above (default\n"
	"                            check); with it, LEVEL also sets what fails\n"
	"      --commit-msg FILE     check a bare commit message (git commit-msg hook)\n"
	"  -q, --quiet, --terse      only the finding lines: no headers, no quoted\n"
	"                            lines, no totals (for b4 and scripts)\n"
	"      --no-summary          no total lines\n"
	"  -v, --verbose             also list clean patches and unchecked mails\n"
	"      --lookups[=URL]       fetch what Link: and Closes: point at (LINK_DEAD,\n"
	"                            LINK_NO_NEW_INFO) from the public-inbox archive\n"
	"                            at URL (default " LOOKUP_DEFAULT_ARCHIVE ")\n"
	"      --lookup-cache=FILE   keep lookup results in the database FILE\n"
	"      --lookup-timeout=SEC  seconds per request (default 10)\n"
	"  -g, --git REV-RANGE       check the commits of REV-RANGE (A..B, REV-N for\n"
	"                            the N commits up to REV, or one commit) in the\n"
	"                            git repository of the current directory\n"
	"      --tree DIR            look cited commits up in the repository at DIR\n"
	"                            (default: the one the current directory is in)\n"
	"      --no-tree             do not look cited commits up\n"
	"      --fix                 write FILE.fixed with the mechanical tag fixes\n"
	"                            (standard input: the fixed copy on standard\n"
	"                            output, the findings on standard error)\n"
	"      --fix-inplace         make those fixes in FILE itself\n"
	"      --list-rules          print the rules, their severities and documents\n"
	"  -h, --help                show this text\n"
	"\n"
	"exit status: 0 nothing at warning or above (or at --min-severity),\n"
	"1 findings, 2 usage, configuration or input errors.\n";

struct check_opts {
	const char *config;
	bool no_config;		/* --no-config */
	char *ignore, *types;	/* owned; the --ignore, --types lists joined by ',' */
	const char *commit_msg;
	enum output_format format;
	enum severity min;	/* shown from here up */
	enum severity fail_at;	/* exit 1 from here up */
	bool quiet, verbose, list_rules;
	bool no_summary;	/* --no-summary (and -q): no total lines */
	bool lookups;			/* --lookups */
	const char *archive_url;	/* --lookups=URL */
	const char *lookup_cache;	/* --lookup-cache */
	int lookup_timeout;		/* --lookup-timeout; 0: the default */
	const char *git_range;		/* --git */
	const char *tree;		/* --tree */
	bool no_tree;			/* --no-tree */
	enum { FIX_OFF, FIX_COPY, FIX_INPLACE } fix;	/* --fix, --fix-inplace */
};

/* The run's counters and settings. */
struct run {
	const struct check_opts *o;
	const struct rule_settings *rules;
	size_t messages, patches, failures;
	size_t count[SEV_ERROR + 1];	/* shown findings by severity */
	bool failing;			/* a finding at fail_at or above */
	struct lookup *lk;		/* NULL unless lookups are on */
	struct gitrepo *repo;		/* NULL outside a repository or with --no-tree */
	FILE *report;			/* findings and total: stdout, stderr when the
					 * fixed standard input goes to stdout */
	const char *fix_file;		/* foreign; the file whose fixes are in edits */
	struct fix_edits edits;		/* in lines of fix_file */
	int stdin_copy;			/* --fix of "-": what standard input held; -1 */
};

/* A commit checked with --git: where its mail came from. */
struct commit_origin {
	const char *oid;	/* foreign: 40 hex */
	size_t body_line;	/* line of the commit message where the mail's text starts */
};

/* --- options ----------------------------------------------------------- */

enum {
	OPT_FORMAT = 256, OPT_MIN_SEVERITY, OPT_COMMIT_MSG, OPT_LIST_RULES,
	OPT_LOOKUPS, OPT_LOOKUP_CACHE, OPT_LOOKUP_TIMEOUT, OPT_NO_CONFIG, OPT_IGNORE, OPT_TYPES,
	OPT_NO_SUMMARY, OPT_TREE, OPT_NO_TREE, OPT_FIX, OPT_FIX_INPLACE
};

static const struct option long_options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-severity", required_argument, NULL, OPT_MIN_SEVERITY },
	{ "commit-msg", required_argument, NULL, OPT_COMMIT_MSG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "terse", no_argument, NULL, 'q' },		/* checkpatch's word */
	{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "types", required_argument, NULL, OPT_TYPES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "list-rules", no_argument, NULL, OPT_LIST_RULES },
	{ "lookups", optional_argument, NULL, OPT_LOOKUPS },
	{ "lookup-cache", required_argument, NULL, OPT_LOOKUP_CACHE },
	{ "lookup-timeout", required_argument, NULL, OPT_LOOKUP_TIMEOUT },
	{ "git", required_argument, NULL, 'g' },
	{ "tree", required_argument, NULL, OPT_TREE },
	{ "no-tree", no_argument, NULL, OPT_NO_TREE },
	{ "fix", no_argument, NULL, OPT_FIX },
	{ "fix-inplace", no_argument, NULL, OPT_FIX_INPLACE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tagbot check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nRun 'tagbot check --help' for the options.\n", stderr);
	return -1;
}

static int unknown_option(const char *arg)
{
	char opt[3] = { '-', (char)optopt, '\0' };

	/* optopt names the letter inside a bundle such as -qx; 0 for long ones */
	return usage_error("unknown option '%s'", optopt ? opt : arg);
}

static int parse_format(struct check_opts *o, const char *arg)
{
	if (!strcmp(arg, "text"))
		o->format = OUTPUT_TEXT;
	else if (!strcmp(arg, "json"))
		o->format = OUTPUT_JSON;
	else
		return usage_error("unknown format '%s' (text or json)", arg);
	return 0;
}

static int parse_min_severity(struct check_opts *o, const char *arg)
{
	enum severity s;

	if (severity_parse(arg, &s) < 0 || s == SEV_OFF)
		return usage_error("unknown severity '%s' (error, warning or check)", arg);
	o->min = o->fail_at = s;
	return 0;
}

static int parse_lookup_timeout(struct check_opts *o, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < 1 || n > 86400)
		return usage_error("--lookup-timeout takes seconds from 1 to 86400, not '%s'", arg);
	o->lookup_timeout = (int)n;
	return 0;
}

static int parse_lookups(struct check_opts *o, const char *arg)
{
	o->lookups = true;
	if (arg && config_url_has_userinfo(arg))
		return usage_error("--lookups: credentials in the URL are not accepted "
				   "(the archive is read anonymously)");
	if (arg && strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
		return usage_error("--lookups takes an http(s) archive URL, not '%s'", arg);
	o->archive_url = arg;
	return 0;
}

/* Appends arg to the comma-separated *list. */
static void add_to_list(char **list, const char *arg)
{
	size_t old = *list ? strlen(*list) : 0, n = strlen(arg);

	*list = xrealloc(*list, old + n + 2);
	if (old)
		(*list)[old++] = ',';
	memcpy(*list + old, arg, n + 1);
}

/* Fills o from argv; returns optind, -1 on a usage error, 0 after --help. */
static int parse_options(struct check_opts *o, int argc, char **argv)
{
	int c;

	*o = (struct check_opts){ .format = OUTPUT_TEXT, .min = SEV_CHECK, .fail_at = SEV_WARNING };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:g:qvh", long_options, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'c': o->config = optarg; break;
		case OPT_FORMAT: rc = parse_format(o, optarg); break;
		case OPT_MIN_SEVERITY: rc = parse_min_severity(o, optarg); break;
		case OPT_COMMIT_MSG: o->commit_msg = optarg; break;
		case 'q': o->quiet = o->no_summary = true; break;
		case OPT_NO_SUMMARY: o->no_summary = true; break;
		case OPT_NO_CONFIG: o->no_config = true; break;
		case OPT_IGNORE: add_to_list(&o->ignore, optarg); break;
		case OPT_TYPES: add_to_list(&o->types, optarg); break;
		case 'v': o->verbose = true; break;
		case OPT_LIST_RULES: o->list_rules = true; break;
		case OPT_LOOKUPS: rc = parse_lookups(o, optarg); break;
		case OPT_LOOKUP_CACHE: o->lookup_cache = optarg; break;
		case OPT_LOOKUP_TIMEOUT: rc = parse_lookup_timeout(o, optarg); break;
		case 'g': o->git_range = optarg; break;
		case OPT_TREE: o->tree = optarg; break;
		case OPT_NO_TREE: o->no_tree = true; break;
		case OPT_FIX: o->fix = FIX_COPY; break;
		case OPT_FIX_INPLACE: o->fix = FIX_INPLACE; break;
		case 'h': fputs(check_usage, stdout); return 0;
		case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return unknown_option(argv[optind - 1]);
		}
		if (rc < 0)
			return -1;
	}
	if (o->tree && o->no_tree)
		return usage_error("--tree and --no-tree exclude each other");
	if (o->git_range && o->no_tree)
		return usage_error("--git reads the repository: it cannot go with --no-tree");
	if (o->fix && (o->git_range || o->commit_msg))
		return usage_error("--fix and --fix-inplace take mail FILEs, not --git or --commit-msg");
	if (optind >= argc && !o->commit_msg && !o->list_rules && !o->git_range)
		return usage_error("no FILE given (use - for standard input)");
	return optind;
}

/* --- where the text sits in the file --------------------------------------- */

/* Does raw (CRLF or LF) start with text (LF)?  Spends from *budget. */
static bool raw_starts_with(const char *raw, size_t rlen, const char *text, size_t tlen,
			    size_t *budget)
{
	size_t i = 0, j = 0;

	while (j < tlen) {
		if (!*budget)
			return false;
		--*budget;
		if (i + 1 < rlen && raw[i] == '\r' && raw[i + 1] == '\n' && text[j] == '\n')
			i++;
		if (i >= rlen || raw[i] != text[j])
			return false;
		i++;
		j++;
	}
	return true;
}

/* Offset of the body (after the first empty line) and the header lines. */
static size_t body_offset(const char *raw, size_t len, size_t *lines)
{
	size_t i = 0;

	*lines = 0;
	while (i < len) {
		const char *nl = memchr(raw + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (raw + i)) : len - i;
		bool empty = n == 0 || (n == 1 && raw[i] == '\r');

		i += n + (nl != NULL);
		++*lines;
		if (empty)
			return i;
	}
	return len;
}

/*
 * Line of the input file where the decoded text starts, when the text is in
 * the mail byte for byte (a plain or 8bit part); 0 when it was decoded
 * (base64, quoted-printable, recoded) and file lines cannot be given.
 */
static size_t text_line_in_file(const struct input_msg *m, const struct message *msg)
{
	size_t budget = TEXT_MATCH_BUDGET, line, i;

	/* decoded over the mail's bytes: not in the file byte for byte */
	if (!msg->text_len || !m->len || msg->raw_changed)
		return 0;
	i = body_offset(m->data, m->len, &line);
	line += m->lineno;
	while (i < m->len) {
		const char *nl;

		if (raw_starts_with(m->data + i, m->len - i, msg->text, msg->text_len, &budget))
			return line;
		if (!budget || !(nl = memchr(m->data + i, '\n', m->len - i)))
			break;
		i = (size_t)(nl - m->data) + 1;
		line++;
	}
	return 0;
}

/* --- one message ------------------------------------------------------------ */

/* The rules, after fetching what the links point at when lookups are on.
 * A diff in a mail that is no submission (patch.h (c), kind other) is
 * checked as the patch it would be; the output keeps its kind. */
static void run_rules(struct run *r, const struct patch *p, struct findings *fs,
		      struct commit_facts *facts)
{
	const struct commit_facts *cf = r->repo ? facts : NULL;
	struct lookup_results res;
	struct patch as_patch;
	struct err e;

	if (p->kind == KIND_OTHER) {
		as_patch = *p;	/* shallow: nothing of it is freed */
		as_patch.kind = KIND_PATCH;
		p = &as_patch;
	}
	if (r->repo && gitrepo_facts(r->repo, p, facts, &e) < 0)
		fprintf(stderr, "tagbot: %s; cited commits are not looked up from here on\n", e.msg);
	if (!r->lk) {
		rules_run_facts(p, r->rules, NULL, cf, fs);
		return;
	}
	lookup_results_init(&res);
	if (lookup_prefetch(r->lk, p, &r->rules->archives, &res, &e) < 0)
		fprintf(stderr, "tagbot: %s\n", e.msg);
	rules_run_facts(p, r->rules, &res, cf, fs);
	lookup_results_release(&res);
}

/*
 * Runs the rules over one patch, appending to fs (one findings per message,
 * so its parts share the custom rules' budgets), and counts what will be
 * shown.  Returns the index in fs of the patch's first finding.
 */
static size_t check_patch(struct run *r, const struct patch *p, struct findings *fs,
			  struct commit_facts *facts)
{
	size_t first = fs->n;

	if (patch_checkable(p)) {
		r->patches++;
		run_rules(r, p, fs, facts);
	}
	for (size_t i = first; i < fs->n; i++) {
		enum severity s = fs->v[i].severity;

		if (s == SEV_OFF || s < r->o->min)
			continue;
		r->count[s]++;
		r->failing |= s >= r->o->fail_at;
	}
	return first;
}

/*
 * One line on stderr for each custom rule that could not check all of m:
 * "tagbot: FILE[: message N (line L)][ <Message-ID>]: why".
 */
static void warn_budgets(const struct input_msg *m, const char *msgid,
			 const struct findings *fs)
{
	char why[512], where[64] = "", id[MSGID_MAX + 4] = "";

	if (m->lineno > 1)
		snprintf(where, sizeof(where), ": message %zu (line %zu)", m->index, m->lineno);
	else if (msgid && *msgid)
		strcpy(where, ": message");
	if (msgid && *msgid)
		snprintf(id, sizeof(id), " <%s>", msgid);
	for (size_t i = 0; i < fs->nbudgets; i++)
		if (rule_budget_describe(&fs->budgets[i], why, sizeof(why)))
			fprintf(stderr, "tagbot: %s%s%s: %s\n", m->file, where, id, why);
}

/* Whether p lies in msg->text (not in a further attachment). */
static bool in_text(const struct message *msg, const struct patch *p)
{
	return p->text >= msg->text && p->text <= msg->text + msg->text_len;
}

static void input_failed(struct run *r, const struct input_msg *m, const struct err *e);

/* --- --fix ------------------------------------------------------------------ */

/* A file that starts like gzip, xz or zstd data: its lines are not the
 * mail's, so it is never rewritten. */
static bool compressed(FILE *f)
{
	static const unsigned char magic[][4] = {
		{ 0x1f, 0x8b }, { 0xfd, '7', 'z', 'X' }, { 0x28, 0xb5, 0x2f, 0xfd },
	};
	static const size_t len[] = { 2, 4, 4 };
	unsigned char head[4] = { 0 };
	size_t n = fread(head, 1, sizeof(head), f);

	rewind(f);
	for (size_t i = 0; i < ARRAY_SIZE(len); i++)
		if (n >= len[i] && !memcmp(head, magic[i], len[i]))
			return true;
	return false;
}

/* The edits of part p of message m, in lines of m's file. */
static void plan_fixes(struct run *r, const struct input_msg *m, const struct message *msg,
		       const struct patch *p, const struct commit_facts *facts)
{
	size_t first = r->edits.n, text_line;

	if (!patch_checkable(p) || !in_text(msg, p))
		return;
	text_line = text_line_in_file(m, msg);
	if (!text_line) {
		fprintf(stderr, "tagbot: %s: message %zu is encoded (base64, quoted-printable or "
			"another charset): left as it is\n", m->file, m->index);
		return;
	}
	fix_plan(p, r->repo ? facts : NULL, &r->edits);
	fix_edits_shift(&r->edits, first, text_line - 1);
}

/* Standard input, kept in memory so it can be read again to write the
 * fixed copy; fd 0 becomes that copy, so input.c reads it as ever. */
static int keep_stdin(struct run *r, struct err *e)
{
	char chunk[65536];
	ssize_t n;
	int fd = memfd_create("tagbot-stdin", MFD_CLOEXEC);

	if (fd < 0)
		return err_set(e, ERR_FINAL, "-: %s", strerror(errno));
	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, chunk, (size_t)n) != n) {
			close(fd);
			return err_set(e, ERR_FINAL, "-: %s", strerror(errno));
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, STDIN_FILENO) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return err_set(e, ERR_FINAL, "-: %s", strerror(errno));
	}
	r->stdin_copy = fd;
	return 0;
}

static FILE *open_source(const struct run *r, const char *path)
{
	int fd;

	if (strcmp(path, "-"))
		return fopen(path, "rb");
	fd = dup(r->stdin_copy);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return fdopen(fd, "rb");
}

/* Writes in, fixed, to path's copy (or over path), through a temporary
 * file beside it so a failure leaves nothing half written. */
static int write_fixed(const struct run *r, const char *path, FILE *in, struct err *e)
{
	bool inplace = r->o->fix == FIX_INPLACE;
	char *dest = xmalloc(strlen(path) + sizeof(".fixed")), *tmp;
	struct stat st;
	FILE *out;
	int fd, rc = 0;

	sprintf(dest, "%s%s", path, inplace ? "" : ".fixed");
	tmp = xmalloc(strlen(dest) + sizeof(".XXXXXX"));
	sprintf(tmp, "%s.XXXXXX", dest);
	if ((fd = mkstemp(tmp)) < 0 || !(out = fdopen(fd, "wb"))) {
		rc = err_set(e, ERR_FINAL, "%s: %s", dest, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		free(dest);
		return rc;
	}
	if (fstat(fileno(in), &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	if ((fix_write(in, out, (struct fix_edits *)&r->edits) | fclose(out)) != 0 ||
	    rename(tmp, dest) < 0) {
		rc = err_set(e, ERR_FINAL, "%s: %s", dest, strerror(errno));
		unlink(tmp);
	} else {
		fprintf(stderr, "tagbot: %s: %zu fix%s, written to %s\n", path, r->edits.fixes,
			r->edits.fixes == 1 ? "" : "es", dest);
	}
	free(tmp);
	free(dest);
	return rc;
}

/* Writes the fixes of r->fix_file; standard input's go to stdout, always. */
static void flush_fixes(struct run *r)
{
	const char *path = r->fix_file;
	struct input_msg m = { .file = path };
	bool from_stdin = path && !strcmp(path, "-");
	FILE *in;
	struct err e;

	if (!path || (!r->edits.fixes && !from_stdin))
		goto done;
	if (!(in = open_source(r, path))) {
		err_set(&e, ERR_FINAL, "%s: %s", path, strerror(errno));
		input_failed(r, &m, &e);
	} else if (compressed(in)) {
		err_set(&e, ERR_FINAL, "%s: compressed: --fix leaves it alone", path);
		input_failed(r, &m, &e);
	} else if (from_stdin) {
		if (fix_write(in, stdout, &r->edits) < 0)
			fprintf(stderr, "tagbot: writing the fixed copy: %s\n", strerror(errno));
	} else if (write_fixed(r, path, in, &e) < 0) {
		input_failed(r, &m, &e);
	}
	if (in)
		fclose(in);
done:
	fix_edits_release(&r->edits);
	r->fix_file = NULL;
}

/* Called before each message: a new file writes the fixes of the last. */
static void fix_file_turn(struct run *r, const char *file)
{
	if (r->fix_file && file && !strcmp(r->fix_file, file))
		return;
	flush_fixes(r);
	r->fix_file = file;
}

static void check_message(struct run *r, const struct input_msg *m,
			  const struct commit_origin *origin)
{
	struct output_ctx ctx = { m->file, m->lineno, 0, r->o->quiet, r->o->verbose, NULL,
				  m->index };
	size_t text_line = 0;
	bool placed = false;
	struct findings fs;
	struct message msg;
	struct patch *p;
	size_t np;
	struct err e;

	r->messages++;
	message_init(&msg);
	/* In place: a big mail is not copied whole to be decoded. */
	if (message_parse_in_place(&msg, m->data, m->len, &e) < 0) {
		char *id = msgid_from_raw(m->data, m->len);

		/* In an mbox, say which message (as input.c does). */
		if (m->lineno > 1)
			err_prefix(&e, "message %zu (line %zu)", m->index, m->lineno);
		output_error(r->report, r->o->format, &ctx, id, e.msg);
		r->failures++;
		free(id);
		return;
	}
	patch_parse(&msg, &p, &np);
	findings_init(&fs);
	if (origin) {
		ctx.commit = origin->oid;
		text_line = origin->body_line;
		placed = true;
	}
	for (size_t i = 0; i < np; i++) {
		struct commit_facts facts;
		size_t first;
		struct findings part;

		commit_facts_init(&facts);
		first = check_patch(r, &p[i], &fs, &facts);
		part = (struct findings){ .v = fs.v + first, .n = fs.n - first };
		/* Placing the text costs a scan: only when a line will be printed. */
		if (part.n && !placed) {
			text_line = text_line_in_file(m, &msg);
			placed = true;
		}
		/* a further attachment's lines are its own, not the file's */
		ctx.text_line = in_text(&msg, &p[i]) ? text_line : 0;
		output_patch_ctx(r->report, r->o->format, &ctx, &p[i], &part, r->o->min);
		if (r->o->fix)
			plan_fixes(r, m, &msg, &p[i], &facts);
		commit_facts_release(&facts);
	}
	warn_budgets(m, np ? p[0].message_id : NULL, &fs);
	findings_release(&fs);
	patches_free(p, np);
	message_release(&msg);
}

static void input_failed(struct run *r, const struct input_msg *m, const struct err *e)
{
	fprintf(stderr, "tagbot: %s\n", e->msg);
	if (r->o->format == OUTPUT_JSON) {
		struct output_ctx where = { .file = m->file ? m->file : "" };

		output_error(r->report, OUTPUT_JSON, &where, NULL, e->msg);
	}
	r->failures++;
}

/* One FILE argument (a file, a Maildir, a directory or "-"). */
static void check_input(struct run *r, const char *path)
{
	struct input *in = input_new(&path, 1);
	struct input_msg m;
	enum input_status st;
	struct err e;

	memset(&m, 0, sizeof(m));
	while ((st = input_next(in, &m, &e)) != INPUT_END) {
		if (r->o->fix)
			fix_file_turn(r, m.file);
		if (st == INPUT_SKIP)
			input_failed(r, &m, &e);
		else
			check_message(r, &m, NULL);
		memset(&m, 0, sizeof(m));
	}
	if (r->o->fix)
		flush_fixes(r);
	input_free(in);
}

static bool print_totals(const struct run *r)
{
	return r->o->format == OUTPUT_TEXT && !r->o->no_summary;
}

/* The findings shown for one FILE argument since *before. */
static void print_file_total(const struct run *r, const char *file, const struct run *before)
{
	struct output_total t = {
		.errors = r->count[SEV_ERROR] - before->count[SEV_ERROR],
		.warnings = r->count[SEV_WARNING] - before->count[SEV_WARNING],
		.checks = r->count[SEV_CHECK] - before->count[SEV_CHECK],
		.patches = r->patches - before->patches,
	};

	if (print_totals(r))
		output_file_total(r->report, file, &t);
}

static void check_inputs(struct run *r, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct run before = *r;

		check_input(r, paths[i]);
		print_file_total(r, paths[i], &before);
	}
}

/* --- --git ------------------------------------------------------------------ */

/* Each commit of the range as the mail git format-patch would make of it;
 * its output names the commit, its lines are those of the commit message. */
static void check_git(struct run *r, const char *range)
{
	struct gitrepo_log *log;
	struct gitrepo_commit c;
	enum gitrepo_next st;
	struct input_msg m = { .file = range, .lineno = 1 };
	struct err e;

	if (gitrepo_log_open(r->repo, range, &log, &e) < 0) {
		input_failed(r, &m, &e);
		return;
	}
	while ((st = gitrepo_log_next(log, &c, &e)) != GITREPO_END) {
		struct commit_origin origin = { c.oid, c.body_line };

		m.index++;
		if (st == GITREPO_SKIP) {
			input_failed(r, &m, &e);
			continue;
		}
		m.data = c.mail;
		m.len = c.len;
		check_message(r, &m, &origin);
	}
	if (gitrepo_log_close(log, &e) < 0)
		input_failed(r, &m, &e);
}

/* --- --commit-msg ---------------------------------------------------------- */

static int read_whole(const char *path, struct buf *b, struct err *e)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char chunk[65536];
	size_t n;
	int rc = 0;

	if (!f)
		return err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(b, chunk, n) < 0)
			rc = err_set(e, ERR_FINAL, "%s: larger than %zu bytes", path, b->cap);
	if (rc == 0 && ferror(f))
		rc = err_set(e, ERR_FINAL, "%s: %s", path, strerror(errno));
	if (f != stdin)
		fclose(f);
	return rc;
}

/* A commit message file is its own decoded text: line L is line L of it. */
static void check_commit_msg(struct run *r, const char *path)
{
	struct output_ctx ctx = { path, 0, 1, r->o->quiet, r->o->verbose, NULL, 1 };
	struct input_msg m = { .file = path };
	struct commit_facts facts;
	struct message msg;
	struct findings fs;
	struct patch *p;
	struct buf b;
	struct err e;

	buf_init(&b, MESSAGE_MAX_SIZE);
	if (read_whole(path, &b, &e) < 0) {
		buf_release(&b);
		input_failed(r, &m, &e);
		return;
	}
	r->messages++;
	message_init(&msg);
	msg.text = buf_detach(&b, &msg.text_len);
	p = xcalloc(1, sizeof(*p));
	patch_parse_commit_msg(&msg, p);
	findings_init(&fs);
	commit_facts_init(&facts);
	check_patch(r, p, &fs, &facts);
	output_patch_ctx(stdout, r->o->format, &ctx, p, &fs, r->o->min);
	warn_budgets(&m, NULL, &fs);
	commit_facts_release(&facts);
	findings_release(&fs);
	patches_free(p, 1);
	message_release(&msg);
}

/* --- the command ------------------------------------------------------------ */

static void list_rules(const struct rule_settings *s)
{
	for (int i = 0; i < RULE_COUNT; i++)
		printf("%-26s %-8s %s%s\n    %s\n", rule_defs[i].id, severity_name(s->severity[i]),
		       rule_defs[i].summary, rule_defs[i].needs_lookup ? " (needs lookups)"
					     : rule_defs[i].needs_tree ? " (needs a git repository)" : "",
		       rule_defs[i].doc);
	for (size_t i = 0; i < s->ncustom; i++)
		printf("%-26s %-8s %s (custom)\n    %s\n", s->custom[i].id,
		       severity_name(s->custom[i].severity), s->custom[i].message,
		       s->custom[i].doc ? s->custom[i].doc : "");
}

static void print_total(const struct run *r)
{
	fprintf(r->report, "%zu messages, %zu patches checked, %zu errors, %zu warnings, %zu checks\n",
	       r->messages, r->patches, r->count[SEV_ERROR], r->count[SEV_WARNING],
	       r->count[SEV_CHECK]);
}

/* The lookup context (and its cache) for a run with lookups on: the
 * file's [lookup], the options over it. */
static int open_lookups(const struct check_opts *o, const struct config *cfg, struct lookup **lk,
			struct store **cache)
{
	struct lookup_settings ls = cfg->lookup;	/* foreign strings: lookup_new copies */
	struct store_settings ss;
	struct lookup_cache lc;
	struct err e;
	int rc = 0;

	if (o->archive_url)
		ls.archive_url = (char *)o->archive_url;
	if (o->lookup_timeout)
		ls.timeout = o->lookup_timeout;
	store_settings_init(&ss);
	ss.path = o->lookup_cache;
	if ((o->lookup_cache && store_open(cache, &ss, &e) < 0) ||
	    lookup_new(lk, &ls, cachestore_init(&lc, *cache), &e) < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		rc = -1;
	}
	return rc;
}

/* The repository cited commits are looked up in: --tree, else the one the
 * current directory is in, if any; --git needs one. */
static bool git_top(char *dir, size_t size);
static bool is_file(const char *path);

/* A kernel tree's top holds MAINTAINERS and Kbuild (checkpatch.pl looks
 * for these and more before it runs git). */
static bool kernel_tree(const char *top)
{
	static const char *const marks[] = { "MAINTAINERS", "Kbuild" };
	char path[PATH_MAX + 16];

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		snprintf(path, sizeof(path), "%s/%s", top[1] ? top : "", marks[i]);
		if (!is_file(path))
			return false;
	}
	return true;
}

/*
 * The repository cited commits are looked up in: --tree DIR's, the one
 * --git reads, or else the one the command runs in when it is a kernel
 * tree; in any other repository (tagbot's own, a scratch one) an id of a
 * kernel commit would only be "unknown", so nothing is looked up there.
 */
static int open_repo(const struct check_opts *o, struct gitrepo **repo)
{
	char top[PATH_MAX];
	struct err e;

	*repo = NULL;
	if (!o->tree && !o->git_range && (!git_top(top, sizeof(top)) || !kernel_tree(top)))
		return 0;
	if (gitrepo_open(repo, o->tree, &e) < 0) {
		fprintf(stderr, "tagbot: --tree %s\n", e.msg);
		return -1;
	}
	if (o->git_range && !*repo) {
		fprintf(stderr, "tagbot: --git: the current directory is not in a git repository\n");
		return -1;
	}
	return 0;
}

/*
 * tagbot-rules(7) SUBMITTER_SIGN_OFF: inside a kernel tree (--tree DIR's, or the
 * one the command runs in) and with no [rules] mailmap, the tree's own
 * .mailmap says which addresses are one person.
 */
static int tree_mailmap(const struct check_opts *o, struct config *cfg)
{
	char top[PATH_MAX], path[PATH_MAX + 16];
	struct err e;

	if (cfg->rules.mailmap)
		return 0;
	if (o->tree)
		snprintf(top, sizeof(top), "%s", o->tree);
	else if (!git_top(top, sizeof(top)))
		return 0;
	if (!kernel_tree(top))
		return 0;
	snprintf(path, sizeof(path), "%s/.mailmap", top);
	if (!is_file(path))
		return 0;
	if (config_read_mailmap(&cfg->rules.mailmap, path, &e) < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static bool stdin_given(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(paths[i], "-"))
			return true;
	return false;
}

/* Runs the check r was set up for over paths[0..npaths); the exit status. */
static int run_check(struct run *r, const char *const *paths, size_t npaths)
{
	const struct check_opts *o = r->o;
	struct err e;

	if (o->list_rules) {
		list_rules(r->rules);
		return EXIT_CLEAN;
	}
	if (o->commit_msg) {
		struct run before = *r;

		check_commit_msg(r, o->commit_msg);
		print_file_total(r, o->commit_msg, &before);
	}
	if (o->git_range) {
		struct run before = *r;

		check_git(r, o->git_range);
		print_file_total(r, o->git_range, &before);
	}
	if (o->fix && stdin_given(paths, npaths)) {
		r->report = stderr;
		if (keep_stdin(r, &e) < 0) {
			fprintf(stderr, "tagbot: %s\n", e.msg);
			return EXIT_USAGE;
		}
	}
	if (npaths)
		check_inputs(r, paths, npaths);
	if (r->stdin_copy >= 0)
		close(r->stdin_copy);
	if (print_totals(r))
		print_total(r);
	if (r->failures)
		fprintf(stderr, "tagbot: %zu input%s could not be read or parsed\n",
			r->failures, r->failures == 1 ? "" : "s");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tagbot: writing the output: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	if (r->failures)
		return EXIT_USAGE;
	return r->failing ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* --- the configuration ------------------------------------------------------ */

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The top of the git tree the command runs in, into dir: the nearest
 * directory from the working directory up that holds .git (a directory, or
 * the file of a worktree or submodule), which is where git looks too.
 * False outside a tree.  Git is not run for it.
 */
static bool git_top(char *dir, size_t size)
{
	char probe[PATH_MAX + 8];
	struct stat st;

	if (!getcwd(dir, size))
		return false;
	for (;;) {
		char *slash = strrchr(dir, '/');

		snprintf(probe, sizeof(probe), "%s/.git", dir[1] ? dir : "");
		if (stat(probe, &st) == 0)
			return true;
		if (!slash || !dir[1])
			return false;	/* "/" was the last to try */
		slash[slash == dir] = '\0';
	}
}

/*
 * The file tagbot check reads without -c: TREE_CONFIG at the top of the git
 * tree, else USER_CONFIG under $XDG_CONFIG_HOME (~/.config when it is unset
 * or, as the XDG spec says, not absolute).  The path goes to out; NULL when
 * neither file is there.
 */
static const char *find_config(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char top[PATH_MAX];

	if (git_top(top, sizeof(top))) {
		snprintf(out, size, "%s/%s", top[1] ? top : "", TREE_CONFIG);
		if (is_file(out))
			return out;
	}
	if (xdg && xdg[0] == '/')
		snprintf(out, size, "%s/%s", xdg, USER_CONFIG);
	else if (home && *home)
		snprintf(out, size, "%s/.config/%s", home, USER_CONFIG);
	else
		return NULL;
	return is_file(out) ? out : NULL;
}

/* -c FILE, else the file found, then --types and --ignore over it. */
static int load_config(const struct check_opts *o, struct config *cfg, struct err *e)
{
	char found[PATH_MAX + 32];
	const char *path = o->config;

	if (!path && !o->no_config && (path = find_config(found, sizeof(found))) && o->verbose)
		fprintf(stderr, "tagbot: settings from %s\n", path);
	if (path && config_load(cfg, path, e) < 0)
		return -1;
	if (o->types && config_rules_select(cfg, o->types, true, e) < 0)
		return err_prefix(e, "--types");
	if (o->ignore && config_rules_select(cfg, o->ignore, false, e) < 0)
		return err_prefix(e, "--ignore");
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static char outbuf[STDOUT_BUFFER];
	struct check_opts o;
	struct config cfg;
	struct run r = { .o = &o, .rules = &cfg.rules, .report = stdout, .stdin_copy = -1 };
	struct store *cache = NULL;
	struct err e;
	int first = parse_options(&o, argc, argv), status = EXIT_USAGE;

	config_init(&cfg);
	if (first <= 0) {
		status = first == 0 ? EXIT_CLEAN : EXIT_USAGE;
		goto out;
	}
	if (load_config(&o, &cfg, &e) < 0) {
		fprintf(stderr, "tagbot: %s\n", e.msg);
		goto out;
	}
	cfg.rules.lookups |= o.lookups;
	if (cfg.rules.lookups && !o.list_rules && open_lookups(&o, &cfg, &r.lk, &cache) < 0)
		goto out;
	if (!o.no_tree && !o.list_rules &&
	    (open_repo(&o, &r.repo) < 0 || tree_mailmap(&o, &cfg) < 0))
		goto out;
	/* A terminal keeps its line buffering, so findings show as they come. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	status = run_check(&r, (const char *const *)argv + first, (size_t)(argc - first));
out:
	gitrepo_free(r.repo);
	lookup_free(r.lk);
	store_close(cache);
	config_release(&cfg);
	free(o.ignore);
	free(o.types);
	return status;
}
