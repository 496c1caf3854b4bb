"""Top-k cosine search over vectors held in memory: a numpy matrix, or plain Python lists.

Rows are unit-length float32 blobs read from the `vectors` table; a search scores every allowed
row (exact, not approximate). numpy is imported only by the numpy rows.
"""

from __future__ import annotations

import heapq
import math
import threading
from array import array
from collections.abc import Collection, Sequence
from typing import Any, Protocol

from . import _int8

Hit = tuple[int, float]
"""(id, cosine similarity), best first in a result list."""

SPLIT_ROWS = 32_768
"""From this many rows up, half the scoring runs in a second thread (einsum releases the GIL):
scoring is bound by memory bandwidth, ~11 ms per 100k 384-dimension rows on one core."""
_HELPER: Any = None
CODED_FROM = 20_000
"""From this many rows up, a search over all of them, or over that many rows of a filter, reads
int8 codes first (`_int8`: exact, a quarter of the bytes) and scores in float32 only the rows that
can be in the top k. The codes are made at the second such search of a matrix, so a one-shot
process never pays for them."""
PICKED = 16
"""Row selections of id arrays kept per matrix (a project's rows, picked once per change)."""


class Rows(Protocol):
    """Vectors kept in memory, appended as the table grows."""

    def __len__(self) -> int: ...

    def append(self, ids: Sequence[int], blobs: Sequence[bytes]) -> None: ...

    def search(self, query: bytes, limit: int, allowed: Collection[int] | None) -> list[Hit]: ...


class NumpyRows:
    """A float32 matrix with spare capacity, a row per vector.

    Scores come from `einsum`, one thread: BLAS's threaded matrix-vector product was 100 times
    slower on a busy 2-core machine, and float16 rows (half the memory) 10 times slower to score.
    """

    def __init__(self, ids: Any = None, matrix: Any = None) -> None:
        """Empty, or over given arrays (a memory-mapped snapshot: copied once rows are added)."""
        import numpy as np

        self._np = np
        self._ids = np.zeros(0, dtype=np.int64) if ids is None else ids
        self._matrix: Any = matrix
        self._count = 0 if ids is None else len(ids)
        self._sorted: tuple[Any, Any] | None = None
        self._picked: dict[int, tuple[Any, Any]] = {}
        self._picking = threading.Lock()
        self._codes: _int8.Codes | None = None
        self._scanned = False

    def arrays(self) -> tuple[Any, Any]:
        """(ids, matrix) of the rows held."""
        return self._ids[: self._count], self._matrix[: self._count]

    def __len__(self) -> int:
        return self._count

    def append(self, ids: Sequence[int], blobs: Sequence[bytes]) -> None:
        np = self._np
        if not ids:
            return
        block = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
        need = self._count + len(ids)
        if self._matrix is None or need > len(self._matrix):
            grown = np.zeros((max(need, 2 * self._count, 64), block.shape[1]), dtype=np.float32)
            grown_ids = np.zeros(len(grown), dtype=np.int64)
            if self._matrix is not None:
                grown[: self._count] = self._matrix[: self._count]
                grown_ids[: self._count] = self._ids[: self._count]
            self._matrix, self._ids = grown, grown_ids
        self._matrix[self._count : need] = block
        self._ids[self._count : need] = ids
        self._count = need
        self._sorted = None
        self._picked = {}

    def search(
        self, query: bytes, limit: int, allowed: Collection[int] | None, *, remember: bool = True
    ) -> list[Hit]:
        """The `limit` best rows (of `allowed` ids, if given). `remember=False`: an id array used
        once (a graph's candidates), whose rows are not kept for the next search."""
        np = self._np
        if not self._count or limit <= 0:
            return []
        q = np.frombuffer(query, dtype=np.float32)
        ids = self._ids[: self._count]
        rows = self._coded_candidates(q, limit) if allowed is None else None
        if rows is not None:
            scores = _scores(self._matrix[rows], q)
            candidates = ids[rows]
        elif allowed is None:
            scores = _scores(self._matrix[: self._count], q)
            candidates = ids
        else:
            rows = self._rows_of(allowed, remember)
            if not len(rows):
                return []
            if len(rows) >= CODED_FROM:
                rows = self._coded_candidates(q, limit, rows)
            scores = _scores(self._matrix[rows], q)
            candidates = ids[rows]
        if limit < len(scores):  # every row tied with the k-th, so ties go by id
            kth = scores[np.argpartition(-scores, limit - 1)[:limit]].min()
            top = np.flatnonzero(scores >= kth)
        else:
            top = np.arange(len(scores))
        best = top[np.lexsort((candidates[top], -scores[top]))][:limit]
        return [(int(candidates[i]), float(scores[i])) for i in best]

    def _coded_candidates(self, q: Any, limit: int, among: Any = None) -> Any:
        """The rows that can be among the `limit` best of all, or of the rows `among` (int8 first
        pass); where every row is to be scored (a small matrix, no simsimd, or the matrix's first
        such search), None or `among` itself."""
        wanted = self._count if among is None else len(among)
        if wanted < CODED_FROM or limit >= wanted or not _int8.available():
            return among
        with self._picking:
            if self._codes is None:
                if not self._scanned:  # a one-shot process (a CLI search) never makes codes
                    self._scanned = True
                    return among
                self._codes = _int8.Codes()
            self._codes.cover(self._matrix, self._count)
            return self._codes.candidates(q, limit, among)

    def _rows_of(self, allowed: Collection[int], remember: bool = True) -> Any:
        """Row numbers of the allowed ids that are here (binary search over the sorted ids). An
        id array (ids of a project, held by the caller) keeps its rows until rows are added."""
        np = self._np
        if isinstance(allowed, np.ndarray):
            picked = self._picked.get(id(allowed))
            if picked is not None and picked[0] is allowed:
                return picked[1]
        if self._sorted is None:
            order = np.argsort(self._ids[: self._count], kind="stable")
            self._sorted = (order, self._ids[: self._count][order])
        order, sorted_ids = self._sorted
        if isinstance(allowed, np.ndarray):
            wanted = allowed.astype(np.int64, copy=False)
        else:
            wanted = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
        at = np.searchsorted(sorted_ids, wanted).clip(0, len(sorted_ids) - 1)
        rows = np.unique(order[at[sorted_ids[at] == wanted]])
        if isinstance(allowed, np.ndarray) and remember:
            with self._picking:
                if len(self._picked) >= PICKED:
                    self._picked.pop(next(iter(self._picked)))
                self._picked[id(allowed)] = (allowed, rows)
        return rows


