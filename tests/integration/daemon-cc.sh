#!/bin/sh
# Maintainer Cc mode and per-list policy end to end: `tagbot run` on
# bot@'s INBOX over IMAP (IDLE, STARTTLS), replies
# through Postfix.  Patches come as the list's copy (APPEND, List-Id); a
# maintainer's reply with the bot in Cc is submitted to Postfix, which
# delivers it to bot@ only.  Mails are built by tests/integration/e2e-mail.py,
# their findings fixed by tagbot-rules(7); asserted is what reaches maint@'s and
# author@'s INBOX:
#   a) maint@ answers a patch the bot saw: the bot answers maint@ under
#      maint@'s mail (In-Reply-To it, References extended) with the patch's
#      findings; the patch itself keeps its one reply; maint@'s mail also
#      arriving as the list's copy: still one answer
#   b) ... a clean patch: "no tag problems found"
#   c) ... patches the bot never read (in its folder from before it
#      started; only in the archive, a public-inbox when installed):
#      checked all the same
#   d) "tagbot: explain BAD_SIGN_OFF" from a maintainer: an explanation;
#      from someone else: nothing
#   e) "tagbot: quiet" under a series' cover: no further replies in that
#      thread, neither to maint@ about its clean patch nor to a v2 of its
#      patch sent in reply to it (a v2 in another thread is answered); a
#      quoted command is no command
#   f) "tagbot: recheck" in reply to the bot's answer: answered again; in
#      reply to maint@'s mail about a patch answered before: answered
#   g) [list off.example.org] enabled = no: its mail (List-Id, or
#      X-Mailing-List) is recorded, never answered; a list with no
#      section follows [default]; a list's RULE_ID = off and
#      min_reply_severity = error hold back warnings, not errors
#   h) maint@'s reply that comes only through the list (the bot not in
#      To/Cc): nothing
#   i) opt-in ([default] enabled = no, one [list ID] enabled = yes): only
#      that list's mail is answered; a patch whose direct Cc copy (no
#      List-Id) comes first, with a restart before the list's copy, is
#      answered once when the list's copy comes
#   k) opt-in as in i), reply_mode per-series (the default): a series whose
#      Cc copies came first, all of them (its series wait passed on them) or
#      the cover's and one patch's, is answered once, to its cover, when the
#      list's copies come; a series only ever seen as Cc copies is not;
#      so too when [reply] says per-patch and the list's section per-series
#   j) forged commands: From: maint@ but not signed by example.org; with an
#      "Authentication-Results: <trusted id>; dkim=pass" the sender wrote
#      (OpenDKIM removes it; with a malformed DKIM-Signature it does not,
#      and Postfix's header_checks do); signed, then changed on the way
#      (dkim=fail): their commands are not obeyed (no recheck answer; a
#      "quiet" leaves the thread open), recorded skipped:cc-not-authenticated
#
# Commands need the receiving server's word that the mail is from its From
# domain ([reply] trusted_authserv_id): Postfix runs OpenDKIM as a
# verifying milter (servers.sh), and maint@'s command mails are signed for
# example.org with python3-dkim before they are sent.  The public key comes
# from a file (OpenDKIM's TestPublicKeys), so no DNS is asked.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need dovecot postfix opendkim
srv_init
srv_start_dovecot || exit 99
srv_start_opendkim || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"
patch() { $MAIL patch "$1" "${2%-*}" "${2##*-}" --now >"$W/$2.eml"; }
# request PARENT-FILE TAG [ARGS...]: $W/TAG.eml, a reply to PARENT with the bot in Cc
request() { f=$1 t=$2; shift 2; $MAIL request "$f" "$t" "$@" >"$W/$t.eml"; }
send() { $MAIL send "$W/$1.eml"; }
# sign TAG: $W/TAG.eml signed by example.org, as maint@'s server signs it
sign() {
	$SRV_DKIM_PYTHON "$top_srcdir/tests/integration/e2e-mail.py" dkim-sign "$W/$1.eml" \
		>"$W/$1.signed" && mv "$W/$1.signed" "$W/$1.eml"
}
# top_authres TAG: the topmost Authentication-Results of TAG as bot@ got it
top_authres() { $MAIL headers $BOT "$(mid "$1" | tr -d ' ')" Authentication-Results | head -n 1; }
# top_is TAG REGEX: the topmost Authentication-Results of TAG matches REGEX
top_is() { top_authres "$1" | grep -q "$2"; }
# recorded_as TAG DECISION
recorded_as() { db_true "SELECT count(*) FROM messages WHERE msgid = 'e2e-$1@example.org' AND decision = '$2'"; }

