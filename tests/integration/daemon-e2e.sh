#!/bin/sh
# `tagbot run` end to end, against a real Dovecot and a real Postfix.
#
# The bot watches bot@example.org's INBOX over IMAP with IDLE (STARTTLS, then
# IMAPS, both verified with the test CA) and sends its replies through
# Postfix (STARTTLS), which delivers them into Dovecot.  Patches are
# APPENDed to bot@'s INBOX, from author@example.org; what is asserted is
# what reaches author@'s INBOX (tests/integration/e2e-mail.py parses it):
#   a) patches with tag problems: one threaded reply each; mail that was
#      there before the first start: none (backfill = no)
#   b) a clean patch: no reply
#   c) the bot stopped (SIGTERM: exit 0) and started again: no duplicates,
#      and the patch that came while it was down is answered
#   d) the same mail delivered twice (the same bytes, and a list copy with
#      other headers): one reply
#   e) Dovecot restarted while the bot idles: it resumes and misses nothing;
#      the folder's UIDVALIDITY changed: a rescan, no duplicates, and still
#      no reply to the mail from before the first start
#   f) Postfix stopped: the reply waits in the outbox (tagbot status) and
#      goes out once Postfix is back
#   g) SIGKILL at random moments during a 200-message backlog (backfill =
#      yes, half need a reply): after a clean run, exactly one reply each,
#      and the state database agrees.  E2E_SEED=N replays the moments.
# poll_interval is 300 s, so only IDLE can meet the waits (each 20-90 s).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"
BOT_LOG_LEVEL=info

# status_queued: how many replies `tagbot status` says are queued.
status_queued() {
	"$TAGBOT" status -c "$INI" 2>/dev/null | sed -n 's/^outbox: queued \([0-9][0-9]*\).*/\1/p'
}

