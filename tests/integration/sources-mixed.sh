#!/bin/sh
# sources-mixed.sh - one loop for an IMAP source that IDLEs (Dovecot) and an
# NNTP source that is polled (public-inbox-nntpd), on free loopback ports:
#   a) a patch APPENDed to the IMAP folder while the loop sleeps in IDLE is
#      answered at once, long before the NNTP source's poll_interval;
#   b) an article posted to the group is answered within its poll_interval
#      while the loop sleeps in the IMAP source's IDLE (the IDLE does not
#      hold the NNTP source up);
#   c) with Dovecot stopped, the NNTP source goes on: its next article is
#      still answered, and the IMAP source is retried on its own.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"

srv_need public-inbox-nntpd public-inbox-init public-inbox-mda git
srv_init
srv_start_dovecot || exit 99
srv_pi_inbox leds org.kernel.vger.linux-leds list@example.org || exit 99
srv_start_nntpd || exit 99
export SRV_DIR IMAPS_PORT

MAIL="python3 $top_srcdir/tests/integration/e2e-mail.py"
W=$SRV_DIR/w OUT=$SRV_DIR/w/out
mkdir -p "$W/mails"
BOT_PID=
trap '[ -z "$BOT_PID" ] || { kill "$BOT_PID"; wait "$BOT_PID"; } 2>/dev/null; srv_cleanup' EXIT

replies() { grep -l "^In-Reply-To: <e2e-m-$1@example.org>" "$OUT"/new/* 2>/dev/null | wc -l; }
# answered_within SECONDS N: patch N has its reply before SECONDS are up
answered_within() {
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -le "$end" ]; do
		[ "$(replies "$2")" -ge 1 ] && return 0
		sleep 0.1
	done
	return 1
}

cat >"$W/bot.ini" <<INI
[tagbot]
state = $W/state.db
log_level = debug

[source mail]
type = imap
host = 127.0.0.1
port = $IMAPS_PORT
tls = implicit
ca_file = $SRV_DIR/ca.pem
user = bot@example.org
password_file = $SRV_DIR/password
idle = yes
poll_interval = 600

[source news]
type = nntp
host = 127.0.0.1
port = $NNTP_PORT
tls = none
groups = org.kernel.vger.linux-leds
poll_interval = 3

[sink]
type = maildir
path = $OUT

$(reply_per_patch "tagbot <bot@example.org>")
INI

"$TAGBOT" run -c "$W/bot.ini" >"$W/bot.log" 2>&1 &
BOT_PID=$!
for _ in $(seq 100); do grep -q "org.kernel.vger.linux-leds: first start" "$W/bot.log" && break; sleep 0.1; done
sleep 1

# --- a) IMAP, while the loop sleeps in IDLE -------------------------------
$MAIL patch case m 1 --now >"$W/mails/1.eml"
$MAIL append bot@example.org "$W/mails/1.eml" || exit 99
expect "a) the IMAP patch answered within 2 s (IDLE; NNTP polls every 3 s, IMAP would poll every 600 s)" \
	answered_within 2 1
expect "a) the loop slept in the IMAP source's IDLE" grep -q "IDLE: new mail announced" "$W/bot.log"

# --- b) NNTP, polled while the loop IDLEs --------------------------------
$MAIL patch changeid m 2 --now >"$W/mails/2.eml"
srv_pi_deliver list@example.org "$W/mails/2.eml" || exit 99
expect "b) the NNTP article answered within its poll_interval (3 s) and a margin" \
	answered_within 6 2

# --- c) Dovecot stopped: the NNTP source goes on --------------------------
# its imap processes (children of the master, by PID) serve the bot's
# session after the master is gone: they go too
kids=$(ps -o pid= --ppid "$DOVECOT_PID" | tr -s ' \n' ' ')
srv_stop_dovecot
for p in $kids; do kill "$p" 2>/dev/null; done
$MAIL patch nosob m 3 --now >"$W/mails/3.eml"
srv_pi_deliver list@example.org "$W/mails/3.eml" || exit 99
expect "c) with the IMAP server gone, the NNTP article is answered" answered_within 8 3
expect "c) the IMAP source is retried on its own" \
	grep -q "\[source mail\] imap: .*retrying it in .*the other sources go on" "$W/bot.log"
expect "c) one reply each, none twice" [ "$(ls "$OUT/new" | wc -l)" = 3 ]

[ "$fails" -eq 0 ] || sed 's/^/#   /' "$W/bot.log" | tail -40
finish
