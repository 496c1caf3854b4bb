"""Approximate nearest neighbours for searches over every row of a large matrix (issue 31).

An HNSW graph (usearch, int8 codes; in the embeddings extra) is derived from a kind's vectors, as
the snapshot is, and saved beside it (`vectors/KIND-DIGEST.*.ann.usearch`, described by
`KIND-DIGEST.ann.json`); each process that searches maps it from disk. From ANN_FROM rows up, a
search over every row asks the graph for max(CANDIDATES, 4 × limit) ids, adds the rows written
after the graph was made (the tail: `n` above the graph's `upto`), and scores them all in float32
as the full scan does; ids the table no longer holds are dropped. The answer differs from the
exact one only where the graph fails to offer a row (recall@10 measured in bench_search).

Graphs are made by `onlooker reindex` (in its process, on every core) and, when a searching
process finds none, or its tail or its removals past TAIL_SHARE of the rows, by a child process
at low priority (`_ann_build`): usearch holds the GIL while it adds, which would stop a service's
other threads. The child extends the graph (drops removed ids, adds the tail) or makes it anew,
then replaces the file. A graph is a cache: failing to make or read one leaves the exact search.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ._snapshot import _stem

ANN_FROM = 50_000
"""From this many rows up a search over every row asks the graph (below it the exact scan with
int8 codes costs ~2 ms)."""
CANDIDATES = 200
"""Ids asked of the graph (at least; 4 × limit for larger limits), all scored exactly."""
EXPANSION_SEARCH = 1024
CONNECTIVITY = 16
EXPANSION_ADD = 128
TAIL_SHARE = 0.05
"""The graph is extended once the rows written after it, or the vectors removed since it was made,
pass this share of the rows (and TAIL_MIN): until then the tail is scanned exactly."""
TAIL_MIN = 2_000
RETRY_S = 60.0
"""A process that started a builder waits this long after it ended before it starts another."""


@cache
def available() -> bool:
    """Whether graphs can be made and read (usearch is installed)."""
    try:
        return importlib.util.find_spec("usearch") is not None
    except ValueError:  # blocked in sys.modules (tests): as good as missing
        return False


def usearch_index() -> Any:
    """usearch's `Index` class. onnxruntime is imported first when installed: usearch 2.24 and
    later crash the process when onnxruntime is imported after them (the extra pins an earlier
    usearch; this keeps the order safe anyway)."""
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime  # noqa: F401

    from usearch.index import Index

    return Index


@dataclass(frozen=True, slots=True)
class Graph:
    """A graph mapped from disk, covering the table's rows up to `n` = `upto`."""

    index: Any
    file: str
    upto: int
    removed: int
    size: int


def meta_path(database_path: Path, kind: str, model: str) -> Path:
    return _stem(database_path, kind, model).with_suffix(".ann.json")


