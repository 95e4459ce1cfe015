#include "autoconf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/message.h"
#include "mail/patch.h"
#include "reply/reply.h"
#include "rules/rules.h"
#include "testhelp.h"
#include "mail/msgid.h"
#include "lib/buf.h"
#include "lib/utf8.h"
#include "mail/address.h"

#define NOW 1700000000	/* Tue, 14 Nov 2023 22:13:20 +0000 */

/* --- reading the reply back ------------------------------------------- */

#define MAXH 40

struct hblock {
	char *name[MAXH];	/* owned */
	char *value[MAXH];	/* owned; unfolded, leading space removed */
	size_t n;
	const char *body;	/* foreign; after the blank line */
};

static void hblock_free(struct hblock *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->name[i]);
		free(h->value[i]);
	}
}

/*
 * Parses the header block as a strict receiver would, failing the test on
 * anything a second header could hide in: a bare CR or LF, a line past 998
 * octets, a line that is neither "Name: value" nor a continuation.
 */
static void parse_block(const char *raw, size_t len, struct hblock *h)
{
	const char *end = strstr(raw, "\r\n\r\n"), *p = raw;

	memset(h, 0, sizeof(*h));
	ck_assert_ptr_nonnull(end);
	ck_assert_uint_eq(strlen(raw), len);	/* no NUL inside */
	h->body = end + 4;
	for (const char *q = raw; q < end + 2; q++) {
		if (*q == '\r')
			ck_assert_msg(q[1] == '\n', "bare CR at %td", q - raw);
		if (*q == '\n')
			ck_assert_msg(q > raw && q[-1] == '\r', "bare LF at %td", q - raw);
	}
	while (p < end + 2) {
		const char *eol = strstr(p, "\r\n");
		size_t n = (size_t)(eol - p);

		ck_assert_msg(n <= 998, "header line of %zu octets", n);
		ck_assert_msg(n > 0, "empty line inside the header block");
		if (*p == ' ' || *p == '\t') {
			char *v;

			ck_assert_msg(h->n > 0, "continuation before any header");
			v = h->value[h->n - 1];
			h->value[h->n - 1] = malloc(strlen(v) + n + 1);
			sprintf(h->value[h->n - 1], "%s%.*s", v, (int)n, p);
			free(v);
		} else {
			const char *colon = memchr(p, ':', n);

			ck_assert_msg(colon != NULL, "not a header: %.*s", (int)n, p);
			for (const char *c = p; c < colon; c++)
				ck_assert_msg(*c > ' ' && *c < 0x7f, "bad header name %.*s", (int)n, p);
			ck_assert_uint_lt(h->n, MAXH);
			h->name[h->n] = strndup(p, (size_t)(colon - p));
			colon += colon[1] == ' ' ? 2 : 1;
			h->value[h->n] = strndup(colon, (size_t)(eol - colon));
			h->n++;
		}
		p = eol + 2;
	}
}

static const char *hval(const struct hblock *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcasecmp(h->name[i], name))
			return h->value[i];
	return NULL;
}

/* The names, comma-separated, for exact comparison. */
static const char *hnames(const struct hblock *h)
{
	static char out[1024];

	out[0] = '\0';
	for (size_t i = 0; i < h->n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
			 h->name[i]);
	return out;
}

static const char *rcpts(const struct reply *r)
{
	static char out[2048];

	out[0] = '\0';
	for (size_t i = 0; i < r->nrcpt; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
			 r->rcpt[i]);
	return out;
}

static const char base_names[] =
	"From,To,Subject,Date,Message-ID,In-Reply-To,References,Auto-Submitted,X-Mailer,"
	"X-Tagbot-Rules,MIME-Version,Content-Type,Content-Transfer-Encoding";

/* --- building input --------------------------------------------------- */

struct fixture {
	struct patch p;
	struct message m;
	struct header hdrs[8];
	char *refs[40];
	struct findings f;
	struct reply_settings s;
	struct reply r;
};

static void add_hdr(struct fixture *fx, const char *name, const char *raw)
{
	struct header *h = &fx->hdrs[fx->m.nheaders++];

	h->name = (char *)name;
	h->value = (char *)raw;
	h->raw = (char *)raw;
	fx->p.msg = &fx->m;
}

/* A patch by Jane Doe with one warning and one check finding. */
static void fixture_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->m.headers = fx->hdrs;
	fx->p.kind = KIND_PATCH;
	fx->p.subject = "[PATCH v2 1/3] leds: fix foo";
	fx->p.message_id = "p1@example.org";
	fx->p.in_reply_to = "c0@example.org";
	fx->refs[0] = "c0@example.org";
	fx->p.references = fx->refs;
	fx->p.nreferences = 1;
	fx->p.list_id = "";
	fx->p.author.name = "Jane Doe";
	fx->p.author.email = "jane@example.org";
	fx->p.sender.name = "Jane Doe";
	fx->p.sender.email = "jane@example.org";
	findings_init(&fx->f);
	findings_add(&fx->f, "BAD_FIXES_TAG", SEV_WARNING,
		     &(struct line){ "Fixes: abc123 (\"foo\")", 21, 12 },
		     "submitting-patches.rst \"Describe your changes\"",
		     "Fixes: needs 12 or more hex digits of the commit and its subject");
	findings_add(&fx->f, "MISSING_FIXES_TAG", SEV_CHECK, NULL, "checkpatch",
		     "consider a Fixes: tag");
	reply_settings_init(&fx->s);
	fx->s.from = "tagbot <tagbot@example.org>";
	reply_init(&fx->r);
}

static void fixture_release(struct fixture *fx)
{
	findings_release(&fx->f);
	reply_release(&fx->r);
}

static void build_ok(struct fixture *fx, struct hblock *h)
{
	struct err e;

	err_init(&e);
	ck_assert_msg(reply_build(&fx->r, &fx->p, &fx->f, &fx->s, NOW, &e) == 0, "%s", e.msg);
	parse_block(fx->r.raw, fx->r.len, h);
}

/* --- tests ------------------------------------------------------------ */

