"""The numpy backend's matrix saved beside the index (`vectors/`), so a new process (a CLI search)
maps it from disk instead of reading every vector from SQLite; only later rows are read.

A snapshot is used while the index is the same file and no vector was removed since it was
written; it is a cache: failing to write one is ignored, and `onlooker reindex --fresh` drops it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.home import SNAPSHOT_DIR

MIN_ROWS = 5_000
"""Fewer vectors than this load from SQLite fast enough: no snapshot is written for them."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Saved rows: ids and matrix (memory-mapped, read-only) up to row `upto` of `vectors`."""

    ids: Any
    matrix: Any
    upto: int
    added: int


def load(index: Path, kind: str, model: str, state: tuple[Any, ...]) -> Snapshot | None:
    """The snapshot of (kind, model), if it was made from this index file and nothing was
    removed since; `state` is (index identity, added, removed)."""
    import numpy as np

    meta_path = _stem(index, kind, model).with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text())
        if meta["identity"] != list(state[0] or ()) or meta["removed"] != state[2]:
            return None
        if meta["added"] > state[1]:
            return None
        folder = meta_path.parent
        ids = np.load(folder / meta["ids"], mmap_mode="r")
        matrix = np.load(folder / meta["matrix"], mmap_mode="r")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if len(ids) != len(matrix):
        return None
    return Snapshot(ids, matrix, int(meta["upto"]), int(meta["added"]))


def save(
    index: Path, kind: str, model: str, state: tuple[Any, ...], upto: int, ids: Any, matrix: Any
) -> None:
    """Write the snapshot (data files first, then the description that names them)."""
    import numpy as np

    stem = _stem(index, kind, model)
    tag = f"{state[1]}-{state[2]}-{upto}"
    names = {"ids": f"{stem.name}.{tag}.ids.npy", "matrix": f"{stem.name}.{tag}.matrix.npy"}
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
        for key, data in (("ids", ids), ("matrix", matrix)):
            partial = stem.parent / f"{names[key]}.{os.getpid()}.partial"
            with partial.open("wb") as out:
                np.save(out, np.ascontiguousarray(data))
            os.replace(partial, stem.parent / names[key])
        meta = {"identity": list(state[0] or ()), "added": state[1], "removed": state[2],
                "upto": upto, **names}  # fmt: skip
        partial = stem.parent / f"{stem.name}.{os.getpid()}.json.partial"
        partial.write_text(json.dumps(meta))
        os.replace(partial, stem.with_suffix(".json"))
        for old in stem.parent.glob(f"{stem.name}.*.npy"):
            if old.name not in names.values():
                old.unlink(missing_ok=True)  # a process that mapped it keeps its pages
    except OSError:
        return


def _stem(index: Path, kind: str, model: str) -> Path:
    digest = hashlib.sha256(model.encode()).hexdigest()[:12]
    return index.parent / SNAPSHOT_DIR / f"{kind}-{digest}"
