#!/bin/sh
# nntp-source.sh - `tagbot run` with several sources, NNTP among them,
# against Debian's public-inbox-nntpd serving inboxes this test builds, on
# free loopback ports (plain with STARTTLS offered, and NNTPS with a
# certificate of a throw-away CA).  One daemon reads:
#   [source]       a Maildir: the copies of patches sent to the bot directly
#   [source lkml]  NNTP, plain (tls = none on loopback), groups by a wildmat:
#                  org.kernel.vger.linux-*
#   [source net]   NNTP over implicit TLS, verified with the test CA:
#                  org.kernel.vger.netdev
#   [source tls2]  NNTP with STARTTLS, the same server and group as lkml
#   [source bad]   NNTPS with a CA that did not sign the server's
#                  certificate: refused, logged, and the others go on
# and answers into a Maildir sink.  It shows:
#   a) the backlog (backfill = yes): each bad patch of linux-leds gets one
#      reply naming its rule, a clean one none;
#   b) a patch in linux-leds, in netdev and in the bot's Maildir (the list
#      copies and the Cc copy): one row, one reply;
#   c) a patch posted while the bot runs: answered;
#   d) public-inbox-nntpd stopped and started again: the bot connects
#      again and answers what came after;
#   e) a group added while the bot runs (an inbox the server learns on
#      SIGHUP): followed, its patch answered;
#   f) the bot restarted: nothing answered twice, what came while it was
#      down answered, each group its own checkpoint;
#   g) linux-leds renumbered (rebuilt with fewer articles, so its marks
#      went back below the checkpoint): rescanned, known Message-IDs
#      skipped, nothing answered twice, its new patch answered;
#   h) tagbot status counts per source and per list.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"

srv_need public-inbox-nntpd public-inbox-init public-inbox-mda git
srv_init_tls
srv_pi_inbox leds org.kernel.vger.linux-leds list@example.org || exit 99
srv_pi_inbox netdev org.kernel.vger.netdev netdev@example.org || exit 99
srv_start_nntpd || exit 99

MAIL="python3 $top_srcdir/tests/integration/e2e-mail.py"
W=$SRV_DIR/w
mkdir -p "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp" "$W/mails"
OUT=$W/out
BOT_PID=
trap '[ -z "$BOT_PID" ] || { kill "$BOT_PID"; wait "$BOT_PID"; } 2>/dev/null; srv_cleanup' EXIT

# the other CA, which did not sign cert.pem
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca \
	-keyout "$SRV_DIR/other.key" -out "$SRV_DIR/other.pem" 2>/dev/null

# mail KIND N: a patch <e2e-n-N@example.org> in $W/mails/N.eml
mail() { $MAIL patch "$1" n "$2" --now >"$W/mails/$2.eml"; }
# crosspost N: the patch also to netdev@ (a copy for each list)
crosspost() { sed 's/^Cc: list@example.org/Cc: list@example.org, netdev@example.org/' \
	"$W/mails/$1.eml" >"$W/mails/$1x.eml"; }
