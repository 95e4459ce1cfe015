/*
 * check_input.c - input.c: mbox splitting and unescaping (mboxo, mboxrd,
 * CRLF), Maildirs, directories of .eml files, stdin, over-size messages,
 * unreadable paths, and gzip, xz and zstd files (compressed here with the
 * libraries unpack.c decodes with) next to binary input that is refused.
 * Every case writes its files into a fresh temporary directory.
 */
#include "autoconf.h"
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/buf.h"
#include "cli/input.h"
#include "mail/message.h"
#include "testhelp.h"

#define MAX_GOT 16

/* What input_next() handed out, copied. */
struct got {
	enum input_status st;
	char *data;		/* NULL for INPUT_SKIP */
	size_t len;
	char file[512];
	size_t index, lineno;
	char err[ERR_MSG_MAX];
};

static char tmpdir[256];

static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/tagbot-input-XXXXXX", base && *base ? base : "/tmp");
	ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

/* tmpdir/name, in a static buffer per call slot. */
static const char *tpath(const char *name)
{
	static char bufs[8][512];
	static int slot;
	char *b = bufs[slot++ % 8];

	snprintf(b, 512, "%s/%s", tmpdir, name);
	return b;
}

static void write_file(const char *name, const char *data, size_t len)
{
	FILE *f = fopen(tpath(name), "wb");

	ck_assert_msg(f != NULL, "%s: %s", name, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_str(const char *name, const char *data)
{
	write_file(name, data, strlen(data));
}

static void make_dir(const char *name)
{
	ck_assert_int_eq(mkdir(tpath(name), 0700), 0);
}

/* Reads every message of paths (max: input_set_max_size, 0 = default). */
static size_t collect(const char *const *paths, size_t n, size_t max, struct got *out)
{
	struct input *in = input_new(paths, n);
	struct input_msg m;
	struct err e;
	size_t k = 0;
	enum input_status st;

	if (max)
		input_set_max_size(in, max);
	while ((st = input_next(in, &m, &e)) != INPUT_END) {
		ck_assert_uint_lt(k, MAX_GOT);
		out[k].st = st;
		out[k].data = st == INPUT_OK ? xstrndup(m.data, m.len) : NULL;
		out[k].len = st == INPUT_OK ? m.len : 0;
		snprintf(out[k].file, sizeof(out[k].file), "%s", m.file ? m.file : "");
		out[k].index = m.index;
		out[k].lineno = m.lineno;
		snprintf(out[k].err, sizeof(out[k].err), "%s", st == INPUT_SKIP ? e.msg : "");
		k++;
	}
	input_free(in);
	return k;
}

static size_t collect1(const char *path, struct got *out)
{
	const char *paths[] = { path };

	return collect(paths, 1, 0, out);
}

static void free_got(struct got *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].data);
}

static void assert_msg(const struct got *g, const char *data, size_t index, size_t lineno)
{
	ck_assert_int_eq(g->st, INPUT_OK);
	ck_assert_str_eq(g->data, data);
	ck_assert_uint_eq(g->len, strlen(data));
	ck_assert_uint_eq(g->index, index);
	ck_assert_uint_eq(g->lineno, lineno);
}

/* --- mbox splitting and unescaping ------------------------------------- */

