# servers.sh - real mail servers for integration tests, sourced by them.
#
# Starts Dovecot (IMAP with IDLE, IMAPS, LMTP) and Postfix (SMTP with
# STARTTLS, delivering into Dovecot over LMTP) on free loopback ports in a
# temporary directory, and stops them by PID on exit.  Nothing outside the
# directory is touched; the servers listen on 127.0.0.1 only.
#
#   . "$top_srcdir/tests/integration/servers.sh"
#   srv_init                    # makes $SRV_DIR, a CA-signed cert, users
#   srv_start_dovecot           # sets IMAP_PORT IMAPS_PORT LMTP_PORT
#   srv_start_opendkim          # optional, before Postfix: sets OPENDKIM_PORT
#   srv_start_postfix           # sets SMTP_PORT (needs Dovecot first)
#   srv_stop_dovecot / srv_stop_postfix / srv_stop_opendkim
#
# public-inbox as an NNTP server, after srv_init or srv_init_tls (only a CA
# and a certificate, no Dovecot):
#   srv_pi_inbox NAME GROUP ADDRESS   a V2 inbox serving GROUP, taking mail to ADDRESS
#   srv_pi_deliver ADDRESS FILE...    FILEs into the inbox of ADDRESS (public-inbox-mda)
#   srv_start_nntpd                   public-inbox-nntpd: NNTP_PORT (plain, STARTTLS
#                                     offered) and NNTPS_PORT (TLS), cert.pem; keeps
#                                     the ports when started again
#   srv_reload_nntpd / srv_stop_nntpd SIGHUP (it reads its inboxes again) / stop
# PostgreSQL, for the state (no mail server needed):
#   srv_need_postgres           SKIP (77) when initdb and pg_ctl are missing
#   srv_init_dir                makes $SRV_DIR only (srv_init does it too)
#   srv_start_postgres          a cluster in $SRV_DIR/pg, its own socket
#                               directory, on 127.0.0.1 only; sets PG_PORT,
#                               PG_URL (postgresql://tagbot@127.0.0.1:PORT/
#                               tagbot, no password in it), PG_PASSWORD_FILE
#                               (mode 0600) and PG_RESET (a command that
#                               empties the tagbot database)
#   srv_stop_postgres
#   srv_setup_postgres          all of it for a test of tagbot's PostgreSQL
#                               state: also SKIP when tagbot was built
#                               without it; $SRV_DIR and the server, or exit
#
# Options for Postfix, before srv_start_postfix:
#   SRV_REJECT_RCPT="a@x b@y"   RCPT TO these gets "550 5.1.1 unknown user"
#   SRV_SASL=1                  AUTH (after STARTTLS) through Dovecot's auth
#                               service, for the users below
# and after it:
#   srv_postfix_listener PORT [-o KEY=VALUE...]   one more smtpd on PORT,
#                               e.g. -o smtpd_tls_security_level=none (no
#                               STARTTLS offered); waits until it answers
#   srv_other_cert NAME         $SRV_DIR/NAME.pem and NAME.key: a localhost
#                               certificate from a CA ca.pem does not know
#
# Users (password "secret"): bot@example.org, author@example.org,
# list@example.org, maint@example.org.  Their Maildirs are
# $SRV_DIR/mail/<user>/Maildir.  $SRV_DIR/ca.pem verifies the certificate.
#
# With srv_start_opendkim, Postfix's SMTP server runs every mail through
# OpenDKIM as a verifying milter, as a receiving MX does: it puts
# "Authentication-Results: $SRV_AUTHSERV_ID; dkim=..." on top.  The public
# key of selector "test" of example.org is read from a file (TestPublicKeys:
# no DNS); its private key, $SRV_DKIM_KEY, signs with
# "$SRV_DKIM_PYTHON e2e-mail.py dkim-sign FILE" (python3-dkim).

SRV_USERS="bot@example.org author@example.org list@example.org maint@example.org"

