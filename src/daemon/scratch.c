/*
 * scratch.c - the private directory of a throw-away state database.
 */
#include "autoconf.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "daemon/scratch.h"

#define SCRATCH_DB	"state.db"

void scratch_init(struct scratch *s)
{
	s->dir = NULL;
	s->db = NULL;
}

int scratch_create(struct scratch *s, const char *what, struct err *e)
{
	const char *tmp = getenv("TMPDIR");
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "%s/tagbot-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
	if (!mkdtemp(b.data)) {
		err_set(e, ERR_FINAL, "%s: cannot create the scratch database: %s", b.data,
			strerror(errno));
		buf_release(&b);
		return -1;
	}
	s->dir = buf_detach(&b, NULL);
	buf_init(&b, 0);
	buf_printf(&b, "%s/%s", s->dir, SCRATCH_DB);
	s->db = buf_detach(&b, NULL);
	return 0;
}

/* The store leaves its -wal and -shm files, and a half-built PATH.new-X
 * after a failure, next to the database: all of them go. */
void scratch_release(struct scratch *s)
{
	DIR *dir = s->dir ? opendir(s->dir) : NULL;
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		struct buf p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		buf_init(&p, 0);
		buf_printf(&p, "%s/%s", s->dir, de->d_name);
		unlink(p.data);
		buf_release(&p);
	}
	if (dir)
		closedir(dir);
	if (s->dir)
		rmdir(s->dir);
	free(s->dir);
	free(s->db);
	scratch_init(s);
}
