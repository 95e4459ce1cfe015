#!/bin/sh
# The test servers themselves work: a mail submitted to Postfix over STARTTLS
# (verified against the test CA) reaches the author's INBOX over IMAPS.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_init
srv_start_dovecot
srv_start_postfix
python3 - "$SMTP_PORT" "$IMAPS_PORT" "$SRV_DIR/ca.pem" <<'PY' && ok "SMTP -> LMTP -> IMAPS round trip" || not_ok "SMTP -> LMTP -> IMAPS round trip"
import imaplib, smtplib, ssl, sys, time
smtp, imaps, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
s = smtplib.SMTP("127.0.0.1", smtp)
s.starttls(context=ctx)
s.sendmail("bot@example.org", ["author@example.org"],
           "From: bot@example.org\r\nTo: author@example.org\r\nSubject: t\r\n"
           "Message-ID: <roundtrip@example.org>\r\n\r\nhello\r\n")
s.quit()
for _ in range(100):
    m = imaplib.IMAP4_SSL("127.0.0.1", imaps, ssl_context=ctx)
    m.login("author@example.org", "secret")
    typ, data = m.select("INBOX")
    n = int(data[0])
    m.logout()
    if n == 1:
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
finish
