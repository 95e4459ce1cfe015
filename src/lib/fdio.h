/*
 * fdio.h - writing all of a buffer to a file descriptor, through short
 * writes and EINTR.
 */
#ifndef TAGBOT_FDIO_H
#define TAGBOT_FDIO_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the n bytes at p to fd; 0, or -1 with errno set by the write
 * that failed (EPIPE for one that took nothing).  sock: fd is a socket, written with
 * MSG_NOSIGNAL, so that a peer that went away is an EPIPE to report and
 * not a SIGPIPE that kills the process.
 */
int fd_write_all(int fd, const char *p, size_t n, bool sock);

#endif
