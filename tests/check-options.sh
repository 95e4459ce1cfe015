#!/bin/bash
# check-options.sh - the checkpatch-style options of `tagbot check` and the
# configuration it finds by itself: --ignore, --types, --terse,
# --no-summary, the per-file total lines, and ./.tagbot.ini at the top of a
# scratch git tree, then $XDG_CONFIG_HOME/tagbot/tagbot.ini (~/.config when
# unset) in a scratch home, --no-config, and -c over both.
#
# The fixture cli/cli-series.mbox has two findings, read in it by hand: message
# 1 has no Signed-off-by: (MISSING_SIGN_OFF, an error, at line 13, the last
# line of its commit message), message 2 signs off as "MarshallZhan" under
# an in-body From: "MarshallZhan-wiwynn" (FROM_SIGN_OFF_MISMATCH, a
# warning, line 73).  Each configuration below turns one of them off, so
# which file was read shows in which finding is left.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-options.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
series=$TAGBOT_TEST_DATA/cli/cli-series.mbox
clean=$TAGBOT_TEST_DATA/cli/cli-clean.eml
MISSING="cli/cli-series.mbox:13: ERROR:MISSING_SIGN_OFF: "
MISMATCH="cli/cli-series.mbox:73: WARNING:FROM_SIGN_OFF_MISMATCH: "

has() { if grep -qF -- "$3" "$tmp/$2"; then ok "$1"; else not_ok "$1: no '$3' in std$2"; fi; }
lacks() { if grep -qF -- "$3" "$tmp/$2"; then not_ok "$1: '$3' in std$2"; else ok "$1"; fi; }
# found DESC MISSING MISMATCH: which of the two findings the output holds (yes/no)
found() {
	local got_a=no got_b=no
	grep -qF -- "$MISSING" "$tmp/out" && got_a=yes
	grep -qF -- "$MISMATCH" "$tmp/out" && got_b=yes
	if [ "$got_a $got_b" = "$2 $3" ]; then ok "$1"; else
		not_ok "$1 (MISSING_SIGN_OFF: $got_a, want $2; FROM_SIGN_OFF_MISMATCH: $got_b, want $3)"
		sed 's/^/#   /' "$tmp/err" | head -3
	fi
}

# Nothing of the machine's own configuration: an empty home, no XDG.
export HOME=$tmp/home
unset XDG_CONFIG_HOME
mkdir -p "$HOME" "$tmp/outside"
cd "$tmp/outside" || exit 99

# --- the options --------------------------------------------------------------
capture "$TAGBOT" check "$series"
status_is "both findings: exit 1" 1
found "without options: both findings" yes yes

capture "$TAGBOT" check --ignore MISSING_SIGN_OFF "$series"
found "--ignore MISSING_SIGN_OFF" no yes
capture "$TAGBOT" check --ignore missing_sign_off,FROM_SIGN_OFF_MISMATCH "$series"
status_is "--ignore both (any case, comma list): exit 0" 0
found "--ignore both: no finding" no no
capture "$TAGBOT" check --ignore MISSING_SIGN_OFF --ignore FROM_SIGN_OFF_MISMATCH "$series"
found "--ignore twice adds up" no no
capture "$TAGBOT" check --types FROM_SIGN_OFF_MISMATCH "$series"
found "--types FROM_SIGN_OFF_MISMATCH: only it" no yes
capture "$TAGBOT" check --types MISSING_SIGN_OFF --types FROM_SIGN_OFF_MISMATCH "$series"
found "--types twice: both kept" yes yes
capture "$TAGBOT" check --types MISSING_SIGN_OFF,FROM_SIGN_OFF_MISMATCH --ignore MISSING_SIGN_OFF "$series"
found "--types, then --ignore over it" no yes
capture "$TAGBOT" check --types MISSING_SIGNOFF "$series"
status_is "--types with a misspelt ID: exit 2" 2
has "... naming the option and the nearest ID" err \
	"tagbot: --types: MISSING_SIGNOFF: unknown rule ID (did you mean MISSING_SIGN_OFF?)"
capture "$TAGBOT" check --ignore MISSING_SIGN_OFF --list-rules
has "--list-rules shows an ignored rule off" out "MISSING_SIGN_OFF           off"

# --terse is -q; --no-summary drops the total lines only.
capture "$TAGBOT" check -q "$series"
cp "$tmp/out" "$tmp/q.out"
capture "$TAGBOT" check --terse "$series"
if cmp -s "$tmp/out" "$tmp/q.out"; then ok "--terse prints what -q prints"; else not_ok "--terse prints what -q prints"; fi
if [ "$(wc -l <"$tmp/out")" -eq 2 ] && [ "$(grep -c ': [A-Z]*:[A-Z_]*: ' "$tmp/out")" -eq 2 ]; then
	ok "--terse: the two finding lines, nothing else"
