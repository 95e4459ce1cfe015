#!/usr/bin/env python3
"""e2e-mail.py - the mail side of tests/integration/daemon-e2e.sh and bench/daemon.

Makes patch mails whose findings are known from RULES.md, APPENDs them to a
mailbox over IMAPS (verified with the test CA), and checks the replies that
reached a mailbox: one per patch that needs one, threaded, none for a clean
patch.  Standard library only.

Environment: IMAPS_PORT, SRV_DIR (for $SRV_DIR/ca.pem and the Maildirs).
Every subcommand exits 0 when what it checks holds, 1 when not (saying
why on stderr), 2 on a usage or connection error.

  gen DIR PREFIX COUNT [--clean-every K]   COUNT patch files DIR/PREFIX-NNNN.eml
                                           (every K-th clean, default 2)
  patch KIND PREFIX N                      one patch on stdout
  append USER FILE...                      APPEND each file to USER's INBOX
  expunge USER                             empty USER's INBOX
  count USER                               print how many mails USER's INBOX holds
  wait USER COUNT SECONDS                  until the INBOX holds >= COUNT mails
  wait-replies USER SECONDS MSGID...       until each MSGID has a reply in USER's INBOX
  verify USER [--only] FILE... [--none FILE...]
                                           the replies to FILE... (see verify_problems())
  wait-verify USER SECONDS [--only] FILE... [--none FILE...]
                                           the same, again until it holds
  progress DB                              print the counts of the state database
  store DB FILE...                         the state database agrees (see store())
"""

import email
import email.policy
import imaplib
import os
import re
import ssl
import sys
import time

AUTHOR = "A U Thor <author@example.org>"
AUTHOR_ADDR = "author@example.org"
PASSWORD = "secret"
COVER_REF = "<e2e-cover-0@example.org>"

# Each kind of patch: the trailer lines it carries, the rule IDs RULES.md
# says it breaks (at warning or above) and a line the reply must quote.
KINDS = {
    "clean": {
        "trailers": ["Signed-off-by: " + AUTHOR],
        "rules": [], "quote": None,
    },
    "case": {	# RULES.md 2: wrong case of a standard tag
        "trailers": ["Signed-Off-By: " + AUTHOR],
        "rules": ["BAD_SIGN_OFF"], "quote": "Signed-Off-By: " + AUTHOR,
    },
    "changeid": {	# RULES.md 5: a Change-Id: trailer is an error
        "trailers": ["Change-Id: I0123456789abcdef0123456789abcdef01234567",
                     "Signed-off-by: " + AUTHOR],
        "rules": ["GERRIT_CHANGE_ID"],
        "quote": "Change-Id: I0123456789abcdef0123456789abcdef01234567",
    },
    "nosob": {	# RULES.md 2: no Signed-off-by: at all
        "trailers": ["Reviewed-by: Some Reviewer <maint@example.org>"],
        "rules": ["MISSING_SIGN_OFF"], "quote": None,
    },
    "twice": {	# RULES.md 2: the same trailer twice
        "trailers": ["Signed-off-by: " + AUTHOR, "Signed-off-by: " + AUTHOR],
        "rules": ["BAD_SIGN_OFF"], "quote": "Signed-off-by: " + AUTHOR,
    },
}
BAD_KINDS = ["case", "changeid", "nosob", "twice"]

DIFF = """\
---
 drivers/leds/leds-foo.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/drivers/leds/leds-foo.c b/drivers/leds/leds-foo.c
index 1111111111aa..2222222222bb 100644
--- a/drivers/leds/leds-foo.c
+++ b/drivers/leds/leds-foo.c
@@ -10,7 +10,7 @@ static void foo_remove(struct platform_device *pdev)
 {
 	struct foo_priv *priv = platform_get_drvdata(pdev);
 
-	foo_hw_off(priv);
+	foo_hw_off_sync(priv);
 	led_classdev_unregister(&priv->led);
 }
-- 
2.47.0
"""


def die(msg, code=2):
    sys.stderr.write("e2e-mail: %s\n" % msg)
    sys.exit(code)


