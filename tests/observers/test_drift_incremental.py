"""Drift keeps its verdicts between runs: what it finds equals, finding for finding, what the
observer that judged every retained call again on every run found (tests/observers/
drift_reference.py), over real and labeled sessions, generated ones whose leads leave the window,
and sessions snapshotted and restored mid-way (specs/observers.md, "Drift")."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePath
from typing import Any

import pytest
from drift_reference import ReferenceDriftObserver

from onlooker import Engine, Session, SessionStarted, ToolCall, UserPrompt
from onlooker.core.assessment import Assessment
from onlooker.core.clock import ReplayClock
from onlooker.core.events import AssistantMessage, Event
from onlooker.core.observer import Observer, ObserverContext
from onlooker.observers import builtin_observers
from onlooker.observers.drift import DriftObserver, _judge
from onlooker.observers.task_scope import task_scopes
from onlooker.observers.task_verdicts import TaskVerdicts

TESTS = Path(__file__).parents[1]
ROOT = TESTS.parent
CORPUS = [TESTS / "fixtures" / "claude-code", TESTS / "fixtures" / "labeled", ROOT / "examples"]

Said = tuple[int, datetime, str, str, tuple[tuple[Any, ...], ...], tuple[str, ...]]


def transcripts() -> Iterator[tuple[str, tuple[Event, ...]]]:
    """Every session (subagents' too) of the real and labeled transcripts, by path."""
    from onlooker.hosts.recorded.transcripts import read_transcript

    for folder in CORPUS:
        for path in sorted(folder.rglob("*.jsonl")):
            if "subagents" in path.parts:
                continue
            for session in read_transcript(path).sessions():
                yield f"{path.relative_to(ROOT)}:{session.session_id}", session.events


def said(assessments: Iterable[Assessment]) -> list[Said]:
    """Everything an assessment tells, findings whole but for their random id."""
    return [
        (
            a.call_index,
            a.timestamp,
            a.severity,
            a.summary,
            tuple(
                (f.category, f.content, f.severity, f.evidence, f.source_type, f.metadata)
                for f in a.findings
            ),
            a.suggestions,
        )
        for a in assessments
        if a.observer_name == "Drift"
    ]


def with_drift(drift: Observer) -> Callable[[], list[Observer]]:
    """Every built-in observer, with `drift` in Drift's place (the others share the session)."""
    return lambda: [drift if o.name == "Drift" else o for o in builtin_observers()]


def replay(
    events: Iterable[Event],
    make: Callable[[], list[Observer]],
    *,
    restore_every: int = 0,
    windows: Mapping[str, int] | None = None,
) -> list[Said]:
    """Dispatch the events as `onlooker replay` does; every `restore_every` events, go on from
    the session's JSON snapshot in a new session and engine, as a new service process would."""
    clock = ReplayClock()
    engine = Engine(make(), session=Session("s", windows=windows), clock=clock)
    found: list[Assessment] = []
    for n, event in enumerate(events, 1):
        clock.follow(event.at)
        if type(event) is AssistantMessage:
            engine.session.append(event)
        else:
            found.extend(engine.dispatch(event).assessments)
        if restore_every and n % restore_every == 0:
            snapshot = json.loads(json.dumps(engine.session.snapshot()))
            session = Session.restore(snapshot, windows=windows)
            engine = Engine(make(), session=session, clock=clock)
    return said(found)


def test_recorded_sessions_get_the_findings_they_got_before() -> None:
    sessions = list(transcripts())
    told = 0
    for name, events in sessions:
        expected = replay(events, with_drift(ReferenceDriftObserver()))
        assert replay(events, with_drift(DriftObserver())) == expected, name
        told += len(expected)
    assert len(sessions) > 100
    assert told >= 10, "the corpus should hold drifts for the comparison to mean anything"


@pytest.mark.parametrize("restore_every", [1, 7, 25])
def test_a_restored_session_goes_on_with_the_same_findings(restore_every: int) -> None:
    told = 0
    for name, events in transcripts():
        expected = replay(events, with_drift(ReferenceDriftObserver()))
        again = replay(events, with_drift(DriftObserver()), restore_every=restore_every)
        assert again == expected, name
        told += len(expected)
    assert told >= 10


# -- generated sessions: long ones, leads that leave the window, prompts that widen the task ----

PROMPT = "Rename get_customer to fetch_customer in src/shop/customers.py and fix its tests"
TASK_FILES = tuple(
    f"{folder}{name}.py"
    for folder in ("src/shop/", "tests/test_")
    for name in ("customers", "orders", "cart", "models", "views")
)
"""Ten of them: the task's first files."""
AWAY_FILES = tuple(
    f"{area}/{name}.py"
    for area in ("src/billing", "vendor/acme", "web/static", "infra/deploy", "tools/release")
    for name in ("invoice", "client", "render", "queue", "notes")
)


def _call(tool: str, arguments: dict[str, Any], output: str = "", ok: bool = True) -> ToolCall:
    return ToolCall(tool=tool, input=arguments, output=output, ok=ok, error=None if ok else output)


def _listing(rng: random.Random, files: tuple[str, ...]) -> str:
    chosen = rng.sample(files, rng.randint(1, 6))
    return "\n".join(f"{path}:{rng.randint(1, 300)}: get_customer(x)" for path in chosen)


def generated(seed: int, calls: int = 260) -> list[Event]:
    """A session of `calls` tool calls that starts on its task, wanders, follows leads (greps
    of the prompt's words, failing test runs naming files), and hears a second prompt."""
    rng = random.Random(seed)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    events: list[Event] = [SessionStarted(cwd="/repo", at=at), UserPrompt(text=PROMPT, at=at)]
    events += [_call("Read", {"file_path": f"/repo/{path}"}) for path in TASK_FILES]
    everywhere = TASK_FILES + AWAY_FILES
    for n in range(calls):
        roll = rng.random()
        path = f"/repo/{rng.choice(AWAY_FILES if rng.random() < 0.8 else TASK_FILES)}"
        if roll < 0.35:
            call = _call("Read", {"file_path": path}, "x = 1\n")
        elif roll < 0.55:
            call = _call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "ok")
        elif roll < 0.6:
            call = _call("Grep", {"pattern": "get_customer"}, _listing(rng, everywhere))
        elif roll < 0.68:
            call = _call("Grep", {"pattern": "TODO"}, _listing(rng, everywhere))
        elif roll < 0.72:
            failing = "\n".join(f"FAILED {p}::test_it" for p in rng.sample(everywhere, 2))
            call = _call("Bash", {"command": "pytest -q"}, failing, ok=False)
        elif roll < 0.85:
            call = _call("Bash", {"command": f"python {path[6:]} --check"}, "done")
        elif roll < 0.9:
            call = _call("Bash", {"command": "git status"}, "")
        elif roll < 0.93:
            call = _call("Glob", {"pattern": "**/*.py", "path": "/repo/src/billing"}, "")
        else:
            call = _call("Write", {"file_path": path, "content": "y = 2\n"}, "ok")
        at += timedelta(seconds=rng.randint(1, 40))
        events.append(dataclasses.replace(call, at=at))
        if n == calls // 2:
            events.append(UserPrompt(text="Also update the billing invoice notes", at=at))
    return events


