#!/bin/sh
# replay.sh - `tagbot replay` over fixture mails: one line per message with
# the decision `tagbot run` would make, the per-list policy ([list ID],
# [default], enabled = no), dedupe across the run, rate limits on the mails'
# own Date clock, --since/--until, the totals, --stats, a clean series'
# parts shown clean, --show-replies (in per-series
# mode one reply for a series, to its author), and that nothing is written
# to the configured state or sink.  Expected lines come from reading the
# fixtures (their findings are the ones tests/cli.sh asserts for tagbot check).
. "${top_srcdir:?run me through make check}/tests/lib.sh"

data=$TAGBOT_TEST_DATA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-replay.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# line DESC EXACT-LINE: stdout has that whole line
line() { if grep -qxF -- "$2" "$tmp/out"; then ok "$1"; else not_ok "$1: no line '$2'"; sed 's/^/#   /' "$tmp/out" | head -30; fi; }
lacks() { if grep -qF -- "$2" "$tmp/out"; then not_ok "$1: '$2' in stdout"; else ok "$1"; fi; }
# total DESC LABEL N: the totals count N for LABEL
total() {
	if grep -qE "^  $2 +$3\$" "$tmp/out"; then ok "$1"; else not_ok "$1: no total '$2 $3'"; sed -n '/^-- totals/,$p' "$tmp/out" | sed 's/^/#   /'; fi
}
# once DESC: the decisions' totals add up to "messages N" (each message is
# counted once, by its last decision)
once() {
	sum=$(sed -n '/^decisions:/,/^rules:/p' "$tmp/out" | awk '/^  /{s+=$NF} END{print s+0}')
	n=$(sed -n 's/^messages \([0-9]*\).*/\1/p' "$tmp/out")
	if [ -n "$n" ] && [ "$sum" = "$n" ]; then ok "$1"; else not_ok "$1: decisions add up to $sum, messages ${n:-?}"; sed -n '/^-- totals/,$p' "$tmp/out" | sed 's/^/#   /'; fi
}

# The daemon's file: a Maildir source and sink, a state file; replay must
# touch none of them.
base() { replay_ini "$tmp"; }
base >"$tmp/plain.ini"

leds="20250311042642.373782-1-craig@mcqueen.au"		# no Signed-off-by
warn="20250224082815.1827487-1-delphine_cc_chiu@wiwynn.com"	# FROM_SIGN_OFF_MISMATCH
chk="20251211163727.366441-1-johannes.goede@oss.qualcomm.com"	# MISSING_FIXES_TAG (check)
clean="20250426020454.47059-1-jesse@ponkila.com"
reply="20250314110853.GF3890718@google.com"
set -- "$data/cli/cli-missing-signoff.eml" "$data/cli/cli-warning-only.eml" \
	"$data/cli/cli-check-only.eml" "$data/cli/cli-clean.eml" "$data/cli/cli-reply.eml"

# --- the global policy ---------------------------------------------------------
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$@" "$data/cli/cli-missing-signoff.eml"
status_is "replay exits 0" 0
line "an error finding: would reply" "$leds: would reply (MISSING_SIGN_OFF)"
line "a warning finding: would reply" "$warn: would reply (FROM_SIGN_OFF_MISMATCH)"
line "a CHECK below min_reply_severity: clean" "$chk: clean"
line "a clean patch" "$clean: clean"
line "a reply is not answered" "$reply: skipped: reply"
line "the same mail twice: the second is seen" "$leds: skipped: seen"
total "two would-be replies" "would reply" 2
total "two clean" "clean" 2
total "one reply skipped" "skipped: reply" 1
total "one seen" "skipped: seen" 1
line "the messages are counted" "messages 6"
line "totals per rule: MISSING_SIGN_OFF" "  MISSING_SIGN_OFF                      1      0"
line "the clock is the mails' Date" "clock: the mails' Date headers"
once "each message is counted once"
if [ -e "$tmp/state" ] || [ -e "$tmp/replies" ]; then
	not_ok "nothing is written to the state or the sink"
else
	ok "nothing is written to the state or the sink"
fi

# --- per-list policy -------------------------------------------------------------
{ base; cat <<'EOF'
[list linux-leds.vger.kernel.org]
min_reply_severity = check
FROM_SIGN_OFF_MISMATCH = off
EOF
} >"$tmp/list.ini"
capture "$TAGBOT" replay -c "$tmp/list.ini" "$@"
status_is "replay with a [list] section exits 0" 0
line "the list's min_reply_severity = check answers a CHECK" \
	"$chk: would reply (MISSING_FIXES_TAG)"