def _scores(matrix: Any, q: Any) -> Any:
    """Each row's dot product with `q`; two threads share a large matrix."""
    import numpy as np

    if len(matrix) < SPLIT_ROWS:
        return np.einsum("ij,j->i", matrix, q)
    global _HELPER
    if _HELPER is None:
        from concurrent.futures import ThreadPoolExecutor

        _HELPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="onlooker-vectors")
    scores = np.empty(len(matrix), dtype=np.float32)
    half = len(matrix) // 2
    other = _HELPER.submit(np.einsum, "ij,j->i", matrix[half:], q, out=scores[half:])
    np.einsum("ij,j->i", matrix[:half], q, out=scores[:half])
    other.result()
    return scores


class PythonRows:
    """The same search in plain Python, for a few thousand vectors where numpy is missing."""

    def __init__(self) -> None:
        self._ids: list[int] = []
        self._vectors: list[array[float]] = []
        self._where: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def append(self, ids: Sequence[int], blobs: Sequence[bytes]) -> None:
        for vector_id, blob in zip(ids, blobs, strict=True):
            self._where[vector_id] = len(self._ids)
            self._ids.append(vector_id)
            self._vectors.append(array("f", blob))

    def search(self, query: bytes, limit: int, allowed: Collection[int] | None) -> list[Hit]:
        q = array("f", query)
        if allowed is None:
            rows: Collection[int] = range(len(self._ids))
        else:
            rows = sorted({self._where[i] for i in allowed if i in self._where})
        scored = (
            (math.fsum(a * b for a, b in zip(self._vectors[r], q, strict=True)), self._ids[r])
            for r in rows
        )
        best = heapq.nsmallest(limit, scored, key=lambda item: (-item[0], item[1]))
        return [(vector_id, score) for score, vector_id in best]
