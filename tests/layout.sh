#!/bin/sh
# tests/layout.sh - the include graph of src/ keeps the shape README's
# layout describes:
#   - no include circle between modules (a module is foo.c with foo.h);
#   - lib/, mail/, rules/, reply/, store/ and transport/ include no header of
#     config/, daemon/ or cli/; and no folder includes one above it
#     (lib < mail < rules < reply < store < transport < config < daemon < cli);
#   - transport/ includes no store/ header (a lookup's cache is an interface
#     the caller fills: daemon/cachestore.h);
#   - a folder's _p.h is included from that folder only;
#   - each outside library's headers are included by one folder, and some by
#     the files ONLY names: SQLite's and libpq's (store/db_sqlite.c,
#     store/db_pg.c), libetpan's NNTP and IMAP clients, GnuTLS;
#   - in the folders CALLS_ONE_WAY names (daemon/, rules/), no two .c files
#     call each other's functions both ways: the helpers every file uses
#     live in a leaf (daemon/clock.c, rules/findings.c).  A call is the
#     name of a function another file of the folder defines (not static),
#     followed by "(", outside comments.
# With -v it prints the module graph's edges between folders too.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
exec python3 - "$top_srcdir/src" "$@" <<'PY'
import os, re, sys

src = sys.argv[1]
verbose = "-v" in sys.argv[2:]
ORDER = ["lib", "mail", "rules", "reply", "store", "transport", "config", "daemon", "cli", "."]
LOW = ORDER[:6]
# outside library: the include prefix, the one folder allowed to use it
OUTSIDE = {
    "sqlite3.h": "store", "iniparser": "config", "curl/": "transport",
    "libetpan/": "transport", "gnutls/": "transport", "pcre2.h": "lib",
}
# mail/message.c parses MIME with libetpan's MIME API (STYLE.md), the one
# exception to one folder per library: its IMAP side is transport's.
EXTRA = {("libetpan/", "mail/message.c")}
# Inside its folder, a library's headers by the start of their name: the
# files allowed them.  Within store/, one driver file per engine (db.h): only
# it includes the engine's library.  libetpan's NNTP client is
# nntp_source.c's alone, its IMAP client (the whole of libetpan.h)
# imap_source.c's; netconn.c, which both share, has its mailstream and TLS.
ONLY = {
    "sqlite3.h": {"store/db_sqlite.c"},
    "libpq-fe.h": {"store/db_pg.c"},
    "libetpan/newsnntp": {"transport/nntp_source.c"},
    "libetpan/nntp": {"transport/nntp_source.c"},
    "libetpan/libetpan.h": {"transport/imap_source.c", "mail/message.c"},
    "libetpan/mailimap": {"transport/imap_source.c"},
    "gnutls/": {"transport/netconn.c"},
}
# Folders that are siblings despite ORDER: the first includes nothing of the second.
APART = {("transport", "store")}
# Folders whose files call each other one way only.
CALLS_ONE_WAY = ("daemon", "rules")

def folder(path):
    d = os.path.dirname(path)
    return d if d else "."

def module(path):
    # foo_p.h is the inside of module foo, not a module of its own.
    return re.sub(r"_p$", "", re.sub(r"\.[ch]$", "", path))

files = {}
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith((".c", ".h")) and n != "autoconf.h":
            p = os.path.relpath(os.path.join(root, n), src)
            files[p] = open(os.path.join(root, n), errors="replace").read()

bad = []
edges = {}
for p, text in sorted(files.items()):
    for inc in re.findall(r'(?m)^\s*#\s*include\s+"([^"]+)"', text):
        if inc == "autoconf.h":
            continue
        if inc not in files:
            bad.append(f"{p}: includes {inc}, which is not under src/")
            continue
        f, g = folder(p), folder(inc)
        if ORDER.index(g) > ORDER.index(f):
            bad.append(f"{p}: {f}/ includes {inc} of {g}/, a folder above it")
        if (f, g) in APART:
            bad.append(f"{p}: {f}/ includes {inc}; {f}/ and {g}/ stay apart")
        if inc.endswith("_p.h") and g != f:
            bad.append(f"{p}: includes {inc}, private to {g}/")
        a, b = module(p), module(inc)
        if a != b:
            edges.setdefault(a, set()).add(b)
    for inc in re.findall(r'(?m)^\s*#\s*include\s+<([^>]+)>', text):
        for prefix, owner in OUTSIDE.items():
            if inc.startswith(prefix) and folder(p) != owner and (prefix, p) not in EXTRA:
                bad.append(f"{p}: includes <{inc}>, which only {owner}/ may")
        for prefix, allowed in ONLY.items():
            if inc.startswith(prefix) and p not in allowed:
                bad.append(f"{p}: includes <{inc}>, which only {', '.join(sorted(allowed))} may")

# Tarjan: every strongly connected component of more than one module is a circle.
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            sccs.append(sorted(c))
sys.setrecursionlimit(10000)
for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
    if v not in index:
        visit(v)
for c in sccs:
    bad.append("include circle: " + " <-> ".join(c))

# Calls between the .c files of a folder, both ways.
DEF = re.compile(r"(?m)^([a-z][^\n(;]*?)\b([a-z_][a-z0-9_]*)\(([^;{]*)\)\s*\n\{")
for d in CALLS_ONE_WAY:
    cs = {p: re.sub(r"(?s)/\*.*?\*/", "", t) for p, t in files.items()
          if folder(p) == d and p.endswith(".c")}
    defs = {m.group(2): p for p, t in cs.items() for m in DEF.finditer(t)
            if not m.group(1).startswith("static")}
    calls = {}
    for p, t in cs.items():
        for name in set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", t)):
            if name in defs and defs[name] != p:
                calls.setdefault((p, defs[name]), set()).add(name)
    for (a, b), names in sorted(calls.items()):
        if a < b and (b, a) in calls:
            bad.append(f"{a} and {b} call each other: {', '.join(sorted(names))} | "
                       f"{', '.join(sorted(calls[(b, a)]))}")

if verbose:
    fe = {}
    for a, ws in edges.items():
        for b in ws:
            if folder(a) != folder(b):
                fe.setdefault((folder(a), folder(b)), 0)
                fe[(folder(a), folder(b))] += 1
    for (a, b), k in sorted(fe.items(), key=lambda x: (ORDER.index(x[0][0]), ORDER.index(x[0][1]))):
        print(f"{a} -> {b}: {k}")
    print(f"{sum(len(w) for w in edges.values())} module arrows, {len(sccs)} circles")
for b in bad:
    print("layout:", b)
sys.exit(1 if bad else 0)
PY
