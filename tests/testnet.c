/*
 * testnet.c - running a suite whose module uses libcurl.
 */
#include "autoconf.h"
#include <stdlib.h>

#include "testhelp.h"
#include "transport/transport.h"

int th_run_suite_transport(Suite *s)
{
	int rc;

	/* As main() does: libcurl's global state for the whole run. */
	if (transport_init(NULL) < 0)
		return EXIT_FAILURE;
	rc = th_run_suite(s);
	transport_cleanup();
	return rc;
}
