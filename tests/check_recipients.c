/*
 * check_recipients.c - recipients.h: whom a reply goes to.  Every input is
 * a mail parsed by message_parse() and patch_parse(), as the daemon reads
 * it; the outcomes are recipients_find()'s and recipients_may_mail()'s,
 * and for what reaches the wire, the envelope and headers reply_build()
 * makes of them.
 */
#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/address.h"
#include "mail/message.h"
#include "mail/patch.h"
#include "reply/recipients.h"
#include "reply/reply.h"
#include "rules/rules.h"
#include "testhelp.h"

#define NOW	1700000000
#define BOT	"tagbot <tagbot@example.org>"
#define LIST	"linux-leds@vger.kernel.org"

static const char *const lists[] = { LIST, "netdev@vger.kernel.org" };
static const char *const bots[] = { "patchbot@example.net" };

/* --- a parsed mail ------------------------------------------------------ */

struct mail {
	struct message m;
	struct patch *p;	/* owned; p[0] is the patch */
	size_t np;
	struct reply_settings s;
	struct recipients r;
	int rc;			/* recipients_find()'s */
};

static const char commit_text[] =
	"leds: the foo LED is turned off when requested.\n"
	"\n"
	"Signed-off-by: Jane Doe <jane@example.org>\n"
	"---\n"
	" drivers/leds/foo.c | 2 +-\n"
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/drivers/leds/foo.c b/drivers/leds/foo.c\n"
	"--- a/drivers/leds/foo.c\n"
	"+++ b/drivers/leds/foo.c\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

/* The settings every test starts from: the bot, its other address, the
 * configured lists, answer the author only. */
static void settings(struct reply_settings *s)
{
	reply_settings_init(s);
	s->from = BOT;
	s->bot_addresses = bots;
	s->nbot_addresses = ARRAY_SIZE(bots);
	s->list_addresses = lists;
	s->nlist_addresses = ARRAY_SIZE(lists);
}

/*
 * Parses a patch mail: headers (each line ending in "\n", From: among
 * them or not), then Subject and Message-ID, the blank line, the in-body
 * lines inbody (NULL: none) and the commit.  x->s is settings()'; the test
 * may change it before find().
 */
static void parse(struct mail *x, const char *headers, const char *inbody)
{
	struct buf b;
	struct err e;

	memset(x, 0, sizeof(*x));
	buf_init(&b, 0);
	buf_printf(&b, "%sSubject: [PATCH] leds: fix foo\nMessage-ID: <p1@example.org>\n"
		   "Date: Tue, 14 Nov 2023 22:13:20 +0000\n\n", headers);
	if (inbody)
		buf_printf(&b, "%s\n", inbody);
	buf_addstr(&b, commit_text);
	message_init(&x->m);
	err_init(&e);
	ck_assert_msg(message_parse(&x->m, b.data, b.len, &e) == 0, "parse: %s", e.msg);
	patch_parse(&x->m, &x->p, &x->np);
	ck_assert_uint_ge(x->np, 1);
	ck_assert_int_eq(x->p[0].kind, KIND_PATCH);
	buf_release(&b);
	settings(&x->s);
}

static void find(struct mail *x)
{
	x->rc = recipients_find(&x->r, &x->p[0], &x->s);
	ck_assert_ptr_nonnull(x->r.to.email);
	ck_assert_ptr_nonnull(x->r.author.email);
	if (x->rc == 0)
		ck_assert_msg(x->r.to.email[0], "0 with nobody in To");
	else
		ck_assert_msg(!x->r.to.email[0] && x->r.why, "-1 with To '%s'", x->r.to.email);
}

static void release(struct mail *x)
{
	recipients_release(&x->r);
	patches_free(x->p, x->np);
	message_release(&x->m);
}

/* parse() and find() with the default settings; the To address or "". */
static const char *to_of(struct mail *x, const char *headers, const char *inbody)
{
	parse(x, headers, inbody);
	find(x);
	return x->r.to.email;
}

/* --- To: the submitter -------------------------------------------------- */

