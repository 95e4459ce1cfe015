#include "autoconf.h"
#include "message.h"
/* STUB: to be written */
#include <string.h>
void message_init(struct message *m) { memset(m, 0, sizeof(*m)); }
int message_parse(struct message *m, const char *raw, size_t len, struct err *e) { return err_set(e, ERR_FINAL, "stub"); }
void message_release(struct message *m) { }
