#!/bin/bash
# smoke-corpus.sh - `tagbot check --format=json` over the whole linux-leds corpus
# (5,389 real linux-leds mails): no crash, one JSON object per message, every
# message classified, and the counts per kind and per rule verified by hand.
#
# How the expected counts were verified (against the decompressed mbox):
# - Kinds: an independent Python classifier (stdlib email module) applying
#   tagbot-rules(7) THE MODEL and patch.h's rules to the raw mails -- a reply
#   marker of the mail decides for all of it (a reply prefix of the Subject
#   header, "(was: ...)", or In-Reply-To + no patch prefix + quoted lines in
#   the first text/plain part), [GIT PULL], no [PATCH bracket group (nor
#   an [RFC one with an n/m): other, a unified diff ("diff --git", or ---/+++/@@) in the text (the
#   first text/plain part when it holds a diff, else a .patch/.diff/x-patch
#   attachment), [... 0/N] as the opening bracket prefix.  It agrees with
#   tagbot on the kind of each of the 5,389 mails.  Two replies carry a
#   format-patch (bde582df-...@kernel.org attaches two, a592f471-...@lunn.ch
#   pastes one: "please test this"); four diffs have no patch prefix (a bug
#   report with a tentative fix, AS8PR03MB6901...; a stable backport request
#   with the backport attached, 20251204000025.GA468348@ax162; a
#   MAINTAINERS update sent without [PATCH], Z6Ow+T/uSv128wdR@duo.ucw.cz;
#   since session 4 also the corpus's one bare [RFC] mail, "[RFC RESEND]
#   leds: lp55xx: ..." (20250523093142.1498846-1-michal.vokac@ysoft.com),
#   a question with a debugging diff, found by a scan of every Subject for
#   an RFC bracket group without PATCH):
#   other, still checked by tagbot check.  It found no mail holding two
#   pasted patches or a scissors line; one mail holds two patch attachments
#   (bde582df-..., a reply: two reply objects), so the corpus gives one
#   object per message but that one, 5,390 in all.
# - Rules: every finding tagbot reported on the corpus (82) was read in its
#   mail and judged against tagbot-rules(7); an independent scan of all patch mails
#   (sign-offs vs. author, Co-developed-by pairs, Fixes:, commit ids, Link:
#   and Closes: forms, Cc: stable, version notes, separators) looked for
#   missed ones, and the candidates it raised were read by hand too.
#   Judgement calls kept: 20251204000025.GA468348@ax162 ("Apply ... to 5.15")
#   has an unsigned inline diff in its first text/plain part (the signed
#   backport is an attachment), so MISSING_SIGN_OFF is right by tagbot-rules(7).
# One mail is counted as judged right, not as tagbot classed it at the time
# (reported to the lead): 20250731133913.GH1049189@google.com ("Re: [PATCH]
# leds: qnap-mcu: ...") is a reply whose body opens with a reviewer's
# "Subject: s/led/LED/" line; tagbot took that for an in-body header and
# classed the mail "other".  The Subject header's "Re:" should decide.
# SUBMITTER_SIGN_OFF (32): an independent scan (sender, or X-Original-From:/
#   Reply-To: behind devnull+; in-body From:; Signed-off-by: lines above
#   "---"; same person by address or by NFC case-folded name; bots out)
#   found 33 mails.  Read by hand: 29 are co-developers who send the
#   author's patch with their own sign-off above the author's (the
#   documents' example puts the submitter's last), 2 sign off above the
#   in-body author's, 1 sends another's patch with only a Tested-by:, and
#   1 (tencent_3DF7518D...@qq.com) sends from a bare <xiaopeitux@...> a
#   patch by and signed off by Pei Xiao: one person (an unnamed address
#   that spells the name), no finding since session 4.  172 more mails come
#   from a second address of the author: same name, no finding.
# NO_AUTHOR_SIGN_OFF (1): Pengyu Luo's patch sent by Junjie Cao with only
#   Junjie's sign-off.  Maud Spierings' max25014 v1-v3 2/4 sign off as
#   "Maud Spierings maudspierings@gocontroll.com" (no <>): her address, so
#   not "no author sign-off"; the BAD_SIGN_OFF error (cannot be parsed)
#   stays on each.
# Re-verify (do not just paste tagbot's output) when a count changes.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