line "the list turned FROM_SIGN_OFF_MISMATCH off" "$warn: clean"
line "the rest as before" "$leds: would reply (MISSING_SIGN_OFF)"

{ base; cat <<'EOF'
[default]
enabled = no
[list linux-leds@vger.kernel.org]
EOF
} >"$tmp/off.ini"
capture "$TAGBOT" replay -c "$tmp/off.ini" "$@" "$data/cli/replay-rate-a.eml"
line "[default] enabled = no reaches a listed list too" \
	"$leds: skipped: list-disabled (MISSING_SIGN_OFF)"
line "and a mail of another list" \
	"20250601-rate-a@example.org: skipped: list-disabled (MISSING_SIGN_OFF)"
line "a clean patch stays clean" "$clean: clean"
total "disabled replies are counted" "skipped: list-disabled" 3
line "their rules in the held column" "  MISSING_SIGN_OFF                      0      2"

{ base; cat <<'EOF'
[default]
enabled = no
[list linux-leds.vger.kernel.org]
enabled = yes
EOF
} >"$tmp/optin.ini"
capture "$TAGBOT" replay -c "$tmp/optin.ini" "$data/cli/cli-missing-signoff.eml" "$data/cli/replay-rate-a.eml"
line "opt-in: the enabled list is answered" "$leds: would reply (MISSING_SIGN_OFF)"
line "opt-in: X-Mailing-List of another list follows [default]" \
	"20250601-rate-a@example.org: skipped: list-disabled (MISSING_SIGN_OFF)"

# --- rate limits on the mails' clock ---------------------------------------------
# a 10:00:00, b 10:00:30 UTC (written +0200), c 10:02:00: one reply a minute.
{ base; printf 'max_per_minute = 1\nrepeat_after = 0\n'; } >"$tmp/rate.ini"
capture "$TAGBOT" replay -c "$tmp/rate.ini" "$data/cli/replay-rate-a.eml" "$data/cli/replay-rate-b.eml" \
	"$data/cli/replay-rate-c.eml"
line "the first is answered" "20250601-rate-a@example.org: would reply (MISSING_SIGN_OFF)"
line "30 s later (by Date, +0200 applied): held" \
	"20250601-rate-b@example.org: held: rate-limit-global (MISSING_SIGN_OFF)"
line "two minutes later: answered again" \
	"20250601-rate-c@example.org: would reply (MISSING_SIGN_OFF)"
line "the held one is answered once the limit has room, not dropped" \
	"20250601-rate-b@example.org: would reply (MISSING_SIGN_OFF)"
total "all three answered" "would reply" 3
lacks "... and the held one is counted as answered only" "  held: rate-limit-global"
line "... its rule once, in the reply column" "  MISSING_SIGN_OFF                      3      0"
once "held, then answered: each message counted once"

# --- one problem, one mail (per-series, the default) ----------------------------
# Two series of 10 patches and a cover, a day apart, by Ann, whose From:
# (ann@example.org) and Signed-off-by: (ann@work.example.com) differ in
# every patch: the first series gets one reply that says it once; the
# second, a day later, none ([reply] repeat_after).
series() {	# series TAG DAY: $tmp/series-TAG.mbox
	python3 - "$tmp/series-$1.mbox" "$1" "$2" <<'PY'
import sys
path, tag, day = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, "w") as f:
    for i in range(11):
        subj = "[PATCH 0/10] leds: %s: the cover" % tag if i == 0 else \
               "[PATCH %d/10] leds: %s: step %d" % (i, tag, i)
        refs = "" if i == 0 else "In-Reply-To: <%s-0@example.org>\nReferences: <%s-0@example.org>\n" % (tag, tag)
        body = "The cover.\n" if i == 0 else \
               "Do step %d.\n\nSigned-off-by: Ann <ann@work.example.com>\n---\n" \
               "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" % i
        f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Ann <ann@example.org>\n"
                "Subject: %s\nDate: Mon, %02d Jun 2025 10:00:%02d +0000\n"
                "Message-ID: <%s-%d@example.org>\n%s\n%s\n" % (subj, day, i, tag, i, refs, body))