# TAGBOT_NO_SERVERS=1 skips every test that needs a server (.ci/run sets it
# for make distcheck: the tarball's build is checked, the servers once).
srv_need() {
	[ -z "${TAGBOT_NO_SERVERS:-}" ] ||
		{ echo "SKIP: TAGBOT_NO_SERVERS is set"; exit 77; }
	for b in "$@"; do
		command -v "$b" >/dev/null 2>&1 ||
			{ echo "SKIP: $b is not installed (contrib/install-deps.sh)"; exit 77; }
	done
}

# Prints a TCP port nobody listens on, on 127.0.0.1.
# A free loopback port, never one this test was given before: two calls in
# a row may get the same port from the kernel (dovecot then refuses a
# "duplicate listener"), so the ports handed out are kept in a file that
# the $(...) subshells share (in $SRV_DIR once srv_init made it).
srv_free_port() {
	python3 - "${SRV_DIR:-${TMPDIR:-/tmp}}/.ports-$$" <<'PY'
import socket, sys
path = sys.argv[1]
try:
    taken = set(open(path).read().split())
except OSError:
    taken = set()
for _ in range(100):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = str(s.getsockname()[1])
    s.close()
    if port not in taken:
        break
with open(path, "a") as f:
    f.write(port + "\n")
print(port)
PY
}

srv_wait_port() {
	python3 - "$1" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
}

srv_init_dir() {
	SRV_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-srv.XXXXXX")
	chmod 755 "$SRV_DIR"
	trap 'srv_cleanup' EXIT
}

# srv_init_tls: srv_init_dir, a throw-away CA (ca.pem) and a certificate for
# localhost and 127.0.0.1 signed by it (cert.pem, key.pem), and
# $SRV_DIR/password; for a test that needs no Dovecot (nntp-source.sh).
srv_init_tls() {
	srv_need openssl python3
	srv_init_dir
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tagbot-test-ca \
		-keyout "$SRV_DIR/ca.key" -out "$SRV_DIR/ca.pem" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
		-keyout "$SRV_DIR/key.pem" -out "$SRV_DIR/req.pem" 2>/dev/null
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$SRV_DIR/san.ext"
	openssl x509 -req -in "$SRV_DIR/req.pem" -CA "$SRV_DIR/ca.pem" -CAkey "$SRV_DIR/ca.key" \
		-CAcreateserial -days 2 -extfile "$SRV_DIR/san.ext" -out "$SRV_DIR/cert.pem" 2>/dev/null
	chmod 644 "$SRV_DIR/key.pem"
	printf 'secret\n' >"$SRV_DIR/password"
	chmod 600 "$SRV_DIR/password"
}

srv_init() {
	srv_need dovecot
	srv_init_tls
	mkdir -p "$SRV_DIR/mail" "$SRV_DIR/dovecot"
	: >"$SRV_DIR/passwd"
	for u in $SRV_USERS; do
		echo "$u:{PLAIN}secret::::::" >>"$SRV_DIR/passwd"
	done
	if [ "$(id -u)" -eq 0 ]; then
		SRV_MAIL_USER=nobody SRV_MAIL_GROUP=nogroup
		chown nobody:nogroup "$SRV_DIR/mail"
	else
		SRV_MAIL_USER=$(id -un) SRV_MAIL_GROUP=$(id -gn)
	fi
}

srv_cleanup() {
	srv_stop_nntpd
	srv_stop_postgres
	srv_stop_postfix
	srv_stop_opendkim
	srv_stop_dovecot
	[ -n "${SRV_KEEP:-}" ] || rm -rf "$SRV_DIR"
}

