#!/bin/sh
# Two daemons on one PostgreSQL state keep the rate limits together, not
# each its own (store.h: the windows live in the state): a real PostgreSQL
# as in daemon-pg.sh, a backlog in one Maildir that both read, one sink
# Maildir both write to, reply_mode = per-patch, every patch from one
# author.  While both run, the replies in the sink are counted within the
# limit's window: together they send no more than one daemon may.
#   a) max_per_minute = 4: 30 patches need a reply; within the minute 4
#      replies, the rest held
#   b) max_per_author_per_hour = 3: 20 patches need a reply; 3 replies
#   c) max_per_minute = 10, max_share_per_sender = 30 (3 a minute for one
#      submitter): 20 patches need a reply; 3 replies
# The backlog is dealt between two Maildirs, one per daemon, so each
# decides half of the patches whatever the scheduling: each alone would
# stay within the limit while both together went past it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_setup_postgres
W=$SRV_DIR/work
mkdir -p "$W"
PIDS=
trap 'for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done; srv_cleanup' EXIT
cond() { eval "$1"; }

# setup NAME N LIMITS: a fresh state, backlog_make's N patches (the odd
# ones need a reply) dealt in pairs between $W/NAME/in-a and in-b, and
# $W/NAME/bot-a.ini and bot-b.ini with the [reply] keys LIMITS
setup() {
	"$PG_RESET"
	D=$W/$1
	for v in a b; do
		mkdir -p "$D/in-$v/new" "$D/in-$v/cur" "$D/in-$v/tmp"
	done
	backlog_make "$top_srcdir/samples/01-clean-fix.eml" "$D/in-a/new" "$2"
	i=0
	for f in "$D"/in-a/new/*; do
		[ $((i / 2 % 2)) -eq 1 ] && mv "$f" "$D/in-b/new/"
		i=$((i + 1))
	done
	ini "$3" a
	ini "$3" b
}
# ini LIMITS WHO: $D/bot-WHO.ini, reading $D/in-WHO
ini() {
	cat >"$D/bot-$2.ini" <<INI
[tagbot]
state = $PG_URL
state_password_file = $PG_PASSWORD_FILE
log_level = info

[source]
type = maildir
path = in-$2
poll_interval = 1
batch = 1

[sink]
type = maildir
path = out

[reply]
from = tagbot <tagbot@example.org>
reply_mode = per-patch
repeat_after = 0
max_per_minute = 0
max_per_author_per_hour = 0
max_share_per_sender = 0
$1
INI
}
start() {
	"$TAGBOT" run -c "$D/bot-$1.ini" 2>>"$D/bot-$1.log" &
	eval "PID_$1=\$!"
	PIDS="$PIDS $!"
}
stop() {
	for v in a b; do
		eval "p=\$PID_$v"
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
decided() { srv_psql tagbot -c "SELECT count(*) FROM messages" 2>/dev/null || echo 0; }
sent() { find "$D/out/new" "$D/out/cur" -type f 2>/dev/null | wc -l; }
# by WHO: messages WHO's log shows it decided (replied or held)
by() { grep -c 'reply <[^>]*> queued for\|reply held back' "$D/bot-$1.log"; }

# run NAME N LIMITS WANT DESC: both daemons on the backlog; once every
# patch is decided (and the outbox drained), the sink holds WANT replies
run() {
	setup "$1" "$2" "$3"
	t0=$(date +%s)
	start a
	start b
	for _ in $(seq 1 60); do
		[ "$(decided)" -ge "$2" ] && break
		sleep 0.5
	done
	sleep 2		# the last replies queued are sent
	n=$(sent)
	dt=$(($(date +%s) - t0))
	echo "# $1: $(decided) decided in ${dt}s, $n replies sent; a decided $(by a), b $(by b)"
	expect "$5 (want $4, got $n)" cond "[ $n -eq $4 ] && [ $dt -lt 50 ]"
	expect "$1) ... both daemons took part" cond "[ $(by a) -gt 0 ] && [ $(by b) -gt 0 ]"
	h=$(srv_psql tagbot -c "SELECT count(*) FROM held")
	expect "$1) ... the others are held, not dropped (want $(($2 / 2 - $4)), got $h)" \
		test "$h" -eq $(($2 / 2 - $4))
	stop
}

run a 60 "max_per_minute = 4" 4 "a) two daemons, max_per_minute = 4: 4 replies within the minute"
run b 40 "max_per_author_per_hour = 3" 3 "b) max_per_author_per_hour = 3: 3 replies to the author"
run c 40 "max_per_minute = 10
max_share_per_sender = 30" 3 "c) max_share_per_sender = 30 of 10 a minute: 3 replies to one submitter"
finish