PY
}
series one 2
series two 3
base >"$tmp/told.ini"
echo "max_per_author_per_hour = 0" >>"$tmp/told.ini"
capture "$TAGBOT" replay -c "$tmp/told.ini" "$tmp/series-one.mbox" "$tmp/series-two.mbox"
status_is "two series: exit 0" 0
total "a 10-patch series with the same mix-up throughout: one reply, and none for the next a day later" \
	"would reply" 1
line "... which names the mix-up" "one-0@example.org: would reply (FROM_SIGN_OFF_MISMATCH)"
lacks "... and the second series gets none" "two-0@example.org: would reply"
total "held for a series: the 10 parts of the first, not the answered cover" \
	"skipped: series" 10
total "... the second, with nothing new to tell, is clean: its 11 mails" "clean" 11
line "... each shown held, then clean" "two-10@example.org: clean"
once "two series: each message counted once"
capture "$TAGBOT" replay -q --show-replies -c "$tmp/told.ini" "$tmp/series-one.mbox"
line "... said at patch 1/10" "Patch 1/10:"
lacks "... and at no other" "Patch 2/10:"
# the reply is wrapped: look for the parts it names in the text joined
if tr '\n' ' ' <"$tmp/out" | tr -s ' ' | grep -qF "1. FROM_SIGN_OFF_MISMATCH (warning), line 3, also in patch 2/10 line 3, patch 3/10 line 3, patch 4/10 line 3, patch 5/10 line 3, patch 6/10 line 3, patch 7/10 line 3, patch 8/10 line 3, patch 9/10 line 3, patch 10/10 line 3:"; then
	ok "... naming the other nine patches that have it"
else
	not_ok "... naming the other nine patches that have it"
fi
line "... which are not counted among those with nothing (the cover is)" \
	"The other 1 part had nothing to look at."
{ base; printf 'max_per_author_per_hour = 0\nrepeat_after = 0\n'; } >"$tmp/told0.ini"
capture "$TAGBOT" replay -c "$tmp/told0.ini" "$tmp/series-one.mbox" "$tmp/series-two.mbox"
total "repeat_after = 0: each series is told" "would reply" 2
# Four weeks later, the same mix-up in a third series: the default (half a
# year) still does not tell it again; repeat_after = 14 does.
series late 30
capture "$TAGBOT" replay -c "$tmp/told.ini" "$tmp/series-one.mbox" "$tmp/series-late.mbox"
total "by default, the same finding four weeks later: not told again" "would reply" 1
{ base; printf 'max_per_author_per_hour = 0\nrepeat_after = 14\n'; } >"$tmp/told14.ini"
capture "$TAGBOT" replay -c "$tmp/told14.ini" "$tmp/series-one.mbox" "$tmp/series-late.mbox"
total "repeat_after = 14: four weeks later it is told again" "would reply" 2
# The same mix-up resent every few weeks: told on day 2; day 10 is held
# back, which renews the memory, so day 20 (18 days after the reply, 10
# after the last resend) is not told again with repeat_after = 14.
series mid 10
series third 20
capture "$TAGBOT" replay -c "$tmp/told14.ini" "$tmp/series-one.mbox" "$tmp/series-mid.mbox" \
	"$tmp/series-third.mbox"
line "a series kept resending a finding: told once" "one-0@example.org: would reply (FROM_SIGN_OFF_MISMATCH)"
line "... its resend within repeat_after is clean" "mid-0@example.org: clean"
total "... and so is one past repeat_after since the reply, not since the resend" \
	"would reply" 1

