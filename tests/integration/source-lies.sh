#!/bin/sh
# source-lies.sh - `tagbot run` against IMAP and NNTP servers that lie
# (tests/integration/lying-source.py, on a free loopback port, no TLS).
# The folder / group holds five patches:
#   1, 5  plain ones: answered
#   2     not delivered once (IMAP: UID FETCH answers without it; NNTP: 423
#         for an article the overview listed): asked for again at the next
#         poll, and answered
#   3     never delivered: the checkpoint stays below it while it is asked
#         for again (retry_after = 1: after 1, 2, 4 and 8 s), across a
#         restart of the bot, and after the fifth try it is recorded skipped:
#         unavailable, told in the log and by `tagbot status`
#   4     far larger than max_message_size (1 MiB here), though the server
#         said first it was small (RFC822.SIZE, the overview's bytes): read
#         past, recorded skipped: too-large with the size seen, and the
#         bot's peak RSS (VmHWM) stays below max_message_size + 50 MB
# The NNTP group's first article expires at the second poll (its low water
# mark moves, and the checkpoint is written then): the checkpoint stays
# below what is owed all the same.
# And the NNTP server's overview also has lines for articles outside the
# range asked for: ignored with a warning, the rest used.
# SOURCE_FAULTS_HUGE (bytes, default 256 MiB): the size of patch 4's body;
# SOURCE_FAULTS_NO_JUNK set: no overview lines outside the range.
# Skips (77) only when python3 is missing or TAGBOT_NO_SERVERS is set.
. "$top_srcdir/tests/lib.sh"

[ -z "${TAGBOT_NO_SERVERS:-}" ] || { echo "SKIP: TAGBOT_NO_SERVERS is set"; exit 77; }
command -v python3 >/dev/null 2>&1 ||
	{ echo "SKIP: python3 is not installed (contrib/install-deps.sh)"; exit 77; }

