#!/bin/bash
# compressed.sh - gzip, xz and zstd mboxes through `tagbot check` and
# `tagbot replay`: each gives the same findings as the plain file (the file
# name aside), from a path and from standard input; binary, truncated and
# corrupt input is an error naming the file, exit status 2.
#
# The inputs are compressed here, with the gzip, xz and zstd commands: a
# fixture of tests/data (always), and a slice of the linux-leds corpus when
# it is there (tests/lib.sh corpus_path).
# The fixture's findings were read in the mail by hand: message 1 (Craig
# McQueen, uleds) has no Signed-off-by: at all; message 2's sign-off at line
# 73 of the file says "MarshallZhan" where the in-body From: says
# "MarshallZhan-wiwynn"; message 3 is a reply.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

for tool in python3 gzip xz zstd; do
	command -v "$tool" >/dev/null || { echo "compressed: $tool not found"; exit 77; }
done
CORPUS=$(corpus_path linux-leds-2025-2026.mbox.gz) || CORPUS=linux-leds-2025-2026.mbox.gz
SLICE=800	# corpus messages in the slice

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-compressed.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87"
cd "$tmp" || exit 99

# pack FILE: FILE.gz, FILE.xz and FILE.zst beside it.
pack() {
	gzip -9 -c "$1" >"$1.gz" && xz -c "$1" >"$1.xz" && zstd -q -c "$1" >"$1.zst"
}
# tagbot_into NAME ARGS...: tagbot ARGS into NAME.out and NAME.err, status in NAME.rc
tagbot_into() {
	local name=$1
	shift
	"$TAGBOT" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}
# same DESC A B: A.out and A.rc are B's, once B's file name is written as A's
same() {
	local desc=$1 a=$2 b=$3 from=${4:-} to=${5:-}
	if [ -n "$from" ]; then
		sed "s|$from|$to|g" "$b.out" >"$b.renamed"
	else
		cp "$b.out" "$b.renamed"
	fi
	if cmp -s "$a.out" "$b.renamed" && cmp -s "$a.rc" "$b.rc"; then
		ok "$desc"
	else
		not_ok "$desc (exit $(cat "$a.rc") vs $(cat "$b.rc"))"
		diff "$a.out" "$b.renamed" | head -10 | sed 's/^/#   /'
		head -3 "$b.err" | sed 's/^/#   /'
	fi
}
# refused DESC FILE WORDS: check FILE exits 2 and says "FILE: WORDS" on stderr
refused() {
	tagbot_into refused check "$2"
	if [ "$(cat refused.rc)" = 2 ] && grep -qF "tagbot: $2: $3" refused.err; then
		ok "$1"
	else
		not_ok "$1 (exit $(cat refused.rc))"
		head -3 refused.err | sed 's/^/#   /'
	fi
}

# compare NAME: every compressed form of NAME checks like NAME, by path
# (JSON and text) and on standard input.
compare() {
	local name=$1 ext
	tagbot_into plain-json check --format=json "$name"
	tagbot_into plain-text check "$name"
	tagbot_into plain-stdin check --format=json - <"$name"
	for ext in gz xz zst; do
		tagbot_into "$ext-json" check --format=json "$name.$ext"
		same "$name.$ext: the JSON of $name" plain-json "$ext-json" "$name.$ext" "$name"
		tagbot_into "$ext-text" check "$name.$ext"
		same "$name.$ext: the text of $name" plain-text "$ext-text" "$name.$ext" "$name"
		tagbot_into "$ext-stdin" check --format=json - <"$name.$ext"
		same "$name.$ext on standard input" plain-stdin "$ext-stdin"
	done
}

# --- the fixture -------------------------------------------------------------
cp "$TAGBOT_TEST_DATA/cli/cli-series.mbox" series.mbox && pack series.mbox || exit 99
compare series.mbox
# What the plain run found, read by hand (see the top): the comparison above
# means the same of every compressed run.
if grep -q '"message_id":"20250311042642.373782-1-craig@mcqueen.au".*"rule":"MISSING_SIGN_OFF"' plain-json.out; then
	ok "fixture: MISSING_SIGN_OFF on the uleds patch"
else
	not_ok "fixture: MISSING_SIGN_OFF on the uleds patch"
fi
if grep -q '^series\.mbox:73: WARNING:FROM_SIGN_OFF_MISMATCH: ' plain-text.out; then
	ok "fixture: FROM_SIGN_OFF_MISMATCH at line 73"
