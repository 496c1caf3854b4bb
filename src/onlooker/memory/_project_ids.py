"""The ids of each project's memories, held per process for the vector side of search: a filter
that names only projects takes its ids from these arrays rather than reading every id from SQL.

New memories are read by id above the last one seen; a removal (forget, edit, reindex: counted
in `memory_versions`, migration m015) reloads them all. SQLite only; PostgreSQL reads the ids.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..store import Store


@dataclass(slots=True)
class _ByProject:
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: tuple[Any, ...] = ()
    upto: int = 0
    ids: dict[str, Any] = field(default_factory=dict)
    """project -> sorted int64 array of its memory ids"""


_CACHES: dict[str, _ByProject] = {}
_CACHES_LOCK = threading.Lock()


def project_ids(store: Store, projects: Sequence[str]) -> Any | None:
    """A sorted int64 array of the ids of these projects' memories (the same array object while
    nothing changed), or None where this store cannot say (PostgreSQL)."""
    database = store.index
    if database.dialect != "sqlite":
        return None
    import numpy as np

    with _CACHES_LOCK:
        cached = _CACHES.setdefault(str(database.path), _ByProject())
    with cached.lock:
        database._read(lambda c: _refresh(c, cached, database._identity))
        arrays = [cached.ids[p] for p in dict.fromkeys(projects) if p in cached.ids]
    if len(arrays) == 1:
        return arrays[0]
    return np.sort(np.concatenate(arrays)) if arrays else np.zeros(0, dtype=np.int64)


def _refresh(conn: Any, cached: _ByProject, identity: object) -> None:
    import numpy as np

    removed = conn.execute("SELECT removed FROM memory_versions").fetchone()
    state = (identity, removed[0] if removed else 0)
    if state != cached.state:
        cached.state, cached.upto, cached.ids = state, 0, {}
    rows = conn.execute(
        "SELECT m.id, p.key, p.project FROM memories m JOIN memory_projects p "
        "ON p.project = m.project WHERE m.id > ? ORDER BY m.id",
        (cached.upto,),
    ).fetchall()
    if not rows:
        return
    names = {int(r[1]): r[2] for r in rows}
    found = np.array([(r[0], r[1]) for r in rows], dtype=np.int64)
    cached.upto = int(found[-1, 0])
    found = found[np.argsort(found[:, 1], kind="stable")]  # by project, ids ascending in each
    starts = np.flatnonzero(np.diff(found[:, 1])) + 1
    for block in np.split(found, starts):
        name = names[int(block[0, 1])]
        old = cached.ids.get(name)
        cached.ids[name] = block[:, 0].copy() if old is None else np.concatenate((old, block[:, 0]))
