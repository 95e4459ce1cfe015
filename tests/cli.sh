#!/bin/sh
# cli.sh - `tagbot check` from the outside: exit statuses, text and JSON
# output, --min-severity, --commit-msg, standard input, mbox line numbers,
# unreadable inputs, and the contrib git hook and b4 wrapper.
. "${top_srcdir:?run me through make check}/tests/lib.sh"

data=$TAGBOT_TEST_DATA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tagbot-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# has DESC out|err FIXED-STRING / lacks DESC out|err FIXED-STRING
has() { if grep -qF -- "$3" "$tmp/$2"; then ok "$1"; else not_ok "$1: no '$3' in std$2"; fi; }
lacks() { if grep -qF -- "$3" "$tmp/$2"; then not_ok "$1: '$3' in std$2"; else ok "$1"; fi; }
# lines_are DESC N: stdout has N lines
lines_are() {
	n=$(wc -l <"$tmp/out" | tr -d ' ')
	if [ "$n" -eq "$2" ]; then ok "$1"; else not_ok "$1 ($n lines, want $2)"; fi
}

json_parses() {
	python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <"$tmp/out"
}

# Every object has exactly the documented fields (a patch part or an error).
json_fields_exact() {
	python3 - "$tmp/out" <<'EOF'
import json, sys
PATCH = {"file", "mail", "message_id", "subject", "kind", "author", "series",
         "title", "message", "trailers", "findings"}
AUTHOR = {"name", "email"}
SERIES = {"version", "index", "total", "rfc", "resend"}
FINDING = {"rule", "severity", "line", "file_line", "text", "message", "doc"}
ERROR = {"file", "mail", "message_id", "error"}
LINE = {"line", "text"}
TRAILER = {"token", "value", "line"}
KINDS = {"patch", "cover", "reply", "pull", "other"}
SEVS = {"error", "warning", "check"}
def check(o):
    if "error" in o:
        assert set(o) in (ERROR, ERROR - {"mail"}), sorted(o)
        assert isinstance(o["file"], str) and isinstance(o["error"], str)
        assert o["message_id"] is None or isinstance(o["message_id"], str)
        return
    assert set(o) == PATCH, sorted(o)
    assert set(o["author"]) == AUTHOR and set(o["series"]) == SERIES
    assert o["kind"] in KINDS
    assert type(o["mail"]) is int and o["mail"] >= 1 and isinstance(o["title"], str)
    m = o["message"]
    assert m is None or (set(m) == {"first", "last"} and
                         all(set(m[k]) == LINE and type(m[k]["line"]) is int for k in m))
    for t in o["trailers"]:
        assert set(t) == TRAILER and type(t["line"]) is int, t
    assert all(isinstance(o[k], str) for k in ("file", "subject"))
    assert o["message_id"] is None or (o["message_id"] and not o["message_id"].startswith("<"))
    s = o["series"]
    assert all(type(s[k]) is int for k in ("version", "index", "total"))
    assert all(type(s[k]) is bool for k in ("rfc", "resend"))
    for f in o["findings"]:
        assert set(f) == FINDING, sorted(f)
        assert f["severity"] in SEVS and type(f["line"]) is int
        assert f["file_line"] is None or type(f["file_line"]) is int
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    check(json.loads(line))
    n += 1
assert n > 0
EOF
}

# --- exit statuses ---------------------------------------------------------

capture "$TAGBOT" check "$data/cli/cli-clean.eml"
status_is "a clean patch exits 0" 0
has "the total line counts it" out "1 messages, 1 patches checked, 0 errors, 0 warnings, 0 checks"
has "the file's total line, as checkpatch's" out "$data/cli/cli-clean.eml: total: 0 errors, 0 warnings, 0 checks, 1 patches checked"
lines_are "a clean patch prints only the two totals" 2

capture "$TAGBOT" check "$data/cli/cli-missing-signoff.eml"
status_is "a patch without sign-off exits 1" 1
# MISSING_SIGN_OFF points at the last line of the commit message: line 12
# (9 header lines, the blank line 10, the two lines of text).
has "the error line is checkpatch-style" out "$data/cli/cli-missing-signoff.eml:12: ERROR:MISSING_SIGN_OFF: "
has "the header line names the mail" out \
	"$data/cli/cli-missing-signoff.eml: <20250311042642.373782-1-craig@mcqueen.au> \"[PATCH] leds: uleds documentation fixes\""