START_TEST(test_basic_reply)
{
	struct fixture fx;
	struct hblock h;
	const char *id;

	fixture_init(&fx);
	build_ok(&fx, &h);
	ck_assert_str_eq(hnames(&h), base_names);
	ck_assert_str_eq(hval(&h, "From"), "tagbot <tagbot@example.org>");
	ck_assert_str_eq(hval(&h, "To"), "Jane Doe <jane@example.org>");
	ck_assert_str_eq(hval(&h, "Subject"), "Re: [PATCH v2 1/3] leds: fix foo");
	ck_assert_str_eq(hval(&h, "Date"), "Tue, 14 Nov 2023 22:13:20 +0000");
	ck_assert_str_eq(hval(&h, "In-Reply-To"), "<p1@example.org>");
	ck_assert_str_eq(hval(&h, "References"), "<c0@example.org> <p1@example.org>");
	ck_assert_str_eq(hval(&h, "Auto-Submitted"), "auto-generated");
	ck_assert_str_eq(hval(&h, "X-Mailer"), "tagbot " PACKAGE_VERSION);
	ck_assert_str_eq(hval(&h, "X-Tagbot-Rules"), "BAD_FIXES_TAG");	/* check is below warning */
	ck_assert_str_eq(hval(&h, "Content-Type"), "text/plain; charset=UTF-8");
	ck_assert_str_eq(hval(&h, "Content-Transfer-Encoding"), "7bit");

	/* <tagbot.TIME.16HEX@domain>, and the same ID handed to the caller. */
	id = hval(&h, "Message-ID");
	ck_assert_int_eq(strncmp(id, "<tagbot.1700000000.", 19), 0);
	ck_assert_uint_eq(strlen(id), strlen("<tagbot.1700000000.@example.org>") + 16);
	ck_assert_str_eq(id + 19 + 16, "@example.org>");
	ck_assert_int_eq(strncmp(id + 1, fx.r.msgid, strlen(fx.r.msgid)), 0);
	ck_assert(msgid_header_safe(fx.r.msgid));

	ck_assert_str_eq(rcpts(&fx.r), "jane@example.org");
	ck_assert_str_eq(fx.r.envelope_from, "tagbot@example.org");
	ck_assert_uint_eq(fx.r.nfindings, 1);

	ck_assert_int_eq(strncmp(h.body, "Hello Jane Doe,\r\n\r\n", 19), 0);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n1. BAD_FIXES_TAG (warning), line 12:\r\n"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n| Fixes: abc123 (\"foo\")\r\n"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n   Fixes: needs 12 or more hex digits"));
	/* The document, then the manual page that explains the rule. */
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n   See: submitting-patches.rst \"Describe your changes\"; tagbot-rules(7)\r\n"
					  "   BAD_FIXES_TAG\r\n"));
	ck_assert_ptr_null(strstr(h.body, "MISSING_FIXES_TAG"));
	ck_assert_ptr_nonnull(strstr(h.body, "Hello Jane Doe,\r\n\r\ntagbot checked the tags of your patch\r\n"
					  "\r\n    [PATCH v2 1/3] leds: fix foo\r\n"
					  "\r\nand found 1 thing to look at:\r\n"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n-- \r\ntagbot checks patch tags against "
					  "Documentation/process/ and can be wrong.\r\n"));
	/* Nothing we write starts a line with a trailer token. */
	for (const char *l = h.body; *l; l = strstr(l, "\r\n") + 2) {
		ck_assert_msg(strncmp(l, "Fixes:", 6) && strncmp(l, "Signed-off-by:", 14),
			      "trailer-shaped line in the body: %.40s", l);
		if (!strstr(l, "\r\n"))
			break;
	}
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_subject_re)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "[PATCH] leds: x", "Re: [PATCH] leds: x" },
		{ "Re: [PATCH] leds: x", "Re: [PATCH] leds: x" },
		{ "RE: [PATCH] leds: x", "RE: [PATCH] leds: x" },
		{ "re:x", "re:x" },
		{ "  [PATCH]   spaced  ", "Re: [PATCH] spaced" },
		{ "", "Re:" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct hblock h;

		fixture_init(&fx);
		fx.p.subject = (char *)cases[i].in;
		build_ok(&fx, &h);
		ck_assert_msg(!strcmp(hval(&h, "Subject"), cases[i].out), "case %zu: [%s]", i,
			      hval(&h, "Subject"));
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* The header Subject (what the thread shows) wins over the in-body one. */
START_TEST(test_subject_from_header)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	fx.p.subject = "leds: the in-body subject";
	add_hdr(&fx, "Subject", "[PATCH 2/2] leds: the header subject");
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "Subject"), "Re: [PATCH 2/2] leds: the header subject");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/*
 * To: the submitter (the header From:); Cc: the in-body author unless
 * cc_author is off, the configured list for author+list and all, and for
 * all the mail's To and Cc: never the bot, a group, or a list the mail
 * itself names (List-Post) unless it is the configured one.
 */