srv_start_dovecot() {
	d=$SRV_DIR/dovecot
	IMAP_PORT=${IMAP_PORT:-$(srv_free_port)}
	IMAPS_PORT=${IMAPS_PORT:-$(srv_free_port)}
	LMTP_PORT=${LMTP_PORT:-$(srv_free_port)}
	internal=""
	[ "$(id -u)" -eq 0 ] || internal="default_internal_user = $SRV_MAIL_USER
default_login_user = $SRV_MAIL_USER"
	cat >"$d/dovecot.conf" <<CONF
base_dir = $d/run
state_dir = $d/state
log_path = $d/dovecot.log
$internal
protocols = imap lmtp
listen = 127.0.0.1
ssl = yes
ssl_cert = <$SRV_DIR/cert.pem
ssl_key = <$SRV_DIR/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
passdb {
  driver = passwd-file
  args = scheme=PLAIN $SRV_DIR/passwd
}
userdb {
  driver = static
  args = uid=$SRV_MAIL_USER gid=$SRV_MAIL_GROUP home=$SRV_DIR/mail/%u mail=maildir:$SRV_DIR/mail/%u/Maildir
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $IMAPS_PORT
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $LMTP_PORT
  }
}
service anvil {
  chroot =
}
mail_privileged_group =
first_valid_uid = 1
CONF
	dovecot -c "$d/dovecot.conf" || { cat "$d/dovecot.log"; return 1; }
	srv_wait_port "$IMAP_PORT" || { echo "dovecot did not start"; cat "$d/dovecot.log"; return 1; }
	DOVECOT_PID=$(cat "$d/run/master.pid")
}

srv_stop_dovecot() {
	[ -n "${DOVECOT_PID:-}" ] || return 0
	kill "$DOVECOT_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$DOVECOT_PID" 2>/dev/null || break; sleep 0.1; done
	DOVECOT_PID=
}

SRV_AUTHSERV_ID=mx.example.net

srv_start_opendkim() {
	srv_need opendkim opendkim-genkey
	k=$SRV_DIR/opendkim
	OPENDKIM_PORT=$(srv_free_port)
	SRV_DKIM_PYTHON=
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import dkim' 2>/dev/null && { SRV_DKIM_PYTHON=$py; break; }
	done
	[ -n "$SRV_DKIM_PYTHON" ] ||
		{ echo "SKIP: python3-dkim is not installed (contrib/install-deps.sh)"; exit 77; }
	mkdir -p "$k"
	opendkim-genkey -D "$k" -d example.org -s test -b 2048 || return 1
	SRV_DKIM_KEY=$k/test.private
	# The zone line, folded in quoted strings, as one TXT value.
	printf 'test._domainkey.example.org %s\n' \
		"$(tr -d '\n' <"$k/test.txt" | sed 's/^[^(]*([[:space:]]*//; s/).*//; s/"[[:space:]]*"//g; s/"//g')" \
		>"$k/keys"
	user=""
	[ "$(id -u)" -ne 0 ] || { user="UserID opendkim"; chown -R opendkim "$k"; }
	# Verify only (InternalHosts is no loopback: loopback mail is not ours
	# to sign); a header on every mail, also unsigned ones, so that what a
	# sender wrote is never on top.
	cat >"$k/opendkim.conf" <<CONF
Mode v
Socket inet:$OPENDKIM_PORT@[127.0.0.1]
PidFile $k/opendkim.pid
$user
Syslog no
AuthservID $SRV_AUTHSERV_ID
AlwaysAddARHeader yes
InternalHosts 192.0.2.1
TestPublicKeys $k/keys
On-Default accept
CONF
	opendkim -x "$k/opendkim.conf" -f >"$k/opendkim.log" 2>&1 &
	OPENDKIM_PID=$!
	srv_wait_port "$OPENDKIM_PORT" ||
		{ echo "opendkim did not start"; cat "$k/opendkim.log"; return 1; }
	export SRV_DKIM_KEY SRV_DKIM_PYTHON
}

srv_stop_opendkim() {
	[ -n "${OPENDKIM_PID:-}" ] || return 0
	kill "$OPENDKIM_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$OPENDKIM_PID" 2>/dev/null || break; sleep 0.1; done
	OPENDKIM_PID=
}

