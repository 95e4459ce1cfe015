#!/bin/sh
# source-cut.sh - `tagbot run` reading a real server through a proxy
# (cut-proxy.py, plain on loopback) that cuts the first connection in the
# middle of a large message: after 200 kB of the server's data, inside the
# 380 kB body of the UID FETCH from Dovecot, or of the ARTICLE from
# public-inbox-nntpd (whose public-inbox-mda takes no mail over 500 kB).  The source logs "server closed the connection",
# connects again (a second connection through the proxy) within a few
# seconds, and both messages, the cut one and the small one after it, are
# recorded and answered once: nothing skipped.  SIGTERM then ends the
# daemon with status 0.  Each server's part is skipped when it is not
# installed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
if command -v dovecot >/dev/null 2>&1; then
	srv_init
	HAVE_IMAP=1
else
	srv_init_tls
	HAVE_IMAP=
	echo "# skip: the IMAP part (no dovecot)"
fi
HAVE_NNTP=1
for b in public-inbox-nntpd public-inbox-init public-inbox-mda git; do
	command -v "$b" >/dev/null 2>&1 || HAVE_NNTP=
done
[ -n "$HAVE_NNTP" ] || echo "# skip: the NNTP part (no public-inbox)"
[ -n "$HAVE_IMAP$HAVE_NNTP" ] || { echo "SKIP: neither dovecot nor public-inbox"; exit 77; }

MAIL="python3 $top_srcdir/tests/integration/e2e-mail.py"
PROXY="$top_srcdir/tests/integration/cut-proxy.py"
W=$SRV_DIR/w
mkdir -p "$W"
BOT_PID= PROXY_PID=
bot_kill() { [ -z "$BOT_PID" ] || { kill -KILL "$BOT_PID"; wait "$BOT_PID"; } 2>/dev/null; BOT_PID=; }
proxy_kill() { [ -z "$PROXY_PID" ] || { kill "$PROXY_PID"; wait "$PROXY_PID"; } 2>/dev/null; PROXY_PID=; }
trap 'bot_kill; proxy_kill; srv_cleanup' EXIT

# The large patch (its commit message padded to 380 kB) and a small one.
$MAIL patch nosob big 1 --now >"$W/big.eml" &&
$MAIL patch nosob small 1 --now >"$W/small.eml" || exit 99
python3 - "$W/big.eml" <<'PY' || exit 99
import sys
path = sys.argv[1]
text = open(path, "rb").read().decode()
nl = "\r\n" if "\r\n" in text else "\n"
pad = "".join("Padding line %06d of a long commit message, to make the mail large.%s" % (i, nl)
              for i in range(5500))
text = text.replace(nl + nl + "Wait for the hardware", nl + nl + pad + nl + "Wait for the hardware", 1)
open(path, "wb").write(text.encode())
PY
[ "$(wc -c <"$W/big.eml")" -gt 300000 ] || { echo "the large mail is too small"; exit 99; }

wait_event() {
	for _ in $(seq $(($1 * 20))); do
		grep -qx "$2" "$EV" && return 0
		sleep 0.05
	done
	return 1
}
# recorded KEY: the bot's state has the message whose Message-ID is <KEY>
recorded() {
	python3 - "$DB" "$1" <<'PY'
import sqlite3, sys
try:
    con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=5)
    n = con.execute("SELECT count(*) FROM messages WHERE msgid = ?", (sys.argv[2],)).fetchone()[0]
except sqlite3.Error:
    n = 0
sys.exit(0 if n == 1 else 1)
PY
}
wait_recorded() {
	for _ in $(seq $(($1 * 10))); do
		recorded "$2" && return 0
		sleep 0.1
	done
	return 1
}
replies() { grep -l "^In-Reply-To: <$1>" "$OUT"/new/* 2>/dev/null | wc -l; }
log_tail() { echo "# bot log (last 15 lines):"; tail -n 15 "$LOG" | cut -c1-300 | sed 's/^/#   /'; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; log_tail; return 1; fi; }

# through NAME SERVER-PORT SOURCE-KEYS: the daemon reads through the proxy
# in front of SERVER-PORT, its [source] SOURCE-KEYS (type, ...)
through() {
	C=$1 EV=$W/$1.events LOG=$W/$1.log DB=$W/$1.db OUT=$W/$1.out
	port=$(srv_free_port)
	: >"$EV"
	python3 "$PROXY" "$port" "$2" 200000 "$EV" &
	PROXY_PID=$!
	wait_event 10 "listening 0" || { not_ok "$C: the proxy starts"; return 1; }
	cat >"$W/$C.ini" <<INI
[tagbot]
state = $DB
log = stderr
log_level = debug

[source]
$3
host = 127.0.0.1
port = $port
tls = none
backfill = yes
poll_interval = 2
timeout = 10

[sink]
type = maildir
path = $OUT

$(reply_per_patch "tagbot <bot@example.org>")
INI
	"$TAGBOT" run -c "$W/$C.ini" >"$LOG" 2>&1 &
	BOT_PID=$!
	check "$C: the proxy cuts the first connection in the large message" wait_event 60 "cut 1" &&
	t0=$(now_ms) &&
	check "$C: the source connects again within 5 s" wait_event 5 "connect 2" &&
	echo "# $C: connected again $(($(now_ms) - t0)) ms after the cut"
	check "$C: logged as \"server closed the connection\"" \
		grep -q "$1: 127.0.0.1:$port: .*: server closed the connection" "$LOG"
	check "$C: the large message is recorded after the reconnect" \
		wait_recorded 60 e2e-big-1@example.org
	check "$C: the small one after it too" wait_recorded 10 e2e-small-1@example.org
	check "$C: each answered once" eval 'for _ in $(seq 50); do [ "$(replies e2e-small-1@example.org)" -ge 1 ] && break; sleep 0.1; done; [ "$(replies e2e-big-1@example.org)" -eq 1 ] && [ "$(replies e2e-small-1@example.org)" -eq 1 ]'
	check "$C: SIGTERM: exit 0 within 1 s" stop_within 1000
	proxy_kill
}

if [ -n "$HAVE_IMAP" ]; then
	export IMAPS_PORT SRV_DIR
	srv_start_dovecot || { not_ok "dovecot starts"; finish; exit 1; }
	$MAIL append bot@example.org "$W/big.eml" "$W/small.eml" || exit 99
	through imap "$IMAP_PORT" "type = imap
user = bot@example.org
password_file = $SRV_DIR/password
folder = INBOX"
fi

if [ -n "$HAVE_NNTP" ]; then
	srv_pi_inbox leds org.kernel.vger.linux-leds list@example.org || exit 99
	srv_pi_deliver list@example.org "$W/big.eml" "$W/small.eml" || exit 99
	srv_start_nntpd || exit 99
	through nntp "$NNTP_PORT" "type = nntp
groups = org.kernel.vger.linux-leds"
fi
finish
