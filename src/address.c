#include "autoconf.h"
#include "address.h"
/* STUB: to be written */