# The archive (public-inbox, when installed): a patch only it has.
PI_PID= LOOKUP=
trap 'bot_kill; [ -z "$PI_PID" ] || { kill "$PI_PID"; wait "$PI_PID"; } 2>/dev/null; srv_cleanup' EXIT
if command -v public-inbox-httpd >/dev/null 2>&1; then
	$MAIL patch twice x 1 --now >"$W/x-1.eml"
	PI_PORT=$(srv_free_port) PI_CONFIG=$W/pi-config
	export PI_CONFIG
	public-inbox-init -V2 test "$W/pi" "http://127.0.0.1:$PI_PORT/test" list@example.org \
		>"$W/pi.log" 2>&1 &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none &&
	ORIGINAL_RECIPIENT=list@example.org public-inbox-mda <"$W/x-1.eml" >>"$W/pi.log" 2>&1 ||
		{ cat "$W/pi.log"; echo "public-inbox refused the archive's patch"; exit 99; }
	public-inbox-httpd -l "http://127.0.0.1:$PI_PORT" >>"$W/pi.log" 2>&1 &
	PI_PID=$!
	srv_wait_port "$PI_PORT" || { cat "$W/pi.log"; echo "public-inbox-httpd did not start"; exit 99; }
	LOOKUP="[lookup]
enabled = yes
archive_url = http://127.0.0.1:$PI_PORT/test/
timeout = 5"
else
	echo "# public-inbox is not installed: no archive scenario"
fi

INI=$W/cc.ini STATE=$W/cc.db
# maint@ is a maintainer by a pattern; lee@ is one by address.
bot_ini "$INI" "$STATE" "reply_mode = per-patch
maintainers = lee@kernel.org, ma?nt@example.org
trusted_authserv_id = $SRV_AUTHSERV_ID" "[list off.example.org]
enabled = no

[list lax.example.org]
BAD_SIGN_OFF = off

[list strict.example.org]
min_reply_severity = error

$LOOKUP"

# Read by nobody: in the folder before the bot's first start (backfill = no).
patch case q-1; patch clean q-2
$MAIL append $BOT $(p q-1 q-2)
bot_start
check "the bot starts and takes its checkpoint" wait_ready 20

# --- a) b) c) ----------------------------------------------------------------
patch case a-1; patch clean b-1
listed list.example.org a-1 b-1
check "a) the patch from the list is answered first" $MAIL wait-replies $AUTHOR 20 $(mid a-1)
request "$W/a-1.eml" ma-1; send ma-1
check "a) maint@ Cc's the bot on a reply to a patch: the bot answers maint@" \
	$MAIL wait-replies $MAINT 20 $(mid ma-1)
check "a) under maint@'s mail (In-Reply-To, References extended, Re:), with the patch's findings" \
	$MAIL verify-cc $MAINT "$W/ma-1.eml" "$W/a-1.eml"
request "$W/b-1.eml" mb-1; send mb-1
request "$W/q-1.eml" mq-1; send mq-1
request "$W/q-2.eml" mq-2; send mq-2
$MAIL relist "$W/ma-1.eml" list.example.org >"$W/ma-1-list.eml"
$MAIL append $BOT "$W/ma-1-list.eml"
check "b) c) the requests about a clean patch and unread ones are answered" \
	$MAIL wait-replies $MAINT 20 $(mid mb-1 mq-1 mq-2)
