#!/bin/sh
# dry-run.sh - `tagbot run --once --dry-run` prints what `tagbot run --once`
# sends: run on two copies of one Maildir (a series of three without
# Signed-off-by:, a lone patch without one, a clean patch) with reply_mode =
# per-series, the dry run prints as many replies, to the same parents, as
# the real run writes (one for the series, not one a patch).  Then, over the
# real run's state, a dry run prints only the reply to a new mail and leaves
# the state file, the sink, the source's flags and its temporary directory
# as they were.
. "${top_srcdir:?run me through make check}/tests/lib.sh"

data=$TAGBOT_TEST_DATA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-dry-run.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# ini DIR: the daemon's file for the copy in DIR
ini() {
	cat >"$1/tagbot.ini" <<EOF
[tagbot]
state = $1/state/tagbot.db
[source]
type = maildir
path = $1/inbox
mark_seen = yes
[sink]
type = maildir
path = $1/out
[reply]
from = tagbot <tagbot@example.org>
reply_mode = per-series
EOF
}
# parents FILE...: the In-Reply-To lines of the replies, sorted
parents() { cat "$@" | tr -d '\r' | grep '^In-Reply-To:' | sort; }
replies_written() { find "$1/out" -type f | wc -l | tr -d ' '; }
# dry DIR: a dry run of DIR's copy, its mbox in DIR/dry.out
dry() {
	TMPDIR=$tmp/scratch "$TAGBOT" run --once --dry-run -c "$1/tagbot.ini" >"$1/dry.out" \
		2>"$1/dry.log"
}
# same DESC A B: the two values are equal
same() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: '$2' vs '$3'"; fi; }

mkdir -p "$tmp/scratch" "$tmp/inbox/new" "$tmp/inbox/cur" "$tmp/inbox/tmp"
n=0
for f in series/series-v2-cover.eml series/series-v2-1.eml series/series-v2-2.eml cli/cli-missing-signoff.eml \
	 cli/cli-clean.eml; do
	n=$((n + 1))
	sed '/^Signed-off-by: Thomas/d' "$data/$f" >"$tmp/inbox/new/170000000$n.m$n"
done
cp -R "$tmp/inbox" "$tmp/inbox.orig"
for c in a b; do
	mkdir "$tmp/$c"
	cp -R "$tmp/inbox" "$tmp/$c/inbox"
	ini "$tmp/$c"
done

# --- a fresh start: as many printed as written --------------------------------------
dry "$tmp/a"
same "--dry-run exits 0" "$?" 0
"$TAGBOT" run --once -c "$tmp/b/tagbot.ini" >/dev/null 2>"$tmp/b/run.log"
same "the real run exits 0" "$?" 0
printed=$(grep -c '^In-Reply-To:' "$tmp/a/dry.out")
same "per-series: the dry run prints what the real run writes" "$printed" \
	"$(replies_written "$tmp/b")"
same "... two replies: the series and the lone patch" "$printed" 2
expect "... and it says so at the end" grep -q "done: 5 messages looked at, 2 replies printed (dry run)" \
	"$tmp/a/dry.log"
same "... to the same parents" "$(parents "$tmp/a/dry.out")" "$(parents "$tmp/b/out"/*/*)"
expect "... the series' reply to its cover letter" grep -q \
	'^In-Reply-To: <20250204-must_check-devm_mutex_init-v2-0-7b6271c4b7e6@weissschuh.net>' \
	"$tmp/a/dry.out"
expect "the dry run writes no state and no sink" \
	test ! -e "$tmp/a/state" -a ! -e "$tmp/a/out"
same "... and leaves the mails in new/ (mark_seen = yes)" \
	"$(ls "$tmp/a/inbox/new" "$tmp/a/inbox/cur")" \
	"$(ls "$tmp/inbox.orig/new" "$tmp/inbox.orig/cur" | sed 's|inbox.orig|a/inbox|')"
same "... and removes its scratch store" "$(ls -A "$tmp/scratch")" ""

# --- over the real run's state: only what is new -------------------------------------
sed '/^Signed-off-by:/d' "$data/cli/replay-rate-a.eml" >"$tmp/b/inbox/new/1700000009.m9"
"$TAGBOT" status -c "$tmp/b/tagbot.ini" >"$tmp/b/status.before" 2>&1
before=$(cd "$tmp/b/state" && ls -A && cksum tagbot.db)
dry "$tmp/b"
same "a dry run over a state exits 0" "$?" 0
same "... prints only the reply to the new mail" \
	"$(parents "$tmp/b/dry.out")" "In-Reply-To: <20250601-rate-a@example.org>"
same "... leaves the state file as it was" "$(cd "$tmp/b/state" && ls -A && cksum tagbot.db)" \
	"$before"
"$TAGBOT" status -c "$tmp/b/tagbot.ini" >"$tmp/b/status.after" 2>&1
expect "... and what tagbot status reads from it" cmp -s "$tmp/b/status.before" \
	"$tmp/b/status.after"
same "... writes nothing to the sink" "$(replies_written "$tmp/b")" 2
expect "... leaves the new mail in new/" test -e "$tmp/b/inbox/new/1700000009.m9"
same "... and removes its scratch store" "$(ls -A "$tmp/scratch")" ""
"$TAGBOT" run --once -c "$tmp/b/tagbot.ini" >/dev/null 2>>"$tmp/b/run.log"
same "the real run then sends that one reply" "$(replies_written "$tmp/b")" 3
expect "... to the same parent" grep -rq '^In-Reply-To: <20250601-rate-a@example.org>' \
	"$tmp/b/out"

finish