/* An mboxo writer escaped the body's "From " lines with one '>'. */
START_TEST(test_mboxo_unescape)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("o.mbox",
		  "From alice@example.org Mon Sep 17 00:00:00 2001\n"
		  "Subject: one\n"
		  "\n"
		  "text\n"
		  ">From the datasheet, the LED is active low.\n"
		  "\n"
		  "From bob@example.org Tue Sep 18 10:11:12 2001\n"
		  "Subject: two\n"
		  "\n"
		  "body two\n");
	n = collect1(tpath("o.mbox"), g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0], "Subject: one\n\ntext\nFrom the datasheet, the LED is active low.\n", 1, 2);
	assert_msg(&g[1], "Subject: two\n\nbody two\n", 2, 8);
	ck_assert_str_eq(g[0].file, tpath("o.mbox"));
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* mboxrd: every level of quoting loses exactly one '>'. */
START_TEST(test_mboxrd_unescape)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("rd.mbox",
		  "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		  "Subject: quoting\n"
		  "\n"
		  ">From one\n"
		  ">>From two\n"
		  ">>>From three\n"
		  "> From not escaped (space after >)\n"
		  ">Fromage is not From\n"
		  "From  inside a line is kept\n");
	n = collect1(tpath("rd.mbox"), g);
	ck_assert_uint_eq(n, 1);
	assert_msg(&g[0],
		   "Subject: quoting\n\n"
		   "From one\n"
		   ">From two\n"
		   ">>From three\n"
		   "> From not escaped (space after >)\n"
		   ">Fromage is not From\n"
		   "From  inside a line is kept\n", 1, 2);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* git mailsplit skips white space before the first From_ line: an mbox
 * that opens with blank lines is still split into its mails, and line
 * numbers count the skipped lines. */
START_TEST(test_blank_lines_before_mbox)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("lead.mbox",
		  "\n"							/* 1 */
		  " \t\r\n"						/* 2 */
		  "From mboxrd@z Thu Jan  1 00:00:00 1970\n"		/* 3 */
		  "Subject: a\n"					/* 4 */
		  "\n"							/* 5 */
		  "a\n"							/* 6 */
		  "\n"							/* 7 */
		  "From mboxrd@z Thu Jan  1 00:00:00 1970\n"		/* 8 */
		  "Subject: b\n"					/* 9 */
		  "\n"							/* 10 */
		  "b\n");						/* 11 */
	n = collect1(tpath("lead.mbox"), g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0], "Subject: a\n\na\n", 1, 4);
	assert_msg(&g[1], "Subject: b\n\nb\n", 2, 9);
	free_got(g, n);
	/* a mail (no From_ line) keeps its leading blank lines */
	write_str("lead.eml", "\n\nSubject: c\n\nc\n");
	n = collect1(tpath("lead.eml"), g);
	ck_assert_uint_eq(n, 1);
	assert_msg(&g[0], "\n\nSubject: c\n\nc\n", 1, 1);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/*
 * A "From " line in a body only separates when it follows a blank line and
 * carries a time, as every From_ line does; an escaped one never does.
 */
START_TEST(test_from_in_body)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("body.mbox",
		  "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		  "Subject: a\n"
		  "\n"
		  "As the manual says:\n"
		  "From 9 to 17:30 the LED blinks.\n"
		  "\n"
		  "From the datasheet: no time on this line\n"
		  "\n"
		  ">From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		  "\n"
		  "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		  "Subject: b\n"
		  "\n"
		  "b\n");
	n = collect1(tpath("body.mbox"), g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0],
		   "Subject: a\n\n"
		   "As the manual says:\n"
		   "From 9 to 17:30 the LED blinks.\n"
		   "\n"
		   "From the datasheet: no time on this line\n"
		   "\n"
		   "From mboxrd@z Thu Jan  1 00:00:00 1970\n", 1, 2);
	assert_msg(&g[1], "Subject: b\n\nb\n", 2, 12);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

START_TEST(test_crlf_mbox)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("crlf.mbox",
		  "From a@example.org Mon Sep 17 00:00:00 2001\r\n"
		  "Subject: one\r\n"
		  "\r\n"
		  ">From here\r\n"
		  "\r\n"
		  "From b@example.org Mon Sep 17 00:00:00 2001\r\n"
		  "Subject: two\r\n"
		  "\r\n"
		  "two\r\n"
		  "\r\n");
	n = collect1(tpath("crlf.mbox"), g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0], "Subject: one\r\n\r\nFrom here\r\n", 1, 2);
	assert_msg(&g[1], "Subject: two\r\n\r\ntwo\r\n", 2, 7);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* A message that is only the separator's blank line is empty. */
