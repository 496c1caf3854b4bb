"""Drift in a session the hook service saves and loads again: with two sessions taking turns in
a Runtime that keeps one warm, every event loads its session from the store (its snapshot and
journal, real SQLite), and Drift says what it says in a session that never left memory, which
is what the old algorithm said (specs/session.md, "State derived beside the session")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from drift_reference import ReferenceDriftObserver
from test_drift_incremental import Said, generated, said, with_drift

from onlooker import Assessment, Engine, FixedClock, Session
from onlooker.core.events import Event, SessionStarted
from onlooker.core.observer import Observer
from onlooker.observers.drift import DriftObserver
from onlooker.runtime import Arrival, Runtime
from onlooker.store import Store


def in_memory(
    events: list[Event], make: Callable[[], list[Observer]], clock: FixedClock
) -> list[Said]:
    """What the observers say of the events in one session that stays in memory."""
    engine = Engine(make(), session=Session("s"), clock=clock)
    return said(a for event in events for a in engine.dispatch(event).assessments)


def test_sessions_loaded_from_the_store_at_every_event_say_what_they_said(
    onlooker_home: Path, tmp_path: Path, clock: FixedClock
) -> None:
    loads: list[str] = []

    def engine_for(key: str, saved: Session | None, loaded: object, arrival: Arrival) -> Engine:
        loads.append(key)
        observers: list[Observer] = with_drift(DriftObserver())()
        return Engine(observers, session=saved or Session(key), clock=clock)

    sessions = {f"s{seed}": generated(seed, calls=150) for seed in (2, 7)}
    said_there: dict[str, list[Assessment]] = {key: [] for key in sessions}
    with Store(onlooker_home, clock=clock) as store:
        runtime = Runtime(store, clock=clock, engine_for=engine_for, warm_limit=1)
        for turn in range(max(map(len, sessions.values()))):
            for key, events in sessions.items():
                if turn >= len(events):
                    continue
                event = events[turn]
                cwd = event.cwd if isinstance(event, SessionStarted) else "/repo"
                delivery = runtime.handle(Arrival(event, session_id=key, cwd=cwd))
                said_there[key].extend(delivery.dispatch.assessments if delivery.dispatch else ())
        runtime.close()
    assert len(loads) > 250, "each event should have loaded its session again"
    for key, events in sessions.items():
        expected = in_memory(events, with_drift(ReferenceDriftObserver()), clock)
        assert expected, "the sessions should drift"
        assert said(said_there[key]) == expected, key
