#!/usr/bin/env python3
"""e2e-mail.py - the mail side of tests/integration/daemon-e2e.sh and bench/daemon.

Makes patch mails whose findings are known from tagbot-rules(7), APPENDs them to a
mailbox over IMAPS (verified with the test CA), and checks the replies that
reached a mailbox: one per patch that needs one, threaded, none for a clean
patch.  Standard library only.

Environment: IMAPS_PORT, SRV_DIR (for $SRV_DIR/ca.pem and the Maildirs).
Every subcommand exits 0 when what it checks holds, 1 when not (saying
why on stderr), 2 on a usage or connection error.

  gen DIR PREFIX COUNT [--clean-every K]   COUNT patch files DIR/PREFIX-NNNN.eml
                                           (every K-th clean, default 2)
  patch KIND PREFIX N [--threaded] [--now] one patch on stdout (dated now)
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

Series and maintainer Cc mode (tests/integration/daemon-series.sh, daemon-cc.sh):

  series DIR PREFIX KIND,KIND... [--version V] [--no-cover] [--unthreaded]
         [--in-reply-to FILE] [--compact]  a cover DIR/PREFIX-0.eml (unless --no-cover)
                                           and patches DIR/PREFIX-1.eml ... of those kinds
                                           ([PATCHv2 1/3], [PATCH1/3] with --compact)
  request PARENT TAG [--from ADDR] [--no-bot] [--cmd LINE]... [--quote-cmd LINE]
                                           a reply to the mail PARENT (a file) with the bot
                                           in Cc, Message-ID <e2e-TAG@example.org>, on stdout
  relist FILE LIST-ID                      FILE as a list's copy (List-Id: <LIST-ID>), on stdout
  send FILE [RCPT...]                      FILE through Postfix (SMTP_PORT, STARTTLS) to the
                                           RCPTs (default bot@example.org)
  dkim-sign FILE                           FILE with a DKIM signature of example.org
                                           (selector test, key $SRV_DKIM_KEY), on stdout;
                                           needs python3-dkim (run it with $SRV_DKIM_PYTHON)
  headers USER MSGID NAME                  the values of header NAME of the mail MSGID in
                                           USER's INBOX, top first, one a line
  save-reply USER MSGID                    the mail in USER's INBOX answering MSGID, on stdout
  replies USER MSGID                       print how many mails in USER's INBOX answer MSGID
  none USER MSGID...                       no mail in USER's INBOX answers any MSGID
  verify-series USER FILE... [--head FILE] the series FILE... (the cover, or the patches)
                                           has one reply, to the head (default: the first
                                           FILE), listing the findings per patch; none to
                                           the others; no reply at all when all are clean
  verify-cc USER REQUEST PARENT [--explain RULE]... [--no-check]
                                           one answer to REQUEST, to its sender, threaded
                                           under it, about PARENT's findings ("no tag
                                           problems found" when clean)
  recorded DB FILE...                      each FILE is in the store, not answered
"""

import email
import email.policy
import email.utils
import imaplib
import os
import re
import smtplib
import ssl
import sys
import time

AUTHOR = "A U Thor <author@example.org>"
AUTHOR_ADDR = "author@example.org"
PASSWORD = "secret"
COVER_REF = "<e2e-cover-0@example.org>"

