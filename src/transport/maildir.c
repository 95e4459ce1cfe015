#include "autoconf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "mail/msgid.h"
#include "transport/maildir.h"

#define DELIVER_TRIES 5	/* fresh names tried when one is taken */

static const char *const subdirs[] = { "cur", "new", "tmp" };

void maildir_init(struct maildir *md)
{
	md->path = NULL;
}

void maildir_release(struct maildir *md)
{
	free(md->path);
	maildir_init(md);
}

static int sys_err(const struct maildir *md, const char *what, const char *name, struct err *e)
{
	/* A vanished file or a full disk may clear up; the rest will not. */
	enum err_class cls = errno == ENOENT || errno == ENOSPC || errno == EINTR ||
		errno == EAGAIN ? ERR_TEMP : ERR_FINAL;

	return err_set(e, cls, "maildir %s: %s %s: %s", md->path, what, name, strerror(errno));
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = xmalloc(la + lb + 2);

	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

static int make_dir(const struct maildir *md, const char *path, struct err *e)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return sys_err(md, "cannot create", path, e);
	return 0;
}

static int check_dir(const struct maildir *md, const char *sub, bool create, struct err *e)
{
	char *p = join(md->path, sub);
	struct stat sb;
	int rc = 0;

	if (create && make_dir(md, p, e) < 0)
		rc = -1;
	else if (stat(p, &sb) < 0)
		rc = sys_err(md, "no", sub, e);
	else if (!S_ISDIR(sb.st_mode))
		rc = err_set(e, ERR_FINAL, "maildir %s: %s is not a directory", md->path, sub);
	free(p);
	return rc;
}

int maildir_open(struct maildir *md, const char *path, bool create, struct err *e)
{
	maildir_init(md);
	if (!path || !*path)
		return err_set(e, ERR_FINAL, "maildir: no path configured");
	md->path = xstrdup(path);
	if (create && make_dir(md, path, e) < 0)
		goto fail;
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++)
		if (check_dir(md, subdirs[i], create, e) < 0)
			goto fail;
	return 0;
fail:
	maildir_release(md);
	return -1;
}

void maildir_list_init(struct maildir_list *l)
{
	memset(l, 0, sizeof(*l));
}

void maildir_list_release(struct maildir_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	maildir_list_init(l);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Regular files only, symbolic links not followed: a link in a Maildir
 * could point anywhere on the machine. */
static bool is_regular(int dfd, const struct dirent *d)
{
	struct stat sb;

	if (d->d_type == DT_REG)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return false;
	return fstatat(dfd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

static int list_sub(const struct maildir *md, const char *sub, struct maildir_list *l,
		    struct err *e)
{
	char *p = join(md->path, sub);
	DIR *dir = opendir(p);
	struct dirent *d;
	size_t first = l->n;

	free(p);
	if (!dir)
		return sys_err(md, "cannot list", sub, e);
	while (l->n < MAILDIR_MAX_ENTRIES && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || !is_regular(dirfd(dir), d))
			continue;
		ARRAY_GROW(l->names, l->alloc, l->n + 1);
		l->names[l->n++] = join(sub, d->d_name);
	}
	closedir(dir);
	/* qsort on an empty (NULL) array is undefined, UBSan says so. */
	if (l->n > first)
		qsort(l->names + first, l->n - first, sizeof(*l->names), cmp_names);
	return 0;
}

int maildir_list(const struct maildir *md, bool with_cur, struct maildir_list *l,
		 struct err *e)
{
	maildir_list_release(l);
	if (list_sub(md, "new", l, e) < 0)
		return -1;
	if (with_cur && list_sub(md, "cur", l, e) < 0)
		return -1;
	return 0;
}

/* "new/BASE" or "cur/BASE"; returns BASE, or NULL for anything else. */
static const char *check_name(const char *name, bool *in_new)
{
	const char *base;
	size_t n;

	if (!name)
		return NULL;
	if (!strncmp(name, "new/", 4))
		*in_new = true;
	else if (!strncmp(name, "cur/", 4))
		*in_new = false;
	else
		return NULL;
	base = name + 4;
	n = strlen(base);
	if (n == 0 || n > MAILDIR_NAME_MAX || base[0] == '.' || strchr(base, '/'))
		return NULL;
	return base;
}

enum read_end {
	READ_FAILED = -1,	/* errno set by the read */
	READ_ALL = 0,
	READ_TOO_LARGE		/* out would pass max bytes, or its own cap */
};

/* Appends the rest of fd to out. */
static enum read_end read_all(int fd, struct buf *out, size_t max)
{
	char chunk[65536];
	ssize_t r;

	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return READ_FAILED;
		if (out->len + (size_t)r > max || buf_add(out, chunk, (size_t)r) < 0)
			return READ_TOO_LARGE;
	}
	return READ_ALL;
}

/* Empties out and opens the message name for reading; the descriptor, or
 * -1 with e filled. */
static int open_message(const struct maildir *md, const char *name, struct buf *out,
			struct err *e)
{
	bool in_new;
	char *p;
	int fd;

	buf_reset(out);
	if (!check_name(name, &in_new))
		return err_set(e, ERR_FINAL, "maildir %s: bad message name", md->path);
	p = join(md->path, name);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return sys_err(md, "cannot open", name, e);
	return fd;
}

int maildir_read(const struct maildir *md, const char *name, struct buf *out,
		 size_t max, struct err *e)
{
	enum read_end end;
	struct stat sb;
	int fd, rc = 0;

	fd = open_message(md, name, out, e);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return err_set(e, ERR_FINAL, "maildir %s: %s is not a regular file", md->path, name);
	}
	/* The size first: a file that grows while read is caught by read_all(). */
	end = (uintmax_t)sb.st_size > max ? READ_TOO_LARGE : read_all(fd, out, max);
	if (end == READ_FAILED)
		rc = sys_err(md, "cannot read", name, e);	/* before close() sets errno */
	else if (end == READ_TOO_LARGE)
		rc = err_set(e, ERR_FINAL, "maildir %s: %s is larger than %zu bytes", md->path,
			     name, max);
	close(fd);
	return rc;
}

