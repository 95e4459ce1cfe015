/*
 * daemon_series.c - the daemon's context records and reply_mode =
 * per-series.
 */
#include "autoconf.h"

#include "daemon_int.h"
