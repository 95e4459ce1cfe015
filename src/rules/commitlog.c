#include "autoconf.h"
#include "rules/families.h"
/* STUB */
void rules_commitlog(struct rule_ctx *ctx) { (void)ctx; }
