# lib.sh - shared by the shell tests: sourced, never run.
# Automake's harness sets TAGBOT, top_srcdir, top_builddir, TAGBOT_TEST_DATA.
: "${TAGBOT:?run me through make check}"
fails=0
passes=0
ok() { passes=$((passes + 1)); printf 'ok - %s\n' "$1"; }
not_ok() { fails=$((fails + 1)); printf 'not ok - %s\n' "$1"; }
# expect DESC CMD...: the command must succeed
expect() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# capture CMD...: stdout in $tmp/out, stderr in $tmp/err (the script sets
# tmp), exit status in $status
capture() { "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; }
# status_is DESC WANT: capture's $status is WANT (else stderr's first lines)
status_is() {
	if [ "$status" -eq "$2" ]; then
		ok "$1"
	else
		not_ok "$1 (exit status $status, want $2)"
		sed 's/^/#   /' "$tmp/err" | head -5
	fi
}
# sanitized [PROGRAM]: PROGRAM (default $TAGBOT) is a sanitizer build, the
# only kind that can print a sanitizer report; elsewhere a check for one
# cannot fail, so the caller says SKIP instead.
sanitized() { grep -qa -e __asan_init -e __ubsan_handle "${1:-$TAGBOT}"; }

# reply_per_patch FROM: an ini [reply] section for tests that count one
# reply per patch: FROM as the bot, per-patch, no rate limits, every finding
# told every time.
reply_per_patch() {
	printf '[reply]\nfrom = %s\nreply_mode = per-patch\nmax_per_author_per_hour = 0\n' "$1"
	printf 'max_per_minute = 0\nrepeat_after = 0\n'
}

# corpus_path NAME: the list archive NAME (e.g. linux-leds-2025-2026.mbox.gz)
# from the directory $TAGBOT_CORPUS, else from a corpus/ directory in a
# folder beside the checkout (where CI lays the archives); prints nothing
# when neither has it, and the caller skips.
corpus_path() {
	for f in ${TAGBOT_CORPUS:+"$TAGBOT_CORPUS/$1"} "$top_srcdir"/../*/corpus/"$1"; do
		[ -f "$f" ] && { printf '%s\n' "$f"; return 0; }
	done
	return 1
}

finish() {
	printf '%d passed, %d failed\n' "$passes" "$fails"
	[ "$fails" -eq 0 ]
}
# now_ms: the wall clock in milliseconds
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# stop_within MS: SIGTERM to the daemon $BOT_PID; it exits with status 0
# within MS ms.  One still running after 2 s is killed (the caller's
# bot_kill) and fails.  Prints the time taken, after "$C: " when C is set.
stop_within() {
	t0=$(now_ms)
	kill -TERM "$BOT_PID"
	for _ in $(seq 200); do kill -0 "$BOT_PID" 2>/dev/null || break; sleep 0.01; done
	ms=$(($(now_ms) - t0))
	if kill -0 "$BOT_PID" 2>/dev/null; then
		echo "# ${C:+$C: }still running $ms ms after SIGTERM"
		bot_kill
		return 1
	fi
	wait "$BOT_PID"
	rc=$?
	BOT_PID=
	echo "# ${C:+$C: }exited $ms ms after SIGTERM, status $rc"
	[ "$rc" -eq 0 ] && [ "$ms" -lt "$1" ]
}

# replay_ini DIR: a daemon's file for tagbot replay, its state, source and
# sink under DIR (replay touches none of them).
replay_ini() {
	cat <<EOF
[tagbot]
state = $1/state/tagbot.db
[source]
type = maildir
path = $1/inbox
[sink]
type = maildir
path = $1/replies
[reply]
from = tagbot <tagbot@example.org>
EOF
}
# backlog_make SAMPLE DIR N: N copies of the patch SAMPLE in the Maildir
# folder DIR, Message-IDs <backlog-NNN@example.org>; the odd ones lose their
# sign-off (MISSING_SIGN_OFF: they need a reply), the even ones are clean.
backlog_make() {
	python3 - "$1" "$2" "$3" <<'PY'
import os, sys
src = open(sys.argv[1], encoding="utf-8").read()
for i in range(int(sys.argv[3])):
    text = src.replace("<20250130194627.280618-1-eajames@linux.ibm.com>",
                       "<backlog-%03d@example.org>" % i)
    text = text.replace("turns off when requested", "turns off when requested (%d)" % i)
    if i % 2:	# odd ones lose their sign-off: MISSING_SIGN_OFF
        text = text.replace("Signed-off-by: Eddie James <eajames@linux.ibm.com>\n", "")
    with open(os.path.join(sys.argv[2], "1700%06d.backlog-%03d" % (i, i)), "w") as f:
        f.write(text)
PY
}

# backlog_check SINK N: the sink Maildir holds exactly one reply to each odd
# patch of backlog_make's N and none to the even ones or to anything else.
backlog_check() {
	python3 - "$1" "$2" <<'PY'
import email, os, sys, collections
seen = collections.Counter()
for sub in ("new", "cur"):
    d = os.path.join(sys.argv[1], sub)
    for f in os.listdir(d):
        with open(os.path.join(d, f), "rb") as fh:
            seen[(email.message_from_binary_file(fh)["In-Reply-To"] or "").strip()] += 1
bad = []
for i in range(int(sys.argv[2])):
    n = seen.pop("<backlog-%03d@example.org>" % i, 0)
    if n != i % 2:
        bad.append("backlog-%03d: %d replies, wanted %d" % (i, n, i % 2))
bad += ["%s: a reply to something else" % k for k in seen]
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
}
