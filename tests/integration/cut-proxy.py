#!/usr/bin/env python3
"""cut-proxy.py - a TCP proxy on loopback that cuts a connection in the middle
of what the server sends, for tests/integration/source-cut.sh.  Standard
library only.

  cut-proxy.py LISTEN-PORT SERVER-PORT CUT-BYTES EVENTS [CUTS]

Listens on 127.0.0.1:LISTEN-PORT and forwards each connection to
127.0.0.1:SERVER-PORT, both ways.  On the first CUTS connections (default
1), once CUT-BYTES bytes of the server's data went to the client, it closes
both sides (the client gets a FIN) in the middle of whatever the server was
sending.  EVENTS gets one line per event, with the number of the
connection: "listening 0" first, then "connect N", "cut N" and "closed N"
(one side closed it).  The proxy ends by itself after 10 minutes.
"""

import selectors
import socket
import sys
import threading
import time

listen_port, server_port, cut, events_path = (int(sys.argv[1]), int(sys.argv[2]),
                                              int(sys.argv[3]), sys.argv[4])
cuts = int(sys.argv[5]) if len(sys.argv) > 5 else 1
lock = threading.Lock()


def event(what, n):
    with lock:
        with open(events_path, "a") as f:
            f.write("%s %d\n" % (what, n))


def close(*socks):
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


def forward(client, n):
    try:
        server = socket.create_connection(("127.0.0.1", server_port))
    except OSError:
        client.close()
        return
    limit = cut if n <= cuts else None
    sent = 0
    sel = selectors.DefaultSelector()
    sel.register(client, selectors.EVENT_READ, server)
    sel.register(server, selectors.EVENT_READ, client)
    try:
        while True:
            for key, _ in sel.select():
                src, dst = key.fileobj, key.data
                data = src.recv(65536)
                if not data:
                    event("closed", n)
                    return
                if src is server and limit is not None and sent + len(data) >= limit:
                    dst.sendall(data[:limit - sent])
                    event("cut", n)
                    return
                dst.sendall(data)
                if src is server:
                    sent += len(data)
    except OSError:
        event("closed", n)
    finally:
        close(client, server)


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", listen_port))
s.listen(16)
s.settimeout(1)
event("listening", 0)
count = 0
end = time.time() + 600
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    count += 1
    event("connect", count)
    threading.Thread(target=forward, args=(c, count), daemon=True).start()