# Each kind of patch: the trailer lines it carries, the rule IDs tagbot-rules(7)
# says it breaks (at warning or above) and a line the reply must quote.
KINDS = {
    "clean": {
        "trailers": ["Signed-off-by: " + AUTHOR],
        "rules": [], "quote": None,
    },
    "case": {	# tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP: wrong case of a standard tag
        "trailers": ["Signed-Off-By: " + AUTHOR],
        "rules": ["BAD_SIGN_OFF"], "quote": "Signed-Off-By: " + AUTHOR,
    },
    "changeid": {	# tagbot-rules(7): a Change-Id: trailer is an error
        "trailers": ["Change-Id: I0123456789abcdef0123456789abcdef01234567",
                     "Signed-off-by: " + AUTHOR],
        "rules": ["GERRIT_CHANGE_ID"],
        "quote": "Change-Id: I0123456789abcdef0123456789abcdef01234567",
    },
    "nosob": {	# tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP: no Signed-off-by: at all
        "trailers": ["Reviewed-by: Some Reviewer <maint@example.org>"],
        "rules": ["MISSING_SIGN_OFF"], "quote": None,
    },
    "twice": {	# tagbot-rules(7) SIGN-OFFS AND AUTHORSHIP: the same trailer twice
        "trailers": ["Signed-off-by: " + AUTHOR, "Signed-off-by: " + AUTHOR],
        "rules": ["BAD_SIGN_OFF"], "quote": "Signed-off-by: " + AUTHOR,
    },
}
BAD_KINDS = ["case", "changeid", "nosob", "twice"]
# tagbot-rules(7) LINKS: a Link: to a posting the bot saw as an earlier version (the
# same subject, a lower version) of this patch; daemon-series.sh posts
# <e2e-pv-1@example.org> first.
PREV_LINK = "Link: https://lore.kernel.org/r/e2e-pv-1@example.org/"
KINDS["prevlink"] = {"trailers": [PREV_LINK, "Signed-off-by: " + AUTHOR],
                     "rules": ["LINK_TO_PREVIOUS_VERSION"], "quote": PREV_LINK}
# Mails that are not patches: no reply of the normal kind is due to them.
KINDS["cover"] = {"trailers": [], "rules": [], "quote": None}
KINDS["request"] = {"trailers": [], "rules": [], "quote": None}
MAINT = "Mai N Tainer <maint@example.org>"
BOT_ADDR = "bot@example.org"

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


