#!/bin/sh
# Replies reach only the right people, and nobody can steer the bot: whom
# `tagbot run` answers, end to end against Dovecot and Postfix.  Each case is
# a patch without Signed-off-by (so it surely gets a reply) whose headers are
# rewritten, APPENDed to bot@'s INBOX; once the bot has recorded it and its
# replies have left Postfix's queue, asserted is exactly which mailboxes hold
# a reply to it (read from every Maildir, so a reply to any address shows;
# bot@'s own copy aside) and the reply's To: and Cc: (RFC 5322 parsing).
# victim@example.org must never get one.
#
# 1) Addresses come from the raw header by RFC 5322; RFC 2047 encoded-words
#    are decoded in display names only ([reply] to = author):
#   1a) From: =?utf-8?q?Victim_<victim=40example.org>?= <mallory@>: To mallory@
#   1b) From: Ann <=?utf-8?q?victim=40example.org?=>: a malformed address,
#       no reply at all, and a warning about the message in the log
#   1c) as 1a, base64 (=?utf-8?b?...?=): To mallory@
#   1d) From: =?utf-8?q?victim=40example.org=2C?= <mallory@> (an encoded
#       comma): To mallory@
#   1e) the 1a trick in the in-body From: (author@), header From: mallory@:
#       To mallory@ (the submitter), Cc author@ (the in-body author)
#   1f) B4 Relay (From: devnull+...@), X-Original-From: with the 1a trick for
#       ann@, Reply-To: ann@: To ann@ (never devnull+...)
#   1g) From: =?utf-8?q?victim=40example.org=2C?= mallory@ (the encoded
#       comma before a bare addr-spec): malformed, no reply at all
# 2) Who is answered: To the submitter, Cc the in-body author; never a list's
#    address, a relay's devnull+, the bot's own address:
#   2a) (control) a plain patch from author@: To author@
#   2b) From: maint@, in-body From: author@: To maint@, Cc author@
#       ([reply] cc_author = yes by default)
#   2c) From: "Victim via linux-leds" <mallory@> (not the list's address),
#       Reply-To: victim@: To mallory@ (no DMARC rewrite, Reply-To ignored)
#   2d) From: the address of the mail's List-Post: mailto, nothing else: no
#       reply
#   2e) From: an encoded victim@ name around bot@'s address: no reply
#   with [reply] cc_author = no and [list linux-leds.example.org] address =
#   linux-leds@example.org:
#   2f) From: "Ann via linux-leds" <linux-leds@> (the configured list's
#       address: a DMARC rewrite), Reply-To: ann@, List-Id: the list: To ann@
#   2g) From: linux-leds@ only (List-Id: the list, no Reply-To): no reply
#   2h) From: maint@, in-body From: author@: To maint@, author@ not Cc'd
# 3) The list Cc comes from the configuration only ([reply] to = author+list):
#    with no [list ID] section at all:
#   3a) List-Id: <victim.example.org>: To author@ only
#   3b) a list with no configured address (List-Id: <other.example.org>,
#       List-Post: <mailto:other@>): To author@ only
#   3c) a forged List-Post: <mailto:victim@> alone: To author@ only
#    with [list linux-leds.example.org] address = linux-leds@example.org:
#   3d) List-Id: <linux-leds.example.org>: To author@, Cc linux-leds@
#   3e) ... and a forged List-Post: <mailto:victim@>: the same, no victim@
#   3f) List-Id: <victim.example.org> then List-Id: <linux-leds.example.org>
#       last in the header block (where the list server appends its own):
#       the last one counts, To author@, Cc linux-leds@
#   3g) List-Id: <victim.example.org> alone: To author@ only
# 5) Rate limits cannot be turned against a third person
#    (max_per_author_per_hour = 3): ten patches from mallory@ with in-body
#    From: Victim <victim@>, then one from victim@ (no in-body From:):
#    victim@ gets at most 3 replies about mallory's patches, and victim's own
#    patch is answered, To victim@, within 20 s of being recorded.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
V=victim@example.org M=mallory@example.org ANN=ann@example.org
L=linux-leds@example.org MT=maint@example.org A=author@example.org
# Every address a reply could wrongly reach needs a Dovecot user: LMTP
# refuses unknown ones (Postfix then bounces, unseen in any Maildir), so the
# maillog check at the end fails on any bounce.  devnull+... is devnull@.
SRV_USERS="$SRV_USERS $V $M $ANN $L other@example.org devnull@example.org"
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"
LC_ALL=C
export LC_ALL

