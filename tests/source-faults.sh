#!/bin/sh
# source-faults.sh - `tagbot run` against an IMAP and an NNTP server
# (tests/fake-source.py on loopback, plain and, when openssl can make a
# certificate, with implicit TLS) that breaks off in the middle of a
# message: half of an IMAP literal of a UID FETCH, or half of an ARTICLE
# answer, and then
#   cut     a FIN (over TLS without close_notify): the source logs "server
#           closed the connection", backs off and connects again within a
#           few seconds
#   reset   an RST: "connection reset by peer" (never "out of memory"),
#           and connects again
#   silent  nothing more: while the server is silent the daemon burns less
#           than 0.2 s of CPU in 5 s; after [source] timeout seconds it logs
#           "no answer for N s" and connects again
# Each time the second connection serves the message whole, and it is
# recorded and answered once: nothing is skipped.  And against a server
# that is always silent mid-message, SIGTERM ends the daemon (status 0)
# within 1 s.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
srv_init_dir
W=$SRV_DIR
FAKE="$top_srcdir/tests/fake-source.py"
T=7		# [source] timeout of the silent cases
BOT_PID= FAKE_PID=
trap 'bot_kill; fake_kill; srv_cleanup' EXIT
printf 'secret\n' >"$W/password"
chmod 600 "$W/password"
python3 "$top_srcdir/tests/integration/e2e-mail.py" patch nosob f 1 --now >"$W/mail.eml" || exit 99
# a throw-away CA and a certificate for 127.0.0.1 signed by it
TLS_MODES=none
if command -v openssl >/dev/null 2>&1 &&
   openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tagbot-test-ca \
	-keyout "$W/ca.key" -out "$W/ca.pem" 2>/dev/null &&
   openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
	-keyout "$W/key.pem" -out "$W/req.pem" 2>/dev/null &&
   printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$W/san.ext" &&
   openssl x509 -req -in "$W/req.pem" -CA "$W/ca.pem" -CAkey "$W/ca.key" -CAcreateserial \
	-days 2 -extfile "$W/san.ext" -out "$W/cert.pem" 2>/dev/null; then
	TLS_MODES="none implicit"
else
	echo "# skip: the TLS cases (no openssl)"
fi

bot_kill() { [ -z "$BOT_PID" ] || { kill -KILL "$BOT_PID"; wait "$BOT_PID"; } 2>/dev/null; BOT_PID=; }
fake_kill() { [ -z "$FAKE_PID" ] || { kill "$FAKE_PID"; wait "$FAKE_PID"; } 2>/dev/null; FAKE_PID=; }
# cpu_ticks PID: utime + stime of PID, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# wait_event SECONDS EVENT: until the fake server logged EVENT
wait_event() {
	for _ in $(seq $(($1 * 20))); do
		grep -qx "$2" "$EV" && return 0
		sleep 0.05
	done
	return 1
}
recorded() {
	python3 - "$DB" <<'PY'
import sqlite3, sys
try:
    con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=5)
    n = con.execute("SELECT count(*) FROM messages WHERE msgid = 'e2e-f-1@example.org'").fetchone()[0]
except sqlite3.Error:
    n = 0
