#!/usr/bin/env python3
"""lying-source.py - an IMAP or NNTP server on 127.0.0.1 that lies the way
tests/integration/source-lies.sh needs: enough of each protocol for
tagbot's sources (src/transport/imap_source.c, nntp_source.c), no TLS.

  lying-source.py imap|nntp PORTFILE LOG DIR

The port it listens on is written to PORTFILE once it listens.  DIR holds
the mail: N.eml is UID N of the folder INBOX (IMAP) or article N of the
group test.group (NNTP).  DIR/rules, read again at every command, says how
to lie, one "N WHAT [SIZE]" a line:

  N omit-once    IMAP: the first UID FETCH of N's body answers without N;
                 NNTP: the first ARTICLE N is 423 (no such article)
  N omit         the same at every fetch
  N huge SIZE    N's body is SIZE bytes made on the fly (the header of N.eml,
                 then lines of x); the size the server gives first (IMAP
                 RFC822.SIZE, the overview's bytes) is N.eml's
  0 xover-junk   NNTP: every overview answer has lines for articles outside
                 the range asked for, too
  -1 expire K    NNTP: from the K-th GROUP on, the low water mark is one
                 above the first article (it expired); after the K-th GROUP
                 itself, until the next, every answer to XOVER and ARTICLE
                 waits 3 seconds ("delay" in LOG)

LOG gets one line per lie told ("omit N", "gone N", "huge N BYTES",
"junk A-B", "delay A-B"), per body served ("body N") and per UID STORE
("store UIDS"), flushed at once.
Standard library only; one thread per connection.
"""

import os
import re
import socket
import socketserver
import sys
import threading
import time

GROUP = "test.group"
CHUNK = 1 << 20
LOCK = threading.Lock()
COUNTS = {}		# (what, n) -> times done, for the *-once rules


def log(line):
    with LOCK:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def rules():
    out = {}
    try:
        with open(os.path.join(DIR, "rules")) as f:
            for line in f:
                w = line.split()
                if len(w) >= 2:
                    out[int(w[0])] = (w[1], int(w[2]) if len(w) > 2 else 0)
    except OSError:
        pass
    return out


def numbers():
    return sorted(int(m.group(1)) for m in
                  (re.fullmatch(r"(\d+)\.eml", f) for f in os.listdir(DIR)) if m)


def raw(n):
    with open(os.path.join(DIR, "%d.eml" % n), "rb") as f:
        data = f.read()
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def once(what, n):
    """True the first time (what, n) is asked about."""
    with LOCK:
        k = COUNTS.get((what, n), 0)
        COUNTS[(what, n)] = k + 1
    return k == 0


def missing(n):
    r = rules().get(n)
    if not r:
        return False
    return r[0] == "omit" or (r[0] == "omit-once" and once("omit", n))


def huge_size(n):
    r = rules().get(n)
    return r[1] if r and r[0] == "huge" else 0


