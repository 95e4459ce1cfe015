#include "autoconf.h"
#include "rules/families.h"
/* STUB */
void rules_signoff(struct rule_ctx *ctx) { (void)ctx; }