check "b) a clean patch: 'no tag problems found', threaded under maint@'s mail" \
	$MAIL verify-cc $MAINT "$W/mb-1.eml" "$W/b-1.eml"
check "c) a patch the bot never read (from its folder): its findings" \
	$MAIL verify-cc $MAINT "$W/mq-1.eml" "$W/q-1.eml"
check "c) ... and a clean one: 'no tag problems found'" \
	$MAIL verify-cc $MAINT "$W/mq-2.eml" "$W/q-2.eml"

if [ -n "$PI_PID" ]; then
	request "$W/x-1.eml" mx-1; send mx-1
	check "c) a patch only the archive has: the request is answered" \
		$MAIL wait-replies $MAINT 20 $(mid mx-1)
	check "c) ... with the findings of the archive's copy" \
		$MAIL verify-cc $MAINT "$W/mx-1.eml" "$W/x-1.eml"
fi

# --- d) explain ----------------------------------------------------------------
request "$W/b-1.eml" md-1 --cmd "tagbot: explain BAD_SIGN_OFF"; sign md-1; send md-1
request "$W/a-1.eml" ad-1 --from "A U Thor <$AUTHOR>" --cmd "tagbot: explain BAD_SIGN_OFF"
send ad-1
check "d) 'tagbot: explain BAD_SIGN_OFF' from a maintainer is answered" \
	$MAIL wait-replies $MAINT 20 $(mid md-1)
check "d) ... with an explanation of BAD_SIGN_OFF" \
	$MAIL verify-cc $MAINT "$W/md-1.eml" "$W/b-1.eml" --explain BAD_SIGN_OFF --no-check
check "d) ... it reached the bot with OpenDKIM's dkim=pass for example.org on top" \
	top_is md-1 "^$SRV_AUTHSERV_ID; dkim=pass .*header.d=example.org "

# --- e) quiet ----------------------------------------------------------------
# The thread of a series: "quiet" under its cover, then a request about its
# clean patch (never answered before) and a v2 of patch 1 come in it.
$MAIL series "$W" qc changeid,clean
listed list.example.org qc-0 qc-1 qc-2
check "e) the series' patch with findings is answered" $MAIL wait-replies $AUTHOR 20 $(mid qc-1)
# A quoted command is no command: this thread stays open.
request "$W/a-1.eml" mz-1 --quote-cmd "tagbot: quiet"; send mz-1
request "$W/qc-0.eml" me-1 --cmd "tagbot: quiet"; sign me-1; send me-1
check "e) the quiet request is read" wait_seen 20 me-1 mz-1
request "$W/qc-2.eml" me-2; send me-2
$MAIL series "$W" e2 nosob --no-cover --version 2 --in-reply-to "$W/qc-1.eml"
listed list.example.org e2-1
$MAIL series "$W" f2 twice --no-cover --version 2 --in-reply-to "$W/a-1.eml"
listed list.example.org f2-1
request "$W/a-1.eml" ma-2; send ma-2
check "e) after the quiet thread: a v2 in another thread and a request there are answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid f2-1)
check "e) ... the request in the other thread (a quoted 'tagbot: quiet' is none)" \
	$MAIL wait-replies $MAINT 20 $(mid ma-2)
check "e) ... that v2's reply is threaded to it, with its findings" \
	$MAIL verify $AUTHOR $(p f2-1)

# --- f) recheck --------------------------------------------------------------
$MAIL save-reply $MAINT $(mid mb-1) >"$W/mb-1-answer.eml"
request "$W/mb-1-answer.eml" mr-1 --cmd "tagbot: recheck"; sign mr-1; send mr-1
request "$W/ma-1.eml" mr-2 --cmd "tagbot: recheck"; sign mr-2; send mr-2
check "f) 'tagbot: recheck' (in reply to the bot's answer; to maint@'s own mail): answered" \
	$MAIL wait-replies $MAINT 20 $(mid mr-1 mr-2)