START_TEST(test_to_is_the_sender)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\nTo: " LIST "\n", NULL);
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	ck_assert_str_eq(x.r.to.email, "jane@example.org");
	ck_assert_str_eq(x.r.to.name, "Jane Doe");
	ck_assert_str_eq(x.r.author.email, "");
	ck_assert_ptr_null(x.r.list);
	release(&x);
}
END_TEST

/* The display name is decoded (RFC 2047), the address never is. */
START_TEST(test_to_name_decoded)
{
	struct mail x;

	parse(&x, "From: =?utf-8?q?J=C3=A4ne_Doe?= <jane@example.org>\n", NULL);
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	ck_assert_str_eq(x.r.to.email, "jane@example.org");
	ck_assert_str_eq(x.r.to.name, "J\xc3\xa4ne Doe");
	release(&x);
}
END_TEST

/* From: values that give nobody to answer. */
static const char *const nobody_from[] = {
	"",						/* no From: at all */
	"From: \"Jane <jane@example.org>\n",		/* open quote: git's guess only */
	"From: Jane Doe jane@example.org\n",
	"From: Jane <jane@example.org> evil@example.net\n",
	"From: jane@example.org, evil@example.net\n",	/* two mailboxes */
	"From: Jane <jane@example.org>, Evil <evil@example.net>\n",
	"From: <=?utf-8?q?evil=40example.net?=>\n",	/* an encoded addr-spec */
	"From: =?utf-8?q?evil=40example.net?=\n",
	"From: Jane <\"jane doe\"@example.org>\n",	/* well-formed, not plain */
	"From: Jane <jane@exa_mple.org>\n",
	"From: Jane\n",
	"From: <>\n",
	"From: tagbot <tagbot@example.org>\n",		/* the bot */
	"From: TagBot@EXAMPLE.org\n",
	"From: Bot <tagbot+lkml@example.org>\n",
	"From: patchbot@example.net\n",			/* the bot's other address */
	"From: PatchBot+x@Example.NET\n",
	"From: " LIST "\n",				/* a configured list */
	"From: Netdev <NETDEV@vger.kernel.org>\n",
	"From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n", /* relay alone */
	"From: devnull@kernel.org\n",
	"From: Jane <jane@example.org>\nFrom: Evil <evil@example.net>\n", /* two From: */
	"From: Announce <announce@lists.example.com>\n"	/* the mail's own list */
	"List-Post: <mailto:announce@lists.example.com>\n",
	"From: announce@lists.example.com\n"
	"List-Id: Announcements <announce.lists.example.com>\n",
	"From: Jane Doe via Linux-leds <" LIST ">\n",	/* rewrite, no original */
};

START_TEST(test_nobody)
{
	struct mail x;

	parse(&x, nobody_from[_i], NULL);
	find(&x);
	ck_assert_msg(x.rc == -1, "'%s' answered '%s'", nobody_from[_i], x.r.to.email);
	ck_assert_str_eq(x.r.to.email, "");
	ck_assert_ptr_null(x.r.list);
	release(&x);
}
END_TEST

/* The list headers only ever take a recipient away: a List-Id or List-Post
 * of another list does not stop the answer. */
START_TEST(test_other_list_headers)
{
	struct mail x;

	ck_assert_str_eq(to_of(&x, "From: Jane <jane@example.org>\n"
			       "List-Id: <linux-leds.vger.kernel.org>\n"
			       "List-Post: <mailto:" LIST ">\n", NULL), "jane@example.org");
	release(&x);
	/* "jane.example.org" as a List-Id names jane@example.org */
	ck_assert_str_eq(to_of(&x, "From: Jane <jane@example.org>\n"
			       "List-Id: Jane's <jane.example.org>\n", NULL), "");
	release(&x);
}
END_TEST

