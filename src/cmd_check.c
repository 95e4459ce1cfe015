#include "autoconf.h"
#include "cmd_check.h"
/* STUB: to be written */
int cmd_check(int argc, char **argv) { return EXIT_USAGE; }
