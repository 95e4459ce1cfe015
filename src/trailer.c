#include "autoconf.h"
#include "trailer.h"
/* STUB: to be written */