/* The address limit: 254 bytes may be mailed, 255 not. */
START_TEST(test_long_address)
{
	struct mail x;
	char local[64 + 1], domain[256], hdr[512];
	size_t dn;

	memset(local, 'j', 64);
	local[64] = '\0';
	/* local@ + labels of 'd' separated by '.', ending ".org": 254 bytes */
	dn = 254 - 65;
	memset(domain, 'd', dn);
	for (size_t i = 60; i < dn - 4; i += 61)
		domain[i] = '.';
	memcpy(domain + dn - 4, ".org", 4);
	domain[dn] = '\0';
	snprintf(hdr, sizeof(hdr), "From: Jane <%s@%s>\n", local, domain);
	ck_assert_uint_eq(strlen(local) + 1 + strlen(domain), 254);
	ck_assert_uint_eq(strlen(to_of(&x, hdr, NULL)), 254);
	release(&x);
	domain[0] = 'e';
	memmove(domain + 1, domain, dn + 1);	/* one more byte */
	snprintf(hdr, sizeof(hdr), "From: Jane <%s@%s>\n", local, domain);
	ck_assert_str_eq(to_of(&x, hdr, NULL), "");
	release(&x);
}
END_TEST

/* --- the submitter behind a relay or a list's rewrite -------------------- */

static const struct {
	const char *headers;
	const char *to;		/* "": nobody */
} original_cases[] = {
	/* B4 Relay */
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: Jane Doe <jane@example.org>\n", "jane@example.org" },
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "Reply-To: jane@example.org\n", "jane@example.org" },
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: jane@example.org, evil@example.net\n"
	  "Reply-To: <jane2@example.org>\n", "jane2@example.org" },	/* X-O-F: two */
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: jane@example.org, evil@example.net\n", "" },
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: <=?utf-8?q?evil=40example.net?=>\n", "" },
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: tagbot@example.org\n", "" },			/* the bot */
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: devnull+x@kernel.org\n", "" },		/* a relay */
	{ "From: Jane Doe via B4 Relay <devnull+jane.example.org@kernel.org>\n"
	  "X-Original-From: " LIST "\n", "" },				/* a list */
	/* a configured list's DMARC rewrite */
	{ "From: Jane Doe via Linux-leds <" LIST ">\n"
	  "X-Original-From: Jane Doe <jane@example.org>\n", "jane@example.org" },
	{ "From: \"Jane Doe via Linux-leds\" <" LIST ">\n"
	  "Reply-To: Jane Doe <jane@example.org>\n", "jane@example.org" },
	{ "From: Jane Doe via Linux-leds <" LIST ">\n"
	  "Reply-To: <" LIST ">\n", "" },
	/* " via " anywhere else is a name; Reply-To: redirects nothing */
	{ "From: Mallory via Linux-leds <mallory@example.net>\n"
	  "X-Original-From: victim@example.org\n"
	  "Reply-To: victim@example.org\n", "mallory@example.net" },
	{ "From: Mallory <mallory@example.net>\n"
	  "Reply-To: victim@example.org\n", "mallory@example.net" },
	{ "From: Jane via Linux-leds <" LIST ">\n", "" },
	/* a list not configured: its own headers stop the answer */
	{ "From: Jane via Announce <announce@lists.example.com>\n"
	  "X-Original-From: jane@example.org\n"
	  "List-Post: <mailto:announce@lists.example.com>\n", "" },
};

START_TEST(test_original_sender)
{
	struct mail x;

	ck_assert_msg(!strcmp(to_of(&x, original_cases[_i].headers, NULL), original_cases[_i].to),
		      "'%s' answered '%s'", original_cases[_i].headers, x.r.to.email);
	release(&x);
}
END_TEST

/* --- Cc: the in-body author --------------------------------------------- */

/* In-body From: lines and whether their author is Cc'd next to Jane. */
static const struct {
	const char *inbody;
	const char *cc;		/* "": not Cc'd */
} author_cases[] = {
	{ "From: Other Person <other@example.org>\n", "other@example.org" },
	{ "From: =?utf-8?q?=C3=96ther?= <other@example.org>\n", "other@example.org" },
	{ "From: Jane Doe <jane@example.org>\n", "" },		/* the submitter */
	{ "From: JANE@EXAMPLE.ORG\n", "" },			/* case differs */
	{ "From: Jane <jane+leds@example.org>\n", "" },		/* +sub differs */
	{ "From: \"Other <other@example.org>\n", "" },		/* malformed: git's guess */
	{ "From: Other other@example.org\n", "" },
	{ "From: other@example.org, evil@example.net\n", "" },
	{ "From: <=?utf-8?q?evil=40example.net?=>\n", "" },
	{ "From: tagbot@example.org\n", "" },			/* the bot */
	{ "From: patchbot+x@example.net\n", "" },
	{ "From: devnull+other.example.org@kernel.org\n", "" },	/* a relay */
	{ "From: " LIST "\n", "" },				/* a configured list */
	{ "From: \"other\"@example.org\n", "" },		/* not plain */
};