START_TEST(test_recipients_policy)
{
	static const struct {
		enum reply_to to;
		bool cc_author;
		const char *rcpt, *cc;	/* cc NULL: no Cc header */
	} cases[] = {
		{ REPLY_TO_AUTHOR, true, "sender@example.net,jane@example.org", "jane@example.org" },
		{ REPLY_TO_AUTHOR, false, "sender@example.net", NULL },
		{ REPLY_TO_AUTHOR_LIST, true,
		  "sender@example.net,jane@example.org,linux-leds@vger.kernel.org",
		  "jane@example.org, linux-leds@vger.kernel.org" },
		{ REPLY_TO_ALL, true,
		  "sender@example.net,jane@example.org,linux-leds@vger.kernel.org,"
		  "pavel@kernel.org,john@example.com",
		  "jane@example.org, linux-leds@vger.kernel.org, pavel@kernel.org, john@example.com" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct hblock h;

		fixture_init(&fx);
		fx.p.sender.name = "Sender";
		fx.p.sender.email = "sender@example.net";
		fx.p.author_from_body = true;
		add_hdr(&fx, "To", "Pavel Machek <pavel@kernel.org>, linux-leds@vger.kernel.org,"
			" jane@EXAMPLE.org, other-list@example.org");
		/* The bot's plus address and a group are never recipients. */
		add_hdr(&fx, "Cc", "\"Doe, John\" <john@example.com>, tagbot+leds@example.org (bot),"
			" undisclosed-recipients:;");
		add_hdr(&fx, "List-Post", "<mailto:other-list@example.org>");
		fx.s.to = cases[i].to;
		fx.s.cc_author = cases[i].cc_author;
		fx.s.list_address = "linux-leds@vger.kernel.org";
		build_ok(&fx, &h);
		ck_assert_msg(!strcmp(rcpts(&fx.r), cases[i].rcpt), "case %zu: %s", i, rcpts(&fx.r));
		ck_assert_str_eq(hval(&h, "To"), "Sender <sender@example.net>");
		if (cases[i].cc)
			ck_assert_str_eq(hval(&h, "Cc"), cases[i].cc);
		else
			ck_assert_ptr_null(hval(&h, "Cc"));
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* A reply about the sender's own sign-off only leaves the in-body author
 * out: there is nothing for them to do (a maintainer resending an old
 * patch Cc'd its author's long-dead address).  With another finding beside
 * it, the author is Cc'd as before. */
START_TEST(test_sender_only_no_author_cc)
{
	for (int both = 0; both < 2; both++) {
		struct fixture fx;
		struct hblock h;

		fixture_init(&fx);
		findings_release(&fx.f);
		findings_add(&fx.f, "SUBMITTER_SIGN_OFF", SEV_WARNING, NULL, "doc",
			     "You sent this patch without a Signed-off-by: of your own.");
		if (both)
			findings_add(&fx.f, "BAD_FIXES_TAG", SEV_WARNING,
				     &(struct line){ "Fixes: abc123", 13, 9 }, "doc", "Quote it.");
		fx.p.sender.name = "Sender";
		fx.p.sender.email = "sender@example.net";
		fx.p.author_from_body = true;
		fx.s.cc_author = true;
		build_ok(&fx, &h);
		ck_assert_str_eq(rcpts(&fx.r), both ? "sender@example.net,jane@example.org"
						     : "sender@example.net");
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* The list Cc is the configured address; what the mail's List-Post,
 * List-Id or X-Mailing-List says never adds one. */
START_TEST(test_list_address_configured)
{
	static const struct {
		const char *hname, *hvalue, *list_id, *configured, *cc;
	} cases[] = {
		{ "List-Post", "<mailto:victim@example.test>", "linux-leds.vger.kernel.org",
		  "linux-leds@vger.kernel.org", "linux-leds@vger.kernel.org" },
		{ "List-Post", "<mailto:linux-leds@vger.kernel.org>", "linux-leds.vger.kernel.org",
		  NULL, NULL },
		{ "X-Mailing-List", "<victim@example.test>", "", NULL, NULL },
		{ "List-Id", "<victim.example.test>", "victim.example.test", NULL, NULL },
		{ NULL, NULL, "", NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct hblock h;
		const char *cc;

		fixture_init(&fx);
		if (cases[i].hname)
			add_hdr(&fx, cases[i].hname, cases[i].hvalue);
		fx.p.list_id = (char *)cases[i].list_id;
		fx.s.to = REPLY_TO_AUTHOR_LIST;
		fx.s.list_address = cases[i].configured;
		build_ok(&fx, &h);
		cc = hval(&h, "Cc");
		if (cases[i].cc)
			ck_assert_msg(cc && !strcmp(cc, cases[i].cc), "case %zu: %s", i, cc);
		else
			ck_assert_msg(cc == NULL, "case %zu: %s", i, cc);
		ck_assert_ptr_null(strstr(rcpts(&fx.r), "victim"));
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* Nobody to answer: the submitter is a list (configured, or the mail's own
 * List-Post or List-Id), a relay with no original address, or the bot. */
START_TEST(test_never_answered)
{
	static const struct {
		const char *sender, *hname, *hvalue, *configured;
	} cases[] = {
		{ "linux-leds@vger.kernel.org", NULL, NULL, "linux-leds@vger.kernel.org" },
		{ "list@example.org", "List-Post", "<mailto:list@example.org>", NULL },
		{ "list@example.org", "List-Id", "Some list <list.example.org>", NULL },
		{ "devnull+jane.example.org@kernel.org", NULL, NULL, NULL },
		{ "tagbot+x@example.org", NULL, NULL, NULL },
		{ "", NULL, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct err e;

		fixture_init(&fx);
		fx.p.sender.email = (char *)cases[i].sender;
		if (cases[i].hname)
			add_hdr(&fx, cases[i].hname, cases[i].hvalue);
		fx.s.list_address = cases[i].configured;
		ck_assert_msg(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e) == -1, "case %zu", i);
		ck_assert_msg(strstr(e.msg, "nobody to reply to"), "case %zu: %s", i, e.msg);
		fixture_release(&fx);
	}
}
END_TEST

/* " via " is a list's DMARC rewrite only when the From address is a
 * configured list's: then Reply-To/X-Original-From is the submitter;
 * anywhere else Reply-To redirects nothing. */
START_TEST(test_via_rewrite)
{
	struct fixture fx;

	fixture_init(&fx);
	fx.p.sender.name = "Victim via linux-leds";
	fx.p.sender.email = "mallory@example.org";
	add_hdr(&fx, "Reply-To", "victim@example.test");
	fx.s.list_address = "linux-leds@vger.kernel.org";
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &(struct err){ 0 }), 0);
	ck_assert_str_eq(rcpts(&fx.r), "mallory@example.org");
	fixture_release(&fx);

	fixture_init(&fx);
	fx.p.sender.name = "Ann via linux-leds";
	fx.p.sender.email = "linux-leds@vger.kernel.org";
	add_hdr(&fx, "Reply-To", "Ann <ann@example.org>");
	fx.s.list_addresses = (const char *const[]){ "linux-leds@vger.kernel.org" };
	fx.s.nlist_addresses = 1;
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &(struct err){ 0 }), 0);
	ck_assert_str_eq(rcpts(&fx.r), "ann@example.org");
	fixture_release(&fx);
}
END_TEST

/* The bot's own addresses are never Cc'ed, whichever form they take. */
START_TEST(test_bot_not_cced)
{
	static const char *const bots[] = { "tagbot-alias@example.net" };
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	add_hdr(&fx, "Cc", "TAGBOT@example.org, tagbot-alias+x@example.net, a@example.com");
	fx.s.to = REPLY_TO_ALL;
	fx.s.bot_addresses = bots;
	fx.s.nbot_addresses = 1;
	build_ok(&fx, &h);
	ck_assert_str_eq(rcpts(&fx.r), "jane@example.org,a@example.com");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* A relayed patch (B4 Relay): the author gets the reply, not devnull. */
START_TEST(test_relay_author)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	fx.p.sender.name = "Jane Doe via B4 Relay";
	fx.p.sender.email = "devnull+jane.example.org@kernel.org";
	add_hdr(&fx, "X-Original-From", "Jane Doe <jane@example.org>");
	fx.s.to = REPLY_TO_ALL;
	build_ok(&fx, &h);
	ck_assert_str_eq(rcpts(&fx.r), "jane@example.org");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* X-Google-Original-From: only shapes what a finding says of the author's
 * sign-off: it never chooses or adds a recipient, whatever it holds. */
START_TEST(test_provider_original_not_mailed)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	fx.p.sender.name = "Carol Coder";
	fx.p.sender.email = "jane@example.org";
	add_hdr(&fx, "X-Google-Original-From", "Carol Coder <carol@example.test>");
	fx.s.to = REPLY_TO_ALL;
	fx.s.cc_author = true;
	build_ok(&fx, &h);
	ck_assert_str_eq(rcpts(&fx.r), "jane@example.org");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* Non-ASCII names and subjects go out as RFC 2047 words that decode back
 * to the original; the body becomes quoted-printable. */
START_TEST(test_non_ascii)
{
	static const char hello_qp[] = "Hello J=C3=A9r=C3=B4me Pouiller,\r\n";
	struct fixture fx;
	struct hblock h;
	char *dec;

	fixture_init(&fx);
	fx.p.sender.name = fx.p.author.name = "Jérôme Pouiller";
	fx.p.sender.email = fx.p.author.email = "jerome@example.org";
	fx.p.subject = "[PATCH] leds: tidy the Ünïcode names of the drivers so they read well";
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "To"), "=?UTF-8?Q?J=C3=A9r=C3=B4me_Pouiller?= <jerome@example.org>");
	dec = message_decode_2047(hval(&h, "Subject"), strlen(hval(&h, "Subject")));
	ck_assert_str_eq(dec, "Re: [PATCH] leds: tidy the Ünïcode names of the drivers so they read well");
	free(dec);
	ck_assert_str_eq(hval(&h, "Content-Transfer-Encoding"), "quoted-printable");
	ck_assert_int_eq(strncmp(h.body, hello_qp, strlen(hello_qp)), 0);
	for (size_t i = 0; i < fx.r.len; i++)
		ck_assert_msg((unsigned char)fx.r.raw[i] < 0x80, "8-bit byte at %zu", i);
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_display_name_forms)
{
	static const struct {
		const char *name, *to;
	} cases[] = {
		{ "Jane Doe", "Jane Doe <jane@example.org>" },
		{ "Doe, Jane", "\"Doe, Jane\" <jane@example.org>" },
		{ "J. \"JD\" Doe", "\"J. \\\"JD\\\" Doe\" <jane@example.org>" },
		{ "", "<jane@example.org>" },
		{ "=?utf-8?q?x?=", "=?UTF-8?Q?=3D=3Futf-8=3Fq=3Fx=3F=3D?= <jane@example.org>" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct hblock h;

		fixture_init(&fx);
		fx.p.sender.name = (char *)cases[i].name;
		build_ok(&fx, &h);
		ck_assert_msg(!strcmp(hval(&h, "To"), cases[i].to), "case %zu: %s", i, hval(&h, "To"));
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* Long subjects fold at white space under 78 columns; an unbreakable one
 * is encoded so it can be split; both read back as written. */
START_TEST(test_folding)
{
	char words[400], blob[2001];
	struct fixture fx;
	struct hblock h;
	char *dec;

	words[0] = '\0';
	for (int i = 0; i < 30; i++)
		strcat(words, "leds: word ");
	words[strlen(words) - 1] = '\0';
	memset(blob, 'x', 2000);
	blob[2000] = '\0';

	fixture_init(&fx);
	fx.p.subject = words;
	build_ok(&fx, &h);
	for (const char *l = fx.r.raw; l < h.body - 2; l = strstr(l, "\r\n") + 2)
		ck_assert_uint_le((size_t)(strstr(l, "\r\n") - l), 78);
	ck_assert_str_eq(hval(&h, "Subject") + 4, words);
	hblock_free(&h);
	fixture_release(&fx);

	fixture_init(&fx);
	fx.p.subject = blob;
	build_ok(&fx, &h);
	for (const char *l = fx.r.raw; l < h.body - 2; l = strstr(l, "\r\n") + 2)
		ck_assert_uint_le((size_t)(strstr(l, "\r\n") - l), 78);
	dec = message_decode_2047(hval(&h, "Subject"), strlen(hval(&h, "Subject")));
	ck_assert_uint_eq(strlen(dec), 4 + REPLY_SUBJECT_MAX);	/* "Re: " + the kept part */
	ck_assert_int_eq(strncmp(dec, "Re: xxxx", 8), 0);
	free(dec);
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* A body line past 998 octets forces quoted-printable with short lines. */
START_TEST(test_long_body_line_qp)
{
	char msg[1501];
	struct fixture fx;
	struct hblock h;

	memset(msg, 'y', 1500);
	msg[1500] = '\0';
	fixture_init(&fx);
	findings_release(&fx.f);
	findings_add(&fx.f, "COMMIT_MESSAGE", SEV_WARNING, NULL, "checkpatch", "%s", msg);
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "Content-Transfer-Encoding"), "quoted-printable");
	for (const char *l = h.body; *l; l = strstr(l, "\r\n") + 2) {
		ck_assert_uint_le((size_t)(strstr(l, "\r\n") - l), 76);
		if (!strstr(l, "\r\n") || !strstr(l, "\r\n")[2])
			break;
	}
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* Wrapping never starts a line of our prose with a trailer-shaped word:
 * "   " + 60 x + " add a" fills 69 columns, so "Signed-off-by:" would open
 * the next line; "a" goes down with it. */
START_TEST(test_wrap_avoids_trailer_lines)
{
	char msg[128];
	struct fixture fx;
	struct hblock h;

	memset(msg, 'x', 60);
	strcpy(msg + 60, " add a Signed-off-by: line");
	fixture_init(&fx);
	findings_release(&fx.f);
	findings_add(&fx.f, "MISSING_SIGN_OFF", SEV_ERROR, NULL, "doc", "%s", msg);
	build_ok(&fx, &h);
	ck_assert_ptr_nonnull(strstr(h.body, "x add\r\n   a Signed-off-by: line\r\n"));
	ck_assert_ptr_null(strstr(h.body, "\n   Signed-off-by:"));
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_references_trimmed)
{
	static char ids[30][32];
	struct fixture fx;
	struct hblock h;
	char want[2048] = "<r0@example.org>";

	fixture_init(&fx);
	for (int i = 0; i < 30; i++) {
		snprintf(ids[i], sizeof(ids[i]), "r%d@example.org", i);
		fx.refs[i] = ids[i];
	}
	fx.p.nreferences = 30;
	/* 31 IDs with the parent: the first, then the last 19 (r12..r29, p1). */
	for (int i = 12; i < 30; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), " <r%d@example.org>", i);
	strcat(want, " <p1@example.org>");
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "References"), want);
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_many_findings_counted)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	findings_release(&fx.f);
	for (int i = 0; i < REPLY_MAX_FINDINGS + 5; i++)
		findings_add(&fx.f, i % 2 ? "BAD_SIGN_OFF" : "GIT_COMMIT_ID", SEV_ERROR, NULL, "doc",
			     "finding %d", i);
	build_ok(&fx, &h);
	ck_assert_uint_eq(fx.r.nfindings, REPLY_MAX_FINDINGS + 5);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n30. BAD_SIGN_OFF (error):\r\n"));
	ck_assert_ptr_null(strstr(h.body, "\r\n31. "));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n... and 5 more;"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\nand found 35 things to look at:\r\n"));
	ck_assert_str_eq(hval(&h, "X-Tagbot-Rules"), "GIT_COMMIT_ID, BAD_SIGN_OFF");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* A custom rule is not in the manual: its See: line is its admin's doc
 * alone, and without a doc there is none. */
START_TEST(test_see_custom_rule)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	findings_release(&fx.f);
	findings_add(&fx.f, "NO_INTERNAL_LINK", SEV_ERROR, NULL, "Example Corp guide, part 3",
		     "Internal URLs are not reachable.");
	findings_add(&fx.f, "NO_CORP_TAG", SEV_ERROR, NULL, "", "No Corp-Id: tags.");
	build_ok(&fx, &h);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n   See: Example Corp guide, part 3\r\n\r\n2. "));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n   No Corp-Id: tags.\r\n\r\n"));
	ck_assert_ptr_null(strstr(h.body, "tagbot-rules(7)"));
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* The same finding at two lines (a pasted paragraph twice) is one item
 * naming both lines; another quoted line of the same rule is another, and
 * so is the same line where the finding says something else (a number in
 * it differs): one item's text is true for every line it names. */
