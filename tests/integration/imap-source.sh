#!/bin/sh
# imap_source against a real Dovecot (IMAP + STARTTLS, IMAPS, IDLE) on free
# loopback ports: certificate checks, login, batched fetch, IDLE, a server
# that goes away.  The cases are in tests/check_imap_source.c.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_init
srv_start_dovecot || { not_ok "dovecot starts"; finish; exit 1; }

# A second CA that signed nothing the server has: its chain must not verify.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tagbot-wrong-ca \
	-keyout "$SRV_DIR/wrong-ca.key" -out "$SRV_DIR/wrong-ca.pem" 2>/dev/null

# Folders of the cases (imap_source itself has no CREATE).
python3 - "$IMAP_PORT" <<'PY' || { not_ok "folders created"; finish; exit 1; }
import imaplib, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
m.login("bot@example.org", "secret")
for f in ("t-fetch", "t-seen", "t-wait", "t-poll", "Sent"):
    typ, _ = m.create(f)
    assert typ == "OK", f
m.logout()
PY

export IMAP_PORT IMAPS_PORT SRV_DIR TEST_CA="$SRV_DIR/ca.pem" \
	TEST_WRONG_CA="$SRV_DIR/wrong-ca.pem" DOVECOT_CONF="$SRV_DIR/dovecot/dovecot.conf"
"$top_builddir/tests/check_imap_source"
rc=$?
[ "$rc" -eq 0 ] && ok "check_imap_source against Dovecot" || not_ok "check_imap_source against Dovecot (exit $rc)"

# With no system CA store (a machine without ca-certificates): an empty
# directory mounted over /etc/ssl/certs, where GnuTLS and curl find it on
# Debian, in a mount namespace of this test alone.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	TEST_NO_SYSTEM_STORE=1 unshare -m sh -c 'mount -t tmpfs none /etc/ssl/certs && exec "$0"' \
		"$top_builddir/tests/check_imap_source"
	rc=$?
	[ "$rc" -eq 0 ] && ok "no system CA store: the refusal names it" ||
		not_ok "no system CA store: the refusal names it (exit $rc)"
else
	echo "# skip: no system CA store case (needs root and unshare -m)"
fi

# The suite restarts Dovecot: stop the new master, not the old PID.
pid=$(cat "$SRV_DIR/dovecot/run/master.pid" 2>/dev/null) &&
	kill -0 "$pid" 2>/dev/null && DOVECOT_PID=$pid
finish