check "f) ... again 'no tag problems found', under the recheck mail" \
	$MAIL verify-cc $MAINT "$W/mr-1.eml" "$W/b-1.eml"
check "f) ... and the findings of a patch answered before" \
	$MAIL verify-cc $MAINT "$W/mr-2.eml" "$W/a-1.eml"

# --- j) forged commands ------------------------------------------------------
# As mr-2 (a signed recheck under ma-1, answered in f), but not signed.
request "$W/ma-1.eml" mj-1 --cmd "tagbot: recheck"; send mj-1
# The sender's own Authentication-Results, naming the trusted server.
request "$W/ma-1.eml" mj-2 --cmd "tagbot: recheck"
{ printf 'Authentication-Results: %s; dkim=pass header.d=example.org\r\n' "$SRV_AUTHSERV_ID"
  cat "$W/mj-2.eml"; } >"$W/mj-2.forged" && mv "$W/mj-2.forged" "$W/mj-2.eml"
send mj-2
# The same under a malformed DKIM-Signature: OpenDKIM then adds no header
# and leaves the forged one (its bug #194); Postfix's header_checks drop it.
request "$W/ma-1.eml" mj-3 --cmd "tagbot: recheck"
{ printf 'DKIM-Signature: eeee\r\nAuthentication-Results: %s; dkim=pass header.d=example.org\r\n' \
	"$SRV_AUTHSERV_ID"; cat "$W/mj-3.eml"; } >"$W/mj-3.forged" && mv "$W/mj-3.forged" "$W/mj-3.eml"
send mj-3
# Signed, then its text changed: dkim=fail.
request "$W/ma-1.eml" mj-4 --cmd "tagbot: recheck"; sign mj-4
sed 's/^Thanks,/Thanks!/' "$W/mj-4.eml" >"$W/mj-4.changed" && mv "$W/mj-4.changed" "$W/mj-4.eml"
send mj-4
# A forged quiet: the thread stays open for a request answering its patch.
request "$W/b-1.eml" mj-5 --cmd "tagbot: quiet"; send mj-5
check "j) the forged commands are read" wait_seen 20 mj-1 mj-2 mj-3 mj-4 mj-5
request "$W/b-1.eml" mj-6; send mj-6
check "j) a forged 'tagbot: quiet' quiets nothing: a request in its thread is answered" \
	$MAIL wait-replies $MAINT 20 $(mid mj-6)
for t in mj-1 mj-2 mj-3 mj-4 mj-5; do
	check "j) $t is recorded skipped:cc-not-authenticated" recorded_as $t skipped:cc-not-authenticated
	check "j) ... and logged with the reason" grep -q \
		"<e2e-$t@example.org>.*commands from $MAINT not authenticated: no Authentication-Results from $SRV_AUTHSERV_ID with dkim=pass for example.org" \
		"$W/bot.log"
done
check "j) unsigned: OpenDKIM's dkim=none on top" \
	test "$(top_authres mj-1)" = "$SRV_AUTHSERV_ID; dkim=none; dkim-atps=neutral"
check "j) the sender's own 'dkim=pass' did not reach the bot" \
	test "$($MAIL headers $BOT "<e2e-mj-2@example.org>" Authentication-Results)" = \
	"$SRV_AUTHSERV_ID; dkim=none; dkim-atps=neutral"
check "j) ... nor under a malformed DKIM-Signature (no Authentication-Results at all)" \
	test -z "$($MAIL headers $BOT "<e2e-mj-3@example.org>" Authentication-Results)"
check "j) changed after signing: OpenDKIM's dkim=fail on top" \
	top_is mj-4 "^$SRV_AUTHSERV_ID; dkim=fail .*header.d=example.org "

