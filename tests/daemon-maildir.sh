#!/bin/sh
# tagbot run with a Maildir source and a Maildir sink: no servers.
#   - the bundled samples: a reply for the patch with tag problems, none for
#     the clean ones; the reply is threaded (parsed with python3's email)
#   - run twice: no duplicates; the same mail under two file names: one reply
#   - --dry-run prints the reply and writes nothing
#   - an existing empty state file is refused (exit 2), nothing is answered
#   - SIGKILL at random moments during a 200-message backlog, then a clean
#     run: every patch that needs a reply has exactly one (counted by the
#     In-Reply-To of the sink's files), the clean ones none
#   - SIGHUP with a broken ini: logged, the bot keeps running on the old
#     settings; with a good one the new rules apply; SIGTERM: exit 0
# DAEMON_SEED=N replays the SIGKILL moments.
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed"; exit 77; }

W=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-daemon.XXXXXX")
BOT_PID=
trap 'bot_kill; rm -rf "$W"' EXIT
SAMPLES=$top_srcdir/samples

bot_kill() {
	[ -n "$BOT_PID" ] || return 0
	kill -KILL "$BOT_PID" 2>/dev/null
	wait "$BOT_PID" 2>/dev/null
	BOT_PID=
}

# ini FILE INBOX SINK STATE [extra lines for [rules]]
ini() {
	cat >"$1" <<INI
[tagbot]
state = $4
log_level = debug

[source]
type = maildir
path = $2
poll_interval = 1
batch = 5

[sink]
type = maildir
path = $3

$(reply_per_patch "tagbot <tagbot@example.org>")

[rules]
$5
INI
}

# cond 'SHELL CONDITION': for expect, when the condition has && or ||.
cond() { eval "$1"; }

mkmaildir() { mkdir -p "$1/new" "$1/cur" "$1/tmp"; }

# replies_to SINK MSGID: how many files in SINK answer MSGID.
replies_to() {
	python3 - "$1" "$2" <<'PY'
import email, os, sys
sink, want = sys.argv[1], sys.argv[2].strip("<>")
n = 0
for sub in ("new", "cur"):
    d = os.path.join(sink, sub)
    for f in os.listdir(d) if os.path.isdir(d) else []:
        with open(os.path.join(d, f), "rb") as fh:
            m = email.message_from_binary_file(fh)
        if (m["In-Reply-To"] or "").strip().strip("<>") == want:
            n += 1
print(n)
PY
}

count_files() { ls "$1/new" "$1/cur" 2>/dev/null | grep -vc '^$\|:$\|^\.'; }

