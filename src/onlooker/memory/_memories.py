"""Memory in a store: pending events in, memories out, forgetting, and what each session was shown.

Memories and their tombstones are journaled like finding changes (the index follows the journals);
pending events live only in the index, a queue the extraction empties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..store import _memory_index as sql
from ..store import _memory_text_search as text_sql
from ..store import _pending_events as pending_sql
from ..store._memory_usage import model_counters, model_days
from ..store._store import Store
from ..store.memory_records import (
    MemoriesDropped,
    MemoriesForgotten,
    MemoriesInjected,
    MemoriesSuperseded,
    Memory,
    MemoryCreated,
    MemoryEdited,
    MemoryFilter,
    MemoryModelUsed,
    MemoryOptOut,
    MemoryPinned,
    PendingEvent,
    millis,
)
from ..text.redact import redact


@dataclass(frozen=True, slots=True)
class Extracted:
    """A memory as extraction found it, before it has an id."""

    title: str
    content: str
    timestamp: datetime
    files: tuple[str, ...] = field(default=())


class Memories:
    """The memory side of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.index = store.index

    # -- pending events ---------------------------------------------------------------------------

    def add_pending(
        self,
        *,
        session_id: str,
        project: str,
        tool_name: str,
        compressed: str,
        files: Sequence[str] = (),
        at: datetime,
    ) -> int:
        """Queue one compressed tool event (secrets redacted); its id."""
        compressed = redact(compressed)
        now = millis(self.store.clock.now())
        with self.index.transaction(exclusive=False):
            return pending_sql.add_pending(
                self.index._conn, session_id, project, tool_name, compressed,
                [redact(f) for f in files], millis(at), now,
            )  # fmt: skip

    def pending(self, project: str, session_id: str) -> list[PendingEvent]:
        """A session's pending events, oldest first."""
        return self.index._read(lambda c: pending_sql.pending_events(c, project, session_id))

    def pending_count(self, project: str, session_id: str) -> int:
        return self.index._read(lambda c: pending_sql.count_pending(c, project, session_id))

    def idle_sessions(self, project: str, idle: timedelta) -> list[str]:
        """Sessions of `project` whose pending events are all older than `idle`: sessions that
        ended without saying so (a killed terminal sends no SessionEnd)."""
        before = millis(self.store.clock.now() - idle)
        return self.index._read(lambda c: pending_sql.idle_sessions(c, project, before))

    def drop_pending(self, ids: Sequence[int]) -> None:
        """Remove pending events without extracting anything from them."""
        with self.index.transaction(exclusive=False):
            pending_sql.consume_pending(self.index._conn, ids)

    # -- memories ---------------------------------------------------------------------------------

    def remember(
        self,
        found: Sequence[Extracted],
        *,
        project: str,
        session_id: str,
        consumed: Sequence[int] = (),
        dropped: Mapping[str, int] | None = None,
        superseded: Sequence[int] = (),
    ) -> list[Memory]:
        """Store memories (journaled, secrets redacted) and consume the pending events they came
        from, in one transaction: both happen or neither does. `dropped` counts, by reason, the
        memories of the batch the quality gate refused (journaled too); `superseded` memories
        leave the index (the journal keeps them)."""
        ids: list[int] = []
        with self.store._changing(project, session_id) as pending:
            conn = self.index._conn
            for item in found:
                memory_id = sql.last_memory_id(conn) + 1
                memory = Memory(
                    id=memory_id,
                    title=redact(item.title),
                    content=redact(item.content),
                    project=project,
                    session_id=session_id,
                    timestamp=item.timestamp,
                    created_at=pending.at,
                    files=tuple(dict.fromkeys(item.files)),
                )
                pending.add(MemoryCreated(memory=memory))
                ids.append(memory_id)
            if dropped:
                pending.add(
                    MemoriesDropped(project=project, session_id=session_id, reasons=dict(dropped))
                )
            if superseded:
                pending.add(MemoriesSuperseded(project=project, session_id=session_id,
                                               memory_ids=tuple(superseded)))  # fmt: skip
            pending_sql.consume_pending(conn, consumed)
        return self.get(ids)

    def record_model_use(self, used: MemoryModelUsed) -> None:
        """Journal one extraction call's tokens and cost, or a call a budget refused."""
        with self.store._changing(used.project, used.session_id) as pending:
            pending.add(used)

    def model_counters(self, *names: str) -> dict[str, int]:
        """Counters of extraction's model use (`calls`, `input`, `output`, `cost_musd`,
        `skipped`, `tokens@day:DAY`, `tokens@session:ID`); 0 for those never counted."""
        return self.index._read(lambda c: model_counters(c, *names))

    def model_days(self) -> list[tuple[str, int, int]]:
        """(UTC day, tokens, cost in micro-dollars) of extraction's model calls per day, in this
        data home (what memory.dailyTokens caps), oldest first."""
        return self.index._read(model_days)

    def dropped(self) -> int:
        """Memories the quality gate has dropped in this data home."""
        return self.index._read(sql.dropped_count)

    def get(self, ids: Sequence[int]) -> list[Memory]:
        """The memories with these ids, in the order asked (unknown ids left out)."""
        return self.index._read(lambda c: sql.memories_by_id(c, ids))

    def recent(self, where: MemoryFilter, limit: int, *, not_shown_to: str = "") -> list[Memory]:
        """Newest first; with `not_shown_to`, only memories that session was not given yet."""
        return self.index._read(
            lambda c: sql.recent_memories(c, where, limit, skip_session=not_shown_to)
        )

    def latest_of_session(self, session_id: str, limit: int = 3) -> list[Memory]:
        """A session's last `limit` memories, oldest first (context for the next batch)."""
        return self.index._read(lambda c: sql.session_memories(c, session_id, limit))

    def text_search(self, query: str, where: MemoryFilter, limit: int) -> list[int]:
        """Ids matching any word of `query`, best first (FTS5 bm25)."""
        return self.index._read(
            lambda c: text_sql.text_search(c, query, where, limit, self.index.dialect)
        )

    def matching(self, where: MemoryFilter) -> list[int]:
        """Ids of every memory the filter allows."""
        return self.index._read(lambda c: sql.matching_ids(c, where))

    def count(self) -> int:
        return self.index._read(sql.count_memories)

    def forget(self, ids: Sequence[int]) -> list[Memory]:
        """Remove memories (and their vectors) from the index and journal a tombstone for each;
        the ones removed."""
        found = self.get(ids)
        by_project: dict[str, list[int]] = {}
        for memory in found:
            by_project.setdefault(memory.project, []).append(memory.id)
        for project, memory_ids in by_project.items():
            with self.store._changing(project, "") as pending:
                pending.add(MemoriesForgotten(project=project, memory_ids=tuple(memory_ids)))
        return found

    def edit(self, memory: Memory, *, title: str, content: str) -> Memory:
        """Correct a memory's title and content (journaled, secrets redacted)."""
        with self.store._changing(memory.project, "") as pending:
            pending.add(MemoryEdited(project=memory.project, memory_id=memory.id,
                                     title=redact(title), content=redact(content)))  # fmt: skip
        return self.get([memory.id])[0]

    def pin(self, memory: Memory, *, pinned: bool = True) -> None:
        """Pin a memory (first in every digest of its project, whatever its age), or unpin it."""
        with self.store._changing(memory.project, "") as pending:
            pending.add(MemoryPinned(project=memory.project, memory_id=memory.id, pinned=pinned))

    def pinned(self, where: MemoryFilter, limit: int, *, not_shown_to: str = "") -> list[Memory]:
        """Pinned memories of the filter's projects, whatever their age (newest first)."""
        found = self.index._read(lambda c: sql.pinned_memories(c, where, limit))
        if not_shown_to:
            mine = MemoryFilter(projects=where.projects)
            unseen = {m.id for m in self.recent(mine, 10_000, not_shown_to=not_shown_to)}
            found = [m for m in found if m.id in unseen]
        return found

    def changed_later(self, memory: Memory) -> list[str]:
        """The memory's files a later session of its project changed (a memory names them)."""
        return self.index._read(lambda c: sql.changed_later(c, memory))

    def of_session(self, session_id: str) -> list[Memory]:
        """Every memory a session left, oldest first."""
        return self.latest_of_session(session_id, 100_000)

    def mark_shown(
        self, session_id: str, ids: Sequence[int], *, project: str, reset: bool = False
    ) -> None:
        """Record that these memories are in the session's context now (journaled)."""
        if not ids and not reset:
            return
        with self.store._changing(project, session_id) as pending:
            pending.add(MemoriesInjected(session_id=session_id, memory_ids=tuple(ids), reset=reset))

    # -- opt-outs ---------------------------------------------------------------------------------

    def opted_out(self, project: str) -> bool:
        """Whether the store holds the project's memory as off."""
        row = self.index._read(
            lambda c: c.execute(
                "SELECT 1 FROM memory_opt_outs WHERE project = ?", (project,)
            ).fetchone()
        )
        return row is not None

    def set_opted_out(self, project: str, off: bool, *, session_id: str = "") -> None:
        """Record that the project's memory is off (or on again), journaled in the session that
        saw it; nothing is written when the store already says so."""
        if self.opted_out(project) == off:
            return
        with self.store._changing(project, session_id) as pending:
            pending.add(MemoryOptOut(project=project, off=off))