leds() { for n; do srv_pi_deliver list@example.org "$W/mails/$n.eml" || exit 99; done; }
# replies N: how many replies answer patch N
replies() { grep -l "^In-Reply-To: <e2e-n-$1@example.org>" "$OUT"/new/* 2>/dev/null | wc -l; }
rules_of() { grep -h -A0 "^X-Tagbot-Rules:" $(grep -l "^In-Reply-To: <e2e-n-$1@example.org>" \
	"$OUT"/new/*) | tr -d '\r' | sed 's/^X-Tagbot-Rules: //'; }
# wait_replies N...: until each N has a reply (30 s at most)
wait_replies() {
	for _ in $(seq 150); do
		all=1
		for n; do [ "$(replies "$n")" -ge 1 ] || all=; done
		[ -n "$all" ] && return 0
		sleep 0.2
	done
	return 1
}
wait_log() { for _ in $(seq 150); do grep -q "$1" "$W/bot.log" && return 0; sleep 0.2; done; return 1; }
# sql QUERY: the first column of its first row, from the bot's state
sql() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$W/state.db" "$1"; }
rows() { sql "SELECT count(*) FROM messages WHERE msgid = 'e2e-n-$1@example.org'"; }

cat >"$W/bot.ini" <<INI
[tagbot]
state = $W/state.db
log_level = debug

[source]
type = maildir
path = $W/inbox

[source lkml]
type = nntp
host = 127.0.0.1
port = $NNTP_PORT
tls = none
groups = org.kernel.vger.linux-*
backfill = yes
poll_interval = 1

[source net]
type = nntp
host = localhost
port = $NNTPS_PORT
tls = implicit
ca_file = $SRV_DIR/ca.pem
groups = org.kernel.vger.netdev
backfill = yes
poll_interval = 1

[source tls2]
type = nntp
host = 127.0.0.1
port = $NNTP_PORT
tls = starttls
ca_file = $SRV_DIR/ca.pem
groups = org.kernel.vger.linux-leds
backfill = yes
poll_interval = 1

[source bad]
type = nntp
host = 127.0.0.1
port = $NNTPS_PORT
tls = implicit
ca_file = $SRV_DIR/other.pem
groups = org.kernel.vger.netdev

[sink]
type = maildir
path = $OUT

[reply]
from = tagbot <bot@example.org>
to = author
reply_mode = per-patch
max_per_author_per_hour = 0
max_per_minute = 0
repeat_after = 0
INI

bot_start() {
	"$TAGBOT" run -c "$W/bot.ini" >>"$W/bot.log" 2>&1 &
	BOT_PID=$!
}
bot_stop() { kill "$BOT_PID"; wait "$BOT_PID" 2>/dev/null; BOT_PID=; }

# --- a) the backlog -----------------------------------------------------
mail case 1; mail clean 2; mail changeid 3; mail nosob 4
leds 1 2 3
# --- b) one patch in two groups and in the bot's Maildir ----------------
crosspost 4
leds 4x
srv_pi_deliver netdev@example.org "$W/mails/4x.eml" || exit 99
cp "$W/mails/4.eml" "$W/inbox/new/1.patch4:2,"

bot_start
expect "a) the backlog answered" wait_replies 1 3 4
sleep 3		# every source had its turns
expect "a) patch 1: one reply, about BAD_SIGN_OFF" [ "$(replies 1)" = 1 ] && [ "$(rules_of 1)" = BAD_SIGN_OFF ]
expect "a) patch 3: one reply, about GERRIT_CHANGE_ID" [ "$(replies 3)" = 1 ] && [ "$(rules_of 3)" = GERRIT_CHANGE_ID ]
expect "a) the clean patch 2: no reply" [ "$(replies 2)" = 0 ]
expect "a) the clean patch 2: recorded clean" \
	[ "$(sql "SELECT decision FROM messages WHERE msgid = 'e2e-n-2@example.org'")" = clean ]
expect "b) patch 4 (two groups, four sources, one Maildir): one reply" [ "$(replies 4)" = 1 ]
expect "b) patch 4: one row" [ "$(rows 4)" = 1 ]
expect "b) patch 4's reply names MISSING_SIGN_OFF" [ "$(rules_of 4)" = MISSING_SIGN_OFF ]
expect "TLS: the source with the wrong CA is refused" \
	grep -q "\[source bad\] nntp: 127.0.0.1:$NNTPS_PORT: certificate verify failed" "$W/bot.log"
expect "TLS: the verified sources connected" \
	[ "$(grep -c "nntp: .*: connected, verified" "$W/bot.log")" -ge 2 ]
expect "each group has its checkpoint" [ "$(sql \
	"SELECT count(*) FROM checkpoints WHERE source LIKE '%nntp:%'")" = 3 ]

# --- c) a patch while the bot runs --------------------------------------
mail twice 5
$MAIL relist "$W/mails/5.eml" linux-leds.vger.kernel.org >"$W/mails/5l.eml"
mv "$W/mails/5l.eml" "$W/mails/5.eml"
leds 5
expect "c) a new article answered" wait_replies 5

# --- d) the server restarted ------------------------------------------
srv_stop_nntpd
mail case 6
leds 6
sleep 2
srv_start_nntpd || exit 99
expect "d) after the server's restart: answered" wait_replies 6
expect "d) the lost connection was logged and retried" grep -q "\[source lkml\] nntp: .*retrying it in" "$W/bot.log"

# --- e) a group added while the bot runs ------------------------------
srv_pi_inbox usb org.kernel.vger.linux-usb usb@example.org || exit 99
mail changeid 7
sed 's/^Cc: list@example.org/Cc: usb@example.org/' "$W/mails/7.eml" >"$W/mails/7u.eml"
srv_pi_deliver usb@example.org "$W/mails/7u.eml" || exit 99
srv_reload_nntpd
expect "e) the new group is followed" wait_log "following group org.kernel.vger.linux-usb"
expect "e) its patch answered" wait_replies 7

# --- f) the bot restarted ---------------------------------------------
bot_stop
before=$(ls "$OUT/new" | wc -l)
mail nosob 8
leds 8
bot_start
expect "f) after the bot's restart: the new patch answered" wait_replies 8
sleep 3
expect "f) nothing answered twice" [ "$(ls "$OUT/new" | wc -l)" = $((before + 1)) ]

# --- g) linux-leds renumbered -----------------------------------------
bot_stop
srv_stop_nntpd
rm -rf "$SRV_DIR/pi/leds"
git config -f "$PI_CONFIG" --remove-section publicinbox.leds
srv_pi_inbox leds org.kernel.vger.linux-leds list@example.org || exit 99
mail case 9
leds 1 9
srv_start_nntpd || exit 99
before=$(ls "$OUT/new" | wc -l)
bot_start
expect "g) renumbered: its new patch answered" wait_replies 9
sleep 3
expect "g) the renumbering was seen" grep -q "org.kernel.vger.linux-leds: renumbered (low water mark 1, was 1; high 2, last handled 7)" "$W/bot.log"
expect "g) patch 1 (known) not answered again" [ "$(replies 1)" = 1 ]
expect "g) nothing else answered" [ "$(ls "$OUT/new" | wc -l)" = $((before + 1)) ]
bot_stop

# --- h) tagbot status -------------------------------------------------
"$TAGBOT" status -c "$W/bot.ini" >"$W/status" 2>&1
expect "h) status: the linux-leds checkpoint of lkml" grep -q "^checkpoint lkml/nntp:127.0.0.1:$NNTP_PORT org.kernel.vger.linux-leds: " "$W/status"
# the messages of a source, as the status prints them (0 when no line)
status_n() { sed -n "s|^source $1: \([0-9]*\) messages: .*|\1|p" "$W/status" | grep . || echo 0; }
db_n() { sql "SELECT count(*) FROM messages WHERE source = '$1'"; }
L=lkml/nntp:127.0.0.1:$NNTP_PORT T=tls2/nntp:127.0.0.1:$NNTP_PORT
expect "h) status: [source lkml]'s count is the store's" [ "$(status_n "$L")" = "$(db_n "$L")" ]
expect "h) status: [source tls2]'s count is the store's" [ "$(status_n "$T")" = "$(db_n "$T")" ]
expect "h) status: linux-leds and linux-usb through lkml or tls2: 8 patches" \
	[ $(($(status_n "$L") + $(status_n "$T"))) = 8 ]
expect "h) status: the Maildir, polled first, recorded patch 4" \
	grep -q "^source maildir:$W/inbox: 1 messages: replied 1, clean 0, skipped 0, error 0$" "$W/status"
expect "h) status: patch 5 by its list" \
	grep -q "^list linux-leds.vger.kernel.org: 1 messages: replied 1, clean 0, skipped 0, error 0$" "$W/status"
sed 's/^/# /' "$W/status"

[ "$fails" -eq 0 ] || sed 's/^/#   /' "$W/bot.log" | tail -40
finish
