#!/bin/sh
# budget.sh - a custom rule whose pattern backtracks for ever (^(a+)+$ over
# ~300 KiB of "aaa...a!" lines) spends its budget and stops, once per
# message, in `tagbot check` and in `tagbot run`: the command finishes in
# well under a second (timeout 60 turns a regression into a failure, not a
# hang), the built-in rules and the other custom rule still report, and
# exactly one warning per message names the rule and the message.
. "${top_srcdir:?run me through make check}/tests/lib.sh"

data=$TAGBOT_TEST_DATA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-budget.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
msgid=20250311042642.373782-1-craig@mcqueen.au

cat >"$tmp/rules.ini" <<'INI'
[rule SLOW_AAAA]
pattern = ^(a+)+$
where = body
message = A line of a's.

[rule LATE_BAD]
pattern = ^\+bad$
where = body
message = Not that line.
INI

# big N: cli/cli-missing-signoff.eml (no Signed-off-by:) with N lines of 80 a's
# and a '!', then "+bad"
big() {
	cat "$data/cli/cli-missing-signoff.eml"
	awk -v n="$1" 'BEGIN { a = sprintf("%80s", ""); gsub(/ /, "a", a);
		for (i = 0; i < n; i++) print a "!"; print "+bad" }'
}
big 3600 >"$tmp/big.eml"

# count FILE FIXED-STRING: lines of FILE with it
count() { grep -cF -- "$2" "$1"; }

# --- tagbot check ---------------------------------------------------------------
timeout 60 "$TAGBOT" check -c "$tmp/rules.ini" "$tmp/big.eml" >"$tmp/out" 2>"$tmp/err"
status=$?
expect "check finishes with findings: exit 1 (got $status)" [ "$status" -eq 1 ]
expect "the mail is ~300 KiB" [ "$(wc -c <"$tmp/big.eml")" -gt 290000 ]
expect "the built-in rules still report" grep -q "ERROR:MISSING_SIGN_OFF" "$tmp/out"
expect "the custom rule after the slow one still reports" grep -q "WARNING:LATE_BAD" "$tmp/out"
expect "the slow rule finds nothing" [ "$(count "$tmp/out" SLOW_AAAA)" -eq 0 ]
expect "stderr is one line" [ "$(wc -l <"$tmp/err")" -eq 1 ]
expect "it names the rule and the message" \
	grep -q "^tagbot: $tmp/big.eml: message <$msgid>: custom rule SLOW_AAAA stopped at line [0-9]*: " "$tmp/err"
expect "it counts the match-limit hits" grep -q "lines hit the match limit" "$tmp/err"

# Two messages in an mbox: a budget each, a warning each.
for i in 1 2; do
	echo "From craig@mcqueen.au Tue Mar 11 15:26:41 2025"
	sed "s/^Message-ID: </Message-ID: <$i./" "$tmp/big.eml"
	echo
done >"$tmp/two.mbox"
timeout 60 "$TAGBOT" check -c "$tmp/rules.ini" "$tmp/two.mbox" >"$tmp/out" 2>"$tmp/err"
status=$?
expect "check of two such messages exits 1 (got $status)" [ "$status" -eq 1 ]
expect "two warnings" [ "$(count "$tmp/err" "custom rule SLOW_AAAA stopped")" -eq 2 ]
expect "the first names message 1" grep -q "two.mbox: message 1 (line 2) <1\.$msgid>: " "$tmp/err"
expect "the second names message 2" grep -q "two.mbox: message 2 (line [0-9]*) <2\.$msgid>: " "$tmp/err"
expect "both still have LATE_BAD" [ "$(count "$tmp/out" "WARNING:LATE_BAD")" -eq 2 ]

# --- tagbot run: the same warning in the log ------------------------------------
mkdir -p "$tmp/in/new" "$tmp/in/cur" "$tmp/in/tmp" "$tmp/out.md/new" "$tmp/out.md/cur" \
	"$tmp/out.md/tmp"
cp "$tmp/big.eml" "$tmp/in/new/1.eml"
{
	printf '[tagbot]\nstate = %s/state.db\n\n' "$tmp"
	printf '[source]\ntype = maildir\npath = %s/in\n\n' "$tmp"
	printf '[sink]\ntype = maildir\npath = %s/out.md\n\n' "$tmp"
	printf '[reply]\nfrom = tagbot <tagbot@example.org>\n\n'
	cat "$tmp/rules.ini"
} >"$tmp/run.ini"
timeout 60 "$TAGBOT" run --once -c "$tmp/run.ini" 2>"$tmp/log"
status=$?
expect "run --once finishes: exit 0 (got $status)" [ "$status" -eq 0 ]
expect "the log warns once" [ "$(count "$tmp/log" "custom rule SLOW_AAAA stopped")" -eq 1 ]
expect "the warning names the message" \
	grep -q "message <$msgid>: custom rule SLOW_AAAA stopped at line" "$tmp/log"
expect "a reply was still made" [ "$(ls "$tmp/out.md/new" "$tmp/out.md/cur" | grep -c .)" -ge 1 ]

finish