capture "$TAGBOT" check "$data/cli/cli-warning-only.eml"
status_is "a warning exits 1" 1
has "the warning points at the sign-off line of the file" out \
	"$data/cli/cli-warning-only.eml:25: WARNING:FROM_SIGN_OFF_MISMATCH: "
has "the offending line follows, indented" out "    | Signed-off-by: MarshallZhan <marshall_zhan@wiwynn.com>"

# From: "Jane Doe <jane@example.org> (a quote left open): git mailinfo
# prints "Author: Jane Doe" and "Email: jane@example.org", and git am
# records that author; so does tagbot, and it says so.
capture "$TAGBOT" check "$data/cli/cli-from-open-quote.eml"
status_is "a From: with a quote left open is a warning" 1
has "the warning names what git am records" out \
	"$data/cli/cli-from-open-quote.eml:1: WARNING:BAD_FROM_ADDRESS: The From: header is not one well-formed address (From: \"Jane Doe <jane@example.org>), so git am records the author as Jane Doe <jane@example.org>; "
has "the author signed: nothing else" out "total: 0 errors, 1 warnings, 0 checks, 1 patches checked"
capture "$TAGBOT" check --format=json "$data/cli/cli-from-open-quote.eml"
has "JSON gives the author git am records" out \
	'"author":{"name":"Jane Doe","email":"jane@example.org"}'

capture "$TAGBOT" check "$data/cli/cli-check-only.eml"
status_is "a CHECK alone exits 0" 0
has "the CHECK is shown" out ": CHECK:MISSING_FIXES_TAG: "

capture "$TAGBOT" check "$data/cli/cli-reply.eml"
status_is "a reply exits 0" 0
has "a reply is counted, not checked" out "1 messages, 0 patches checked, 0 errors, 0 warnings, 0 checks"
lacks "a reply prints no header" out "<20250314110853.GF3890718@google.com>"
capture "$TAGBOT" check --verbose "$data/cli/cli-reply.eml" "$data/cli/cli-clean.eml"
has "--verbose shows the reply and why" out "<20250314110853.GF3890718@google.com> \"Re: [PATCH] leds: uleds documentation fixes\" (reply, not checked)"
has "--verbose shows the clean patch" out "\"[PATCH] leds: pca995x: fix typo\" (no findings)"

# Only submissions are patches (patch.h): a diff under a Subject with no
# patch prefix is kind other, still checked; a reply attaching patches is
# not checked at all.
capture "$TAGBOT" check "$data/mail/submission-bug-report-diff.eml"
status_is "a bug report's diff is still checked" 1
has "its kind says the bot would not answer it" out \
	"\"use-after-free in firmware_fallback_sysfs\" (other: no patch prefix, not a submission)"
has "its findings are shown" out "ERROR:MISSING_SIGN_OFF"
has "it is counted as checked" out "1 messages, 1 patches checked, 1 errors"
capture "$TAGBOT" check --format=json "$data/mail/submission-stable-request-attached.eml"
has "JSON gives kind other" out '"kind":"other"'
capture "$TAGBOT" check --verbose "$data/mail/submission-reply-attached-patches.eml" \
	"$data/mail/submission-reply-pasted-patch.eml" "$data/mail/submission-irt-no-prefix-quoted.eml"
status_is "replies carrying patches exit 0" 0
has "an attached format-patch in a Re: mail is a reply" out \
	"<bde582df-9522-48ae-9d84-fa3751c4a06d@kernel.org> \"[PATCH 1/2] platform/x86: int3472: Use \"privacy\" as con_id for the LED lookup\" [attachment 0001-platform-x86-int3472-Use-privacy-as-con_id-for-the-L.patch] (reply, not checked)"
has "and so is the second" out \
	"[attachment 0002-media-v4l2-subdev-Use-privacy-as-con_id-when-getting.patch] (reply, not checked)"
has "a pasted format-patch in a Re: mail is a reply" out \
	"\"[PATCH net] net: phy: register phy led_triggers during probe to avoid AB-BA deadlock\" (reply, not checked)"
has "In-Reply-To, no prefix, quotes: a reply" out "<debug-1@example.org> \"[PATCH] HACK: leds: core: print the blink state\" (reply, not checked)"
has "none of them is checked" out "0 patches checked"
# Several attachments under a [PATCH] subject: each checked on its own,
# named, its findings at the lines of its own decoded text.
capture "$TAGBOT" check "$data/mail/submission-three-attached-patches.eml"
status_is "three attached patches, one unsigned: exit 1" 1
has "all three are checked" out "1 messages, 3 patches checked, 1 errors, 1 warnings"
has "the second names itself" out \
	"<three-attached@example.org> \"[PATCH 2/3] leds: core: fix another thing\" [attachment 0002-leds-core-fix-another-thing.patch]"
