#!/bin/bash
# check-config-all.sh - `tagbot check-config` names every problem of a file
# in one run, in file order, not one per restart; exit status 2.  So does
# `tagbot run` in its log before it refuses to start.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-ckall.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cond() { eval "$1"; }
# same_err DESC: stderr is $tmp/want
same_err() {
	if cmp -s "$tmp/want" "$tmp/err"; then ok "$1"; else
		not_ok "$1"; diff "$tmp/want" "$tmp/err" | sed 's/^/#   /'
	fi
}

cat >"$tmp/three.ini" <<INI
[lookup]
timeout = 0
user_agnet = tagbot-test
[reply]
cc_author = perhaps
INI
capture "$TAGBOT" check-config -c "$tmp/three.ini"
status_is "three problems: exit 2" 2
cat >"$tmp/want" <<OUT
tagbot: $tmp/three.ini: [lookup] timeout: "0" is not a number from 1 to 86400
tagbot: $tmp/three.ini: [lookup] user_agnet: unknown key (did you mean user_agent?)
tagbot: $tmp/three.ini: [reply] cc_author: "perhaps" is not yes or no
OUT
same_err "... each named, in file order"
expect "... and no summary" test ! -s "$tmp/out"

capture "$TAGBOT" run --once -c "$tmp/three.ini"
expect "tagbot run refuses to start, logging each of the three" \
	cond '[ "$status" -ne 0 ] &&
	      [ "$(grep -c "error: $tmp/three.ini: \[lookup\] timeout: \|error: $tmp/three.ini: \[lookup\] user_agnet: \|error: $tmp/three.ini: \[reply\] cc_author: " "$tmp/err")" -eq 3 ]'

# The checks across keys go on past a problem, within a section too: a
# second bad address, a source without its host and with two passwords.
cat >"$tmp/within.ini" <<INI
[reply]
from = not an address
reply_to = also bad <
[source]
type = imap
user = bot
password_file = /nonexistent
password_command = cat /nonexistent
INI
capture "$TAGBOT" check-config -c "$tmp/within.ini"
status_is "problems within one section: exit 2" 2
cat >"$tmp/want" <<OUT
tagbot: $tmp/within.ini: [reply] from: "not an address" is not a mail address
tagbot: $tmp/within.ini: [reply] reply_to: "also bad <" is not a mail address
tagbot: $tmp/within.ini: [source] host: not set (needed for type = imap)
tagbot: $tmp/within.ini: [source] password_command: give password_file or password_command, not both
OUT
same_err "... each named, in file order"

# What the daemon needs of a file that sets neither [source] nor [sink]:
# both named, not only the first.
printf '[tagbot]\n' >"$tmp/bare.ini"
capture "$TAGBOT" check-config -c "$tmp/bare.ini"
status_is "no source and no sink: exit 2" 2
cat >"$tmp/want" <<OUT
tagbot: $tmp/bare.ini: [source] path: not set (needed for type = maildir)
tagbot: $tmp/bare.ini: [sink] path: not set (needed for type = maildir)
OUT
same_err "... both named"
capture "$TAGBOT" run --once -c "$tmp/bare.ini"
expect "tagbot run logs both before it refuses to start" \
	cond '[ "$status" -ne 0 ] &&
	      grep -q "error: $tmp/bare.ini: \[source\] path: not set" "$tmp/err" &&
	      grep -q "error: $tmp/bare.ini: \[sink\] path: not set" "$tmp/err"'

# Every line iniparser cannot read, each with its line number.
printf '[reply]\nfrom\n[lookup]\nthis is junk\nenabled = yes\n' >"$tmp/syntax.ini"
capture "$TAGBOT" check-config -c "$tmp/syntax.ini"
status_is "two lines that are no ini: exit 2" 2
cat >"$tmp/want" <<OUT
tagbot: $tmp/syntax.ini: syntax error in $tmp/syntax.ini (2): -> from
tagbot: $tmp/syntax.ini: syntax error in $tmp/syntax.ini (4): -> this is junk
OUT
same_err "... each named with its line"

finish