def make_patch(kind, prefix, n, threaded=False, now=False):
    """The bytes of patch n of kind; threaded ones answer the cover letter;
    dated 20 Nov 2025, or with now, the current time."""
    k = KINDS[kind]
    subject = "[PATCH] leds: foo: wait for the hardware in remove (%s %d)" % (prefix, n)
    hdr = [
        "From: " + AUTHOR,
        "To: Lee Jones <lee@kernel.org>",
        "Cc: list@example.org",
        "Subject: " + subject,
        "Date: " + (email.utils.formatdate(localtime=True) if now
                    else "Thu, 20 Nov 2025 10:10:10 +0100"),
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


# --- series and maintainer Cc mode -----------------------------------------

def crlf(hdr, body):
    return ("\n".join(hdr) + "\n\n" + body).replace("\n", "\r\n").encode()


def series_subject(prefix, version, i, total, compact=False):
    """[PATCH v2 1/3]; compact: [PATCHv2 1/3], [PATCH1/3] (both seen on lists)."""
    what = "series %s" % prefix if i == 0 else "part %d of %s" % (i, prefix)
    if compact:
        v = "v%d " % version if version > 1 else ""
        return "[PATCH%s%d/%d] leds: foo: %s" % (v, i, total, what)
    v = "v%d " % version if version > 1 else ""
    return "[PATCH %s%d/%d] leds: foo: %s" % (v, i, total, what)


def make_cover(prefix, version, total, refs, compact=False):
    """A cover letter: no trailers, a diffstat of the series."""
    hdr = ["From: " + AUTHOR, "To: Lee Jones <lee@kernel.org>", "Cc: list@example.org",
           "Subject: " + series_subject(prefix, version, 0, total, compact),
           "Date: " + email.utils.formatdate(localtime=True),
           "Message-ID: " + msgid_of(prefix, 0)]
    if refs:
        hdr += ["In-Reply-To: " + refs[-1], "References: " + " ".join(refs)]
    hdr += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit", "X-E2E-Kind: cover"]
    body = ("This series makes foo_remove() wait for the hardware (%s).\n\n"
            "A U Thor (%d):\n" % (prefix, total)
            + "".join("  leds: foo: part %d of %s\n" % (i, prefix) for i in range(1, total + 1))
            + "\n drivers/leds/leds-foo.c | %d +-\n 1 file changed\n\n-- \n2.47.0\n" % total)
    return crlf(hdr, body)


def make_member(kind, prefix, version, i, total, refs, compact=False):
    """Patch i of a series: make_patch()'s mail with the series' subject and threading."""
    raw = make_patch(kind, prefix, i, now=True).decode()
    head, _, body = raw.partition("\r\n\r\n")
    out = []
    for line in head.split("\r\n"):
        if line.startswith("Subject: "):
            line = "Subject: " + series_subject(prefix, version, i, total, compact)
        out.append(line)
    if refs:
        out[6:6] = ["In-Reply-To: " + refs[-1], "References: " + " ".join(refs)]
    return ("\r\n".join(out) + "\r\n\r\n" + body).encode()


def series(directory, prefix, kinds, version=1, cover=True, threaded=True, parent=None,
           compact=False):
    """The files of one series; threaded as git send-email does: the patches
    answer the cover, or without one, the first patch."""
    os.makedirs(directory, exist_ok=True)
    base = []
    if parent:
        pm = read_patch(parent)
        base = ids(pm["References"]) + [pm["Message-ID"].strip()]
    total = len(kinds)
    files = {}
    if cover:
        files[0] = make_cover(prefix, version, total, base, compact)
        head = base + [msgid_of(prefix, 0)]
    else:
        head = base
    for i, kind in enumerate(kinds, 1):
        refs = head if threaded else []
        files[i] = make_member(kind, prefix, version, i, total, refs, compact)
        if i == 1 and not cover and threaded:
            head = base + [msgid_of(prefix, 1)]
    for i, raw in files.items():
        with open(os.path.join(directory, "%s-%d.eml" % (prefix, i)), "wb") as f:
            f.write(raw)
    return 0


def body_of(msg):
    part = msg.get_body(("plain",))
    return part.get_content() if part else ""


def strip_re(subject):
    return re.sub(r"^(\s*re:\s*)+", "", str(subject), flags=re.I)


def request(parent, tag, sender=MAINT, bot=True, cmds=(), quoted_cmds=()):
    """A reply to parent as a maintainer writes it: the patch quoted, the
    bot in Cc (a mail that reaches the bot directly), commands on their own
    lines."""
    pm = read_patch(parent)
    pid = pm["Message-ID"].strip()
    cc = "list@example.org" + (", tagbot <%s>" % BOT_ADDR if bot else "")
    hdr = ["From: " + sender, "To: " + str(pm["From"]), "Cc: " + cc,
           "Subject: Re: " + strip_re(pm["Subject"]),
           "Date: " + email.utils.formatdate(localtime=True),
           "Message-ID: " + "<e2e-%s@example.org>" % tag,
           "In-Reply-To: " + pid, "References: " + " ".join(ids(pm["References"]) + [pid]),
           "MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
           "Content-Transfer-Encoding: 8bit", "X-E2E-Kind: request"]
    quoted = [("> " + l).rstrip() for l in body_of(pm).splitlines()[:12]]
    quoted += ["> " + c for c in quoted_cmds]
    body = ["On Thu, 20 Nov 2025, %s wrote:" % pm["From"].addresses[0].display_name] + quoted
    body += [""] + list(cmds) + ["", "Thanks,", "Maint", ""]
    return crlf(hdr, "\n".join(body))


def relist(path, list_id):
    with open(path, "rb") as f:
        raw = f.read()
    pre = ("Received: from list.example.org by mx.example.org; %s\r\n"
           "List-Id: <%s>\r\nPrecedence: list\r\n" % (email.utils.formatdate(), list_id))
    return pre.encode() + raw


def send(path, rcpts):
    """Through Postfix, as a mail user agent submits it (STARTTLS, verified)."""
    msg = read_patch(path)
    with open(path, "rb") as f:
        raw = f.read()
    ctx = ssl.create_default_context(cafile=os.path.join(os.environ["SRV_DIR"], "ca.pem"))
    with smtplib.SMTP("127.0.0.1", int(os.environ["SMTP_PORT"]), timeout=30) as s:
        s.starttls(context=ctx)
        s.sendmail(msg["From"].addresses[0].addr_spec, rcpts or [BOT_ADDR], raw)
    return 0


SIGNED_HEADERS = [b"from", b"to", b"cc", b"subject", b"date", b"message-id", b"in-reply-to",
                  b"references", b"mime-version", b"content-type"]


def dkim_sign(path):
    """As maint@'s own server signs a mail from example.org."""
    import dkim	# python3-dkim: not in the standard library, needed here only
    with open(path, "rb") as f:
        raw = f.read()
    with open(os.environ["SRV_DKIM_KEY"], "rb") as f:
        key = f.read()
    sig = dkim.sign(raw, b"test", b"example.org", key, canonicalize=(b"relaxed", b"relaxed"),
                    include_headers=SIGNED_HEADERS, linesep=b"\r\n")
    sys.stdout.buffer.write(sig + raw)
    return 0


def header_values(user, msgid, name):
    for m in fetch_all(user):
        if ids(m["Message-ID"])[:1] == [msgid]:
            for v in m.get_all(name) or []:
                print(" ".join(str(v).split()))
            return 0
    print("no mail %s in %s's INBOX" % (msgid, user), file=sys.stderr)
    return 1


def answers(user, msgid):
    """The mails in user's INBOX whose In-Reply-To is msgid."""
    return [r for r in fetch_all(user) if ids(r["In-Reply-To"])[:1] == [msgid]]


def save_reply(user, msgid):
    m = imap_login(user)
    m.select("INBOX", readonly=True)
    typ, data = m.uid("FETCH", "1:*", "(BODY.PEEK[])")
    m.logout()
    for item in data or []:
        if isinstance(item, tuple):
            msg = email.message_from_bytes(item[1], policy=email.policy.default)
            if ids(msg["In-Reply-To"])[:1] == [msgid]:
                sys.stdout.buffer.write(item[1])
                return 0
    sys.stderr.write("e2e-mail: no mail in %s's INBOX answers %s\n" % (user, msgid))
    return 1


def none(user, msgids):
    got = replied_to(user)
    bad = ["%s has %d answers, wanted none" % (m, got[m]) for m in msgids if m in got]
    return report(bad, "%d mails, %d answered" % (len(msgids), len(bad)))


def threading_problems(parent, reply, to_addr):
    """What is wrong with reply's threading under parent (a list of strings)."""
    pid = parent["Message-ID"].strip()
    bad = []
    if to_addr not in [a.addr_spec for a in reply["To"].addresses]:
        bad.append("To: %s lacks %s" % (reply["To"], to_addr))
    if str(reply["Subject"]) != "Re: " + strip_re(parent["Subject"]):
        bad.append("Subject: %r, wanted %r" % (str(reply["Subject"]),
                                               "Re: " + strip_re(parent["Subject"])))
    if ids(reply["In-Reply-To"]) != [pid]:
        bad.append("In-Reply-To: %s" % reply["In-Reply-To"])
    want = (ids(parent["References"]) + [pid])[-20:]
    if ids(reply["References"])[-len(want):] != want:
        bad.append("References: %s, wanted them to end in %s" % (reply["References"],
                                                               " ".join(want)))
    if str(reply["Auto-Submitted"] or "").strip() != "auto-generated":
        bad.append("Auto-Submitted: %s" % reply["Auto-Submitted"])
    if BOT_ADDR not in [a.addr_spec for a in reply["From"].addresses]:
        bad.append("From: %s" % reply["From"])
    return bad


def rules_header(reply):
    return sorted(r.strip() for r in str(reply["X-Tagbot-Rules"] or "").split(",") if r.strip())


def findings_problems(kind, reply, text, start=0, end=None):
    """kind's rules and its quoted line in text[start:end] and X-Tagbot-Rules."""
    k = KINDS[kind]
    seg = text[start:end]
    bad = []
    for rule in k["rules"]:
        if rule not in rules_header(reply):
            bad.append("X-Tagbot-Rules: %s lacks %s" % (rules_header(reply), rule))
        if rule not in seg:
            bad.append("the body does not name %s there" % rule)
    if k["quote"] and ("| " + k["quote"]) not in [l.strip() for l in seg.splitlines()]:
        bad.append("the body does not quote %r with '| ' there" % k["quote"])
    return bad


def patch_ident(text, msg, start):
    """Where text (from start) first names the patch msg: its n/m or its subject."""
    m = re.search(r"\[PATCH[^\]]*?(\d+/\d+)\]", str(msg["Subject"]))
    found = []
    if m:
        n = re.compile(r"(?<![\d/])%s(?![\d/])" % re.escape(m.group(1)))
        hit = n.search(text, start)
        if hit:
            found.append(hit.start())
    short = re.sub(r"^\[[^\]]*\]\s*", "", str(msg["Subject"]))
    at = text.find(short, start)
    if at >= 0:
        found.append(at)
    return min(found) if found else -1


def verify_series(user, args):
    """One reply to the head of the series, listing each patch's findings
    under the patch's name, in order; none to the other members."""
    head = None
    if "--head" in args:
        i = args.index("--head")
        head, args = args[i + 1], args[:i] + args[i + 2:]
    msgs = [read_patch(p) for p in args]
    hmsg = read_patch(head) if head else msgs[0]
    hid = hmsg["Message-ID"].strip()
    bad_members = [m for m in msgs if KINDS[m["X-E2E-Kind"]]["rules"]]
    got = replied_to(user)
    fails = []
    for m in msgs:
        mid = m["Message-ID"].strip()
        want = 1 if mid == hid and bad_members else 0
        if got.get(mid, 0) != want:
            fails.append("%s (%s): %d replies, wanted %d" % (mid, m["X-E2E-Kind"],
                                                             got.get(mid, 0), want))
    if bad_members and got.get(hid, 0) == 1:
        reply = answers(user, hid)[0]
        fails += ["reply to %s: %s" % (hid, b) for b in threading_problems(hmsg, reply,
                                                                           AUTHOR_ADDR)]
        fails += ["reply to %s: %s" % (hid, b) for b in series_body_problems(reply, bad_members)]
        union = sorted({r for m in bad_members for r in KINDS[m["X-E2E-Kind"]]["rules"]})
        if rules_header(reply) != union:	# another series' findings mixed in
            fails.append("reply to %s: X-Tagbot-Rules %s, wanted %s"
                         % (hid, rules_header(reply), union))
    return report(fails, "series of %d, %d with findings, head %s: %d problems"
                  % (len(msgs), len(bad_members), hid, len(fails)))


def series_body_problems(reply, bad_members):
    """Each patch with findings is named, and its findings follow its name
    before the next such patch is named."""
    text = body_of(reply)
    fails, at = [], 0
    for j, m in enumerate(bad_members):
        a = patch_ident(text, m, at)
        if a < 0:
            fails.append("the body does not name %r (after offset %d)" % (str(m["Subject"]), at))
            continue
        nxt = patch_ident(text, bad_members[j + 1], a + 1) if j + 1 < len(bad_members) else -1
        end = nxt if nxt > a else None
        fails += ["%s: %s" % (m["Message-ID"].strip(), b)
                  for b in findings_problems(m["X-E2E-Kind"], reply, text, a, end)]
        at = a + 1
    return fails


def verify_cc(user, args):
    """One answer to the request, to its sender, threaded under it, about
    the parent patch: its findings, or "no tag problems found"."""
    explain = [args[i + 1] for i, a in enumerate(args) if a == "--explain"]
    check = "--no-check" not in args
    files = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or args[i - 1] != "--explain")]
    req, parent = read_patch(files[0]), read_patch(files[1])
    rid = req["Message-ID"].strip()
    got = answers(user, rid)
    if len(got) != 1:
        return report(["%s: %d answers, wanted 1" % (rid, len(got))], "cc: %s" % rid)
    reply = got[0]
    sender = req["From"].addresses[0].addr_spec
    fails = threading_problems(req, reply, sender)
    text = body_of(reply)
    kind = parent["X-E2E-Kind"]
    if check and KINDS[kind]["rules"]:
        fails += findings_problems(kind, reply, text)
    elif check and "no tag problems found" not in text.lower():
        fails.append("a clean parent, and the body does not say 'no tag problems found'")
    for rule in explain:
        fails += cc_explain_problems(rule, text)
    for line in text.splitlines():	# b4 must not harvest a tag from the answer
        if re.match(r"(Signed-off-by|Change-Id|Reviewed-by|Signed-Off-By):", line):
            fails.append("body holds an unquoted tag line %r" % line)
    return report(["%s: %s" % (rid, f) for f in fails],
                  "cc: answer to %s, %d problems" % (rid, len(fails)))