has "its finding" out "ERROR:MISSING_SIGN_OFF"
has "the third's finding, at its own line" out \
	"WARNING:BAD_REPORTED_BY_LINK: Reported-by: is not followed by a Closes: (or Link:) with the report's URL; if the report is public, add one right after this line. [decoded text line 8]"

# --- --min-severity ---------------------------------------------------------

capture "$TAGBOT" check --min-severity=error "$data/cli/cli-warning-only.eml"
status_is "--min-severity=error: a warning exits 0" 0
lacks "--min-severity=error hides the warning" out "WARNING:"
capture "$TAGBOT" check --min-severity=error "$data/cli/cli-missing-signoff.eml"
status_is "--min-severity=error: an error exits 1" 1
capture "$TAGBOT" check --min-severity=check "$data/cli/cli-check-only.eml"
status_is "--min-severity=check: a CHECK exits 1" 1
capture "$TAGBOT" check --min-severity=warning "$data/cli/cli-check-only.eml"
status_is "--min-severity=warning: a CHECK exits 0" 0
lacks "--min-severity=warning hides the CHECK" out "CHECK:"

# --- usage errors -------------------------------------------------------------

capture "$TAGBOT" check --no-such-option "$data/cli/cli-clean.eml"
status_is "an unknown option exits 2" 2
has "and names it" err "unknown option '--no-such-option'"
capture "$TAGBOT" check -Z "$data/cli/cli-clean.eml"
status_is "an unknown short option exits 2" 2
capture "$TAGBOT" check
status_is "no FILE exits 2" 2
capture "$TAGBOT" check --format=xml "$data/cli/cli-clean.eml"
status_is "an unknown format exits 2" 2
capture "$TAGBOT" check --min-severity=off "$data/cli/cli-clean.eml"
status_is "--min-severity=off exits 2" 2
capture "$TAGBOT" check --lookups=https://bot:hunter2@lore.example.org/all/ "$data/cli/cli-clean.eml"
status_is "--lookups with a password in the URL exits 2" 2
has "and says why" err "--lookups: credentials in the URL are not accepted"
lacks "without quoting the password" err "hunter2"
capture "$TAGBOT" check --help
status_is "--help exits 0" 0
has "--help lists --commit-msg" out "--commit-msg FILE"
capture "$TAGBOT" help check
status_is "tagbot help check exits 0" 0
has "tagbot help check is check --help" out "usage: tagbot check"

# --- help topics: tagbot help rules and tagbot-rules(7) ----------------------

capture "$TAGBOT" help
status_is "tagbot help exits 0" 0
has "tagbot help lists the help topics" out "help topics:"
has "... among them rules" out "  rules "
capture "$TAGBOT" help no-such-topic
status_is "tagbot help with an unknown topic exits 2" 2
# Where man finds no page (an empty MANPATH: as in the build tree), the
# binary's own table, with the defaults, and where the page is.
mkdir -p "$tmp/noman"
MANPATH=$tmp/noman capture "$TAGBOT" help rules
status_is "tagbot help rules without the page exits 0" 0
has "... prints the rule table" out "MISSING_SIGN_OFF           error"
has "... at the default severities" out "MISSING_FIXES_TAG          check"
has "... and names the page" out "tagbot-rules(7)"
has "... and where it is in the source tree" out "man -l man/tagbot-rules.7"
# Where man finds it, the page itself.
if command -v man >/dev/null; then
	mkdir -p "$tmp/man/man7"
	cp "$top_srcdir/man/tagbot-rules.7" "$tmp/man/man7/"
	MANPATH=$tmp/man MANWIDTH=80 capture "$TAGBOT" help rules
	status_is "tagbot help rules with the page exits 0" 0
	has "... shows the page" out "TAGBOT-RULES(7)"
	has "... with its sections" out "THE MODEL"
	lacks "... not the table" out "man -l man/tagbot-rules.7"
else
	echo "# man not found: tagbot help rules showing the page is not tried"
fi
# The page explains every rule the binary has: a section per rule ID.
"$TAGBOT" check --no-config --list-rules | sed -n 's/^\([A-Z][A-Z_]*\) .*/\1/p' >"$tmp/ids"
missing=
while read -r id; do
	grep -q "^\.SS $id " "$top_srcdir/man/tagbot-rules.7" || missing="$missing $id"
