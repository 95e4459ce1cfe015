"""corpus.py - where the benchmarks find the real list archives.

The directory named by TAGBOT_CORPUS, else a corpus/ directory in a folder
beside the checkout (where CI lays them).  Imported by the bench scripts."""
import glob
import os


def find(name):
    """The path of the archive name, or None when it is nowhere."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    places = []
    if os.environ.get("TAGBOT_CORPUS"):
        places.append(os.path.join(os.environ["TAGBOT_CORPUS"], name))
    places += sorted(glob.glob(os.path.join(os.path.dirname(repo), "*", "corpus", name)))
    return next((p for p in places if os.path.isfile(p)), None)
