/*
 * check_authres.c - Authentication-Results values (RFC 8601) and whether a
 * mail is authenticated for its From domain by the trusted server.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail/authres.h"
#include "lib/buf.h"
#include "mail/message.h"
#include "testhelp.h"

#define TRUSTED "mx.example.net"

/* ------------------------------------------------------------- parsing */

static const struct {
	const char *value;
	int rc;
	const char *id;		/* authserv-id expected (rc 0) */
	size_t n;		/* results */
	const char *first;	/* "method=result d=... i=... from=..." of v[0] */
} parse_cases[] = {
	{ "mx.example.net; dkim=pass header.d=example.org", 0, "mx.example.net", 1,
	  "dkim=pass d=example.org i= from=" },
	{ "mx.example.net 1; none", 0, "mx.example.net", 0, NULL },
	{ "mx.example.net;none (nothing checked)", 0, "mx.example.net", 0, NULL },
	{ "MX.Example.NET; DKIM=PASS Header.D=Example.ORG", 0, "MX.Example.NET", 1,
	  "dkim=pass d=example.org i= from=" },
	{ "(c0) mx.example.net (c1) 1 (c2); (c3) dkim (c4) = (c5) pass (c6 (nested) \\) )"
	  " reason (c7) = (c8) \"good sig; dkim=fail\" (c9) header (c10) . (c11) d (c12) ="
	  " (c13) example.org (c14) header.i=@example.org (c15)", 0, "mx.example.net", 1,
	  "dkim=pass d=example.org i=@example.org from=" },
	{ "\"mx example\"; dkim/1=pass header.d=\"example.org\" header.b=\"ab+/cd==\"", 0,
	  "mx example", 1, "dkim=pass d=example.org i= from=" },
	{ "mx.example.net; dkim=pass (1024-bit key; unprotected) header.d=example.org"
	  " header.i=@example.org header.a=rsa-sha256 header.s=sel header.b=AbCd1234;"
	  " spf=pass smtp.mailfrom=maint@example.org; dmarc=pass (p=none dis=none)"
	  " header.from=example.org", 0, "mx.example.net", 3,
	  "dkim=pass d=example.org i=@example.org from=" },
	{ "mx.example.net; dkim=pass header.i=\"maint\"@example.org", 0, "mx.example.net", 1,
	  "dkim=pass d= i=maint@example.org from=" },
	{ "mx.example.net; dmarc=pass action=none header.from=example.org;", 0,
	  "mx.example.net", 1, "dmarc=pass d= i= from=example.org" },
	{ "mx.example.net; iprev=pass policy.iprev=192.0.2.200", 0, "mx.example.net", 1,
	  "iprev=pass d= i= from=" },
	/* not Authentication-Results values */
	{ "", -1, NULL, 0, NULL },
	{ "mx.example.net", -1, NULL, 0, NULL },
	{ "mx.example.net;", -1, NULL, 0, NULL },
	{ "mx.example.net 2; dkim=pass header.d=example.org", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=", -1, NULL, 0, NULL },
	{ "mx.example.net; =pass", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass header.d=", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass header", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass (open comment header.d=example.org", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass reason=\"open quote", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass ) header.d=example.org", -1, NULL, 0, NULL },
	{ "mx.example.net; dkim=pass;; spf=pass", -1, NULL, 0, NULL },
	{ "; dkim=pass", -1, NULL, 0, NULL },
	{ "mx.example.net; none; dkim=pass header.d=example.org", -1, NULL, 0, NULL },
};

static void result_text(const struct authres_result *r, char *out, size_t n)
{
	snprintf(out, n, "%s=%s d=%s i=%s from=%s", r->method, r->result, r->header_d,
		 r->header_i, r->header_from);
}

START_TEST(test_parse_table)
{
	const char *v = parse_cases[_i].value;
	struct authres ar;
	char got[1200];
	int rc = authres_parse(v, strlen(v), &ar);

	ck_assert_msg(rc == parse_cases[_i].rc, "\"%s\": rc %d, expected %d", v, rc,
		      parse_cases[_i].rc);
	if (rc < 0)
		return;
	ck_assert_str_eq(ar.authserv_id, parse_cases[_i].id);
	ck_assert_msg(ar.n == parse_cases[_i].n, "\"%s\": %zu results", v, ar.n);
	ck_assert_msg(ar.none == (parse_cases[_i].n == 0), "\"%s\": none", v);
	if (!ar.n)
		return;
	result_text(&ar.v[0], got, sizeof(got));
	ck_assert_msg(!strcmp(got, parse_cases[_i].first), "\"%s\": got \"%s\"", v, got);
	ck_assert(!ar.v[0].unusable);
}
END_TEST

START_TEST(test_parse_not_nul_terminated)
{
	static const char v[] = "mx.example.net; dkim=pass header.d=example.orgXXXX";
	struct authres ar;

	ck_assert_int_eq(authres_parse(v, sizeof(v) - 5, &ar), 0);
	ck_assert_str_eq(ar.v[0].header_d, "example.org");
	ck_assert_int_eq(authres_parse(NULL, 10, &ar), -1);
}
END_TEST

START_TEST(test_parse_twice_or_overlong_unusable)
{
	static const char twice[] = "mx.example.net; dkim=pass header.d=evil.example "
				    "header.d=example.org";
	struct authres ar;
	struct buf b;

	ck_assert_int_eq(authres_parse(twice, strlen(twice), &ar), 0);
	ck_assert(ar.v[0].unusable);
	ck_assert(!authres_result_passes(&ar.v[0], "example.org"));
	ck_assert(!authres_result_passes(&ar.v[0], "evil.example"));

	buf_init(&b, 0);
	buf_addstr(&b, "mx.example.net; dkim=pass header.d=");
	for (int i = 0; i < AUTHRES_VALUE_MAX; i++)
		buf_addch(&b, 'a');
	buf_addstr(&b, ".example.org");
	ck_assert_int_eq(authres_parse(b.data, b.len, &ar), 0);
	ck_assert(ar.v[0].unusable);
	ck_assert(!authres_result_passes(&ar.v[0], "example.org"));
	buf_release(&b);
}
END_TEST

START_TEST(test_parse_many_results)
{
	struct authres ar;
	struct buf b;

	buf_init(&b, 0);
	buf_addstr(&b, "mx.example.net");
	for (int i = 0; i < AUTHRES_MAX_RESULTS + 5; i++)
		buf_printf(&b, "; dkim=fail header.d=d%d.example", i);
	ck_assert_int_eq(authres_parse(b.data, b.len, &ar), 0);
	ck_assert_uint_eq(ar.n, AUTHRES_MAX_RESULTS);
	ck_assert_uint_eq(ar.dropped, 5);
	buf_release(&b);
}
END_TEST

/* Every prefix of a real value, and bytes of every kind: no crash, no
 * read past n (valgrind and ASan see to that), and no pass. */
START_TEST(test_parse_garbage)
{
	static const char real[] = "mx.example.net 1; dkim=pass (2048-bit key) "
		"header.d=example.org header.i=\"a\\\"b\"@example.org; dmarc=pass "
		"header.from=example.org";
	struct authres ar;
	char junk[64];
	unsigned seed = 1;

	for (size_t n = 0; n < sizeof(real) - 1; n++) {
		char *copy = xstrndup(real, n);	/* exactly n bytes on the heap */

		(void)authres_parse(copy, n, &ar);
		free(copy);
	}
	for (int round = 0; round < 5000; round++) {
		for (size_t i = 0; i < sizeof(junk); i++) {
			seed = seed * 1103515245 + 12345;
			junk[i] = "mx ;=.()\"\\@dkimpassheader\t\r\n\x01\xff"[(seed >> 16) % 30];
		}
		(void)authres_parse(junk, sizeof(junk), &ar);
		ck_assert_uint_le(ar.n, AUTHRES_MAX_RESULTS);
	}
}
END_TEST

/* ---------------------------------------------------------- alignment */

static const struct {
	const char *result;	/* one resinfo after "mx.example.net; " */
	const char *from;
	bool pass;
} align_cases[] = {
	{ "dkim=pass header.d=example.org", "example.org", true },
	{ "dkim=pass header.d=EXAMPLE.org", "Example.ORG", true },
	{ "dkim=pass header.d=example.org", "lists.example.org", true },	/* relaxed */
	{ "dkim=pass header.d=lists.example.org", "example.org", false },
	{ "dkim=pass header.d=example.org", "badexample.org", false },
	{ "dkim=pass header.d=example.org", "example.org.evil.example", false },
	{ "dkim=pass header.d=org", "example.org", false },	/* no dot: exact only */
	{ "dkim=pass header.d=evil.example", "example.org", false },
	{ "dkim=pass", "example.org", false },
	{ "dkim=pass header.i=@example.org", "example.org", true },
	{ "dkim=pass header.i=maint@sub.example.org", "example.org", false },
	{ "dkim=pass header.d=evil.example header.i=@example.org", "example.org", false },
	{ "dkim=fail header.d=example.org", "example.org", false },
	{ "dkim=neutral header.d=example.org", "example.org", false },
	{ "dkim=pass header.d=example.org", "", false },
	{ "dmarc=pass header.from=example.org", "example.org", true },
	{ "dmarc=pass", "example.org", true },
	{ "dmarc=pass header.from=evil.example", "example.org", false },
	{ "dmarc=fail header.from=example.org", "example.org", false },
	{ "spf=pass smtp.mailfrom=example.org", "example.org", false },
	{ "arc=pass header.d=example.org", "example.org", false },
};

START_TEST(test_align_table)
{
	char v[512];
	struct authres ar;
	bool got;

	snprintf(v, sizeof(v), "mx.example.net; %s", align_cases[_i].result);
	ck_assert_msg(authres_parse(v, strlen(v), &ar) == 0, "\"%s\" does not parse", v);
	got = authres_result_passes(&ar.v[0], align_cases[_i].from);
	ck_assert_msg(got == align_cases[_i].pass, "\"%s\" for %s: %s", v, align_cases[_i].from,
		      got ? "pass" : "no pass");
}
END_TEST

/* ------------------------------------------------------------ messages */

struct mail_case {
	const char *name;
	const char *headers;	/* above From:, each line CRLF-ended */
	enum authres_verdict want;
};

static const struct mail_case mail_cases[] = {
	{ "dkim=pass", "Authentication-Results: mx.example.net; dkim=pass "
	  "header.d=example.org\r\n", AUTHRES_DKIM_PASS },
	{ "folded, comments, upper case", "Authentication-Results: MX.EXAMPLE.NET (opendkim);\r\n"
	  "\tDKIM=Pass (1024-bit key;\r\n\t unprotected) Header.D=Example.Org header.i=@example.org"
	  "\r\n", AUTHRES_DKIM_PASS },
	{ "header.i only", "Authentication-Results: mx.example.net; dkim=pass "
	  "header.i=@example.org\r\n", AUTHRES_DKIM_PASS },
	{ "dmarc=pass", "Authentication-Results: mx.example.net; dkim=fail header.d=example.org; "
	  "dmarc=pass header.from=example.org\r\n", AUTHRES_DMARC_PASS },
	{ "dkim=pass wrong d", "Authentication-Results: mx.example.net; dkim=pass "
	  "header.d=evil.example\r\n", AUTHRES_NO_PASS },
	{ "dkim=fail", "Authentication-Results: mx.example.net; dkim=fail "
	  "header.d=example.org\r\n", AUTHRES_NO_PASS },
	{ "none", "Authentication-Results: mx.example.net; none\r\n", AUTHRES_NO_PASS },
	{ "forged below a trusted fail", "Authentication-Results: mx.example.net; dkim=fail "
	  "header.d=example.org\r\nReceived: from evil.example by mx.example.net\r\n"
	  "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n",
	  AUTHRES_NO_PASS },
	{ "forged below a trusted none", "Authentication-Results: mx.example.net; none\r\n"
	  "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n",
	  AUTHRES_NO_PASS },
	{ "other id above the trusted one", "Authentication-Results: spam.example.net; dkim=fail"
	  "\r\nAuthentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n",
	  AUTHRES_DKIM_PASS },
	{ "other id only", "Authentication-Results: evil.example; dkim=pass "
	  "header.d=example.org\r\nAuthentication-Results: mx.example.net.evil.example; "
	  "dkim=pass header.d=example.org\r\n", AUTHRES_NO_HEADER },
	{ "no header", "Received: from a by b\r\n", AUTHRES_NO_HEADER },
	{ "unreadable trusted, pass below", "Authentication-Results: mx.example.net; dkim=(\r\n"
	  "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n",
	  AUTHRES_UNREADABLE },
	{ "garbage with the trusted id", "Authentication-Results: mx.example.net ;;;; ((\"\r\n",
	  AUTHRES_UNREADABLE },
};

static char *mail_with(const char *headers)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "%sFrom: Maint <maint@example.org>\r\nTo: bot@example.net\r\n"
		   "Subject: Re: [PATCH] x\r\nMessage-ID: <r@example.org>\r\n\r\n"
		   "tagbot: quiet\r\n", headers);
	return buf_detach(&b, NULL);
}

