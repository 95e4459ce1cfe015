#!/bin/sh
# lookup.sh - archive lookups against a real public-inbox (LINK_NO_NEW_INFO,
# LINK_DEAD, LINK_TO_PREVIOUS_VERSION from the archive), plus a small web
# server of our own for the answers public-inbox never gives (slow,
# garbage, 405, 5xx).  Everything listens on 127.0.0.1, on free ports, in a
# temporary directory; servers are stopped by PID.  Skips (77) only when
# public-inbox or python3 is missing, or TAGBOT_NO_SERVERS is set.
. "$top_srcdir/tests/lib.sh"

[ -z "${TAGBOT_NO_SERVERS:-}" ] || { echo "SKIP: TAGBOT_NO_SERVERS is set"; exit 77; }

for b in public-inbox-init public-inbox-mda public-inbox-httpd python3; do
	command -v "$b" >/dev/null 2>&1 ||
		{ echo "SKIP: $b is not installed (contrib/install-deps.sh)"; exit 77; }
done

D=$TAGBOT_TEST_DATA
T=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-lookup.XXXXXX")
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${LOOKUP_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() {
	python3 - "$1" <<'PY'
import socket, sys, time
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
}

# --- the archive: a v2 inbox built from the fixture mails -----------------
ADDR=linux-leds@vger.kernel.org
PI_PORT=$(free_port)
PI_CONFIG=$T/pi-config PI_DIR=$T/pi
export PI_CONFIG PI_DIR
public-inbox-init -V2 leds "$T/inbox" "http://127.0.0.1:$PI_PORT/leds" "$ADDR" >"$T/init.log" 2>&1 ||
	{ cat "$T/init.log"; echo "public-inbox-init failed"; exit 1; }
git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
for m in lookup-patch-unanswered lookup-v1-maintainer-acked lookup-maintainer-reply lookup-bug-report; do
	ORIGINAL_RECIPIENT=$ADDR public-inbox-mda <"$D/lookup/$m.eml" >>"$T/mda.log" 2>&1 ||
		{ cat "$T/mda.log"; echo "public-inbox-mda refused $m"; exit 1; }
done
public-inbox-httpd -l "http://127.0.0.1:$PI_PORT" >"$T/httpd.log" 2>&1 &
PI_PID=$!
PIDS="$PIDS $PI_PID"
wait_port "$PI_PORT" || { cat "$T/httpd.log"; echo "public-inbox-httpd did not start"; exit 1; }
ARCHIVE=http://127.0.0.1:$PI_PORT/leds/

# --- a web server for everything else; one "METHOD PATH" line per request -
WEB_PORT=$(free_port)
cat >"$T/web.py" <<'PY'
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = open(sys.argv[2], "a", buffering=1)

class H(BaseHTTPRequestHandler):
    def answer(self, body):
        LOG.write("%s %s %s %.3f\n" % (self.command, self.path,
                                        self.headers.get("User-Agent", ""), time.time()))
        p = self.path
        code = {"/gone": 404, "/removed": 410, "/error": 503}.get(p, 200)
        if p == "/head-405" and self.command == "HEAD":
            code = 405
        if p == "/slow":
            time.sleep(4)
        if p == "/slower":
            time.sleep(8)
        data = b"ok\n"
        if p.startswith("/garbage/"):
            data = bytes(range(256)) * 64 + b"\n<entry><author><email>x"
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            try:
                self.wfile.write(data)
            except OSError:
                pass
    def do_GET(self):
        self.answer(True)
    def do_HEAD(self):
        self.answer(False)
    def log_message(self, *a):
        pass

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
: >"$T/web.log"
python3 "$T/web.py" "$WEB_PORT" "$T/web.log" 2>"$T/web.err" &
PIDS="$PIDS $!"
wait_port "$WEB_PORT" || { cat "$T/web.err"; echo "the web server did not start"; exit 1; }
sed "s/@WEB@/127.0.0.1:$WEB_PORT/g" "$D/lookup/lookup-links-servers.eml" >"$T/servers.eml"

# line NEEDLE FILE: the line number of the first line holding NEEDLE
line() { grep -n -F -- "$1" "$2" | head -n 1 | cut -d: -f1; }
# has_finding FILE LINE RULE: the text output holds RULE at FILE:LINE
has_finding() { grep -q -F -- "$1:$2: WARNING:$3:" "$T/out"; }
no_finding() { ! grep -q -F -- ":$1: WARNING:$2:" "$T/out"; }
check() { "$TAGBOT" check -q "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/rc"; }
cond() { eval "$1"; }

# --- found: what the archive says about each linked message ---------------
A=$D/lookup/lookup-links-archive.eml
check --lookups="$ARCHIVE" --lookup-timeout=5 "$A"
expect "found: exit 1 (findings)" [ "$(cat "$T/rc")" = 1 ]
L_UNANSWERED=$(line 20250130194627.280618-1-eajames "$A")
L_ACKED=$(line 20250107131456.247610-1-krzysztof "$A")
L_BUG=$(line cc399d9a-1470-494a-a9f9-8f0516a58800 "$A")
L_MISSING=$(line 20251224-no-such-posting "$A")
expect "found: LINK_NO_NEW_INFO for the unanswered patch posting" \
	has_finding "$A" "$L_UNANSWERED" LINK_NO_NEW_INFO
expect "found: no LINK_NO_NEW_INFO for the patch a maintainer acked" \
	no_finding "$L_ACKED" LINK_NO_NEW_INFO
expect "found: no LINK_NO_NEW_INFO for the bug report" no_finding "$L_BUG" LINK_NO_NEW_INFO
expect "404: LINK_DEAD for a Message-ID the archive does not have" \
	has_finding "$A" "$L_MISSING" LINK_DEAD
expect "found: exactly two lookup findings" \
	[ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 2 ]
expect "found: nothing logged" [ ! -s "$T/err" ]
check "$A"
expect "without --lookups: no lookup finding" \
	[ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 0 ]

V2=$D/lookup/lookup-v2-links-v1.eml
check --lookups="$ARCHIVE" "$V2"
expect "previous version: the archive shows the link is v1 of this v2" \
	has_finding "$V2" "$(line 'Link: https://lore' "$V2")" LINK_TO_PREVIOUS_VERSION
expect "previous version: no LINK_NO_NEW_INFO on top (v1 was acked)" \
	[ "$(grep -c LINK_NO_NEW_INFO "$T/out")" = 0 ]
check "$V2"
expect "previous version: nothing without lookups (the IDs say nothing)" \
	[ "$(grep -c LINK_TO_PREVIOUS_VERSION "$T/out")" = 0 ]

# --- plain URLs: 404, 410, 405, slow, 5xx, a host that does not resolve -----
S=$T/servers.eml
# 8 transfers (the 405 is asked twice) at the default 5/s start over 1.4 s:
# all within the one deadline the timeout sets; /slow answers after 4 s.
check --lookups="$ARCHIVE" --lookup-timeout=2 "$S"
expect "dead: LINK_DEAD for 404" has_finding "$S" "$(line /gone "$S")" LINK_DEAD
expect "dead: LINK_DEAD for 410" has_finding "$S" "$(line /removed "$S")" LINK_DEAD
expect "dead: LINK_DEAD for a host under .invalid" has_finding "$S" "$(line .invalid "$S")" LINK_DEAD
expect "alive: no finding for 200" no_finding "$(line /alive "$S")" LINK_DEAD
expect "405: no finding, HEAD then GET" no_finding "$(line /head-405 "$S")" LINK_DEAD
expect "405: the GET was sent" grep -q '^GET /head-405 ' "$T/web.log"
expect "slow: no finding" no_finding "$(line /slow "$S")" LINK_DEAD
expect "slow: the timeout is logged" grep -q "/slow: .*not a finding" "$T/err"
expect "5xx: no finding" no_finding "$(line /error "$S")" LINK_DEAD
expect "5xx: logged" grep -q "/error: HTTP 503, not a finding" "$T/err"
expect "dead: exactly three LINK_DEAD" [ "$(grep -c LINK_DEAD "$T/out")" = 3 ]
expect "User-Agent names tagbot" grep -q "^HEAD /alive tagbot/" "$T/web.log"
# 7 requests reached the server; at the default rate of 5/s they span >= 1.2 s
span=$(awk '{ t[NR] = $NF } END { printf "%d", (t[NR] - t[1]) * 1000 }' "$T/web.log")
expect "rate: 7 requests at 5/s take at least 1.1 s ($span ms)" [ "$span" -ge 1100 ]

# --- a mail cannot make the bot probe the network it runs in ------------------
: >"$T/web.log"
check --lookups="http://localhost:$PI_PORT/leds/" --lookup-timeout=2 "$S"
expect "private: loopback links are refused when the archive is another host" \
	[ ! -s "$T/web.log" ]
expect "private: refusals are logged" grep -q "/alive: refused: a loopback or private address" "$T/err"
expect "private: only the unresolvable host is dead" [ "$(grep -c LINK_DEAD "$T/out")" = 1 ]

# --- no resolver: when the archive's host does not resolve either, no link is dead
check --lookups="http://archive.example.invalid/leds/" --lookup-timeout=2 "$S"
expect "no resolver: no LINK_DEAD at all" [ "$(grep -c LINK_DEAD "$T/out")" = 0 ]
expect "no resolver: logged" grep -q "host names do not resolve" "$T/err"

# --- malformed: an "archive" that answers garbage ---------------------------
check --lookups="http://127.0.0.1:$WEB_PORT/garbage/" --lookup-timeout=5 "$A"
expect "malformed: no crash (exit 0 or 1)" [ "$(cat "$T/rc")" -le 1 ]
expect "malformed: no lookup finding" [ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 0 ]
expect "malformed: logged" grep -q "garbage/.*/raw: .*not a finding" "$T/err"

# --- refused: nothing listens at the port ------------------------------------
DEAD_PORT=$(free_port)
sed "s/@WEB@/127.0.0.1:$DEAD_PORT/g" "$D/lookup/lookup-links-servers.eml" | grep -v '\.invalid' >"$T/refused.eml"
check --lookups="http://127.0.0.1:$DEAD_PORT/leds/" --lookup-timeout=5 "$T/refused.eml" "$A"
expect "refused: no lookup finding (plain URLs and archive links)" \
	[ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 0 ]
expect "refused: logged" grep -q "127.0.0.1:$DEAD_PORT/gone: .*not a finding" "$T/err"
expect "refused: the archive link logged" grep -q "$DEAD_PORT/leds/.*/raw: .*not a finding" "$T/err"

# --- slow archive: public-inbox-httpd stopped (SIGSTOP) answers nothing ------
# the master and its workers (public-inbox-httpd forks them), by PID
PI_ALL="$PI_PID $(ps -o pid= --ppid "$PI_PID" | tr -s ' \n' ' ')"
kill -STOP $PI_ALL
t0=$(date +%s)
check --lookups="$ARCHIVE" --lookup-timeout=2 "$A"
t1=$(date +%s)
kill -CONT $PI_ALL
expect "slow archive: no lookup finding" [ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 0 ]
expect "slow archive: the timeouts are logged" grep -q "/raw: .*timed out.*not a finding" "$T/err"
expect "slow archive: 4 at once: 8 transfers, timeout 2, in $((t1 - t0)) s, not 16" \
	[ $((t1 - t0)) -le 7 ]
check --lookups="$ARCHIVE" --lookup-timeout=5 "$A"
expect "slow archive: answering again after SIGCONT" \
	[ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 2 ]

# --- [lookup] in the ini file drives tagbot check ---------------------------
cat >"$T/check.ini" <<INI
[lookup]
enabled = yes
archive_url = $ARCHIVE
timeout = 1
concurrency = 2
rate = 0
cache_ttl = 0
user_agent = lookup.sh test@example.org
INI
: >"$T/web.log"
"$TAGBOT" check -q -c "$T/check.ini" "$A" "$S" >"$T/out" 2>"$T/err"
expect "ini: the archive is asked (LINK_NO_NEW_INFO)" \
	has_finding "$A" "$L_UNANSWERED" LINK_NO_NEW_INFO
expect "ini: timeout = 1 applies (slow logged)" grep -q "/slow: .*not a finding" "$T/err"
expect "ini: user_agent follows tagbot/VERSION" \
	grep -q "^HEAD /alive tagbot/[0-9][^ ]* lookup.sh test@example.org " "$T/web.log"
expect "ini: three LINK_DEAD as with --lookups" [ "$(grep -c "servers.eml:.*LINK_DEAD" "$T/out")" = 3 ]
sed -i 's/^enabled = yes/enabled = no/' "$T/check.ini"
"$TAGBOT" check -q -c "$T/check.ini" "$A" >"$T/out" 2>"$T/err"
expect "ini: enabled = no: no lookup finding" \
	[ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 0 ]
printf '[lookup]\narchive_url = ftp://example.org/\n' >"$T/bad.ini"
expect "ini: archive_url must be http(s)" \
	cond '! "$TAGBOT" check -q -c "$T/bad.ini" "$A" 2>"$T/err" && grep -q "archive_url" "$T/err"'

# --- the cache: a second run asks nobody ------------------------------------
C=$T/cache.db
grep -v -e /slow -e /error -e .invalid "$S" >"$T/cacheable.eml"
check --lookups="$ARCHIVE" --lookup-cache="$C" "$A" "$T/cacheable.eml"
cp "$T/out" "$T/out.first"
before=$(wc -l <"$T/web.log")
kill "$PI_PID"
wait "$PI_PID" 2>/dev/null
check --lookups="$ARCHIVE" --lookup-cache="$C" "$A" "$T/cacheable.eml"
expect "cache: the same findings with the archive stopped" cmp -s "$T/out" "$T/out.first"
expect "cache: no request to the web server" [ "$(wc -l <"$T/web.log")" = "$before" ]
expect "cache: nothing failed" [ ! -s "$T/err" ]
expect "cache: the findings are there" [ "$(grep -c -E 'LINK_NO_NEW_INFO|LINK_DEAD' "$T/out")" = 4 ]

# --- tagbot run: a reply that needs no lookup does not wait for one ----------
# Three patches in one Maildir batch: one with a link the server answers
# after 8 s (timeout 4), one with a 404 link, one with no link at all
# (listed last, so it is handled after the others started waiting).
DM=$T/daemon
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
ID_SLOW=20260106090001.1002-1-bob@example.org
ID_DEAD=20260106090002.1003-1-cleo@example.org
ID_NONE=20260106090000.1001-1-ann@example.org
daemon_setup() {
	rm -rf "$DM"
	mkdir -p "$DM/in/new" "$DM/in/cur" "$DM/in/tmp"
	sed "s/@WEB@/127.0.0.1:$WEB_PORT/g" "$D/lookup/lookup-daemon-slow-link.eml" >"$DM/in/new/1.slow"
	sed "s/@WEB@/127.0.0.1:$WEB_PORT/g" "$D/lookup/lookup-daemon-dead-link.eml" >"$DM/in/new/2.dead"
	cp "$D/lookup/lookup-daemon-no-links.eml" "$DM/in/new/3.none"
	cat >"$DM/tagbot.ini" <<INI
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
[lookup]
enabled = yes
archive_url = http://127.0.0.1:$WEB_PORT/leds/
timeout = 4
INI
}
# wait_reply ID SECONDS: until the sink holds a reply to ID
wait_reply() {
	i=0
	while [ "$(replies_to "$DM/out" "$1" 2>/dev/null)" = 0 ]; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
daemon_setup
start=$(date +%s%N)
"$TAGBOT" run -c "$DM/tagbot.ini" --once >"$DM/run.out" 2>"$DM/run.log" &
BOT=$!
wait_reply "$ID_NONE" 10
t_none=$(( ($(date +%s%N) - start) / 1000000 ))
slow_then=$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)
running=no
kill -0 "$BOT" 2>/dev/null && running=yes
wait "$BOT"
rc=$?
t_all=$(( ($(date +%s%N) - start) / 1000000 ))
expect "run: exit 0" [ "$rc" = 0 ]
expect "run: the patch with no link is answered at once (${t_none} ms)" [ "$t_none" -lt 2500 ]
expect "run: ... while the slow lookup still runs" [ "$running" = yes ]
expect "run: ... and before the patch with the slow link is answered" [ "$slow_then" = 0 ]
expect "run: the run waited for the lookup timeout (${t_all} ms)" [ "$t_all" -ge 4000 ]
expect "run: one reply to each patch" cond '[ "$(replies_to "$DM/out" "$ID_NONE" 2>/dev/null)" = 1 ] &&
	[ "$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)" = 1 ] &&
	[ "$(replies_to "$DM/out" "$ID_DEAD" 2>/dev/null)" = 1 ]'
replies_to "$DM/out" "$ID_SLOW" 2>"$DM/slow.txt" >/dev/null
replies_to "$DM/out" "$ID_DEAD" 2>"$DM/dead.txt" >/dev/null
expect "run: the slow link is no finding" cond '! grep -q LINK_DEAD "$DM/slow.txt" && grep -q MISSING_SIGN_OFF "$DM/slow.txt"'
expect "run: the 404 link is LINK_DEAD ([lookup] enabled = yes)" grep -q LINK_DEAD "$DM/dead.txt"
expect "run: the timeout is logged" grep -q "/slower: .*not a finding" "$DM/run.log"

# Killed while lookups wait: the waiting patches are not lost, none is
# answered twice.
daemon_setup
: >"$T/web.log"
"$TAGBOT" run -c "$DM/tagbot.ini" >"$DM/run.out" 2>"$DM/run.log" &
BOT=$!
wait_reply "$ID_NONE" 10
i=0
until grep -q "^[A-Z]* /slower " "$T/web.log" || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
kill -KILL "$BOT"
wait "$BOT" 2>/dev/null
expect "kill: only the reply that needed no lookup was out" \
	cond '[ "$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)" = 0 ] && [ "$(replies_to "$DM/out" "$ID_DEAD" 2>/dev/null)" = 0 ]'
"$TAGBOT" run -c "$DM/tagbot.ini" --once >"$DM/run.out" 2>"$DM/run2.log"
expect "kill: after a restart, one reply to each patch" cond '[ "$(replies_to "$DM/out" "$ID_NONE" 2>/dev/null)" = 1 ] &&
	[ "$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)" = 1 ] &&
	[ "$(replies_to "$DM/out" "$ID_DEAD" 2>/dev/null)" = 1 ]'

# --- what the store knows: earlier versions and series mates, no lookups -----
SM=$T/store
store_run() {
	rm -rf "$SM"
	mkdir -p "$SM/in/new" "$SM/in/cur" "$SM/in/tmp"
	n=0
	for f in "$@"; do
		n=$((n + 1))
		cp "$D/lookup/lookup-store-$f.eml" "$SM/in/new/$n.$f"
	done
	cat >"$SM/tagbot.ini" <<INI
[tagbot]
state = state.db
min_reply_severity = check
[source]
type = maildir
path = in
[sink]
type = maildir
path = out
[reply]
from = tagbot <tagbot@example.org>
reply_mode = per-patch
max_per_author_per_hour = 0
max_per_minute = 0
INI
	"$TAGBOT" run -c "$SM/tagbot.ini" --once >"$SM/run.out" 2>"$SM/run.log"
}
ID_V2=20260117100000.2101-1-dana@example.org
ID_S2=e5f6a7b8@eve.example.org
store_run v1 v2 series-1 series-2
replies_to "$SM/out" "$ID_V2" 2>"$SM/v2.txt" >"$SM/v2.n"
replies_to "$SM/out" "$ID_S2" 2>"$SM/s2.txt" >"$SM/s2.n"
expect "store: v2 linking to the v1 the bot saw: LINK_TO_PREVIOUS_VERSION" \
	cond '[ "$(cat "$SM/v2.n")" = 1 ] && grep -q LINK_TO_PREVIOUS_VERSION "$SM/v2.txt"'
expect "store: patch 2/2 linking to 1/2 (grouped by the store): LINK_TO_OWN_SERIES" \
	cond '[ "$(cat "$SM/s2.n")" = 1 ] && grep -q LINK_TO_OWN_SERIES "$SM/s2.txt"'
expect "store: the linked v1 and 1/2 are clean: no reply" \
	[ "$(ls "$SM/out/new" | wc -l)" = 2 ]
store_run v2 series-2
expect "store: without the earlier mails in the store, no finding and no reply" \
	[ "$(ls "$SM/out/new" 2>/dev/null | wc -l)" = 0 ]

# --- IMAP: while patches wait, the checkpoint stays below them ----------------
# SIGKILL during the lookups: the folder checkpoint must not have passed the
# waiting UIDs, or they would never be fetched again.
if command -v dovecot >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then
	. "$top_srcdir/tests/integration/servers.sh"
	srv_init
	trap 'srv_cleanup; cleanup' EXIT
	if srv_start_dovecot; then
		export SRV_DIR IMAPS_PORT
		daemon_setup
		cat >"$DM/tagbot.ini" <<INI
[tagbot]
state = state.db
[source]
type = imap
host = 127.0.0.1
port = $IMAPS_PORT
ca_file = $SRV_DIR/ca.pem
user = bot@example.org
password_file = $SRV_DIR/password
idle = no
poll_interval = 1
backfill = yes
[sink]
type = maildir
path = out
[reply]
from = tagbot <tagbot@example.org>
max_per_author_per_hour = 0
max_per_minute = 0
[lookup]
enabled = yes
archive_url = http://127.0.0.1:$WEB_PORT/leds/
timeout = 4
INI
		# UIDs 1 (slow link), 2 (dead link), 3 (no link)
		python3 "$top_srcdir/tests/integration/e2e-mail.py" append bot@example.org \
			"$DM/in/new/1.slow" "$DM/in/new/2.dead" "$DM/in/new/3.none"
		: >"$T/web.log"
		"$TAGBOT" run -c "$DM/tagbot.ini" >"$DM/run.out" 2>"$DM/run.log" &
		BOT=$!
		wait_reply "$ID_NONE" 20
		i=0
		until grep -q "^[A-Z]* /slower " "$T/web.log" || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
		"$TAGBOT" status -c "$DM/tagbot.ini" >"$DM/status" 2>&1
		kill -KILL "$BOT"
		wait "$BOT" 2>/dev/null
		expect "imap: UID 3 answered while UIDs 1 and 2 wait" cond '[ "$(replies_to "$DM/out" "$ID_NONE" 2>/dev/null)" = 1 ] &&
			[ "$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)" = 0 ]'
		expect "imap: the checkpoint stays below the first waiting UID" \
			grep -q "INBOX: uidvalidity [0-9]*, last uid 0\$" "$DM/status"
		"$TAGBOT" run -c "$DM/tagbot.ini" --once >"$DM/run.out" 2>"$DM/run2.log"
		"$TAGBOT" status -c "$DM/tagbot.ini" >"$DM/status" 2>&1
		expect "imap: after SIGKILL and a restart, one reply to each patch" \
			cond '[ "$(replies_to "$DM/out" "$ID_NONE" 2>/dev/null)" = 1 ] &&
			[ "$(replies_to "$DM/out" "$ID_SLOW" 2>/dev/null)" = 1 ] &&
			[ "$(replies_to "$DM/out" "$ID_DEAD" 2>/dev/null)" = 1 ]'
		expect "imap: then the checkpoint is at UID 3" \
			grep -q "INBOX: uidvalidity [0-9]*, last uid 3\$" "$DM/status"
	else
		not_ok "imap: dovecot did not start"
	fi
else
	echo "# dovecot or openssl missing: the IMAP checkpoint case is not run"
fi

finish
