/*
 * transport.h - the folder that speaks protocols, one library per file:
 * imap_source (IMAP with libetpan, TLS checked with GnuTLS), smtp_sink
 * (SMTP submission with libcurl), lookup (archive HTTP with libcurl's
 * multi interface) and maildir.  Nothing outside this folder includes a
 * header of libcurl, libetpan's IMAP side or GnuTLS; the others see our
 * types and struct err (lib/err.h) only.
 *
 * libcurl's global state is the process's, not a module's: it is set up
 * once before any transfer and torn down once at exit, by main(), never by
 * a module that a SIGHUP reload frees while another (the SMTP pool) still
 * holds live handles.
 *
 *	int main(int argc, char **argv)
 *	{
 *		struct err e;
 *
 *		if (transport_init(&e) < 0)
 *			return fatal(&e);
 *		rc = run_command(argc, argv);
 *		transport_cleanup();
 *		return rc;
 *	}
 */
#ifndef TAGBOT_TRANSPORT_H
#define TAGBOT_TRANSPORT_H

#include "lib/err.h"

/* libcurl's global initialisation.  0, or -1 with e (may be NULL) set. */
int transport_init(struct err *e);

/* Undoes transport_init(); only after every handle of every module is gone. */
void transport_cleanup(void);

#endif
