#include "autoconf.h"
#include "config.h"
/* STUB: to be written */
