#!/bin/sh
# b4-check.sh - tagbot as a b4 per-patch check (b4 prep --check, b4 am --check,
# b4 shazam --check).  See contrib/README.b4.
#
# b4 pipes one patch into the command and turns every line it prints into a
# report line (a line holding "ERROR:" is a failure, any other a warning);
# no output means "passed all checks".  So tagbot runs with -q: one
# checkpatch-style line per finding and nothing else.  Extra arguments are
# passed to tagbot check (e.g. --min-severity=warning).
#
# Settings:  TAGBOT         the tagbot binary (default: tagbot on PATH)
#            TAGBOT_CONFIG  an ini file for tagbot check -c (default: built-in)

tagbot=${TAGBOT:-tagbot}
if [ -n "$TAGBOT_CONFIG" ]; then
	set -- -c "$TAGBOT_CONFIG" "$@"
fi
exec "$tagbot" check -q --format=text "$@" -
