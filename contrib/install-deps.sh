#!/bin/sh
# install-deps.sh - install what tagbot needs to build and test on Debian 12.
#
#   contrib/install-deps.sh          build dependencies and the test servers
#   contrib/install-deps.sh --build  build dependencies only
#
# Runs apt-get non-interactively; re-runs itself with sudo when not root.
set -eu

build_pkgs="build-essential autoconf automake libtool pkg-config
	libetpan-dev libpcre2-dev libcurl4-gnutls-dev libiniparser-dev
	check libsqlite3-dev libgnutls28-dev zlib1g-dev liblzma-dev libzstd-dev libpq-dev"
# At run time too: the system CA store, which TLS to IMAP and SMTP servers
# with public certificates and to https archives checks against (a minimal
# Debian has none).
run_pkgs="ca-certificates"
# Test servers and tools: real IMAP/SMTP/archive servers on loopback,
# OpenDKIM as Postfix's verifying milter and python3-dkim to sign the mails
# it verifies (maintainer commands must be authenticated), clang for the
# fuzzer, valgrind, python3 for the shell tests' JSON checks, procps for ps
# (lookup.sh stops an archive's workers by PID), gzip, xz-utils and zstd to
# make the compressed mboxes of compressed.sh, git-email and the Mail::Address
# it needs (libmailtools-perl, only recommended by git-email) for git
# send-email (cli.sh runs the sendemail-validate hook through it), and
# PostgreSQL for the state's second engine (store-pg.sh, daemon-pg.sh start
# one with initdb and pg_ctl).
test_pkgs="dovecot-imapd dovecot-lmtpd postfix public-inbox opendkim opendkim-tools postgresql
	python3-dkim clang libclang-rt-14-dev valgrind python3 openssl time git procps
	gzip xz-utils zstd git-email libmailtools-perl"

pkgs="$build_pkgs $run_pkgs"
[ "${1:-}" = "--build" ] || pkgs="$pkgs $test_pkgs"

if [ "$(id -u)" -ne 0 ]; then
	exec sudo "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
# postfix asks how it is to be set up; answer "local only" so that
# installing it never touches the network.
echo "postfix postfix/main_mailer_type select Local only" | debconf-set-selections
echo "postfix postfix/mailname string localhost" | debconf-set-selections
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $pkgs