START_TEST(test_same_finding_once)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	findings_add(&fx.f, "BAD_FIXES_TAG", SEV_WARNING,
		     &(struct line){ "Fixes:  ABC123 (\"foo\")", 22, 14 }, "doc",
		     "fixes: needs 12 or more hex digits of the commit  and its subject");
	findings_add(&fx.f, "BAD_FIXES_TAG", SEV_WARNING,
		     &(struct line){ "Fixes: abc123 (\"bar\")", 21, 20 }, "doc", "other");
	findings_add(&fx.f, "BAD_FIXES_TAG", SEV_WARNING,
		     &(struct line){ "Fixes: abc123 (\"foo\")", 21, 30 }, "doc",
		     "Fixes: needs 13 or more hex digits of the commit and its subject");
	build_ok(&fx, &h);
	ck_assert_uint_eq(fx.r.nfindings, 3);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\nand found 3 things to look at:\r\n\r\n"
					  "1. BAD_FIXES_TAG (warning), lines 12, 14:\r\n"
					  "\r\n| Fixes: abc123 (\"foo\")\r\n"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n2. BAD_FIXES_TAG (warning), line 20:\r\n"
					  "\r\n| Fixes: abc123 (\"bar\")\r\n"));
	ck_assert_ptr_nonnull(strstr(h.body, "\r\n3. BAD_FIXES_TAG (warning), line 30:\r\n"
					  "\r\n| Fixes: abc123 (\"foo\")\r\n\r\n"
					  "   Fixes: needs 13 or more"));
	ck_assert_ptr_null(strstr(h.body, "4. "));
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* What makes two findings one: the rule, and the quoted line with white
 * space, case and ids (commit ids, numbers) normalised; a
 * finding without a quoted line by what it says; a rule told per person
 * whatever it points at. */