# got NAME: one line per mailbox holding a reply to <e2e-NAME-1@example.org>
# (bot@'s copy aside): "USER COUNT To:ADDRS Cc:ADDRS", the addr-specs of the
# first such reply's headers, parsed raw (RFC 5322), sorted, comma-separated.
got() {
	python3 - "$SRV_DIR/mail" "<e2e-$1-1@example.org>" <<'PY'
import email, email.utils, os, re, sys
root, key = sys.argv[1], sys.argv[2]
def addrs(msg, name):
    vals = [str(v) for v in msg.get_all(name, [])]
    return ",".join(sorted({a.lower() for _, a in email.utils.getaddresses(vals) if a}))
for user in sorted(os.listdir(root)):
    if user == "bot@example.org":
        continue
    hits = []
    for sub in ("new", "cur"):
        d = os.path.join(root, user, "Maildir", sub)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, f), "rb") as fh:
                msg = email.message_from_binary_file(fh)
            if re.findall(r"<[^<>\s]+>", str(msg["In-Reply-To"] or ""))[:1] == [key]:
                hits.append(msg)
    if hits:
        print("%s %d To:%s Cc:%s" % (user, len(hits), addrs(hits[0], "To"),
                                     addrs(hits[0], "Cc")))
PY
}

# csv ADDRS: the white-space separated ADDRS (split on purpose) as got prints them
csv() { printf '%s\n' $1 | sort -u | paste -sd, -; }
# want TO CC: what `got` prints when one reply goes To TO, Cc CC
want() {
	for a in $1 $2; do
		printf '%s 1 To:%s Cc:%s\n' "$a" "$(csv "$1")" "$(csv "$2")"
	done | sort
}

# reaches NAME TO CC: the reply to NAME went exactly there (TO and CC empty:
# no reply at all), saying what went where when not.
reaches() {
	g=$(got "$1") w=$(want "$2" "$3")
	[ "$g" = "$w" ] && return 0
	printf '#   got:  %s\n' "${g:-(no reply anywhere)}" | sed '2,$s/^/#         /'
	printf '#   want: %s\n' "${w:-(no reply anywhere)}" | sed '2,$s/^/#         /'
	return 1
}

# wait_reaches SECONDS NAME TO CC: until reaches NAME TO CC holds
wait_reaches() {
	for _ in $(seq $(($1 * 5))); do
		[ "$(got "$2")" = "$(want "$3" "$4")" ] && return 0
		sleep 0.2
	done
	return 1
}

# replies_in USER NAME...: how many mails in USER's Maildir answer the NAMEs
replies_in() {
	u=$1; shift
	for n in "$@"; do got "$n"; done | awk -v u="$u" '$1 == u { s += $2 } END { print s + 0 }'
}

# settle SECONDS: until the bot has no reply queued and Postfix's queue is
# empty (every reply it accepted is in its Maildir).
settle() {
	q=$SRV_DIR/postfix/queue
	for _ in $(seq $(($1 * 5))); do
		if ! db_true "SELECT count(*) FROM outbox WHERE state = 'queued'" &&
			[ -z "$(find "$q/maildrop" "$q/incoming" "$q/active" "$q/deferred" \
				-type f 2>/dev/null | head -n 1)" ]; then
			return 0
		fi
		sleep 0.2
	done
	echo "# still queued after $1 s"
	return 1
}

# group NAME TO MAX-PER-HOUR [REPLY-KEYS [SECTIONS]]: the bot's configuration
# for the rows that follow ($W/NAME.ini, bot_ini's with [reply] to = TO and
# max_per_author_per_hour = MAX-PER-HOUR).
group() {
	G=$1 INI=$W/$1.ini STATE=$W/$1.db
	bot_ini "$INI" "$STATE" "${4:-}" "${5:-}"
	sed -i "s/^to = author\$/to = $2/; s/^max_per_author_per_hour = 0\$/max_per_author_per_hour = $3/" \
		"$INI"
	: >"$W/$G.cases"
}

