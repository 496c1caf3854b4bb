"""A session's history: the records of its journal that make its state (events, the assessments
and failures of its observers), and how they are applied to it, in journal order.

Loading a session after its snapshot and rebuilding it from nothing (`onlooker reindex`) apply
the same records the same way, so a session loaded after a kill equals its journal
(specs/session.md, "A session equals its journal").
"""

from __future__ import annotations

from collections.abc import Iterable

from .assessment import Assessment, ObserverFailure
from .events import Event
from .records import record_kinds
from .session import Session

HISTORY = (Event, Assessment, ObserverFailure)
"""Record types a session's journal holds for the session itself (the rest are store changes)."""


def history_kinds() -> frozenset[str]:
    """The journal kinds of HISTORY records (the events of every loaded plugin included)."""
    return frozenset(k for k, cls in record_kinds().items() if issubclass(cls, HISTORY))


def apply_history(session: Session, records: Iterable[object]) -> None:
    """Apply journaled records in order: an event newer than the session is appended (one it
    holds already is not), an assessment or observer failure is recorded in its slice."""
    for record in records:
        if isinstance(record, Event):
            if record.seq > session.seq:
                session.append(record)
        elif isinstance(record, Assessment | ObserverFailure):
            session.record(record)