# --- --stats ----------------------------------------------------------------------
# series-v2 as sent (cover, 1/2, 2/2: nothing to say), Craig's patch without
# a sign-off, Delphine's FROM_SIGN_OFF_MISMATCH, and Ann's two series.  By
# hand: 3 + 1 + 1 + 11 + 11 = 27 messages; clean: the 3 of series-v2 and,
# with the default repeat_after, the 11 of Ann's second series; would reply: Craig,
# Delphine, Ann's first cover; skipped: series: the other 10 of Ann's first.
v2="$data/series/series-v2-cover.eml $data/series/series-v2-1.eml $data/series/series-v2-2.eml"
stats_set="$v2 $data/cli/cli-missing-signoff.eml $data/cli/cli-warning-only.eml"
v2lead="20250204-must_check-devm_mutex_init-v2-0-7b6271c4b7e6@weissschuh.net"
v2last="20250204-must_check-devm_mutex_init-v2-2-7b6271c4b7e6@weissschuh.net"
# shellcheck disable=SC2086
capture "$TAGBOT" replay -c "$tmp/told.ini" --stats $stats_set "$tmp/series-one.mbox" "$tmp/series-two.mbox"
status_is "--stats exits 0" 0
line "a clean series: its lead is held" "$v2lead: skipped: series"
line "... then clean" "$v2lead: clean"
line "... and so is each of its parts" "$v2last: clean"
total "... counted as clean with Ann's second series" "clean" 14
total "three replies" "would reply" 3
total "the other parts of Ann's first series stay held" "skipped: series" 10
once "--stats: the decisions add up to the messages"
line "--stats: the replies and the persons" "replies 3, to 3 persons"
line "... replies by rule, most first" "  FROM_SIGN_OFF_MISMATCH                        2  66.7%"
line "... then the next" "  MISSING_SIGN_OFF                              1  33.3%"
line "... replies by person" "  craig@mcqueen.au                              1  33.3%"
line "... the decisions, most first" "  clean                                        14  51.9%"
line "... with their share of the messages" "  skipped: series                              10  37.0%"
line "... and the replies" "  would reply                                   3  11.1%"
if sed -n '/^decisions (share/,$p' "$tmp/out" | head -2 | tail -1 | grep -q '^  clean '; then
	ok "... the most common decision first"
else
	not_ok "... the most common decision first"
fi
# repeat_after = 0: Ann's second series is told too; Ann is told twice, so
# she heads the persons; 4 replies.
# shellcheck disable=SC2086
capture "$TAGBOT" replay -c "$tmp/told0.ini" --stats $stats_set "$tmp/series-one.mbox" "$tmp/series-two.mbox"
line "--stats, repeat_after 0: four replies to three persons" "replies 4, to 3 persons"
if sed -n '/^replies by person/,$p' "$tmp/out" | sed -n 2p | grep -qx "  ann@example.org  *2  50.0%"; then
	ok "... the most told person first"
else
	not_ok "... the most told person first"
	sed -n '/^-- stats/,$p' "$tmp/out" | sed 's/^/#   /'
fi
capture "$TAGBOT" replay -c "$tmp/told.ini" $v2
lacks "without --stats: no stats" "-- stats"

# A resend that keeps a problem is not told it again: Bob's "leds: a: fix"
# with a Fixes: title out of quotes, v1 on day 2 and v2 on day 3 (subject
# case changed), another patch with the same line on day 4, not told
# either, and one with another commit's Fixes: line on day 5; Carol's
# patches without a Signed-off-by:, two different ones a day apart (the fix
# is in her workflow: once per repeat_after days).
single() {	# single ID FROM SUBJECT DAY BODY-TAGS ("|" ends a line): $tmp/ID.mbox
	python3 - "$tmp/$1.mbox" "$@" <<'PY'
import sys
path, mid, who, subj, day, tags = sys.argv[1:7]
with open(path, "w") as f:
    f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nSubject: %s\n"
            "Date: Mon, %02d Jun 2025 10:00:00 +0000\nMessage-ID: <%s@example.org>\n\n"
            "Fix the thing.\n\n%s---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
            % (who, subj, int(day), mid, tags.replace("|", "\n")))
PY
}
bob="Bob <bob@example.org>"
bad_fixes="Fixes: 1234567890ab (leds: a: old)|Signed-off-by: $bob|"
single bob-1 "$bob" "[PATCH] leds: a: fix the thing" 2 "$bad_fixes"
single bob-2 "$bob" "[PATCH v2] leds: A: Fix the thing" 3 "$bad_fixes"
single bob-3 "$bob" "[PATCH] leds: b: fix another thing" 4 "$bad_fixes"
single bob-4 "$bob" "[PATCH] leds: d: fix a third thing" 5 \
	"Fixes: 234567890abc (leds: d: older)|Signed-off-by: $bob|"