srv_start_postfix() {
	srv_need postfix
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: Postfix needs root to start"; exit 77; }
	p=$SRV_DIR/postfix
	SMTP_PORT=${SMTP_PORT:-$(srv_free_port)}
	mkdir -p "$p/conf" "$p/queue" "$p/data"
	chown postfix "$p/data"
	cp /etc/postfix/dynamicmaps.cf "$p/conf/" 2>/dev/null || :
	sed "s/^smtp  *inet .*/127.0.0.1:$SMTP_PORT inet n - n - - smtpd/" \
		/etc/postfix/master.cf >"$p/conf/master.cf"
	cat >"$p/conf/main.cf" <<CONF
compatibility_level = 3.6
queue_directory = $p/queue
data_directory = $p/data
mail_owner = postfix
myhostname = localhost
mydomain = localdomain
mydestination = example.org, example.com, localhost
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
local_recipient_maps =
alias_maps =
alias_database =
local_transport = lmtp:inet:127.0.0.1:$LMTP_PORT
virtual_transport = lmtp:inet:127.0.0.1:$LMTP_PORT
disable_dns_lookups = yes
smtp_host_lookup = native
lmtp_host_lookup = native
maillog_file_prefixes = $SRV_DIR
maillog_file = $p/maillog
recipient_delimiter = +
smtpd_tls_cert_file = $SRV_DIR/cert.pem
smtpd_tls_key_file = $SRV_DIR/key.pem
smtpd_tls_security_level = may
smtpd_sasl_auth_enable = no
CONF
	[ -z "${SRV_REJECT_RCPT:-}" ] || {
		m=$(for a in $SRV_REJECT_RCPT; do printf '{%s = 550 5.1.1 unknown user}, ' "$a"; done)
		printf 'smtpd_recipient_restrictions = check_recipient_access inline:{ %s}\n' \
			"${m%, }" >>"$p/conf/main.cf"
	}
	[ -z "${SRV_SASL:-}" ] || srv_sasl_conf "$p/conf/main.cf" || return 1
	# A border MX removes the Authentication-Results a mail brings (RFC 8601
	# section 5): OpenDKIM does for its own authserv-id, but not when the
	# mail has a malformed DKIM-Signature (then it adds none either, and the
	# sender's "pass" would be the topmost).  header_checks see only what
	# came in, not what the milter adds.
	[ -z "${OPENDKIM_PORT:-}" ] || {
		printf '/^Authentication-Results:/ IGNORE\n' >"$p/conf/header_checks"
		cat >>"$p/conf/main.cf" <<CONF
smtpd_milters = inet:127.0.0.1:$OPENDKIM_PORT
milter_default_action = tempfail
header_checks = regexp:$p/conf/header_checks
CONF
	}
	postfix -c "$p/conf" start >/dev/null 2>&1 || { cat "$p/maillog" 2>/dev/null; return 1; }
	srv_wait_port "$SMTP_PORT" || { echo "postfix did not start"; cat "$p/maillog"; return 1; }
	POSTFIX_PID=$(cat "$p/data/master.pid" 2>/dev/null || cat "$p/queue/pid/master.pid")
	POSTFIX_PID=$(echo $POSTFIX_PID)
}

# Dovecot's auth service on a loopback port (Dovecot reloaded), and the
# Postfix lines that use it, appended to the main.cf $1.
srv_sasl_conf() {
	[ -n "${AUTH_PORT:-}" ] || {
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
		srv_wait_port "$AUTH_PORT" ||
			{ echo "dovecot auth listener did not start"; cat "$SRV_DIR/dovecot/dovecot.log"; return 1; }
	}
	cat >>"$1" <<CONF
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:$AUTH_PORT
smtpd_tls_auth_only = yes
CONF
}

srv_postfix_listener() {
	port=$1; shift
	postconf -c "$SRV_DIR/postfix/conf" -M "127.0.0.1:$port/inet=127.0.0.1:$port inet n - n - - smtpd $*"
	postfix -c "$SRV_DIR/postfix/conf" reload >/dev/null 2>&1
	srv_wait_port "$port" || { echo "postfix listener $port did not start"; return 1; }
}

