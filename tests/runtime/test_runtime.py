"""The Runtime every host runs on: recording, checkpoints, held feedback, subagents, memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker import (
    Engine,
    FixedClock,
    ObserverContext,
    Session,
    SessionEnded,
    SessionInfo,
    SessionStarted,
    SubagentStopped,
    ToolCall,
    Trigger,
    TurnEnded,
    UserPrompt,
    observer,
)
from onlooker.core.records import Record
from onlooker.hosts.sdk.openai_chat import tool_message
from onlooker.memory import Memories
from onlooker.observers import builtin_observers
from onlooker.runtime import Arrival, Runtime
from onlooker.store import Journal, Store, project_for


@pytest.fixture
def store(onlooker_home: Path) -> Iterator[Store]:
    with Store(onlooker_home) as store:
        yield store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


def failing(n: int) -> ToolCall:
    return ToolCall(
        call_id=f"call-{n}", tool="Bash", input={"command": "pytest -q"},
        output="FAILED test_login - AssertionError", ok=False, error="1 failed",
    )  # fmt: skip


def journal_kinds(store: Store, session_id: str) -> list[str]:
    """The record kinds of the session's journal, whichever project keeps it."""
    paths = sorted((store.home / "journals").glob(f"*/{session_id}.jsonl"))
    return [
        r.kind for p in paths for r in Journal(p, p.name).read().records if isinstance(r, Record)
    ]


def test_a_session_first_seen_mid_way_is_started_recorded_and_saved_at_its_end(
    store: Store, project: Path, clock: FixedClock
) -> None:
    runtime = Runtime(store, clock=clock)
    runtime.handle(Arrival(failing(1), "s1", cwd=str(project)))
    runtime.handle(Arrival(SessionEnded(reason="exit"), "s1", cwd=str(project)))
    assert journal_kinds(store, "s1")[:2] == ["session_started", "tool_call"]
    assert journal_kinds(store, "s1")[-1] == "session_ended"
    saved = store.load_session("s1")
    assert saved is not None and saved.tool_call_count == 1
    info = saved[SessionInfo].latest()
    assert info is not None and info.started.cwd == str(project)
    assert runtime.engine("s1") is None  # let go at its end


def test_held_feedback_is_delivered_once_with_the_next_deliverable_event(
    store: Store, project: Path, clock: FixedClock
) -> None:
    @observer(name="Turn Note", trigger=Trigger(on_event=("turn_ended",)))
    def turn_note(ctx: ObserverContext) -> str:
        return "The turn ended with tests failing."

    runtime = Runtime(
        store, clock=clock, engine_for=lambda key, saved, loaded, arrival: Engine(
            [turn_note], session=saved or Session(key), clock=clock
        ),
    )  # fmt: skip
    where = {"session_id": "s1", "cwd": str(project)}
    stop = runtime.handle(Arrival(TurnEnded(), **where, deliverable=False))
    assert stop.context == "" and stop.dispatch is not None and stop.dispatch.feedback
    first = runtime.handle(Arrival(failing(1), **where))
    assert "The turn ended with tests failing." in first.context
    second = runtime.handle(Arrival(failing(2), **where))
    assert "The turn ended with tests failing." not in second.context


def test_a_subagent_is_its_own_session_with_its_parent_and_let_go_when_it_stops(
    store: Store, project: Path, clock: FixedClock
) -> None:
    runtime = Runtime(store, clock=clock)
    where = {"session_id": "s1", "cwd": str(project)}
    runtime.handle(Arrival(UserPrompt(text="fix login"), **where))
    runtime.handle(Arrival(failing(1), **where, agent_id="a7", agent_type="Explore"))
    sub = runtime.engine("s1/a7")
    assert sub is not None
    info = sub.session[SessionInfo].latest()
    assert info is not None
    assert (info.started.parent_session_id, info.started.agent_type) == ("s1", "Explore")
    runtime.handle(Arrival(SubagentStopped(agent_id="a7"), **where, agent_id="a7"))
    assert runtime.engine("s1/a7") is None
    saved = store.load_session("s1/a7")
    assert saved is not None and saved.tool_call_count == 1
    main = runtime.engine("s1")
    assert main is not None and main.session.tool_call_count == 0


def test_tool_calls_are_captured_for_memory_and_secrets_never_reach_the_store(
    store: Store, project: Path, clock: FixedClock
) -> None:
    runtime = Runtime(store, clock=clock)
    secret = "sk-ant-api03-" + "Qm9uZXMgYW5kIHN0b25lcw" * 2
    call = ToolCall(call_id="c1", tool="Bash", input={"command": f"deploy --key {secret}"},
                    output="deployed", ok=True)  # fmt: skip
    runtime.handle(Arrival(call, "s1", cwd=str(project)))
    assert Memories(store).pending_count(project_for(project), "s1") == 1
    journal = store.journal(project_for(project), "s1").path.read_text()
    assert "deploy --key" in journal and secret not in journal


def test_a_plain_loop_records_through_a_runtime_with_a_store(
    store: Store, project: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    runtime = Runtime(store, clock=clock, project="shop")
    call = {"id": "call_1", "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "pytest -q"}'}}  # fmt: skip
    message = tool_message(runtime, call, "1 passed", session_id="loop-1")
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": "1 passed"}
    assert journal_kinds(store, "loop-1") == ["session_started", "tool_call"]
    assert Memories(store).pending_count("shop", "loop-1") == 1


def test_around_an_engine_nothing_is_kept_and_no_start_is_made_up(clock: FixedClock) -> None:
    engine = Engine(builtin_observers(), session=Session("loop"), clock=clock)
    runtime = Runtime.around(engine)
    for n in range(1, 6):
        runtime.handle(Arrival(failing(n), "loop"))
    assert engine.session.tool_call_count == 5
    assert engine.session[SessionInfo].latest() is None
    assert engine.session[SessionStarted].latest() is None


def test_a_tool_call_sent_twice_is_recorded_once(
    store: Store, project: Path, clock: FixedClock
) -> None:
    """A hook sent again after its client gave up, or a spooled input replayed, carries the same
    tool_use_id: the second is answered with nothing and leaves no trace."""
    runtime = Runtime(store, clock=clock)
    runtime.handle(Arrival(failing(1), "s1", cwd=str(project)))
    again = runtime.handle(Arrival(failing(1), "s1", cwd=str(project)))
    assert again.context == "" and again.dispatch is None
    assert journal_kinds(store, "s1").count("tool_call") == 1
    fresh = Runtime(store, clock=clock)  # a new service after a crash: the journal still knows
    fresh.handle(Arrival(failing(1), "s1", cwd=str(project)))
    assert journal_kinds(store, "s1").count("tool_call") == 1
    assert Memories(store).pending_count(project_for(project), "s1") == 1
