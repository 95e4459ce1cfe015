#!/bin/sh
# Settings the bot refuses rather than act on, against Dovecot and
# Postfix: a [sink] url holding credentials is refused at
# start with a message naming the key, never the password; an existing
# empty state file is refused, not taken for a fresh store that would, with
# backfill = yes, answer the whole folder again.  In both cases no reply
# reaches author@'s INBOX; a fresh store (the file removed) then answers
# the patch once.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"

$MAIL patch nosob refuse 1 --now >"$W/refuse-1.eml" && $MAIL append $BOT "$W/refuse-1.eml" ||
	{ not_ok "the patch is in bot@'s INBOX"; finish; exit 1; }
# once INI STATE [SINK-URL]: `tagbot run --once` over the folder from UID 1;
# its exit status, its output in $W/once.out
once() {
	bot_ini "$1" "$2"
	sed -i 's/^backfill = no/backfill = yes/' "$1"
	[ -z "${3:-}" ] || sed -i "s|^url = .*|url = $3|" "$1"
	"$TAGBOT" run --once -c "$1" >"$W/once.out" 2>&1
}

# 6) credentials in the sink's URL
once "$W/url.ini" "$W/url.db" "smtp://bot:hunter2secret@127.0.0.1:$SMTP_PORT"
rc=$?
expect "6) a [sink] url with credentials: exit 2" [ "$rc" -eq 2 ]
expect "6) the message names the key" grep -q "\[sink\] url: credentials in the URL are not accepted" "$W/once.out"
expect "6) the password is never printed" sh -c "! grep -q hunter2secret '$W/once.out'"
expect "6) no state written" [ ! -e "$W/url.db" ]

# 7) an existing empty state file
: >"$W/empty.db"
once "$W/empty.ini" "$W/empty.db"
rc=$?
expect "7) an empty state file: exit 2" [ "$rc" -eq 2 ]
expect "7) the message names the file and says it is empty" \
	grep -q "store $W/empty.db: the file exists but is empty" "$W/once.out"
expect "7) the file is left as it was (0 bytes)" [ ! -s "$W/empty.db" ]
sleep 2
expect "6, 7) no reply reached author@" $MAIL none $AUTHOR "<e2e-refuse-1@example.org>"

# The admin removes the file: a fresh store answers the patch, once.
rm -f "$W/empty.db"
once "$W/empty.ini" "$W/empty.db"
expect "7) removed: the fresh store's run exits 0" [ $? -eq 0 ]
expect "7) ... and the patch is answered" $MAIL wait-replies $AUTHOR 30 "<e2e-refuse-1@example.org>"
finish
