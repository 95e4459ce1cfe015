/*
 * fdio.c - see fdio.h.
 */
#include "autoconf.h"
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/fdio.h"

int fd_write_all(int fd, const char *p, size_t n, bool sock)
{
	while (n) {
		ssize_t w = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EPIPE;	/* nothing taken: the other end is gone */
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
