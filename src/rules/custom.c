#include "autoconf.h"
#include "rules/families.h"
/* STUB */
void rules_custom(struct rule_ctx *ctx) { (void)ctx; }
