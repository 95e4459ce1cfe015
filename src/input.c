#include "autoconf.h"
#include "input.h"
/* STUB: to be written */
