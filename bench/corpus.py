"""corpus.py - where the benchmarks find the real list archives.

The directory named by TAGBOT_CORPUS, else a corpus/ directory in a folder
beside the checkout (where CI lays them), and how they are read: as
mails, and as copies that are new mail to the bot.  Imported by the bench
scripts."""
import glob
import gzip
import lzma
import os
import re

ID_HEADERS = re.compile(rb"(?im)^(message-id|in-reply-to|references):(.*(?:\n[ \t].*)*)")
ANGLE = re.compile(rb"<([^<>@\s]+)@")


def find(name):
    """The path of the archive name, or None when it is nowhere."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    places = []
    if os.environ.get("TAGBOT_CORPUS"):
        places.append(os.path.join(os.environ["TAGBOT_CORPUS"], name))
    places += sorted(glob.glob(os.path.join(os.path.dirname(repo), "*", "corpus", name)))
    return next((p for p in places if os.path.isfile(p)), None)


def read_mails(path):
    """The mails of the mbox at path (.gz, .xz or plain), each with its
    "From " line."""
    opener = gzip.open if path.endswith(".gz") else lzma.open if path.endswith(".xz") else open
    with opener(path, "rb") as f:
        data = f.read()
    starts = [m.start() for m in re.finditer(rb"^From ", data, re.M)]
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def renamed(mail, k):
    """mail with the local part of every Message-ID it names suffixed .cK."""
    if k == 0:
        return mail
    head, sep, body = mail.partition(b"\n\n")
    tag = b".c%d@" % k

    def ids(m):
        return m.group(1) + b":" + ANGLE.sub(lambda a: b"<" + a.group(1) + tag, m.group(2))
    return ID_HEADERS.sub(ids, head) + sep + body