RUN_LIMIT=${SMOKE_TIMEOUT:-300}	# seconds; generous for sanitizer builds
CORPUS=$(corpus_path linux-leds-2025-2026.mbox.gz) ||
	{ echo "smoke-corpus: linux-leds-2025-2026.mbox.gz not found (set TAGBOT_CORPUS)"; exit 77; }
command -v python3 >/dev/null || { echo "smoke-corpus: python3 not found"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-smoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87"

gzip -dc "$CORPUS" >"$tmp/corpus.mbox" || exit 99
# --no-tree: the corpus cites kernel commits, and this may run in any git tree.
timeout -k 5 "$RUN_LIMIT" "$TAGBOT" check --no-tree --format=json "$tmp/corpus.mbox" \
	>"$tmp/out.json" 2>"$tmp/err"
rc=$?
case $rc in
0|1) ok "exit status $rc" ;;
*) not_ok "exit status $rc (0 or 1 expected; 124 = over ${RUN_LIMIT}s)"; head -20 "$tmp/err" ;;
esac
# Only a sanitizer build can report anything: elsewhere the check is a skip,
# said so, not a pass.
if ! sanitized; then
	echo "# SKIP no sanitizer report: not a sanitizer build (configure --enable-sanitizers)"
elif grep -q -E 'Sanitizer|runtime error:' "$tmp/err"; then
	not_ok "sanitizer report"; head -20 "$tmp/err"
else
	ok "no sanitizer report"
fi

python3 - "$tmp/corpus.mbox" "$tmp/out.json" >"$tmp/judge" 2>&1 <<'EOF'
import collections, json, re, sys

MESSAGES = 5389
OBJECTS = MESSAGES + 1	# bde582df-9522-48ae-9d84-fa3751c4a06d@kernel.org: two attachments
KINDS = {"patch": 1949, "reply": 2982, "cover": 362, "other": 93, "pull": 4}
RULES = {
    "BAD_SIGN_OFF": 21, "MISSING_SIGN_OFF": 20, "COMMIT_LOG_VERSIONING": 12,
    "COMMIT_MESSAGE": 8, "MISSING_FIXES_TAG": 6, "FROM_SIGN_OFF_MISMATCH": 4,
    "NO_AUTHOR_SIGN_OFF": 1, "BAD_REPORTED_BY_LINK": 2,
    "BAD_STABLE_ADDRESS_STYLE": 1, "BAD_FIXES_TAG": 2, "SUBMITTER_SIGN_OFF": 32,
}   # every other rule: 0 on this corpus (no lookups); BAD_COMMIT_SEPARATOR
    # is 0 since it follows git mailinfo: the one line it found, "----"
    # above a trace in AS8PR03MB6901..., is one git keeps
