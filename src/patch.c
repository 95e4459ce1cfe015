#include "autoconf.h"
#include "patch.h"
/* STUB: to be written */
