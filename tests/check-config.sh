#!/bin/bash
# check-config.sh - `tagbot check-config`: a daemon's ini file checked as
# `tagbot run` reads it, and the paths it names, without connecting: each
# problem named by its key, exit status 2; a sound file: one summary line,
# exit status 0.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-ckcfg.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
run() { "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; }
status_is() {
	if [ "$status" -eq "$2" ]; then ok "$1"; else
		not_ok "$1 (exit status $status, want $2)"; sed 's/^/#   /' "$tmp/err" | head -5
	fi
}
says() {	# DESC FILE TEXT: FILE holds TEXT
	if grep -qF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1: no '$3'"; sed 's/^/#   /' "$2" | head -5
	fi
}

mkdir -p "$tmp/state" "$tmp/inbox/cur" "$tmp/inbox/new" "$tmp/inbox/tmp"
printf 'hunter2-pw\n' >"$tmp/pw"
chmod 600 "$tmp/pw"
imap() {	# the IMAP source of a daemon, with extra [source] lines
	cat <<INI
[tagbot]
state = $tmp/state/tagbot.db
[source]
type = imap
host = imap.example.org
user = bot@example.org
$1
[sink]
type = maildir
path = $tmp/replies
[reply]
from = tagbot <tagbot@example.org>
INI
}

imap "password_file = $tmp/pw" >"$tmp/good.ini"
run "$TAGBOT" check-config -c "$tmp/good.ini"
status_is "a sound file: exit 0" 0
says "... one line saying what it will use" "$tmp/out" \
	"$tmp/good.ini: ok: source imap bot@example.org@imap.example.org folder INBOX, sink maildir $tmp/replies, 0 list sections, state $tmp/state/tagbot.db"
run "$TAGBOT" check-config -q -c "$tmp/good.ini"
expect "-q: nothing on stdout" test ! -s "$tmp/out"

chmod 644 "$tmp/pw"
run "$TAGBOT" check-config -c "$tmp/good.ini"
status_is "a password file others can read: exit 2" 2
says "... naming the key and the mode" "$tmp/err" "[source] password_file: "
says "... and how to fix it" "$tmp/err" "chmod 600"
if grep -q hunter2 "$tmp/out" "$tmp/err"; then not_ok "... never the password"; else ok "... never the password"; fi
chmod 600 "$tmp/pw"

imap "" >"$tmp/nopw.ini"
run "$TAGBOT" check-config -c "$tmp/nopw.ini"
status_is "a login without a password: exit 2" 2
says "... named at load, not at the first connection" "$tmp/err" \
	"[source] password_file: not set (needed for user = bot@example.org: give password_file or password_command)"

imap "password_file = $tmp/no-such-file" >"$tmp/missing.ini"
run "$TAGBOT" check-config -c "$tmp/missing.ini"
status_is "a password file that is not there: exit 2" 2
says "... named" "$tmp/err" "[source] password_file: "

imap "password_file = $tmp/pw
foldr = INBOX" >"$tmp/typo.ini"
run "$TAGBOT" check-config -c "$tmp/typo.ini"
status_is "an unknown key: exit 2" 2
says "... with the key it probably meant" "$tmp/err" "[source] foldr: unknown key (did you mean folder?)"

sed "s|^state = .*|state = $tmp/nowhere/tagbot.db|" "$tmp/good.ini" >"$tmp/state.ini"
run "$TAGBOT" check-config -c "$tmp/state.ini"
status_is "a state file in a directory that is not there: exit 2" 2
says "... named" "$tmp/err" "[tagbot] state: the directory $tmp/nowhere does not exist"

cat >"$tmp/maildir.ini" <<INI
[tagbot]
state = $tmp/state/tagbot.db
[source]
type = maildir
path = $tmp/not-a-maildir
[sink]
type = maildir
path = $tmp/replies
[reply]
from = tagbot <tagbot@example.org>
INI
mkdir -p "$tmp/not-a-maildir"
run "$TAGBOT" check-config -c "$tmp/maildir.ini"
status_is "a source path that is no Maildir: exit 2" 2
says "... named" "$tmp/err" "[source] path: $tmp/not-a-maildir is not a Maildir (no cur, new and tmp)"
sed "s|^path = $tmp/not-a-maildir|path = $tmp/inbox|" "$tmp/maildir.ini" >"$tmp/maildir2.ini"
run "$TAGBOT" check-config -c "$tmp/maildir2.ini"
status_is "a Maildir source, a sink not made yet: exit 0" 0

run "$TAGBOT" check-config -c "$tmp/no-such.ini"
status_is "a file that is not there: exit 2" 2
run "$TAGBOT" check-config --bogus
status_is "an unknown option: exit 2" 2
finish