def msgid_of(prefix, n):
    return "<e2e-%s-%d@example.org>" % (prefix, n)


def make_patch(kind, prefix, n, threaded=False):
    """The bytes of patch n of kind; threaded ones answer the cover letter."""
    k = KINDS[kind]
    subject = "[PATCH] leds: foo: wait for the hardware in remove (%s %d)" % (prefix, n)
    hdr = [
        "From: " + AUTHOR,
        "To: Lee Jones <lee@kernel.org>",
        "Cc: list@example.org",
        "Subject: " + subject,
        "Date: Thu, 20 Nov 2025 10:10:10 +0100",
        "Message-ID: " + msgid_of(prefix, n),
    ]
    if threaded:
        hdr += ["In-Reply-To: " + COVER_REF, "References: " + COVER_REF]
    hdr += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit", "X-E2E-Kind: " + kind]
    body = ["foo_remove() switches the hardware off without waiting for it, so",
            "a quick rebind finds the LED still lit.",
            "",
            "Wait for the hardware to settle before unregistering the LED.",
            ""] + k["trailers"]
    text = "\n".join(hdr) + "\n\n" + "\n".join(body) + "\n" + DIFF
    return text.replace("\n", "\r\n").encode()


def kind_for(n, clean_every, bad_every=0):
    """Every clean_every-th patch is clean and the others cycle the bad kinds;
    or (bad_every) every bad_every-th patch is bad and the others clean."""
    if bad_every:
        return BAD_KINDS[(n // bad_every) % len(BAD_KINDS)] if n % bad_every == 0 else "clean"
    if clean_every and n % clean_every == 0:
        return "clean"
    bad_before = n - (n // clean_every if clean_every else 0)	# so each kind comes in turn
    return BAD_KINDS[bad_before % len(BAD_KINDS)]


# --- IMAP ----------------------------------------------------------------

def imap_login(user):
    port = int(os.environ["IMAPS_PORT"])
    ctx = ssl.create_default_context(cafile=os.path.join(os.environ["SRV_DIR"], "ca.pem"))
    m = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=ctx, timeout=30)
    m.login(user, PASSWORD)
    return m


def inbox_count(user):
    m = imap_login(user)
    typ, data = m.select("INBOX", readonly=True)
    m.logout()
    if typ != "OK":
        die("select INBOX of %s: %s" % (user, data))
    return int(data[0])


def fetch_all(user):
    """Every mail in user's INBOX, parsed."""
    m = imap_login(user)
    m.select("INBOX", readonly=True)
    typ, data = m.uid("FETCH", "1:*", "(BODY.PEEK[])")
    m.logout()
    out = []
    for item in data or []:
        if isinstance(item, tuple):
            out.append(email.message_from_bytes(item[1], policy=email.policy.default))
    return out


def append(user, paths):
    m = imap_login(user)
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        typ, data = m.append("INBOX", None, None, raw)
        if typ != "OK":
            die("APPEND %s to %s: %s" % (p, user, data))
    m.logout()


def expunge(user):
    m = imap_login(user)
    m.select("INBOX")
    m.store("1:*", "+FLAGS.SILENT", "(\\Deleted)")
    m.expunge()
    m.logout()


def wait_count(user, count, seconds):
    end = time.monotonic() + seconds
    n = -1
    while time.monotonic() < end:
        n = inbox_count(user)
        if n >= count:
            return 0
        time.sleep(0.2)
    sys.stderr.write("e2e-mail: %s holds %d mails after %ss, wanted %d\n"
                     % (user, n, seconds, count))
    return 1


# --- checks --------------------------------------------------------------

def read_patch(path):
    with open(path, "rb") as f:
        return email.message_from_bytes(f.read(), policy=email.policy.default)


def ids(value):
    return re.findall(r"<[^<>\s]+>", str(value or ""))


def check_reply(patch, reply):
    """What is wrong with reply as the answer to patch (a list of strings)."""
    kind = KINDS[patch["X-E2E-Kind"]]
    pid = patch["Message-ID"].strip()
    bad = []
    if AUTHOR_ADDR not in [a.addr_spec for a in reply["To"].addresses]:
        bad.append("To: %s lacks %s" % (reply["To"], AUTHOR_ADDR))
    if str(reply["Subject"]) != "Re: " + str(patch["Subject"]):
        bad.append("Subject: %r" % str(reply["Subject"]))
    if ids(reply["In-Reply-To"]) != [pid]:
        bad.append("In-Reply-To: %s" % reply["In-Reply-To"])
    want_refs = ids(patch["References"]) + [pid]
    if ids(reply["References"]) != want_refs:
        bad.append("References: %s, wanted %s" % (reply["References"], " ".join(want_refs)))
    if str(reply["Auto-Submitted"] or "").strip() != "auto-generated":
        bad.append("Auto-Submitted: %s" % reply["Auto-Submitted"])
    got = sorted(r.strip() for r in str(reply["X-Tagbot-Rules"] or "").split(",") if r.strip())
    for rule in kind["rules"]:
        if rule not in got:
            bad.append("X-Tagbot-Rules: %s lacks %s" % (got, rule))
    rid = str(reply["Message-ID"] or "")
    if not re.fullmatch(r"\s*<[^<>@\s]+@[^<>@\s]+>\s*", rid) or rid.strip() == pid:
        bad.append("Message-ID: %r" % rid)
    body = reply.get_body(("plain",))
    text = body.get_content() if body else ""
    if kind["quote"] and ("| " + kind["quote"]) not in text.splitlines():
        bad.append("body does not quote %r with '| '" % kind["quote"])
    for line in text.splitlines():	# a tag line unquoted would be harvested by b4
        if re.match(r"(Signed-off-by|Change-Id|Reviewed-by|Signed-Off-By):", line):
            bad.append("body holds an unquoted tag line %r" % line)
    return bad


def split_args(args):
    """[--only] FILE... [--none FILE...] -> (only, answered, unanswered)."""
    only = bool(args) and args[0] == "--only"
    if only:
        args = args[1:]
    if "--none" in args:
        i = args.index("--none")
        return only, args[:i], args[i + 1:]
    return only, args, []


def verify_problems(user, args):
    """Each patch that needs a reply has exactly one, threaded; the clean ones
    and those after --none have none; with --only, no reply answers a mail
    that is not one of them.  (problems, summary line)"""
    only, paths, none = split_args(args)
    patches, want = {}, {}
    for p in paths + none:
        msg = read_patch(p)
        pid = msg["Message-ID"].strip()
        patches[pid] = msg
        want[pid] = 1 if KINDS[msg["X-E2E-Kind"]]["rules"] and p not in none else 0
    replies = {}
    strays = 0
    for r in fetch_all(user):
        for parent in ids(r["In-Reply-To"])[:1]:
            if parent in patches:
                replies.setdefault(parent, []).append(r)
            else:
                strays += 1
    fails = []
    for pid, patch in patches.items():
        got = replies.get(pid, [])
        if len(got) != want[pid]:
            fails.append("%s (%s): %d replies, wanted %d"
                         % (pid, patch["X-E2E-Kind"], len(got), want[pid]))
        for r in got[:1]:
            fails += ["%s: %s" % (pid, b) for b in check_reply(patch, r)]
    if only and strays:
        fails.append("%d replies answer other mails" % strays)
    summary = ("%d patches, %d need a reply, %d replies to them, %d problems"
               % (len(patches), sum(want.values()), sum(len(v) for v in replies.values()),
                  len(fails)))
    return fails, summary


def report(fails, summary):
    for f in fails[:20]:
        sys.stderr.write("e2e-mail: %s\n" % f)
    if len(fails) > 20:
        sys.stderr.write("e2e-mail: ... and %d more\n" % (len(fails) - 20))
    print(summary)
    return 1 if fails else 0


def verify(user, args):
    return report(*verify_problems(user, args))


def wait_verify(user, seconds, args):
    """verify, again until it holds or seconds have passed."""
    end = time.monotonic() + seconds
    while True:
        fails, summary = verify_problems(user, args)
        if not fails or time.monotonic() > end:
            return report(fails, summary)
        time.sleep(0.5)


def store_key(msgid):
    """store.h's normalized key: no <>, the domain lower-cased."""
    s = msgid.strip().strip("<>").strip()
    local, _, dom = s.rpartition("@")
    return local + "@" + dom.lower() if local else s


def store(db, paths):
    """The state database: each patch that needs a reply is recorded as
    replied with one outbox row, sent; each clean one as clean."""
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    fails = []
    for p in paths:
        msg = read_patch(p)
        key = store_key(msg["Message-ID"])
        need = bool(KINDS[msg["X-E2E-Kind"]]["rules"])
        row = con.execute("SELECT decision FROM messages WHERE msgid = ?", (key,)).fetchone()
        out = con.execute("SELECT state FROM outbox WHERE parent_msgid = ?", (key,)).fetchall()
        want = ("replied", [("sent",)]) if need else ("clean", [])
        got = (row[0] if row else None, out)
        if got != want:
            fails.append("%s: decision %s, outbox %s; wanted %s" % (key, got[0], out, want))
    con.close()
    for f in fails[:20]:
        sys.stderr.write("e2e-mail: store: %s\n" % f)
    print("store: %d patches, %d disagree" % (len(paths), len(fails)))
    return 1 if fails else 0


def progress(db):
    """One line: how far the daemon got (for the log of a test)."""
    import sqlite3
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
        n = con.execute("SELECT count(*) FROM messages").fetchone()[0]
        rows = dict(con.execute("SELECT state, count(*) FROM outbox GROUP BY state").fetchall())
        con.close()
    except sqlite3.Error as ex:
        print("store: %s" % ex)
        return 0
    print("store: %d messages; outbox %s" % (n, ", ".join("%s %d" % kv for kv in sorted(rows.items()))
                                             or "empty"))
    return 0


def replied_to(user):
    """How many replies each parent Message-ID has in user's INBOX."""
    got = {}
    for r in fetch_all(user):
        for parent in ids(r["In-Reply-To"])[:1]:
            got[parent] = got.get(parent, 0) + 1
    return got


def wait_replies(user, seconds, msgids):
    """Until each of msgids has a reply in user's INBOX."""
    end = time.monotonic() + seconds
    missing = msgids
    while time.monotonic() < end:
        got = replied_to(user)
        missing = [m for m in msgids if m not in got]
        if not missing:
            return 0
        time.sleep(0.2)
    sys.stderr.write("e2e-mail: after %ss no reply to %s\n" % (seconds, " ".join(missing[:10])))
    return 1


def gen(directory, prefix, count, clean_every):
    os.makedirs(directory, exist_ok=True)
    for n in range(1, count + 1):
        with open(os.path.join(directory, "%s-%04d.eml" % (prefix, n)), "wb") as f:
            f.write(make_patch(kind_for(n, clean_every), prefix, n, threaded=(n % 3 == 0)))
    return 0


def main(argv):
    if len(argv) < 2:
        die(__doc__.strip())
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "gen":
            ce = int(args[4]) if len(args) > 4 and args[3] == "--clean-every" else 2
            return gen(args[0], args[1], int(args[2]), ce)
        if cmd == "patch":
            sys.stdout.buffer.write(make_patch(args[0], args[1], int(args[2]),
                                               threaded="--threaded" in args))
            return 0
        if cmd == "append":
            append(args[0], args[1:])
            return 0
        if cmd == "expunge":
            expunge(args[0])
            return 0
        if cmd == "count":
            print(inbox_count(args[0]))
            return 0
        if cmd == "wait":
            return wait_count(args[0], int(args[1]), float(args[2]))
        if cmd == "wait-replies":
            return wait_replies(args[0], float(args[1]), args[2:])
        if cmd == "verify":
            return verify(args[0], args[1:])
        if cmd == "wait-verify":
            return wait_verify(args[0], float(args[1]), args[2:])
        if cmd == "progress":
            return progress(args[0])
        if cmd == "store":
            return store(args[0], args[1:])
    except (OSError, imaplib.IMAP4.error, KeyError, IndexError, ValueError) as ex:
        die("%s: %s" % (cmd, ex))
    die("unknown command %r" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