START_TEST(test_cc_author)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n", author_cases[_i].inbody);
	ck_assert(x.p[0].author_from_body);
	x.s.cc_author = true;
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	ck_assert_str_eq(x.r.to.email, "jane@example.org");
	ck_assert_msg(!strcmp(x.r.author.email, author_cases[_i].cc), "'%s' Cc'd '%s'",
		      author_cases[_i].inbody, x.r.author.email);
	release(&x);
}
END_TEST

/* A malformed in-body From: still names an author git would record; that
 * guess is never mailed. */
START_TEST(test_cc_author_guess_not_mailed)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n", "From: \"Other <other@example.org>\n");
	ck_assert_ptr_nonnull(x.p[0].bad_from);
	ck_assert_str_eq(x.p[0].author.email, "other@example.org");
	x.s.cc_author = true;
	x.s.to = REPLY_TO_ALL;
	find(&x);
	ck_assert_str_eq(x.r.author.email, "");
	release(&x);
}
END_TEST

/* cc_author off: nobody but the submitter. */
START_TEST(test_cc_author_off)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n", "From: Other <other@example.org>\n");
	x.s.cc_author = false;
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	ck_assert_str_eq(x.r.author.email, "");
	release(&x);
}
END_TEST

/* The mail's own list, named by its headers, is not Cc'd as an author. */
START_TEST(test_cc_author_mail_list)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n"
		  "List-Post: <mailto:announce@lists.example.com>\n",
	      "From: announce@lists.example.com\n");
	x.s.cc_author = true;
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	ck_assert_str_eq(x.r.author.email, "");
	release(&x);
}
END_TEST

/* --- Cc: the configured list -------------------------------------------- */

static const struct {
	enum reply_to to;
	const char *address;	/* list_address */
	bool cc;		/* r.list is address */
} list_cases[] = {
	{ REPLY_TO_AUTHOR, LIST, false },
	{ REPLY_TO_AUTHOR_LIST, LIST, true },
	{ REPLY_TO_ALL, LIST, true },
	{ REPLY_TO_AUTHOR_LIST, NULL, false },
	{ REPLY_TO_AUTHOR_LIST, "linux leds@vger.kernel.org", false },
	{ REPLY_TO_AUTHOR_LIST, LIST "\r\nBcc: evil@example.net", false },
	{ REPLY_TO_AUTHOR_LIST, LIST ", evil@example.net", false },
	{ REPLY_TO_AUTHOR_LIST, "=?utf-8?q?x?=@vger.kernel.org", false },
	{ REPLY_TO_ALL, "Linux LEDs <" LIST ">", false },
};

START_TEST(test_list)
{
	struct mail x;

	/* the mail's own list headers never make a Cc */
	parse(&x, "From: Jane Doe <jane@example.org>\n"
		  "List-Id: <announce.lists.example.com>\n"
		  "List-Post: <mailto:announce@lists.example.com>\n", NULL);
	x.s.to = list_cases[_i].to;
	x.s.list_address = list_cases[_i].address;
	find(&x);
	ck_assert_int_eq(x.rc, 0);
	if (list_cases[_i].cc)
		ck_assert_ptr_eq(x.r.list, list_cases[_i].address);
	else
		ck_assert_ptr_null(x.r.list);
	release(&x);
}
END_TEST

/* --- recipients_may_mail ------------------------------------------------ */

