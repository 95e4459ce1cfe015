#!/bin/sh
# Maintainer Cc mode through tagbot run, Maildir source and sink (no servers).
# Each step drops mails into the source and runs --once; the replies
# expected follow from the fixtures (tests/data/cc/cc-*.eml):
#   1. two patches by the normal path: cc-patch-reported-no-link (one
#      BAD_REPORTED_BY_LINK: a reply), cc-patch-clean (none)
#   2. a plain Cc from a non-maintainer to the patch answered in 1: answered
#      (a request answering the patch itself is answered even if the patch
#      was); a reply-all to that request, deeper in the thread: nothing
#      (answered before); a plain Cc (bot plus-addressed) to the clean patch:
#      "No tag problems found" To the sender, Cc the author, threaded under it
#   3. a maintainer's recheck + explain: the findings and the explanation;
#      the quoted "tagbot: quiet" and the one below "-- " are not commands
#      (commands need the receiving server's Authentication-Results: the
#      mails that should carry them get one on top, as mx.example.net would
#      write it after checking kernel.org's DKIM signature)
#   4. commands from a non-maintainer, another bot, the bot itself, a mail
#      not addressed to the bot, a patch nobody has: nothing; a maintainer's
#      commands without Authentication-Results, with a dkim=pass the sender
#      wrote below the server's fail, with a pass from another authserv-id,
#      or with a pass for another domain: nothing (skipped:cc-not-authenticated)
#   5. a patch only in cur/ (never listed by the source) found by a request,
#      answered; moved into new/ later: not answered again
#   6. quiet from a maintainer: then a v2 in that thread and a recheck in it
#      get nothing; the same request twice: one reply (at most once)
#   7. [list ID] enabled = no: a request from that list is not answered
#   8. max_per_author_per_hour = 1, a fresh inbox with the two patches of 1
#      and Lee's two requests (the clean one, then recheck + explain): the
#      first is answered, the second, to the same maintainer within the
#      hour, is held back (logged, skipped:rate-limit-author)
#   9. no trusted_authserv_id: a maintainer's authenticated-looking commands
#      are refused, the reason logged once for the run, not per mail
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed"; exit 77; }

W=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-cc.XXXXXX")
trap 'rm -rf "$W"' EXIT
D=$TAGBOT_TEST_DATA
IN=$W/inbox
OUT=$W/out
mkdir -p "$IN/new" "$IN/cur" "$IN/tmp"

cat >"$W/cc.ini" <<INI
[tagbot]
state = state.db
log_level = debug

[source]
type = maildir
path = inbox

[sink]
type = maildir
path = out

[reply]
from = tagbot <tagbot@example.org>
maintainers = lee@kernel.org, *@linaro.org
trusted_authserv_id = mx.example.net
max_per_author_per_hour = 0
max_per_minute = 0
INI

cond() { eval "$1"; }
run_once() { "$TAGBOT" run --once -c "$W/cc.ini" 2>>"$W/log"; }
put() { cp "$D/$1" "$IN/new/$2"; }
# authed FILE NAME [RESULTS [DIR]]: FILE as mx.example.net delivers it after
# checking its DKIM signature: its Authentication-Results on top.
authed() {
	{ printf 'Authentication-Results: mx.example.net;\n\t%s\n' \
		"${3:-dkim=pass (2048-bit key) header.d=kernel.org header.i=@kernel.org}"
	  cat "$D/$1"; } >"${4:-$IN}/new/$2"
}
count_files() { ls "$OUT/new" 2>/dev/null | grep -c .; }

# reply IN_REPLY_TO CHECKS...: exactly one reply in OUT answers the mail
# IN_REPLY_TO and each check holds: To=..., Cc=..., Cc!, refs=A,B,
# body~TEXT (in the body), body!TEXT (not in it).
reply() {
	python3 - "$OUT" "$@" <<'PY'
import email, email.policy, glob, os, sys
out, want, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
found = []
for f in glob.glob(os.path.join(out, "new", "*")):
    m = email.message_from_binary_file(open(f, "rb"), policy=email.policy.default)
    if str(m["In-Reply-To"] or "").strip("<>") == want:
        found.append(m)
if len(found) != 1:
    print("# %d replies to <%s>" % (len(found), want))
    sys.exit(1)
m = found[0]
body = m.get_content()
bad = []
for c in checks:
    if c.startswith("body~"):
        ok = c[5:] in body
    elif c.startswith("body!"):
        ok = c[5:] not in body
    elif c == "Cc!":
        ok = m["Cc"] is None
    elif c.startswith("refs="):
        ok = str(m["References"]).split() == ["<%s>" % r for r in c[5:].split(",")]
    else:
        k, v = c.split("=", 1)
        ok = str(m[k]) == v
    if not ok:
        bad.append(c)
for b in bad:
    print("# failed: %s" % b)
if bad:
    print(body)
sys.exit(1 if bad else 0)
PY
}