# What tagbot-rules(7) gives as the source of a rule, which an explanation names.
EXPLAIN_DOC = {"BAD_SIGN_OFF": "submitting-patches", "GERRIT_CHANGE_ID": "submitting-patches",
               "MISSING_SIGN_OFF": "submitting-patches"}


def cc_explain_problems(rule, text):
    bad = []
    if rule not in text:
        bad.append("the explanation does not name %s" % rule)
    doc = EXPLAIN_DOC.get(rule)
    if doc and doc not in text:
        bad.append("the explanation of %s does not name %s" % (rule, doc))
    return bad


def recorded(db, paths):
    """Each mail is in the store's messages, with no reply queued for it."""
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    fails = []
    for p in paths:
        key = store_key(read_patch(p)["Message-ID"])
        row = con.execute("SELECT decision FROM messages WHERE msgid = ?", (key,)).fetchone()
        out = con.execute("SELECT count(*) FROM outbox WHERE parent_msgid = ?", (key,)).fetchone()
        if not row:
            fails.append("%s: not recorded" % key)
        elif row[0] == "replied" or out[0]:
            fails.append("%s: decision %s, %d outbox rows" % (key, row[0], out[0]))
    con.close()
    return report(["store: " + f for f in fails], "store: %d mails, %d wrong" % (len(paths),
                                                                                len(fails)))