static const struct {
	const char *addr;
	bool ok;
} may_cases[] = {
	{ "jane@example.org", true },
	{ "Jane.Doe+leds@sub.example.org", true },
	{ "", false },
	{ "jane", false },
	{ "Jane <jane@example.org>", false },
	{ "<jane@example.org>", false },
	{ "jane@example.org\r\nBcc: evil@example.net", false },
	{ "jane@example.org\n", false },
	{ "jane@example.org\r", false },
	{ "jane@example.org,evil@example.net", false },
	{ "jane@example.org, evil@example.net", false },
	{ "jane@example.org;evil@example.net", false },
	{ "\"jane doe\"@example.org", false },
	{ "=?utf-8?q?evil=40example.net?=", false },
	{ "=?utf-8?q?j?=@example.org", false },
	{ "jane@=?utf-8?q?x?=.org", false },
	{ "j\xc3\xa4ne@example.org", false },
	{ "jane@example.org\t", false },
	{ "tagbot@example.org", false },
	{ "TAGBOT+x@Example.Org", false },
	{ "patchbot@example.net", false },
	{ "devnull+jane.example.org@kernel.org", false },
	{ "DevNull@kernel.org", false },
	{ LIST, false },
	{ "Linux-LEDs@VGER.kernel.org", false },
	{ "netdev@vger.kernel.org", false },
	{ "announce@lists.example.com", false },	/* the mail's List-Post */
	{ "ann@example.com", false },			/* the mail's List-Id */
	{ "ann@example.co", true },
};

START_TEST(test_may_mail)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n"
		  "List-Id: Ann <ann.example.com>\n"
		  "List-Post: <mailto:announce@lists.example.com>\n", NULL);
	ck_assert_msg(recipients_may_mail(&x.p[0], &x.s, may_cases[_i].addr) == may_cases[_i].ok,
		      "'%s'", may_cases[_i].addr);
	release(&x);
}
END_TEST

START_TEST(test_may_mail_null)
{
	struct mail x;

	parse(&x, "From: Jane Doe <jane@example.org>\n", NULL);
	ck_assert(!recipients_may_mail(&x.p[0], &x.s, NULL));
	release(&x);
}
END_TEST

/* --- on the wire: reply_build()'s envelope and To:/Cc: ------------------ */

struct wire {
	struct mail x;
	struct findings f;
	struct reply r;
	struct message back;	/* the reply, parsed again */
};

/* Builds the reply to the mail, parsed back; fails the test when the
 * reply cannot be built. */
static void wire_build(struct wire *w)
{
	struct err e;

	findings_init(&w->f);
	findings_add(&w->f, "MISSING_SIGN_OFF", SEV_ERROR, NULL, "submitting-patches.rst",
		     "no Signed-off-by: of the author");
	reply_init(&w->r);
	err_init(&e);
	ck_assert_msg(reply_build(&w->r, &w->x.p[0], &w->f, &w->x.s, NOW, &e) == 0, "%s", e.msg);
	message_init(&w->back);
	ck_assert_msg(message_parse(&w->back, w->r.raw, w->r.len, &e) == 0, "%s", e.msg);
}

static void wire_release(struct wire *w)
{
	message_release(&w->back);
	reply_release(&w->r);
	findings_release(&w->f);
	patches_free(w->x.p, w->x.np);
	message_release(&w->x.m);
}

/* The envelope, ","-joined. */
static const char *envelope(const struct reply *r)
{
	static char out[8192];

	out[0] = '\0';
	for (size_t i = 0; i < r->nrcpt; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
			 r->rcpt[i]);
	return out;
}

/* The addresses of the reply's header name, as a strict reader gets them,
 * ","-joined; the test fails on an element that is no mailbox. */
static const char *header_addrs(const struct message *m, const char *name)
{
	static char out[8192];
	const char *v = message_header_raw(m, name);
	struct address_list l;

	out[0] = '\0';
	if (!v)
		return out;
	address_list_parse(&l, v, strlen(v), 1000);
	ck_assert_msg(l.bad == 0, "%s: %s", name, v);
	for (size_t i = 0; i < l.n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
			 l.v[i].email);
	address_list_release(&l);
	return out;
}

