#!/bin/sh
# git-check.sh - `tagbot check` with git: --git over a scratch repository
# built here with real git, the Fixes:/commit lookups (UNKNOWN_COMMIT_ID,
# a wrong subject, a short id), their absence outside a repository, and
# --fix: its output line by line, and `git am` of the fixed patch keeps
# the diff byte for byte.
. "${top_srcdir:?run me through make check}/tests/lib.sh"

command -v git >/dev/null 2>&1 || { echo "git is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-git.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# A fixed identity and dates, and no user or system config.
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" GIT_AUTHOR_NAME="A U Thor" \
	GIT_AUTHOR_EMAIL=author@example.org GIT_COMMITTER_NAME="A U Thor" \
	GIT_COMMITTER_EMAIL=author@example.org \
	GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z"
SOB="Signed-off-by: A U Thor <author@example.org>"
repo=$tmp/repo
g() { git -C "$repo" "$@"; }
# commit SUBJECT BODY: a change to f with that message
commit() {
	echo "$1" >>"$repo/f"
	g add f && g commit -q -m "$1" -m "$2"
}

git init -q "$repo" || exit 99
commit "leds: core: add the base" "The base.

$SOB"
base=$(g rev-parse HEAD)
b12=$(printf %.12s "$base")
commit "leds: core: fix the base" "Fix it.

Fixes: $b12 (\"leds: core: add the base\")
$SOB"
good=$(g rev-parse HEAD)
commit "leds: core: wrong subject" "Fix it again.

Fixes: $b12 (\"leds: core: add a base\")
$SOB"
wrong=$(g rev-parse HEAD)
commit "leds: core: unknown id" "Fix something else.

Fixes: 0123456789ab (\"leds: no such commit\")
$SOB"
unknown=$(g rev-parse HEAD)
short7=$(printf %.7s "$base")
commit "leds: core: short id" "As commit $b12 (\"leds: core: add the base\") did.

Fixes: $short7 (\"leds: core: add the base\")
$SOB"
short=$(g rev-parse HEAD)

has() { if grep -qF -- "$2" "$tmp/out"; then ok "$1"; else not_ok "$1: no '$2' in stdout"; fi; }
lacks() { if grep -qF -- "$2" "$tmp/out"; then not_ok "$1: '$2' in stdout"; else ok "$1"; fi; }
id12() { printf %.12s "$1"; }

# --- --git over a range ----------------------------------------------------

(cd "$repo" && capture "$TAGBOT" check --git "$base..HEAD"; echo "$status" >"$tmp/status")
expect "--git: exit 1 (findings)" [ "$(cat "$tmp/status")" = 1 ]
has "--git: four commits after the base" "4 messages, 4 patches checked, 0 errors, 3 warnings, 0 checks"
lacks "--git: the base itself is not in the range" "$(id12 "$base"):"
lacks "--git: the right Fixes: is clean" "$(id12 "$good"):"
has "--git: each commit named by its id and subject" "$(id12 "$wrong"): commit \"leds: core: wrong subject\""
has "--git: a wrong subject quotes the right one, at line 5 of the message" \
	"$(id12 "$wrong"):5: WARNING:BAD_FIXES_TAG: The subject given for commit $b12 is not that commit's; it reads: Fixes: $b12 (\"leds: core: add the base\")"
has "--git: an unknown id" \
	"$(id12 "$unknown"):5: WARNING:UNKNOWN_COMMIT_ID: Unknown commit id '0123456789ab'"
has "--git: a short id is shown as 12 digits and the subject" \
	"$(id12 "$short"):5: WARNING:BAD_FIXES_TAG: The commit id in Fixes: is too short; please use at least 12 characters of the SHA-1: Fixes: <id> (\"<subject>\"). In this repository: Fixes: $b12 (\"leds: core: add the base\")"
lacks "--git: a right citation in prose is clean" "$(id12 "$short"):3:"
expect "--git: first commit first" \
	[ "$(grep -n ': commit "' "$tmp/out" | head -n 1 | cut -d'"' -f2)" = "leds: core: wrong subject" ]

(cd "$repo" && "$TAGBOT" check --format=json -g "$base..HEAD" >"$tmp/json")
expect "--git JSON: one object per commit, each with its full id, oldest first" \
	python3 - "$tmp/json" "$good" "$wrong" "$unknown" "$short" <<'EOF'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert [o["commit"] for o in objs] == sys.argv[2:], [o["commit"] for o in objs]
assert objs[1]["subject"] == "leds: core: wrong subject", objs[1]["subject"]
rules = [[f["rule"] for f in o["findings"]] for o in objs]
assert rules == [[], ["BAD_FIXES_TAG"], ["UNKNOWN_COMMIT_ID"], ["BAD_FIXES_TAG"]], rules
EOF

(cd "$repo" && capture "$TAGBOT" check -q -g "HEAD-2"; echo "$status" >"$tmp/status")
expect "REV-N: the last two commits" [ "$(grep -c ': WARNING:' "$tmp/out")" = 2 ]
(cd "$repo" && capture "$TAGBOT" check -q -g "$wrong"; echo "$status" >"$tmp/status")
expect "one commit alone" [ "$(cut -d: -f1 "$tmp/out" | sort -u)" = "$(id12 "$wrong")" ]
(cd "$repo" && capture "$TAGBOT" check -g "no-such-rev..HEAD"; echo "$status" >"$tmp/status")
expect "a bad range: exit 2" [ "$(cat "$tmp/status")" = 2 ]
(cd "$tmp" && capture "$TAGBOT" check -g HEAD; echo "$status" >"$tmp/status")
expect "--git outside a repository: exit 2" [ "$(cat "$tmp/status")" = 2 ]

# --- mails: inside the repository, --tree, outside ------------------------

g format-patch -q -o "$tmp/p" "$base..HEAD" || exit 99
unk=$(ls "$tmp/p"/0003-*.patch)
(cd "$repo" && capture "$TAGBOT" check -q "$unk")
lacks "a repository that is no kernel tree: no lookups" "UNKNOWN_COMMIT_ID"
touch "$repo/MAINTAINERS" "$repo/Kbuild"	# what a kernel tree's top holds
(cd "$repo" && capture "$TAGBOT" check -q "$unk")
has "a mail checked in a kernel tree: UNKNOWN_COMMIT_ID" "UNKNOWN_COMMIT_ID"
mkdir -p "$repo/drivers/leds"
(cd "$repo/drivers/leds" && capture "$TAGBOT" check -q "$unk")
has "... from a directory below its top too" "UNKNOWN_COMMIT_ID"
(cd "$tmp" && capture "$TAGBOT" check -q --tree "$repo" "$unk")
has "--tree DIR: looked up there" "UNKNOWN_COMMIT_ID"
(cd "$tmp" && capture "$TAGBOT" check -q "$unk")
lacks "outside a repository: no lookups, no UNKNOWN_COMMIT_ID" "UNKNOWN_COMMIT_ID"
(cd "$repo" && capture "$TAGBOT" check -q --no-tree "$unk")
lacks "--no-tree: no UNKNOWN_COMMIT_ID" "UNKNOWN_COMMIT_ID"
(cd "$tmp" && capture "$TAGBOT" check --tree "$tmp/p" "$unk"; echo "$status" >"$tmp/status")
expect "--tree of no repository: exit 2" [ "$(cat "$tmp/status")" = 2 ]

# --- --fix ---------------------------------------------------------------------

commit "leds: core: messy tags" "Describe the change.

v2: rebased on the base
v1: first try

signed-off-by: A U Thor <author@example.org>
Reported-and-tested-by: Rep Orter <rep@example.org>
Closes: https://bugs.example.org/1
Cc: Stable Team <stable@vger.kernel.org> # 6.1+
Cc: \"stable\" <stable@vger.kernel.org>
Fixes: $short7 (\"leds: a wrong subject\")
Acked-by :  Some One <some@example.org>
link:   https://example.org/why"
g format-patch -q -1 -o "$tmp/fix" HEAD || exit 99
patch=$(ls "$tmp/fix"/*.patch)
cp "$patch" "$tmp/orig.patch"
(cd "$repo" && "$TAGBOT" check --fix "$patch" >/dev/null 2>"$tmp/err")
expect "--fix: the original is untouched" cmp -s "$patch" "$tmp/orig.patch"
expect "--fix: says where the copy is" grep -qF "$patch.fixed" "$tmp/err"
# The commit message as it must read after --fix, written by hand.
cat >"$tmp/want" <<EOF
Describe the change.

Signed-off-by: A U Thor <author@example.org>
Reported-by: Rep Orter <rep@example.org>
Tested-by: Rep Orter <rep@example.org>
Closes: https://bugs.example.org/1
Cc: stable@vger.kernel.org # 6.1+ (Stable Team)
Cc: stable@vger.kernel.org # stable
Fixes: $b12 ("leds: core: add the base")
Acked-by: Some One <some@example.org>
Link: https://example.org/why
---
v2: rebased on the base
v1: first try

EOF
# from after Subject: and its blank line to the diffstat
sed -n '/^Subject:/,/^ f | 1 +$/p' "$patch.fixed" | sed '1,2d;$d' >"$tmp/got"
expect "--fix: the commit message, line by line" diff -u "$tmp/want" "$tmp/got"
# Everything from the diffstat on is the original's, byte for byte.
sed -n '/^ f | 1 +$/,$p' "$tmp/orig.patch" >"$tmp/tail.orig"
sed -n '/^ f | 1 +$/,$p' "$patch.fixed" >"$tmp/tail.fixed"
expect "--fix: the diff part is byte for byte the original's" cmp -s "$tmp/tail.orig" "$tmp/tail.fixed"
expect "--fix: the diff part is not empty" test -s "$tmp/tail.orig"

# git am of the fixed patch applies and the commit's diff is the original's.
g show --format= HEAD >"$tmp/diff.orig"
g checkout -q HEAD~1 && g am -q "$patch.fixed" >"$tmp/am.err" 2>&1
expect "git am applies the fixed patch" [ "$?" = 0 ]
g show --format= HEAD >"$tmp/diff.fixed"
expect "git am: the diff is byte for byte the original's" cmp -s "$tmp/diff.orig" "$tmp/diff.fixed"
expect "git am: the notes stayed below ---" [ "$(g log -1 --format=%B | grep -c '^v[12]:')" = 0 ]
expect "git am: the split tags are in the commit" \
	[ "$(g log -1 --format=%B | grep -c '^Reported-by: \|^Tested-by: ')" = 2 ]

# Outside a repository the Fixes: line is not rewritten (no guessing).
(cd "$tmp" && "$TAGBOT" check --fix - <"$tmp/orig.patch" >"$tmp/stdin.fixed" 2>/dev/null)
expect "--fix of stdin: the fixed copy on stdout" grep -qx "Reported-by: Rep Orter <rep@example.org>" "$tmp/stdin.fixed"
expect "--fix outside a repository: Fixes: left as written" \
	grep -qx "Fixes: $short7 (\"leds: a wrong subject\")" "$tmp/stdin.fixed"

cp "$tmp/orig.patch" "$tmp/inplace.patch"
(cd "$repo" && "$TAGBOT" check --fix-inplace "$tmp/inplace.patch" >/dev/null 2>&1)
expect "--fix-inplace: the file itself is fixed" cmp -s "$tmp/inplace.patch" "$patch.fixed"
expect "--fix-inplace: no copy beside it" test ! -e "$tmp/inplace.patch.fixed"

# --- what git itself writes is clean -----------------------------------------

# user.name with quotes in it: format-patch escapes them in From: and
# commit -s writes them bare in the sign-off; one person, no finding.
jd=$tmp/jd
git init -q "$jd" && echo a >"$jd/f" && git -C "$jd" add f &&
	GIT_AUTHOR_NAME='Jane "JD" Doe' GIT_COMMITTER_NAME='Jane "JD" Doe' \
	GIT_AUTHOR_EMAIL=jane@example.org GIT_COMMITTER_EMAIL=jane@example.org \
	git -C "$jd" commit -q -s -m "leds: core: fix the frob" -m "Fix it." &&
	git -C "$jd" format-patch -q -1 --root -o "$tmp/jd-out" || exit 99
expect "format-patch with a quoted user.name: From: escapes the quotes" \
	grep -qF 'From: "Jane \"JD\" Doe" <jane@example.org>' "$tmp"/jd-out/0001-*.patch
capture "$TAGBOT" check --no-config --no-tree --format=json "$tmp"/jd-out/0001-*.patch
status_is "format-patch with a quoted user.name: no finding" 0
has "format-patch with a quoted user.name: the author as git has it" \
	'"author":{"name":"Jane \"JD\" Doe","email":"jane@example.org"}'
lacks "format-patch with a quoted user.name: no FROM_SIGN_OFF_MISMATCH" FROM_SIGN_OFF_MISMATCH

finish
