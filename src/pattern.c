#include "autoconf.h"
#include "pattern.h"
/* STUB: to be written */
void pattern_list_init(struct pattern_list *l) { l->v = 0; l->n = l->alloc = 0; }
int pattern_list_add(struct pattern_list *l, const char *re, unsigned flags, struct err *e) { return 0; }
void pattern_list_release(struct pattern_list *l) { }
void pattern_free(struct pattern *p) { }