# row NAME TO CC WHAT HEADER...: one case of the group (mkmail NAME HEADER...)
# whose one reply must go To TO, Cc CC ("" "": no reply at all).
row() {
	n=$1 to=$2 cc=$3 what=$4; shift 4
	mkmail "$n" "$@" || { echo "cannot make $n"; exit 99; }
	printf '%s|%s|%s|%s\n' "$n" "$to" "$cc" "$what" >>"$W/$G.cases"
}

# run_group: start the bot on the group's file, APPEND its rows' mails, wait
# until they are recorded and the replies delivered, assert each row.
run_group() {
	names=$(cut -d'|' -f1 "$W/$G.cases")
	bot_start
	if ! wait_ready 20; then
		not_ok "$G: the bot starts with $G.ini"
		fail_log
		while IFS='|' read -r n to cc what; do
			not_ok "$n) $what (the bot did not start)"
		done <"$W/$G.cases"
		bot_stop >/dev/null
		return
	fi
	$MAIL append $BOT $(for n in $names; do printf '%s ' "$W/$n-1.eml"; done)
	check "$G: the bot records every mail" wait_seen 20 $(for n in $names; do echo "$n-1"; done)
	settle 20
	while IFS='|' read -r n to cc what; do
		if reaches "$n" "$to" "$cc"; then ok "$n) $what"; else
			not_ok "$n) $what"
			grep -F "message <e2e-$n-1@example.org>" "$W/bot.log" | sed 's/^/#   /'
		fi
	done <"$W/$G.cases"
	check "$G: SIGTERM: exit 0" bot_stop
}

VQ='=?utf-8?q?Victim_<victim=40example.org>?='
VB="=?utf-8?b?$(printf '%s' "Victim <$V>" | base64)?="

# --- 1), 2a-2e: [reply] to = author ---------------------------------------------
group author author 0
row 1a "$M" "" "an address in an encoded display name is no address: To mallory@ only" \
	"From: $VQ <$M>"
row 1b "" "" "an encoded-word for the addr-spec: malformed, no reply at all" \
	"From: Ann <=?utf-8?q?victim=40example.org?=>"
row 1c "$M" "" "the same in base64: To mallory@ only" "From: $VB <$M>"
row 1d "$M" "" "an encoded comma in the display name: To mallory@ only" \
	"From: =?utf-8?q?victim=40example.org=2C?= <$M>"
row 1e "$M" "$A" "the trick in the in-body From: To mallory@ (submitter), Cc author@" \
	"From: $M" "Body-From: $VQ <$A>"
row 1f "$ANN" "" "B4 Relay, the trick in X-Original-From: To ann@ only, never devnull+" \
	"From: Ann via B4 Relay <devnull+ann.example.org@example.org>" \
	"X-Original-From: $VQ <$ANN>" "Reply-To: $ANN"
row 1g "" "" "an encoded comma before a bare addr-spec: malformed, no reply at all" \
	"From: =?utf-8?q?victim=40example.org=2C?= $M"
row 2a "$A" "" "a plain patch from author@: To author@ only" "From: A U Thor <$A>"
row 2b "$MT" "$A" "From: maint@, in-body From: author@: To maint@, Cc author@" \
	"From: Mai N Tainer <$MT>" "Body-From: A U Thor <$A>"
row 2c "$M" "" "a ' via ' name on an address not the list's: To mallory@, Reply-To ignored" \
	"From: \"Victim via linux-leds\" <$M>" "Reply-To: $V"
row 2d "" "" "From: the List-Post mailto's address, nothing else: no reply" \
	"From: Linux LEDs <$L>" "List-Id: <linux-leds.example.org>" \
	"List-Post: <mailto:$L>"
row 2e "" "" "From: the bot's own address (an encoded victim@ name): no reply" \
	"From: $VQ <$BOT>"
run_group
check "1b) the log warns about the malformed From:" \
	grep -Eq "(warning|error): message <e2e-1b-1@example.org>:" "$W/bot.log"

