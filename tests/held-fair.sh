#!/bin/sh
# held-fair.sh - replies a rate limit holds go out one per person in turn
# (round robin), not first in, first out, so a flood from many addresses
# cannot push one author's reply back by more than one round: after the
# author's reply is held, each flooding address gets at most one reply
# before it.  `tagbot replay` runs the daemon's pipeline with each mail's
# Date as the clock, max_per_minute = 2; a clean patch every 10 s moves
# the clock on.
#   a) per-series: six addresses send four two-patch series each, then
#      Ann sends one: first in, first out, Ann's reply would be the last of
#      25; in turn it comes in the first round
#   b) six addresses keep sending a patch each, in turn, faster than the
#      limit (the patches held for one address fold into one reply); Ann's
#      series, held among them, is answered within one round, not starved
#      while held patches keep coming
. "${top_srcdir:?run me through make check}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-held-fair.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

S=6
{ replay_ini "$tmp"; printf 'max_per_minute = 2\nmax_share_per_sender = 0\n'
  printf 'max_per_author_per_hour = 0\nrepeat_after = 0\n'; } >"$tmp/fair.ini"

# gen MODE OUT: the mbox of scenario MODE (series, stream)
gen() {
	python3 - "$1" "$2" "$S" <<'PY'
import sys
mode, path, S = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = open(path, "w")
t0 = 1748772000		# 2025-06-01 10:00:00 UTC
def date(t):
    import email.utils
    return email.utils.formatdate(t)
def mail(frm, mid, subj, t, irt=None, clean=False):
    refs = "In-Reply-To: <%s>\nReferences: <%s>\n" % (irt, irt) if irt else ""
    sob = "Signed-off-by: %s\n" % frm if clean else ""
    out.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nSubject: %s\n"
              "Date: %s\nMessage-ID: <%s>\n%s\nDo it.\n\n%s---\n"
              "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\n"
              % (frm, subj, date(t), mid, refs, sob))
def series(frm, tag, t):
    mail(frm, tag + "-1@x.org", "[PATCH 1/2] x: %s one" % tag, t)
    mail(frm, tag + "-2@x.org", "[PATCH 2/2] x: %s two" % tag, t, tag + "-1@x.org")
def flood(s):
    return "Flood %d <flood%d@example.net>" % (s, s)
t = t0
if mode == "series":
    for r in range(4):
        for s in range(S):
            series(flood(s), "f%d-%d" % (s, r), t)
            t += 1
    series("Ann <ann@example.org>", "ann", t)
    ticks = range(200)
else:
    # a patch every 15 s (four a minute, twice the limit), the addresses in turn
    for k in range(120):
        mail(flood(k % S), "p%d-%d@x.org" % (k % S, k), "[PATCH] x: p %d" % k, t)
        if k == 20:
            series("Ann <ann@example.org>", "ann", t)
        t += 15
    ticks = range(0)
for k in ticks:
    t += 10
    mail("Tick <tick@example.net>", "tick-%d@x.org" % k, "[PATCH] x: tick %d" % k, t,
         clean=True)
PY
}

# round DESC: in $tmp/out, the replies between Ann's series being held
# (its last part) and Ann's reply: at most one per flooding address, and
# Ann's reply is there
round() {
	if awk -v S="$S" '
		/^ann-2@x.org: / { held = 1; next }
		held && / would reply / {
			split($1, id, "-")
			if (id[1] == "ann") { done = 1; exit }
			if (seen[id[1]]++ == 1) { printf "# %s twice before Ann\n", id[1]; bad = 1 }
			n++
		}
		END {
			if (!done) print "# no reply to Ann after her series was held"
			if (n > S) printf "# %d replies between, more than %d addresses\n", n, S
			exit !(done && !bad && n <= S)
		}' "$tmp/out"; then
		ok "$1"
	else
		not_ok "$1"
		grep '^[^ ].* would reply ' "$tmp/out" | awk '{ printf "%s ", $1 } END { print "" }' |
			fold -w 160 | sed 's/^/#   /'
	fi
}

# --- a) per-series ------------------------------------------------------------------
gen series "$tmp/series.mbox"
capture "$TAGBOT" replay -c "$tmp/fair.ini" "$tmp/series.mbox"
status_is "a) replay exits 0" 0
round "a) per-series: Ann's reply comes within one round of the six addresses"
n=$(grep -c '^f[0-9]*-[0-9]*-1@x.org: would reply' "$tmp/out")
expect "a) ... and every held series is answered in the end (24, got $n)" [ "$n" = 24 ]

# --- b) a stream of single patches ----------------------------------------------
gen stream "$tmp/stream.mbox"
capture "$TAGBOT" replay -c "$tmp/fair.ini" "$tmp/stream.mbox"
status_is "b) replay exits 0" 0
round "b) a stream of held patches: Ann's series is answered within one round"
finish