static enum authres_verdict verdict_of(const char *headers, const char *id, const char *domain)
{
	struct message m;
	struct err e;
	enum authres_verdict v;
	char *raw = mail_with(headers);

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, strlen(raw), &e) == 0, "%s", e.msg);
	v = authres_from_authenticated(&m, id, domain);
	message_release(&m);
	free(raw);
	return v;
}

START_TEST(test_mail_table)
{
	const struct mail_case *c = &mail_cases[_i];
	enum authres_verdict v = verdict_of(c->headers, TRUSTED, "example.org");

	ck_assert_msg(v == c->want, "%s: %s, expected %s", c->name, authres_verdict_name(v),
		      authres_verdict_name(c->want));
}
END_TEST

START_TEST(test_mail_subdomain_from)
{
	const char *h = "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n";

	ck_assert_int_eq(verdict_of(h, TRUSTED, "lists.example.org"), AUTHRES_DKIM_PASS);
	ck_assert_int_eq(verdict_of(h, TRUSTED, "example.com"), AUTHRES_NO_PASS);
}
END_TEST

START_TEST(test_mail_id_match)
{
	const char *h = "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\r\n";

	ck_assert_int_eq(verdict_of(h, "MX.example.NET", "example.org"), AUTHRES_DKIM_PASS);
	ck_assert_int_eq(verdict_of(h, "mx.example.com", "example.org"), AUTHRES_NO_HEADER);
	ck_assert_int_eq(verdict_of(h, "example.net", "example.org"), AUTHRES_NO_HEADER);
	ck_assert_int_eq(verdict_of(h, "", "example.org"), AUTHRES_NO_TRUSTED_ID);
	ck_assert_int_eq(verdict_of(h, NULL, "example.org"), AUTHRES_NO_TRUSTED_ID);
	ck_assert_int_eq(verdict_of(h, TRUSTED, ""), AUTHRES_NO_FROM_DOMAIN);
	ck_assert_int_eq(verdict_of(h, TRUSTED, NULL), AUTHRES_NO_FROM_DOMAIN);
	ck_assert_int_eq(authres_from_authenticated(NULL, TRUSTED, "example.org"),
			 AUTHRES_NO_HEADER);
}
END_TEST