sys.exit(0 if n == 1 else 1)
PY
}
wait_recorded() { for _ in $(seq $(($1 * 10))); do recorded && return 0; sleep 0.1; done; return 1; }
replies() { grep -l "^In-Reply-To: <e2e-f-1@example.org>" "$OUT"/new/* 2>/dev/null | wc -l; }
log_tail() { echo "# bot log (last 15 lines):"; tail -n 15 "$LOG" | sed 's/^/#   /'; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; log_tail; return 1; fi; }

# start PROTO MODE BAD: the fake server and the daemon reading it, with
# TLS (none or implicit); C names the case: imap-cut-1, imaps-cut-1, ...
start() {
	C=$1$([ "$TLS" = none ] || echo s)-$2-$3
	EV=$W/$C.events LOG=$W/$C.log DB=$W/$C.db OUT=$W/$C.out
	port=$(srv_free_port)
	: >"$EV"
	if [ "$TLS" = none ]; then
		python3 "$FAKE" "$1" "$2" "$port" "$W/mail.eml" "$EV" "$3" &
	else
		python3 "$FAKE" "$1" "$2" "$port" "$W/mail.eml" "$EV" "$3" \
			"$W/cert.pem" "$W/key.pem" &
	fi
	FAKE_PID=$!
	wait_event 10 "listening 0" || { not_ok "$C: the fake server starts"; return 1; }
	if [ "$1" = imap ]; then
		src="type = imap
user = bot
password_file = $W/password
folder = INBOX"
	else
		src="type = nntp
groups = test.patches"
	fi
	cat >"$W/$C.ini" <<INI
[tagbot]
state = $DB
log = stderr
log_level = debug

[source]
$src
host = 127.0.0.1
port = $port
tls = $TLS
$([ "$TLS" = none ] || echo "ca_file = $W/ca.pem")
backfill = yes
poll_interval = 300
timeout = $T

[sink]
type = maildir
path = $OUT

$(reply_per_patch "tagbot <bot@example.org>")
INI
	"$TAGBOT" run -c "$W/$C.ini" >"$LOG" 2>&1 &
	BOT_PID=$!
	check "$C: the server sent half the message" wait_event 15 "half 1"
}

# reconnects SECONDS: a second connection within SECONDS of the break
reconnects() {
	t0=$(now_ms)
	wait_event "$1" "connect 2" || return 1
	echo "# $C: connected again $(($(now_ms) - t0)) ms after the break"
}

# broken PROTO MODE MESSAGE: the break logged as MESSAGE, a reconnect, the
# message recorded and answered once, SIGTERM honoured
broken() {
	start "$1" "$2" 1 || { bot_kill; fake_kill; return; }
	if [ "$2" = silent ]; then
		t0=$(cpu_ticks "$BOT_PID")
		sleep 5
		t1=$(cpu_ticks "$BOT_PID")
		hz=$(getconf CLK_TCK)
		echo "# $C: $((t1 - t0)) ticks of CPU (at $hz a second) in 5 s of silence"
		check "$C: idle while the server is silent (< 0.2 s CPU in 5 s)" \
			[ $(((t1 - t0) * 1000 / hz)) -lt 200 ]
		# 5 s of the timeout + 5 s have passed
		check "$C: connects again within timeout + 5 s" reconnects "$T"
	else
		check "$C: connects again within 5 s" reconnects 5
	fi
	check "$C: logged as \"$3\"" grep -q "$1: 127.0.0.1:$port: .*$3" "$LOG"
	check "$C: never \"out of memory\"" eval '! grep -q "out of memory" "$LOG"'
	check "$C: the message is recorded after the reconnect" wait_recorded 15
	check "$C: it is answered once" eval 'for _ in $(seq 50); do [ "$(replies)" -ge 1 ] && break; sleep 0.1; done; [ "$(replies)" -eq 1 ]'
	check "$C: SIGTERM: exit 0 within 1 s" stop_within 1000
	fake_kill
}

# stuck PROTO: a server silent in every answer: SIGTERM while the daemon
# waits in the middle of the message
stuck() {
	start "$1" silent 99 || { bot_kill; fake_kill; return; }
	sleep 0.5
	check "$C: SIGTERM while waiting mid-message: exit 0 within 1 s" stop_within 1000
	check "$C: the server saw the connection closed" wait_event 2 "client-closed 1"
	fake_kill
}

for TLS in $TLS_MODES; do
	for proto in imap nntp; do
		broken $proto cut "server closed the connection"
		broken $proto reset "connection reset by peer"
		broken $proto silent "no answer for $T s"
		stuck $proto
	done
done
finish
