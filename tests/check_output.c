/*
 * check_output.c - output.c: JSON string escaping, the exact JSON objects
 * for a patch and for an error (file_line beside line, a missing
 * Message-ID as null), the checkpatch-style text lines (line mapping, terse
 * and verbose forms, terminal-safe strings) and a file's total line.
 * Expected output is written out by hand.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "cli/output.h"
#include "testhelp.h"

/* Captures what fn writes to a FILE. */
struct capture {
	char *data;
	size_t len;
	FILE *f;
};

static FILE *cap_open(struct capture *c)
{
	c->data = NULL;
	c->len = 0;
	c->f = open_memstream(&c->data, &c->len);
	ck_assert(c->f != NULL);
	return c->f;
}

/* Closes the stream; the caller frees the returned text. */
static char *cap_close(struct capture *c)
{
	ck_assert_int_eq(fclose(c->f), 0);
	return c->data;
}

/* --- JSON strings ---------------------------------------------------------- */

static const struct {
	const char *in;		/* NULL: output_json_string(NULL) */
	const char *out;
} json_cases[] = {
	{ "", "\"\"" },
	{ NULL, "\"\"" },
	{ "plain text", "\"plain text\"" },
	{ "say \"hi\"", "\"say \\\"hi\\\"\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "a/b", "\"a/b\"" },
	{ "line\nnext\ttab\r", "\"line\\u000anext\\u0009tab\\u000d\"" },
	{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
	{ "\x1b[31mred", "\"\\u001b[31mred\"" },
	{ "caf\xc3\xa9 J\xc3\xb6rg", "\"caf\xc3\xa9 J\xc3\xb6rg\"" },
	{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"" },
	{ "\xe2\x80\xa8|\xe2\x80\xa9", "\"\\u2028|\\u2029\"" },
	/* invalid UTF-8: one U+FFFD per maximal ill-formed subpart */
	{ "\xff", "\"\xef\xbf\xbd\"" },
	{ "a\xc3", "\"a\xef\xbf\xbd\"" },
	{ "\xc3(", "\"\xef\xbf\xbd(\"" },
	{ "\xe2\x82x", "\"\xef\xbf\xbdx\"" },
	{ "\xf0\x9f\x98!", "\"\xef\xbf\xbd!\"" },
	{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },			/* overlong '/' */
	{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },	/* surrogate */
	{ "\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
	{ "\x80z", "\"\xef\xbf\xbdz\"" },
};

START_TEST(test_json_string)
{
	struct capture c;
	char *got;

	output_json_string(cap_open(&c), json_cases[_i].in);
	got = cap_close(&c);
	ck_assert_msg(!strcmp(got, json_cases[_i].out), "case %d: got %s, want %s", _i, got,
		      json_cases[_i].out);
	free(got);
}
END_TEST

/* --- a patch with two findings ------------------------------------------------ */

static char text1[] = "Reported-by: A <a@example.org>";
static char msg1[] = "Reported-by: should be followed by Closes: or Link:.";
static char text2[] = "";
static char msg2[] = "add a Fixes: tag";
static char name[] = "J\xc3\xb6rg \"JT\" Tester";
static char email[] = "jt@example.org";
static char subject[] = "[PATCH v2 1/3] leds: fix \"quotes\"";
static char msgid[] = "20250101-x-v2-1-abc@example.org";

static struct finding fv[] = {
	{ "BAD_REPORTED_BY_LINK", SEV_WARNING, 12, text1, msg1, "submitting-patches.rst" },
	{ "MISSING_FIXES_TAG", SEV_CHECK, 0, text2, msg2, "maintainer-netdev.rst" },
};

/* The model's part: a message of lines 1-12, a Fixes:-shaped line in the
 * prose (not in the block), a note and a tag in the block. */
static struct line lines[] = {
	{ "Fix\tit.", 7, 1 },
	{ "Reported-by: A <a@example.org>", 30, 12 },
};
static char tok_prose[] = "Link", val_prose[] = "https://example.org/x";
static char tok_rep[] = "Reported-by", val_rep[] = "A \"Q\" <a@example.org>";
static char empty_s[] = "", note[] = "[ x: fixed ]";
static struct trailer trailers[] = {
	{ .kind = TRAILER_TAG, .line = { "Link: https://example.org/x", 27, 3 },
	  .token = tok_prose, .value = val_prose, .has_colon = true },
	{ .kind = TRAILER_NOTE, .line = { "[ x: fixed ]", 12, 11 }, .in_block = true,
	  .token = empty_s, .value = note },
	{ .kind = TRAILER_TAG, .line = { "Reported-by: A <a@example.org>", 30, 12 },
	  .in_block = true, .token = tok_rep, .value = val_rep, .has_colon = true },
};

static void sample(struct patch *p, struct findings *fs, enum patch_kind kind)
{
	static char body[] = "leds: fix \"quotes\"";

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->subject = subject;
	p->subject_body = body;
	p->lines = lines;
	p->nlines = ARRAY_SIZE(lines);
	p->trailers = trailers;
	p->ntrailers = ARRAY_SIZE(trailers);
	p->message_id = msgid;
	p->author.name = name;
	p->author.email = email;
	p->series = (struct series){ .version = 2, .index = 1, .total = 3, .rfc = true };
	*fs = (struct findings){ .v = fv, .n = ARRAY_SIZE(fv), .alloc = ARRAY_SIZE(fv) };
}

START_TEST(test_json_patch)
{
	static const char want[] =
		"{\"file\":\"x.mbox\",\"mail\":1,"
		"\"message_id\":\"20250101-x-v2-1-abc@example.org\","
		"\"subject\":\"[PATCH v2 1/3] leds: fix \\\"quotes\\\"\","
		"\"kind\":\"patch\","
		"\"author\":{\"name\":\"J\xc3\xb6rg \\\"JT\\\" Tester\",\"email\":\"jt@example.org\"},"
		"\"series\":{\"version\":2,\"index\":1,\"total\":3,\"rfc\":true,\"resend\":false},"
		"\"title\":\"leds: fix \\\"quotes\\\"\","
		"\"message\":{\"first\":{\"line\":1,\"text\":\"Fix\\u0009it.\"},"
		"\"last\":{\"line\":12,\"text\":\"Reported-by: A <a@example.org>\"}},"
		"\"trailers\":[{\"token\":\"Reported-by\",\"value\":\"A \\\"Q\\\" <a@example.org>\","
		"\"line\":12}],"
		"\"findings\":["
		"{\"rule\":\"BAD_REPORTED_BY_LINK\",\"severity\":\"warning\",\"line\":12,"
		"\"file_line\":12,\"text\":\"Reported-by: A <a@example.org>\","
		"\"message\":\"Reported-by: should be followed by Closes: or Link:.\","
		"\"doc\":\"submitting-patches.rst\"},"
		"{\"rule\":\"MISSING_FIXES_TAG\",\"severity\":\"check\",\"line\":0,"
		"\"file_line\":1,\"text\":\"\",\"message\":\"add a Fixes: tag\",\"doc\":\"maintainer-netdev.rst\"}"
		"]}\n";
	struct patch p;
	struct findings fs;
	struct capture c;
	char *got;

	sample(&p, &fs, KIND_PATCH);
	output_patch(cap_open(&c), OUTPUT_JSON, "x.mbox", &p, &fs, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

/* min drops the CHECK; a reply prints with empty findings. */
START_TEST(test_json_min_and_reply)
{
	static const char want_tail[] =
		"\"findings\":[{\"rule\":\"BAD_REPORTED_BY_LINK\",\"severity\":\"warning\",\"line\":12,"
		"\"file_line\":12,\"text\":\"Reported-by: A <a@example.org>\","
		"\"message\":\"Reported-by: should be followed by Closes: or Link:.\","
		"\"doc\":\"submitting-patches.rst\"}]}\n";
	struct patch p;
	struct findings fs, none = { .v = NULL };
	struct capture c;
	char *got;

	sample(&p, &fs, KIND_PATCH);
	output_patch(cap_open(&c), OUTPUT_JSON, "x.mbox", &p, &fs, SEV_WARNING);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, want_tail));
	ck_assert_str_eq(strstr(got, want_tail), want_tail);
	free(got);

	sample(&p, &fs, KIND_REPLY);
	output_patch(cap_open(&c), OUTPUT_JSON, "x.mbox", &p, &none, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, ",\"kind\":\"reply\","));
	ck_assert_str_eq(strstr(got, "\"findings\""), "\"findings\":[]}\n");
	free(got);
}
END_TEST

START_TEST(test_json_error)
{
	struct capture c;
	char *got;

	output_error(cap_open(&c), OUTPUT_JSON, &(struct output_ctx){ .file = "dir/a.eml", .mail = 3 }, NULL, "no header\tblock");
	got = cap_close(&c);
	ck_assert_str_eq(got, "{\"file\":\"dir/a.eml\",\"mail\":3,\"message_id\":null,"
			 "\"error\":\"no header\\u0009block\"}\n");
	free(got);

	output_error(cap_open(&c), OUTPUT_JSON, &(struct output_ctx){ .file = "-", .mail = 0 }, "a\"b@example.org", "bad");
	got = cap_close(&c);
	ck_assert_str_eq(got, "{\"file\":\"-\",\"message_id\":\"a\\\"b@example.org\","
			 "\"error\":\"bad\"}\n");
	free(got);
}
END_TEST

/*
 * file_line: where text output points.  The text from file line 120 on:
 * decoded line 12 is 131, the mail as a whole the message's line 100.
 * Decoded text: null, as text output can only name the message's line.
 */
START_TEST(test_json_file_line)
{
	struct output_ctx placed = { "x.mbox", 100, 120, false, false, NULL, 0 };
	struct output_ctx decoded = { "x.mbox", 100, 0, false, false, NULL, 0 };
	struct patch p;
	struct findings fs;
	struct capture c;
	char *got;

	sample(&p, &fs, KIND_PATCH);
	output_patch_ctx(cap_open(&c), OUTPUT_JSON, &placed, &p, &fs, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, "\"line\":12,\"file_line\":131,"));
	ck_assert_ptr_nonnull(strstr(got, "\"line\":0,\"file_line\":100,"));
	free(got);

	output_patch_ctx(cap_open(&c), OUTPUT_JSON, &decoded, &p, &fs, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, "\"line\":12,\"file_line\":null,"));
	ck_assert_ptr_nonnull(strstr(got, "\"line\":0,\"file_line\":100,"));
	free(got);
}
END_TEST

