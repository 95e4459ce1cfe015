/*
 * check_listid.c - listid.h's contract: the list ID of a mail from its
 * List-Id and X-Mailing-List headers, on the odd forms lists and mail
 * clients write, and the same ID whether a patch (patch_parse()) or the
 * per-list policy (config_mail_list_id()) asks for it.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "mail/listid.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "testhelp.h"

static const struct {
	const char *list_id, *xml;	/* the header fields as written; NULL: absent */
	const char *want;		/* NULL: no ID */
} cases[] = {
	{ "<linux-leds.vger.kernel.org>", "linux-leds@vger.kernel.org",
	  "linux-leds.vger.kernel.org" },
	/* a phrase before <id>, the id's case folded */
	{ "Linux LED Subsystem <Linux-LEDs.vger.kernel.org>", NULL, "linux-leds.vger.kernel.org" },
	/* a quoted phrase holding <>: the id is the last <> */
	{ "\"LEDs <old.example.org>\" <linux-leds.vger.kernel.org>", NULL,
	  "linux-leds.vger.kernel.org" },
	/* folded after the phrase */
	{ "Linux LED Subsystem\n <linux-leds.vger.kernel.org>", NULL, "linux-leds.vger.kernel.org" },
	/* an encoded phrase */
	{ "=?UTF-8?Q?LED_Subsyst=C3=A8me?= <linux-leds.vger.kernel.org>", NULL,
	  "linux-leds.vger.kernel.org" },
	/* spaces inside the <> */
	{ "< linux-leds.vger.kernel.org >", NULL, "linux-leds.vger.kernel.org" },
	/* no <>: the whole value */
	{ "bare.example.org", NULL, "bare.example.org" },
	/* unclosed, empty or spaced List-Id: X-Mailing-List's then */
	{ "<unclosed.example.org", "x@y.example", "x@y.example" },
	{ "<unclosed.example.org", NULL, NULL },
	{ "<>", "linux-leds@vger.kernel.org", "linux-leds@vger.kernel.org" },
	{ "", "linux-leds@vger.kernel.org", "linux-leds@vger.kernel.org" },
	{ "<a b.example.org>", NULL, NULL },
	{ "two words", NULL, NULL },
	/* X-Mailing-List's forms: an address, in <>, with a phrase */
	{ NULL, "Linux-LEDs@vger.kernel.org", "linux-leds@vger.kernel.org" },
	{ NULL, "<linux-leds@vger.kernel.org>", "linux-leds@vger.kernel.org" },
	{ NULL, "LEDs <linux-leds@vger.kernel.org> archive", "linux-leds@vger.kernel.org" },
	{ NULL, "   ", NULL },
	{ NULL, NULL, NULL },
};

/* A mail with the case's List-Id and X-Mailing-List fields. */
static void build(struct message *m, char *raw, size_t size, size_t i)
{
	int n = snprintf(raw, size, "From: a@example.org\nSubject: x\nMessage-ID: <m@x>\n");
	struct err e;

	if (cases[i].list_id)
		n += snprintf(raw + n, size - (size_t)n, "List-Id: %s\n", cases[i].list_id);
	if (cases[i].xml)
		n += snprintf(raw + n, size - (size_t)n, "X-Mailing-List: %s\n", cases[i].xml);
	n += snprintf(raw + n, size - (size_t)n, "\nbody\n");
	message_init(m);
	ck_assert_int_eq(message_parse(m, raw, (size_t)n, &e), 0);
}

/* The parser on the header values as message.h hands them over. */
START_TEST(test_mail_list_id)
{
	char raw[1024], out[MAIL_LIST_ID_MAX + 1];
	struct message m;
	int rc;

	build(&m, raw, sizeof(raw), (size_t)_i);
	rc = mail_list_id(message_header_last(&m, "List-Id"),
			  message_header(&m, "X-Mailing-List"), out, sizeof(out));
	if (cases[_i].want) {
		ck_assert_int_eq(rc, 0);
		ck_assert_str_eq(out, cases[_i].want);
	} else {
		ck_assert_int_eq(rc, -1);
	}
	message_release(&m);
}
END_TEST

/* A patch names its list as the per-list policy does: one ID per mail. */
START_TEST(test_patch_agrees)
{
	char raw[1024], out[CONFIG_MAX_LIST_ID + 1];
	struct message m;
	struct patch *p;
	size_t np;

	build(&m, raw, sizeof(raw), (size_t)_i);
	patch_parse(&m, &p, &np);
	ck_assert_str_eq(p->list_id, cases[_i].want ? cases[_i].want : "");
	if (config_mail_list_id(message_header_last(&m, "List-Id"),
				message_header(&m, "X-Mailing-List"), out, sizeof(out)) < 0)
		out[0] = '\0';
	ck_assert_str_eq(p->list_id, out);
	patches_free(p, np);
	message_release(&m);
}
END_TEST

/* An ID of MAIL_LIST_ID_MAX bytes is one; a byte more is none. */
START_TEST(test_long)
{
	char in[MAIL_LIST_ID_MAX + 8], out[MAIL_LIST_ID_MAX + 1];

	memset(in, 'a', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	ck_assert_int_eq(mail_list_id(in, NULL, out, sizeof(out)), -1);
	in[MAIL_LIST_ID_MAX] = '\0';
	ck_assert_int_eq(mail_list_id(in, NULL, out, sizeof(out)), 0);
	ck_assert_uint_eq(strlen(out), MAIL_LIST_ID_MAX);
	/* and one that does not fit out is none */
	ck_assert_int_eq(mail_list_id("abc", NULL, out, 3), -1);
	ck_assert_int_eq(mail_list_id("abc", NULL, out, 4), 0);
}
END_TEST

static Suite *listid_suite(void)
{
	Suite *s = suite_create("listid");
	TCase *t = tcase_create("listid");

	tcase_add_loop_test(t, test_mail_list_id, 0, ARRAY_SIZE(cases));
	tcase_add_loop_test(t, test_patch_agrees, 0, ARRAY_SIZE(cases));
	tcase_add_test(t, test_long);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(listid_suite());
}
