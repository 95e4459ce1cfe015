#include "autoconf.h"
#include "output.h"
/* STUB: to be written */