# nreplies MSGID: how many replies in OUT answer MSGID.
nreplies() {
	python3 - "${OUT}" "$1" <<'PY'
import email, glob, os, sys
n = 0
for f in glob.glob(os.path.join(sys.argv[1], "new", "*")):
    m = email.message_from_binary_file(open(f, "rb"))
    n += str(m["In-Reply-To"] or "").strip("<>") == sys.argv[2]
print(n)
PY
}

P1=20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de
P2=20250401085002.492904-1-tobias.junghans@inhub.de

# --- 1. the normal path ------------------------------------------------------
put cc/cc-patch-reported-no-link.eml 1700000001.p1.host
put cc/cc-patch-clean.eml 1700000002.p2.host
run_once
expect "1: the patch with a finding gets the normal reply, the clean one none" \
	cond '[ "$(count_files)" = 1 ] && reply "$P1" "To=Michael Tretter <m.tretter@pengutronix.de>"'

# --- 2. plain Cc -----------------------------------------------------------
put cc/cc-request-plain.eml 1700000003.r1.host
put cc/cc-request-clean.eml 1700000004.r2.host
# Michael answers Andy, to all: the bot stays in Cc, deeper in the thread.
sed -e "s/^Message-ID: .*/Message-ID: <20260305.reply-all@pengutronix.de>/" \
    -e "s/^From: .*/From: Michael Tretter <m.tretter@pengutronix.de>/" \
    -e "s/^In-Reply-To: .*/In-Reply-To: <aamOejvtN8H1zB0E@black.igk.intel.com>/" \
    -e "s/^References: .*/References: <$P1> <aamOejvtN8H1zB0E@black.igk.intel.com>/" \
    "$D/cc/cc-request-plain.eml" >"$IN/new/1700000004.r2b.host"
run_once
expect "2: a plain Cc to the patch answered in 1 is answered: its findings, to the sender" \
	reply aamOejvtN8H1zB0E@black.igk.intel.com \
	"To=Andy Shevchenko <andriy.shevchenko@intel.com>" "Cc=m.tretter@pengutronix.de" \
	"refs=$P1,aamOejvtN8H1zB0E@black.igk.intel.com" "body~BAD_REPORTED_BY_LINK"
expect "2: a reply-all deeper in the thread about that patch is not answered again" \
	cond '[ "$(count_files)" = 3 ] && [ "$(nreplies 20260305.reply-all@pengutronix.de)" = 0 ] &&
	      grep -q "20260305.reply-all@pengutronix.de.*was answered before" "$W/log"'
expect "2: a clean patch: \"No tag problems found\" to the sender, Cc the author, threaded" \
	reply 20250404151042.GC372032@google.com \
	"To=Lee Jones <lee@kernel.org>" "Cc=tobias.junghans@inhub.de" \
	"Subject=Re: [PATCH] leds: trigger: netdev: Match net in netdev_trig_notify()" \
	"refs=$P2,20250404151042.GC372032@google.com" \
	"Auto-Submitted=auto-generated" \
	"body~No tag problems found." "body~Match net in netdev_trig_notify()"

# --- 3. a maintainer's commands ------------------------------------------------
authed cc/cc-request-commands.eml 1700000005.r3.host
run_once
expect "3: recheck + explain: findings and the explanation, to the maintainer, Cc the author" \
	reply 20260206101500.GA1676312@google.com \
	"To=Lee Jones <lee@kernel.org>" "Cc=m.tretter@pengutronix.de" \
	"X-Tagbot-Rules=BAD_REPORTED_BY_LINK" "refs=$P1,20260206101500.GA1676312@google.com" \
	"body~1. BAD_REPORTED_BY_LINK (warning), line 10:" \
	"body~BAD_REPORTED_BY_LINK (warning here):" \
	"body~How to fix: add \"Closes: <URL of the report>\"" \
	"body!MISSING_SIGN_OFF" "body!No tag problems found"