/* Whether raw's header block has a line starting with name + ':'. */
static bool has_header_line(const char *raw, const char *name)
{
	const char *end = strstr(raw, "\r\n\r\n");
	size_t n = strlen(name);

	for (const char *p = raw; p && p < end; p = strstr(p, "\r\n"), p = p ? p + 2 : NULL)
		if (!strncasecmp(p, name, n) && p[n] == ':')
			return true;
	return false;
}

/* to = all: the patch's To and Cc join, each address once whatever its
 * case, without the bot, relays, lists and anything not a plain address. */
START_TEST(test_wire_all)
{
	struct wire w;

	parse(&w.x, "From: Jane Doe <jane@example.org>\n"
		    "To: " LIST ", Maint <maint@example.org>, JANE@example.org\n"
		    "Cc: tagbot@example.org, Patchbot <patchbot+x@example.net>,\n"
		    " devnull+y@kernel.org, MAINT@EXAMPLE.ORG, \"a b\"@example.org,\n"
		    " =?utf-8?q?Evil_<evil=40example.net>?= <rev@example.org>,\n"
		    " <=?utf-8?q?evil2=40example.net?=>, announce@lists.example.com,\n"
		    " other@example.org\n"
		    "List-Post: <mailto:announce@lists.example.com>\n",
	      "From: Other <Other@Example.org>\n");
	w.x.s.to = REPLY_TO_ALL;
	w.x.s.cc_author = true;
	w.x.s.list_address = LIST;
	wire_build(&w);
	ck_assert_str_eq(envelope(&w.r), "jane@example.org,Other@Example.org," LIST
			 ",maint@example.org,rev@example.org");
	ck_assert_str_eq(header_addrs(&w.back, "To"), "jane@example.org");
	ck_assert_str_eq(header_addrs(&w.back, "Cc"),
			 "Other@Example.org," LIST ",maint@example.org,rev@example.org");
	ck_assert(!has_header_line(w.r.raw, "Bcc"));
	wire_release(&w);
}
END_TEST

/* to = author: the submitter and the in-body author, whatever else the
 * mail names. */
START_TEST(test_wire_author_only)
{
	struct wire w;

	parse(&w.x, "From: Jane Doe <jane@example.org>\n"
		    "To: " LIST "\nCc: maint@example.org\n", "From: Other <other@example.org>\n");
	w.x.s.list_address = LIST;
	wire_build(&w);
	ck_assert_str_eq(envelope(&w.r), "jane@example.org,other@example.org");
	ck_assert_str_eq(header_addrs(&w.back, "To"), "jane@example.org");
	ck_assert_str_eq(header_addrs(&w.back, "Cc"), "other@example.org");
	wire_release(&w);
}
END_TEST

/* Encoded words in the sender's name that decode to a second address, a
 * line end or a header stay in the name: one recipient, no new header. */
static const char *const injected_from[] = {
	"From: =?utf-8?q?Jane=2C_evil=40example.net?= <jane@example.org>\n",
	"From: =?utf-8?q?Jane_<evil=40example.net>?= <jane@example.org>\n",
	"From: =?utf-8?q?Jane=0D=0ABcc=3A_evil=40example.net?= <jane@example.org>\n",
	"From: =?utf-8?q?Jane=0ACc=3A_evil=40example.net=0A?= <jane@example.org>\n",
	"From: =?utf-8?b?SmFuZQ0KQmNjOiBldmlsQGV4YW1wbGUubmV0?= <jane@example.org>\n",
	"From: Jane (=?utf-8?q?x=0D=0ABcc:_evil=40example.net?=) <jane@example.org>\n",
};

START_TEST(test_wire_injected_name)
{
	struct wire w;

	parse(&w.x, injected_from[_i], NULL);
	w.x.s.to = REPLY_TO_ALL;
	wire_build(&w);
	ck_assert_str_eq(envelope(&w.r), "jane@example.org");
	ck_assert_str_eq(header_addrs(&w.back, "To"), "jane@example.org");
	ck_assert_ptr_null(message_header_raw(&w.back, "Cc"));
	ck_assert_msg(!has_header_line(w.r.raw, "Bcc") && !has_header_line(w.r.raw, "Cc"),
		      "%s", w.r.raw);
	for (size_t i = 0; i < w.r.nrcpt; i++)
		ck_assert_ptr_null(strpbrk(w.r.rcpt[i], "\r\n, ;<>\""));
	wire_release(&w);
}
END_TEST