/* A mail without a Message-ID: null, not "", as for an unparsable mail. */
START_TEST(test_json_no_message_id)
{
	static char empty[] = "";
	struct patch p;
	struct findings fs;
	struct capture c;
	char *got;

	sample(&p, &fs, KIND_PATCH);
	p.message_id = empty;
	output_patch(cap_open(&c), OUTPUT_JSON, "x.mbox", &p, &fs, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, "{\"file\":\"x.mbox\",\"mail\":1,\"message_id\":null,\"subject\":"));
	free(got);

	p.message_id = NULL;
	output_patch(cap_open(&c), OUTPUT_JSON, "x.mbox", &p, &fs, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_ptr_nonnull(strstr(got, "\"message_id\":null,"));
	free(got);
}
END_TEST

/* --- text ------------------------------------------------------------------- */

static char *text_of(const struct output_ctx *ctx, enum patch_kind kind, enum severity min,
		     bool with_findings)
{
	struct patch p;
	struct findings fs, none = { .v = NULL };
	struct capture c;

	sample(&p, &fs, kind);
	output_patch_ctx(cap_open(&c), OUTPUT_TEXT, ctx, &p, with_findings ? &fs : &none, min);
	return cap_close(&c);
}

static const struct {
	struct output_ctx ctx;
	enum severity min;
	const char *want;
} text_cases[] = {
	/* the text is in the file from line 120 on: decoded line 12 is line 131 */
	{ { "x.mbox", 100, 120, false, false, NULL, 0 }, SEV_CHECK,
	  "x.mbox: <20250101-x-v2-1-abc@example.org> \"[PATCH v2 1/3] leds: fix \"quotes\"\"\n"
	  "x.mbox:131: WARNING:BAD_REPORTED_BY_LINK: Reported-by: should be followed by Closes: or Link:.\n"
	  "    | Reported-by: A <a@example.org>\n"
	  "x.mbox:100: CHECK:MISSING_FIXES_TAG: add a Fixes: tag\n" },
	/* decoded text (base64, QP): the message's line, and the decoded one named */
	{ { "x.mbox", 100, 0, true, false, NULL, 0 }, SEV_CHECK,
	  "x.mbox:100: WARNING:BAD_REPORTED_BY_LINK: Reported-by: should be followed by Closes: or Link:."
	  " [decoded text line 12]\n"
	  "x.mbox:100: CHECK:MISSING_FIXES_TAG: add a Fixes: tag\n" },
	/* nothing known: decoded lines, and line 1 for the mail as a whole */
	{ { "-", 0, 0, true, false, NULL, 0 }, SEV_WARNING,
	  "-:12: WARNING:BAD_REPORTED_BY_LINK: Reported-by: should be followed by Closes: or Link:.\n" },
};