expect "3: the quoted quiet was no command (not logged as quieted)" \
	cond '! grep -q "quieted thread" "$W/log"'

# --- 4. nothing for these ------------------------------------------------------
put cc/cc-request-non-maintainer-command.eml 1700000006.r4.host
put cc/cc-request-other-bot.eml 1700000007.r5.host
put cc/cc-request-from-bot.eml 1700000008.r6.host
put cc/cc-request-not-to-bot.eml 1700000009.r7.host
put cc/cc-request-no-parent.eml 1700000010.r8.host
# lee@'s commands again (recheck: it would be answered), under new IDs.
unauth() {	# unauth NAME MSGID [RESULTS]: no Authentication-Results, or these
	sed "s/^Message-Id: .*/Message-Id: <$2>/" "$D/cc/cc-request-commands.eml" >"$W/$2.eml"
	if [ -n "${3:-}" ]; then
		{ printf 'Authentication-Results: mx.example.net; %s\n' "$3"; cat "$W/$2.eml"; }
	else
		cat "$W/$2.eml"
	fi >"$IN/new/$1"
}
unauth 1700000010.u1.host 20260206.noauth@google.com
# The sender's own "pass" under what the server found: only the top one counts.
{ printf 'Authentication-Results: mx.example.net; dkim=fail header.d=kernel.org\n'
  printf 'Received: from evil.example by mx.example.net\n'
  printf 'Authentication-Results: mx.example.net; dkim=pass header.d=kernel.org\n'
  sed "s/^Message-Id: .*/Message-Id: <20260206.forged@google.com>/" "$D/cc/cc-request-commands.eml"
} >"$IN/new/1700000010.u2.host"
{ printf 'Authentication-Results: mx.evil.example; dkim=pass header.d=kernel.org\n'
  sed "s/^Message-Id: .*/Message-Id: <20260206.otherid@google.com>/" "$D/cc/cc-request-commands.eml"
} >"$IN/new/1700000010.u3.host"
unauth 1700000010.u4.host 20260206.otherdomain@google.com "dkim=pass header.d=evil.example"
run_once
expect "4: no reply to a non-maintainer's commands, a bot, the bot, a list reply, a lost patch" \
	[ "$(count_files)" = 4 ]
expect "4: nor to a maintainer's commands that are not authenticated" \
	cond '[ "$(nreplies 20260206.noauth@google.com)" = 0 ] &&
	      [ "$(nreplies 20260206.forged@google.com)" = 0 ] &&
	      [ "$(nreplies 20260206.otherid@google.com)" = 0 ] &&
	      [ "$(nreplies 20260206.otherdomain@google.com)" = 0 ]'
expect "4: why is logged: no Authentication-Results from mx.example.net, none with a pass" \
	cond 'grep -q "20260206.noauth@google.com.*commands from lee@kernel.org not authenticated: no Authentication-Results from mx.example.net with dkim=pass for kernel.org (no Authentication-Results from the trusted authserv-id)" "$W/log" &&
	      grep -q "20260206.forged@google.com.*not authenticated.*holds no aligned dkim=pass" "$W/log" &&
	      grep -q "20260206.otherid@google.com.*not authenticated.*(no Authentication-Results from the trusted" "$W/log" &&
	      grep -q "20260206.otherdomain@google.com.*not authenticated.*holds no aligned dkim=pass" "$W/log"'

expect "4: the non-maintainer's commands are logged" \
	grep -q "commands from andriy.shevchenko@intel.com ignored: not in \[reply\] maintainers" "$W/log"
expect "4: the lost patch is logged, not answered" \
	grep -q "20260207090000.GC1676312@google.com.*the patch it answers (<20260101000000.1-unknown@example.com>) was not found" "$W/log"