START_TEST(test_empty_message)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("empty.mbox",
		  "From a Mon Sep 17 00:00:00 2001\n\n"
		  "From b Mon Sep 17 00:00:00 2001\r\n\r\n"
		  "From c Mon Sep 17 00:00:00 2001\nSubject: c\n\n\n\n");
	n = collect1(tpath("empty.mbox"), g);
	ck_assert_uint_eq(n, 3);
	assert_msg(&g[0], "", 1, 2);
	assert_msg(&g[1], "", 2, 4);
	/* only one blank line is the mbox's: the body keeps its own */
	assert_msg(&g[2], "Subject: c\n\n\n", 3, 6);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* The caller may write over a message, data[len] too (as
 * message_parse_in_place() does): the next ones are read as they are in
 * the file, whether a message was handed out from the read buffer or
 * copied (one with a ">From " line to unescape is copied). */
START_TEST(test_caller_writes_over)
{
	static const char *const want[] = {
		"Subject: one\n\nbody one\n",
		"Subject: two\n\nFrom the start\n",
		"Subject: three\r\n\r\nbody three\r\n",
		"Subject: four\n\nlast\n",
	};
	struct input *in;
	const char *paths[1];
	struct input_msg m;
	struct err e;
	size_t k = 0;

	make_tmpdir();
	write_str("w.mbox",
		  "From a Mon Sep 17 00:00:00 2001\nSubject: one\n\nbody one\n\n"
		  "From b Mon Sep 17 00:00:00 2001\nSubject: two\n\n>From the start\n\n"
		  "From c Mon Sep 17 00:00:00 2001\r\nSubject: three\r\n\r\nbody three\r\n\r\n"
		  "From d Mon Sep 17 00:00:00 2001\nSubject: four\n\nlast\n");
	paths[0] = tpath("w.mbox");
	in = input_new(paths, 1);
	while (input_next(in, &m, &e) == INPUT_OK) {
		ck_assert_uint_lt(k, 4);
		ck_assert_uint_eq(m.len, strlen(want[k]));
		ck_assert_msg(!memcmp(m.data, want[k], m.len), "message %zu: %.*s", k + 1,
			      (int)m.len, m.data);
		memset(m.data, 'X', m.len + 1);
		k++;
	}
	ck_assert_uint_eq(k, 4);
	input_free(in);
	remove_tree(tmpdir);
}
END_TEST

