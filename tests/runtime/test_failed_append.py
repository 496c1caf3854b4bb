"""A failed journal append never leaves a session in memory ahead of its journal, and no
observer's text fails one (specs/session.md, "A session equals its journal").

The journal of a session cannot be written for one event (a folder stands where it was): that
event's step fails with a StoreError naming the journal, the Runtime forgets the session unsaved,
and the next event loads it again from its snapshot and journal. The 40 events after it are
recorded as usual, and the session as saved equals the session rebuilt from its journal alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import (
    Assessment,
    Engine,
    FixedClock,
    ObserverContext,
    Session,
    SessionStarted,
    ToolCall,
    observer,
)
from onlooker.core.events import Event
from onlooker.core.records import Record
from onlooker.core.session_history import apply_history
from onlooker.runtime import Arrival, Runtime
from onlooker.store import Journal, Store, StoreError

FAILED_CALL = 5


@observer(name="Echo")
def echo(ctx: ObserverContext) -> Assessment | None:
    """Reports every third call, with a lone surrogate in its text."""
    call = ctx.session[ToolCall].latest()
    if call is None or call.index % 3:
        return None
    return Assessment(observer_name="Echo", summary=f"call {call.index} \ud800", severity="info")


def call(n: int) -> ToolCall:
    return ToolCall(call_id=f"c{n}", tool="Bash", input={"command": f"echo {n}"}, output=str(n))


def runtime_over(store: Store, clock: FixedClock) -> Runtime:
    return Runtime(
        store, clock=clock, engine_for=lambda key, saved, loaded, arrival: Engine(
            [echo], session=saved or Session(key), clock=clock
        ),
    )  # fmt: skip


def journaled(home: Path) -> list[Record]:
    return Journal(next((home / "journals").glob("*/s1.jsonl")), "s1").read().records


def assert_saved_equals_journal(store: Store, records: list[Record]) -> None:
    rebuilt = Session("s1")
    apply_history(rebuilt, records)
    expected = rebuilt.snapshot()["slices"]
    loaded, saved = store.load_session("s1"), store.index.load_session("s1")
    assert loaded is not None and saved is not None
    for live in (saved[2]["slices"], loaded.snapshot()["slices"]):
        assert {k: v for k, v in live.items() if k in expected} == expected


def test_an_observers_lone_surrogate_is_stored_as_u_fffd(
    onlooker_home: Path, tmp_path: Path, clock: FixedClock
) -> None:
    where = {"session_id": "s1", "cwd": str(tmp_path)}
    with Store(onlooker_home, clock=clock) as store:
        runtime = runtime_over(store, clock)
        runtime.handle(Arrival(SessionStarted(source="startup", cwd=str(tmp_path)), **where))
        said = [runtime.handle(Arrival(call(n), **where)).context for n in range(1, 31)]
        runtime.close()
        assert [text for text in said if text] == [
            f"[Trajectory Assessment - Echo]\n\ncall {n} \ufffd" for n in range(3, 31, 3)
        ]
        records = journaled(onlooker_home)
        assert [r.summary for r in records if isinstance(r, Assessment)] == [
            f"call {n} \ufffd" for n in range(3, 31, 3)
        ]
        assert_saved_equals_journal(store, records)


def test_a_failed_append_leaves_no_session_ahead_of_its_journal(
    onlooker_home: Path, tmp_path: Path, clock: FixedClock
) -> None:
    where = {"session_id": "s1", "cwd": str(tmp_path)}
    with Store(onlooker_home, clock=clock) as store:
        runtime = runtime_over(store, clock)
        runtime.handle(Arrival(SessionStarted(source="startup", cwd=str(tmp_path)), **where))
        for n in range(1, FAILED_CALL):
            runtime.handle(Arrival(call(n), **where))
        path = next((onlooker_home / "journals").glob("*/s1.jsonl"))
        path.rename(path.with_suffix(".kept"))
        path.mkdir()  # a folder where the journal was: no append can go through
        with pytest.raises(StoreError, match=r"s1\.jsonl: cannot open the journal"):
            runtime.handle(Arrival(call(FAILED_CALL), **where))
        path.rmdir()
        path.with_suffix(".kept").rename(path)
        for n in range(FAILED_CALL + 1, FAILED_CALL + 41):
            delivery = runtime.handle(Arrival(call(n), **where))
            assert delivery.dispatch is not None
            index = n - 1  # the failed call was never journaled: it took no place
            expected = [f"call {index} \ufffd"] if index % 3 == 0 else []
            assert [a.summary for a in delivery.dispatch.assessments] == expected, n
        runtime.close()

        records = journaled(onlooker_home)
        seqs = [r.seq for r in records if isinstance(r, Event)]
        assert seqs == list(range(1, len(seqs) + 1))  # no gap, no seq twice
        calls = [r.call_id for r in records if isinstance(r, ToolCall)]
        assert calls == [f"c{n}" for n in range(1, FAILED_CALL + 41) if n != FAILED_CALL]
        assert_saved_equals_journal(store, records)