decisions() {
	python3 - "$W/state.db" <<'PY'
import sqlite3, sys
for k, d in sqlite3.connect(sys.argv[1]).execute("SELECT msgid, decision FROM messages ORDER BY msgid"):
    print(k, d)
PY
}
decisions >"$W/decisions"
expect "4: the decisions are recorded with their reasons" \
	cond 'grep -q "^aamOejvtN8H1zB0F@black.igk.intel.com skipped:cc-not-maintainer$" "$W/decisions" &&
	      grep -q "^202601240312.AbCdEfGh-lkp@intel.com skipped:ignored-sender$" "$W/decisions" &&
	      grep -q "^tagbot.1770370000.00000000000000aa@example.org skipped:own-address$" "$W/decisions" &&
	      grep -q "^20260206120000.GD1676312@google.com skipped:reply$" "$W/decisions" &&
	      grep -q "^20260207090000.GC1676312@google.com skipped:cc-no-parent$" "$W/decisions" &&
	      grep -q "^aamOejvtN8H1zB0E@black.igk.intel.com replied$" "$W/decisions" &&
	      grep -q "^20260305.reply-all@pengutronix.de skipped:cc-answered-before$" "$W/decisions" &&
	      grep -q "^20260206.noauth@google.com skipped:cc-not-authenticated$" "$W/decisions" &&
	      grep -q "^20260206.forged@google.com skipped:cc-not-authenticated$" "$W/decisions" &&
	      grep -q "^20260206.otherid@google.com skipped:cc-not-authenticated$" "$W/decisions" &&
	      grep -q "^20260206.otherdomain@google.com skipped:cc-not-authenticated$" "$W/decisions"'

# --- 5. a patch the source never listed -------------------------------------------
P3=20260301-hidden-v1-1-0123456789ab@pengutronix.de
sed "s/^Message-Id: .*/Message-Id: <$P3>/" "$D/cc/cc-patch-reported-no-link.eml" >"$IN/cur/1690000000.p3.host:2,S"
sed -e "s/^Message-ID: .*/Message-ID: <20260302.r9@linaro.org>/" \
    -e "s/^From: .*/From: Krzysztof Kozlowski <krzk@linaro.org>/" \
    -e "s/^References: .*/References: <$P3>/" -e "s/^In-Reply-To: .*/In-Reply-To: <$P3>/" \
    "$D/cc/cc-request-plain.eml" >"$IN/new/1700000011.r9.host"
run_once
expect "5: a patch found in cur/ is checked and answered" \
	reply 20260302.r9@linaro.org "To=Krzysztof Kozlowski <krzk@linaro.org>" \
	"Cc=m.tretter@pengutronix.de" "body~BAD_REPORTED_BY_LINK"
mv "$IN/cur/1690000000.p3.host:2,S" "$IN/new/1700000012.p3.host"
run_once
expect "5: that patch arriving later is not answered a second time" \
	cond '[ "$(count_files)" = 5 ] && [ "$(nreplies "$P3")" = 0 ]'

# --- 6. quiet ------------------------------------------------------------------
authed cc/cc-request-quiet.eml 1700000013.r10.host
run_once
expect "6: quiet from a maintainer: logged, no reply" \
	cond '[ "$(count_files)" = 5 ] && grep -q "lee@kernel.org quieted thread <$P1>" "$W/log"'
put cc/cc-patch-v2-in-quiet-thread.eml 1700000014.p4.host
{ printf 'Authentication-Results: mx.example.net; dkim=pass header.d=kernel.org\n'
  sed "s/^Message-Id: .*/Message-Id: <20260211.recheck@google.com>/" "$D/cc/cc-request-commands.eml"
} >"$IN/new/1700000015.r11.host"
run_once
expect "6: a v2 in the quiet thread and a recheck there get nothing" \
	cond '[ "$(count_files)" = 5 ] && grep -q "20260210-leds-multicolor-limit-intensity-v2-1-b37761c2fdfd@pengutronix.de.*thread <$P1> is quiet" "$W/log"'
authed cc/cc-request-commands.eml 1700000016.r3-again.host
run_once
expect "6: the same request under another name: still one reply" \
	cond '[ "$(count_files)" = 5 ] && reply 20260206101500.GA1676312@google.com'

# --- 7. a list with enabled = no: a request from it is recorded, not answered --
sed -e 's/^state = .*/state = state2.db/' -e 's/^path = out$/path = out2/' "$W/cc.ini" >"$W/cc2.ini"
printf '\n[list linux-leds.vger.kernel.org]\nenabled = no\n' >>"$W/cc2.ini"
"$TAGBOT" run --once -c "$W/cc2.ini" 2>>"$W/log"
expect "7: enabled = no: the request from that list is recorded, not answered" \
	cond '[ "$(OUT=$W/out2 nreplies 20250404151042.GC372032@google.com)" = 0 ] &&
	      python3 -c "import sqlite3,sys; sys.exit(0 if sqlite3.connect(sys.argv[1]).execute(
