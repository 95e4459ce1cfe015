#!/bin/bash
# badinput.sh - hostile and broken mails through `tagbot check`, text and JSON.
#
# Every case must: end with exit status 0, 1 or 2 (never a signal, never a
# sanitizer report), finish within HANG_LIMIT seconds (a hang guard, not a
# benchmark), and give the per-message error or best-effort result written
# next to it (asserted on the JSON output).  The inputs are generated in a
# temporary directory; the sizes come from the named limits in src/mail/message.h
# and src/mail/patch.h, read at run time, so the cases follow the code's limits.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

HANG_LIMIT=${BADINPUT_TIMEOUT:-20}	# seconds per tagbot run
command -v python3 >/dev/null || { echo "badinput: python3 not found"; exit 77; }
command -v timeout >/dev/null || { echo "badinput: timeout not found"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-badinput.XXXXXX") || exit 99
# BADINPUT_KEEP=1 keeps the inputs and outputs for a look.
if [ -n "${BADINPUT_KEEP:-}" ]; then echo "badinput: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi

# A sanitizer report must not pass for EXIT_FINDINGS (both default to 1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87"

# --- the inputs --------------------------------------------------------------
python3 - "$top_srcdir/src" "$tmp" <<'EOF' || { echo "badinput: generator failed"; exit 99; }
import os, random, re, sys

src, out = sys.argv[1], sys.argv[2]

def limits(*headers):
    """The #define'd integer limits of our headers, evaluated."""
    vals = {}
    for h in headers:
        for m in re.finditer(r'(?m)^#define\s+(\w+)\s+(\(?[\d(][^/\n]*?)\s*(/\*.*)?$',
                             open(os.path.join(src, h)).read()):
            expr = m.group(2).replace("(size_t)", "")
            if re.fullmatch(r'[\d\s()*+]+', expr):
                vals[m.group(1)] = eval(expr)
    return vals

L = limits("mail/message.h", "mail/patch.h")
MB = 1024 * 1024

def hdr(msgid, subject="[PATCH] leds: fix a thing", extra=b""):
    return (b"From: Jane Doe <jane@example.org>\nTo: linux-leds@vger.kernel.org\n"
            b"Subject: " + (subject if isinstance(subject, bytes) else subject.encode()) + b"\nDate: Mon, 6 Jan 2025 10:00:00 +0000\n"
            b"Message-ID: <" + msgid.encode() + b">\n" + extra)

DESC = b"The thing was broken; this fixes it.\n\n"
SOB = b"Signed-off-by: Jane Doe <jane@example.org>\n"
DIFF = (b"---\n a.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
        b"diff --git a/a.c b/a.c\nindex 1111111..2222222 100644\n--- a/a.c\n+++ b/a.c\n"
        b"@@ -1 +1,2 @@\n x\n+y\n")
GOOD_BODY = DESC + SOB + DIFF
MP = b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"%s\"\n"

def w(name, *chunks):
    with open(os.path.join(out, name), "wb") as f:
        for c in chunks:
            f.write(c)

def mbox(*msgs):
    """An mboxrd: each message ends with a line break and a blank line (a
    "From " line right after text is not a separator for tagbot)."""
    return b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m + (b"" if not m or m.endswith(b"\n") else b"\n")
                    + b"\n" for m in msgs)

# MSG_WARN_TRUNCATED_MIME: the text part is whole, the multipart never closes.
w("truncated-mime.eml", hdr("trunc@x", extra=MP % b"BB"), b"\n--BB\nContent-Type: text/plain\n\n",
  GOOD_BODY, b"--BB\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\nAAAA")
# A multipart without its required boundary parameter: nothing can be split.
w("missing-boundary.eml", hdr("noboundary@x", extra=b"MIME-Version: 1.0\nContent-Type: multipart/mixed\n"),
  b"\n--BB\nContent-Type: text/plain\n\n", GOOD_BODY, b"--BB--\n")
