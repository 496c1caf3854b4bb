"""Where the texts behind vectors come from: a table of the index and an SQL text expression.

Vectors are derived data, like full-text search: `onlooker reindex` re-embeds them from the texts
the index rebuilt from the journals (`sync_vectors`), keeping every vector whose text is unchanged.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..store._database import Database
from .embeddings import Embedder
from .index import SyncReport, VectorIndex

_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class VectorSource:
    """The texts of one kind: `SELECT id, <text> FROM <table>`, with an integer `id` column."""

    kind: str
    table: str
    text: str
    """An SQL expression over the table's columns, e.g. `title || char(10) || content`."""

    def __post_init__(self) -> None:
        if not _NAME.match(self.table):
            raise ValueError(f"VectorSource.table must be a plain table name, not {self.table!r}")


MEMORY = VectorSource("memory", "memories", "title || char(10) || content")
"""A memory's text to embed: its title, a newline, its content."""
SOURCES: tuple[VectorSource, ...] = (MEMORY,)
"""Every kind of stored item that gets vectors; `onlooker reindex` syncs each."""


def source_texts(
    database: Database, source: VectorSource, ids: Sequence[int] | None = None
) -> list[tuple[int, str]]:
    """(id, text) of the source's rows (only `ids`, when given); none while its table is missing."""

    if not database.has_table(source.table):
        return []

    def read(c: sqlite3.Connection) -> list[tuple[int, str]]:
        run = c.execute
        sql = f"SELECT id, {source.text} FROM {source.table}"
        if ids is None:
            return [(int(i), str(t or "")) for i, t in run(sql)]
        found = []
        for start in range(0, len(ids), _CHUNK):
            chunk = list(ids[start : start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            found += [(int(i), str(t or "")) for i, t in run(f"{sql} WHERE id IN ({marks})", chunk)]
        return found

    return database._read(read)


def embed_ids(
    database: Database,
    source: VectorSource,
    ids: Sequence[int],
    embedder: Embedder | None = None,
) -> int:
    """Embed the texts of these rows of the source (once they are stored); returns how many."""
    return VectorIndex(database, source.kind).add_texts(
        source_texts(database, source, ids), embedder
    )


def sync_vectors(
    database: Database,
    sources: Iterable[VectorSource] = SOURCES,
    embedder: Embedder | None = None,
) -> list[tuple[str, SyncReport]]:
    """Make each source's vectors follow its texts (new and changed ones embedded, others kept,
    those of deleted rows removed), then its approximate graph (`_ann`) where it has enough rows."""
    reports = []
    for source in sources:
        index = VectorIndex(database, source.kind)
        reports.append((source.kind, index.sync(source_texts(database, source), embedder)))
        index.build_graph()
    return reports
