/*
 * recipients.c - whom a reply goes to (recipients.h).
 */
#include "autoconf.h"
#include "reply/recipients.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "mail/message.h"
#include "mail/address.h"

/* Relays (B4's devnull+...@kernel.org) take no mail. */
static bool is_relay(const char *addr)
{
	return !strncasecmp(addr, "devnull+", 8) || !strncasecmp(addr, "devnull@", 8);
}

static bool is_bot(const struct reply_settings *s, const char *addr)
{
	struct person p;
	bool same = false;

	if (s->from && address_parse(&p, s->from, strlen(s->from), NULL) == 0)
		same = address_same(p.email, addr);
	person_release(&p);
	for (size_t i = 0; !same && i < s->nbot_addresses; i++)
		same = address_same(s->bot_addresses[i], addr);
	return same;
}

static bool is_configured_list(const struct reply_settings *s, const char *addr)
{
	if (s->list_address && !strcasecmp(s->list_address, addr))
		return true;
	for (size_t i = 0; i < s->nlist_addresses; i++)
		if (!strcasecmp(s->list_addresses[i], addr))
			return true;
	return false;
}

/* List-Post's mailto address equals addr. */
static bool is_list_post(const char *v, const char *addr)
{
	const char *m = v ? strcasestr(v, "mailto:") : NULL;
	size_t n;

	if (!m)
		return false;
	m += 7;
	n = strcspn(m, ">?, \t");
	return n == strlen(addr) && !strncasecmp(m, addr, n);
}

/* A List-Id "<linux-leds.vger.kernel.org>" names addr when its first '.'
 * read as '@' gives addr (vger, infradead, lists.linux.dev). */
static bool is_list_id(const char *v, const char *addr)
{
	const char *lt = v ? strrchr(v, '<') : NULL, *at = strchr(addr, '@');
	size_t local = at ? (size_t)(at - addr) : 0;

	if (lt)
		v = lt + 1;
	if (!v || !at || strncasecmp(v, addr, local) || v[local] != '.')
		return false;
	v += local + 1;
	return !strncasecmp(v, at + 1, strlen(at + 1)) &&
	       (v[strlen(at + 1)] == '>' || v[strlen(at + 1)] == '\0');
}

/* addr is the address of a list the mail names in any List-Post/List-Id. */
static bool is_mail_list(const struct patch *p, const char *addr)
{
	const struct message *m = p->msg;

	for (size_t i = 0; m && i < m->nheaders; i++) {
		const struct header *h = &m->headers[i];

		if ((!strcasecmp(h->name, "List-Post") && is_list_post(message_header_raw_of(m, h), addr)) ||
		    (!strcasecmp(h->name, "List-Id") && is_list_id(message_header_raw_of(m, h), addr)))
			return true;
	}
	return false;
}

bool recipients_may_mail(const struct patch *p, const struct reply_settings *s, const char *addr)
{
	return addr && address_header_safe(addr) && !is_relay(addr) && !is_bot(s, addr) &&
	       !is_configured_list(s, addr) && !is_mail_list(p, addr);
}

/* The original sender behind a relay or a list's rewrite: X-Original-From:,
 * else Reply-To:, each one well-formed mailbox.  -1 when neither. */
static int original_sender(const struct patch *p, struct person *out)
{
	static const char *const hdrs[] = { "X-Original-From", "Reply-To" };

	for (size_t i = 0; p->msg && i < ARRAY_SIZE(hdrs); i++) {
		const char *v = message_header_raw(p->msg, hdrs[i]);

		if (v && address_parse_mailbox(out, v, strlen(v)) == 0)
			return 0;
		person_release(out);
	}
	return -1;
}

static bool via_name(const char *name)
{
	return name && strstr(name, " via ");
}

static void copy_person(struct person *dst, const struct person *src)
{
	dst->name = xstrdup(src->name ? src->name : "");
	dst->email = xstrdup(src->email ? src->email : "");
}

static int nobody(struct recipients *r, const char *why)
{
	person_release(&r->to);
	r->to.name = xstrdup("");
	r->to.email = xstrdup("");
	r->why = why;
	return -1;
}

static int find_submitter(struct recipients *r, const struct patch *p,
			  const struct reply_settings *s)
{
	const struct person *from = &p->sender;

	if (!from->email || !*from->email)
		return nobody(r, "the From: header holds no well-formed address");
	if (is_relay(from->email)) {
		if (original_sender(p, &r->to) < 0)
			return nobody(r, "a relay's From: without X-Original-From: or Reply-To:");
	} else if (via_name(from->name) && is_configured_list(s, from->email)) {
		if (original_sender(p, &r->to) < 0)
			return nobody(r, "the list's rewritten From: without X-Original-From: "
				      "or Reply-To:");
	} else {
		copy_person(&r->to, from);
	}
	if (!recipients_may_mail(p, s, r->to.email))
		return nobody(r, "the submitter's address is a list's, a relay's, the bot's "
			      "or not a plain address");
	return 0;
}

int recipients_find(struct recipients *r, const struct patch *p, const struct reply_settings *s)
{
	memset(r, 0, sizeof(*r));
	r->of = p;
	r->author.name = xstrdup("");
	r->author.email = xstrdup("");
	if (find_submitter(r, p, s) < 0)
		return -1;
	/* An author read from a malformed From: is git's guess, not an address
	 * the mail gave: never mailed. */
	if (s->cc_author && p->author_from_body && !p->bad_from &&
	    !address_same(p->author.email, r->to.email) &&
	    recipients_may_mail(p, s, p->author.email)) {
		person_release(&r->author);
		copy_person(&r->author, &p->author);
	}
	if (s->to != REPLY_TO_AUTHOR && s->list_address && address_header_safe(s->list_address))
		r->list = s->list_address;
	return 0;
}

const struct recipients *recipients_of(const struct patch *p, const struct reply_settings *s,
				       struct recipients *own)
{
	if (s->who && s->who->of == p)
		return s->who;
	recipients_find(own, p, s);
	return own;
}

void recipients_release(struct recipients *r)
{
	person_release(&r->to);
	person_release(&r->author);
	r->list = NULL;
}
