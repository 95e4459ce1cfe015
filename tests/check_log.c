#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "testhelp.h"

static FILE *out;

static void setup(void)
{
	out = tmpfile();
	ck_assert_ptr_nonnull(out);
	log_setup(LOG_TARGET_STDERR, LOGL_INFO, "tagbot");
	log_set_stream(out);
}

static void teardown(void)
{
	log_set_stream(NULL);
	log_close();
	fclose(out);
}

/* Everything written so far, with each line's "TIMESTAMP " cut off. */
static char *captured(void)
{
	static char buf[8192];
	char line[4096];
	size_t off = 0;

	rewind(out);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), out)) {
		char *sp = strchr(line, ' ');

		ck_assert_ptr_nonnull(sp);
		ck_assert_int_eq(sp - line, (int)strlen("2025-01-01T00:00:00Z"));
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s", sp + 1);
	}
	return buf;
}

START_TEST(test_levels_filter)
{
	log_msg(LOGL_DEBUG, "not shown");
	log_msg(LOGL_INFO, "polling %s", "INBOX");
	log_msg(LOGL_ERROR, "imap: login to %s failed", "mail.example.org");
	log_setup(LOG_TARGET_STDERR, LOGL_ERROR, "tagbot");
	log_msg(LOGL_WARNING, "not shown either");
	ck_assert(!log_enabled(LOGL_INFO));
	ck_assert(log_enabled(LOGL_ERROR));
	ck_assert_str_eq(captured(),
			 "tagbot: info: polling INBOX\n"
			 "tagbot: error: imap: login to mail.example.org failed\n");
}
END_TEST

START_TEST(test_message_prefix)
{
	log_message(LOGL_INFO, "<a@b.example>", "replied (%d findings)", 2);
	log_message(LOGL_WARNING, "c@d.example", "skipped: %s", "auto-submitted");
	log_message(LOGL_WARNING, NULL, "cannot parse");
	log_message(LOGL_WARNING, "", "cannot parse");
	ck_assert_str_eq(captured(),
			 "tagbot: info: message <a@b.example>: replied (2 findings)\n"
			 "tagbot: warning: message <c@d.example>: skipped: auto-submitted\n"
			 "tagbot: warning: message (no Message-ID): cannot parse\n"
			 "tagbot: warning: message (no Message-ID): cannot parse\n");
}
END_TEST

/* A Subject or Message-ID with CR LF cannot forge a second log line. */
START_TEST(test_no_line_injection)
{
	log_message(LOGL_INFO, "x@y\r\ntagbot: error: forged", "subject %s", "a\nb\tc\x7f");
	ck_assert_str_eq(captured(),
			 "tagbot: info: message <x@y??tagbot: error: forged>: subject a?b?c?\n");
}
END_TEST

START_TEST(test_long_line_cut)
{
	char *big = malloc(10000);
	char *got;

	memset(big, 'x', 9999);
	big[9999] = '\0';
	log_msg(LOGL_INFO, "%s", big);
	got = captured();
	/* "tagbot: info: " + LOG_LINE_MAX - 1 bytes + "\n" */
	ck_assert_uint_eq(strlen(got), strlen("tagbot: info: ") + LOG_LINE_MAX - 1 + 1);
	free(big);
}
END_TEST

/* Under systemd, JOURNAL_STREAM names the stream: "<N>" syslog priorities
 * (3 error, 4 warning, 6 info), no timestamp; another stream keeps stamps. */
START_TEST(test_journal_priorities)
{
	struct stat st;
	char js[64], all[512];
	size_t n;

	ck_assert_int_eq(fstat(fileno(out), &st), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	ck_assert_int_eq(setenv("JOURNAL_STREAM", js, 1), 0);
	log_msg(LOGL_ERROR, "imap: login failed");
	log_msg(LOGL_WARNING, "reply held back");
	log_message(LOGL_INFO, "a@b.example", "clean");
	rewind(out);
	n = fread(all, 1, sizeof(all) - 1, out);
	all[n] = '\0';
	ck_assert_str_eq(all, "<3>error: imap: login failed\n"
			      "<4>warning: reply held back\n"
			      "<6>info: message <a@b.example>: clean\n");
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);	/* another stream: not the journal */
	ck_assert_int_eq(setenv("JOURNAL_STREAM", js, 1), 0);
	ck_assert_int_eq(fseek(out, 0, SEEK_SET), 0);
	ck_assert_int_eq(ftruncate(fileno(out), 0), 0);
	log_msg(LOGL_WARNING, "stamped");
	ck_assert_str_eq(captured(), "tagbot: warning: stamped\n");
	unsetenv("JOURNAL_STREAM");
}
END_TEST

START_TEST(test_parse_names)
{
	static const struct {
		const char *s;
		int rc;
		enum log_level l;
	} cases[] = {
		{ "error", 0, LOGL_ERROR }, { "WARNING", 0, LOGL_WARNING }, { "warn", 0, LOGL_WARNING },
		{ "info", 0, LOGL_INFO }, { "Debug", 0, LOGL_DEBUG }, { "verbose", -1, LOGL_INFO },
		{ "", -1, LOGL_INFO },
	};
	enum log_target t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum log_level l = LOGL_INFO;

		ck_assert_int_eq(log_level_parse(cases[i].s, &l), cases[i].rc);
		ck_assert_int_eq(l, cases[i].l);
	}
	ck_assert_str_eq(log_level_name(LOGL_WARNING), "warning");
	ck_assert_int_eq(log_target_parse("syslog", &t), 0);
	ck_assert_int_eq(t, LOG_TARGET_SYSLOG);
	ck_assert_int_eq(log_target_parse("STDERR", &t), 0);
	ck_assert_int_eq(t, LOG_TARGET_STDERR);
	ck_assert_int_eq(log_target_parse("file", &t), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_levels_filter);
	tcase_add_test(tc, test_message_prefix);
	tcase_add_test(tc, test_no_line_injection);
	tcase_add_test(tc, test_long_line_cut);
	tcase_add_test(tc, test_parse_names);
	tcase_add_test(tc, test_journal_priorities);
	suite_add_tcase(s, tc);
	return th_run_suite(s);
}