def read_meta(path: Path, identity: object) -> dict[str, Any] | None:
    """The description of the graph, if it was made from this index file."""
    try:
        meta = json.loads(path.read_text())
        if meta["identity"] != list(identity or ()):  # type: ignore[call-overload]
            return None
        return meta if isinstance(meta["upto"], int) and isinstance(meta["file"], str) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Graphs:
    """The graph of one cached matrix and its tail, refreshed as the table and the file change."""

    def __init__(self, database_path: Path, kind: str, model: str) -> None:
        self.database_path = database_path
        self.kind = kind
        self.model = model
        self.meta = meta_path(database_path, kind, model)
        self.graph: Graph | None = None
        self.tail: Any = None
        """ids written after the graph (sorted int64), scanned exactly"""
        self.searches = 0
        self._seen: tuple[int, int] | None = None
        self._state: tuple[Any, ...] = ()
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._ended = 0.0

    def update(self, database: Any, state: tuple[Any, ...], rows: int) -> None:
        """Bring the graph and its tail up to date (the file may have been replaced, the table may
        have changed); start a builder when one is due. Called before a search over every row."""
        with self._lock:
            seen = _stat(self.meta)
            if seen != self._seen:
                self._seen = seen
                self.graph = _mapped(self.meta, state[0])
                self._state = ()
            graph = self.graph
            if graph is not None and state != self._state:
                import numpy as np

                found = database._read(
                    lambda c: c.execute(
                        "SELECT id FROM vectors WHERE kind = ? AND model = ? AND n > ?",
                        (self.kind, self.model, graph.upto),
                    ).fetchall()
                )
                self.tail = np.unique(np.array([r[0] for r in found], dtype=np.int64))
                self._state = state
            if self.searches >= 1 and self.due(state, rows):
                self._start_builder()

    def candidates(self, query: Any, limit: int) -> Any | None:
        """Ids to score exactly for the `limit` best of every row (graph's offer and the tail,
        sorted int64), or None without a graph."""
        import numpy as np

        self.searches += 1
        graph, tail = self.graph, self.tail
        if graph is None:
            return None
        found = graph.index.search(query, max(CANDIDATES, 4 * limit), threads=1).keys
        found = found.astype(np.int64)
        return np.union1d(found, tail) if tail is not None and len(tail) else np.unique(found)

    def due(self, state: tuple[Any, ...], rows: int) -> bool:
        """Whether a graph should be made or extended for a matrix of `rows` rows at `state`."""
        graph = self.graph
        if rows < ANN_FROM:
            return False
        if graph is None:
            return True
        most = max(TAIL_MIN, TAIL_SHARE * rows)
        tail = 0 if self.tail is None else len(self.tail)
        return tail > most or state[2] - graph.removed > most

    def _start_builder(self) -> None:
        if self._child is not None:
            if self._child.poll() is None:
                return
            self._child, self._ended = None, time.monotonic()
        if self._ended and time.monotonic() - self._ended < RETRY_S:
            return
        try:
            command = [sys.executable, "-m", "onlooker.vectors._ann_build"]
            self._child = subprocess.Popen(
                [*command, str(self.database_path), self.kind, self.model, str(ANN_FROM)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            self._ended = time.monotonic()

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for a builder this process started (tests, benchmarks); its exit status."""
        child = self._child
        return None if child is None else child.wait(timeout)


def build(
    database_path: Path,
    kind: str,
    model: str,
    state: tuple[Any, ...],
    upto: int,
    ids: Any,
    matrix: Any,
    newer: Any,
    *,
    threads: int = 0,
) -> Path | None:
    """Make the graph of these rows (`ids`, `matrix`: the table up to `n` = `upto`, at `state`), or
    extend the current one: `newer(upto)` gives the ids written after a row number. The new
    file's path, or None when it could not be written."""
    import numpy as np

    index_class = usearch_index()
    meta_file = meta_path(database_path, kind, model)
    old = read_meta(meta_file, state[0])
    graph = None
    ids = np.asarray(ids, dtype=np.int64)
    if old is not None and state[2] - old["removed"] <= max(TAIL_MIN, TAIL_SHARE * len(ids)):
        try:
            graph = index_class.restore(str(meta_file.parent / old["file"]))
        except (OSError, RuntimeError, ValueError):
            graph = None
    if graph is not None:
        assert old is not None
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        fresh = np.unique(np.asarray(newer(old["upto"]), dtype=np.int64))
        fresh = fresh[np.isin(fresh, sorted_ids)]
        keys = np.asarray(graph.keys, dtype=np.int64)
        gone = np.union1d(np.setdiff1d(keys, sorted_ids), np.intersect1d(keys, fresh))
        if len(gone):
            graph.remove(gone.astype(np.uint64))
        if len(fresh):
            rows = order[np.searchsorted(sorted_ids, fresh)]
            graph.add(fresh.astype(np.uint64), np.ascontiguousarray(matrix[rows]), threads=threads)
    else:
        graph = index_class(
            ndim=matrix.shape[1],
            metric="ip",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
        )
        for start in range(0, len(ids), 100_000):
            block = np.ascontiguousarray(matrix[start : start + 100_000], dtype=np.float32)
            graph.add(ids[start : start + len(block)].astype(np.uint64), block, threads=threads)
    return _saved(graph, meta_file, state, upto)


def _saved(graph: Any, meta_file: Path, state: tuple[Any, ...], upto: int) -> Path | None:
    """Write the graph, then the description naming it; remove older graph files."""
    stem = meta_file.name.removesuffix(".ann.json")
    name = f"{stem}.{state[1]}-{state[2]}-{upto}-{os.getpid()}.ann.usearch"
    folder = meta_file.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{name}.partial"
        graph.save(str(partial))
        os.replace(partial, folder / name)
        meta = {"identity": list(state[0] or ()), "upto": upto, "removed": state[2],
                "size": len(graph), "file": name}  # fmt: skip
        partial = folder / f"{stem}.{os.getpid()}.ann.json.partial"
        partial.write_text(json.dumps(meta))
        os.replace(partial, meta_file)
        for old in folder.glob(f"{stem}.*.ann.usearch"):
            if old.name != name:
                old.unlink(missing_ok=True)  # a process that mapped it keeps its pages
    except (OSError, RuntimeError):
        return None
    return folder / name


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_ino


def _mapped(meta_file: Path, identity: object) -> Graph | None:
    """The graph the description names, mapped from disk, if it was made from this index."""
    meta = read_meta(meta_file, identity)
    if meta is None:
        return None
    try:
        index = usearch_index().restore(str(meta_file.parent / meta["file"]), view=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if index is None:
        return None
    index.expansion_search = EXPANSION_SEARCH
    return Graph(index, meta["file"], meta["upto"], int(meta["removed"]), len(index))