START_TEST(test_text_lines)
{
	char *got = text_of(&text_cases[_i].ctx, KIND_PATCH, text_cases[_i].min, true);

	ck_assert_str_eq(got, text_cases[_i].want);
	free(got);
}
END_TEST

START_TEST(test_text_line_zero_unknown)
{
	struct output_ctx ctx = { "-", 0, 0, true, false, NULL, 0 };
	char *got = text_of(&ctx, KIND_PATCH, SEV_CHECK, true);

	ck_assert_ptr_nonnull(strstr(got, "\n-:1: CHECK:MISSING_FIXES_TAG: add a Fixes: tag\n"));
	free(got);
}
END_TEST

/* Nothing to show prints nothing, unless verbose says why. */
START_TEST(test_text_verbose)
{
	struct output_ctx quiet = { "a.eml", 1, 0, false, false, NULL, 0 };
	struct output_ctx verbose = { "a.eml", 1, 0, false, true, NULL, 0 };
	char *got;

	got = text_of(&quiet, KIND_PATCH, SEV_CHECK, false);
	ck_assert_str_eq(got, "");
	free(got);
	got = text_of(&quiet, KIND_REPLY, SEV_CHECK, false);
	ck_assert_str_eq(got, "");
	free(got);
	got = text_of(&verbose, KIND_PATCH, SEV_CHECK, false);
	ck_assert_str_eq(got, "a.eml: <20250101-x-v2-1-abc@example.org> "
			 "\"[PATCH v2 1/3] leds: fix \"quotes\"\" (no findings)\n");
	free(got);
	got = text_of(&verbose, KIND_REPLY, SEV_CHECK, false);
	ck_assert_str_eq(got, "a.eml: <20250101-x-v2-1-abc@example.org> "
			 "\"[PATCH v2 1/3] leds: fix \"quotes\"\" (reply, not checked)\n");
	free(got);
}
END_TEST