single carol-1 "Carol <carol@example.org>" "[PATCH] leds: c: one" 2 ""
single carol-2 "Carol <carol@example.org>" "[PATCH] leds: c: two" 3 ""
resend="$tmp/bob-1.mbox $tmp/carol-1.mbox $tmp/bob-2.mbox $tmp/carol-2.mbox $tmp/bob-3.mbox $tmp/bob-4.mbox"
base >"$tmp/resend.ini"
# shellcheck disable=SC2086 # $tmp has no spaces (mktemp)
capture "$TAGBOT" replay -c "$tmp/resend.ini" $resend
line "v1 of a patch: told" "bob-1@example.org: would reply (BAD_FIXES_TAG)"
line "... v2 keeps the problem: not told again" "bob-2@example.org: clean"
line "... another patch with the same line: not told again" "bob-3@example.org: clean"
line "... another commit's Fixes: line is told" "bob-4@example.org: would reply (BAD_FIXES_TAG)"
line "a patch without a sign-off: told" "carol-1@example.org: would reply (MISSING_SIGN_OFF)"
line "... her next one a day later: not told again" "carol-2@example.org: clean"
total "... three replies" "would reply" 3
# A later version of one work (b4's change-id in its Message-IDs) that
# repeats a told mistake on a line differing in a word the finding does not
# name: Dan's Assisted-by: without AGENT:MODEL, "Tool One" in v1 (told),
# "Tool Two" in v2 of the same work (not told again); a third work of his
# with "Tool Three", which was never told, is.
b4() {	# b4 VERSION WORK DAY TOOL: $tmp/b4-WORK-vVERSION.mbox, like b4 sends
	python3 - "$tmp/b4-$2-v$1.mbox" "$@" <<'PY'
import sys
path, v, work, day, tool = sys.argv[1:6]
mid = "202506%02d-%s-v%s-1-0123456789ab@example.org" % (int(day), work, v)
with open(path, "w") as f:
    f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Dan <dan@example.org>\n"
            "Subject: [PATCH v%s] leds: %s: fix it\nDate: Mon, %02d Jun 2025 10:00:00 +0000\n"
            "Message-ID: <%s>\n\nFix the thing.\n\nAssisted-by: %s 4.6\n"
            "Signed-off-by: Dan <dan@example.org>\n---\ndiff --git a/x b/x\n--- a/x\n"
            "+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" % (v, work, int(day), mid, tool))
PY
}
b4 1 tidy-leds 2 "Tool One"
b4 2 tidy-leds 4 "Tool Two"
b4 1 other-work 6 "Tool Three"
capture "$TAGBOT" replay -c "$tmp/resend.ini" "$tmp/b4-tidy-leds-v1.mbox" \
	"$tmp/b4-tidy-leds-v2.mbox" "$tmp/b4-other-work-v1.mbox"
line "a malformed Assisted-by: told on v1" \
	"20250602-tidy-leds-v1-1-0123456789ab@example.org: would reply (BAD_SIGN_OFF)"
line "... v2 of the work with another tool name: not told again" \
	"20250604-tidy-leds-v2-1-0123456789ab@example.org: clean"
line "... another work's line is its own finding" \
	"20250606-other-work-v1-1-0123456789ab@example.org: would reply (BAD_SIGN_OFF)"
{ base; echo "repeat_after = 0"; } >"$tmp/resend0.ini"
# shellcheck disable=SC2086
capture "$TAGBOT" replay -c "$tmp/resend0.ini" $resend
total "repeat_after = 0: every one is told" "would reply" 6

# --- --since / --until -------------------------------------------------------------
# Dates: missing-signoff 2025-03-11 04:26 UTC, warning-only 2025-02-24,
# check-only 2025-12-11, clean 2025-04-26, reply 2025-03-14.
capture "$TAGBOT" replay -c "$tmp/plain.ini" --since 2025-03-01 --until 2025-04-30 "$@"
line "--since/--until keep three" "messages 3 (2 more outside --since/--until)"
lacks "warning-only is before --since" "$warn"
lacks "check-only is after --until" "$chk"
capture "$TAGBOT" replay -c "$tmp/plain.ini" --until 2025-03-11 "$@"
line "--until takes the whole day" "$leds: would reply (MISSING_SIGN_OFF)"
capture "$TAGBOT" replay -c "$tmp/plain.ini" --since 2025-03-12 --until 2025-03-31 "$@"
lacks "--since starts at the day" "$leds"
line "--since 2025-03-12 --until 2025-03-31: the reply only" "$reply: skipped: reply"

# --- only submissions are answered (patch.h) ------------------------------------
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$data/mail/submission-reply-attached-patches.eml" \
	"$data/mail/submission-reply-pasted-patch.eml" "$data/mail/submission-irt-no-prefix-quoted.eml" \
	"$data/mail/submission-bug-report-diff.eml" "$data/mail/submission-stable-request-attached.eml" \
	"$data/mail/submission-stable-backport-patch.eml"