char *maildir_seen_name(const char *base)
{
	const char *info = strstr(base, ":2,");
	size_t pre, nflags;
	char *out;

	if (!info) {
		/* Another info scheme (":1,...") is not ours to rewrite. */
		if (strchr(base, ':'))
			return NULL;
		out = xmalloc(strlen(base) + 5);
		sprintf(out, "%s:2,S", base);
		return out;
	}
	if (strchr(info + 3, 'S'))
		return NULL;
	/* Flags stay in ASCII order, as the Maildir spec asks. */
	pre = (size_t)(info + 3 - base);
	nflags = strlen(info + 3);
	out = xmalloc(pre + nflags + 2);
	memcpy(out, base, pre);
	size_t i = 0, o = pre;
	while (i < nflags && (unsigned char)info[3 + i] < 'S')
		out[o++] = info[3 + i++];
	out[o++] = 'S';
	while (i < nflags)
		out[o++] = info[3 + i++];
	out[o] = '\0';
	return out;
}

int maildir_mark_seen(const struct maildir *md, const char *name, char **newname,
		      struct err *e)
{
	const char *base;
	char *seen, *to, *from, *rel;
	bool in_new;
	int rc = 0;

	if (newname)
		*newname = NULL;
	if (!(base = check_name(name, &in_new)))
		return err_set(e, ERR_FINAL, "maildir %s: bad message name", md->path);
	seen = maildir_seen_name(base);
	if (!seen && !in_new) {
		if (newname)
			*newname = xstrdup(name);
		return 0;
	}
	rel = join("cur", seen ? seen : base);
	from = join(md->path, name);
	to = join(md->path, rel);
	if (rename(from, to) < 0)
		rc = sys_err(md, "cannot move", name, e);
	else if (newname)
		*newname = rel, rel = NULL;
	free(seen);
	free(rel);
	free(from);
	free(to);
	return rc;
}

/* --- delivery ---------------------------------------------------------- */

/* The host part of a name: '/' and ':' would break the name, so they are
 * written as octal escapes, the way the Maildir spec asks. */
static void host_part(char *out, size_t size)
{
	char host[65] = "localhost";
	size_t o = 0;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	for (const char *h = host; *h && o + 5 < size; h++) {
		if (*h == '/')
			o += (size_t)snprintf(out + o, size - o, "\\057");
		else if (*h == ':')
			o += (size_t)snprintf(out + o, size - o, "\\072");
		else if ((unsigned char)*h > ' ' && *h != 0x7f)
			out[o++] = *h;
	}
	out[o] = '\0';
}

static void unique_name(char *out, size_t size)
{
	static unsigned counter;
	char host[128];
	struct timeval tv;
	uint32_t rnd = 0;

	gettimeofday(&tv, NULL);
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd ^= (uint32_t)tv.tv_usec * 2654435761u;
	host_part(host, sizeof(host));
	snprintf(out, size, "%lld.M%06ldP%ldQ%uR%08x.%s", (long long)tv.tv_sec, (long)tv.tv_usec,
		 (long)getpid(), ++counter, (unsigned)rnd, host);
}

