#include "autoconf.h"
#include "message.h"
/* STUB: to be written */
