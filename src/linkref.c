#include "autoconf.h"
#include "linkref.h"
/* STUB: to be written */
const char *const linkref_default_archives[] = { NULL };
const char *const linkref_default_bugtrackers[] = { NULL };
const char *const linkref_old_archives[] = { NULL };