# MSG_WARN_NUL_BYTES: NULs in the subject, the prose and the diff.
w("nul-bytes.eml", hdr("nul@x", subject="[PATCH] leds: f\0ix"), b"\nThe thing\0 was\0\0 broken.\n\n",
  SOB, DIFF.replace(b"+y", b"+y\0z"))
# MSG_WARN_BAD_CHARSET: declared UTF-8, holds truncated and overlong sequences.
w("invalid-utf8.eml", hdr("badutf8@x", subject=b"[PATCH] leds: f\xffix \xc3",
  extra=b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"),
  b"\nThe \xc3( thing \xe2\x82 was \xf0\x9f\x98 broken \xc0\xaf \xed\xa0\x80 \xff\xfe.\n\n", SOB, DIFF)
# Under MESSAGE_MAX_SIZE: a 100 MB patch mail is checked like any other.
big_line = b"+" + b"x" * 99 + b"\n"
w("huge-100mb.eml", hdr("huge@x"), b"\n", GOOD_BODY, b"@@ -10 +10,1000000 @@\n",
  big_line * (100 * MB // len(big_line)))
# Over MESSAGE_MAX_SIZE, between two good messages: the big one is a
# per-message error, the good ones are still checked.
over = L["MESSAGE_MAX_SIZE"] + MB
w("mbox-oversize-middle.mbox", mbox(hdr("good1@x") + b"\n" + GOOD_BODY),
  b"From mboxrd@z Thu Jan  1 00:00:00 1970\n", hdr("oversize@x"), b"\n", GOOD_BODY,
  big_line * (over // len(big_line)), b"\n", mbox(hdr("good2@x") + b"\n" + GOOD_BODY))
# A broken message between two good ones: its headers stop after the
# Message-ID and binary junk follows; it is parsed best-effort and named.
w("mbox-broken-middle.mbox", mbox(hdr("good1@x") + b"\n" + GOOD_BODY,
  b"Message-ID: <broken@x>\nContent-Type: multipart/mixed; boundary=\"J\"\n\0\1\2\3 no header\n"
  b"\xff\xfe\0\n--J\nContent-Transfer-Encoding: base64\n\n" + bytes(range(256)) * 4,
  hdr("good2@x") + b"\n" + GOOD_BODY))
# An empty message between two good ones: a per-message error (message_parse).
w("mbox-empty-middle.mbox", mbox(hdr("good1@x") + b"\n" + GOOD_BODY, b"",
  hdr("good2@x") + b"\n" + GOOD_BODY))
# PATCH_MAX_TRAILERS: exactly that many well-formed, distinct trailers, the
# author's sign-off first: nothing to report.
n = L["PATCH_MAX_TRAILERS"]
acks = b"".join(b"Acked-by: Ack Er%d <ack%d@example.org>\n" % (i, i) for i in range(n - 1))
w("trailers-at-cap.eml", hdr("trailers@x"), b"\n", DESC, SOB, acks, DIFF)
# Twice PATCH_MAX_TRAILERS: the ones past the cap are ignored, not a hang.
acks2 = b"".join(b"Acked-by: Ack Er%d <ack%d@example.org>\n" % (i, i) for i in range(2 * n))
w("trailers-over-cap.eml", hdr("trailers2@x"), b"\n", DESC, SOB, acks2, DIFF)
# MESSAGE_MAX_MIME_DEPTH: 1000 nested multiparts after the text part; the
# patch in the first part must still be found.
def nest(depth, inner):
    s = b""
    for i in range(depth):
        s += b"--n%d\nContent-Type: multipart/mixed; boundary=\"n%d\"\n\n" % (i, i + 1)
    s += b"--n%d\nContent-Type: text/plain\n\n" % depth + inner
    for i in range(depth, -1, -1):
        s += b"--n%d--\n" % i
    return s
w("nested-1000.eml", hdr("nested@x", extra=MP % b"top"), b"\n--top\nContent-Type: text/plain\n\n",
  GOOD_BODY, b"--top\nContent-Type: multipart/mixed; boundary=\"n0\"\n\n", nest(1000, b"deep\n"),
  b"--top--\n")
# The same depth with the only text at the bottom: past the cap, so no text.
w("nested-1000-only.eml", hdr("nestedonly@x", extra=MP % b"n0"), b"\n", nest(1000, GOOD_BODY))
# MESSAGE_MAX_HEADER_LEN: a 1 MB subject line and a 1 MB folded References:.
refs = b"".join(b" <ref%d@example.org>\n" % i for i in range(MB // 22))
w("header-1mb.eml", hdr("longhdr@x", subject="[PATCH] leds: " + "a" * MB, extra=b"References:" + refs),
  b"\n", GOOD_BODY)
# MESSAGE_MAX_HEADERS: 50 times that many headers after the real ones.
junk = b"".join(b"X-Junk-%d: v\n" % i for i in range(50 * L["MESSAGE_MAX_HEADERS"]))
w("headers-many.eml", hdr("manyhdr@x"), junk, b"\n", GOOD_BODY)
# MESSAGE_MAX_PARTS: five times that many sibling parts, the text first.
parts = b"".join(b"--P\nContent-Type: application/octet-stream\n\nx\n"
                 for _ in range(5 * L["MESSAGE_MAX_PARTS"]))
w("parts-many.eml", hdr("manyparts@x", extra=MP % b"P"), b"\n--P\nContent-Type: text/plain\n\n",
  GOOD_BODY, parts, b"--P--\n")
# PATCH_MAX_PARTS: 100 patches pasted into one body (git format-patch --stdout).
one = (b"From 1234567890123456789012345678901234567890 Mon Sep 17 00:00:00 2001\n"
       b"From: Jane Doe <jane@example.org>\nSubject: [PATCH %d/100] part\n\n" + GOOD_BODY + b"\n")
w("pasted-100-patches.eml", hdr("pasted@x"), b"\n", b"".join(one.replace(b"%d", b"%d" % i)
                                                         for i in range(1, 101)))
# PATCH_MAX_LINES: a commit message longer than the lines looked at.
w("commit-lines-over-cap.eml", hdr("lines@x"), b"\n",
  b"line\n" * (L["PATCH_MAX_LINES"] + 1000), b"\n", SOB, DIFF)
# One 10 MB line without a line break in the commit message.
w("line-10mb.eml", hdr("longline@x"), b"\n", b"z" * (10 * MB), b"\n\n", SOB, DIFF)
w("empty.eml")
random.seed(20250106)
w("random-1mb.bin", random.randbytes(MB))
EOF

# --- running and judging -----------------------------------------------------
# A JSON object per line; judge.py EXPR evaluates EXPR (Python) over them.
cat >"$tmp/judge.py" <<'EOF'
import json, sys

raw = open(sys.argv[1], "rb").read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit(f"output is not UTF-8: {e}")
objs = []
for n, line in enumerate(text.splitlines(), 1):
    if line.strip():
        try:
            objs.append(json.loads(line))
        except ValueError as e:
            sys.exit(f"line {n} is not JSON: {e}: {line[:200]!r}")

def errors(): return [o for o in objs if "error" in o]
def results(): return [o for o in objs if "error" not in o]
def ids(os_): return [o.get("message_id") for o in os_]
def rules(o): return [f["rule"] for f in o.get("findings", [])]
def kinds(): return [o.get("kind") for o in results()]

ok = eval(sys.argv[2])
if not ok:
    sys.exit(f"expectation failed: {sys.argv[2]}\n" +
             "\n".join(json.dumps(o)[:300] for o in objs[:8]))
EOF

# A sanitizer report can only come from a sanitizer build: elsewhere that
# part of each case is a skip, said once, not a pass.
san=no
if sanitized; then
	san=yes
else
	echo "# SKIP sanitizer reports: not a sanitizer build (configure --enable-sanitizers)"
fi

# check_format NAME FMT FILE: runs tagbot into $tmp/NAME.FMT; fails the case on a
# hang, a signal or a sanitizer report.
check_format() {
	local name=$1 fmt=$2 file=$3 rc
	timeout -k 5 "$HANG_LIMIT" "$TAGBOT" check --format="$fmt" "$file" \
		>"$tmp/$name.$fmt" 2>"$tmp/$name.$fmt.err"
	rc=$?
	case $rc in
	0|1|2)	if [ "$san" = yes ] && grep -q -E 'Sanitizer|runtime error:' "$tmp/$name.$fmt.err"; then
			not_ok "$name ($fmt): sanitizer report"; head -20 "$tmp/$name.$fmt.err"
			return 1
		fi
		return 0 ;;
	124|137) not_ok "$name ($fmt): still running after ${HANG_LIMIT}s" ;;
	*)	not_ok "$name ($fmt): exit status $rc (crash or signal)"
		head -20 "$tmp/$name.$fmt.err" ;;
	esac
	return 1
}

# case FILE EXPR: text and JSON runs, then EXPR over the JSON output.
case_() {
	local file=$1 expr=$2 name=${1%.*}
	check_format "$name" text "$tmp/$file" || return
	check_format "$name" json "$tmp/$file" || return
	if python3 "$tmp/judge.py" "$tmp/$name.json" "$expr" >"$tmp/$name.judge" 2>&1; then
		ok "$name"
	else
		not_ok "$name"; sed 's/^/#   /' "$tmp/$name.judge" | head -20
	fi
}

# A mail that parsed and was checked as a patch with no sign-off problem.
clean_patch='len(objs) == 1 and kinds() == ["patch"] and not [r for r in rules(objs[0]) if "SIGN_OFF" in r]'

case_ truncated-mime.eml "$clean_patch"
# Best effort: the body is taken as one text part.
case_ missing-boundary.eml "$clean_patch"
case_ nul-bytes.eml "$clean_patch"
case_ invalid-utf8.eml "$clean_patch"
case_ huge-100mb.eml "$clean_patch"
case_ mbox-oversize-middle.mbox \
	'ids(results()) == ["good1@x", "good2@x"] and len(errors()) == 1 and kinds() == ["patch", "patch"]'
case_ mbox-broken-middle.mbox \
	'ids(objs) == ["good1@x", "broken@x", "good2@x"] and [objs[0].get("kind"), objs[2].get("kind")] == ["patch", "patch"]'
case_ mbox-empty-middle.mbox \
	'ids(results()) == ["good1@x", "good2@x"] and "error" in objs[1] and "message 2" in objs[1]["error"]'
case_ trailers-at-cap.eml 'len(objs) == 1 and kinds() == ["patch"] and rules(objs[0]) == []'
case_ trailers-over-cap.eml "$clean_patch"
case_ nested-1000.eml "$clean_patch"
case_ nested-1000-only.eml 'len(objs) == 1 and kinds() in (["other"], []) and all(not rules(o) for o in objs)'
case_ header-1mb.eml "$clean_patch"
case_ headers-many.eml "$clean_patch"
case_ parts-many.eml "$clean_patch"
case_ pasted-100-patches.eml '1 <= len(objs) <= 64 and set(kinds()) == {"patch"}'
case_ commit-lines-over-cap.eml 'len(objs) == 1 and kinds() == ["patch"]'
case_ line-10mb.eml "$clean_patch"
case_ empty.eml 'len(results()) == 0 and len(errors()) <= 1'
case_ random-1mb.bin '"patch" not in kinds() and len(objs) <= 1'

# Fixtures: mails that crashed tagbot once (from the fuzzer, or by hand);
# each must now give one result or error object per message, nothing worse.
nbad=0
for f in "$TAGBOT_TEST_DATA"/*/bad-*; do
	[ -e "$f" ] || continue
	nbad=$((nbad + 1))
	cp "$f" "$tmp/" && case_ "${f##*/}" 'len(objs) >= 1'
done
[ "$nbad" -gt 0 ] && ok "$nbad fixtures of mails that crashed tagbot once" ||
	not_ok "no tests/data/*/bad-* fixture found"

finish