# wait_queued N SECONDS
wait_queued() {
	for _ in $(seq $(($2 * 10))); do
		[ "$(status_queued)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

patch() {	# patch KIND PREFIX-N [--threaded]: writes $W/PREFIX-N.eml
	$MAIL patch "$1" "${2%-*}" "${2##*-}" $3 >"$W/$2.eml"
}

# --- a) to f): one bot on STARTTLS -------------------------------------------
INI=$W/bot.ini
STATE=$W/state.db
bot_ini "$INI" "$STATE"
patch case old-0
$MAIL append $BOT "$W/old-0.eml"
bot_start
check "the bot starts and takes its checkpoint" wait_ready 20

patch case a-1; patch changeid a-2 --threaded; patch nosob a-3; patch twice a-4
$MAIL append $BOT $(p a-1 a-2 a-3 a-4)
check "a) each patch with tag problems gets a reply" \
	$MAIL wait-replies $AUTHOR 20 $(mid a-1 a-2 a-3 a-4)
check "a) one threaded reply each (To, Re:, In-Reply-To, References, Auto-Submitted, X-Tagbot-Rules, | quotes); none to the mail from before the start" \
	$MAIL verify $AUTHOR --only $(p a-1 a-2 a-3 a-4) --none $(p old-0)

# The bad patch after the clean one is answered after it was read (UID order).
patch clean b-1; patch case b-2
$MAIL append $BOT $(p b-1 b-2)
check "b) the patch after a clean one is answered" $MAIL wait-replies $AUTHOR 20 $(mid b-2)
check "b) no reply to the clean patch" $MAIL verify $AUTHOR $(p b-1 b-2)

check "c) SIGTERM: tagbot run exits 0" bot_stop
patch nosob c-1
$MAIL append $BOT $(p c-1)
bot_start
check "c) the patch that came while the bot was down is answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid c-1)
check "c) after the restart: no duplicates" \
	$MAIL verify $AUTHOR --only $(p a-1 a-2 a-3 a-4 b-1 b-2 c-1) --none $(p old-0)

patch twice d-1; patch changeid d-2; patch case d-3
# The list's copy of d-2: the same Message-ID, other bytes.
{ printf 'Received: from list.example.org by mx.example.org; Thu, 20 Nov 2025 10:10:12 +0100\r\n'
  printf 'List-Id: <list.example.org>\r\nPrecedence: list\r\n'
  cat "$W/d-2.eml"; } >"$W/d-2-list.eml"
$MAIL append $BOT $(p d-1 d-1 d-2 d-2-list d-3)
check "d) the patch after the doubles is answered" $MAIL wait-replies $AUTHOR 20 $(mid d-3)
check "d) the same mail delivered twice (same bytes; a list copy): one reply each" \
	$MAIL verify $AUTHOR $(p d-1 d-2 d-3)

sleep 1	# the bot is idling
srv_stop_dovecot
srv_start_dovecot || exit 99
patch changeid e-1
$MAIL append $BOT $(p e-1)
check "e) Dovecot restarted under the idling bot: the next patch is answered" \
	$MAIL wait-replies $AUTHOR 40 $(mid e-1)
check "e) the bot is still running" bot_alive

# The folder's UIDVALIDITY changes under the idling bot (a rebuilt mailbox):
# it rescans from UID 1; what it knew is skipped by Message-ID, and old-0,
# there before the first start (backfill = no), is still not answered.
doveadm -c "$SRV_DIR/dovecot/dovecot.conf" mailbox update -u $BOT \
	--uid-validity $(($(date +%s) - 1000)) INBOX ||
	not_ok "doveadm mailbox update --uid-validity"
patch nosob e-2
# A new patch carries today's Date (the fixtures' is of 2025, before the start).
sed -i "s/^Date: .*/Date: $(LC_ALL=C date -R)\r/" "$W/e-2.eml"
$MAIL append $BOT $(p e-2)
check "e) UIDVALIDITY changed: the next patch is answered" \
	$MAIL wait-replies $AUTHOR 40 $(mid e-2)
check "e) ... and the rescan answers nothing twice, nor the mail from before the start" \
	$MAIL verify $AUTHOR --only $(p a-1 a-2 a-3 a-4 b-1 b-2 c-1 d-1 d-2 d-3 e-1 e-2) --none $(p old-0)
check "e) the log says the folder is rescanned" grep -q "UIDVALIDITY changed" "$W/bot.log"

srv_stop_postfix
patch twice f-1
$MAIL append $BOT $(p f-1)
check "f) Postfix stopped: tagbot status shows the reply queued" wait_queued 1 20
sleep 2
check "f) ... and still queued, not lost, after 2 s" wait_queued 1 1
check "f) ... and nothing reached the author meanwhile" $MAIL verify $AUTHOR --none $(p f-1)
srv_start_postfix || exit 99
check "f) Postfix back: the reply goes out" $MAIL wait-replies $AUTHOR 90 $(mid f-1)
check "f) tagbot status shows nothing queued" wait_queued 0 20

sleep $((RESEND_AFTER + 2))	# a reply sent twice would have come by now
ALL="a-1 a-2 a-3 a-4 b-1 b-2 c-1 d-1 d-2 d-3 e-1 e-2 f-1"
check "a-f: exactly one threaded reply per patch that needs one, none otherwise" \
	$MAIL verify $AUTHOR --only $(p $ALL) --none $(p old-0)
check "a-f: the store agrees (replied and sent, or clean)" $MAIL store "$STATE" $(p $ALL)
check "a-f: SIGTERM: exit 0" bot_stop
if grep -q secret "$W/bot.log"; then not_ok "the log never shows the password"; else ok "the log never shows the password"; fi

# --- g) SIGKILL during a backlog, on IMAPS ------------------------------------
$MAIL expunge $BOT
$MAIL gen "$W/g" g 200 --clean-every 2
$MAIL append $BOT "$W"/g/g-*.eml
INI=$W/backlog.ini
STATE=$W/backlog.db
BOT_TLS=implicit
BOT_PORT=$IMAPS_PORT
BOT_BACKFILL=yes
bot_ini "$INI" "$STATE"
seed=${E2E_SEED:-$(date +%s)}
echo "# g) E2E_SEED=$seed"
for delay in $(python3 -c "import random; random.seed($seed); print(' '.join('%.2f' % random.uniform(0.05, 1.5) for _ in range(8)))"); do
	bot_start
	sleep "$delay"
	bot_kill
	echo "# g) SIGKILL after ${delay}s: $($MAIL progress "$STATE")"
done
bot_start
check "g) after the SIGKILLs, a clean run answers every patch that needs a reply, once" \
	$MAIL wait-verify $AUTHOR 90 "$W"/g/g-*.eml
sleep $((RESEND_AFTER + 2))
check "g) ... and no late duplicates" $MAIL verify $AUTHOR "$W"/g/g-*.eml
check "g) the store agrees: 100 replied and sent, 100 clean" $MAIL store "$STATE" "$W"/g/g-*.eml
check "g) SIGTERM: exit 0" bot_stop
finish
