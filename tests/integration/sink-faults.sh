#!/bin/sh
# Faults at the SMTP sink never lose a reply nor send one twice: `tagbot
# run` against Dovecot and Postfix.
#
# 1) Refused recipients ([reply] to = all; Postfix refuses unknown@ and a
#    foreign address with 550 5.1.1 at RCPT):
#   1a) a patch Cc'ing maint@, unknown@ and x@foreign.invalid: the reply
#       reaches author@ (To) and maint@ once; it is marked sent, and the log
#       and `tagbot status` name both dropped addresses
#   1b) a patch from unknown@ (the submitter refused): the reply is failed,
#       nobody gets it (not maint@ in its Cc either)
# 2) A broken sink: replies stay queued (no attempt counted), the sink backs
#    off (an error line per try, further and further apart), `tagbot status`
#    says it is failing and why; each SIGHUP with a changed [sink] tries at
#    once:
#   2a) a certificate from another CA (a second Postfix listener)
#   2b) AUTH with a wrong password (535; Postfix SASL through Dovecot)
#   2c) a listener that offers no STARTTLS
#   2d) the right settings: each queued reply arrives exactly once, the
#       sink is ok again
# 3) SIGHUP while the SMTP pool holds a warm connection, with [lookup] on
#    (a reload frees the lookup context and makes a new one): libcurl's
#    global state stays up, the bot lives on and the next reply goes out.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
U=unknown@example.org F=x@foreign.invalid MT=maint@example.org A=author@example.org
SRV_REJECT_RCPT="$U $F" SRV_SASL=1
srv_need dovecot postfix
srv_init
srv_start_dovecot || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"

# replies_to USER NAME: how many mails in USER's Maildir answer <e2e-NAME-1@example.org>
replies_to() {
	python3 - "$(srv_maildir "$1")" "<e2e-$2-1@example.org>" <<'PY'
import email, os, sys
md, key, n = sys.argv[1], sys.argv[2], 0
for sub in ("new", "cur"):
    d = os.path.join(md, sub)
    for f in os.listdir(d) if os.path.isdir(d) else []:
        with open(os.path.join(d, f), "rb") as fh:
            n += key in str(email.message_from_binary_file(fh)["In-Reply-To"] or "")
print(n)
PY
}

# outbox NAME: "STATE ATTEMPTS" of the reply to NAME-1
outbox() {
	python3 - "$STATE" "e2e-$1-1@example.org" <<'PY'
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=5)
r = con.execute("SELECT state, attempts FROM outbox WHERE parent_msgid = ?", (sys.argv[2],)).fetchone()
print("%s %s" % r if r else "none")
PY
}

# settle SECONDS: until no reply is queued and Postfix's queue is empty.
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
	return 1
}

