#include "autoconf.h"
#include "transport/transport.h"

#include <curl/curl.h>

int transport_init(struct err *e)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(e, ERR_FINAL, "transport: cannot initialise libcurl");
	return 0;
}

void transport_cleanup(void)
{
	curl_global_cleanup();
}
