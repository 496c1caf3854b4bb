"""The child process that makes or extends a kind's approximate graph (`vectors/_ann.py`) while
the process that started it goes on searching exactly: `python -m onlooker.vectors._ann_build
INDEX KIND MODEL [ANN_FROM]` (the threshold of the process that started it). It runs at low
priority on one core, one per graph at a time (a lock file beside it); it exits 0 when a graph
was written or none was due."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

from ..store._database import Database
from . import _ann
from .index import VectorIndex


def main(argv: list[str]) -> int:
    path, kind, model = Path(argv[0]), argv[1], argv[2]
    if len(argv) > 3:
        _ann.ANN_FROM = int(argv[3])
    with contextlib.suppress(OSError):
        os.nice(10)
    lock_path = _ann.meta_path(path, kind, model).with_suffix(".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # another builder is at it
        database = Database(path)
        try:
            index = VectorIndex(database, kind, model=model, backend="numpy", approximate=False)
            return 0 if index.build_graph(threads=1, only_if_due=True) is not False else 1
        finally:
            database.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