# One hand-checked finding per rule, to point at a mail when a count moves.
ANCHORS = [
    ("20250306114640.313793-1-craig@mcqueen.au", "MISSING_SIGN_OFF"),
    ("20251103110648.878325-2-caojunjie650@gmail.com", "NO_AUTHOR_SIGN_OFF"),
    ("tencent_1B2BC712D34FBE7DEB01320E665BEB2D8908@qq.com", "FROM_SIGN_OFF_MISMATCH"),
    # its only sign-off is spelt "Signed-of-by:": one MISSING_SIGN_OFF on that
    # line, no BAD_SIGN_OFF beside it (one problem, one finding)
    ("WA0P291MB0385BB677EFA22D85EED8A36C5052@WA0P291MB0385.POLP291.PROD.OUTLOOK.COM", "MISSING_SIGN_OFF"),
    # "Signed-off-by: Maud Spierings maudspierings@gocontroll.com": no <>
    ("20250725-max25014-v1-2-0e8cce92078e@gocontroll.com", "BAD_SIGN_OFF"),
    ("20260123-leds-multicolor-limit-intensity-v1-1-b37761c2fdfd@pengutronix.de", "BAD_REPORTED_BY_LINK"),
    ("WA0P291MB03850ECE39A2FD2CC2EC365DC5052@WA0P291MB0385.POLP291.PROD.OUTLOOK.COM", "BAD_FIXES_TAG"),
    # "Fixes: <3c1ab50d0a31...> (...)": the documents' <id> kept with its brackets
    ("20260617053934.2122685-1-chou.cosmo@gmail.com", "BAD_FIXES_TAG"),
    ("2026021934-nearby-playroom-036b@gregkh", "BAD_STABLE_ADDRESS_STYLE"),
    ("20250121225510.751444-2-wse@tuxedocomputers.com", "COMMIT_LOG_VERSIONING"),
    ("20250629131920.50060-1-jefflessard3@gmail.com", "COMMIT_MESSAGE"),
    ("010201990a1f6559-9e836a40-f534-4535-bd59-5e967d80559a-000000@eu-west-1.amazonses.com",
     "SUBMITTER_SIGN_OFF"),
]

failed = []
def check(ok, desc):
    print(("ok - " if ok else "not ok - ") + desc)
    if not ok:
        failed.append(desc)

mbox = open(sys.argv[1], "rb").read()
starts = [m.start() for m in re.finditer(rb"^From ", mbox, re.M)]
check(len(starts) == MESSAGES, f"corpus holds {MESSAGES} messages (found {len(starts)})")
objs = []
for n, line in enumerate(open(sys.argv[2], "rb"), 1):
    try:
        objs.append(json.loads(line.decode("utf-8")))
    except ValueError as e:
        check(False, f"output line {n} is UTF-8 JSON ({e})")
        break
check(len(objs) == OBJECTS, f"one JSON object per part ({len(objs)} for {MESSAGES} messages, want {OBJECTS})")
errors = [o for o in objs if "error" in o]
check(not errors, f"no message failed to parse ({len(errors)}: {errors[:3]})")
kinds = collections.Counter(o.get("kind") for o in objs if "error" not in o)
check(set(kinds) <= set(KINDS), f"every message classified ({dict(kinds)})")
for k, n in KINDS.items():
    check(kinds[k] == n, f"kind {k}: {n} (tagbot: {kinds[k]})")
rules = collections.Counter(f["rule"] for o in objs for f in o.get("findings", []))
for r in sorted(set(RULES) | set(rules)):
    check(rules[r] == RULES.get(r, 0), f"rule {r}: {RULES.get(r, 0)} (tagbot: {rules[r]})")
by_id = collections.defaultdict(set)
for o in objs:
    for f in o.get("findings", []):
        by_id[o.get("message_id")].add(f["rule"])
for mid, rule in ANCHORS:
    check(rule in by_id.get(mid, ()), f"{rule} on <{mid}>")
unchecked = [o for o in objs if o.get("kind") in ("reply", "pull") and o.get("findings")]
check(not unchecked, f"replies and pulls carry no findings ({len(unchecked)})")
# patch.h (c): a diff without a patch prefix is other, and tagbot check still checks it
others = sorted(o["message_id"] for o in objs if o.get("kind") == "other" and o.get("findings"))
want = sorted(["AS8PR03MB690125FD99DEC3AF5887AE0DC800A@AS8PR03MB6901.eurprd03.prod.outlook.com",
               "20251204000025.GA468348@ax162", "20250523093142.1498846-1-michal.vokac@ysoft.com"])
check(others == want, f"other mails with findings: the three unprefixed diffs ({others})")
sys.exit(1 if failed else 0)
EOF
judged=$?
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	*) echo "# $line" ;;
	esac
done <"$tmp/judge"
[ "$judged" -eq 0 ] || [ "$fails" -gt 0 ] || not_ok "judge failed"

finish