# --- g) per-list ---------------------------------------------------------------
patch case g-1; patch twice g-2; patch nosob g-3
listed off.example.org g-1
{ printf 'X-Mailing-List: off@example.org\r\n'; cat "$W/g-2.eml"; } >"$W/g-2-list.eml"
$MAIL append $BOT "$W/g-2-list.eml"
listed other.example.org g-3
patch case g-4; patch twice g-5; patch changeid g-6
listed lax.example.org g-4
listed strict.example.org g-5 g-6
request "$W/a-1.eml" mh-1 --no-bot
listed list.example.org mh-1
check "g) mail of a list with no section is answered ([default])" \
	$MAIL wait-replies $AUTHOR 20 $(mid g-3)
check "g) ... and threaded to it" $MAIL verify $AUTHOR $(p g-3)
check "g) a list with min_reply_severity = error: an error is answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid g-6)

sleep 6	# anything still due (a late or second reply) would have come by now
check "the mails that must stay unanswered were read" \
	wait_seen 20 ad-1 me-2 e2-1 g-1 g-4 g-5 mh-1
check "d) the command from a non-maintainer got nothing" $MAIL none $AUTHOR $(mid ad-1)
check "d) ... nor did anyone else" $MAIL none $MAINT $(mid ad-1)
check "e) 'tagbot: quiet': no answer to a later request in that thread" \
	$MAIL none $MAINT $(mid me-2)
check "e) ... nor to a v2 sent in reply to a patch of the thread" $MAIL none $AUTHOR $(mid e2-1)
check "e) ... nor any other mail in that thread" $MAIL none $AUTHOR $(mid me-2)
check "g) enabled = no: no reply to its mail (List-Id, X-Mailing-List)" \
	$MAIL none $AUTHOR $(mid g-1 g-2)
check "g) ... and both are recorded" $MAIL recorded "$STATE" $(p g-1 g-2)
check "g) BAD_SIGN_OFF = off for a list: its only finding, no reply" $MAIL none $AUTHOR $(mid g-4)
check "g) min_reply_severity = error for a list: no reply to a warning" \
	$MAIL none $AUTHOR $(mid g-5)
check "h) a reply that reaches the bot through the list only: nothing" \
	$MAIL none $MAINT $(mid mh-1)
check "j) no answer to a forged command (unsigned, forged pass, bad signature, changed)" \
	$MAIL none $MAINT $(mid mj-1 mj-2 mj-3 mj-4 mj-5)
check "j) ... nor to the author" $MAIL none $AUTHOR $(mid mj-1 mj-2 mj-3 mj-4 mj-5)
for r in ma-1 mb-1 mq-1 mq-2 md-1 mr-1 mr-2 mj-6 ${PI_PID:+mx-1}; do
	check "a-f) still exactly one answer to $r" test "$($MAIL replies $MAINT $(mid $r))" = 1
done
check "a) e) the patches have their one reply, to the author" \
	$MAIL verify $AUTHOR $(p a-1 b-1 qc-0 qc-1 qc-2)
check "SIGTERM: exit 0" bot_stop

# --- i) opt-in: [default] enabled = no, one list enabled ------------------------
INI=$W/opt-in.ini
bot_ini "$INI" "$STATE" "reply_mode = per-patch" "[default]
enabled = no

[list on.example.org]
enabled = yes"
bot_start
check "i) the bot starts with the opt-in file" wait_ready 20
patch case i-1; patch twice i-2; patch nosob i-3
listed other.example.org i-1
$MAIL append $BOT "$W/i-2.eml"
listed on.example.org i-3
check "i) [default] enabled = no, [list on.example.org] enabled = yes: that list is answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid i-3)
check "i) ... threaded, with its findings" $MAIL verify $AUTHOR $(p i-3)
check "i) the other mails are read" wait_seen 20 i-1 i-2
check "i) ... and not answered: another list's, and one from no list" \
	$MAIL none $AUTHOR $(mid i-1 i-2)
