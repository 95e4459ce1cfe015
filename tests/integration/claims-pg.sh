#!/bin/sh
# Two daemons on one PostgreSQL state reading one IMAP folder divide it
# (store.h, "claims"): a real Dovecot and PostgreSQL on loopback, a backlog
# in bot@'s INBOX, one sink Maildir both write to.
#   a) both run from the start: every patch that needs a reply has one, and
#      no UID is read by both daemons (their logs name the UIDs each read)
#   b) a claim left by a daemon that is gone (a row written as a crash
#      leaves it, its lease running for 3 s more): the daemon started now
#      reads the rest first, waits for the lease to end, then takes the
#      claim over, and every patch is answered once
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need_postgres
grep -q '^#define HAVE_LIBPQ 1' "$top_builddir/autoconf.h" ||
	{ echo "SKIP: tagbot was built without PostgreSQL (configure --with-postgresql)"; exit 77; }
srv_init
srv_start_dovecot || { not_ok "dovecot starts"; finish; exit 1; }
srv_start_postgres || { not_ok "postgresql starts"; finish; exit 1; }
W=$SRV_DIR/work
mkdir -p "$W"
PIDS=
trap 'for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done; srv_cleanup' EXIT
cond() { eval "$1"; }
MD=$(srv_maildir bot@example.org)

# fill N: bot@'s INBOX emptied, then backlog_make's N patches in it (the
# odd ones need a reply), indexed by a SELECT; prints the UIDVALIDITY
fill() {
	rm -rf "$MD" "$W/in"
	mkdir -p "$W/in" "$MD/new" "$MD/cur" "$MD/tmp"
	backlog_make "$top_srcdir/samples/01-clean-fix.eml" "$W/in" "$1"
	mv "$W"/in/* "$MD/new/"
	chown -R "$SRV_MAIL_USER:$SRV_MAIL_GROUP" "$MD"
	python3 - "$IMAP_PORT" "$1" <<'PY'
import imaplib, re, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
m.login("bot@example.org", "secret")
typ, data = m.select("INBOX", readonly=True)
assert typ == "OK" and int(data[0]) == int(sys.argv[2]), data
print(re.search(rb"\d+", m.response("UIDVALIDITY")[1][0]).group().decode())
m.logout()
PY
}
cat >"$W/bot.ini" <<INI
[tagbot]
state = $PG_URL
state_password_file = $PG_PASSWORD_FILE
log_level = debug

[source]
type = imap
host = 127.0.0.1
port = $IMAP_PORT
tls = starttls
ca_file = $SRV_DIR/ca.pem
user = bot@example.org
password_file = $SRV_DIR/password
folder = INBOX
idle = yes
poll_interval = 300
backfill = yes
batch = 10
timeout = 2

[sink]
type = maildir
path = out

$(reply_per_patch "tagbot <tagbot@example.org>")
INI
start() {
	"$TAGBOT" run -c "$W/bot.ini" 2>>"$W/bot-$1.log" &
	eval "PID_$1=\$!"
	PIDS="$PIDS $!"
}
stop() {
	eval "p=\$PID_$1"
	kill -TERM "$p" 2>/dev/null
	wait "$p"
}
# until_done N SECONDS: waits until the store has N messages and N/2
# replies sent; the seconds it took, or nothing
until_done() {
	t0=$(now_ms)
	end=$((t0 + $2 * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		if "$TAGBOT" status -c "$W/bot.ini" 2>/dev/null |
			grep -q "^outbox: queued 0, sent $(($1 / 2)), failed 0\$"; then
			echo $(($(now_ms) - t0))
			return 0
		fi
		sleep 0.2
	done
	return 1
}
# read_uids LOG...: the UIDs each "reading UIDs A-B" line of the logs names
read_uids() {
	sed -n 's/.*reading UIDs \([0-9]*\)-\([0-9]*\).*/\1 \2/p' "$@" |
		while read -r a b; do seq "$a" "$b"; done | sort -n
}

# a) both from the start
v=$(fill 400)
mkdir -p "$W/out"
start a
start b
took=$(until_done 400 60)
stop a
rc_a=$?
stop b
rc_b=$?
expect "a) two daemons answer the backlog, and exit 0 on SIGTERM" \
	cond '[ -n "$took" ] && [ $rc_a -eq 0 ] && [ $rc_b -eq 0 ]'
expect "a) every patch that needs a reply has exactly one, the clean ones none" \
	backlog_check "$W/out" 400
na=$(read_uids "$W/bot-a.log" | wc -l)
nb=$(read_uids "$W/bot-b.log" | wc -l)
both=$(read_uids "$W/bot-a.log" "$W/bot-b.log" | uniq -d | wc -l)
all=$(read_uids "$W/bot-a.log" "$W/bot-b.log" | uniq | wc -l)
echo "# a) UIDs read: a $na, b $nb, by both $both, in all $all, in ${took:-?} ms"
expect "a) no UID is read by both daemons, and every UID by one" \
	cond '[ "$both" -eq 0 ] && [ "$all" -eq 400 ]'
n=$(srv_psql tagbot -qAt -c "SELECT count(*) FROM claims")
expect "a) the checkpoint passed every claim: none is left ($n)" test "$n" = 0

# b) a claim of a daemon that is gone
"$PG_RESET"
v=$(fill 120)
rm -rf "$W/out" "$W"/bot-*.log
mkdir -p "$W/out"
"$TAGBOT" status -c "$W/bot.ini" >/dev/null	# the tables made again
now=$(date +%s)
srv_psql tagbot -qAt -c "INSERT INTO checkpoints (source, folder, uidvalidity, last_uid)
	VALUES ('imap:bot@example.org@127.0.0.1', 'INBOX', $v, 0);
	INSERT INTO claims (source, folder, lo, hi, done_to, validity, owner, until)
	VALUES ('imap:bot@example.org@127.0.0.1', 'INBOX', 1, 10, 0, $v, 'gone:1:1', $((now + 3)))" >/dev/null
start a
took=$(until_done 120 30)
stop a
rc_a=$?
expect "b) the daemon answers the backlog, the claim of the one gone too, and exits 0" \
	cond '[ -n "$took" ] && [ $rc_a -eq 0 ]'
expect "b) every patch that needs a reply has exactly one, the clean ones none" \
	backlog_check "$W/out" 120
first=$(grep -m1 -o 'reading UIDs [0-9-]*' "$W/bot-a.log")
last=$(grep -o 'reading UIDs [0-9-]*' "$W/bot-a.log" | tail -n 1)
echo "# b) first read: $first; last: $last; done in ${took:-?} ms"
expect "b) the claim is left alone while its lease runs, and taken over after" \
	cond '[ "$first" = "reading UIDs 11-20" ] && [ "$last" = "reading UIDs 1-10" ] &&
	      [ "${took:-0}" -ge 2000 ]'
[ -n "$took" ] || tail -n 20 "$W/bot-a.log"

finish
