#!/bin/sh
# The store on PostgreSQL: a real PostgreSQL (initdb and pg_ctl, as the
# postgres user when run as root) on a free loopback port in a temporary
# directory, and the suites that use the scratch store run against it:
# check_store's engine-independent cases (the same code as on SQLite: one
# reply per parent, the atomic reply under an injected failure and under
# SIGKILL, nested transactions, the outbox's states...), check_series
# and check_context.  The password reaches the store from a 0600 file.  Then what
# only PostgreSQL has: two connections claiming one due reply get it once,
# a message two record at once is decided once, a wrong password is
# refused without showing it (check_store's postgresql cases); the schema
# is SQLite's translated, versioned, and migrated in place from 4.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_setup_postgres
tmp=$SRV_DIR/tmp
mkdir -p "$tmp"
cond() { eval "$1"; }

export TAGBOT_TEST_PG_URL="$PG_URL" TAGBOT_TEST_PG_PASSWORD_FILE="$PG_PASSWORD_FILE" \
	TAGBOT_TEST_PG_RESET="$PG_RESET"
cd "$tmp" || exit 1
for suite in check_store check_series check_context; do
	capture "$top_builddir/tests/$suite"
	status_is "$suite on PostgreSQL passes" 0
	[ "$status" -eq 0 ] || grep -v ':P:' "$tmp/out" | head -20
	grep '^[0-9]*%: Checks' "$tmp/out" | sed "s/^/# $suite: /"
done

# tagbot status opens (and builds) the state as the daemon does.
cat >"$tmp/st.ini" <<INI
[tagbot]
state = $PG_URL
state_password_file = $PG_PASSWORD_FILE
INI
col_type() {
	srv_psql tagbot -c "SELECT data_type FROM information_schema.columns WHERE table_name = '$1' AND column_name = '$2'"
}
"$PG_RESET"
capture "$TAGBOT" status -c "$tmp/st.ini"
status_is "tagbot status builds a fresh PostgreSQL state" 0
v=$(srv_psql tagbot -c 'SELECT version FROM tagbot_schema')
expect "the schema version is recorded ($v)" test "$v" = 10
expect "SQLite's types are translated: a raw reply is bytea, a time bigint" \
	test "$(col_type outbox raw) $(col_type messages time)" = "bytea bigint"

# Migrated in place: a schema 4 database (told without about, no unread,
# no context_ref) with a told row and a context row is taken to 9 (about
# added, then renamed what; rate_events indexed by key; unread made; the
# context row's References one a row in context_ref, and context given the
# rowid that orders ties), the rows kept; a newer one is refused.
srv_psql tagbot -c "SET ROLE tagbot" -c "DROP TABLE unread" -c "DROP TABLE told" -c "CREATE TABLE told (person TEXT NOT NULL, rule TEXT NOT NULL, t BIGINT NOT NULL, PRIMARY KEY (person, rule))" \
	-c "INSERT INTO told VALUES ('ann@x.org', 'MISSING_SIGN_OFF', 77)" -c "DROP INDEX rate_events_key" \
	-c "DROP TABLE claims" -c "DROP TABLE context_ref" -c "ALTER TABLE context DROP COLUMN rowid" \
	-c "DROP INDEX context_unthreaded" -c "ALTER TABLE series_member DROP COLUMN irt" \
	-c "CREATE INDEX context_series ON context (sender, version, total, time)" \
	-c "CREATE INDEX context_change ON context (change_id)" -c "CREATE INDEX context_work ON context (sender, subject)" \
	-c "INSERT INTO context (msgid, subject, sender, kind, version, idx, total, refs, time) VALUES ('b@x.org', 's', 'ann@x.org', 'patch', 1, 2, 2, 'a@x.org  c@x.org', 5)" \
	-c "UPDATE tagbot_schema SET version = 4"
capture "$TAGBOT" status -c "$tmp/st.ini"
status_is "a schema 4 state opens" 0
expect "... migrated to 9 with its row kept (what ''), unread made" \
	test "$(srv_psql tagbot -c "SELECT version FROM tagbot_schema") $(srv_psql tagbot -c "SELECT person || '/' || what || '/' || t FROM told") $(srv_psql tagbot -c "SELECT count(*) FROM unread")" = "10 ann@x.org//77 0"
expect "... the context row's References one a row, and its rowid set" \
	test "$(srv_psql tagbot -c "SELECT string_agg(msgid || '>' || ref, ' ' ORDER BY ref) FROM context_ref") $(srv_psql tagbot -c "SELECT count(*) FROM context WHERE rowid IS NOT NULL")" = "b@x.org>a@x.org b@x.org>c@x.org 1"
expect "... and rate_events indexed by key" \
	test "$(srv_psql tagbot -c "SELECT count(*) FROM pg_indexes WHERE indexname = 'rate_events_key'")" = 1
srv_psql tagbot -c "UPDATE tagbot_schema SET version = 99"
capture "$TAGBOT" status -c "$tmp/st.ini"
expect "a newer schema is refused, naming the state" \
	cond '[ "$status" -ne 0 ] && grep -q "schema version 99 is newer" "$tmp/err"'

# A UTF8 database would refuse mail text that is not UTF-8 message by
# message: it is refused at open, saying how to create one.
srv_psql postgres -c "CREATE DATABASE tagbot_utf8 OWNER tagbot ENCODING 'UTF8' TEMPLATE template0"
sed "s|^state = .*|state = ${PG_URL}_utf8|" "$tmp/st.ini" >"$tmp/utf8.ini"
capture "$TAGBOT" status -c "$tmp/utf8.ini"
expect "a UTF8 database is refused, saying to create it with SQL_ASCII" \
	cond '[ "$status" -ne 0 ] && grep -q "encoding is UTF8, not SQL_ASCII" "$tmp/err"'

finish