HUGE=${SOURCE_FAULTS_HUGE:-268435456}
MAX=1048576
RSS_MAX_KB=$(((MAX + 50 * 1024 * 1024) / 1024))
T=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-faults.XXXXXX")
MAIL="python3 $top_srcdir/tests/integration/e2e-mail.py"
FAKE="python3 $top_srcdir/tests/integration/lying-source.py"
SRV=
BOT_PID=
cleanup() {
	[ -z "$BOT_PID" ] || { kill -KILL "$BOT_PID" 2>/dev/null; wait "$BOT_PID" 2>/dev/null; }
	[ -z "$SRV" ] || { kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; }
	[ -n "${SOURCE_FAULTS_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

# sql DB QUERY: the first column of its first row
sql() { python3 -c 'import sqlite3, sys; r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else "")' "$@" 2>/dev/null; }
# until SECONDS CMD...: CMD holds within SECONDS
until_ok() {
	n=$(($1 * 5)); shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
	return 1
}
lies() { grep -c "^$1\$" "$W/server.log" 2>/dev/null || true; }
# missed N: how often the server did not deliver N (IMAP: left out of a
# UID FETCH answer; NNTP: 423)
missed() { echo $(($(lies "omit $1") + $(lies "gone $1"))); }
missed_at_least() { [ "$(missed "$1")" -ge "$2" ]; }
row() { sql "$W/state.db" "SELECT decision FROM messages WHERE msgid = 'e2e-$P-$1@example.org'"; }
answered() { [ -n "$(row "$1")" ]; }
unread_recorded() { [ "$(sql "$W/state.db" "SELECT count(*) FROM messages WHERE decision LIKE 'skipped:$1%'")" -gt 0 ] 2>/dev/null; }
checkpoint_at_least() { [ "$(sql "$W/state.db" "SELECT max(last_uid) FROM checkpoints")" -ge "$1" ] 2>/dev/null; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$BOT_PID/status"; }
bot_start() {
	"$TAGBOT" run -c "$W/bot.ini" >>"$W/bot.log" 2>&1 &
	BOT_PID=$!
}
bot_stop() { kill "$BOT_PID"; wait "$BOT_PID" 2>/dev/null; BOT_PID=; }

# setup PROTO: the mail, the rules of the lies, the server, the bot's file
setup() {
	P=$1
	W=$T/$P
	mkdir -p "$W/mail" "$W/out"
	for n in 1 2 3 4 5; do $MAIL patch nosob "$P" "$n" --now >"$W/mail/$n.eml"; done
	printf '2 omit-once\n3 omit\n4 huge %s\n' "$HUGE" >"$W/mail/rules"
	[ "$P" = imap ] || [ -n "${SOURCE_FAULTS_NO_JUNK:-}" ] || echo "0 xover-junk" >>"$W/mail/rules"
	[ "$P" = imap ] || echo "-1 expire 2" >>"$W/mail/rules"
	: >"$W/server.log"
	$FAKE "$P" "$W/port" "$W/server.log" "$W/mail" 2>"$W/server.err" &
	SRV=$!
	for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
	[ -s "$W/port" ] || { cat "$W/server.err"; echo "the fake $P server did not start"; exit 1; }
	echo secret >"$W/password"
	chmod 600 "$W/password"
	{
		printf '[tagbot]\nstate = %s/state.db\nlog_level = debug\n\n' "$W"
		printf '[source]\ntype = %s\nhost = 127.0.0.1\nport = %s\ntls = none\n' \
			"$P" "$(cat "$W/port")"
		if [ "$P" = imap ]; then
			printf 'user = bot\npassword_file = %s/password\nidle = no\nmark_seen = yes\n' "$W"
		else
			printf 'groups = test.group\n'
		fi
		printf 'backfill = yes\npoll_interval = 1\nmax_message_size = %s\n' "$MAX"
		printf 'retry_after = 1\n\n'
		printf '[sink]\ntype = maildir\npath = %s/out\n\n' "$W"
		reply_per_patch 'tagbot <bot@example.org>'
	} >"$W/bot.ini"
}

# run PROTO: the whole story against one server
run() {
	setup "$1"
	bot_start
	if [ "$P" = nntp ]; then
		# the second poll: 2 and 3 are owed, and the first article expired
		until_ok 30 grep -q "^delay" "$W/server.log"
		cp=$(sql "$W/state.db" "SELECT max(last_uid) FROM checkpoints")
		expect "$P: the checkpoint stays below what is owed when the low water mark moves" \
			[ "${cp:-9}" -lt 2 ]
	fi
	expect "$P: the first patch answered" until_ok 30 answered 1
	expect "$P: the patch not delivered once is answered at a later poll" until_ok 30 answered 2
	expect "$P: the patch after the huge one is answered" until_ok 30 answered 5
	expect "$P: the huge patch is recorded skipped: too-large" until_ok 30 unread_recorded too-large
	hwm=$(hwm_kb)
	if [ -n "$hwm" ] && [ "$hwm" -lt "$RSS_MAX_KB" ]; then
		ok "$P: peak RSS ${hwm} kB while a $HUGE-byte body went by (< $RSS_MAX_KB kB)"
	else
		not_ok "$P: peak RSS ${hwm:-?} kB while a $HUGE-byte body went by (want < $RSS_MAX_KB kB)"
	fi
	expect "$P: the log names the huge one's size" grep -q "$HUGE bytes" "$W/bot.log"

	# the one never delivered: asked again, the checkpoint below it
	until_ok 30 missed_at_least 3 2
	bot_stop
	tries=$(sql "$W/state.db" "SELECT tries FROM unread WHERE uid = 3")
	expect "$P: a patch not delivered is kept for another try ($tries tries so far)" \
		[ "${tries:-0}" -ge 2 ] && [ "${tries:-0}" -lt 5 ]
	expect "$P: the checkpoint stays below it" \
		[ "$(sql "$W/state.db" "SELECT max(last_uid) FROM checkpoints")" -lt 3 ] 2>/dev/null
	expect "$P: it is not recorded yet" [ -z "$(row 3)" ]
	bot_start
	expect "$P: after five tries it is recorded skipped: unavailable" \
		until_ok 60 unread_recorded unavailable
	omitted=$(missed 3)
	expect "$P: five tries in all, across the restart ($omitted)" \
		[ "$omitted" -ge 5 ] && [ "$omitted" -le 6 ]
	expect "$P: the log warns of it" grep -q "warning.*uid 3.*unavailable" "$W/bot.log"
	"$TAGBOT" status -c "$W/bot.ini" >"$W/status" 2>&1
	expect "$P: tagbot status shows it skipped: unavailable" \
		grep -q "uid 3: skipped: unavailable" "$W/status"
	expect "$P: tagbot status shows the huge one skipped: too-large" \
		grep -q "uid 4: skipped: too-large ($HUGE bytes" "$W/status"
	expect "$P: the checkpoint went on past them" \
		until_ok 10 checkpoint_at_least 5
	[ "$P" = nntp ] || expect "$P: mark_seen flags what was read, never what was not delivered" \
		sh -c 'grep -q "^store 1\$" "$1" && ! grep -q "^store 3\$" "$1"' - "$W/server.log"
	bot_stop
	kill "$SRV"; wait "$SRV" 2>/dev/null; SRV=
}

# several sources, each polled every minute: a retry that comes due has its
# source polled then, not a minute later
two() {
	P=two
	W=$T/two
	mkdir -p "$W/mail" "$W/out" "$W/box/new" "$W/box/cur" "$W/box/tmp"
	for n in 1 2; do $MAIL patch nosob "$P" "$n" --now >"$W/mail/$n.eml"; done
	echo '2 omit-once' >"$W/mail/rules"
	: >"$W/server.log"
	$FAKE nntp "$W/port" "$W/server.log" "$W/mail" 2>"$W/server.err" &
	SRV=$!
	for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
	{
		printf '[tagbot]\nstate = %s/state.db\nlog_level = debug\n\n' "$W"
		printf '[source]\ntype = nntp\nhost = 127.0.0.1\nport = %s\ntls = none\n' \
			"$(cat "$W/port")"
		printf 'groups = test.group\nbackfill = yes\npoll_interval = 60\nretry_after = 2\n\n'
		printf '[source box]\ntype = maildir\npath = %s/box\npoll_interval = 60\n\n' "$W"
		printf '[sink]\ntype = maildir\npath = %s/out\n\n' "$W"
		reply_per_patch 'tagbot <bot@example.org>'
	} >"$W/bot.ini"
	bot_start
	expect "two sources: the first article answered" until_ok 30 answered 1
	expect "two sources: the one not delivered once is asked for again when due, not at the next poll" \
		until_ok 20 answered 2
	bot_stop
	kill "$SRV"; wait "$SRV" 2>/dev/null; SRV=
}

run imap
run nntp
two
expect "nntp: the overview's lines outside the range asked for were told" \
	grep -q "warning.*outside the range asked for" "$T/nntp/bot.log"
expect "nntp: and told once per poll, not once per line" \
	[ "$(grep -c "outside the range asked for" "$T/nntp/bot.log")" -le \
	  "$(grep -c "^junk" "$T/nntp/server.log")" ]
finish