else
	not_ok "--terse: the two finding lines, nothing else"; sed 's/^/#   /' "$tmp/out"
fi
capture "$TAGBOT" check --no-summary "$series"
lacks "--no-summary: no file total" out "total:"
lacks "--no-summary: no run total" out "patches checked"
has "--no-summary: the header lines stay" out "<20250311042642.373782-1-craig@mcqueen.au>"
has "--no-summary: the quoted line stays" out "    | Signed-off-by: MarshallZhan"

# One total line per FILE, then the run's.
capture "$TAGBOT" check "$series" "$clean"
has "the series' total" out "$series: total: 1 errors, 1 warnings, 0 checks, 2 patches checked"
has "the clean file's total" out "$clean: total: 0 errors, 0 warnings, 0 checks, 1 patches checked"
has "the run's total" out "4 messages, 3 patches checked, 1 errors, 1 warnings, 0 checks"
if [ "$(tail -n 1 "$tmp/out")" = "4 messages, 3 patches checked, 1 errors, 1 warnings, 0 checks" ]; then
	ok "the run's total comes last"
else
	not_ok "the run's total comes last"
fi
capture "$TAGBOT" check --format=json "$series"
lacks "JSON: no total lines" out "total:"

# --- the configuration found without -c ------------------------------------------
off() { printf '[rules]\n%s = off\n' "$1"; }
mkdir -p "$tmp/tree/sub/dir" "$tmp/xdg/tagbot" "$HOME/.config/tagbot"
if command -v git >/dev/null 2>&1; then
	git init -q "$tmp/tree" || exit 99
else
	mkdir "$tmp/tree/.git"	# all tagbot looks for
fi
off MISSING_SIGN_OFF >"$tmp/tree/.tagbot.ini"
off FROM_SIGN_OFF_MISMATCH >"$tmp/xdg/tagbot/tagbot.ini"
off FROM_SIGN_OFF_MISMATCH >"$HOME/.config/tagbot/tagbot.ini"

cd "$tmp/tree/sub/dir" || exit 99
capture "$TAGBOT" check "$series"
found "in a subdirectory of the tree: the tree's .tagbot.ini" no yes
capture env XDG_CONFIG_HOME="$tmp/xdg" "$TAGBOT" check "$series"
found "the tree's file before XDG_CONFIG_HOME's" no yes
capture "$TAGBOT" check -v "$series"
has "-v names the file it read" err "tagbot: settings from $tmp/tree/.tagbot.ini"
capture "$TAGBOT" check --no-config "$series"
found "--no-config: neither file" yes yes
off EMAIL_SUBJECT >"$tmp/explicit.ini"
capture "$TAGBOT" check -c "$tmp/explicit.ini" "$series"
found "-c wins over the tree's file" yes yes

# A tree without the file: the user's file.
rm "$tmp/tree/.tagbot.ini"
capture env XDG_CONFIG_HOME="$tmp/xdg" "$TAGBOT" check "$series"
found "no file in the tree: XDG_CONFIG_HOME's" yes no
rm "$tmp/xdg/tagbot/tagbot.ini"
capture env XDG_CONFIG_HOME="$tmp/xdg" "$TAGBOT" check "$series"
found "XDG_CONFIG_HOME set but without the file: nothing (not ~/.config)" yes yes
capture "$TAGBOT" check "$series"
found "XDG_CONFIG_HOME unset: ~/.config/tagbot/tagbot.ini" yes no
capture env XDG_CONFIG_HOME=relative/dir "$TAGBOT" check "$series"
found "a relative XDG_CONFIG_HOME is ignored (XDG spec): ~/.config" yes no

# Outside any tree, the same.
cd "$tmp/outside" || exit 99
capture "$TAGBOT" check "$series"
found "outside a tree: ~/.config/tagbot/tagbot.ini" yes no
capture "$TAGBOT" check --no-config "$series"
found "outside a tree, --no-config: built-in" yes yes

# A file found is held to what -c is held to.
printf '[rules]\nMISING_SIGN_OFF = off\n' >"$HOME/.config/tagbot/tagbot.ini"
capture "$TAGBOT" check "$series"
status_is "a found file with a typo: exit 2" 2
has "... naming the file and the key" err "$HOME/.config/tagbot/tagbot.ini: [rules] MISING_SIGN_OFF: unknown rule ID"

finish