# --- 2f-2h: cc_author = no, the list's address configured ------------------------
group list-address author 0 "cc_author = no" "[list linux-leds.example.org]
address = $L"
row 2f "$ANN" "" "a DMARC rewrite (From: the list's address, ' via '): To ann@ (Reply-To)" \
	"From: \"Ann via linux-leds\" <$L>" "Reply-To: $ANN" "List-Id: <linux-leds.example.org>"
row 2g "" "" "From: the configured list's address only: no reply" \
	"From: $L" "List-Id: <linux-leds.example.org>"
row 2h "$MT" "" "cc_author = no: To maint@ (submitter), the in-body author not Cc'd" \
	"From: Mai N Tainer <$MT>" "Body-From: A U Thor <$A>"
run_group

# --- 3) [reply] to = author+list ------------------------------------------------
group author-list author+list 0
row 3a "$A" "" "List-Id: <victim.example.org>, no list configured: To author@ only" \
	"List-Id: <victim.example.org>"
row 3b "$A" "" "a list with no configured address (List-Id, List-Post): To author@ only" \
	"List-Id: <other.example.org>" "List-Post: <mailto:other@example.org>"
row 3c "$A" "" "a forged List-Post: mailto:victim@ alone: To author@ only" \
	"List-Post: <mailto:$V>"
run_group

group list-cc author+list 0 "" "[list linux-leds.example.org]
address = $L"
row 3d "$A" "$L" "List-Id: the configured list: To author@, Cc its address" \
	"List-Id: <linux-leds.example.org>"
row 3e "$A" "$L" "... and a forged List-Post: mailto:victim@: the same, no victim@" \
	"List-Id: <linux-leds.example.org>" "List-Post: <mailto:$V>"
row 3f "$A" "$L" "a forged List-Id, then the list's own last: To author@, Cc the list" \
	"List-Id: <victim.example.org>" "List-Id: <linux-leds.example.org>"
row 3g "$A" "" "List-Id: <victim.example.org> (no section): To author@ only" \
	"List-Id: <victim.example.org>"
run_group

# --- 5) rate limits ---------------------------------------------------------------
group rate author 3
for i in 1 2 3 4 5 6 7 8 9 10; do
	mkmail "5m$i" "From: Mallory <$M>" "Body-From: Victim <$V>" || exit 99
done
mkmail 5v "From: Victim <$V>" || exit 99
bot_start
if check "5) the bot starts with max_per_author_per_hour = 3" wait_ready 20; then
	$MAIL append $BOT $(for i in 1 2 3 4 5 6 7 8 9 10; do printf '%s ' "$W/5m$i-1.eml"; done)
	check "5) mallory's ten patches are recorded" \
		wait_seen 20 $(for i in 1 2 3 4 5 6 7 8 9 10; do echo "5m$i-1"; done)
	$MAIL append $BOT "$W/5v-1.eml"
	check "5) victim's own patch is recorded" wait_seen 20 5v-1
	wait_reaches 20 5v "$V" ""
	settle 5
	n=$(replies_in $V 5m1 5m2 5m3 5m4 5m5 5m6 5m7 5m8 5m9 5m10)
	echo "# 5) replies about mallory's patches: $n to victim@," \
		"$(replies_in $M 5m1 5m2 5m3 5m4 5m5 5m6 5m7 5m8 5m9 5m10) to mallory@"
	check "5) victim@ gets at most 3 replies about mallory's patches (got $n)" test "$n" -le 3
	check "5) victim's own patch is answered, To victim@ only (mallory spent no budget of it)" \
		reaches 5v "$V" ""
	check "5) SIGTERM: exit 0" bot_stop
else
	not_ok "5) victim@ gets at most 3 replies about mallory's patches (the bot did not start)"
	not_ok "5) victim's own patch is answered (the bot did not start)"
	bot_stop >/dev/null
fi

# A recipient Dovecot refused would bounce, unseen by the checks above.
check "Postfix delivered every reply (no bounce)" \
	test -z "$(grep 'status=bounced' "$SRV_DIR/postfix/maillog" 2>/dev/null)"
finish