START_TEST(test_verdict_names)
{
	for (int v = AUTHRES_DKIM_PASS; v <= AUTHRES_NO_PASS; v++) {
		ck_assert_ptr_nonnull(authres_verdict_name(v));
		ck_assert_str_ne(authres_verdict_name(v), "?");
		ck_assert(authres_is_pass(v) == (v == AUTHRES_DKIM_PASS || v == AUTHRES_DMARC_PASS));
	}
	ck_assert_str_eq(authres_verdict_name(99), "?");
}
END_TEST

static Suite *authres_suite(void)
{
	Suite *s = suite_create("authres");
	TCase *t = tcase_create("parse");

	tcase_add_loop_test(t, test_parse_table, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(t, test_parse_not_nul_terminated);
	tcase_add_test(t, test_parse_twice_or_overlong_unusable);
	tcase_add_test(t, test_parse_many_results);
	tcase_add_test(t, test_parse_garbage);
	suite_add_tcase(s, t);
	t = tcase_create("align");
	tcase_add_loop_test(t, test_align_table, 0, ARRAY_SIZE(align_cases));
	suite_add_tcase(s, t);
	t = tcase_create("mail");
	tcase_add_loop_test(t, test_mail_table, 0, ARRAY_SIZE(mail_cases));
	tcase_add_test(t, test_mail_subdomain_from);
	tcase_add_test(t, test_mail_id_match);
	tcase_add_test(t, test_verdict_names);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(authres_suite());
}
