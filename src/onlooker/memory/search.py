"""Memory search (specs/memory.md): full-text (FTS5) always, vectors when a vector side is given,
and a hybrid of both ranked by reciprocal rank fusion.

For `both`, the query is embedded in a second thread while the text half runs (onnxruntime and
SQLite release the GIL); then the vectors are scored, a large matrix on both cores. Filters
(projects, time, files) are applied inside each half, never after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Literal, Protocol

from ..errors import SearchError
from ..store import Store
from ..store.memory_records import Memory, MemoryFilter
from ._memories import Memories

Mode = Literal["vector", "text", "both"]
MODES: tuple[Mode, ...] = ("vector", "text", "both")
RRF_K = 60
"""Reciprocal rank fusion constant: score = sum over halves of 1 / (RRF_K + rank)."""

_POOL: ThreadPoolExecutor | None = None


class VectorSide(Protocol):
    """Nearest memories to a query by embedding, best first, honouring the filter."""

    def nearest(self, query: str, where: MemoryFilter, limit: int) -> list[int]: ...

    def embed_query(self, query: str) -> Sequence[float]: ...

    def nearest_to(self, vector: Sequence[float], where: MemoryFilter, limit: int) -> list[int]: ...


def search(
    store: Store,
    query: str,
    mode: Mode = "both",
    limit: int = 10,
    after: datetime | None = None,
    before: datetime | None = None,
    projects: Sequence[str] | None = None,
    files: Sequence[str] | None = None,
    *,
    vectors: VectorSide | Literal["auto"] | None = "auto",
) -> list[Memory]:
    """Memories matching `query`, best first. `vectors="auto"` uses the local embeddings when
    the extra is installed; `both` without a vector side is text search."""
    if vectors == "auto":
        from ._vector_search import memory_vectors

        vectors = memory_vectors(store)
    if mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not 1 <= limit <= 1000:
        raise SearchError(f"limit must be between 1 and 1000, not {limit}")
    if mode == "vector" and vectors is None:
        raise SearchError(
            "vector search needs the embeddings extra: pip install 'onlooker[embeddings]'"
        )
    where = MemoryFilter(tuple(projects or ()), after, before, tuple(files or ()))
    memories = Memories(store)
    if mode == "text" or vectors is None:
        ids = memories.text_search(query, where, limit)
    elif mode == "vector":
        ids = vectors.nearest(query, where, limit)
    else:
        depth = max(3 * limit, 30)
        embedded = _pool().submit(vectors.embed_query, query)
        text = memories.text_search(query, where, depth)
        ids = fuse((text, vectors.nearest_to(embedded.result(), where, depth)), limit)
    return memories.get(ids)


def get_memories(store: Store, ids: Sequence[int]) -> list[Memory]:
    """Full memories by id, in the order asked; unknown ids are left out."""
    return Memories(store).get(ids)


def fuse(rankings: Sequence[Sequence[int]], limit: int) -> list[int]:
    """Reciprocal rank fusion of best-first id lists: the `limit` best ids overall."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, memory_id in enumerate(ranking, start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores, key=lambda i: (-scores[i], i))[:limit]


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="onlooker-memory-search")
    return _POOL
