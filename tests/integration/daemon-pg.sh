#!/bin/sh
# Two daemons on one PostgreSQL state share the work (store.h): a real
# PostgreSQL started as in store-pg.sh, a 600-message backlog in one Maildir
# that both read, one sink Maildir both write to.
#   - the password comes from [tagbot] state_password_file (0600), and
#     check-config and status show the URL without it
#   - both run while one of them, chosen at random, is SIGKILLed at random
#     moments (and started again); then one is killed for good and the other
#     finishes the backlog alone
#   - every patch that needs a reply has exactly one (as daemon-maildir.sh
#     checks for one daemon on SQLite), the clean ones none; the store
#     counts 600 messages, each decided once, 300 replies sent, none queued
#   - PostgreSQL restarted under a running daemon: it reconnects and answers
#     the next patch once; a wrong password file fails the start
# DAEMON_SEED=N replays the moments and the victims.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_setup_postgres
W=$SRV_DIR/work
tmp=$W/t
mkdir -p "$W/in/new" "$W/in/cur" "$W/in/tmp" "$tmp"
PIDS=
trap 'for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done; srv_cleanup' EXIT

backlog_make "$top_srcdir/samples/01-clean-fix.eml" "$W/in/new" 600
# batch = 1: a commit per message, so the kills land between and inside
# many; resend_after = 2: a reply the killed one had claimed is the
# other's after 2 s (its claim's hold).
cat >"$W/bot.ini" <<INI
[tagbot]
state = $PG_URL
state_password_file = $PG_PASSWORD_FILE
log_level = info

[source]
type = maildir
path = in
poll_interval = 1
batch = 1

[sink]
type = maildir
path = out
resend_after = 2

$(reply_per_patch "tagbot <tagbot@example.org>")
INI
pw=$(cat "$PG_PASSWORD_FILE")
# cond 'SHELL CONDITION': for expect, when the condition has && or ||.
cond() { eval "$1"; }

capture "$TAGBOT" check-config -c "$W/bot.ini"
status_is "check-config takes a postgresql:// state with state_password_file" 0
expect "... and shows the URL" grep -q "state $PG_URL\$" "$tmp/out"

start() {
	"$TAGBOT" run -c "$W/bot.ini" 2>>"$W/bot-$1.log" &
	eval "PID_$1=\$!"
	PIDS="$PIDS $!"
}
kill_one() {
	eval "p=\$PID_$1"
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}
progress() { "$TAGBOT" status -c "$W/bot.ini" 2>/dev/null | grep '^messages\|^outbox' | tr '\n' ' '; }

seed=${DAEMON_SEED:-$(date +%s)}
echo "# DAEMON_SEED=$seed"
start a
start b
for step in $(python3 -c "import random; random.seed($seed); print(' '.join('%s:%.3f' % (random.choice('ab'), random.uniform(0.02, 0.2)) for _ in range(16)))"); do
	victim=${step%%:*}
	sleep "${step#*:}"
	kill_one "$victim"
	echo "# SIGKILL $victim after ${step#*:}s: $(progress)"
	start "$victim"
done
# The end: a is killed for good, b finishes alone.
sleep "$(python3 -c "import random; random.seed($seed + 1); print('%.3f' % random.uniform(0.02, 0.2))")"
kill_one a
echo "# SIGKILL a for good: $(progress)"
done=
for _ in $(seq 1 120); do
	if progress | grep -q "^messages 600: .*outbox: queued 0, sent 300, failed 0 \$"; then
		done=1
		break
	fi
	sleep 0.5
done
kill -TERM "$PID_b" 2>/dev/null
wait "$PID_b"
expect "b finishes the backlog alone, and exits 0 on SIGTERM" cond '[ $? -eq 0 ] && [ -n "$done" ]'
[ -n "$done" ] || { echo "# $(progress)"; tail -n 5 "$W/bot-a.log" "$W/bot-b.log"; }
expect "every patch that needs a reply has exactly one, the clean ones none" \
	backlog_check "$W/out" 600
capture "$TAGBOT" status -c "$W/bot.ini"
expect "the store agrees: 600 messages decided once, 300 replied and sent" \
	cond 'grep -q "^messages 600: replied 300, clean 300, skipped 0, error 0\$" "$tmp/out" &&
	      grep -q "^outbox: queued 0, sent 300, failed 0\$" "$tmp/out"'
expect "status shows the URL, never the password" \
	cond 'grep -q "^state $PG_URL\$" "$tmp/out" && ! grep -q "$pw" "$tmp/out" "$W/bot-a.log" "$W/bot-b.log"'
n=$(srv_psql tagbot -c "SELECT count(*) FROM messages WHERE msgid LIKE 'backlog-%'")
expect "one messages row per patch ($n)" test "$n" = 600
echo "# both daemons logged: $(grep -c 'queued\|sent' "$W/bot-a.log") and $(grep -c 'queued\|sent' "$W/bot-b.log") lines about replies"

# PostgreSQL restarted under a running daemon: the statement that finds the
# connection gone fails (a temporary error), the next reconnects, and the
# next mail is answered, once.
start b
sleep 1
srv_pg_as "$SRV_PG_BIN/pg_ctl" -D "$SRV_DIR/pg/data" -m fast -w restart >/dev/null
cp "$top_srcdir"/samples/inbox/new/*.sample "$W/in/new/"
bad='<20251120101010.4242-1-author@example.org>'
answered() {
	python3 - "$W/out" "$bad" <<'PY'
import email, os, sys
n = 0
for sub in ("new", "cur"):
    for f in os.listdir(os.path.join(sys.argv[1], sub)):
        with open(os.path.join(sys.argv[1], sub, f), "rb") as fh:
            n += (email.message_from_binary_file(fh)["In-Reply-To"] or "").strip() == sys.argv[2]
print(n)
PY
}
for _ in $(seq 1 60); do
	[ "$(answered)" = 0 ] || break
	sleep 0.5
done
kill -TERM "$PID_b" 2>/dev/null
wait "$PID_b"
expect "after PostgreSQL restarted, the running daemon answers the next patch once, and exits 0" \
	cond '[ $? -eq 0 ] && [ "$(answered)" = 1 ]'
[ "$(answered)" = 1 ] || tail -n 5 "$W/bot-b.log"

# A wrong password file: the daemon refuses to start, naming the state.
printf 'not-it\n' >"$W/wrong"
chmod 600 "$W/wrong"
sed "s|^state_password_file = .*|state_password_file = $W/wrong|" "$W/bot.ini" >"$W/wrong.ini"
capture "$TAGBOT" run --once -c "$W/wrong.ini"
expect "a wrong password: tagbot run fails, naming the state and not the password" \
	cond '[ "$status" -ne 0 ] && grep -q "state.*cannot connect" "$tmp/err" && ! grep -q not-it "$tmp/err"'

finish
