# daemon-lib.sh - `tagbot run` against Dovecot and Postfix, for every
# integration script that runs the daemon (daemon-e2e.sh, daemon-series.sh,
# daemon-cc.sh, ...): sourced, never run.
#
# After servers.sh's srv_init and both servers: one bot at a time, on
# bot@example.org's INBOX over IMAP STARTTLS with IDLE, sending through
# Postfix; $W holds the mails and the bot's log.  Set INI and STATE, write
# the file with bot_ini, then bot_start / bot_stop.
export SRV_DIR IMAPS_PORT SMTP_PORT
MAIL="python3 $top_srcdir/tests/integration/e2e-mail.py"
BOT=bot@example.org
AUTHOR=author@example.org
MAINT=maint@example.org
RESEND_AFTER=5
W=$SRV_DIR/e2e
mkdir -p "$W"
BOT_PID=
trap 'bot_kill; srv_cleanup' EXIT

# bot_ini FILE STATE [REPLY-KEYS [MORE-SECTIONS]]: REPLY-KEYS go into
# [reply], MORE-SECTIONS after it (both as ini text).  The source is
# BOT_TLS on BOT_PORT (starttls on $IMAP_PORT) with backfill = BOT_BACKFILL
# (no); the log at BOT_LOG_LEVEL (debug).
bot_ini() {
	cat >"$1" <<INI
[tagbot]
state = $2
log = stderr
log_level = ${BOT_LOG_LEVEL:-debug}
min_reply_severity = warning

[source]
type = imap
host = 127.0.0.1
port = ${BOT_PORT:-$IMAP_PORT}
tls = ${BOT_TLS:-starttls}
ca_file = $SRV_DIR/ca.pem
user = $BOT
password_file = $SRV_DIR/password
folder = INBOX
idle = yes
poll_interval = 300
backfill = ${BOT_BACKFILL:-no}

[sink]
type = smtp
url = smtp://127.0.0.1:$SMTP_PORT
tls = starttls
ca_file = $SRV_DIR/ca.pem
resend_after = $RESEND_AFTER

[reply]
from = tagbot <$BOT>
to = author
max_per_author_per_hour = 0
max_per_minute = 0
repeat_after = 0
${3:-}

${4:-}
INI
}

bot_start() {
	echo "# --- tagbot run -c $INI" >>"$W/bot.log"
	"$TAGBOT" run -c "$INI" >>"$W/bot.log" 2>&1 &
	BOT_PID=$!
}

# bot_stop: SIGTERM, then at most 15 s for a clean exit; its status.
bot_stop() {
	kill -TERM "$BOT_PID" 2>/dev/null
	for _ in $(seq 150); do kill -0 "$BOT_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$BOT_PID" 2>/dev/null && echo "# tagbot did not stop within 15 s of SIGTERM"
	wait "$BOT_PID"
	rc=$?
	BOT_PID=
	return $rc
}

bot_kill() {
	[ -n "$BOT_PID" ] || return 0
	kill -KILL "$BOT_PID" 2>/dev/null
	wait "$BOT_PID" 2>/dev/null
	BOT_PID=
}

bot_alive() { [ -n "$BOT_PID" ] && kill -0 "$BOT_PID" 2>/dev/null; }

# db_true SQL: the state database answers SQL with a non-zero count.
db_true() {
	python3 - "$STATE" "$1" <<'PY'
import sqlite3, sys
try:
    con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=5)
    sys.exit(0 if con.execute(sys.argv[2]).fetchone()[0] else 1)
except sqlite3.Error:
    sys.exit(1)
PY
}

# wait_ready SECONDS: until the bot has a checkpoint for INBOX (it has read
# UIDNEXT; mail appended after this is new to it).
wait_ready() {
	for _ in $(seq $(($1 * 10))); do
		bot_alive || return 1
		db_true "SELECT count(*) FROM checkpoints" && return 0
		sleep 0.1
	done
	return 1
}

# wait_seen SECONDS NAME...: until the store has recorded each mail $W/NAME.eml.
wait_seen() {
	s=$1; shift
	for n in "$@"; do
		k=$(printf 'e2e-%s@example.org' "$n")
		for _ in $(seq $((s * 10))); do
			db_true "SELECT count(*) FROM messages WHERE msgid = '$k'" && continue 2
			sleep 0.1
		done
		return 1
	done
}

# mkmail NAME HEADER...: $W/NAME-1.eml, a patch without Signed-off-by,
# Message-ID <e2e-NAME-1@example.org>, whose HEADERs replace its own of the
# same names, at the end of its header block in the order given;
# "Body-From: X" puts "From: X" and a blank line first in its body.
mkmail() {
	n=$1; shift
	$MAIL patch nosob "$n" 1 --now >"$W/$n-1.eml" &&
	python3 - "$W/$n-1.eml" "$@" <<'PY'
import sys
path, new = sys.argv[1], sys.argv[2:]
head, _, body = open(path, "rb").read().decode().partition("\r\n\r\n")
hdrs = [h for h in new if not h.startswith("Body-From:")]
names = {h.split(":", 1)[0].lower() for h in hdrs}
lines = [l for l in head.split("\r\n") if l.split(":", 1)[0].lower() not in names] + hdrs
for h in new:
    if h.startswith("Body-From:"):
        body = "From:" + h[len("Body-From:"):] + "\r\n\r\n" + body
with open(path, "wb") as f:
    f.write(("\r\n".join(lines) + "\r\n\r\n" + body).encode())
PY
}

p() { for n in "$@"; do printf '%s ' "$W/$n.eml"; done; }
# listed LIST-ID NAME...: APPEND the list's copies of $W/NAME.eml ($W/NAME-list.eml)
listed() {
	l=$1; shift
	for n in "$@"; do
		$MAIL relist "$W/$n.eml" "$l" >"$W/$n-list.eml" && $MAIL append $BOT "$W/$n-list.eml"
	done
}
mid() { for n in "$@"; do printf '<e2e-%s@example.org> ' "$n"; done; }

fail_log() { echo "# bot log (last 30 lines):"; tail -n 30 "$W/bot.log" | sed 's/^/#   /'; }
check() {	# check DESC CMD...: like expect, with the bot's log on failure; its status
	d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fail_log; return 1; fi
}
# check_not DESC CMD...: the command must fail
check_not() {
	d=$1; shift
	if "$@"; then not_ok "$d"; fail_log; return 1; else ok "$d"; fi
}
