/*
 * fuzz_check.c - libFuzzer target: raw mail bytes -> message_parse ->
 * patch_parse -> rules_run (default severities) -> JSON output, freeing
 * everything; and the daemon's readers of the same mail: the context kept
 * of it (context_from_patch), the maintainer commands of its text
 * (ccmode_parse_commands) and its Date (maildate_parse); and --fix's plan
 * applied to the decoded text, which must keep everything from the
 * separator on byte for byte (fix.h's promise: the diff is never changed),
 * else abort() reports the input; and an input that starts with gzip, xz or
 * zstd magic is decoded through unpack.h (bounded buffers, truncation and
 * corruption as errors) and its output checked as a mail.  Built and run
 * by fuzz/run.
 *
 * The input is handed over exactly as libFuzzer gives it (not NUL-
 * terminated), so a parser that reads past len is caught by ASan.  The
 * output goes to /dev/null: it is there to exercise output.c's escaping of
 * whatever the parsers let through, not to be read.
 */
#include "autoconf.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reply/ccmode.h"
#include "mail/context.h"
#include "lib/err.h"
#include "mail/maildate.h"
#include "mail/message.h"
#include "cli/fix.h"
#include "cli/unpack.h"
#include "cli/output.h"
#include "mail/patch.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rule_settings settings;
static FILE *devnull;

/* Settings are built once: compiling the default patterns per input would
 * make the fuzzer spend its time in PCRE2's compiler. */
static void setup(void)
{
	if (devnull)
		return;
	rule_settings_init(&settings);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
}

/* Byte offset in s (len bytes) where 1-based line l starts; len when the
 * text has fewer lines. */
static size_t line_start(const char *s, size_t len, size_t l)
{
	size_t off = 0;

	for (size_t k = 1; k < l && off < len; k++) {
		const char *nl = memchr(s + off, '\n', len - off);

		off = nl ? (size_t)(nl - s) + 1 : len;
	}
	return off;
}

/* --fix on part p: the copy keeps what follows the separator unchanged
 * (notes moved below "---" go in right after that line). */
static void fix_keeps_diff(const struct message *m, const struct patch *p)
{
	struct fix_edits ed;
	char *buf = NULL;
	size_t len = 0, keep, from;
	FILE *in, *out;

	if (p->kind != KIND_PATCH || !m->text || !m->text_len || p->text < m->text ||
	    p->text > m->text + m->text_len || p->sep_lineno == 0 ||
	    (p->sep != SEP_DASHES && p->sep != SEP_DIFF && p->sep != SEP_INDEX))
		return;
	fix_edits_init(&ed);
	fix_plan(p, NULL, &ed);
	in = fmemopen((void *)m->text, m->text_len, "r");
	out = open_memstream(&buf, &len);
	if (!in || !out || fix_write(in, out, &ed) < 0)
		abort();
	fclose(in);
	fclose(out);
	from = line_start(m->text, m->text_len,
			  p->sep_lineno + (p->sep == SEP_DASHES ? 1 : 0));
	keep = m->text_len - from;
	if (len < keep || memcmp(buf + len - keep, m->text + from, keep))
		abort();	/* --fix changed something at or after the separator */
	free(buf);
	fix_edits_release(&ed);
}

static void check_patches(const struct message *m)
{
	struct patch *p = NULL;
	size_t n = 0;

	patch_parse(m, &p, &n);
	for (size_t i = 0; i < n; i++) {
		struct findings fs;
		struct msg_context ctx;

		findings_init(&fs);
		rules_run(&p[i], &settings, &fs);
		output_patch(devnull, OUTPUT_JSON, "fuzz", &p[i], &fs, SEV_CHECK);
		fix_keeps_diff(m, &p[i]);
		findings_release(&fs);
		msg_context_init(&ctx);
		context_from_patch(m, &p[i], 0, &ctx);
		msg_context_release(&ctx);
	}
	patches_free(p, n);
}

static void daemon_readers(const struct message *m)
{
	struct cc_commands cmds;
	const char *date = message_header(m, "Date");
	time_t t;

	if (m->text)
		ccmode_parse_commands(m->text, m->text_len, &cmds);
	if (date)
		(void)maildate_parse(date, &t);
}

static void check_mail(const uint8_t *data, size_t size);

/* Compressed input: decoded from a memory file as input.c decodes a file,
 * at most 1 MiB of it (a small bomb is fine, a big one is not the point). */
static void unpacked(const uint8_t *data, size_t size)
{
	enum unpack_format f = unpack_detect(data, size);
	static char out[1 << 20];
	struct unpack *u = NULL;
	size_t len = 0;
	ssize_t n = 1;
	struct err e;
	int fd;

	if (f == UNPACK_NONE)
		return;
	fd = memfd_create("fuzz", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	if ((u = unpack_new(f, fd, NULL, 0, &e)) != NULL) {
		while (len < sizeof(out) &&
		       (n = unpack_read(u, out + len, sizeof(out) - len, &e)) > 0)
			len += (size_t)n;
		unpack_free(u);
		if (n >= 0)
			check_mail((const uint8_t *)out, len);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	unpacked(data, size);
	check_mail(data, size);
	return 0;
}

static void check_mail(const uint8_t *data, size_t size)
{
	struct message m;
	struct err e;

	err_init(&e);
	message_init(&m);
	if (message_parse(&m, (const char *)data, size, &e) == 0) {
		check_patches(&m);
		daemon_readers(&m);
	} else
		output_error(devnull, OUTPUT_JSON, &(struct output_ctx){ .file = "fuzz", .mail = 1 },
			     NULL, e.msg);
	message_release(&m);
}