START_TEST(test_finding_key)
{
	static const struct {
		const char *rule, *text, *message, *key;
	} cases[] = {
		{ "BAD_FIXES_TAG", "  Fixes:\t1234567890AB  (\"leds: Fix it\") ", "m",
		  "fixes: # (\"leds: fix it\")" },
		{ "BAD_FIXES_TAG", "Fixes: deadbeef0 (x)", "m", "fixes: # (x)" },
		{ "BAD_FIXES_TAG", "Fixes: abcdef (x)", "m", "fixes: abcdef (x)" },	/* a word */
		{ "COMMIT_LOG_VERSIONING", "v12: rebased on 6.15-rc1", "m",
		  "v#: rebased on #.#-rc#" },
		{ "LINK_TO_SELF", "Link: https://lore.kernel.org/r/20250101.1-1-A@x.org", "m",
		  "link: https://lore.kernel.org/r/#.#-#-a@x.org" },
		{ "BAD_REPORTED_BY_LINK", "Reported-by: Ann <Ann2@x.org>", "m",
		  "reported-by: ann <ann#@x.org>" },
		{ "BAD_SIGN_OFF", "", "Add  a Sign-off 2", "add a sign-off 2" },
		{ "MISSING_SIGN_OFF", "", "Add a sign-off.", "" },
		{ "FROM_SIGN_OFF_MISMATCH", "Signed-off-by: A <a@x.org>", "m", "" },
		{ "BAD_FIXES_TAG", "<not an id>", "m", "<not an id>" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct finding f = { .rule = cases[i].rule, .severity = SEV_WARNING, .line = 1,
				     .text = (char *)cases[i].text,
				     .message = (char *)cases[i].message };
		char *k = finding_key(&f);

		ck_assert_msg(!strcmp(k, cases[i].key), "case %zu: \"%s\"", i, k);
		free(k);
	}
}
END_TEST

/* A patch sent as an attachment: the reply names the file, not the
 * mail's subject, which may say anything. */
START_TEST(test_attachment_named)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	add_hdr(&fx, "Subject", "patch for the LED driver, see attachment");
	fx.m.text_is_attachment = true;
	fx.m.text_name = "0001-leds-fix-foo.patch";
	build_ok(&fx, &h);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\ntagbot checked the tags of the patch you attached\r\n"
					  "\r\n    0001-leds-fix-foo.patch\r\n"
					  "\r\nand found 1 thing to look at:\r\n"));
	ck_assert_ptr_null(strstr(h.body, "see attachment"));
	ck_assert_ptr_null(strstr(h.body, "[PATCH v2 1/3]"));
	ck_assert_str_eq(hval(&h, "Subject"), "Re: patch for the LED driver, see attachment");
	hblock_free(&h);
	reply_release(&fx.r);

	/* No file name given: the attachment is still what was checked. */
	fx.m.text_name = "";
	build_ok(&fx, &h);
	ck_assert_ptr_nonnull(strstr(h.body, "\r\ntagbot checked the tags of the patch attached to "
					  "your mail\r\nand found 1 thing to look at:\r\n"));
	ck_assert_ptr_null(strstr(h.body, "see attachment"));
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_footer_and_reply_to)
{
	struct fixture fx;
	struct hblock h;
	const char *foot;

	fixture_init(&fx);
	fx.s.footer = "Questions? Mail admin@example.org\nThanks.\r";
	fx.s.reply_to = "admin@example.org";
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "Reply-To"), "<admin@example.org>");
	foot = strstr(h.body, "\r\n-- \r\n");
	ck_assert_ptr_nonnull(foot);
	ck_assert_str_eq(foot, "\r\n-- \r\nQuestions? Mail admin@example.org\r\nThanks.\r\n");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_failures)
{
	struct fixture fx;
	struct err e;

	fixture_init(&fx);
	fx.s.min_severity = SEV_ERROR;	/* only a warning and a check here */
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e), -1);
	ck_assert_int_eq(e.cls, ERR_FINAL);
	ck_assert_ptr_null(fx.r.raw);
	fx.s.min_severity = SEV_WARNING;
	fx.s.from = "tagbot <not an address>";
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e), -1);
	fx.s.from = "tagbot <tagbot@example.org>";
	fx.p.author.email = "jane";
	fx.p.sender.email = "devnull+jane@kernel.org";
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e), -1);
	ck_assert_msg(strstr(e.msg, "p1@example.org") != NULL, "%s", e.msg);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_unique_ids)
{
	struct fixture fx;
	char *first;
	struct err e;

	fixture_init(&fx);
	fx.s.msgid_domain = "bot.example.net";
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e), 0);
	first = strdup(fx.r.msgid);
	reply_release(&fx.r);
	ck_assert_int_eq(reply_build(&fx.r, &fx.p, &fx.f, &fx.s, NOW, &e), 0);
	ck_assert_str_ne(first, fx.r.msgid);
	ck_assert_str_eq(strchr(fx.r.msgid, '@'), "@bot.example.net");
	free(first);
	fixture_release(&fx);
}
END_TEST

