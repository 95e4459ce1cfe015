#!/bin/sh
# Rate limits hold replies, never drop them, end to end:
# `tagbot run` on bot@'s INBOX (IMAP, IDLE) sending through Postfix, with
# [reply] reply_mode = per-patch.  Asserted is what reaches each INBOX.
#   a) max_per_author_per_hour = 3: five patches from author@ get three
#      replies; the other two are kept in the store (held), not dropped;
#      after a restart the hour's window is still there (kept in the
#      store): two more patches get no reply now, they are held too
#   b) max_per_minute = 2, max_share_per_sender = 50 (one reply a minute
#      per sender): three patches from mallory@, then one from ann@:
#      mallory@'s first is answered, ann@'s too (mallory@ cannot take the
#      whole minute), mallory@'s other two are held and, once the minute
#      has room, go out folded into one reply that lists both patches
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
M=mallory@example.org ANN=ann@example.org
SRV_USERS="$SRV_USERS $M $ANN"
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"

# mk NAME FROM: $W/NAME-1.eml, a patch without Signed-off-by from FROM
mk() {
	$MAIL patch nosob "$1" 1 --now | sed "s/^From: .*\$/From: $2\\r/" >"$W/$1-1.eml"
}
# replies USER: how many replies from the bot USER's INBOX holds
replies() { $MAIL count "$1"; }
# held N: the store keeps N held patches
held() { db_true "SELECT count(*) = $1 FROM held"; }

# --- a) the author's hourly limit, across a restart ----------------------------
INI=$W/a.ini STATE=$W/a.db
bot_ini "$INI" "$STATE" "reply_mode = per-patch"
sed -i 's/^max_per_author_per_hour = 0/max_per_author_per_hour = 3/' "$INI"
bot_start
check "a) the bot starts" wait_ready 20
for n in 1 2 3 4 5; do mk a$n "$AUTHOR"; $MAIL append $BOT "$W/a$n-1.eml"; done
check "a) the five patches are recorded" wait_seen 30 a1-1 a2-1 a3-1 a4-1 a5-1
check "a) three replies reach author@" $MAIL wait $AUTHOR 3 30
check "a) the other two are held in the store, not dropped" held 2
check "a) ... recorded skipped:held" \
	db_true "SELECT count(*) = 2 FROM messages WHERE decision = 'skipped:held'"
check "a) SIGTERM: exit 0" bot_stop
bot_start
check "a) the bot starts again" wait_ready 20
for n in 6 7; do mk a$n "$AUTHOR"; $MAIL append $BOT "$W/a$n-1.eml"; done
check "a) after the restart two more are recorded" wait_seen 30 a6-1 a7-1
sleep 3
check "a) ... and held: the hour's window survived the restart (still 3 replies)" \
	[ "$(replies $AUTHOR)" = 3 ]
check "a) four held now" held 4
check "a) SIGTERM again: exit 0" bot_stop

# --- b) the global minute shared by sender; held replies folded -----------------
INI=$W/b.ini STATE=$W/b.db
bot_ini "$INI" "$STATE" "reply_mode = per-patch
max_share_per_sender = 50"
sed -i 's/^max_per_minute = 0/max_per_minute = 2/' "$INI"
bot_start
check "b) the bot starts" wait_ready 20
for n in 1 2 3; do mk m$n "Mallory <$M>"; $MAIL append $BOT "$W/m$n-1.eml"; done
check "b) mallory@'s three patches are recorded" wait_seen 30 m1-1 m2-1 m3-1
mk ann1 "Ann <$ANN>"
$MAIL append $BOT "$W/ann1-1.eml"
check "b) ann@'s patch after them is answered at once: mallory@ took half the minute" \
	$MAIL wait-replies $ANN 20 "<e2e-ann1-1@example.org>"
check "b) mallory@ got one reply so far" [ "$(replies $M)" = 1 ]
check "b) mallory@'s other two are held" held 2
check "b) once the minute has room, mallory@'s held replies go out" $MAIL wait $M 2 90
sleep 3
check "b) ... folded into one reply (two in all)" [ "$(replies $M)" = 2 ]
check "b) ... which answers the first held patch and lists both" python3 - "$M" "$IMAP_PORT" <<'PY'
import imaplib, email, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[2]))
m.login(sys.argv[1], "secret")
m.select("INBOX")
_, data = m.search(None, "ALL")
texts = []
for n in data[0].split():
    _, d = m.fetch(n, "(RFC822)")
    texts.append(email.message_from_bytes(d[0][1]))
body = lambda t: t.get_payload(decode=True).decode()
fold = [t for t in texts if "(m2 1)" in body(t) and "(m3 1)" in body(t)]
sys.exit(0 if len(fold) == 1 and "e2e-m2-1@example.org" in fold[0]["In-Reply-To"] else 1)
PY
check "b) nothing held any more" held 0
check "b) SIGTERM: exit 0" bot_stop
finish