\"SELECT decision FROM messages WHERE msgid = ?\", (\"20250404151042.GC372032@google.com\",)).fetchone()[0]
== \"skipped:list-disabled\" else 1)" "$W/state2.db"'

# --- 8. the hourly limit counts Cc-mode answers to the request's sender ----------
mkdir -p "$W/inbox3/new" "$W/inbox3/cur" "$W/inbox3/tmp"
sed -e 's/^state = .*/state = state3.db/' -e 's/^path = inbox$/path = inbox3/' \
    -e 's/^path = out$/path = out3/' -e 's/^max_per_author_per_hour = .*/max_per_author_per_hour = 1/' \
    "$W/cc.ini" >"$W/cc3.ini"
cp "$D/cc/cc-patch-reported-no-link.eml" "$W/inbox3/new/1700000001.p1.host"
cp "$D/cc/cc-patch-clean.eml" "$W/inbox3/new/1700000002.p2.host"
cp "$D/cc/cc-request-clean.eml" "$W/inbox3/new/1700000004.r2.host"
authed cc/cc-request-commands.eml 1700000005.r3.host "" "$W/inbox3"
"$TAGBOT" run --once -c "$W/cc3.ini" 2>>"$W/log"
expect "8: the patch's reply and the first request's answer go out" \
	cond '[ "$(ls "$W/out3/new" | grep -c .)" = 2 ] &&
	      OUT=$W/out3 reply 20250404151042.GC372032@google.com "To=Lee Jones <lee@kernel.org>" &&
	      OUT=$W/out3 reply "$P1" "To=Michael Tretter <m.tretter@pengutronix.de>"'
expect "8: the second request from lee within the hour is held back, logged, and kept queued for when the hour has room" \
	cond '[ "$(OUT=$W/out3 nreplies 20260206101500.GA1676312@google.com)" = 0 ] &&
	      grep -q "20260206101500.GA1676312@google.com.*reply held back: rate-limit-author (to lee@kernel.org; sent in" "$W/log" &&
	      python3 -c "import sqlite3,sys; sys.exit(0 if sqlite3.connect(sys.argv[1]).execute(
\"SELECT count(*) FROM outbox WHERE parent_msgid = ? AND state = \x27queued\x27 AND next_attempt > created + 3000\",
(\"20260206101500.GA1676312@google.com\",)).fetchone()[0] == 1 else 1)" "$W/state3.db"'

# --- 9. no trusted_authserv_id: commands refused, said once -------------------
mkdir -p "$W/inbox4/new" "$W/inbox4/cur" "$W/inbox4/tmp"
sed -e 's/^state = .*/state = state4.db/' -e 's/^path = inbox$/path = inbox4/' \
    -e 's/^path = out$/path = out4/' -e '/^trusted_authserv_id/d' "$W/cc.ini" >"$W/cc4.ini"
cp "$D/cc/cc-patch-reported-no-link.eml" "$W/inbox4/new/1700000001.p1.host"
authed cc/cc-request-commands.eml 1700000005.r3.host "" "$W/inbox4"
authed cc/cc-request-quiet.eml 1700000013.r10.host "" "$W/inbox4"
"$TAGBOT" run --once -c "$W/cc4.ini" 2>"$W/log4"
cat "$W/log4" >>"$W/log"
expect "9: no trusted_authserv_id: the patch is answered, the commands are not" \
	cond '[ "$(ls "$W/out4/new" | grep -c .)" = 1 ] &&
	      [ "$(OUT=$W/out4 nreplies 20260206101500.GA1676312@google.com)" = 0 ] &&
	      ! grep -q "quieted thread" "$W/log4"'
expect "9: ... the reason is logged once for the run, not per mail" \
	[ "$(grep -c "trusted_authserv_id is not set: commands are refused" "$W/log4")" = 1 ]
expect "9: ... and both mails are recorded skipped:cc-not-authenticated" \
	python3 -c "import sqlite3,sys; sys.exit(0 if [r[0] for r in sqlite3.connect(sys.argv[1]).execute(
\"SELECT decision FROM messages WHERE msgid IN (?, ?)\", (\"20260206101500.GA1676312@google.com\",
\"20260206110000.GB1676312@google.com\"))] == [\"skipped:cc-not-authenticated\"] * 2 else 1)" "$W/state4.db"

if [ "$fails" -ne 0 ]; then
	sed 's/^/# /' "$W/log" | tail -60
fi
finish