line "a Re: with attached patches: not answered" "bde582df-9522-48ae-9d84-fa3751c4a06d@kernel.org: skipped: reply"
line "a Re: with a pasted patch: not answered" "a592f471-fe5d-47c0-a5f6-305fbdcf686f@lunn.ch: skipped: reply"
line "In-Reply-To, no prefix, quotes: not answered" "debug-1@example.org: skipped: reply"
line "a bug report with a diff: not answered" \
	"AS8PR03MB690125FD99DEC3AF5887AE0DC800A@AS8PR03MB6901.eurprd03.prod.outlook.com: skipped: not-a-patch"
line "a stable request with the backport attached: not answered" \
	"20251204000025.GA468348@ax162: skipped: not-a-patch"
line "a [PATCH 5.10,...] backport is checked" "20251230212215.1613954-2-ynaffit@google.com: clean"
lacks "nothing would be answered" "would reply"
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$data/mail/submission-three-attached-patches.eml"
line "three attached patches: one reply with the second's and the third's findings" \
	"three-attached@example.org: would reply (MISSING_SIGN_OFF, BAD_REPORTED_BY_LINK)"

# --- --show-replies -------------------------------------------------------------------
# series-v2 (cover, 1/2, 2/2) without its Signed-off-by: lines, so both
# patches have a finding; per-series: one reply, to the cover.
for f in "$data"/series/series-v2-cover.eml "$data"/series/series-v2-1.eml "$data"/series/series-v2-2.eml; do
	sed '/^Signed-off-by:/d' "$f" >"$tmp/nosob-${f##*/}"
done
cover="20250204-must_check-devm_mutex_init-v2-0-7b6271c4b7e6@weissschuh.net"
{ base; echo "reply_mode = per-series"; } >"$tmp/series.ini"
capture "$TAGBOT" replay -c "$tmp/series.ini" --show-replies "$tmp"/nosob-series-v2-*.eml
status_is "replay --show-replies exits 0" 0
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 1 ]; then ok "per-series: one reply for the series"; else not_ok "per-series: $count replies, want 1"; fi
line "... to its cover letter" "----- reply to <$cover> -----"
line "... addressed to the series' author" "To: Thomas Weißschuh <linux@weissschuh.net>"
line "... threaded under the cover" "In-Reply-To: <$cover>"
line "... with the cover's subject" \
	"Subject: Re: [PATCH v2 0/2] locking/mutex: Mark devm_mutex_init() as __must_check"
line "... listing patch 1/2" "Patch 1/2:"
# MISSING_SIGN_OFF points at the last line of each commit message: line 6
# of 1/2 (its Fixes: line, right above ---), line 11 of 2/2 (the last line
# of its text, then a blank line and ---).  One finding: one item, naming
# both.
line "... with its finding, and where 2/2 has it" \
	"1. MISSING_SIGN_OFF (error), line 6, also in patch 2/2 line 11:"
lacks "... said once" "Patch 2/2:"
line "... and its end is marked" "----- end of reply to <$cover> -----"
line "the per-mail lines show the cover held" "$cover: skipped: series"
line "... and then answered" "$cover: would reply (MISSING_SIGN_OFF)"
total "and the totals" "would reply" 1
total "... count the cover once, as answered" "skipped: series" 2
once "per-series: the decisions add up to the messages"
# A series in a list whose min_reply_severity (error) is above the global
# one (warning): 1/2 also has a Reported-by: without Closes: (a warning).
# The reply leaves the warning out, and so must what the series' decision
# says it told: the per-mail line names the error only.
mkdir -p "$tmp/listmin"
sed 's/^Fixes: 259230378c65 .*/&\nReported-by: Ann Reporter <ann@example.org>/' \
	"$tmp/nosob-series-v2-1.eml" >"$tmp/listmin/nosob-series-v2-1.eml"
cp "$tmp/nosob-series-v2-cover.eml" "$tmp/nosob-series-v2-2.eml" "$tmp/listmin/"
{ base; echo "reply_mode = per-series"; printf '[list linux-leds.vger.kernel.org]\nmin_reply_severity = error\n'; } \
	>"$tmp/listmin.ini"
capture "$TAGBOT" replay -c "$tmp/listmin.ini" --show-replies "$tmp"/listmin/nosob-series-v2-*.eml
lacks "a list's min_reply_severity = error: the series reply leaves the warning out" \
	"BAD_REPORTED_BY_LINK (warning)"
