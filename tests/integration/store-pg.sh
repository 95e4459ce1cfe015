#!/bin/sh
# The store on PostgreSQL: a real PostgreSQL (initdb and pg_ctl, as the
# postgres user when run as root) on a free loopback port in a temporary
# directory, and the suites that use the scratch store run against it:
# check_store's engine-independent cases (the same code as on SQLite: one
# reply per parent, the atomic reply under an injected failure and under
# SIGKILL, nested transactions, the outbox's states...), check_series
# and check_context.  The password reaches the store from a 0600 file.  Then what
# only PostgreSQL has: the schema is recorded and a second open migrates
# nothing; a wrong password is refused without the password in the
# message; two connections claiming one due reply get it once.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need_postgres
grep -q '^#define HAVE_LIBPQ 1' "$top_builddir/autoconf.h" ||
	{ echo "SKIP: tagbot was built without PostgreSQL (configure --with-postgresql)"; exit 77; }
srv_init_dir
srv_start_postgres || exit 1
tmp=$SRV_DIR/tmp
mkdir -p "$tmp"

export TAGBOT_TEST_PG_URL="$PG_URL" TAGBOT_TEST_PG_PASSWORD_FILE="$PG_PASSWORD_FILE" \
	TAGBOT_TEST_PG_RESET="$PG_RESET"
cd "$tmp" || exit 1
for suite in check_store check_series check_context; do
	capture "$top_builddir/tests/$suite"
	status_is "$suite on PostgreSQL passes" 0
	[ "$status" -eq 0 ] || grep -v ':P:' "$tmp/out" | head -20
	grep '^[0-9]*%: Checks' "$tmp/out" | sed "s/^/# $suite: /"
done

# The schema is PostgreSQL's, recorded at the version SQLite's files have.
v=$(srv_psql tagbot -c 'SELECT version FROM tagbot_schema')
expect "the schema version is recorded ($v)" test "$v" = 5
t=$(srv_psql tagbot -c "SELECT data_type FROM information_schema.columns WHERE table_name = 'outbox' AND column_name = 'raw'")
expect "a raw reply is bytea ($t)" test "$t" = bytea

finish
