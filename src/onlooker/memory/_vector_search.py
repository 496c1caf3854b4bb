"""The vector side of memory search: a MiniLM embedding of each memory (title, a newline, then
content) in the index's `memory` vectors, searched by cosine with the search's filter applied
first, so a filter never hides the best matches.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..store import Store
from ..store.memory_records import MemoryFilter
from ..vectors import embeddings
from ..vectors.embeddings import Embedder
from ..vectors.index import Backend, VectorIndex
from ..vectors.sources import SOURCES, embed_ids
from ._memories import Memories
from ._project_ids import project_ids

SOURCE = next(source for source in SOURCES if source.table == "memories")


class MemoryVectors:
    """Embeddings of a store's memories; meets `search.VectorSide`."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: Embedder | None = None,
        backend: Backend = "auto",
        approximate: bool = True,
    ) -> None:
        """`approximate=False`: the exact scan even where a graph is there (`vectors/_ann.py`)."""
        self.store = store
        self.embedder = embedder
        self.index = VectorIndex(store.index, SOURCE.kind, backend=backend, approximate=approximate)

    def nearest(self, query: str, where: MemoryFilter, limit: int) -> list[int]:
        """Ids of the memories nearest `query`, best first, among those `where` allows."""
        return self.nearest_to(self.embed_query(query), where, limit)

    def embed_query(self, query: str) -> Sequence[float]:
        """The query's embedding (the model loads on first use)."""
        return (self.embedder or embeddings.shared_embedder()).embed_one(query)

    def nearest_to(self, vector: Sequence[float], where: MemoryFilter, limit: int) -> list[int]:
        """`nearest` for a query already embedded."""
        hits = self.index.search(vector, limit, ids=self._allowed(where))
        return [memory_id for memory_id, _ in hits]

    def _allowed(self, where: MemoryFilter) -> Collection[int] | None:
        """The ids `where` allows (None: all): a filter of projects alone takes the cached ids of
        its projects (numpy rows pick theirs without a copy to Python), any other asks SQL."""
        if where == MemoryFilter():
            return None
        if where == MemoryFilter(projects=where.projects) and self.index.backend == "numpy":
            ids: Collection[int] | None = project_ids(self.store, where.projects)
            if ids is not None:
                return ids
        return Memories(self.store).matching(where)

    def embed(self, ids: Sequence[int]) -> int:
        """Embed these stored memories (replacing any vectors they had); how many."""
        return embed_ids(self.store.index, SOURCE, ids, self.embedder)

    def remove(self, ids: Sequence[int]) -> int:
        return self.index.remove(ids)


def memory_vectors(store: Store, *, backend: Backend = "auto") -> MemoryVectors | None:
    """The vector side when the embeddings extra is installed, else None (text search only)."""
    return MemoryVectors(store, backend=backend) if embeddings.available() else None
