"""`onlooker reindex`: rebuild the index from the journals, which hold the truth.

Lifecycle changes from every journal are applied in serial order; session snapshots missing from
the index (or older than their journal) are rebuilt by replaying the journaled events.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.events import Event
from ..core.session import Session
from ..core.session_history import HISTORY, apply_history
from ..store._legacy import UPGRADE, adopt_legacy_journals, keyed_project
from ..store._store import Store
from ..store.changes import Change
from ..store.home import INDEX_FILE, MIRROR_FILE, SNAPSHOT_DIR, journal_paths
from ..store.journal import Journal, SkippedLine

if TYPE_CHECKING:
    from ..vectors.index import SyncReport
    from ..vectors.sources import VectorSource


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What a reindex read and rebuilt."""

    journals: int = 0
    records: int = 0
    changes: int = 0
    findings: int = 0
    sessions: int = 0
    """Session snapshots rebuilt from their journals."""
    skipped: tuple[SkippedLine, ...] = field(default=())
    vectors: tuple[tuple[str, SyncReport], ...] = ()
    """Per kind: texts embedded anew, vectors kept (text unchanged), vectors of deleted rows."""
    vectors_skipped: str = ""
    """Why vectors were not synced (the embeddings extra is missing), or ''."""


def remove_index(home: Path) -> None:
    """Delete `onlooker.db` and its WAL files, and the vector caches beside it (the journals
    stay)."""
    for name in (INDEX_FILE, MIRROR_FILE):
        for suffix in ("", "-wal", "-shm"):
            (home / f"{name}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(home / SNAPSHOT_DIR, ignore_errors=True)


def reindex(store: Store, vector_sources: Sequence[VectorSource] | None = None) -> ReindexReport:
    """Empty the index and apply every journal again, in one transaction; then embed the texts
    of `vector_sources` that have no vector yet or whose text changed (outside that transaction:
    embedding is slow, and vectors are derived from the texts, as full-text search is).
    `vector_sources` defaults to `vector_sources.SOURCES`; imported here, off the hook path."""
    from ..vectors import embeddings
    from ..vectors.sources import SOURCES, sync_vectors

    # A shared index holds one flag for every data home: each one's legacy journals are looked for
    # at each of its reindexes (finding none costs a directory listing).
    due = store.shared or store.index.upgrade_due(UPGRADE)
    moved = adopt_legacy_journals(store.home) if due else []
    journals = [Journal(path, store.journal_key(path)) for path in journal_paths(store.home)]
    changes: list[tuple[int, str, int, Change]] = []
    skipped: list[SkippedLine] = []
    records = rebuilt = 0
    with store.index.transaction():
        saved = store.index.session_seqs()
        for move in moved:  # its snapshot names the old journal: rebuild it
            saved.pop(move.session_id, None)
        if not store.shared:  # a shared index also holds other data homes' journals: kept
            store.index.clear(sessions=False)
        for journal in journals:
            read = journal.read()
            skipped.extend(read.skipped)
            records += len(read.entries)
            history = []
            # A shared index has applied this journal up to its recorded offset: only what lies
            # past it is loaded, so loading a data home twice duplicates nothing.
            start = store.index.applied_to(journal.key) if store.shared else 0
            for entry in read.entries:
                if isinstance(entry.record, Change) and entry.offset >= start:
                    change = _keyed(entry.record, journal.key)
                    changes.append((change.serial, journal.key, entry.line, change))
                elif isinstance(entry.record, HISTORY):
                    history.append(entry.record)
            store.index.set_applied_to(journal.key, read.end)
            session = _replayed(history, saved)
            if session is not None:
                store.index.save_session(
                    session.id, journal.key, session.seq, session.snapshot(), read.end,
                    store.clock.now(),
                )  # fmt: skip
                rebuilt += 1
        changes.sort(key=lambda item: item[:3])
        store.index.apply(item[3] for item in changes)
        findings = store.index.count_findings()
        store.index.upgrade_done(UPGRADE, store.clock.now())
    missing = embeddings.missing()
    vectors = (
        ()
        if missing
        else tuple(sync_vectors(store.index, SOURCES if vector_sources is None else vector_sources))
    )
    return ReindexReport(
        len(journals), records, len(changes), findings, rebuilt, tuple(skipped), vectors,
        f"the embeddings extra is missing ({', '.join(missing)})" if missing else "",
    )  # fmt: skip


def _keyed(change: Change, journal_key: str) -> Change:
    """The change with a legacy project name replaced by the key of the folder its journal was
    moved to (journals are never rewritten, so this is decided again at every reindex); the
    project is the change's own, or that of what it carries (a finding, a memory, a score)."""
    moved: dict[str, Any] = {}
    for field_ in dataclasses.fields(change):
        value = getattr(change, field_.name)
        if field_.name == "project" and isinstance(value, str):
            keyed = keyed_project(value, journal_key)
            if keyed != value:
                moved["project"] = keyed
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            project = getattr(value, "project", None)
            carried: dict[str, Any] = {
                "project": keyed_project(project, journal_key) if isinstance(project, str) else None
            }
            if carried["project"] not in (None, project):
                moved[field_.name] = dataclasses.replace(value, **carried)
    return dataclasses.replace(change, **moved) if moved else change


def _replayed(history: Sequence[object], saved: dict[str, int]) -> Session | None:
    """The session replayed from its journal, unless the saved snapshot is as recent."""
    events = [r for r in history if isinstance(r, Event)]
    if not events or not events[-1].session_id:
        return None
    last = max(e.seq for e in events)
    if saved.get(events[-1].session_id, -1) >= last:
        return None
    session = Session(events[-1].session_id)
    apply_history(session, history)
    return session
