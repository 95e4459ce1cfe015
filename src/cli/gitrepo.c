/*
 * gitrepo.c - git's plumbing behind gitrepo.h.
 *
 * Requests go to `git cat-file --batch` over a socket, written with
 * MSG_NOSIGNAL: a git that died is an error to report, not a SIGPIPE that
 * kills the checker.  Only hex ids are ever written to it, so a message
 * cannot make it read "HEAD:secret" or any other revision expression.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/fdio.h"
#include "mail/commitref.h"
#include "cli/gitrepo.h"
#include "mail/message.h"
#include "mail/patch.h"

extern char **environ;

#define GIT_ARGS_MAX	24

struct gitrepo {
	char *dir;		/* owned; NULL: the current directory */
	pid_t pid;		/* cat-file, 0 before it is started */
	int req;		/* socket to its standard input */
	FILE *ans;		/* owned; its standard output */
	bool broken;		/* git failed once: no more lookups */
};

struct gitrepo_log {
	pid_t pid;
	FILE *out;		/* owned; git log's standard output */
	struct buf rec, diff;	/* the current commit's fields and message; its diff */
	struct buf mail;	/* the mail handed out */
	bool started, done;
};

/* --- processes ------------------------------------------------------------ */

/* argv for `git [-C dir] args...`; returns the count. */
static size_t git_argv(const struct gitrepo *g, const char *const *args, char **argv)
{
	size_t n = 0;

	argv[n++] = "git";
	if (g->dir) {
		argv[n++] = "-C";
		argv[n++] = g->dir;
	}
	while (*args && n + 1 < GIT_ARGS_MAX)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	return n;
}

/* A git to start: what it is asked, and where its standard streams go. */
struct git_cmd {
	const char *const *args;	/* after "git [-C DIR]" */
	int in, out;			/* its standard input and output; -1: /dev/null */
	bool quiet;			/* its standard error to /dev/null */
};

static int spawn_git(const struct gitrepo *g, const struct git_cmd *cmd, pid_t *pid,
		     struct err *e)
{
	posix_spawn_file_actions_t fa;
	char *argv[GIT_ARGS_MAX];
	int rc;