srv_other_cert() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
		-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
		-keyout "$SRV_DIR/$1.key" -out "$SRV_DIR/$1.pem" 2>/dev/null &&
		chmod 644 "$SRV_DIR/$1.key"
}

srv_stop_postfix() {
	[ -n "${POSTFIX_PID:-}" ] || return 0
	postfix -c "$SRV_DIR/postfix/conf" stop >/dev/null 2>&1 || kill "$POSTFIX_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$POSTFIX_PID" 2>/dev/null || break; sleep 0.1; done
	POSTFIX_PID=
}

# srv_maildir USER: the Maildir of USER.
srv_maildir() { echo "$SRV_DIR/mail/$1/Maildir"; }

# srv_wait_mail USER COUNT [SECONDS]: waits until USER's INBOX holds COUNT mails.
srv_wait_mail() {
	md=$(srv_maildir "$1")
	for _ in $(seq $((${3:-20} * 10))); do
		n=$(ls "$md/new" "$md/cur" 2>/dev/null | grep -vc ':$\|^$')
		[ "$n" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- public-inbox ----------------------------------------------------------

srv_pi_inbox() {
	srv_need public-inbox-init public-inbox-mda public-inbox-nntpd git
	PI_CONFIG=$SRV_DIR/pi/config
	export PI_CONFIG
	mkdir -p "$SRV_DIR/pi"
	public-inbox-init -V2 --ng "$2" "$1" "$SRV_DIR/pi/$1" "http://127.0.0.1/$1" "$3" \
		>>"$SRV_DIR/pi/init.log" 2>&1 || { cat "$SRV_DIR/pi/init.log"; return 1; }
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
}

srv_pi_deliver() {
	a=$1
	shift
	for f in "$@"; do
		ORIGINAL_RECIPIENT=$a public-inbox-mda <"$f" >>"$SRV_DIR/pi/mda.log" 2>&1 ||
			{ cat "$SRV_DIR/pi/mda.log"; echo "public-inbox-mda refused $f"; return 1; }
	done
}

srv_start_nntpd() {
	NNTP_PORT=${NNTP_PORT:-$(srv_free_port)}
	NNTPS_PORT=${NNTPS_PORT:-$(srv_free_port)}
	public-inbox-nntpd --cert "$SRV_DIR/cert.pem" --key "$SRV_DIR/key.pem" \
		-l "nntp://127.0.0.1:$NNTP_PORT" -l "nntps://127.0.0.1:$NNTPS_PORT" \
		>>"$SRV_DIR/pi/nntpd.log" 2>&1 &
	NNTPD_PID=$!
	srv_wait_port "$NNTP_PORT" && srv_wait_port "$NNTPS_PORT" ||
		{ cat "$SRV_DIR/pi/nntpd.log"; echo "public-inbox-nntpd did not start"; return 1; }
}

srv_reload_nntpd() {
	kill -HUP "$NNTPD_PID"
}

srv_stop_nntpd() {
	[ -n "${NNTPD_PID:-}" ] || return 0
	kill "$NNTPD_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$NNTPD_PID" 2>/dev/null || break; sleep 0.1; done
	NNTPD_PID=
}

# --- PostgreSQL ---------------------------------------------------------------

# The directory holding initdb and pg_ctl (Debian keeps them out of PATH,
# per major version), or nothing.
srv_pg_bindir() {
	for d in "$(pg_config --bindir 2>/dev/null)" /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/psql" ] && { echo "$d"; return 0; }
	done
	return 1
}

srv_need_postgres() {
	srv_need python3
	SRV_PG_BIN=$(srv_pg_bindir) ||
		{ echo "SKIP: PostgreSQL's initdb and pg_ctl are not installed (postgresql; contrib/install-deps.sh)"; exit 77; }
	if [ "$(id -u)" -eq 0 ]; then
		# initdb refuses root: the cluster is the package's user's.
		id postgres >/dev/null 2>&1 ||
			{ echo "SKIP: running as root and there is no postgres user to run PostgreSQL as"; exit 77; }
		SRV_PG_USER=postgres
	else
		SRV_PG_USER=$(id -un)
	fi
}

# Runs a command as the cluster's owner.
srv_pg_as() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u "$SRV_PG_USER" -- "$@"; else "$@"; fi
}

srv_start_postgres() {
	[ -n "${SRV_PG_BIN:-}" ] || srv_need_postgres
	d=$SRV_DIR/pg
	PG_PORT=${PG_PORT:-$(srv_free_port)}
	mkdir -p "$d"
	printf 'tagbot-pg-%s\n' "$$" >"$SRV_DIR/pg-password"
	chmod 600 "$SRV_DIR/pg-password"
	PG_PASSWORD_FILE=$SRV_DIR/pg-password
	# The superuser's password never leaves the directory: it reaches
	# initdb by file, psql by PGPASSFILE.
	printf 'super-%s\n' "$$" >"$d/super"
	chmod 600 "$d/super"
	[ "$(id -u)" -ne 0 ] || chown -R "$SRV_PG_USER" "$d"
	srv_pg_as "$SRV_PG_BIN/initdb" -D "$d/data" -U postgres --pwfile="$d/super" \
		--auth=scram-sha-256 -E UTF8 --locale=C >"$d/initdb.log" 2>&1 ||
		{ echo "initdb failed:"; cat "$d/initdb.log"; return 1; }
	srv_pg_as "$SRV_PG_BIN/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $d -c fsync=on" start >/dev/null ||
		{ echo "PostgreSQL did not start:"; cat "$d/server.log"; return 1; }
	SRV_PG_STARTED=1
	printf '127.0.0.1:%s:*:postgres:super-%s\n' "$PG_PORT" "$$" >"$d/pgpass"
	chmod 600 "$d/pgpass"
	[ "$(id -u)" -ne 0 ] || chown "$SRV_PG_USER" "$d/pgpass"
	pw=$(cat "$PG_PASSWORD_FILE")
	srv_psql postgres -c "CREATE ROLE tagbot LOGIN PASSWORD '$pw'" >/dev/null &&
	srv_psql postgres -c "CREATE DATABASE tagbot OWNER tagbot ENCODING 'SQL_ASCII' TEMPLATE template0" >/dev/null ||
		{ echo "PostgreSQL: cannot create the tagbot role and database"; return 1; }
	PG_URL="postgresql://tagbot@127.0.0.1:$PG_PORT/tagbot"
	cat >"$d/reset" <<SH
#!/bin/sh
# Empties the tagbot database: its schema public dropped and made again.
PGPASSFILE='$d/pgpass' exec '$SRV_PG_BIN/psql' -h 127.0.0.1 -p '$PG_PORT' -U postgres -d tagbot -qAt \\
	-v ON_ERROR_STOP=1 -c 'DROP SCHEMA public CASCADE' -c 'CREATE SCHEMA public AUTHORIZATION tagbot' \\
	>/dev/null 2>&1
SH
	chmod 755 "$d/reset"
	PG_RESET=$d/reset
}

srv_setup_postgres() {
	srv_need_postgres
	grep -q '^#define HAVE_LIBPQ 1' "$top_builddir/autoconf.h" ||
		{ echo "SKIP: tagbot was built without PostgreSQL (configure --with-postgresql)"; exit 77; }
	srv_init_dir
	srv_start_postgres || exit 1
}

# psql as the superuser over TCP: srv_psql DB ARGS...
srv_psql() {
	db=$1
	shift
	PGPASSFILE=$SRV_DIR/pg/pgpass "$SRV_PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres \
		-d "$db" -qAtX -v ON_ERROR_STOP=1 "$@"
}

srv_stop_postgres() {
	[ -n "${SRV_PG_STARTED:-}" ] || return 0
	srv_pg_as "$SRV_PG_BIN/pg_ctl" -D "$SRV_DIR/pg/data" -m fast -w stop >/dev/null 2>&1
	SRV_PG_STARTED=
}