SEEDS = range(12)


def numbered_out_of_order(events: list[Event]) -> list[Event]:
    """The calls numbered by their host, each ten in reverse: indexes that go back."""
    calls = [i for i, event in enumerate(events) if isinstance(event, ToolCall)]
    numbers = list(range(1, len(calls) + 1))
    numbers = [n for start in range(0, len(numbers), 10) for n in numbers[start : start + 10][::-1]]
    renumbered = list(events)
    for position, number in zip(calls, numbers, strict=True):
        renumbered[position] = dataclasses.replace(events[position], index=number)
    return renumbered


@pytest.mark.parametrize(("window", "reorder"), [(100, False), (30, False), (30, True)])
def test_generated_sessions_get_the_findings_they_got_before(window: int, reorder: bool) -> None:
    windows = {"tool_call": window}
    told = 0
    for seed in SEEDS:
        events = generated(seed)
        if reorder:
            events = numbered_out_of_order(events)
        expected = replay(events, with_drift(ReferenceDriftObserver()), windows=windows)
        assert replay(events, with_drift(DriftObserver()), windows=windows) == expected, seed
        restored = replay(events, with_drift(DriftObserver()), restore_every=9, windows=windows)
        assert restored == expected, seed
        told += len(expected)
    assert told >= len(SEEDS), "generated sessions should drift"


def test_verdicts_are_kept_between_runs_and_follow_the_window() -> None:
    """A run judges only the calls it has not seen; calls that left the window are let go."""
    events = generated(3, calls=60)
    engine = Engine([DriftObserver()], session=Session("s", windows={"tool_call": 30}))
    for event in events:
        engine.dispatch(event)
    verdicts = engine.session.derived("drift.verdicts", TaskVerdicts)
    before = {call.index: verdicts._judged[id(call)] for call in engine.session[ToolCall].all()}
    engine.dispatch(_call("Read", {"file_path": "/repo/src/billing/invoice.py"}, "x = 1\n"))
    retained = engine.session[ToolCall].all()
    assert [call.index for call in verdicts._order] == [call.index for call in retained]
    assert set(verdicts._judged) == {id(call) for call in retained}
    for call in retained[:-1]:
        assert verdicts._judged[id(call)] is before[call.index]


@pytest.mark.parametrize("reorder", [False, True])
def test_kept_verdicts_equal_verdicts_worked_out_afresh(reorder: bool) -> None:
    """After every call, what the kept state says of each retained call, of the leads and of
    the first call on the task equals what a state made from nothing says."""
    checked = 0
    for seed in range(4):
        events = generated(seed, calls=120)
        session = Session("s", windows={"tool_call": 30})
        for event in numbered_out_of_order(events) if reorder else events:
            session.append(event)
            kept = _judge(ObserverContext(session, project_root=PurePath("/repo")))
            if kept is None or kept.key is None:
                continue
            calls = session[ToolCall].all()
            fresh = TaskVerdicts()
            fresh.update(kept.key, kept.scope, kept.ground, calls)
            assert kept.first_on_task() == fresh.first_on_task(), (seed, event)
            assert kept.leads == fresh.leads
            assert [kept.verdicts(c) for c in calls] == [fresh.verdicts(c) for c in calls]
            checked += 1
    assert checked > 400


def test_a_lead_numbered_before_a_kept_call_is_followed() -> None:
    """A host that numbers its calls out of order: a search numbered before a call already
    judged leads to that call's file, which puts the call back on the task."""
    key = (PROMPT, ("/repo/src/shop/customers.py",), (PROMPT,), "/repo")
    scope, ground = task_scopes(*key)
    away = ToolCall(tool="Read", input={"file_path": "/repo/vendor/acme/client.py"}, index=5)
    kept = TaskVerdicts()
    kept.update(key, scope, ground, [away])
    assert kept.verdicts(away) == ("/repo/vendor/acme/client.py",) * 2
    assert kept.first_on_task() is None
    search = ToolCall(
        tool="Grep",
        input={"pattern": "get_customer"},
        output="vendor/acme/client.py:3: return get_customer(x)",
        index=2,
    )
    kept.update(key, scope, ground, [away, search])
    assert kept.verdicts(away) == ("", "")
    assert kept.first_on_task() == 5
