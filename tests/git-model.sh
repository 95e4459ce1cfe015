#!/bin/bash
# git-model.sh - tagbot reads mail as git reads it: git-model.py compares
# tagbot check --format=json with git mailsplit, git mailinfo and git
# interpret-trailers over the project's fixtures and, when they are at hand,
# both list archives (linux-leds and linux-gpio).  Every disagreement must be
# one git-model.known lists, with its reason.
. "$top_srcdir/tests/lib.sh"
command -v git >/dev/null || { echo "SKIP: no git"; exit 77; }

set --
for f in $(cd "$top_srcdir" && find tests/data -type f \( -name '*.eml' -o -name '*.mbox' \) | LC_ALL=C sort); do
	set -- "$@" "$f=$top_srcdir/$f"
done
nfix=$#
for c in linux-leds:linux-leds-2025-2026.mbox.gz linux-gpio:linux-gpio-2025-2026.mbox.xz; do
	if path=$(corpus_path "${c#*:}"); then
		set -- "$@" "${c%%:*}=$path"
	else
		echo "# ${c#*:} not found: its mails are not compared"
	fi
done
echo "# $nfix fixtures, $(($# - nfix)) archives"
out=$(mktemp "${TMPDIR:-/tmp}/git-model.XXXXXX")
trap 'rm -f "$out" "$out.log"' EXIT
python3 "$top_srcdir/tests/git-model.py" --tagbot "$TAGBOT" \
	--known "$top_srcdir/tests/git-model.known" --out "$out" "$@" >"$out.log"
status=$?
grep -v ': [0-9]* mails, 0 disagreements$' "$out.log"
exit $status