/* No reply is built for a mail with nobody to answer. */
START_TEST(test_wire_nobody)
{
	struct mail x;
	struct findings f;
	struct reply r;
	struct err e;

	parse(&x, "From: jane@example.org, evil@example.net\nTo: maint@example.org\n", NULL);
	x.s.to = REPLY_TO_ALL;
	x.s.list_address = LIST;
	findings_init(&f);
	findings_add(&f, "MISSING_SIGN_OFF", SEV_ERROR, NULL, "ref", "text");
	reply_init(&r);
	err_init(&e);
	ck_assert_int_eq(reply_build(&r, &x.p[0], &f, &x.s, NOW, &e), -1);
	ck_assert_uint_eq(r.nrcpt, 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "nobody to reply to"));
	reply_release(&r);
	findings_release(&f);
	patches_free(x.p, x.np);
	message_release(&x.m);
}
END_TEST

/* The envelope holds at most REPLY_MAX_RCPT recipients, the To among
 * them, and the headers name the same ones. */
START_TEST(test_wire_cap)
{
	struct wire w;
	struct buf h;

	buf_init(&h, 0);
	buf_addstr(&h, "From: Jane Doe <jane@example.org>\nCc: ");
	for (int i = 0; i < REPLY_MAX_RCPT + 20; i++)
		buf_printf(&h, "%sp%d@example.org", i ? ",\n " : "", i);
	buf_addstr(&h, "\n");
	parse(&w.x, h.data, NULL);
	w.x.s.to = REPLY_TO_ALL;
	wire_build(&w);
	ck_assert_uint_eq(w.r.nrcpt, REPLY_MAX_RCPT);
	ck_assert_str_eq(w.r.rcpt[0], "jane@example.org");
	ck_assert_str_eq(w.r.rcpt[1], "p0@example.org");
	for (size_t i = 1; i < w.r.nrcpt; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(w.r.rcpt[i], w.r.rcpt[j]);
	/* whom the headers name is whom the envelope mails */
	buf_reset(&h);
	buf_printf(&h, "%s,", header_addrs(&w.back, "To"));
	buf_addstr(&h, header_addrs(&w.back, "Cc"));
	ck_assert_str_eq(h.data, envelope(&w.r));
	buf_release(&h);
	wire_release(&w);
}
END_TEST

static Suite *recipients_suite(void)
{
	Suite *s = suite_create("recipients");
	TCase *t = tcase_create("to");

	tcase_add_test(t, test_to_is_the_sender);
	tcase_add_test(t, test_to_name_decoded);
	tcase_add_loop_test(t, test_nobody, 0, ARRAY_SIZE(nobody_from));
	tcase_add_test(t, test_other_list_headers);
	tcase_add_test(t, test_long_address);
	tcase_add_loop_test(t, test_original_sender, 0, ARRAY_SIZE(original_cases));
	suite_add_tcase(s, t);
	t = tcase_create("cc");
	tcase_add_loop_test(t, test_cc_author, 0, ARRAY_SIZE(author_cases));
	tcase_add_test(t, test_cc_author_guess_not_mailed);
	tcase_add_test(t, test_cc_author_off);
	tcase_add_test(t, test_cc_author_mail_list);
	tcase_add_loop_test(t, test_list, 0, ARRAY_SIZE(list_cases));
	suite_add_tcase(s, t);
	t = tcase_create("may_mail");
	tcase_add_loop_test(t, test_may_mail, 0, ARRAY_SIZE(may_cases));
	tcase_add_test(t, test_may_mail_null);
	suite_add_tcase(s, t);
	t = tcase_create("wire");
	tcase_add_test(t, test_wire_all);
	tcase_add_test(t, test_wire_author_only);
	tcase_add_loop_test(t, test_wire_injected_name, 0, ARRAY_SIZE(injected_from));
	tcase_add_test(t, test_wire_nobody);
	tcase_add_test(t, test_wire_cap);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return th_run_suite(recipients_suite());
}