patch nosob i-4
$MAIL append $BOT "$W/i-4.eml"
check "i) the Cc copy of i-4 (no List-Id) is read first" wait_seen 20 i-4
check "i) ... recorded as waiting for its list" \
	db_true "SELECT count(*) FROM messages WHERE msgid = 'e2e-i-4@example.org'
		 AND decision = 'skipped:list-unknown'"
check "i) SIGTERM: exit 0" bot_stop
bot_start
check "i) the bot starts again" wait_ready 20
listed on.example.org i-4
check "i) the list's copy of i-4 after the restart: answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid i-4)
sleep 2
check "i) ... once" $MAIL verify $AUTHOR $(p i-3 i-4)
check "i) SIGTERM again: exit 0" bot_stop

# --- k) opt-in, per-series ------------------------------------------------------
KWAIT=6		# series_wait
INI=$W/opt-in-series.ini
bot_ini "$INI" "$STATE" "series_wait = $KWAIT" "[default]
enabled = no

[list on.example.org]
enabled = yes"
bot_start
check "k) the bot starts with the opt-in file, per-series" wait_ready 20
# k1: the Cc copies of every part; k2: of the cover and a clean patch;
# k3: the Cc copies only, the list's never come.
$MAIL series "$W" k1 case,clean,nosob
$MAIL series "$W" k2 clean,twice,clean
$MAIL series "$W" k3 nosob,clean
$MAIL append $BOT $(p k1-0 k1-1 k1-2 k1-3 k2-0 k2-1 k3-0 k3-1 k3-2)
check "k) the Cc copies are read first" wait_seen 20 k1-0 k1-1 k1-2 k1-3 k2-0 k2-1 k3-0 k3-1 k3-2
listed on.example.org k2-0 k2-1 k2-2 k2-3
sleep $((KWAIT + 2))	# k1's and k3's series waits pass on their Cc copies
listed on.example.org k1-0 k1-1 k1-2 k1-3
check "k) the list's copies of series whose Cc copies came first: answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid k1-0 k2-0)
sleep 3	# a second reply (to a patch of k1 or k2) would have come by now
check "k) ... once, to the cover, findings per patch (every Cc copy first)" \
	$MAIL verify-series $AUTHOR $(p k1-0 k1-1 k1-2 k1-3)
check "k) ... (the Cc copies of the cover and a patch first)" \
	$MAIL verify-series $AUTHOR $(p k2-0 k2-1 k2-2 k2-3)
check "k) a series whose copies never show the list: no reply" \
	$MAIL none $AUTHOR $(mid k3-0 k3-1 k3-2)
for t in k3-0 k3-1 k3-2; do
	check "k) ... $t recorded as waiting for its list" recorded_as $t skipped:list-unknown
done
check "k) SIGTERM: exit 0" bot_stop
# per-patch but for the opt-in list
INI=$W/opt-in-mixed.ini
bot_ini "$INI" "$STATE" "reply_mode = per-patch
series_wait = $KWAIT" "[default]
enabled = no

[list on.example.org]
enabled = yes
reply_mode = per-series"
bot_start
check "k) the bot starts: [reply] per-patch, [list on.example.org] per-series" wait_ready 20
$MAIL series "$W" k4 case,clean,twice
$MAIL append $BOT $(p k4-0 k4-1 k4-2 k4-3)
check "k) the Cc copies of k4 are read first" wait_seen 20 k4-0 k4-1 k4-2 k4-3
listed on.example.org k4-0 k4-1 k4-2 k4-3
check "k) the list's copies: answered per series, as that list says" \
	$MAIL wait-replies $AUTHOR 20 $(mid k4-0)
sleep 3
check "k) ... once, to the cover; nothing to its patches" \
	$MAIL verify-series $AUTHOR $(p k4-0 k4-1 k4-2 k4-3)
check "k) SIGTERM again: exit 0" bot_stop
finish
