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

finish() {
	printf '%d passed, %d failed\n' "$passes" "$fails"
	[ "$fails" -eq 0 ]
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
