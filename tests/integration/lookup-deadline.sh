#!/bin/sh
# lookup-deadline.sh - link lookups wait once, not once per link.
# `tagbot run` on a Maildir gets three patches with 32 Link:
# lines each to an archive that accepts connections and never answers
# ([lookup] timeout = 2, concurrency 4: 192 transfers, 96 s at one timeout
# per round).  While their lookups run, a patch with no link arrives: it
# must be answered after about one timeout, not after all of them, and the
# stuck archive must give no LINK_DEAD or LINK_NO_NEW_INFO.  Everything
# listens on 127.0.0.1, on a free port, in a temporary directory; servers
# are stopped by PID.  Skips (77) only when python3 is missing, or
# TAGBOT_NO_SERVERS is set.  LOOKUP_DEADLINE_WAIT (seconds, default 20):
# how long to wait for the replies before failing (raise it to time a
# build that waits once per link).
. "$top_srcdir/tests/lib.sh"

[ -z "${TAGBOT_NO_SERVERS:-}" ] || { echo "SKIP: TAGBOT_NO_SERVERS is set"; exit 77; }
command -v python3 >/dev/null 2>&1 ||
	{ echo "SKIP: python3 is not installed (contrib/install-deps.sh)"; exit 77; }

D=$TAGBOT_TEST_DATA
T=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-deadline.XXXXXX")
PIDS=
BOT=
WAIT=${LOOKUP_DEADLINE_WAIT:-20}
cleanup() {
	[ -z "$BOT" ] || { kill -KILL "$BOT" 2>/dev/null; wait "$BOT" 2>/dev/null; }
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${LOOKUP_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT


# --- an archive that accepts and never answers; one line per connection ----
cat >"$T/silent.py" <<'PY'
import os, socket, sys

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(256)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
log = open(sys.argv[2], "a", buffering=1)
held = []
while True:
    c, _ = s.accept()
    held.append(c)		# kept open, never read, never answered
    log.write("connection\n")
PY
: >"$T/silent.log"
python3 "$T/silent.py" "$T/port" "$T/silent.log" 2>"$T/silent.err" &
PIDS="$PIDS $!"
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || { cat "$T/silent.err"; echo "the silent server did not start"; exit 1; }
PORT=$(cat "$T/port")

# --- the daemon's Maildirs and configuration ----------------------------------
M=$T/bot
mkdir -p "$M/in/new" "$M/in/cur" "$M/in/tmp"
cat >"$M/tagbot.ini" <<INI
[tagbot]
state = state.db
log_level = debug
[source]
type = maildir
path = in
poll_interval = 1
[sink]
type = maildir
path = out
[reply]
from = tagbot <tagbot@example.org>
max_per_author_per_hour = 0
max_per_minute = 0
repeat_after = 0
[lookup]
enabled = yes
archive_url = http://127.0.0.1:$PORT/all/
timeout = 2
INI

# patch K: 32 links to messages of the archive, no sign-off (so it is answered)
patch() {
	printf 'From: Dave Dev <dave@example.org>\nTo: linux-leds@vger.kernel.org\n'
	printf 'Subject: [PATCH] leds: many%d: fix the clock\n' "$1"
	printf 'Date: Tue, 06 Jan 2026 12:00:0%d +0000\n' "$1"
	printf 'Message-ID: <20260106120000.200%d-1-dave@example.org>\n' "$1"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n'
	printf 'Thirty-two links to an archive that never answers.\n\n'
	for i in $(seq 32); do
		printf 'Link: https://lore.kernel.org/r/20251201.%d.%d-1-eve@example.org\n' "$1" "$i"
	done
	printf '%s\n' '---' 'diff --git a/x b/x' '--- a/x' '+++ b/x' '@@ -1 +1 @@' '-a' '+b'
}
for k in 1 2 3; do patch "$k" >"$M/in/new/$k.many"; done

replies_to() {
	python3 - "$1" "$2" <<'PY'
import email, os, sys
sink, want = sys.argv[1], sys.argv[2]
hits = []
for sub in ("new", "cur"):
    d = os.path.join(sink, sub)
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, f), "rb") as fh:
            m = email.message_from_binary_file(fh)
        if (m["In-Reply-To"] or "").strip().strip("<>") == want:
            hits.append(m.get_payload(decode=True).decode("utf-8", "replace"))
print(len(hits))
for h in hits:
    sys.stderr.write(h)
PY
}
# until_true SECONDS CMD...: CMD succeeds within SECONDS (by the clock: a
# loaded machine makes each try slower, not the wait longer)
until_true() {
	end=$(($(now_ms) + $1 * 1000)); shift
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
has_reply() { [ "$(replies_to "$M/out" "$1" 2>/dev/null)" != 0 ]; }
waiting3() { [ "$(grep -c 'waits for its lookups' "$M/run.log")" -ge 3 ]; }
asked() { [ -s "$T/silent.log" ]; }

ID_NONE=20260106090000.1001-1-ann@example.org
t_start=$(now_ms)
"$TAGBOT" run -c "$M/tagbot.ini" >"$M/run.out" 2>"$M/run.log" &
BOT=$!
expect "the three patches wait for their lookups" until_true 20 waiting3
expect "... which have reached the silent archive" until_true 10 asked

# The patch with no link arrives while those lookups hang.
cp "$D/lookup/lookup-daemon-no-links.eml" "$M/in/tmp/4.none"
mv "$M/in/tmp/4.none" "$M/in/new/4.none"
t0=$(now_ms)
t_none=99999
until_true "$WAIT" has_reply "$ID_NONE" && t_none=$(($(now_ms) - t0))
# What is left of the 2 s deadline, then the next poll (every second): at
# most about 3 s; one timeout per round of 4 transfers would be 96 s.
expect "the patch with no link is answered within 8 s ($t_none ms; 99999: not in $WAIT s)" \
	[ "$t_none" -lt 8000 ]

all3() {
	for k in 1 2 3; do
		[ "$(replies_to "$M/out" "20260106120000.200$k-1-dave@example.org" 2>/dev/null)" = 1 ] ||
			return 1
	done
}
t_all=99999
until_true "$WAIT" all3 && t_all=$(($(now_ms) - t_start))
expect "the three patches with 32 stuck links each are answered once, within 12 s of the start ($t_all ms)" \
	[ "$t_all" -lt 12000 ]

for k in 1 2 3; do
	replies_to "$M/out" "20260106120000.200$k-1-dave@example.org" 2>>"$T/many.txt" >/dev/null
done
expect "no LINK_DEAD or LINK_NO_NEW_INFO from an archive that never answered" \
	[ "$(grep -c -E 'LINK_DEAD|LINK_NO_NEW_INFO' "$T/many.txt")" = 0 ]
expect "... the replies are about the missing sign-off" \
	[ "$(grep -c MISSING_SIGN_OFF "$T/many.txt")" -ge 3 ]
expect "the unanswered lookups are logged, not findings" \
	grep -q "127.0.0.1:$PORT/all/.*/raw: .*timed out.*not a finding" "$M/run.log"
expect "the queued ones were cut at the deadline, not given a timeout each" \
	grep -q "not started within the lookup deadline" "$M/run.log"
n=$(wc -l <"$T/silent.log")
expect "one round of transfers reached the archive, not 48 ($n connections)" [ "$n" -le 8 ]

# SIGTERM, and SIGKILL from a watchdog if it has not exited within 15 s
kill -TERM "$BOT" 2>/dev/null
( sleep 15; kill -KILL "$BOT" 2>/dev/null ) &
DOG=$!
wait "$BOT"
rc=$?
BOT=
kill "$DOG" 2>/dev/null
wait "$DOG" 2>/dev/null
expect "tagbot stops on SIGTERM (exit $rc)" [ "$rc" = 0 ]

finish
