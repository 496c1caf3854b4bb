"""Embedding vectors of stored items (one `kind` per owner: memories, ...) and search by cosine.

Rows live in the index's `vectors` table (migration m006) as unit-length float32 blobs, with the
model that made them and a digest of the text. Search is exact top-k by cosine, by backend:
`numpy` (default; a matrix cached per process, topped up or reloaded when the table changed),
`sqlite-vec` (without numpy, when a sqlite3 module that can load extensions loads it; a `vec0`
table mirroring the rows) and `python` (neither; small sets). With numpy, a search over every row of
a large matrix takes its candidates from an approximate graph when usearch is installed (`_ann`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import re
import threading
from array import array
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..errors import StoreError
from ..store._database import Database
from . import _ann
from . import _snapshot as vector_snapshot
from ._cosine import Hit, NumpyRows, PythonRows, Rows
from .embeddings import MODEL, Embedder, shared_embedder

if TYPE_CHECKING:
    from ._sqlite_vec import SqliteVecMirror

Backend = Literal["auto", "numpy", "python", "sqlite-vec"]
BACKENDS: tuple[Backend, ...] = ("auto", "numpy", "python", "sqlite-vec")
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What `VectorIndex.sync` did: texts embedded anew, vectors kept as they were, removed."""

    embedded: int = 0
    kept: int = 0
    removed: int = 0


