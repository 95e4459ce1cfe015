#!/bin/sh
# An SMTP server that accepts the connection and never says a word (a
# tarpit, written here: a loopback socket that accepts and sleeps) holds
# `tagbot run` no longer than [sink] connect_timeout and never holds up
# SIGTERM:
#   a) connect_timeout = 60: a reply goes to the tarpit; SIGTERM while the
#      bot waits for the greeting: it exits (status 0) within 2 s, and the
#      reply is still queued in the store
#   b) started again against the real Postfix: that reply arrives, once
#   c) connect_timeout = 3: while the bot is stuck on the tarpit, a second
#      patch APPENDed is recorded within a few seconds (the wait ends after
#      3 s, the reply is retried later), and SIGTERM still stops it at once
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"
A=author@example.org

# The tarpit: accepts, counts each connection in $W/tarpit.count, never
# writes; it ends by itself after 10 minutes at the latest.
TARPIT_PORT=$(srv_free_port)
python3 - "$TARPIT_PORT" "$W/tarpit.count" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
s.settimeout(1)
held, end = [], time.time() + 600
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    held.append(c)
    with open(sys.argv[2], "a") as f:
        f.write("accepted\n")
PY
TARPIT_PID=$!
trap 'bot_kill; kill "$TARPIT_PID" 2>/dev/null; srv_cleanup' EXIT
srv_wait_port "$TARPIT_PORT" || { echo "the tarpit did not start"; exit 99; }
: >"$W/tarpit.count"	# srv_wait_port's own connection does not count

accepted() { wc -l <"$W/tarpit.count"; }
# wait_accepted SECONDS N: until the tarpit has accepted N connections
wait_accepted() {
	for _ in $(seq $(($1 * 10))); do
		[ "$(accepted)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# outbox NAME: "STATE ATTEMPTS" of the reply to NAME-1
outbox() {
	python3 - "$STATE" "e2e-$1-1@example.org" <<'PY'
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=5)
r = con.execute("SELECT state, attempts FROM outbox WHERE parent_msgid = ?", (sys.argv[2],)).fetchone()
print("%s %s" % r if r else "none")
PY
}

# tarpit_ini CONNECT-TIMEOUT: $INI sending to the tarpit
tarpit_ini() {
	bot_ini "$INI" "$STATE"
	sed -i "s|^url = smtp://127.0.0.1:$SMTP_PORT\$|url = smtp://127.0.0.1:$TARPIT_PORT\\nconnect_timeout = $1|; s/^tls = starttls\$/tls = none/" \
		"$INI"
	# [source] keeps tls = starttls: only the [sink] line follows url
	sed -i '0,/^tls = none$/s//tls = starttls/' "$INI"
}

INI=$W/tarpit.ini STATE=$W/tarpit.db
mkmail a && mkmail c && mkmail d || exit 99

# --- a) SIGTERM while waiting for the greeting ------------------------------------
tarpit_ini 60
check "a) the sink is the tarpit, connect_timeout = 60" grep -q "^connect_timeout = 60" "$INI"
bot_start
check "a) the bot starts" wait_ready 20
$MAIL append $BOT "$W/a-1.eml"
check "a) the patch is recorded" wait_seen 20 a-1
check "a) the bot connects to the tarpit" wait_accepted 10 1
sleep 1
check "a) the bot is still waiting for the greeting" bot_alive
check "a) SIGTERM: exit 0 within 2 s" stop_within 2000
check "a) the reply is still queued (claimed once)" eval '[ "$(outbox a)" = "queued 1" ]'
check "a) tagbot status counts it queued" eval '"$TAGBOT" status -c "$INI" | grep -q "outbox: queued 1, sent 0, failed 0"'

# --- b) the next start, against Postfix, sends it once ----------------------------
bot_ini "$INI" "$STATE"
bot_start
check "b) against Postfix: the reply arrives" $MAIL wait-replies $A 30 "<e2e-a-1@example.org>"
check "b) it is marked sent" eval 'for _ in $(seq 50); do [ "$(outbox a | cut -d" " -f1)" = sent ] && break; sleep 0.1; done; [ "$(outbox a | cut -d" " -f1)" = sent ]'
check "b) SIGTERM: exit 0" bot_stop
sleep 1
check "b) exactly one reply" eval '[ "$($MAIL replies $A "<e2e-a-1@example.org>")" -eq 1 ]'

# --- c) reading goes on while the sink is stuck -----------------------------------
tarpit_ini 3
bot_start
check "c) the bot starts on the tarpit, connect_timeout = 3" wait_ready 20
n0=$(accepted)
$MAIL append $BOT "$W/c-1.eml"
check "c) the first patch is recorded" wait_seen 20 c-1
check "c) its reply goes to the tarpit" wait_accepted 10 $((n0 + 1))
t0=$(date +%s)
$MAIL append $BOT "$W/d-1.eml"
check "c) a patch APPENDed meanwhile is recorded within 8 s" wait_seen 8 d-1
echo "# recorded after $(($(date +%s) - t0)) s"
check "c) the stuck send ended after connect_timeout, the reply waits for a retry" \
	grep -Eq "warning: message <e2e-c-1@example.org>: reply .* not sent, retrying in [0-9]+ s: .*(timed out|Timeout)" \
	"$W/bot.log"
check "c) both replies are queued" eval '[ "$(outbox c | cut -d" " -f1)" = queued ] && [ "$(outbox d | cut -d" " -f1)" = queued ]'
# Stuck again (d's reply): SIGTERM still ends it at once.
wait_accepted 10 $((n0 + 2))
check "c) SIGTERM: exit 0 within 2 s" stop_within 2000
finish