def opt_values(args, name):
    return [args[i + 1] for i, a in enumerate(args) if a == name and i + 1 < len(args)]


def main_more(cmd, args):
    """The series and Cc-mode subcommands; None when cmd is none of them."""
    if cmd == "series":
        v = opt_values(args, "--version")
        parent = opt_values(args, "--in-reply-to")
        return series(args[0], args[1], args[2].split(","), int(v[0]) if v else 1,
                      "--no-cover" not in args, "--unthreaded" not in args,
                      parent[0] if parent else None, "--compact" in args)
    if cmd == "request":
        frm = opt_values(args, "--from")
        sys.stdout.buffer.write(request(args[0], args[1], frm[0] if frm else MAINT,
                                        "--no-bot" not in args, opt_values(args, "--cmd"),
                                        opt_values(args, "--quote-cmd")))
        return 0
    if cmd == "relist":
        sys.stdout.buffer.write(relist(args[0], args[1]))
        return 0
    if cmd == "send":
        return send(args[0], args[1:])
    if cmd == "dkim-sign":
        return dkim_sign(args[0])
    if cmd == "headers":
        return header_values(args[0], args[1], args[2])
    if cmd == "save-reply":
        return save_reply(args[0], args[1])
    if cmd == "replies":
        print(len(answers(args[0], args[1])))
        return 0
    if cmd == "none":
        return none(args[0], args[1:])
    if cmd == "verify-series":
        return verify_series(args[0], args[1:])
    if cmd == "verify-cc":
        return verify_cc(args[0], args[1:])
    if cmd == "recorded":
        return recorded(args[0], args[1:])
    return None


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
                                               threaded="--threaded" in args,
                                               now="--now" in args))
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
        rc = main_more(cmd, args)
        if rc is not None:
            return rc
    except (OSError, imaplib.IMAP4.error, smtplib.SMTPException, KeyError, IndexError,
            ValueError, AttributeError) as ex:	# AttributeError: a file that is no mail
        die("%s: %s" % (cmd, ex))
    die("unknown command %r" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
