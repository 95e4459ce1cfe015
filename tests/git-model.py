#!/usr/bin/python3
"""git-model.py - compare what tagbot reads in mail with what git reads.

    git-model.py --tagbot BIN --known FILE [--out FILE] [--keep-known] NAME=PATH...

For each PATH (a mail, an mbox, or one compressed with gzip or xz), git is the
oracle: `git mailsplit -b --mboxrd` splits it, `git mailinfo --scissors` reads
each mail (author, subject, the commit message up to the patch), and `git
interpret-trailers --parse` reads the trailer block of the commit message git
am would make ("subject", a blank line, the message).  tagbot reads the same
file once with `tagbot check --format=json`, whose "mail", "author", "title",
"message" and "trailers" fields are its model.  Compared, per mail:

    count     how many mails the file holds
    author    name and address of the author
    title     the subject as a commit title
    first     the first non-blank line of the commit message
    last      the last non-blank line of it (where the message ends)
    trailers  the trailer block: token and value of each trailer, in order

Only the first part of a mail tagbot splits into several is compared (git
am makes one commit of a mail).  The commit message (first, last, trailers)
is compared for the mails tagbot checks, patches and cover letters: a
reply or a pull request is no commit message, and tagbot reads only its
first text part where git mailinfo runs on into the signature part.  A mail that tagbot reports as an error has
no model and is a "count" disagreement.

Each disagreement is a line "NAME MESSAGE-ID FIELD" (the mail's number in
its file when it has no Message-ID).  FILE (--known) lists the deliberate
ones: "class NAME: reason" lines say why, and each "NAME MESSAGE-ID FIELD
CLASS" line names a disagreement and its class.  "class? NAME: reason" is
a class whose disagreements may come and go (git reading memory it should
not): they need not occur.  The exit status is 1 when
a disagreement is not in FILE, or when FILE lists one for a NAME that was
compared and it did not occur (the list must not outlive what it excuses).
--out writes every disagreement found, with both sides, for reading.
"""

import argparse
import concurrent.futures
import gzip
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

FIELDS = ("count", "author", "title", "first", "last", "trailers")
BODY = ("first", "last", "trailers")	# compared for patches and cover letters


def open_any(path):
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic == b"\xfd7zXZ\x00":
        return lzma.open(path, "rb")
    return open(path, "rb")


def text(b):
    """Bytes as tagbot's JSON shows them: invalid UTF-8 as U+FFFD."""
    return b.decode("utf-8", "replace")


def norm(s):
    """White space runs as one space, ends trimmed: the comparison is of
    what was read, not of how a tool re-spaces it."""
    return " ".join(s.split())


