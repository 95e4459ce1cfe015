#!/bin/sh
# The SMTP sink against a real Postfix delivering into Dovecot: STARTTLS and
# implicit TLS verified against the test CA, clear text on loopback, AUTH
# through Dovecot SASL with the password read by the secret module, a wrong
# CA, a closed port, 5xx and 4xx answers, a refused Cc dropped (the rest
# get the mail) and a refused first recipient (nobody does), and Postfix
# stopped then back.
# The C side is tests/check_smtp_sink (its postfix* cases); this script sets
# the servers up and checks what reached author@example.org.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_init
srv_start_dovecot
srv_start_postfix
CHECK_SMTP=$top_builddir/tests/check_smtp_sink
[ -x "$CHECK_SMTP" ] || { echo "$CHECK_SMTP is not built (make check builds it)"; exit 1; }
pf_conf=$SRV_DIR/postfix/conf
md=$(srv_maildir author@example.org)
WRONG_PASSWORD=Wr0ng-pa55-4-tagbot	# as in check_smtp_sink.c

# A CA that did not sign the server's certificate.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca \
	-keyout "$SRV_DIR/wrong-ca.key" -out "$SRV_DIR/wrong-ca.pem" 2>/dev/null

# Dovecot's auth service on a loopback port, for Postfix's SASL.
AUTH_PORT=$(srv_free_port)
cat >>"$SRV_DIR/dovecot/dovecot.conf" <<CONF
service auth {
  inet_listener auth-postfix {
    address = 127.0.0.1
    port = $AUTH_PORT
  }
}
CONF
kill -HUP "$DOVECOT_PID"
srv_wait_port "$AUTH_PORT" || { echo "dovecot auth listener did not start"; cat "$SRV_DIR/dovecot/dovecot.log"; exit 1; }

# Postfix: an smtps listener, AUTH, and recipients that get 5xx and 4xx.
SMTPS_PORT=$(srv_free_port)
postconf -c "$pf_conf" -M "127.0.0.1:$SMTPS_PORT/inet=127.0.0.1:$SMTPS_PORT inet n - n - - smtpd -o smtpd_tls_wrappermode=yes"
postconf -c "$pf_conf" -e \
	'smtpd_recipient_restrictions = check_recipient_access inline:{rejected.invalid=REJECT, deferred.invalid=DEFER}' \
	smtpd_sasl_auth_enable=yes smtpd_sasl_type=dovecot \
	"smtpd_sasl_path = inet:127.0.0.1:$AUTH_PORT" smtpd_tls_auth_only=yes
postfix -c "$pf_conf" reload >/dev/null 2>&1
srv_wait_port "$SMTPS_PORT" || { echo "postfix smtps listener did not start"; cat "$SRV_DIR/postfix/maillog"; exit 1; }
# A reload is asynchronous: wait until a new smtpd answers with the new rules.
python3 - "$SMTP_PORT" <<'PY' || { echo "postfix did not take the new configuration"; exit 1; }
import smtplib, sys, time
for _ in range(100):
    s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]))
    s.ehlo()
    s.mail("probe@example.org")
    code, _ = s.rcpt("x@rejected.invalid")
    s.quit()
    if code == 554:
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY

CLOSED_PORT=$(srv_free_port)
TAGBOT_SMTP_PORT=$SMTP_PORT TAGBOT_SMTPS_PORT=$SMTPS_PORT TAGBOT_SMTP_CA=$SRV_DIR/ca.pem \
TAGBOT_SMTP_WRONG_CA=$SRV_DIR/wrong-ca.pem TAGBOT_SMTP_CLOSED_PORT=$CLOSED_PORT \
TAGBOT_SMTP_PASSWORD_FILE=$SRV_DIR/password
export TAGBOT_SMTP_PORT TAGBOT_SMTPS_PORT TAGBOT_SMTP_CA TAGBOT_SMTP_WRONG_CA \
	TAGBOT_SMTP_CLOSED_PORT TAGBOT_SMTP_PASSWORD_FILE

# run_case CASE: runs one Check case of check_smtp_sink, output to $SRV_DIR/CASE.out.
run_case() {
	CK_RUN_CASE=$1 "$CHECK_SMTP" >"$SRV_DIR/$1.out" 2>&1
	rc=$?
	sed 's/^/# /' "$SRV_DIR/$1.out"
	return $rc
}

# has_mail ID: a mail with Message-ID <ID> is in author@'s new/.
has_mail() { grep -lsF "Message-ID: <$1>" "$md"/new/* >/dev/null; }

expect "smtp_send against Postfix (check_smtp_sink, case postfix)" run_case postfix
delivered="starttls localhost implicit none auth mixed"
expect "the six accepted mails reach author@" srv_wait_mail author@example.org 6
sleep 1	# anything wrongly accepted would have had time to arrive too
for id in $delivered; do
	expect "delivered: $id" has_mail "$id.smtp-sink@tagbot.test"
done
for id in wrong-ca wrong-ca-implicit no-ca closed rejected first-refused deferred auth-wrong; do
	expect "not delivered: $id" eval '! has_mail "$id.smtp-sink@tagbot.test"'
done
n=$(ls "$md/new" | wc -l)
expect "exactly six mails in author@'s INBOX (got $n)" test "$n" -eq 6
# (srv_wait_mail sets md: in a subshell)
expect "maint@, Cc'd beside two refused addresses, got the mixed one" \
	eval '(srv_wait_mail maint@example.org 1)'
expect "the dot-stuffed line arrives with one dot" \
	grep -qx '\.a line that starts with a dot' "$(grep -lF 'Message-ID: <starttls.smtp-sink@tagbot.test>' "$md"/new/*)"
expect "Postfix logged the SASL login of bot@example.org" \
	grep -q 'sasl_username=bot@example.org' "$SRV_DIR/postfix/maillog"
expect "the wrong password is in no output or log" \
	eval '! grep -rqF "$WRONG_PASSWORD" "$SRV_DIR/postfix.out" "$SRV_DIR/postfix/maillog" "$SRV_DIR/dovecot/dovecot.log"'

# Postfix down: ERR_TEMP; back on the same port: the same mail goes out.
srv_stop_postfix
expect "smtp_send with Postfix stopped is ERR_TEMP" run_case postfix-down
srv_start_postfix
expect "smtp_send once Postfix is back succeeds" run_case postfix-up
expect "the retried mail reaches author@" srv_wait_mail author@example.org 7
expect "delivered: restart" has_mail restart.smtp-sink@tagbot.test
finish