/* A real B4 Relay mail (trimmed from the linux-leds corpus): the reply
 * goes to the in-body author, never to devnull+...@kernel.org, and with
 * "all" Cc's the list and every To/Cc of the patch once. */
START_TEST(test_parsed_b4_relay_all)
{
	struct reply_settings s;
	struct findings f;
	struct message m;
	struct patch *p;
	struct reply r;
	struct hblock h;
	size_t np, len;
	char *raw = th_read_data("reply/reply-b4-relay-to-all.eml", &len);
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, raw, len, &e) == 0, "%s", e.msg);
	patch_parse(&m, &p, &np);
	ck_assert_uint_eq(np, 1);
	findings_init(&f);
	findings_add(&f, "LINK_TO_SELF", SEV_WARNING, NULL, "seed 001", "message");
	reply_settings_init(&s);
	s.from = "tagbot <tagbot@example.org>";
	s.to = REPLY_TO_ALL;
	s.list_address = "linux-leds@vger.kernel.org";
	reply_init(&r);
	ck_assert_msg(reply_build(&r, &p[0], &f, &s, NOW, &e) == 0, "%s", e.msg);
	parse_block(r.raw, r.len, &h);
	ck_assert_str_eq(hval(&h, "To"), "=?UTF-8?Q?J=2E_Neusch=C3=A4fer?= <j.ne@posteo.net>");
	ck_assert_str_eq(hval(&h, "Subject"),
			 "Re: [PATCH] dt-bindings: leds: Allow differently named multicolor leds");
	ck_assert_str_eq(hval(&h, "In-Reply-To"), "<20250209-multi-led-v1-1-5aebccbd2db7@posteo.net>");
	ck_assert_str_eq(hval(&h, "References"), "<20250209-multi-led-v1-1-5aebccbd2db7@posteo.net>");
	ck_assert_str_eq(rcpts(&r), "j.ne@posteo.net,linux-leds@vger.kernel.org,pavel@ucw.cz,"
			 "lee@kernel.org,robh@kernel.org,krzk+dt@kernel.org,conor+dt@kernel.org,"
			 "afd@ti.com,devicetree@vger.kernel.org,linux-kernel@vger.kernel.org");
	ck_assert_int_eq(strncmp(h.body, "Hello J. Neusch=C3=A4fer,\r\n", 27), 0);
	reply_release(&r);
	hblock_free(&h);
	findings_release(&f);
	patches_free(p, np);
	message_release(&m);
	free(raw);
}
END_TEST

/* --- hostile input ---------------------------------------------------- */

#define EVIL "\r\nBcc: evil@attacker.example"

/*
 * Each case puts CR LF (or a lone CR or LF) into one value taken from the
 * patch; the reply must keep exactly the usual header names and the one
 * recipient, and carry no line starting with "Bcc".
 */