def run_git(args, data=None):
    r = subprocess.run(["git"] + args, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return r.stdout


def git_mail(job):
    """What git am would take from one split mail; the trailers only when
    they are compared (the commit message of a reply is not)."""
    path, want_body = job
    d = os.path.dirname(path)
    base = os.path.basename(path)
    msg, patch = os.path.join(d, base + ".msg"), os.path.join(d, base + ".patch")
    with open(path, "rb") as f:
        r = subprocess.run(["git", "mailinfo", "--scissors", "-u", msg, patch], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        return {"error": text(r.stderr).strip()}
    info = r.stdout
    hdr = {}
    for line in text(info).split("\n"):
        k, sep, v = line.partition(": ")
        if sep and k in ("Author", "Email", "Subject"):
            hdr[k] = v
    try:
        with open(msg, "rb") as f:
            body = f.read()
    except OSError:
        body = b""
    subject = hdr.get("Subject", "")
    lines = [text(l) for l in body.split(b"\n") if l.strip()]
    parsed = b""
    if want_body:
        parsed = run_git(["interpret-trailers", "--parse", "--no-divider"],
                         subject.encode() + b"\n\n" + body)
    trailers = []
    for line in text(parsed).split("\n"):
        tok, sep, val = line.partition(":")
        if sep:
            trailers.append((tok.strip(), norm(val)))
    for f in (msg, patch):
        if os.path.exists(f):
            os.unlink(f)
    return {
        "author": (norm(hdr.get("Author", "")), hdr.get("Email", "").strip()),
        "title": norm(subject),
        "first": norm(lines[0]) if lines else None,
        "last": norm(lines[-1]) if lines else None,
        "trailers": trailers,
    }


def git_side(mbox, work, jobs, ours):
    split = os.path.join(work, "split")
    os.mkdir(split)
    out = run_git(["mailsplit", "-b", "--mboxrd", "-o" + split, mbox])
    n = int(text(out).strip() or 0)
    files = [os.path.join(split, "%04d" % (i + 1)) for i in range(n)]
    todo = [(f, checked(ours.get(i + 1))) for i, f in enumerate(files)]
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        mails = list(ex.map(git_mail, todo))
    ids = []
    for f in files:
        ids.append(message_id(f))
    shutil.rmtree(split)
    return mails, ids


MSGID = re.compile(rb"^message-id:[ \t]*(.*(?:\n[ \t].*)*)", re.I | re.M)


def message_id(path):
    with open(path, "rb") as f:
        head = f.read().split(b"\n\n", 1)[0]
    m = MSGID.search(head)
    if not m:
        return None
    v = text(b" ".join(m.group(1).split()))
    m2 = re.search(r"<([^>]*)>", v)
    return m2.group(1) if m2 else v.strip() or None


def checked(t):
    """Whether a mail's commit message is compared: a patch's or a cover
    letter's, what tagbot checks."""
    return t is not None and t["kind"] in ("patch", "cover")


def sane_name(name, email):
    """git mailinfo's get_sane_name(): a name shorter than 3 bytes, longer
    than 60 or holding '@', '<' or '>' is replaced by the address.  That is
    how git am records an author, not how it reads the mail, so the same is
    done to tagbot's name before the two are compared."""
    b = name.encode()
    if len(b) < 3 or len(b) > 60 or re.search(r"[@<>]", name):
        return email
    return name


def tagbot_side(tagbot, mbox):
    r = subprocess.run([tagbot, "check", "--no-config", "--no-tree", "--format=json", mbox],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    mails = {}
    for line in r.stdout.decode("utf-8").splitlines():
        o = json.loads(line)
        i = o.get("mail")
        if i is None or i in mails:
            continue	# an error about the file, or a further part
        if "error" in o:
            mails[i] = None
            continue
        m = o["message"]
        mails[i] = {
            "kind": o["kind"],
            "author": (norm(sane_name(o["author"]["name"], o["author"]["email"])),
                       o["author"]["email"]),
            "title": norm(o["title"]),
            "first": norm(m["first"]["text"]) if m else None,
            "last": norm(m["last"]["text"]) if m else None,
            "trailers": [(t["token"], norm(t["value"])) for t in o["trailers"]],
        }
    return mails


def compare(name, path, tagbot, jobs, found):
    with tempfile.TemporaryDirectory(prefix="git-model.") as work:
        mbox = os.path.join(work, "in.mbox")
        with open_any(path) as src, open(mbox, "wb") as dst:
            shutil.copyfileobj(src, dst)
        ours = tagbot_side(tagbot, mbox)
        gits, ids = git_side(mbox, work, jobs, ours)
    n = max(len(gits), max(ours, default=0))
    if len(gits) != len(ours):
        found[(name, "-", "count")] = (len(ours), len(gits))
    for i in range(min(len(gits), n)):
        key = ids[i] or "mail-%d" % (i + 1)
        g, t = gits[i], ours.get(i + 1)
        if t is None or "error" in g:
            found[(name, key, "count")] = ("a mail" if t else "no model",
                                           g.get("error", "a mail"))
            continue
        for f in FIELDS[1:]:
            if f in BODY and not checked(t):
                continue
            if t[f] != g[f]:
                found[(name, key, f)] = (t[f], g[f])
    return len(gits)


def read_known(path):
    classes, known = {}, {}
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith(("class ", "class? ")):
                cname, sep, why = line.split(" ", 1)[1].partition(":")
                if not sep or not why.strip():
                    sys.exit("%s:%d: a class needs a reason" % (path, no))
                classes[cname.strip()] = line.startswith("class?")
                continue
            w = line.split()
            if len(w) != 4 or w[2] not in FIELDS:
                sys.exit("%s:%d: not NAME MESSAGE-ID FIELD CLASS" % (path, no))
            if w[3] not in classes:
                sys.exit("%s:%d: class %s is not defined above" % (path, no, w[3]))
            known[tuple(w[:3])] = w[3]
    return classes, known


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tagbot", required=True)
    ap.add_argument("--known", required=True)
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    classes, known = read_known(a.known)
    found, names, status = {}, set(), 0
    for arg in a.inputs:
        name, _, path = arg.partition("=")
        names.add(name)
        before = len(found)
        n = compare(name, path, a.tagbot, a.jobs, found)
        print("%s: %d mails, %d disagreements" % (name, n, len(found) - before))
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            for k in sorted(found):
                t, g = found[k]
                f.write("%s %s %s%s\n  tagbot: %r\n  git:    %r\n" %
                        (*k, " [" + known[k] + "]" if k in known else "", t, g))
    by_class = {}
    for k in sorted(found):
        if k in known:
            by_class[known[k]] = by_class.get(known[k], 0) + 1
            continue
        t, g = found[k]
        print("not ok - %s %s %s\n  tagbot: %r\n  git:    %r" % (*k, t, g))
        status = 1
    for k in sorted(known):
        if k[0] in names and k not in found and not classes[known[k]]:
            print("not ok - %s %s %s is listed (%s) but no longer differs" % (*k, known[k]))
            status = 1
    for c in sorted(by_class):
        print("deliberate: %s: %d" % (c, by_class[c]))
    print("%d disagreements, %d deliberate, %d not" %
          (len(found), sum(by_class.values()), len(found) - sum(by_class.values())))
    return status


if __name__ == "__main__":
    sys.exit(main())