line "... and its decision names the error only" "$cover: would reply (MISSING_SIGN_OFF)"
{ base; echo "reply_mode = per-series"; } >"$tmp/listmin0.ini"
capture "$TAGBOT" replay -c "$tmp/listmin0.ini" "$tmp"/listmin/nosob-series-v2-*.eml
line "... which the global minimum (warning) would name" \
	"$cover: would reply (BAD_REPORTED_BY_LINK, MISSING_SIGN_OFF)"
{ base; printf 'reply_mode = per-patch\nrepeat_after = 0\n'; } >"$tmp/perpatch.ini"
capture "$TAGBOT" replay -c "$tmp/perpatch.ini" --show-replies "$tmp"/nosob-series-v2-*.eml
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 2 ]; then ok "per-patch: one reply a patch"; else not_ok "per-patch: $count replies, want 2"; fi
{ base; echo "reply_mode = per-patch"; } >"$tmp/perpatch14.ini"
capture "$TAGBOT" replay -c "$tmp/perpatch14.ini" --show-replies "$tmp"/nosob-series-v2-*.eml
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 1 ]; then ok "per-patch, default repeat_after: the missing sign-off told once"; else not_ok "per-patch, default repeat_after: $count replies, want 1"; fi
# Outlook folds Message-ID: onto a continuation line and writes the domain
# in capitals (the store lower-cases domains): the cover, 7/10 and 10/10 of a
# real series, trimmed; 7/10 and 10/10 have findings.  10/10 came 17 minutes
# after the cover, so series_wait = 1200: one reply, to the cover.
ocover="WA0P291MB03850F4E9B4EC7389FE89779C5052@WA0P291MB0385.POLP291.PROD.OUTLOOK.COM"
{ base; printf 'reply_mode = per-series\nseries_wait = 1200\n'; } >"$tmp/outlook.ini"
capture "$TAGBOT" replay -c "$tmp/outlook.ini" --show-replies "$data/series/series-outlook-cover.eml" \
	"$data/series/series-outlook-7.eml" "$data/series/series-outlook-10.eml"
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 1 ]; then ok "folded Message-ID, capital domain: one reply for the series"; else not_ok "folded Message-ID, capital domain: $count replies, want 1"; fi
line "... to its cover letter" "----- reply to <$ocover> -----"
line "... naming both patches' findings" \
	"$ocover: would reply (MISSING_SIGN_OFF, BAD_FIXES_TAG)"
line "... listing patch 7/10" "Patch 7/10:"
line "... and patch 10/10" "Patch 10/10:"
once "... each message counted once"

# A file caught in a series' send: "[PATCH v5] test" (no description, no
# sign-off) between v9's 1/4 and 2/4, answering v9's cover, is not answered
# (trimmed from the corpus); the same mail on its own is.
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$data/series/series-stray-cover.eml" \
	"$data/series/series-stray-test.eml"
line "a patch without n/m in a series' send: a stray, not answered" \
	"20250610174319.183375-3-trannamatk@gmail.com: skipped: stray"
lacks "... nothing is answered" "would reply"
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$data/series/series-stray-test.eml"
line "... without its cover letter it is a patch like any other" \
	"20250610174319.183375-3-trannamatk@gmail.com: would reply (COMMIT_MESSAGE, MISSING_SIGN_OFF)"

# A sender who takes minutes a patch: the wait runs from the latest part.
# The same series with 1/2 sent 8 and 2/2 16 minutes after the cover: with
# series_wait 600 counted from the first part, 2/2 missed the reply ("did
# not arrive") and got one of its own; now one reply.  A part later than six
# waits after the first still gets its own.
slow() {	# DATE-OF-2/2
	sed 's/^Date: .*/Date: Tue, 04 Feb 2025 08:00:50 +0100/' "$tmp/nosob-series-v2-1.eml" \
		>"$tmp/slow-1.eml"
	sed "s/^Date: .*/Date: $1/" "$tmp/nosob-series-v2-2.eml" >"$tmp/slow-2.eml"
	capture "$TAGBOT" replay -c "$tmp/series0.ini" --show-replies "$tmp/nosob-series-v2-cover.eml" \
		"$tmp/slow-1.eml" "$tmp/slow-2.eml"
}
{ base; echo "repeat_after = 0"; } >"$tmp/series0.ini"	# 2/2 told on its own again
slow "Tue, 04 Feb 2025 08:08:51 +0100"
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 1 ]; then ok "parts 8 minutes apart: one reply"; else not_ok "parts 8 minutes apart: $count replies, want 1"; fi
line "... naming patch 2/2" "1. MISSING_SIGN_OFF (error), line 6, also in patch 2/2 line 11:"
lacks "... with no part missing" "not on the list"
slow "Tue, 04 Feb 2025 09:02:51 +0100"
count=$(grep -c '^----- reply to <' "$tmp/out")
if [ "$count" = 2 ]; then ok "a part 70 minutes late: a reply of its own"; else not_ok "a part 70 minutes late: $count replies, want 2"; fi

