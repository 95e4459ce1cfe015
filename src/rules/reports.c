#include "autoconf.h"
#include "rules/families.h"
/* STUB */
void rules_reports(struct rule_ctx *ctx) { (void)ctx; }
