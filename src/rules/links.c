#include "autoconf.h"
#include "rules/families.h"
/* STUB */
void rules_links(struct rule_ctx *ctx) { (void)ctx; }
