#include "autoconf.h"
#include "patch.h"
/* STUB: to be written */
void patch_parse(const struct message *msg, struct patch **out, size_t *nout) { *out = 0; *nout = 0; }
void patches_free(struct patch *p, size_t n) { }
