#include "autoconf.h"
#include "utf8.h"
/* STUB: to be written */