	git_argv(g, cmd->args, argv);
	posix_spawn_file_actions_init(&fa);
	if (cmd->in >= 0)
		posix_spawn_file_actions_adddup2(&fa, cmd->in, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (cmd->out >= 0)
		posix_spawn_file_actions_adddup2(&fa, cmd->out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (cmd->quiet)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return err_set(e, ERR_FINAL, "git: cannot run it: %s", strerror(rc));
	return 0;
}

/* Waits for pid; true when it exited 0. */
static bool reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int gitrepo_open(struct gitrepo **out, const char *dir, struct err *e)
{
	static const char *const args[] = { "rev-parse", "--git-dir", NULL };
	const struct git_cmd cmd = { args, -1, -1, true };
	struct gitrepo *g = xcalloc(1, sizeof(*g));
	pid_t pid;

	*out = NULL;
	g->dir = dir ? xstrdup(dir) : NULL;
	g->req = -1;
	if (spawn_git(g, &cmd, &pid, e) == 0 && reap(pid)) {
		*out = g;
		return 0;
	}
	gitrepo_free(g);
	if (!dir)
		return 0;
	return err_set(e, ERR_FINAL, "%s: not a git repository (or git cannot be run)", dir);
}

static void stop_cat_file(struct gitrepo *g)
{
	if (g->req >= 0)
		close(g->req);
	if (g->ans)
		fclose(g->ans);
	if (g->pid > 0)
		reap(g->pid);
	g->req = -1;
	g->ans = NULL;
	g->pid = 0;
}

void gitrepo_free(struct gitrepo *g)
{
	if (!g)
		return;
	stop_cat_file(g);
	free(g->dir);
	free(g);
}

static int start_cat_file(struct gitrepo *g, struct err *e)
{
	static const char *const args[] = { "cat-file", "--batch", NULL };
	int sv[2], pv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return err_set(e, ERR_FINAL, "git cat-file: socketpair: %s", strerror(errno));
	if (pipe2(pv, O_CLOEXEC) < 0) {
		close(sv[0]);
		close(sv[1]);
		return err_set(e, ERR_FINAL, "git cat-file: pipe: %s", strerror(errno));
	}
	if (spawn_git(g, &(struct git_cmd){ args, sv[1], pv[1], true }, &g->pid, e) < 0) {
		close(sv[0]);
		close(pv[0]);
		g->pid = 0;
	} else {
		g->req = sv[0];
		g->ans = fdopen(pv[0], "r");
	}
	close(sv[1]);
	close(pv[1]);
	return g->pid ? 0 : -1;
}

/* --- cat-file --batch --------------------------------------------------- */

/*
 * git log's %s: the first paragraph of the message, its lines joined by
 * one space.  msg is the object after its headers.
 */
static char *subject_of(const char *msg, size_t n)
{
	const char *end = msg + n, *nl;
	struct buf b;

	buf_init(&b, 0);
	while (msg < end && *msg == '\n')
		msg++;
	while (msg < end && *msg != '\n') {
		nl = memchr(msg, '\n', (size_t)(end - msg));
		if (b.len)
			buf_addch(&b, ' ');
		buf_add(&b, msg, (size_t)((nl ? nl : end) - msg));
		msg = nl ? nl + 1 : end;
	}
	return buf_detach(&b, NULL);
}

/* Reads size object bytes and the LF after them; keeps up to the cap. */
static int read_object(FILE *f, size_t size, struct buf *obj)
{
	char chunk[8192];

	buf_reset(obj);
	for (size_t left = size + 1; left;) {
		size_t want = left < sizeof(chunk) ? left : sizeof(chunk);
		size_t got = fread(chunk, 1, want, f);

		if (!got)
			return -1;
		if (obj->len < GITREPO_MAX_OBJECT)
			buf_add(obj, chunk, got);
		left -= got;
	}
	return 0;
}

/* One answer of cat-file --batch into x: "<oid> <type> <size>" and the
 * object, or "<name> missing" / "<name> ambiguous". */
static int read_answer(struct gitrepo *g, struct commit_fact *x, struct buf *obj)
{
	char head[256], type[16];
	unsigned long long size;
	const char *body;

	if (!fgets(head, sizeof(head), g->ans) || !strchr(head, '\n'))
		return -1;
	if (strstr(head, " missing\n")) {
		x->status = COMMIT_MISSING;
		return 0;
	}
	if (strstr(head, " ambiguous\n"))
		return 0;	/* COMMIT_UNSETTLED: BAD_FIXES_TAG already asks for more digits */
	if (sscanf(head, "%40s %15s %llu", x->oid, type, &size) != 3 || read_object(g->ans, size, obj) < 0)
		return -1;
	if (strcmp(type, "commit")) {
		x->status = COMMIT_NOT_COMMIT;
		snprintf(x->type, sizeof(x->type), "%s", type);
		return 0;
	}
	x->status = COMMIT_FOUND;
	body = obj->len ? memmem(obj->data, obj->len, "\n\n", 2) : NULL;
	free(x->subject);
	x->subject = body ? subject_of(body + 2, obj->len - (size_t)(body + 2 - obj->data))
			  : xstrdup("");
	return 0;
}

/* Adds the distinct ids of refs to out; writes one request line each to req. */
static void queue_ids(const struct commitrefs *refs, struct commit_facts *out, size_t first,
		      struct buf *req)
{
	for (size_t i = 0; i < refs->n; i++) {
		bool seen = false;

		for (size_t k = first; k < out->n && !seen; k++)
			seen = !strcmp(out->v[k].id, refs->v[i].id);
		if (seen)
			continue;
		commit_facts_add(out, refs->v[i].id, strlen(refs->v[i].id));
		buf_addstr(req, refs->v[i].id);
		buf_addch(req, '\n');
	}
}

static int ask(struct gitrepo *g, struct commit_facts *out, size_t first, const struct buf *req,
	       struct err *e)
{
	struct buf obj;
	int rc = 0;

	if (!g->pid && start_cat_file(g, e) < 0)
		return -1;
	if (fd_write_all(g->req, req->data, req->len, true) < 0)
		return err_set(e, ERR_FINAL, "git cat-file: %s", strerror(errno ? errno : EPIPE));
	buf_init(&obj, GITREPO_MAX_OBJECT + 8192);
	for (size_t k = first; k < out->n && rc == 0; k++)
		if (read_answer(g, &out->v[k], &obj) < 0)
			rc = err_set(e, ERR_FINAL, "git cat-file: no answer for %s", out->v[k].id);
	buf_release(&obj);
	return rc;
}

int gitrepo_facts(struct gitrepo *g, const struct patch *p, struct commit_facts *out,
		  struct err *e)
{
	struct commitrefs refs;
	size_t first = out->n;
	struct buf req;
	int rc = 0;

	if (!g || g->broken || !p->nlines)
		return 0;
	commitrefs_init(&refs);
	commitref_find(p->lines, p->nlines, p->block_start, COMMITREF_MAX_REFS, &refs);
	buf_init(&req, 0);
	queue_ids(&refs, out, first, &req);
	if (req.len && ask(g, out, first, &req, e) < 0) {
		g->broken = true;
		stop_cat_file(g);
		for (size_t k = first; k < out->n; k++)
			out->v[k].status = COMMIT_UNSETTLED;
		rc = -1;
	}
	buf_release(&req);
	commitrefs_release(&refs);
	return rc;
}

/* --- git log ---------------------------------------------------------------- */

/*
 * Each commit comes as NUL, "<oid>\n<name>\n<email>\n<date>\n<message>",
 * NUL, then its diff up to the next NUL: no diff holds a NUL (binary files
 * show as "Binary files ... differ") and git cuts a message at one.
 */
#define LOG_FORMAT	"--format=%x00%H%n%an%n%ae%n%aD%n%B%x00"

/*
 * checkpatch -g's forms: "A..B" (or A...B) a range, "REV-N" the N commits
 * up to REV, anything else one commit.  Sets *count ("-N" for git log,
 * "" for no limit) and *rev.
 */
static int parse_range(const char *range, char *count, size_t n, char **rev, struct err *e)
{
	const char *dash = strrchr(range, '-');
	size_t digits = dash ? strspn(dash + 1, "0123456789") : 0;

	if (!*range || *range == '-' || strlen(range) > GITREPO_MAX_RANGE)
		return err_set(e, ERR_FINAL, "--git: '%s' is not a revision range", range);
	*count = '\0';
	if (strstr(range, "..")) {
		*rev = xstrdup(range);
	} else if (dash && digits && !dash[1 + digits] && digits < 8) {
		snprintf(count, n, "-%s", dash + 1);
		*rev = xstrndup(range, (size_t)(dash - range));
	} else {
		snprintf(count, n, "-1");
		*rev = xstrdup(range);
	}
	return 0;
}

int gitrepo_log_open(struct gitrepo *g, const char *range, struct gitrepo_log **out,
		     struct err *e)
{
	char count[16], *rev = NULL;
	const char *args[] = { "-c", "log.showSignature=false", "log", "--no-merges", "--reverse",
			       "--no-color", "--no-mailmap", "--no-ext-diff", "-M", LOG_FORMAT, "-p",
			       count, NULL, "--", NULL };
	struct gitrepo_log *l;
	int pv[2], rc;

	*out = NULL;
	if (parse_range(range, count, sizeof(count), &rev, e) < 0)
		return -1;
	args[12] = rev;
	if (!*count) {	/* no limit: the range takes its place */
		args[11] = rev;
		args[12] = "--";
		args[13] = NULL;
	}
	if (pipe2(pv, O_CLOEXEC) < 0) {
		free(rev);
		return err_set(e, ERR_FINAL, "git log: pipe: %s", strerror(errno));
	}
	l = xcalloc(1, sizeof(*l));
	rc = spawn_git(g, &(struct git_cmd){ args, -1, pv[1], false }, &l->pid, e);
	free(rev);
	close(pv[1]);
	if (rc < 0) {
		close(pv[0]);
		free(l);
		return -1;
	}
	l->out = fdopen(pv[0], "r");
	buf_init(&l->rec, MESSAGE_MAX_SIZE);
	buf_init(&l->diff, MESSAGE_MAX_SIZE);
	buf_init(&l->mail, MESSAGE_MAX_SIZE + 4096);
	*out = l;
	return 0;
}

/* Reads up to the next NUL (or EOF) into b; false at EOF with nothing read.
 * *over is set when the piece was larger than b's cap (the rest skipped). */
static bool read_piece(FILE *f, struct buf *b, bool *over)
{
	int c;
	bool any = false;

	buf_reset(b);
	*over = false;
	while ((c = getc_unlocked(f)) != EOF) {
		any = true;
		if (c == '\0')
			return true;
		if (!*over && buf_addch(b, c) < 0)
			*over = true;
	}
	return any;
}

/* The n-th line (0-based) of the fields in rec, as a pointer and length. */
static const char *field(const struct buf *rec, size_t *pos, size_t *len)
{
	const char *s = rec->data + *pos, *nl = memchr(s, '\n', rec->len - *pos);

	if (!nl)
		return NULL;
	*len = (size_t)(nl - s);
	*pos += *len + 1;
	return s;
}

/* A display name as a quoted-string (RFC 5322), so any name parses. */
static void add_quoted(struct buf *b, const char *s, size_t n)
{
	buf_addch(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			buf_addch(b, '\\');
		buf_addch(b, s[i]);
	}
	buf_addch(b, '"');
}

/* The message's subject paragraph into the mail; returns where the body
 * starts in msg and counts the lines before it in *lines. */
static size_t add_subject(struct buf *m, const char *msg, size_t n, size_t *lines)
{
	size_t i = 0;

	*lines = 0;
	buf_addstr(m, "Subject: [PATCH] ");
	while (i < n && msg[i] != '\n') {
		const char *nl = memchr(msg + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - (msg + i)) : n - i;

		if (*lines)
			buf_addch(m, ' ');
		buf_add(m, msg + i, k);
		i += k + (nl != NULL);
		++*lines;
	}
	buf_addch(m, '\n');
	while (i < n && msg[i] == '\n') {
		i++;
		++*lines;
	}
	return i;
}

/* Builds the mail of the commit in rec (fields, message) and diff. */
static int build_mail(struct gitrepo_log *l, struct gitrepo_commit *c)
{
	size_t pos = 0, n[4], body, subj_lines, dlen = l->diff.len;
	const char *f[4], *diff = l->diff.data;

	for (size_t i = 0; i < 4; i++)
		if (!(f[i] = field(&l->rec, &pos, &n[i])))
			return -1;
	if (n[0] != COMMITREF_SHA_MAX)
		return -1;
	memcpy(c->oid, f[0], n[0]);
	c->oid[n[0]] = '\0';
	buf_reset(&l->mail);
	buf_addstr(&l->mail, "From: ");
	add_quoted(&l->mail, f[1], n[1]);
	buf_printf(&l->mail, " <%.*s>\nDate: %.*s\n", (int)n[2], f[2], (int)n[3], f[3]);
	buf_addstr(&l->mail, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
		   "Content-Transfer-Encoding: 8bit\n");
	body = add_subject(&l->mail, l->rec.data + pos, l->rec.len - pos, &subj_lines);
	c->body_line = subj_lines + 1;
	buf_addch(&l->mail, '\n');
	buf_add(&l->mail, l->rec.data + pos + body, l->rec.len - pos - body);
	while (dlen && *diff == '\n') {
		diff++;
		dlen--;
	}
	if (dlen) {
		buf_addstr(&l->mail, "---\n");
		buf_add(&l->mail, diff, dlen);
	}
	c->mail = l->mail.data;
	c->len = l->mail.len;
	return 0;
}

enum gitrepo_next gitrepo_log_next(struct gitrepo_log *l, struct gitrepo_commit *c,
				   struct err *e)
{
	bool over_rec, over_diff;

	if (l->done)
		return GITREPO_END;
	if (!l->started) {
		l->started = true;
		/* the stream opens with the first commit's NUL */
		if (!read_piece(l->out, &l->rec, &over_rec) || l->rec.len) {
			l->done = true;
			return GITREPO_END;
		}
	}
	if (!read_piece(l->out, &l->rec, &over_rec)) {
		l->done = true;
		return GITREPO_END;
	}
	l->done = !read_piece(l->out, &l->diff, &over_diff);
	memset(c, 0, sizeof(*c));
	if (over_rec || over_diff || build_mail(l, c) < 0) {
		err_set(e, ERR_FINAL, "git log: commit %.12s: larger than %zu bytes or unreadable",
			l->rec.len ? l->rec.data : "?", (size_t)MESSAGE_MAX_SIZE);
		return GITREPO_SKIP;
	}
	return GITREPO_COMMIT;
}

int gitrepo_log_close(struct gitrepo_log *l, struct err *e)
{
	bool ok;

	if (!l)
		return 0;
	fclose(l->out);
	ok = reap(l->pid);
	buf_release(&l->rec);
	buf_release(&l->diff);
	buf_release(&l->mail);
	free(l);
	return ok ? 0 : err_set(e, ERR_FINAL, "git log failed (see its message above)");
}