# --- the bundled samples ---------------------------------------------------
IN=$W/inbox
mkmaildir "$IN"
cp "$SAMPLES"/inbox/new/*.sample "$IN/new/"
ini "$W/a.ini" inbox out state/tagbot.db
"$TAGBOT" run --once -c "$W/a.ini" 2>"$W/a.log"
expect "run --once on the samples exits 0" [ $? -eq 0 ]
expect "the sink and the state are relative to the ini file" \
	cond '[ -d "$W/out/new" ] && [ -f "$W/state/tagbot.db" ]'
BAD='<20251120101010.4242-1-author@example.org>'
CLEAN1='<20250130194627.280618-1-eajames@linux.ibm.com>'
CLEAN2='<20250729-expresswire-dep-fix-v1-1-635cd4cc746b@dujemihanovic.xyz>'
expect "one reply to the patch with tag problems" [ "$(replies_to "$W/out" "$BAD")" = 1 ]
expect "no reply to the clean patches" \
	[ "$(replies_to "$W/out" "$CLEAN1")$(replies_to "$W/out" "$CLEAN2")" = 00 ]
expect "one file in the sink" [ "$(count_files "$W/out")" = 1 ]

threaded() {
	python3 - "$1" "$2" <<'PY'
import email, email.policy, glob, os, sys
files = glob.glob(os.path.join(sys.argv[1], "new", "*"))
orig = email.message_from_binary_file(open(sys.argv[2], "rb"), policy=email.policy.default)
m = email.message_from_binary_file(open(files[0], "rb"), policy=email.policy.default)
want = {
    "From": "tagbot <tagbot@example.org>",
    "To": "A U Thor <author@example.org>",
    "Subject": "Re: " + orig["Subject"],
    "In-Reply-To": orig["Message-ID"],
    "Auto-Submitted": "auto-generated",
}
bad = ["%s: %r, wanted %r" % (k, str(m[k]), v) for k, v in want.items() if str(m[k]) != v]
refs = str(m["References"]).split()
if not refs or refs[-1] != orig["Message-ID"]:
    bad.append("References %r does not end with the patch" % refs)
if not m["Message-ID"] or not str(m["Message-ID"]).endswith("@example.org>"):
    bad.append("Message-ID %r is not on the bot's domain" % m["Message-ID"])
rules = str(m["X-Tagbot-Rules"])
for r in ("COMMIT_LOG_VERSIONING", "LINK_TO_SELF", "BAD_SIGN_OFF"):
    if r not in rules:
        bad.append("X-Tagbot-Rules %r lacks %s" % (rules, r))
body = m.get_content()
if "| Signed-Off-By: A U Thor <author@example.org>" not in body:
    bad.append("the offending line is not quoted with '| '")
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
}
expect "the reply is threaded: From, To, Re: Subject, In-Reply-To, References, Auto-Submitted, rules, | quotes" \
	threaded "$W/out" "$SAMPLES/03-tag-problems.eml"

"$TAGBOT" run --once -c "$W/a.ini" 2>>"$W/a.log"
expect "a second run exits 0" [ $? -eq 0 ]
expect "a second run sends nothing" [ "$(count_files "$W/out")" = 1 ]

cp "$SAMPLES/03-tag-problems.eml" "$IN/new/1800000000.again.copy"
sed 's/^Subject:/X-Copy: list\nSubject:/' "$SAMPLES/02-reported-by-with-link.eml" \
	>"$IN/new/1800000001.list.copy"
"$TAGBOT" run --once -c "$W/a.ini" 2>>"$W/a.log"
expect "the same mail under another file name: still one reply" \
	cond '[ "$(replies_to "$W/out" "$BAD")" = 1 ] && [ "$(count_files "$W/out")" = 1 ]'
"$TAGBOT" status -c "$W/a.ini" >"$W/status" 2>&1
expect "tagbot status counts 3 messages: 1 replied, 2 clean" \
	grep -q '^messages 3: replied 1, clean 2, skipped 0, error 0$' "$W/status"
expect "tagbot status: one reply sent, none queued" \
	grep -q '^outbox: queued 0, sent 1, failed 0$' "$W/status"

# A crash between the sink's delivery and "marked sent" leaves the reply
# queued with attempts > 0: it is looked up in the sink, not sent again.
# Without the file there, it is sent again.
requeue() {
	python3 - "$W/state/tagbot.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("UPDATE outbox SET state = 'queued', attempts = 1, next_attempt = 0, sent_time = NULL")
con.commit()
PY
}
requeue
"$TAGBOT" run --once -c "$W/a.ini" 2>"$W/a2.log"
expect "a claimed reply already in the sink is marked sent, not sent again" \
	cond '[ "$(count_files "$W/out")" = 1 ] && grep -q "was delivered before: marked sent" "$W/a2.log"'
requeue
rm -f "$W"/out/new/*
"$TAGBOT" run --once -c "$W/a.ini" 2>"$W/a2.log"
expect "a claimed reply not in the sink is sent again, once" \
	cond '[ "$(replies_to "$W/out" "$BAD")" = 1 ] && grep -q "not found delivered" "$W/a2.log"'

# --- --dry-run -------------------------------------------------------------
ini "$W/dry.ini" inbox dry-out dry-state/tagbot.db
"$TAGBOT" run --once --dry-run -c "$W/dry.ini" >"$W/dry.out" 2>"$W/dry.log"
expect "--dry-run exits 0" [ $? -eq 0 ]
expect "--dry-run prints the reply" grep -q "^In-Reply-To: $BAD" "$W/dry.out"
expect "--dry-run prints one reply (the copies are deduplicated)" \
	[ "$(grep -c '^In-Reply-To:' "$W/dry.out")" = 1 ]
expect "--dry-run writes no sink and no state" cond '[ ! -e "$W/dry-out" ] && [ ! -e "$W/dry-state" ]'

# --- an existing empty state file is not a fresh store ------------------------
# Taken for one, backfill would answer the whole folder again.
ini "$W/z.ini" inbox z-out z-state/tagbot.db
sed -i 's/^batch = 5$/batch = 5\nbackfill = yes/' "$W/z.ini"
mkdir "$W/z-state"
: >"$W/z-state/tagbot.db"
"$TAGBOT" run --once -c "$W/z.ini" >"$W/z.out" 2>"$W/z.log"
expect "an empty state file: run --once exits 2" [ $? -eq 2 ]
expect "... naming the key and the file, and what to do" \
	grep -qF "[tagbot] state: store $W/z-state/tagbot.db: the file exists but is empty (0 bytes): not a tagbot database; remove it to start a fresh store, or restore the database" "$W/z.log"
expect "... no reply written, the file left empty" \
	cond '[ "$(count_files "$W/z-out")" = 0 ] && [ ! -s "$W/z-state/tagbot.db" ]'
"$TAGBOT" status -c "$W/z.ini" >"$W/z.status" 2>&1
zrc=$?
expect "tagbot status refuses it too" \
	cond '[ $zrc -eq 2 ] && grep -q "exists but is empty (0 bytes)" "$W/z.status"'
rm "$W/z-state/tagbot.db"
"$TAGBOT" run --once -c "$W/z.ini" 2>>"$W/z.log"
expect "removed, a fresh store is created and the patch answered" \
	cond '[ -s "$W/z-state/tagbot.db" ] && [ "$(replies_to "$W/z-out" "$BAD")" = 1 ]'

# --- a mail that cannot be parsed: logged with its file, recorded, not retried
: >"$IN/new/1800000002.empty"
"$TAGBOT" run --once -c "$W/a.ini" 2>"$W/e.log"
expect "an unparsable mail is logged with its file name" 	grep -q 'file new/1800000002.empty: skipped: ' "$W/e.log"
"$TAGBOT" status -c "$W/a.ini" >"$W/status" 2>&1
expect "... recorded as decision error, and listed in the last errors" \
	cond 'grep -q "^messages 4: replied 1, clean 2, skipped 0, error 1\$" "$W/status" &&
	      grep -q "^  .* message <no-message-id\..*@tagbot.invalid>: maildir:" "$W/status"'
"$TAGBOT" run --once -c "$W/a.ini" 2>"$W/e.log"
expect "... and not retried" cond '! grep -q skipped "$W/e.log"'

# --- SIGKILL during a 200-message backlog ----------------------------------
BL=$W/backlog
mkmaildir "$BL"
backlog_make "$SAMPLES/01-clean-fix.eml" "$BL/new" 200
# batch = 1: a commit per message, so the kills land between and inside
# many of them.  The whole backlog takes a fraction of a second: the
# moments are short, and each line shows how far the run got.
ini "$W/b.ini" backlog b-out b-state/tagbot.db
sed -i 's/^batch = 5$/batch = 1/; s/^log_level = debug$/log_level = info/' "$W/b.ini"
seed=${DAEMON_SEED:-$(date +%s)}
echo "# DAEMON_SEED=$seed"
for delay in $(python3 -c "import random; random.seed($seed); print(' '.join('%.3f' % random.uniform(0.005, 0.08) for _ in range(12)))"); do
	"$TAGBOT" run -c "$W/b.ini" 2>>"$W/b.log" &
	BOT_PID=$!
	sleep "$delay"
	bot_kill
	echo "# SIGKILL after ${delay}s: $("$TAGBOT" status -c "$W/b.ini" 2>/dev/null | grep '^messages\|^outbox' | tr '\n' ' ')"
done
"$TAGBOT" run --once -c "$W/b.ini" 2>>"$W/b.log"
expect "after the SIGKILLs, a clean run exits 0" [ $? -eq 0 ]
expect "every patch that needs a reply has exactly one, the clean ones none" \
	backlog_check "$W/b-out" 200
"$TAGBOT" status -c "$W/b.ini" >"$W/b.status" 2>&1
expect "the store agrees: 100 replied, 100 clean, 100 sent" \
	cond 'grep -q "^messages 200: replied 100, clean 100, skipped 0, error 0\$" "$W/b.status" &&
	      grep -q "^outbox: queued 0, sent 100, failed 0\$" "$W/b.status"'

# --- SIGHUP ------------------------------------------------------------------
ini "$W/h.ini" h-in h-out h-state/tagbot.db
mkmaildir "$W/h-in"
"$TAGBOT" run -c "$W/h.ini" 2>"$W/h.log" &
BOT_PID=$!
sleep 0.5
cp "$W/h.ini" "$W/h.good"
printf '[rulez]\nfoo = bar\n' >>"$W/h.ini"
kill -HUP "$BOT_PID"
sleep 0.5
expect "SIGHUP with a broken ini: still running" kill -0 "$BOT_PID"
expect "SIGHUP with a broken ini: the error is logged, the old settings kept" \
	grep -q 'reload: .*h.ini: \[rulez\]: unknown section.*keeping the old settings' "$W/h.log"
sed 's/^Signed-off-by: Eddie.*$//; s/280618-1-eajames/hup-1/' "$SAMPLES/01-clean-fix.eml" \
	>"$W/h-in/new/1800000000.hup-1"
wait_reply() {
	for _ in $(seq 100); do
		[ "$(replies_to "$W/h-out" "$1")" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}
expect "... and keeps answering on the old settings" \
	wait_reply '<20250130194627.hup-1@linux.ibm.com>'
ini "$W/h.ini" h-in h-out h-state/tagbot.db "MISSING_SIGN_OFF = off"
kill -HUP "$BOT_PID"
sleep 0.5
sed 's/^Signed-off-by: Eddie.*$//; s/280618-1-eajames/hup-2/' "$SAMPLES/01-clean-fix.eml" \
	>"$W/h-in/new/1800000001.hup-2"
sed "s/280618-1-eajames/hup-3/; s/^Signed-off-by: Eddie/Signed-Off-By: Eddie/" \
	"$SAMPLES/01-clean-fix.eml" >"$W/h-in/new/1800000002.hup-3"
expect "SIGHUP with a good ini: the new settings apply (a mail after it is answered)" \
	wait_reply '<20250130194627.hup-3@linux.ibm.com>'
expect "... and MISSING_SIGN_OFF = off there: no reply to the unsigned patch" \
	[ "$(replies_to "$W/h-out" '<20250130194627.hup-2@linux.ibm.com>')" = 0 ]
kill -TERM "$BOT_PID"
wait "$BOT_PID"
expect "SIGTERM: tagbot run exits 0" [ $? -eq 0 ]
BOT_PID=
finish
