/*
 * lib.h - the face of lib/: what every other folder builds on, and knows
 * no mail.  Errors with a class the loop can act on (err.h), buffers with
 * a size cap (buf.h), logging (log.h), locale-free ASCII classes (ascii.h),
 * byte tests eight bytes at a time (bytes.h), UTF-8 (utf8.h), whole writes
 * to a descriptor (fdio.h), the doubling waits after a failure (backoff.h)
 * and the one PCRE2 wrapper with match budgets (pattern.h, the only
 * includer of pcre2.h).
 * Nothing here includes a header of another folder.
 *
 *	struct buf b;
 *	struct err e;
 *
 *	buf_init(&b, 64 * 1024);		// grows to 64 KiB at most
 *	if (buf_add(&b, s, n) < 0)
 *		return err_set(&e, ERR_FINAL, "subject: longer than %zu bytes", b.cap);
 *	clean = utf8_clean_line(b.data, b.len, 512);
 *	buf_release(&b);
 */
#ifndef TAGBOT_LIB_H
#define TAGBOT_LIB_H

#include "lib/ascii.h"
#include "lib/backoff.h"
#include "lib/buf.h"
#include "lib/bytes.h"
#include "lib/err.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/pattern.h"
#include "lib/utf8.h"

#endif