/* A subject cannot drive the terminal: C0 and C1 controls become '?',
 * invalid UTF-8 U+FFFD; tab and real letters pass. */
START_TEST(test_text_sanitized)
{
	static char evil[] = "evil\x1b]0;pwn\x07 \xc2\x9b" "1m\tx\xff \xc3\xa9";
	struct output_ctx ctx = { "a.eml", 1, 0, false, true, NULL, 0 };
	struct patch p;
	struct findings none = { .v = NULL };
	struct message m;
	struct capture c;
	char *got;

	memset(&p, 0, sizeof(p));
	memset(&m, 0, sizeof(m));
	p.kind = KIND_PATCH;
	p.subject = evil;
	p.message_id = msgid;
	output_patch_ctx(cap_open(&c), OUTPUT_TEXT, &ctx, &p, &none, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_str_eq(got, "a.eml: <20250101-x-v2-1-abc@example.org> "
			 "\"evil?]0;pwn? ?1m\tx\xef\xbf\xbd \xc3\xa9\" (no findings)\n");
	free(got);

	/* a bare commit message: no headers, no Message-ID */
	p.msg = &m;
	p.message_id = text2;
	p.subject = msg2;
	output_patch_ctx(cap_open(&c), OUTPUT_TEXT, &ctx, &p, &none, SEV_CHECK);
	got = cap_close(&c);
	ck_assert_str_eq(got, "a.eml: commit message \"add a Fixes: tag\" (no findings)\n");
	free(got);
}
END_TEST

/* A file's total: its name made safe for a terminal, the four counts. */
START_TEST(test_text_file_total)
{
	struct output_total t = { .errors = 1, .warnings = 2, .checks = 3, .patches = 4 };
	struct capture c;
	char *got;

	output_file_total(cap_open(&c), "a\x1b[2J.mbox", &t);
	got = cap_close(&c);
	ck_assert_str_eq(got, "a?[2J.mbox: total: 1 errors, 2 warnings, 3 checks, 4 patches checked\n");
	free(got);
}
END_TEST

START_TEST(test_text_error)
{
	struct capture c;
	char *got;

	output_error(cap_open(&c), OUTPUT_TEXT, &(struct output_ctx){ .file = "x.mbox", .mail = 2 }, "a@b", "no header\x1b");
	got = cap_close(&c);
	ck_assert_str_eq(got, "x.mbox: ERROR: <a@b>: no header?\n");
	free(got);
	output_error(cap_open(&c), OUTPUT_TEXT, &(struct output_ctx){ .file = "x.mbox", .mail = 0 }, NULL, "why");
	got = cap_close(&c);
	ck_assert_str_eq(got, "x.mbox: ERROR: why\n");
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output");
	TCase *json = tcase_create("json");
	TCase *text = tcase_create("text");

	tcase_add_loop_test(json, test_json_string, 0, (int)ARRAY_SIZE(json_cases));
	tcase_add_test(json, test_json_patch);
	tcase_add_test(json, test_json_min_and_reply);
	tcase_add_test(json, test_json_error);
	tcase_add_test(json, test_json_file_line);
	tcase_add_test(json, test_json_no_message_id);
	tcase_add_loop_test(text, test_text_lines, 0, (int)ARRAY_SIZE(text_cases));
	tcase_add_test(text, test_text_line_zero_unknown);
	tcase_add_test(text, test_text_verbose);
	tcase_add_test(text, test_text_sanitized);
	tcase_add_test(text, test_text_error);
	tcase_add_test(text, test_text_file_total);
	suite_add_tcase(s, json);
	suite_add_tcase(s, text);
	return th_run_suite(s);
}
