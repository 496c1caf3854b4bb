"""Triggers are data: every_n_calls, every_n_seconds, on_event; OR'd; event triggers stay pending."""

from __future__ import annotations

import pytest

from onlooker import (
    Engine,
    FixedClock,
    Marker,
    Observer,
    ObserverContext,
    Session,
    ToolCall,
    Trigger,
    TurnEnded,
    UserPrompt,
    observer,
)


def runs_of(engine: Engine, name: str) -> int:
    return sum(
        1
        for a in engine.session[__import__("onlooker").Assessment].all()
        if a.observer_name == name
    )


def counting(name: str, trigger: Trigger, when: bool = True) -> Observer:
    return observer(name=name, trigger=trigger, when=lambda ctx: when)(
        lambda ctx: f"run at {ctx.tool_call_count}"
    )


def test_every_n_calls(clock: FixedClock) -> None:
    engine = Engine([counting("Every3", Trigger(every_n_calls=3))], clock=clock)
    texts = [engine.dispatch(ToolCall(tool="Bash", input={"i": i})).feedback for i in range(7)]
    assert [bool(t) for t in texts] == [False, False, True, False, False, True, False]


def test_every_n_seconds_uses_the_injected_clock(clock: FixedClock) -> None:
    engine = Engine([counting("Timer", Trigger(every_n_seconds=30))], clock=clock)
    assert engine.dispatch(ToolCall(tool="Read")).assessments  # never ran: runs now
    clock.advance(29)
    assert not engine.dispatch(ToolCall(tool="Read")).assessments
    clock.advance(1)
    assert engine.dispatch(ToolCall(tool="Read")).assessments


def test_on_event_kinds_markers_and_tool_names(clock: FixedClock) -> None:
    engine = Engine(
        [
            counting("OnTurn", Trigger.on("turn_ended")),
            counting("OnMarker", Trigger.on("checkpoint")),
            counting("OnBash", Trigger(tools=("Bash", "mcp__*"))),
        ],
        clock=clock,
    )
    assert [a.observer_name for a in engine.dispatch(UserPrompt(text="hi")).assessments] == []
    assert [a.observer_name for a in engine.dispatch(TurnEnded()).assessments] == ["OnTurn"]
    assert [a.observer_name for a in engine.dispatch(Marker(name="checkpoint")).assessments] == [
        "OnMarker"
    ]
    assert [a.observer_name for a in engine.dispatch(ToolCall(tool="Read")).assessments] == []
    assert [a.observer_name for a in engine.dispatch(ToolCall(tool="mcp__gh__pr")).assessments] == [
        "OnBash"
    ]


def test_conditions_are_ored(clock: FixedClock) -> None:
    engine = Engine(
        [counting("Either", Trigger(every_n_calls=5, on_event=("turn_ended",)))], clock=clock
    )
    fired = []
    for i in range(6):
        event = TurnEnded() if i == 1 else ToolCall(tool="Bash", input={"i": i})
        fired.append(bool(engine.dispatch(event).assessments))
    assert fired == [False, True, False, False, False, False]
    assert engine.dispatch(
        ToolCall(tool="Bash")
    ).assessments  # 5 calls since it last ran at call 1... 6


def test_event_trigger_stays_pending_until_the_observer_runs(clock: FixedClock) -> None:
    ready = {"value": False}
    watcher = observer(
        name="Watcher", trigger=Trigger.on("checkpoint"), when=lambda ctx: ready["value"]
    )(lambda ctx: "ran")
    engine = Engine([watcher], clock=clock)
    assert not engine.dispatch(Marker(name="checkpoint")).assessments
    assert not engine.dispatch(UserPrompt(text="still pending")).assessments
    ready["value"] = True
    assert engine.dispatch(UserPrompt(text="now it can run")).assessments
    assert not engine.dispatch(UserPrompt(text="pending was cleared")).assessments


def test_trigger_state_survives_snapshot(clock: FixedClock) -> None:
    session = Session("s")
    first = Engine([counting("Every2", Trigger(every_n_calls=2))], session=session, clock=clock)
    first.dispatch(ToolCall(tool="A"))
    resumed = Engine(
        [counting("Every2", Trigger(every_n_calls=2))],
        session=Session.restore(session.snapshot()),
        clock=clock,
    )
    assert resumed.dispatch(ToolCall(tool="B")).assessments


def test_invalid_trigger_values_are_refused() -> None:
    with pytest.raises(ValueError, match="every_n_calls must be at least 1"):
        Trigger(every_n_calls=0)
    with pytest.raises(ValueError, match="every_n_seconds must be positive"):
        Trigger(every_n_seconds=-1)


def test_context_helpers(clock: FixedClock) -> None:
    seen: list[ObserverContext] = []
    probe = observer(name="Probe", trigger=Trigger(every_n_calls=4))(
        lambda ctx: seen.append(ctx) or "x"
    )
    engine = Engine([probe], clock=clock)
    for i in range(6):
        engine.dispatch(ToolCall(tool="Bash", input={"i": i}, ok=i not in (4, 5)))
    ctx = ObserverContext(session=engine.session, observer_name="Probe", clock=clock)
    assert ctx.tool_call_count == 6
    assert ctx.last_assessment is not None and ctx.last_assessment.call_index == 4
    assert ctx.tool_calls_since_last_assessment() == 2
    assert [c.input["i"] for c in ctx.recent_tool_calls(3)] == [3, 4, 5]
    assert ctx.error_rate(4) == 0.5
    assert ctx.error_rate(100) == pytest.approx(2 / 6)