@dataclass(slots=True)
class _Cached:
    """The rows of one (file, kind, model, backend) loaded into memory, and the table state then."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    rows: Rows | None = None
    state: tuple[Any, ...] = ()
    upto: int = 0
    dimensions: int = 0
    graphs: _ann.Graphs | None = None


_CACHES: dict[tuple[str, str, str, str], _Cached] = {}
_CACHES_LOCK = threading.Lock()


class VectorIndex:
    """The vectors of one kind of stored item, keyed by the item's integer id."""

    def __init__(
        self,
        database: Database,
        kind: str,
        *,
        model: str = MODEL,
        backend: Backend = "auto",
        approximate: bool = True,
    ) -> None:
        """`approximate=False`: never the graph (`_ann`), always the exact scan."""
        if not _KIND.match(kind):
            raise ValueError(f"vector kind must be lowercase letters, digits and _, not {kind!r}")
        if backend not in BACKENDS:
            raise ValueError(
                f"vector backend must be one of {', '.join(BACKENDS)}, not {backend!r}"
            )
        self.database = database
        self.kind = kind
        self.model = model
        self.backend = _resolved(backend)
        self.approximate = (
            approximate
            and self.backend == "numpy"
            and database.dialect == "sqlite"  # the graph's file and builder are the SQLite file's
            and _ann.available()
        )
        if self.backend == "numpy" and importlib.util.find_spec("numpy") is None:
            raise StoreError("the numpy vector backend needs numpy: pip install numpy")
        self._mirror: SqliteVecMirror | None = None
        if self.backend == "sqlite-vec":
            from ._sqlite_vec import SqliteVecMirror

            self._mirror = SqliteVecMirror(database, kind, model)

    def close(self) -> None:
        if self._mirror is not None:
            self._mirror.close()

    # -- writing ---------------------------------------------------------------------------------

    def add(self, vectors: Iterable[tuple[int, Sequence[float]]], *, digest: str = "") -> int:
        """Store (id, vector) pairs, replacing any vector the ids had; returns how many."""
        return self._put([(i, _blob(v), digest) for i, v in vectors])

    def add_array(self, ids: Sequence[int], matrix: Any, *, digest: str = "") -> int:
        """Store a 2-D numpy array of vectors, a row per id (bulk loads; rows are normalised)."""
        import numpy as np

        rows = np.asarray(matrix, dtype=np.float32)
        if rows.ndim != 2 or len(rows) != len(ids):
            raise ValueError(f"need one row per id: {len(ids)} ids, array of shape {rows.shape}")
        if not np.isfinite(rows).all():
            raise ValueError("a vector must have finite values")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = (rows / np.where(norms > 0, norms, 1)).astype(np.float32)
        return self._put(
            [(int(i), row.tobytes(), digest) for i, row in zip(ids, rows, strict=True)]
        )

    def add_texts(self, texts: Iterable[tuple[int, str]], embedder: Embedder | None = None) -> int:
        """Embed (id, text) pairs and store the vectors with the text's digest."""
        items = list(texts)
        if not items:
            return 0
        matrix = (embedder or shared_embedder()).embed_array([text for _, text in items])
        return self._put(
            [(i, row.tobytes(), text_digest(t)) for (i, t), row in zip(items, matrix, strict=True)]
        )

    def _put(self, rows: list[tuple[int, bytes, str]]) -> int:
        if not rows:
            return 0
        with self.database.transaction():
            conn = self.database._conn
            conn.executemany(
                "DELETE FROM vectors WHERE kind = ? AND id = ?", [(self.kind, r[0]) for r in rows]
            )
            conn.executemany(
                "INSERT INTO vectors (kind, id, model, digest, vector) VALUES (?, ?, ?, ?, ?)",
                [(self.kind, i, self.model, d, b) for i, b, d in rows],
            )
        return len(rows)

    def remove(self, ids: Iterable[int]) -> int:
        """Forget the vectors of these ids; returns how many there were."""
        with self.database.transaction():
            return self.database._conn.executemany(
                "DELETE FROM vectors WHERE kind = ? AND id = ?", [(self.kind, i) for i in ids]
            ).rowcount

    def sync(
        self,
        texts: Iterable[tuple[int, str]],
        embedder: Embedder | None = None,
        *,
        batch: int = 256,
    ) -> SyncReport:
        """Make the vectors follow these (id, text) pairs, all the kind has: embed new or changed
        texts (or those made by another model), keep the rest, remove ids not among them."""
        have = self.digests()
        wanted: dict[int, str] = dict(texts)
        stale = [
            (i, text)
            for i, text in wanted.items()
            if have.get(i) != (self.model, text_digest(text))
        ]
        gone = [i for i in have if i not in wanted]
        for start in range(0, len(stale), batch):
            self.add_texts(stale[start : start + batch], embedder)
        removed = self.remove(gone) if gone else 0
        return SyncReport(len(stale), len(wanted) - len(stale), removed)

    # -- reading ---------------------------------------------------------------------------------

    def digests(self) -> dict[int, tuple[str, str]]:
        """id -> (model, text digest) of every stored vector of the kind."""
        return self.database._read(
            lambda c: {
                int(r[0]): (r[1], r[2])
                for r in c.execute(
                    "SELECT id, model, digest FROM vectors WHERE kind = ?", (self.kind,)
                )
            }
        )

    def count(self) -> int:
        return int(
            self.database._read(
                lambda c: c.execute(
                    "SELECT count(*) FROM vectors WHERE kind = ? AND model = ?",
                    (self.kind, self.model),
                ).fetchone()[0]
            )
        )

    def search(
        self, query: Sequence[float], limit: int = 10, *, ids: Collection[int] | None = None
    ) -> list[Hit]:
        """The `limit` ids whose vectors are nearest `query` by cosine, as (id, cosine), best
        first (ties by id). With `ids`, only those are considered (filter first, then rank)."""
        if limit <= 0 or (ids is not None and not len(ids)):
            return []
        blob = _blob(query)
        if self._mirror is not None:
            return self._mirror.search(blob, limit, ids)
        cached = self._cached()
        if cached.dimensions and len(blob) != 4 * cached.dimensions:
            raise StoreError(
                f"{self.database.path}: query has {len(blob) // 4} dimensions, the {self.kind} "
                f"vectors of {self.model} have {cached.dimensions}"
            )
        assert cached.rows is not None
        graphs = cached.graphs if self.approximate else None
        if ids is None and graphs is not None and isinstance(cached.rows, NumpyRows):
            graphs.update(self.database, cached.state, len(cached.rows))
            import numpy as np

            found = graphs.candidates(np.frombuffer(blob, dtype=np.float32), limit)
            if found is not None:
                return cached.rows.search(blob, limit, found, remember=False)
        return cached.rows.search(blob, limit, ids)

    def build_graph(self, *, threads: int = 0, only_if_due: bool = False) -> bool:
        """Make or extend the approximate graph of these vectors (`_ann`), as `onlooker reindex`
        and the background builder do; whether one was written (never below ANN_FROM rows, nor
        without numpy and usearch; with `only_if_due`, only when searches would want one)."""
        if self.backend != "numpy" or self.database.dialect != "sqlite" or not _ann.available():
            return False
        if self.count() < _ann.ANN_FROM:
            return False
        cached = self._cached()
        with cached.lock:
            rows, state, upto = cached.rows, cached.state, cached.upto
            assert isinstance(rows, NumpyRows)
            ids, matrix = rows.arrays()
        if len(ids) < _ann.ANN_FROM:
            return False
        if only_if_due:
            graphs = _ann.Graphs(self.database.path, self.kind, self.model)
            graphs.update(self.database, state, len(ids))
            if not graphs.due(state, len(ids)):
                return False

        def newer(n: int) -> list[int]:
            sql = "SELECT id FROM vectors WHERE kind = ? AND model = ? AND n > ? AND n <= ?"
            found = self.database._read(
                lambda c: c.execute(sql, (self.kind, self.model, n, upto)).fetchall()
            )
            return [int(r[0]) for r in found]

        where = (self.database.path, self.kind, self.model)
        return _ann.build(*where, state, upto, ids, matrix, newer, threads=threads) is not None

    def search_text(
        self,
        query: str,
        limit: int = 10,
        *,
        ids: Collection[int] | None = None,
        embedder: Embedder | None = None,
    ) -> list[Hit]:
        """`search` with the query text embedded first."""
        return self.search((embedder or shared_embedder()).embed_one(query), limit, ids=ids)

    def _cached(self) -> _Cached:
        """The in-memory rows, brought up to date with the table first."""
        key = (str(self.database.path), self.kind, self.model, self.backend)
        with _CACHES_LOCK:
            cached = _CACHES.setdefault(key, _Cached())
            if self.approximate and cached.graphs is None:
                cached.graphs = _ann.Graphs(self.database.path, self.kind, self.model)
        with cached.lock:
            state, reload, snap, new = self.database._read(lambda c: self._changes(c, cached))
            if reload:
                cached.upto = snap.upto if snap else 0
                if self.backend == "python":
                    cached.rows = PythonRows()
                else:
                    cached.rows = NumpyRows(*((snap.ids, snap.matrix) if snap else ()))
                cached.dimensions = snap.matrix.shape[1] if snap else 0
            if new:
                assert cached.rows is not None
                cached.dimensions = len(new[0][2]) // 4
                cached.rows.append([r[1] for r in new], [r[2] for r in new])
                cached.upto = new[-1][0]
                if isinstance(cached.rows, NumpyRows) and len(new) >= vector_snapshot.MIN_ROWS:
                    vector_snapshot.save(self.database.path, self.kind, self.model, state,
                                         cached.upto, *cached.rows.arrays())  # fmt: skip
            cached.state = state
            return cached

    def _changes(
        self, c: Any, cached: _Cached
    ) -> tuple[tuple[Any, ...], bool, vector_snapshot.Snapshot | None, list[Any]]:
        """(table state, whether to start over, a snapshot to start from, rows to add)."""
        version = c.execute(
            "SELECT added, removed FROM vector_versions WHERE kind = ?", (self.kind,)
        ).fetchone()
        state = (self.database._identity, *(version or (0, 0)))
        if cached.rows is not None and state == cached.state:
            return state, False, None, []
        reload = cached.rows is None or state[0::2] != cached.state[0::2]
        snap = None
        if reload and self.backend == "numpy":
            snap = vector_snapshot.load(self.database.path, self.kind, self.model, state)
        upto = (snap.upto if snap else 0) if reload else cached.upto
        new = c.execute(
            "SELECT n, id, vector FROM vectors WHERE kind = ? AND model = ? AND n > ? ORDER BY n",
            (self.kind, self.model, upto),
        ).fetchall()
        return state, reload, snap, new


def text_digest(text: str) -> str:
    """What `sync` compares to know a text changed since it was embedded."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _blob(vector: Sequence[float]) -> bytes:
    """The vector scaled to unit length, as float32 bytes."""
    values = array("f", vector)
    if not values:
        raise ValueError("a vector needs at least one dimension")
    norm = math.sqrt(math.fsum(x * x for x in values))
    if not math.isfinite(norm):
        raise ValueError("a vector must have finite values")
    if norm > 0:
        values = array("f", (x / norm for x in values))
    return values.tobytes()


def _resolved(backend: Backend) -> Backend:
    """`auto`: numpy when installed (it comes with the embeddings extra, and scores 100k vectors in
    ~7 ms where sqlite-vec takes ~80 ms here), else sqlite-vec when an extension-loading sqlite3 can
    load it, else pure Python."""
    if backend != "auto":
        return backend
    try:
        if importlib.util.find_spec("numpy") is not None:
            return "numpy"
    except ValueError:  # numpy blocked in sys.modules (tests): as good as missing
        pass
    return "sqlite-vec" if _sqlite_vec_loads() else "python"


@functools.cache
def _sqlite_vec_loads() -> bool:
    from ._sqlite_vec import unavailable

    return unavailable() is None
