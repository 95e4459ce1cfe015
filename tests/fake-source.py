#!/usr/bin/env python3
"""fake-source.py - an IMAP or NNTP server that breaks off in the middle of a
message, for tests/source-faults.sh.  Standard library only.

  fake-source.py imap|nntp MODE PORT MAIL EVENTS [BAD [CERT KEY]]

Listens on 127.0.0.1:PORT and serves one mailbox (IMAP: INBOX, UID 1;
NNTP: group test.patches, article 1) holding the file MAIL.  The first BAD
connections (default 1) send the message's first half and then, by MODE:

  cut     close the connection (FIN)
  silent  say nothing more, keeping the connection open until the client
          closes it
  reset   reset the connection (RST: SO_LINGER 0)

Later connections serve the message whole.  With CERT and KEY (PEM files)
every connection is TLS from the first byte, and a cut closes it without
TLS's close_notify.  Every connection is served in a thread of its own.  EVENTS gets one line per event, with the number of
the connection: "connect N", "half N" (the first half went out, the break
follows), "client-closed N", "served N" (a whole message went out); and
"listening 0" first, once the port is open.
The server ends by itself after 10 minutes.
"""

import re
import socket
import ssl
import struct
import sys
import threading
import time

proto, mode, port, mail_path, events_path = sys.argv[1:6]
bad = int(sys.argv[6]) if len(sys.argv) > 6 else 1
tls = None
if len(sys.argv) > 8:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(sys.argv[7], sys.argv[8])
mail = open(mail_path, "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
lock = threading.Lock()
count = 0


def event(what, n):
    with lock:
        with open(events_path, "a") as f:
            f.write("%s %d\n" % (what, n))


def lines(conn):
    buf = b""
    while True:
        while b"\n" not in buf:
            try:
                chunk = conn.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        yield line.rstrip(b"\r").decode("latin-1")


def wait_client_close(conn, n):
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass
    event("client-closed", n)


def break_off(conn, n, head, body):
    """head and the first half of body, then MODE's way of ending."""
    conn.sendall(head + body[:len(body) // 2])
    event("half", n)
    if mode == "cut":
        time.sleep(0.2)
        conn.shutdown(socket.SHUT_RDWR)
        conn.close()
    elif mode == "reset":
        time.sleep(0.2)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    else:
        wait_client_close(conn, n)
        conn.close()


def imap(conn, n):
    conn.sendall(b"* OK [CAPABILITY IMAP4rev1] fake ready\r\n")
    for line in lines(conn):
        tag, _, rest = line.partition(" ")
        cmd = rest.split(" ")[0].upper()
        if cmd == "UID":
            cmd += " " + rest.split(" ")[1].upper()
        out = b""
        if cmd == "CAPABILITY":
            out = b"* CAPABILITY IMAP4rev1\r\n"
        elif cmd in ("SELECT", "EXAMINE"):
            out = (b"* 1 EXISTS\r\n* 0 RECENT\r\n* OK [UIDVALIDITY 7] ok\r\n"
                   b"* OK [UIDNEXT 2] ok\r\n")
        elif cmd == "UID SEARCH":
            out = b"* SEARCH 1\r\n"
        elif cmd == "UID FETCH" and "BODY.PEEK[]" in rest.upper():
            head = b"* 1 FETCH (UID 1 BODY[] {%d}\r\n" % len(mail)
            if n <= bad:
                break_off(conn, n, head, mail)
                return
            out = head + mail + b")\r\n"
            event("served", n)
        elif cmd == "UID FETCH":
            out = b"* 1 FETCH (UID 1 RFC822.SIZE %d)\r\n" % len(mail)
        elif cmd == "LOGOUT":
            conn.sendall(b"* BYE bye\r\n%s OK done\r\n" % tag.encode())
            return
        conn.sendall(out + b"%s OK done\r\n" % tag.encode())


def nntp_article():
    body = mail if mail.endswith(b"\r\n") else mail + b"\r\n"
    return b"".join((b"." + l if l.startswith(b".") else l) + b"\r\n"
                    for l in body.split(b"\r\n")[:-1])


def nntp(conn, n):
    conn.sendall(b"200 fake ready\r\n")
    msgid = re.search(rb"(?im)^message-id:\s*(<[^>]*>)", mail).group(1)
    for line in lines(conn):
        words = line.split()
        cmd = words[0].upper() if words else ""
        if cmd == "MODE":
            out = b"200 reader\r\n"
        elif cmd == "GROUP":
            out = b"211 1 1 1 test.patches\r\n"
        elif cmd in ("XOVER", "OVER"):
            out = (b"224 overview\r\n1\tsubject\tauthor\tdate\t%s\t\t%d\t10\r\n.\r\n"
                   % (msgid, len(mail)))
        elif cmd == "ARTICLE":
            head = b"220 1 %s\r\n" % msgid
            body = nntp_article()
            if n <= bad:
                break_off(conn, n, head, body)
                return
            out = head + body + b".\r\n"
            event("served", n)
        elif cmd == "QUIT":
            conn.sendall(b"205 bye\r\n")
            return
        else:
            out = b"500 what?\r\n"
        conn.sendall(out)


def serve(conn, n):
    try:
        if tls:
            conn = tls.wrap_socket(conn, server_side=True)
        (imap if proto == "imap" else nntp)(conn, n)
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(port)))
s.listen(16)
s.settimeout(1)
event("listening", 0)
end = time.time() + 600
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    count += 1
    event("connect", count)
    threading.Thread(target=serve, args=(c, count), daemon=True).start()