else
	not_ok "fixture: FROM_SIGN_OFF_MISMATCH at line 73"
fi
[ "$(grep -c '^{' plain-json.out)" = 3 ] && ok "fixture: three messages" || not_ok "fixture: three messages"

# Two gzip members back to back (cat a.gz b.gz) read as one file.
cp "$TAGBOT_TEST_DATA/cli/cli-missing-signoff.eml" one.eml || exit 99
{ printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\n'; cat one.eml; printf '\n'; } >one.mbox
cat one.mbox series.mbox >two.mbox
{ gzip -c one.mbox; gzip -c series.mbox; } >two.mbox.gz
tagbot_into two-plain check --format=json two.mbox
tagbot_into two-gz check --format=json two.mbox.gz
same "two gzip members: the findings of the joined mbox" two-plain two-gz two.mbox.gz two.mbox

# --- tagbot replay reads them too ----------------------------------------------
replay_ini "$tmp" >replay.ini
tagbot_into replay-plain replay -c replay.ini series.mbox
for ext in gz xz zst; do
	tagbot_into "replay-$ext" replay -c replay.ini "series.mbox.$ext"
	same "replay series.mbox.$ext: the lines of series.mbox" replay-plain "replay-$ext"
done
grep -q '20250311042642.373782-1-craig@mcqueen.au: would reply (MISSING_SIGN_OFF' replay-plain.out &&
	ok "replay: would reply to the uleds patch" || not_ok "replay: would reply to the uleds patch"

# --- what is refused -----------------------------------------------------------
# An ELF header, then bytes that are no mail; the same inside gzip.
python3 -c 'import random, sys
r = random.Random(13)
sys.stdout.buffer.write(b"\x7fELF\x02\x01\x01\x00" + bytes(r.randrange(256) for _ in range(4096)))' >garbage.bin
refused "binary input: exit 2, named" garbage.bin "binary data, not a mail or an mbox"
gzip -c garbage.bin >garbage.bin.gz
refused "binary input inside gzip: exit 2, named" garbage.bin.gz \
	"binary data (decompressed from gzip), not a mail or an mbox"
printf 'BZh91AY&SY\001\002\003' >mail.bz2
refused "bzip2: exit 2, named as bzip2" mail.bz2 "bzip2 data; tagbot reads mail and mbox files"
tagbot_into refused-json check --format=json garbage.bin
grep -qF '{"file":"garbage.bin","message_id":null,"error":"garbage.bin: binary data' refused-json.out &&
	ok "binary input: a JSON error object names the file" ||
	not_ok "binary input: a JSON error object names the file"

# Cut short: the end of the data is missing.
for ext in gz xz zst; do
	size=$(wc -c <"series.mbox.$ext")
	head -c $((size * 2 / 3)) "series.mbox.$ext" >"cut.mbox.$ext"
	[ "$ext" = zst ] && name=zstd || { [ "$ext" = gz ] && name=gzip || name=xz; }
	refused "truncated $ext: exit 2, named" "cut.mbox.$ext" "$name data ends early (truncated file?)"
done
# A flipped byte in the middle of the deflate data: gzip's CRC or the
# decoder catches it.
python3 -c 'import sys
d = bytearray(open("series.mbox.gz", "rb").read()); d[len(d) // 2] ^= 0xff
sys.stdout.buffer.write(d)' >bad.mbox.gz
refused "corrupt gzip: exit 2, named" bad.mbox.gz "gzip: "

# --- a slice of the corpus ------------------------------------------------------
if [ -f "$CORPUS" ]; then
	python3 - "$CORPUS" "$SLICE" >slice.mbox <<'EOF' || exit 99
import gzip, re, sys
data = gzip.open(sys.argv[1], "rb").read()
starts = [m.start() for m in re.finditer(rb"^From ", data, re.M)]
n = int(sys.argv[2])
sys.stdout.buffer.write(data[:starts[n]])
EOF
	pack slice.mbox || exit 99
	compare slice.mbox
	objs=$(grep -c '^{' plain-json.out)
	found=$(grep -o '"rule":' plain-json.out | wc -l)
	[ "$objs" -ge "$SLICE" ] && ok "corpus slice: $objs objects for $SLICE messages" ||
		not_ok "corpus slice: $objs objects for $SLICE messages"
	[ "$found" -gt 0 ] && ok "corpus slice: $found findings to compare" ||
		not_ok "corpus slice: no findings to compare"
else
	echo "# $CORPUS not found: the corpus slice is not compared"
fi

finish