START_TEST(test_injection_fields)
{
	static const struct {
		const char *field, *value, *names;
	} cases[] = {
		{ "subject", "[PATCH] x" EVIL, base_names },
		{ "subject", "[PATCH] x\nBcc: evil@attacker.example", base_names },
		{ "subject", "[PATCH] x\rBcc: evil@attacker.example", base_names },
		{ "name", "Eve" EVIL, base_names },
		{ "name", "Eve\n To: evil@attacker.example", base_names },
		{ "email", "jane@example.org" EVIL, base_names },
		{ "msgid", "p1@example.org" EVIL,
		  "From,To,Subject,Date,Message-ID,References,Auto-Submitted,X-Mailer,"
		  "X-Tagbot-Rules,MIME-Version,Content-Type,Content-Transfer-Encoding" },
		{ "ref", "c0@example.org" EVIL, base_names },
		/* A rule ID that is not one word is left out of X-Tagbot-Rules. */
		{ "rule", "BAD_FIXES_TAG" EVIL,
		  "From,To,Subject,Date,Message-ID,In-Reply-To,References,Auto-Submitted,X-Mailer,"
		  "MIME-Version,Content-Type,Content-Transfer-Encoding" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;
		struct hblock h;
		const char *f = cases[i].field;
		char *v = (char *)cases[i].value;

		fixture_init(&fx);
		fx.p.author_from_body = true;
		if (!strcmp(f, "subject"))
			fx.p.subject = v;
		else if (!strcmp(f, "name"))
			fx.p.sender.name = v;
		else if (!strcmp(f, "email"))
			fx.p.author.email = v;
		else if (!strcmp(f, "msgid"))
			fx.p.message_id = v;
		else if (!strcmp(f, "ref"))
			fx.refs[0] = v;
		else
			fx.f.v[0].rule = v;
		build_ok(&fx, &h);
		ck_assert_msg(!strcmp(hnames(&h), cases[i].names), "case %zu: %s", i, hnames(&h));
		/* A bad author address is not Cc'd; never the attacker. */
		ck_assert_msg(!strcmp(rcpts(&fx.r), "jane@example.org"), "case %zu: %s", i,
			      rcpts(&fx.r));
		ck_assert_ptr_null(strstr(fx.r.raw, "\r\nBcc"));
		hblock_free(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* Message-IDs and References: only strictly valid IDs are copied. */
START_TEST(test_references_filtered)
{
	struct fixture fx;
	struct hblock h;

	fixture_init(&fx);
	fx.refs[0] = "ok@example.org";
	fx.refs[1] = "bad id@example.org";
	fx.refs[2] = "q\"uote@example.org";
	fx.refs[3] = "a@b" EVIL;
	fx.refs[4] = "=?utf-8?q?a=0D=0ABcc:_x?=@example.org";
	fx.refs[5] = "two@at@example.org";
	fx.refs[6] = "ok2@example.org";
	fx.p.nreferences = 7;
	build_ok(&fx, &h);
	ck_assert_str_eq(hval(&h, "References"), "<ok@example.org> <ok2@example.org> <p1@example.org>");
	hblock_free(&h);
	fixture_release(&fx);
}
END_TEST

/* The same attacks as a real mail through message_parse and patch_parse,
 * RFC 2047-encoded CR LF included, with the widest recipient policy. */
static const char hostile_mail[] =
	"From: =?utf-8?q?Eve=0D=0ABcc:_x@evil.example?= <eve@example.org>\r\n"
	"To: =?utf-8?q?Pa=0D=0ACc:_y@evil.example?= <pavel@kernel.org>,\r\n"
	" linux-leds@vger.kernel.org\r\n"
	"Cc: \"x\r\n"
	" Bcc: z@evil.example\" <lee@kernel.org>, =?utf-8?q?=0D=0A?=@evil.example\r\n"
	"Subject: =?utf-8?q?[PATCH]_leds:_a=0D=0ABcc:_x@evil.example?=\r\n"
	"Message-ID: <=?utf-8?q?a=0D=0ABcc:_x?=@example.org>\r\n"
	"References: <ok@example.org> <=?utf-8?q?a=0D=0ABcc:_x@evil.example?=>\r\n"
	" <bad id@example.org>\r\n"
	"X-Mailing-List: linux-leds@vger.kernel.org\r\n"
	"\r\n"
	"Add a thing.\r\n"
	"\r\n"
	"Signed-off-by: Eve <eve@example.org>\r\n"
	"---\r\n"
	"diff --git a/x b/x\r\n";

START_TEST(test_injection_parsed_mail)
{
	struct reply_settings s;
	struct findings f;
	struct message m;
	struct patch *p;
	struct reply r;
	struct hblock h;
	size_t np;
	struct err e;

	message_init(&m);
	ck_assert_msg(message_parse(&m, hostile_mail, strlen(hostile_mail), &e) == 0, "%s", e.msg);
	patch_parse(&m, &p, &np);
	ck_assert_uint_ge(np, 1);
	findings_init(&f);
	findings_add(&f, "BAD_FIXES_TAG", SEV_WARNING, NULL, "doc", "message");
	reply_settings_init(&s);
	s.from = "tagbot <tagbot@example.org>";
	s.to = REPLY_TO_ALL;
	s.list_address = "linux-leds@vger.kernel.org";
	reply_init(&r);
	ck_assert_msg(reply_build(&r, &p[0], &f, &s, NOW, &e) == 0, "%s", e.msg);
	parse_block(r.raw, r.len, &h);
	/* The Message-ID holds "=?": dropped, so no In-Reply-To. */
	ck_assert_str_eq(hnames(&h),
			 "From,To,Cc,Subject,Date,Message-ID,References,Auto-Submitted,X-Mailer,"
			 "X-Tagbot-Rules,MIME-Version,Content-Type,Content-Transfer-Encoding");
	ck_assert_str_eq(rcpts(&r),
			 "eve@example.org,linux-leds@vger.kernel.org,pavel@kernel.org,lee@kernel.org");
	ck_assert_str_eq(hval(&h, "Cc"), "linux-leds@vger.kernel.org, pavel@kernel.org, lee@kernel.org");
	ck_assert_str_eq(hval(&h, "References"), "<ok@example.org>");
	ck_assert_ptr_null(strstr(r.raw, "evil.example>"));
	for (size_t i = 0; i < r.nrcpt; i++)
		ck_assert_ptr_null(strstr(r.rcpt[i], "evil"));
	reply_release(&r);
	hblock_free(&h);
	findings_release(&f);
	patches_free(p, np);
	message_release(&m);
}
END_TEST

/*
 * A From: that is not one well-formed mailbox gives the patch the author
 * git am would record, read as git mailinfo reads it; that address only
 * names someone in a finding.  A header From: like that leaves nobody to
 * answer, and an in-body one is never Cc'd, whatever the policy.
 */
START_TEST(test_malformed_from_not_mailed)
{
	static const char *const mails[] = {
		"From: \"Jane Doe <jane@example.org>\n"
		"To: linux-leds@vger.kernel.org\n"
		"Subject: [PATCH] leds: x\n"
		"\n"
		"Desc.\n\nSigned-off-by: John Roe <john@example.com>\n---\n"
		"diff --git a/x b/x\n",
		"From: Sender <sender@example.net>\n"
		"To: linux-leds@vger.kernel.org\n"
		"Subject: [PATCH] leds: x\n"
		"\n"
		"From: Jane (JD Doe <jane@example.org>\n"
		"\n"
		"Desc.\n\nSigned-off-by: John Roe <john@example.com>\n---\n"
		"diff --git a/x b/x\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(mails); i++) {
		struct reply_settings s;
		struct findings f;
		struct message m;
		struct patch *p;
		struct reply r;
		size_t np;
		struct err e;
		int rc;

		message_init(&m);
		ck_assert_msg(message_parse(&m, mails[i], strlen(mails[i]), &e) == 0, "%s", e.msg);
		patch_parse(&m, &p, &np);
		ck_assert_str_eq(p[0].author.email, "jane@example.org");
		findings_init(&f);
		findings_add(&f, "BAD_FIXES_TAG", SEV_WARNING, NULL, "doc", "message");
		reply_settings_init(&s);
		s.from = "tagbot <tagbot@example.org>";
		s.to = REPLY_TO_AUTHOR;
		s.cc_author = true;
		reply_init(&r);
		rc = reply_build(&r, &p[0], &f, &s, NOW, &e);
		if (i == 0) {
			ck_assert_int_eq(rc, -1);
			ck_assert_msg(strstr(e.msg, "nobody to reply to"), "%s", e.msg);
		} else {
			ck_assert_msg(rc == 0, "%s", e.msg);
			ck_assert_str_eq(rcpts(&r), "sender@example.net");
		}
		ck_assert_ptr_null(strstr(r.raw ? r.raw : "", "Cc: Jane"));
		reply_release(&r);
		findings_release(&f);
		patches_free(p, np);
		message_release(&m);
	}
}
END_TEST

/* --- the checks themselves --------------------------------------------- */

START_TEST(test_addr_valid)
{
	static const struct {
		const char *a;
		bool ok;
	} cases[] = {
		{ "jane@example.org", true },
		{ "jane.doe+leds@mail.example.org", true },
		{ "o'brien@example.ie", true },
		{ "root@localhost", true },
		{ "jane@example.org\r\nBcc: x@y", false },
		{ "jane doe@example.org", false },
		{ "\"jane\"@example.org", false },
		{ "jane@exa mple.org", false },
		{ "jane@-example.org", false },
		{ "jane@example..org", false },
		{ "jane..doe@example.org", false },
		{ ".jane@example.org", false },
		{ "jane.@example.org", false },
		{ "jane@", false },
		{ "@example.org", false },
		{ "jane", false },
		{ "j\xc3\xa9@example.org", false },
		{ "jane@[127.0.0.1]", false },
		{ "a<b>@example.org", false },
		{ "a,b@example.org", false },
		{ "=?utf-8?q?=0D=0A?=@example.org", false },
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(address_header_safe(cases[i].a) == cases[i].ok, "case %zu: %s", i, cases[i].a);
	ck_assert(!address_header_safe(NULL));
}
END_TEST

START_TEST(test_msgid_valid)
{
	static const struct {
		const char *id;
		bool ok;
	} cases[] = {
		{ "20250101120000.1234-1-jane@example.org", true },
		{ "CAHk-=wg+abc/def@mail.gmail.com", true },
		{ "a@[127.0.0.1]", true },
		{ "b4-sample-v2-1-0123abcd@kernel.org", true },
		{ "no-at-sign", false },
		{ "two@at@example.org", false },
		{ "@example.org", false },
		{ "a@", false },
		{ "a b@example.org", false },
		{ "a\"b@example.org", false },
		{ "<a@example.org>", false },
		{ "a@example.org\r\nBcc: x@y", false },
		{ "a\\b@example.org", false },
		{ "=?utf-8?q?a?=@example.org", false },
		{ "a(b)@example.org", false },
		{ "\xc3\xa9@example.org", false },
		{ "", false },
	};
	char big[MSGID_HEADER_MAX + 2];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(msgid_header_safe(cases[i].id) == cases[i].ok, "case %zu: %s", i,
			      cases[i].id);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[5] = '@';
	ck_assert(!msgid_header_safe(big));
	big[MSGID_HEADER_MAX] = '\0';
	ck_assert(msgid_header_safe(big));
}
END_TEST

START_TEST(test_clean_text)
{
	static const struct {
		const char *in;
		size_t max;
		const char *out;
	} cases[] = {
		{ "plain", 100, "plain" },
		{ "  a \t b\r\n c  ", 100, "a b c" },
		{ "x\x01y\x7fz", 100, "x y z" },
		{ "C1\xc2\x85next", 100, "C1 next" },		/* U+0085 NEL */
		{ "ls\xe2\x80\xa8sep", 100, "ls sep" },		/* U+2028 */
		{ "bad\xff byte", 100, "bad\xef\xbf\xbd byte" },
		{ "over\xc0\xafl", 100, "over\xef\xbf\xbd\xef\xbf\xbdl" },	/* overlong '/' */
		{ "J\xc3\xa9r\xc3\xb4me", 100, "J\xc3\xa9r\xc3\xb4me" },
		{ "J\xc3\xa9r\xc3\xb4me", 2, "J" },		/* never half a character */
		{ "abcdef", 3, "abc" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = utf8_clean_line(cases[i].in, strlen(cases[i].in), cases[i].max);

		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: [%s]", i, got);
		free(got);
	}
}
END_TEST

START_TEST(test_reply_to_parse)
{
	enum reply_to t;

	ck_assert_int_eq(reply_to_parse("author", &t), 0);
	ck_assert_int_eq(t, REPLY_TO_AUTHOR);
	ck_assert_int_eq(reply_to_parse("author+list", &t), 0);
	ck_assert_int_eq(t, REPLY_TO_AUTHOR_LIST);
	ck_assert_int_eq(reply_to_parse("ALL", &t), 0);
	ck_assert_int_eq(t, REPLY_TO_ALL);
	ck_assert_int_eq(reply_to_parse("list", &t), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reply");
	TCase *tc = tcase_create("build");
	TCase *sec = tcase_create("hostile");
	TCase *chk = tcase_create("checks");

	tcase_add_test(tc, test_basic_reply);
	tcase_add_test(tc, test_see_custom_rule);
	tcase_add_test(tc, test_same_finding_once);
	tcase_add_test(tc, test_finding_key);
	tcase_add_test(tc, test_subject_re);
	tcase_add_test(tc, test_subject_from_header);
	tcase_add_test(tc, test_recipients_policy);
	tcase_add_test(tc, test_sender_only_no_author_cc);
	tcase_add_test(tc, test_list_address_configured);
	tcase_add_test(tc, test_bot_not_cced);
	tcase_add_test(tc, test_relay_author);
	tcase_add_test(tc, test_provider_original_not_mailed);
	tcase_add_test(tc, test_never_answered);
	tcase_add_test(tc, test_via_rewrite);
	tcase_add_test(tc, test_non_ascii);
	tcase_add_test(tc, test_display_name_forms);
	tcase_add_test(tc, test_folding);
	tcase_add_test(tc, test_long_body_line_qp);
	tcase_add_test(tc, test_wrap_avoids_trailer_lines);
	tcase_add_test(tc, test_references_trimmed);
	tcase_add_test(tc, test_many_findings_counted);
	tcase_add_test(tc, test_attachment_named);
	tcase_add_test(tc, test_footer_and_reply_to);
	tcase_add_test(tc, test_failures);
	tcase_add_test(tc, test_unique_ids);
	tcase_add_test(tc, test_parsed_b4_relay_all);
	tcase_add_test(sec, test_injection_fields);
	tcase_add_test(sec, test_references_filtered);
	tcase_add_test(sec, test_injection_parsed_mail);
	tcase_add_test(sec, test_malformed_from_not_mailed);
	tcase_add_test(chk, test_addr_valid);
	tcase_add_test(chk, test_msgid_valid);
	tcase_add_test(chk, test_clean_text);
	tcase_add_test(chk, test_reply_to_parse);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sec);
	suite_add_tcase(s, chk);
	return th_run_suite(s);
}