done <"$tmp/ids"
expect "tagbot-rules(7) has a section for each of the $(wc -l <"$tmp/ids") rules${missing:+ (missing:$missing)}" \
	test -z "$missing" -a -s "$tmp/ids"

# --- configuration ------------------------------------------------------------

printf '[rules]\nMISSING_SIGN_OFF = off\n' >"$tmp/off.ini"
capture "$TAGBOT" check -c "$tmp/off.ini" "$data/cli/cli-missing-signoff.eml"
status_is "-c: a rule turned off no longer fails" 0
printf '[rules]\nNO_SUCH_RULE = off\n' >"$tmp/bad.ini"
capture "$TAGBOT" check -c "$tmp/bad.ini" "$data/cli/cli-clean.eml"
status_is "-c with an unknown rule exits 2" 2
has "the error names the file" err "$tmp/bad.ini"
capture "$TAGBOT" check -c "$tmp/missing.ini" "$data/cli/cli-clean.eml"
status_is "-c with a missing file exits 2" 2
capture "$TAGBOT" check --list-rules
status_is "--list-rules exits 0" 0
has "--list-rules lists a rule" out "BAD_REPORTED_BY_LINK"

# --- unreadable inputs ----------------------------------------------------------

capture "$TAGBOT" check "$tmp/does-not-exist.eml" "$data/cli/cli-missing-signoff.eml"
status_is "a missing file exits 2" 2
has "stderr names the missing file" err "$tmp/does-not-exist.eml: No such file or directory"
has "the other file is still checked" out "ERROR:MISSING_SIGN_OFF"
has "and counted" out "1 messages, 1 patches checked, 1 errors"

capture "$TAGBOT" check "$data/cli/cli-empty-message.mbox"
status_is "an unparsable mail exits 2" 2
has "its error names the mbox message" out "$data/cli/cli-empty-message.mbox: ERROR: message 1 (line 2): "
has "the next mail is still checked" out "2 messages, 1 patches checked"

printf 'Subject: no From: header\n\nbody\n' >"$tmp/no-from.eml"
capture "$TAGBOT" check "$tmp/no-from.eml" "$data/cli/cli-missing-signoff.eml"
if [ "$status" -lt 3 ]; then ok "a mail without From: does not crash the run"; else not_ok "a mail without From: does not crash the run (exit status $status)"; fi

# --- JSON Lines -------------------------------------------------------------------

capture "$TAGBOT" check --format=json "$data/cli/cli-series.mbox" "$data/cli/cli-clean.eml" \
	"$data/cli/cli-check-only.eml" "$data/cli/cli-empty-message.mbox" "$tmp/does-not-exist.eml"
status_is "JSON: an unreadable input still exits 2" 2
expect "JSON: every line parses" json_parses
expect "JSON: exactly the documented fields" json_fields_exact
lines_are "JSON: one object per mail and per failure" 8
has "JSON: a reply is printed with empty findings" out '"kind":"reply","author":{"name":"Lee Jones","email":"lee@kernel.org"}'
has "JSON: the unparsable mail has a null message_id" out \
	"{\"file\":\"$data/cli/cli-empty-message.mbox\",\"mail\":1,\"message_id\":null,\"error\":\"message 1 (line 2): message is empty\"}"
has "JSON: the missing file is an error object" out "{\"file\":\"$tmp/does-not-exist.eml\",\"message_id\":null,"
# file_line beside line: the sign-off of message 2 is line 9 of its decoded
# text and line 73 of the mbox; message 1's missing sign-off points at the
# last line of its commit message, line 2 of the text, 13 of the mbox.
has "JSON: file_line is the line in the mbox" out '"rule":"FROM_SIGN_OFF_MISMATCH","severity":"warning","line":9,"file_line":73,'
has "JSON: MISSING_SIGN_OFF at the end of the commit message" out '"rule":"MISSING_SIGN_OFF","severity":"error","line":2,"file_line":13,'
lacks "JSON: no total line" out "patches checked"
has "JSON: lines are lines of the decoded text" out '"rule":"FROM_SIGN_OFF_MISMATCH","severity":"warning","line":9,'
sed '/^Message-ID:/d' "$data/cli/cli-missing-signoff.eml" >"$tmp/no-msgid.eml"
capture "$TAGBOT" check --format=json "$tmp/no-msgid.eml"
has "JSON: a mail without Message-ID has a null message_id" out "{\"file\":\"$tmp/no-msgid.eml\",\"mail\":1,\"message_id\":null,\"subject\":"
expect "JSON: ... and the documented fields" json_fields_exact

