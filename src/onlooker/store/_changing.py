"""How the store writes a change: decided and applied under the index's write lock, appended to
the acting journal, and only then committed; a journal's uncommitted tail is applied first."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from ..core.records import record_kinds
from ._index import Index
from .changes import Change
from .journal import Journal


@dataclass(slots=True)
class Pending:
    """Changes decided inside one write transaction, numbered and applied as they are added."""

    index: Index
    serial: int
    at: datetime
    changes: list[Change] = field(default_factory=list)

    def add(self, change: Change) -> None:
        self.serial += 1
        change = dataclasses.replace(change, serial=self.serial, at=self.at)
        self.index.apply((change,), numbered=False)
        self.changes.append(change)


@contextmanager
def changing(index: Index, journal: Journal, now: Callable[[], datetime]) -> Iterator[Pending]:
    """One write transaction over `journal`: what is added to the yielded Pending is applied,
    journaled and committed together."""
    with index.transaction():
        catch_up(index, journal)
        pending = Pending(index, index.last_serial(), now())
        yield pending
        if pending.changes:
            index.number(pending.serial)
            _, end = journal.append(pending.changes)
            index.set_applied_to(journal.key, end)


def catch_up(index: Index, journal: Journal) -> None:
    """Apply changes a writer journaled but died before committing (inside a transaction)."""
    start = index.applied_to(journal.key)
    if journal.size() <= start:
        return
    read = journal.read(start, kinds=_change_kinds())
    index.apply(r for r in read.records if isinstance(r, Change))
    index.set_applied_to(journal.key, read.end)


def _change_kinds() -> frozenset[str]:
    return frozenset(k for k, cls in record_kinds().items() if issubclass(cls, Change))