capture "$TAGBOT" replay -c "$tmp/plain.ini" -q --show-replies "$data/cli/cli-missing-signoff.eml"
line "-q --show-replies: the reply without the per-mail lines" "----- reply to <$leds> -----"
lacks "... no per-message line" "$leds:"
capture "$TAGBOT" replay -c "$tmp/plain.ini" "$data/cli/cli-missing-signoff.eml"
lacks "without --show-replies no reply is printed" "----- reply to"

# --- the clock is the mails' -------------------------------------------------
# Patch 2/2 links to 1/2 of its own unthreaded series, which only the
# store groups (same sender, version and count, within the series window).
# The window is measured from the daemon's clock: under replay the mail's
# date, so replay finds LINK_TO_OWN_SERIES as `tagbot run` does, however
# long ago the mails were sent.
{
	replay_ini "$tmp/own" | sed 's/^\[tagbot\]$/&\nmin_reply_severity = check/'
	printf 'reply_mode = per-patch\nmax_per_author_per_hour = 0\nmax_per_minute = 0\n'
} >"$tmp/own.ini"
s1=$data/lookup/lookup-store-series-1.eml
s2=$data/lookup/lookup-store-series-2.eml
capture "$TAGBOT" replay -c "$tmp/own.ini" "$s1" "$s2"
line "replay: a link to the own unthreaded series is LINK_TO_OWN_SERIES" \
	"e5f6a7b8@eve.example.org: would reply (LINK_TO_OWN_SERIES)"
line "... its mate is clean" "a1b2c3d4@eve.example.org: clean"
mkdir -p "$tmp/own/inbox/new" "$tmp/own/inbox/cur" "$tmp/own/inbox/tmp" "$tmp/own/state"
cp "$s1" "$tmp/own/inbox/new/1.s1"
cp "$s2" "$tmp/own/inbox/new/2.s2"
"$TAGBOT" run --once -c "$tmp/own.ini" >/dev/null 2>"$tmp/own/run.log"
if grep -lq "^In-Reply-To: <e5f6a7b8@eve.example.org>" "$tmp"/own/replies/new/* 2>/dev/null &&
   grep -q LINK_TO_OWN_SERIES "$tmp"/own/replies/new/*; then
	ok "... as tagbot run finds it on the same mails"
else
	not_ok "... as tagbot run finds it on the same mails"
	sed 's/^/#   /' "$tmp/own/run.log"
fi

# --- usage ---------------------------------------------------------------------------
capture "$TAGBOT" replay -c "$tmp/plain.ini" --since 2025-13-01 "$data/cli/cli-clean.eml"
status_is "a bad date exits 2" 2
capture "$TAGBOT" replay -c "$tmp/plain.ini" --since 2025-02-30 "$data/cli/cli-clean.eml"
status_is "a day that does not exist exits 2" 2
capture "$TAGBOT" replay -c "$tmp/plain.ini"
status_is "no SOURCE exits 2" 2
capture "$TAGBOT" replay -c "$tmp/plain.ini" --since 2025-05-01 --until 2025-04-01 "$data/cli/cli-clean.eml"
status_is "--until before --since exits 2" 2
printf '[list bad id]\n' >"$tmp/bad.ini"
capture "$TAGBOT" replay -c "$tmp/bad.ini" "$data/cli/cli-clean.eml"
status_is "a bad configuration exits 2" 2
if grep -qF "[list bad id]" "$tmp/err"; then ok "and names the section"; else not_ok "and names the section"; fi
capture "$TAGBOT" replay -c "$tmp/plain.ini" -q "$@"
lacks "-q prints no per-message lines" "$leds:"
line "-q prints the totals" "messages 5"
capture "$TAGBOT" help replay
status_is "help replay exits 0" 0

finish