# --- line numbers in an mbox --------------------------------------------------------

want=$(grep -n '^Signed-off-by: MarshallZhan' "$data/cli/cli-series.mbox" | cut -d: -f1)
capture "$TAGBOT" check "$data/cli/cli-series.mbox"
status_is "the series mbox exits 1" 1
has "a finding points at its line in the mbox" out "$data/cli/cli-series.mbox:$want: WARNING:FROM_SIGN_OFF_MISMATCH:"
has "the total counts all three mails" out "3 messages, 2 patches checked, 1 errors, 1 warnings, 0 checks"

# --- standard input --------------------------------------------------------------------

capture "$TAGBOT" check - <"$data/cli/cli-missing-signoff.eml"
status_is "stdin: a patch without sign-off exits 1" 1
has "stdin is named -" out "-:12: ERROR:MISSING_SIGN_OFF: "
capture "$TAGBOT" check -q - <"$data/cli/cli-missing-signoff.eml"
lines_are "-q prints the finding line only" 1
capture "$TAGBOT" check -q - <"$data/cli/cli-clean.eml"
status_is "-q: a clean patch exits 0" 0
lines_are "-q: a clean patch prints nothing" 0
capture "$TAGBOT" check --format=json - <"$data/cli/cli-series.mbox"
lines_are "stdin: an mbox is split" 3
expect "stdin: the JSON parses" json_parses

# --- --commit-msg ------------------------------------------------------------------------

capture "$TAGBOT" check --commit-msg "$data/cli/cli-commit-msg-ok.txt"
status_is "--commit-msg: a signed-off message exits 0" 0
capture "$TAGBOT" check --commit-msg "$data/cli/cli-commit-msg-no-signoff.txt"
status_is "--commit-msg: no sign-off exits 1" 1
# line 4: the subject, a blank line, two lines of text, then # comments
has "--commit-msg names the file" out "$data/cli/cli-commit-msg-no-signoff.txt:4: ERROR:MISSING_SIGN_OFF:"
capture "$TAGBOT" check --commit-msg - <"$data/cli/cli-commit-msg-no-signoff.txt"
status_is "--commit-msg - reads stdin" 1
capture "$TAGBOT" check --commit-msg "$tmp/none.txt"
status_is "--commit-msg: a missing file exits 2" 2
# The title is the first paragraph, its lines joined by a space: what git
# log --format=%s prints of the commit; %b starts at "Body text."
printf 'leds: fix the frob\nwhen it blinks\n\nBody text.\n\nSigned-off-by: A <a@example.org>\n' \
	>"$tmp/title.txt"
capture "$TAGBOT" check --format=json --commit-msg "$tmp/title.txt"
status_is "--commit-msg: a two-line title is no error" 0
has "--commit-msg: the title is the whole first paragraph" out '"title":"leds: fix the frob when it blinks"'
has "--commit-msg: the message starts below it" out '"message":{"first":{"line":4,"text":"Body text."}'
# No blank line after the title: git makes title and description one subject.
printf '%s\n%s\n\n%s\n' "leds: fix the frob" \
	"The frob blinked twice whenever the LED was set to full brightness, so set it once." \
	"Signed-off-by: A <a@example.org>" >"$tmp/run-on.txt"
capture "$TAGBOT" check --commit-msg "$tmp/run-on.txt"
has "--commit-msg: a title run into the description is found" out \
	"$tmp/run-on.txt:4: WARNING:COMMIT_MESSAGE: The commit message holds only tags, and the 102-character subject"

# --- contrib/b4-check.sh -------------------------------------------------------------------

b4check=$top_srcdir/contrib/b4-check.sh
capture env TAGBOT="$TAGBOT" sh "$b4check" <"$data/cli/cli-missing-signoff.eml"
lines_are "b4-check.sh: one line per finding" 1
has "b4-check.sh: the line b4 reads (ERROR: marks a failure)" out "-:12: ERROR:MISSING_SIGN_OFF: "
capture env TAGBOT="$TAGBOT" sh "$b4check" <"$data/cli/cli-clean.eml"
status_is "b4-check.sh: a clean patch exits 0" 0
lines_are "b4-check.sh: a clean patch prints nothing (b4: passed)" 0