/* The kind comes from the first line, not the name. */
START_TEST(test_detect_by_content)
{
	const char *paths[2];
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("looks-like.mbox", "Subject: single\n\n>From stays escaped in a plain file\n");
	write_str("really-mbox.eml",
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 1\n\n1\n\n"
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 2\n\n2\n");
	paths[0] = tpath("looks-like.mbox");
	paths[1] = tpath("really-mbox.eml");
	n = collect(paths, 2, 0, g);
	ck_assert_uint_eq(n, 3);
	assert_msg(&g[0], "Subject: single\n\n>From stays escaped in a plain file\n", 1, 1);
	assert_msg(&g[1], "Subject: 1\n\n1\n", 1, 2);
	assert_msg(&g[2], "Subject: 2\n\n2\n", 2, 7);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* A line longer than the read buffer arrives in pieces and is kept whole;
 * the separator after it is still seen. */
START_TEST(test_long_line)
{
	size_t big = 700 * 1024;
	struct buf b, want;
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	buf_init(&b, 0);
	buf_init(&want, 0);
	buf_addstr(&b, "From x Mon Sep 17 00:00:00 2001\n");
	buf_addstr(&want, "Subject: long\n\n");
	for (size_t i = 0; i < big; i++)
		buf_addch(&want, 'a' + (int)(i % 26));
	buf_addstr(&want, "\n");
	buf_add(&b, want.data, want.len);
	buf_addstr(&b, "\nFrom y Mon Sep 17 00:00:00 2001\nSubject: after\n\nok\n");
	write_file("long.mbox", b.data, b.len);
	n = collect1(tpath("long.mbox"), g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0], want.data, 1, 2);
	assert_msg(&g[1], "Subject: after\n\nok\n", 2, 7);
	free_got(g, n);
	buf_release(&b);
	buf_release(&want);
	remove_tree(tmpdir);
}
END_TEST

/*
 * Messages of lines of every length and shape (blank, quoted, "From "
 * lines the writer escapes), more of them than one read of the file
 * holds: each comes back whole, unescaped, at its line of the file.
 */
START_TEST(test_many_line_shapes)
{
	static const char *const shapes[] = { "", ">", "> quoted", "From here on", ">From there",
					      "\t-> x", "Signed-off-by: A <a@x>", "\r" };
	enum { NMSG = 12 };
	struct buf mbox, want[NMSG];
	size_t lineno = 1, first[NMSG], n;
	unsigned seed = 1;
	struct got g[MAX_GOT];

	make_tmpdir();
	buf_init(&mbox, 0);
	for (size_t i = 0; i < NMSG; i++) {
		buf_init(&want[i], 0);
		buf_printf(&want[i], "Subject: %zu\n\n", i);
		for (size_t k = 0; k < 1200; k++) {
			unsigned r;

			seed = seed * 1103515245 + 12345;
			r = (seed >> 16) % 100;
			if (r < 12) {
				buf_addstr(&want[i], shapes[r % 8]);
			} else {
				for (unsigned c = 0; c < r - 12; c++)
					buf_addch(&want[i], (char)('a' + (c + k) % 26));
			}
			buf_addch(&want[i], '\n');
		}
		buf_addstr(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
		lineno++;
		first[i] = lineno;
		/* mboxrd: every ">*From " line gets one '>' more */
		for (const char *p = want[i].data; *p;) {
			const char *nl = strchr(p, '\n'), *q = p;

			while (*q == '>')
				q++;
			if (!strncmp(q, "From ", 5))
				buf_addch(&mbox, '>');
			buf_add(&mbox, p, (size_t)(nl - p) + 1);
			lineno++;
			p = nl + 1;
		}
		buf_addch(&mbox, '\n');
		lineno++;
	}
	ck_assert_uint_gt(mbox.len, 512 * 1024);
	write_file("shapes.mbox", mbox.data, mbox.len);
	n = collect1(tpath("shapes.mbox"), g);
	ck_assert_uint_eq(n, NMSG);
	for (size_t i = 0; i < NMSG; i++) {
		assert_msg(&g[i], want[i].data, i + 1, first[i]);
		buf_release(&want[i]);
	}
	free_got(g, n);
	buf_release(&mbox);
	remove_tree(tmpdir);
}
END_TEST

/* --- directories -------------------------------------------------------- */

START_TEST(test_maildir)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	make_dir("md");
	make_dir("md/cur");
	make_dir("md/new");
	make_dir("md/tmp");
	write_str("md/new/1700000300.M1P1.host", "Subject: third\n\n3\n");
	write_str("md/cur/1700000100.M1P1.host:2,S", "Subject: first\n\n1\n");
	write_str("md/new/1700000200.M1P1.host", "Subject: second\n\n2\n");
	write_str("md/cur/.hidden", "Subject: never\n\n");
	write_str("md/tmp/1700000000.M1P1.host", "Subject: being delivered\n\n");
	n = collect1(tpath("md"), g);
	ck_assert_uint_eq(n, 3);
	assert_msg(&g[0], "Subject: first\n\n1\n", 1, 1);
	assert_msg(&g[1], "Subject: second\n\n2\n", 1, 1);
	assert_msg(&g[2], "Subject: third\n\n3\n", 1, 1);
	ck_assert_str_eq(g[0].file, tpath("md/cur/1700000100.M1P1.host:2,S"));
	ck_assert_str_eq(g[2].file, tpath("md/new/1700000300.M1P1.host"));
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

START_TEST(test_eml_dir)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	make_dir("series");
	write_str("series/0002-two.patch", "Subject: [PATCH 2/2] two\n\n2\n");
	write_str("series/0000-cover-letter.patch", "Subject: [PATCH 0/2] cover\n\n0\n");
	write_str("series/b.eml", "Subject: b\n\nb\n");
	write_str("series/a.eml", "Subject: a\n\na\n");
	write_str("series/notes.txt", "not a mail\n");
	write_str("series/.c.eml", "Subject: hidden\n\n");
	n = collect1(tpath("series"), g);
	ck_assert_uint_eq(n, 4);
	assert_msg(&g[0], "Subject: [PATCH 0/2] cover\n\n0\n", 1, 1);
	assert_msg(&g[1], "Subject: [PATCH 2/2] two\n\n2\n", 1, 1);
	assert_msg(&g[2], "Subject: a\n\na\n", 1, 1);
	assert_msg(&g[3], "Subject: b\n\nb\n", 1, 1);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

START_TEST(test_dir_without_mail)
{
	struct got g[MAX_GOT];
	size_t n;
	char want[600];

	make_tmpdir();
	make_dir("empty");
	write_str("empty/readme.txt", "x\n");
	n = collect1(tpath("empty"), g);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(g[0].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: not a Maildir and no .eml or .patch files in it",
		 tpath("empty"));
	ck_assert_str_eq(g[0].err, want);
	remove_tree(tmpdir);
}
END_TEST

/* --- limits and errors --------------------------------------------------- */

START_TEST(test_unreadable_then_next)
{
	const char *paths[3];
	struct got g[MAX_GOT];
	char want[600];
	size_t n;

	make_tmpdir();
	write_str("ok.eml", "Subject: ok\n\nok\n");
	write_str("empty.eml", "");
	paths[0] = tpath("missing.eml");
	paths[1] = tpath("empty.eml");
	paths[2] = tpath("ok.eml");
	n = collect(paths, 3, 0, g);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(g[0].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: No such file or directory", paths[0]);
	ck_assert_str_eq(g[0].err, want);
	ck_assert_str_eq(g[0].file, paths[0]);
	ck_assert_int_eq(g[1].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: empty file", paths[1]);
	ck_assert_str_eq(g[1].err, want);
	assert_msg(&g[2], "Subject: ok\n\nok\n", 1, 1);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* With a 64-byte limit: the middle message is skipped, named by file,
 * index and line, and the next one is read. */
START_TEST(test_oversize_small_limit)
{
	const char *paths[2];
	struct got g[MAX_GOT];
	char want[700];
	size_t n;

	make_tmpdir();
	write_str("three.mbox",
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 1\n\nshort\n\n"
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 2\n\n"
		  "0123456789012345678901234567890123456789012345678901234567890123456789\n\n"
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 3\n\nshort\n");
	write_str("big.eml", "Subject: big\n\n0123456789012345678901234567890123456789"
		  "012345678901234567890123456789\n");
	paths[0] = tpath("three.mbox");
	paths[1] = tpath("big.eml");
	n = collect(paths, 2, 64, g);
	ck_assert_uint_eq(n, 4);
	assert_msg(&g[0], "Subject: 1\n\nshort\n", 1, 2);
	ck_assert_int_eq(g[1].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: message 2 (line 7): larger than 64 bytes, skipped",
		 paths[0]);
	ck_assert_str_eq(g[1].err, want);
	ck_assert_str_eq(g[1].file, paths[0]);
	ck_assert_uint_eq(g[1].index, 2);
	assert_msg(&g[2], "Subject: 3\n\nshort\n", 3, 12);
	ck_assert_int_eq(g[3].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: message 1 (line 1): larger than 64 bytes, skipped",
		 paths[1]);
	ck_assert_str_eq(g[3].err, want);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* The real limit: a message one MiB past MESSAGE_MAX_SIZE, then a small one. */
START_TEST(test_oversize_real_limit)
{
	static const char from[] = "From x Mon Sep 17 00:00:00 2001\n";
	size_t chunk = 1024 * 1024, chunks = MESSAGE_MAX_SIZE / chunk + 1;
	char *line = xmalloc(chunk);
	struct got g[MAX_GOT];
	char want[700];
	size_t n;
	FILE *f;

	make_tmpdir();
	memset(line, 'x', chunk);
	line[chunk - 1] = '\n';
	f = fopen(tpath("huge.mbox"), "wb");
	ck_assert(f != NULL);
	fputs(from, f);
	fputs("Subject: huge\n\n", f);
	for (size_t i = 0; i < chunks; i++)
		ck_assert_uint_eq(fwrite(line, 1, chunk, f), chunk);
	fputs("\n", f);
	fputs(from, f);
	fputs("Subject: small\n\nstill read\n", f);
	ck_assert_int_eq(fclose(f), 0);
	free(line);
	n = collect1(tpath("huge.mbox"), g);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(g[0].st, INPUT_SKIP);
	snprintf(want, sizeof(want), "%s: message 1 (line 2): larger than %zu bytes, skipped",
		 tpath("huge.mbox"), MESSAGE_MAX_SIZE);
	ck_assert_str_eq(g[0].err, want);
	assert_msg(&g[1], "Subject: small\n\nstill read\n", 2, chunks + 6);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

/* --- standard input ------------------------------------------------------ */

static size_t collect_stdin(const char *name, struct got *g)
{
	int fd = open(tpath(name), O_RDONLY);

	ck_assert(fd >= 0);
	ck_assert_int_eq(dup2(fd, 0), 0);
	close(fd);
	return collect1("-", g);
}

START_TEST(test_stdin_single)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("one.eml", "Subject: stdin\n\n>From is not unescaped here\n");
	n = collect_stdin("one.eml", g);
	ck_assert_uint_eq(n, 1);
	assert_msg(&g[0], "Subject: stdin\n\n>From is not unescaped here\n", 1, 1);
	ck_assert_str_eq(g[0].file, "-");
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

START_TEST(test_stdin_mbox)
{
	struct got g[MAX_GOT];
	size_t n;

	make_tmpdir();
	write_str("two.mbox",
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 1\n\n>From one\n\n"
		  "From x Mon Sep 17 00:00:00 2001\nSubject: 2\n\ntwo\n");
	n = collect_stdin("two.mbox", g);
	ck_assert_uint_eq(n, 2);
	assert_msg(&g[0], "Subject: 1\n\nFrom one\n", 1, 2);
	assert_msg(&g[1], "Subject: 2\n\ntwo\n", 2, 7);
	ck_assert_str_eq(g[1].file, "-");
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST


/* --- compressed and binary files ----------------------------------------- */

/* data compressed as gzip, xz or zstd into a new buffer (*out_len bytes). */
typedef char *(*pack_fn)(const char *data, size_t len, size_t *out_len);

static char *pack_gzip(const char *data, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = deflateBound(&z, len) + 64;
	char *out = xmalloc(cap);

	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

static char *pack_xz(const char *data, size_t len, size_t *out_len)
{
	size_t cap = lzma_stream_buffer_bound(len);
	char *out = xmalloc(cap);

	*out_len = 0;
	ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)data,
						 len, (uint8_t *)out, out_len, cap), LZMA_OK);
	return out;
}

static char *pack_zstd(const char *data, size_t len, size_t *out_len)
{
	size_t cap = ZSTD_compressBound(len);
	char *out = xmalloc(cap);

	*out_len = ZSTD_compress(out, cap, data, len, 3);
	ck_assert(!ZSTD_isError(*out_len));
	return out;
}

static const struct {
	const char *ext;
	const char *format;	/* as error messages name it */
	pack_fn pack;
} packers[] = {
	{ "gz", "gzip", pack_gzip },
	{ "xz", "xz", pack_xz },
	{ "zst", "zstd", pack_zstd },
};

/* Writes name compressed by packers[k]; keep bytes of it (0: all). */
static const char *write_packed(size_t k, const char *name, const char *data, size_t len,
				size_t keep)
{
	static char file[128];
	size_t n;
	char *z = packers[k].pack(data, len, &n);

	snprintf(file, sizeof(file), "%s.%s", name, packers[k].ext);
	write_file(file, z, keep && keep < n ? keep : n);
	free(z);
	return tpath(file);
}

static const char two_msgs[] =
	"From x Mon Sep 17 00:00:00 2001\nSubject: 1\n\n>From one\n\n"
	"From x Mon Sep 17 00:00:00 2001\nSubject: 2\n\ntwo\n";

/* Each format splits like the plain mbox: same messages, numbers, lines,
 * from a path and from standard input. */
START_TEST(test_compressed_mbox)
{
	make_tmpdir();
	for (size_t k = 0; k < ARRAY_SIZE(packers); k++) {
		const char *path = write_packed(k, "two.mbox", two_msgs, strlen(two_msgs), 0);
		char name[32];

		snprintf(name, sizeof(name), "two.mbox.%s", packers[k].ext);
		for (int from_stdin = 0; from_stdin <= 1; from_stdin++) {
			struct got g[MAX_GOT];
			size_t n = from_stdin ? collect_stdin(name, g) : collect1(path, g);

			ck_assert_msg(n == 2, "%s: %zu messages", name, n);
			assert_msg(&g[0], "Subject: 1\n\nFrom one\n", 1, 2);
			assert_msg(&g[1], "Subject: 2\n\ntwo\n", 2, 7);
			ck_assert_str_eq(g[1].file, from_stdin ? "-" : path);
			free_got(g, n);
		}
	}
	remove_tree(tmpdir);
}
END_TEST

/*
 * Three messages of 300 KB of hex each: more than one read of compressed
 * bytes and more than one reader buffer of text, so every refill path of
 * the decoders runs.  Hex from an LCG does not compress to nothing.
 */
START_TEST(test_compressed_large)
{
	struct buf plain, msg[3];
	uint32_t x = 13;

	make_tmpdir();
	buf_init(&plain, 0);
	for (int m = 0; m < 3; m++) {
		buf_init(&msg[m], 0);
		buf_printf(&msg[m], "Subject: big %d\n\n", m);
		for (int line = 0; line < 6000; line++) {
			for (int w = 0; w < 6; w++) {
				x = x * 1103515245u + 12345u;
				buf_printf(&msg[m], "%08x", x);
			}
			buf_add(&msg[m], "\n", 1);
		}
		buf_printf(&plain, "From x Mon Sep 17 00:00:00 2001\n%s\n", msg[m].data);
	}
	for (size_t k = 0; k < ARRAY_SIZE(packers); k++) {
		struct got g[MAX_GOT];
		size_t n = collect1(write_packed(k, "big.mbox", plain.data, plain.len, 0), g);

		ck_assert_msg(n == 3, "%s: %zu messages", packers[k].ext, n);
		for (int m = 0; m < 3; m++) {
			ck_assert_int_eq(g[m].st, INPUT_OK);
			ck_assert_uint_eq(g[m].len, msg[m].len);
			ck_assert(!memcmp(g[m].data, msg[m].data, msg[m].len));
		}
		free_got(g, n);
	}
	for (int m = 0; m < 3; m++)
		buf_release(&msg[m]);
	buf_release(&plain);
	remove_tree(tmpdir);
}
END_TEST

/* A compressed file cut short: what came whole is handed out, then an
 * error naming the file. */
START_TEST(test_compressed_truncated)
{
	make_tmpdir();
	for (size_t k = 0; k < ARRAY_SIZE(packers); k++) {
		struct got g[MAX_GOT];
		char want[600];
		const char *path = write_packed(k, "cut.mbox", two_msgs, strlen(two_msgs), 30);
		size_t n = collect1(path, g);

		ck_assert_uint_ge(n, 1);
		ck_assert_int_eq(g[n - 1].st, INPUT_SKIP);
		snprintf(want, sizeof(want), "%s: %s data ends early (truncated file?)", path,
			 packers[k].format);
		ck_assert_str_eq(g[n - 1].err, want);
		free_got(g, n);
	}
	remove_tree(tmpdir);
}
END_TEST

/* Binary input is refused by name and the run goes on; a NUL below the
 * first line is a broken mail, still handed out. */
START_TEST(test_binary_refused)
{
	static const char elf[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00";
	static const char nul_later[] = "Subject: x\n\nbody\0with a NUL\n";
	const char *paths[4];
	struct got g[MAX_GOT];
	char want[600];
	size_t n;

	make_tmpdir();
	write_file("a.out", elf, sizeof(elf) - 1);
	write_str("mail.bz2", "BZh91AY&SY\x01\x02");
	write_file("nul.eml", nul_later, sizeof(nul_later) - 1);
	write_packed(0, "elf", elf, sizeof(elf) - 1, 0);
	paths[0] = tpath("a.out");
	paths[1] = tpath("mail.bz2");
	paths[2] = tpath("elf.gz");
	paths[3] = tpath("nul.eml");
	n = collect(paths, 4, 0, g);
	ck_assert_uint_eq(n, 4);
	snprintf(want, sizeof(want), "%s: binary data, not a mail or an mbox", paths[0]);
	ck_assert_str_eq(g[0].err, want);
	snprintf(want, sizeof(want), "%s: bzip2 data; tagbot reads mail and mbox files, "
		 "plain or compressed with gzip, xz or zstd", paths[1]);
	ck_assert_str_eq(g[1].err, want);
	snprintf(want, sizeof(want),
		 "%s: binary data (decompressed from gzip), not a mail or an mbox", paths[2]);
	ck_assert_str_eq(g[2].err, want);
	ck_assert_int_eq(g[3].st, INPUT_OK);
	ck_assert_uint_eq(g[3].len, sizeof(nul_later) - 1);
	free_got(g, n);
	remove_tree(tmpdir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("input");
	TCase *mbox = tcase_create("mbox");
	TCase *dirs = tcase_create("directories");
	TCase *limits = tcase_create("limits");
	TCase *in = tcase_create("stdin");
	TCase *packed = tcase_create("compressed");

	tcase_add_test(mbox, test_mboxo_unescape);
	tcase_add_test(mbox, test_mboxrd_unescape);
	tcase_add_test(mbox, test_from_in_body);
	tcase_add_test(mbox, test_blank_lines_before_mbox);
	tcase_add_test(mbox, test_crlf_mbox);
	tcase_add_test(mbox, test_caller_writes_over);
	tcase_add_test(mbox, test_empty_message);
	tcase_add_test(mbox, test_detect_by_content);
	tcase_add_test(mbox, test_long_line);
	tcase_add_test(mbox, test_many_line_shapes);
	tcase_add_test(dirs, test_maildir);
	tcase_add_test(dirs, test_eml_dir);
	tcase_add_test(dirs, test_dir_without_mail);
	tcase_add_test(limits, test_unreadable_then_next);
	tcase_add_test(limits, test_oversize_small_limit);
	/* writes and reads 129 MiB */
	tcase_set_timeout(limits, 60);
	tcase_add_test(limits, test_oversize_real_limit);
	tcase_add_test(in, test_stdin_single);
	tcase_add_test(in, test_stdin_mbox);
	tcase_add_test(packed, test_compressed_mbox);
	tcase_add_test(packed, test_compressed_large);
	tcase_add_test(packed, test_compressed_truncated);
	tcase_add_test(packed, test_binary_refused);
	suite_add_tcase(s, mbox);
	suite_add_tcase(s, dirs);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, in);
	suite_add_tcase(s, packed);
	return th_run_suite(s);
}
