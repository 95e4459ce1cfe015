#!/bin/bash
# install.sh - `make install` into a scratch DESTDIR puts what an admin
# needs where systemd and the docs look: the unit, the sysusers.d entry for
# the user it runs as (checked with systemd-sysusers --root, which makes
# that user in the scratch tree), the ini file, the manual pages, and the
# git hooks and b4 setting as examples.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

command -v "${MAKE:-make}" >/dev/null || { echo "install.sh: make not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-install.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
if ! "${MAKE:-make}" -s -C "$top_builddir" install DESTDIR="$dest" >"$tmp/log" 2>&1; then
	not_ok "make install DESTDIR=..."
	sed 's/^/#   /' "$tmp/log" | tail -20
	finish
	exit
fi
ok "make install DESTDIR=..."
found() {	# DESC NAME-PATTERN PATH-PATTERN: one file so named under DESTDIR
	f=$(find "$dest" -path "$3" -name "$2" | head -1)
	if [ -n "$f" ]; then ok "$1"; else not_ok "$1: no $3"; fi
}
found "the binary" tagbot "*/bin/tagbot"
found "the systemd unit" tagbot.service "*/lib/systemd/system/tagbot.service"
found "the sysusers.d entry" tagbot.conf "*/lib/sysusers.d/tagbot.conf"
found "the ini file" tagbot.ini "*/etc/tagbot.ini"
found "tagbot(1)" tagbot.1 "*/man/man1/tagbot.1"
found "tagbot.ini(5)" tagbot.ini.5 "*/man/man5/tagbot.ini.5"
found "tagbot-rules(7)" tagbot-rules.7 "*/man/man7/tagbot-rules.7"
found "the commit-msg hook, as an example" git-commit-msg-hook "*/doc/tagbot/examples/*"
found "the sendemail-validate hook, as an example" git-sendemail-validate-hook "*/doc/tagbot/examples/*"
found "README.b4, as an example" README.b4 "*/doc/tagbot/examples/*"
hook=$(find "$dest" -path "*/doc/tagbot/examples/git-sendemail-validate-hook")
expect "... the hooks are executable" test -x "$hook"
unit=$(find "$dest" -path "*/lib/systemd/system/tagbot.service")
user=$(sed -n 's/^User=//p' "$unit")
expect "the unit runs as a user of its own (User=tagbot)" test "$user" = tagbot
conf=$(find "$dest" -path "*/lib/sysusers.d/tagbot.conf")
if command -v systemd-sysusers >/dev/null; then
	mkdir -p "$tmp/sys/etc"
	if systemd-sysusers --root="$tmp/sys" "$conf" >"$tmp/log" 2>&1 &&
		grep -q "^$user:" "$tmp/sys/etc/passwd"; then
		ok "systemd-sysusers makes the unit's user from the entry"
	else
		not_ok "systemd-sysusers makes the unit's user from the entry"
		sed 's/^/#   /' "$tmp/log" | head -5
	fi
else
	echo "# systemd-sysusers not found: the entry is not tried"
fi
finish