# --- contrib/git-commit-msg-hook on a temporary repository ------------------------------------

if command -v git >/dev/null 2>&1; then
	repo=$tmp/repo
	git init -q "$repo" &&
	git -C "$repo" config user.name "Test User" &&
	git -C "$repo" config user.email "test@example.org" &&
	cp "$top_srcdir/contrib/git-commit-msg-hook" "$repo/.git/hooks/commit-msg" &&
	chmod +x "$repo/.git/hooks/commit-msg" &&
	echo one >"$repo/file" && git -C "$repo" add file
	capture env TAGBOT="$TAGBOT" git -C "$repo" commit -q -m "leds: add a file" -m "Add a file for the test."
	if [ "$status" -ne 0 ]; then ok "hook: a commit without sign-off is refused"; else not_ok "hook: a commit without sign-off is refused"; fi
	has "hook: the reason is shown" err "ERROR:MISSING_SIGN_OFF"
	if git -C "$repo" rev-parse -q --verify HEAD >/dev/null; then not_ok "hook: nothing was committed"; else ok "hook: nothing was committed"; fi
	capture env TAGBOT="$TAGBOT" git -C "$repo" commit -q -s -m "leds: add a file" -m "Add a file for the test."
	status_is "hook: a signed-off commit passes" 0
	echo two >"$repo/file" && git -C "$repo" add file
	capture env TAGBOT="$tmp/no-such-tagbot" git -C "$repo" commit -q -s -m "leds: change" -m "Change it."
	if [ "$status" -ne 0 ]; then ok "hook: a missing tagbot refuses the commit"; else not_ok "hook: a missing tagbot refuses the commit"; fi
	has "hook: and says so" err "not found"

	# contrib/git-sendemail-validate-hook: git send-email hands it each mail.
	hook=$top_srcdir/contrib/git-sendemail-validate-hook
	git -C "$repo" commit -q --no-verify -m "leds: unsigned" -m "No sign-off here." &&
	git -C "$repo" format-patch -q -1 -o "$tmp/unsigned" &&
	echo three >"$repo/file" &&
	git -C "$repo" commit -q -a --no-verify -s -m "leds: signed" -m "Signed." &&
	git -C "$repo" format-patch -q -1 -o "$tmp/signed" || not_ok "sendemail-validate: making the patches"
	unsigned=$(ls "$tmp"/unsigned/*.patch) signed=$(ls "$tmp"/signed/*.patch)
	capture env TAGBOT="$TAGBOT" sh "$hook" "$unsigned"
	status_is "sendemail-validate: a patch with an error is refused" 1
	# line 6: From_, From:, Date:, Subject:, the blank line, then the text
	has "sendemail-validate: the reason is shown" err "$unsigned:6: ERROR:MISSING_SIGN_OFF:"
	capture env TAGBOT="$TAGBOT" sh "$hook" "$signed"
	status_is "sendemail-validate: a clean patch passes" 0
	capture env TAGBOT="$tmp/no-such-tagbot" sh "$hook" "$signed"
	status_is "sendemail-validate: a missing tagbot refuses (fails closed)" 1
	has "sendemail-validate: and says so" err "could not be run; install tagbot or set TAGBOT"
	capture env TAGBOT="$TAGBOT" sh "$hook" "$tmp/no-such.patch"
	status_is "sendemail-validate: no mail file refuses" 1
	if git send-email -h 2>&1 | grep -q 'validate'; then
		cp "$hook" "$repo/.git/hooks/sendemail-validate" && chmod +x "$repo/.git/hooks/sendemail-validate"
		capture env TAGBOT="$TAGBOT" git -C "$repo" send-email --dry-run --confirm=never \
			--to=list@example.org --from="Test User <test@example.org>" "$unsigned"
		if [ "$status" -ne 0 ]; then ok "git send-email: the hook stops the unsigned patch"; else not_ok "git send-email: the hook stops the unsigned patch"; fi
		has "git send-email: it names the hook" err "rejected by sendemail-validate hook"
		capture env TAGBOT="$TAGBOT" git -C "$repo" send-email --dry-run --confirm=never \
			--to=list@example.org --from="Test User <test@example.org>" "$signed"
		status_is "git send-email: the signed patch goes (dry run)" 0
	else
		ok "# SKIP git send-email not installed (git-email): hook tested by hand only"
	fi
else
	ok "# SKIP git not installed: hook not tested"
fi

finish