def huge_chunks(n, size):
    """size bytes: n's header, a blank line, lines of x; never held whole."""
    head = raw(n).split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
    line = b"x" * 78 + b"\r\n"
    block = line * (CHUNK // len(line))
    yield head[:size]
    left = size - min(size, len(head))
    while left > 0:
        k = min(left, len(block))
        piece = block[:k]
        if k < len(block) and k >= 2:
            piece = piece[:-2] + b"\r\n"	# end on a whole line
        yield piece
        left -= k


class Conn(socketserver.StreamRequestHandler):
    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(data)
        self.wfile.flush()

    def handle(self):
        try:
            (self.imap if PROTO == "imap" else self.nntp)()
        except (BrokenPipeError, ConnectionResetError):
            pass

    # --- IMAP -------------------------------------------------------------

    def imap(self):
        self.send("* OK [CAPABILITY IMAP4rev1] fake ready\r\n")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            words = line.decode("latin-1").strip().split(" ", 2)
            tag, cmd = words[0], words[1].upper() if len(words) > 1 else ""
            rest = words[2] if len(words) > 2 else ""
            if cmd == "CAPABILITY":
                self.send("* CAPABILITY IMAP4rev1\r\n%s OK done\r\n" % tag)
            elif cmd == "LOGIN":
                self.send("%s OK logged in\r\n" % tag)
            elif cmd in ("SELECT", "EXAMINE"):
                ns = numbers()
                self.send("* FLAGS (\\Seen)\r\n* %d EXISTS\r\n* 0 RECENT\r\n"
                          "* OK [UIDVALIDITY 7] v\r\n* OK [UIDNEXT %d] n\r\n"
                          "%s OK [READ-ONLY] done\r\n" %
                          (len(ns), (ns[-1] if ns else 0) + 1, tag))
            elif cmd == "UID":
                self.uid(tag, rest)
            elif cmd == "NOOP":
                self.send("%s OK done\r\n" % tag)
            elif cmd == "LOGOUT":
                self.send("* BYE bye\r\n%s OK done\r\n" % tag)
                return
            else:
                self.send("%s BAD unknown\r\n" % tag)

    def uid(self, tag, rest):
        sub, _, args = rest.partition(" ")
        ns = numbers()
        if sub.upper() == "SEARCH":
            self.send("* SEARCH %s\r\n%s OK done\r\n" %
                      (ns[-1] if ns else "", tag))
            return
        if sub.upper() == "STORE":
            log("store %s" % args.split(" ", 1)[0])
            self.send("%s OK done\r\n" % tag)
            return
        uidset, _, what = args.partition(" ")
        want = set()
        for part in uidset.split(","):
            a, _, b = part.partition(":")
            top = ns[-1] if ns else 0
            lo = top if a == "*" else int(a)
            hi = lo if not b else top if b == "*" else int(b)
            want.update(range(min(lo, hi), max(lo, hi) + 1))
        body = "BODY" in what.upper()
        for seq, n in enumerate(ns, 1):
            if n not in want:
                continue
            if not body:
                self.send("* %d FETCH (UID %d RFC822.SIZE %d)\r\n" %
                          (seq, n, len(raw(n))))
                continue
            if missing(n):
                log("omit %d" % n)
                continue
            size = huge_size(n)
            if size:
                log("huge %d %d" % (n, size))
                self.send("* %d FETCH (UID %d BODY[] {%d}\r\n" % (seq, n, size))
                for piece in huge_chunks(n, size):
                    self.send(piece)
                self.send(")\r\n")
                continue
            data = raw(n)
            log("body %d" % n)
            self.send(b"* %d FETCH (UID %d BODY[] {%d}\r\n" % (seq, n, len(data)) +
                      data + b")\r\n")
        self.send("%s OK done\r\n" % tag)

    # --- NNTP -------------------------------------------------------------

    def nntp(self):
        self.send("200 fake ready\r\n")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            w = line.decode("latin-1").strip().split()
            cmd = w[0].upper() if w else ""
            if cmd == "MODE":
                self.send("200 reader\r\n")
            elif cmd == "GROUP":
                ns = numbers()
                with LOCK:
                    COUNTS["group"] = COUNTS.get("group", 0) + 1
                low = (ns[0] if ns else 1) + (1 if self.expired() else 0)
                self.send("211 %d %d %d %s\r\n" %
                          (len(ns), low, ns[-1] if ns else 0, GROUP))
            elif cmd in ("XOVER", "OVER"):
                self.xover(w[1] if len(w) > 1 else "")
            elif cmd == "ARTICLE":
                self.article(int(w[1]))
            elif cmd == "QUIT":
                self.send("205 bye\r\n")
                return
            else:
                self.send("500 unknown\r\n")

    def over_line(self, n):
        data = raw(n)
        m = re.search(rb"^Message-ID:\s*(<[^>]*>)", data, re.M | re.I)
        mid = m.group(1).decode() if m else ""
        return "%d\tsubject\tauthor\tdate\t%s\t\t%d\t%d\r\n" % (
            n, mid, len(data), data.count(b"\n"))

    def xover(self, rng):
        a, _, b = rng.partition("-")
        lo, hi = int(a), int(b) if b else int(a)
        self.delay("%d-%d" % (lo, hi))
        out = "224 overview\r\n"
        if rules().get(0, ("",))[0] == "xover-junk":
            log("junk %d-%d" % (lo, hi))
            out += "%d\tjunk\tx\tx\t<junk-high@example.org>\t\t10\t1\r\n" % (hi + 1000)
            if lo > 1:
                out += "%d\tjunk\tx\tx\t<junk-low@example.org>\t\t10\t1\r\n" % (lo - 1)
        for n in numbers():
            if lo <= n <= hi:
                out += self.over_line(n)
        self.send(out + ".\r\n")

    def expired(self, just=False):
        r = rules().get(-1)
        k = COUNTS.get("group", 0)
        return bool(r and r[0] == "expire" and (k == r[1] if just else k >= r[1]))

    def delay(self, what):
        if self.expired(just=True):
            log("delay %s" % what)
            time.sleep(3)

    def article(self, n):
        self.delay("%d" % n)
        if n not in numbers() or missing(n):
            log("gone %d" % n)
            self.send("423 no such article\r\n")
            return
        size = huge_size(n)
        self.send("220 %d <x> article\r\n" % n)
        if size:
            log("huge %d %d" % (n, size))
            for piece in huge_chunks(n, size):
                self.send(piece)
        else:
            log("body %d" % n)
            data = raw(n)
            data = re.sub(rb"(?m)^\.", b"..", data)
            if not data.endswith(b"\r\n"):
                data += b"\r\n"
            self.send(data)
        self.send(".\r\n")


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    PROTO, PORTFILE, LOG, DIR = sys.argv[1:5]
    srv = Server(("127.0.0.1", 0), Conn)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(PORTFILE + ".tmp", PORTFILE)
    srv.serve_forever()