# wait_log SECONDS COUNT ERE: until the bot's log has COUNT lines matching ERE
wait_log() {
	for _ in $(seq $(($1 * 10))); do
		[ "$(grep -Ec "$3" "$W/bot.log")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

status_has() { "$TAGBOT" status -c "$INI" 2>&1 | grep -qF "$1"; }

# sink_ini URL [KEY=VALUE...]: $INI with [sink] url = URL and the extra keys
sink_ini() {
	url=$1; shift
	bot_ini "$INI.new" "$STATE"
	extra=$(printf '%s\\n' "$@")
	sed -i "s|^url = smtp://127.0.0.1:$SMTP_PORT\$|url = $url${extra:+\\n$extra}|; s/^to = author\$/to = ${TO:-author}/" \
		"$INI.new"
	mv "$INI.new" "$INI"
}

# --- 1) refused recipients --------------------------------------------------------
INI=$W/rcpt.ini STATE=$W/rcpt.db TO=all
sink_ini "smtp://127.0.0.1:$SMTP_PORT"
mkmail 1a "To: $BOT" "Cc: $MT, $U, $F" || exit 99
mkmail 1b "From: Unknown <$U>" "To: $BOT" "Cc: $MT" || exit 99
bot_start
check "1) the bot starts with to = all" wait_ready 20
$MAIL append $BOT "$W/1a-1.eml" "$W/1b-1.eml"
check "1) both patches are recorded" wait_seen 20 1a-1 1b-1
settle 20
check "1a) author@ (To) gets the reply once" test "$(replies_to $A 1a)" -eq 1
check "1a) maint@ (Cc beside two refused addresses) gets it once" test "$(replies_to $MT 1a)" -eq 1
check "1a) the reply is marked sent" eval '[ "$(outbox 1a | cut -d" " -f1)" = sent ]'
check "1a) the log names both dropped addresses (warning)" \
	grep -Eq "warning: message <e2e-1a-1@example.org>: reply .*not sent to: $U $F \\($U: 550 5\\.1\\.1 " \
	"$W/bot.log"
check "1a) tagbot status names both dropped addresses" status_has "not sent to: $U $F"
check "1b) the submitter refused: the reply is failed" \
	eval '[ "$(outbox 1b | cut -d" " -f1)" = failed ]'
check "1b) nobody gets it (maint@ in its Cc neither)" \
	test "$(replies_to $MT 1b)$(replies_to $A 1b)" = 00
check "1b) the log says why" grep -Eq "error: message <e2e-1b-1@example.org>: reply .*refused, not retried: .*550 5\\.1\\.1 <$U>" \
	"$W/bot.log"
check "1) SIGTERM: exit 0" bot_stop

# --- 2) a broken sink -------------------------------------------------------------
srv_other_cert other || exit 99
BADCERT_PORT=$(srv_free_port) NOTLS_PORT=$(srv_free_port)
srv_postfix_listener "$BADCERT_PORT" -o "smtpd_tls_cert_file=$SRV_DIR/other.pem" \
	-o "smtpd_tls_key_file=$SRV_DIR/other.key" || exit 99
srv_postfix_listener "$NOTLS_PORT" -o smtpd_tls_security_level=none || exit 99
printf 'Wr0ng-pa55-4-tagbot\n' >"$W/wrong-password"
chmod 600 "$W/wrong-password"
INI=$W/setup.ini STATE=$W/setup.db TO=author
mkmail 2a && mkmail 2b && mkmail 2c || exit 99

# step WHAT PATCH PATTERN: the bot on the broken sink of $INI (started, or
# told by SIGHUP), PATCH appended: it is recorded, the sink's fault is logged
# at error level and shown by status, and every reply so far stays queued
# with no attempt counted.
queued_ok() {
	for n in "$@"; do [ "$(outbox "$n")" = "queued 0" ] || return 1; done
}
step() {
	what=$1 n=$2 pat=$3; shift 3
	before=$(grep -Ec "error: sink: .*$pat" "$W/bot.log")
	$MAIL append $BOT "$W/$n-1.eml"
	check "$what: $n is recorded" wait_seen 20 "$n-1"
	check "$what: the log says what is wrong, at error level" \
		wait_log 10 $((before + 1)) "error: sink: .*$pat.*replies stay queued"
	check "$what: tagbot status shows the sink failing, and why" \
		eval 'status_has "sink smtp://127.0.0.1:" && "$TAGBOT" status -c "$INI" | grep -q "failing since .*$pat"'
	check "$what: the replies stay queued, no attempt counted ($*)" queued_ok "$@"
	check "$what: no reply failed" eval '! db_true "SELECT count(*) FROM outbox WHERE state = '"'failed'"'"'
}

sink_ini "smtp://127.0.0.1:$BADCERT_PORT"
bot_start
check "2) the bot starts" wait_ready 20
step "2a) certificate from another CA" 2a "certificate verification failed" 2a
# The back-off: a few tries in 6 s, not one per second, each said once.
sleep 6
n=$(grep -c "error: sink: .*certificate verification failed" "$W/bot.log")
check "2a) the sink backs off: 2 to 5 tries (an error line each) in 6 s (got $n)" \
	eval '[ "$n" -ge 2 ] && [ "$n" -le 5 ]'
check "2a) nothing reached author@" test "$(replies_to $A 2a)" -eq 0

sink_ini "smtp://127.0.0.1:$SMTP_PORT" "user = $BOT" "password_file = $W/wrong-password"
kill -HUP "$BOT_PID"
step "2b) wrong password, after SIGHUP" 2b "535 5\\.7\\.8" 2a 2b

sink_ini "smtp://127.0.0.1:$NOTLS_PORT"
kill -HUP "$BOT_PID"
step "2c) no STARTTLS, after SIGHUP" 2c "does not offer STARTTLS" 2a 2b 2c

sink_ini "smtp://127.0.0.1:$SMTP_PORT" "user = $BOT" "password_file = $SRV_DIR/password"
kill -HUP "$BOT_PID"
check "2d) fixed and SIGHUP: everything queued goes out" settle 30
for n in 2a 2b 2c; do
	check "2d) $n: the reply reaches author@ exactly once" test "$(replies_to $A $n)" -eq 1
	check "2d) $n: marked sent after one try" eval '[ "$(outbox $n)" = "sent 2" ]'
done
check "2d) the log says the sink works again" grep -q "info: sink smtp://127.0.0.1:$SMTP_PORT works again" "$W/bot.log"
check "2d) tagbot status shows the sink ok" status_has "sink smtp://127.0.0.1:$SMTP_PORT: ok since"
check "2d) Postfix logged the SASL login" grep -q 'sasl_username=bot@example.org' "$SRV_DIR/postfix/maillog"
check "2) SIGTERM: exit 0" bot_stop
check "2) the wrong password is in no log or status" \
	eval '! grep -rqF Wr0ng-pa55-4-tagbot "$W/bot.log" "$SRV_DIR/postfix/maillog" "$SRV_DIR/dovecot/dovecot.log"'

# --- 3) SIGHUP with a warm SMTP pool ------------------------------------------------
INI=$W/reload.ini STATE=$W/reload.db TO=author
sink_ini "smtp://127.0.0.1:$SMTP_PORT" "user = $BOT" "password_file = $SRV_DIR/password"
# Nothing answers there; these patches have no link, so nothing is fetched.
printf '\n[lookup]\nenabled = yes\narchive_url = http://127.0.0.1:%s/\n' "$(srv_free_port)" >>"$INI"
mkmail 3a && mkmail 3b || exit 99
bot_start
check "3) the bot starts, lookups on" eval 'wait_ready 20 && wait_log 10 1 "lookups on: http://127.0.0.1:"'
$MAIL append $BOT "$W/3a-1.eml"
check "3a) recorded" wait_seen 20 3a-1
check "3a) its reply goes out" settle 30
check "3a) author@ gets it once" test "$(replies_to $A 3a)" -eq 1
# Within SMTP_REUSE_IDLE_S of that send: the connection waits in the pool.
reloads=$(grep -c "info: reloaded " "$W/bot.log")
kill -HUP "$BOT_PID"
check "3) SIGHUP: the bot reloads" wait_log 10 $((reloads + 1)) "info: reloaded "
$MAIL append $BOT "$W/3b-1.eml"
check "3b) recorded after the reload" wait_seen 20 3b-1
check "3b) its reply goes out" settle 30
check "3b) author@ gets it once" test "$(replies_to $A 3b)" -eq 1
check "3b) marked sent" eval '[ "$(outbox 3b | cut -d" " -f1)" = sent ]'
check "3) the bot is still running" bot_alive
check "3) SIGTERM: exit 0" bot_stop

sleep 1
check "no reply was sent twice (author@ holds one per patch)" \
	test "$(for n in 1a 2a 2b 2c 3a 3b; do replies_to $A $n; done | paste -sd' ')" = "1 1 1 1 1 1"
finish
