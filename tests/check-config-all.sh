#!/bin/bash
# check-config-all.sh - `tagbot check-config` names every problem of a file
# in one run, in file order, not one per restart; exit status 2.  So does
# `tagbot run` in its log before it refuses to start.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-ckall.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cond() { eval "$1"; }

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
if cmp -s "$tmp/want" "$tmp/err"; then ok "... each named, in file order"; else
	not_ok "... each named, in file order"; diff "$tmp/want" "$tmp/err" | sed 's/^/#   /'
fi
expect "... and no summary" test ! -s "$tmp/out"

capture "$TAGBOT" run --once -c "$tmp/three.ini"
expect "tagbot run refuses to start, logging each of the three" \
	cond '[ "$status" -ne 0 ] &&
	      [ "$(grep -c "error: $tmp/three.ini: \[lookup\] timeout: \|error: $tmp/three.ini: \[lookup\] user_agnet: \|error: $tmp/three.ini: \[reply\] cc_author: " "$tmp/err")" -eq 3 ]'

finish