/* Writes data with CRLF turned into LF, then flushes it to the disk. */
static int write_lf(int fd, const char *data, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i + 1 < len; i++) {
		if (data[i] == '\r' && data[i + 1] == '\n') {
			if (fd_write_all(fd, data + start, i - start, false) < 0)
				return -1;
			start = i + 1;
		}
	}
	if (fd_write_all(fd, data + start, len - start, false) < 0)
		return -1;
	return fsync(fd);
}

static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Writes tmp/BASE; -1 with errno set. */
static int write_tmp(const char *tmp, const char *data, size_t len)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write_lf(fd, data, len) < 0) {
		int saved = errno;

		close(fd);
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* tmp/BASE -> new/BASE without overwriting: link() fails on a taken name,
 * where rename() would replace it.  Filesystems without hard links get
 * rename() (the name is unique anyway). */
static int publish(const char *tmp, const char *dst)
{
	if (link(tmp, dst) == 0)
		return unlink(tmp) < 0 && errno != ENOENT ? -1 : 0;
	if (errno == EEXIST)
		return -1;
	return rename(tmp, dst);
}

static int deliver_once(const struct maildir *md, const char *data, size_t len,
			char **name, struct err *e)
{
	char base[256], *tmp, *dst, *newdir;
	int rc = -1;

	unique_name(base, sizeof(base));
	tmp = join(md->path, "tmp");
	dst = join(tmp, base);
	free(tmp);
	tmp = dst;
	newdir = join(md->path, "new");
	dst = join(newdir, base);
	if (write_tmp(tmp, data, len) < 0) {
		rc = errno == EEXIST ? 1 : sys_err(md, "cannot write", "tmp/", e);
	} else if (publish(tmp, dst) < 0) {
		rc = errno == EEXIST ? 1 : sys_err(md, "cannot deliver into", "new/", e);
		unlink(tmp);
	} else if (fsync_dir(newdir) < 0) {
		rc = sys_err(md, "cannot sync", "new/", e);
	} else {
		rc = 0;
		if (name)
			*name = join("new", base);
	}
	free(tmp);
	free(dst);
	free(newdir);
	return rc;
}

int maildir_deliver(const struct maildir *md, const char *data, size_t len, char **name,
		    struct err *e)
{
	if (name)
		*name = NULL;
	for (int i = 0; i < DELIVER_TRIES; i++) {
		int rc = deliver_once(md, data, len, name, e);

		if (rc <= 0)
			return rc;
	}
	return err_set(e, ERR_TEMP, "maildir %s: no unique name after %d tries", md->path,
		       DELIVER_TRIES);
}

/* Added for maintainer Cc mode: the header of a message is enough to find
 * one by Message-ID, and a Maildir may hold large mails. */
int maildir_read_head(const struct maildir *md, const char *name, struct buf *out,
		      size_t max, struct err *e)
{
	int fd;
	ssize_t r = 0;

	fd = open_message(md, name, out, e);
	if (fd < 0)
		return -1;
	while (out->len < max) {
		char chunk[16384];
		size_t want = max - out->len < sizeof(chunk) ? max - out->len : sizeof(chunk);

		r = read(fd, chunk, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || buf_add(out, chunk, (size_t)r) < 0)
			break;
	}
	close(fd);
	return r < 0 ? sys_err(md, "cannot read", name, e) : 0;
}

/* Whether name's header has a Message-ID whose key is key; a file that
 * cannot be read has none. */
static bool has_key(const struct maildir *md, const char *name, const char *key,
		    struct buf *head)
{
	struct err e;
	char *id, *k;
	bool same;

	if (maildir_read_head(md, name, head, MSGID_SCAN_MAX, &e) < 0)
		return false;
	id = msgid_from_raw(head->data, head->len);
	k = id ? msgid_key(id) : NULL;
	same = k && !strcmp(k, key);
	free(id);
	free(k);
	return same;
}

int maildir_find_msgid(const struct maildir *md, const char *msgid, size_t max_files,
		       char **name, struct err *e)
{
	struct maildir_list l;
	struct buf head;
	char *key = msgid_key(msgid);

	*name = NULL;
	if (!key)
		return 0;
	maildir_list_init(&l);
	if (maildir_list(md, true, &l, e) < 0) {
		free(key);
		return -1;
	}
	buf_init(&head, MSGID_SCAN_MAX);
	for (size_t i = 0; i < l.n && i < max_files && !*name; i++)
		if (has_key(md, l.names[i], key, &head))
			*name = xstrdup(l.names[i]);
	buf_release(&head);
	maildir_list_release(&l);
	free(key);
	return 0;
}
