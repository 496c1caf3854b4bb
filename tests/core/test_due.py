"""Which observers the engine asks after an event (core/_due.py), and the time limit's timer held
over a run of calls (core/_alarm.py): the same outcomes as asking every observer and arming the
timer for every call."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import ClassVar

import pytest

from onlooker import (
    Assessment,
    Engine,
    FixedClock,
    ObserverContext,
    ObserverSpec,
    ToolCall,
    Trigger,
    observer,
)
from onlooker.core.events import Event, Marker, SessionStarted, UserPrompt
from onlooker.core.triggers import TriggerState
from onlooker.observers import builtin_observers


@dataclass
class Asked:
    """Counts `should_run` calls; says yes on tool calls only, as it declares."""

    name: str = "Asked"
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=1))
    asked: list[str] = field(default_factory=list)
    event_types: ClassVar[tuple[type[Event], ...]] = (ToolCall,)

    def should_run(self, ctx: ObserverContext) -> bool:
        assert ctx.event is not None
        self.asked.append(ctx.event.kind)
        return isinstance(ctx.event, ToolCall)

    def observe(self, ctx: ObserverContext) -> Assessment:
        return Assessment(summary=f"call {ctx.tool_call_count}")


def test_an_observer_is_not_asked_on_events_it_declares_it_cannot_run_on(
    clock: FixedClock,
) -> None:
    asked = Asked()
    engine = Engine([asked], clock=clock)
    engine.dispatch(SessionStarted(cwd="/repo"))
    engine.dispatch(UserPrompt(text="fix it"))
    told = engine.dispatch(ToolCall(tool="Bash", input={"command": "ls"}))
    engine.dispatch(UserPrompt(text="more"))
    assert asked.asked == ["tool_call"]
    assert told.feedback.endswith("call 1")


@dataclass
class NeedsDeadline:
    name: str = "Timed"
    trigger: Trigger = field(default_factory=lambda: Trigger.on("tool_call"))
    asked: int = 0
    needs_deadline: ClassVar[bool] = True

    def should_run(self, ctx: ObserverContext) -> bool:
        self.asked += 1
        return ctx.deadline is not None

    def observe(self, ctx: ObserverContext) -> Assessment:
        return Assessment(summary="time is running")


def test_an_observer_that_needs_a_deadline_is_asked_only_once_there_is_one(
    clock: FixedClock,
) -> None:
    timed = NeedsDeadline()
    engine = Engine([timed], clock=clock)
    engine.dispatch(SessionStarted(cwd="/repo"))
    engine.dispatch(ToolCall(tool="Bash"))
    assert timed.asked == 0
    state = engine.session[TriggerState].latest()
    assert state is not None and "Timed" in state.pending  # not run: still pending
    # still pending: asked at the next event, once there is a deadline, and it runs
    told = engine.dispatch(SessionStarted(cwd="/repo", deadline=clock.now() + timedelta(hours=1)))
    assert timed.asked == 1 and told.feedback.endswith("time is running")


@pytest.mark.parametrize("kind", [ToolCall, UserPrompt, SessionStarted, Marker])
def test_the_builtin_declarations_agree_with_their_should_run(kind: type[Event]) -> None:
    """A built-in declares only what its own `should_run` says: asked on an event it declares
    it cannot run on, or without the deadline it needs, it says no."""
    from onlooker import Session

    session = Session("s")
    event = session.append(kind(name="x") if kind is Marker else kind())  # type: ignore[call-arg]
    ctx = ObserverContext(session, event=event)
    for found in builtin_observers():
        types = getattr(found, "event_types", ())
        if types and not isinstance(event, types):
            assert found.should_run(ctx) is False, found.name
        if getattr(found, "needs_deadline", False):
            assert found.should_run(ctx) is False, found.name


@dataclass
class FailuresOnly:
    """Says from the event alone whether it runs (`runs_on`); counts `should_run` calls."""

    name: str = "Failures"
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=1))
    asked: int = 0

    @staticmethod
    def runs_on(event: Event) -> bool:
        return isinstance(event, ToolCall) and not event.ok

    def should_run(self, ctx: ObserverContext) -> bool:
        self.asked += 1
        return ctx.event is not None and self.runs_on(ctx.event)

    def observe(self, ctx: ObserverContext) -> Assessment:
        return Assessment(summary=f"failed at call {ctx.tool_call_count}")


def test_an_observer_whose_runs_on_says_no_is_not_asked(clock: FixedClock) -> None:
    failures = FailuresOnly()
    engine = Engine([failures], clock=clock)
    engine.dispatch(ToolCall(tool="Bash"))
    engine.dispatch(UserPrompt(text="go on"))
    assert failures.asked == 0
    state = engine.session[TriggerState].latest()
    assert state is not None and "Failures" not in state.runs  # as if should_run said no
    told = engine.dispatch(ToolCall(tool="Bash", ok=False, error="boom"))
    assert failures.asked == 1 and told.feedback.endswith("failed at call 2")


@pytest.mark.parametrize(
    "event",
    [
        ToolCall(tool="Bash", ok=False, error="Exit code 2\nboom"),
        ToolCall(tool="Bash", ok=False, error="The user doesn't want to proceed"),
        ToolCall(tool="Bash", output="fine"),
        UserPrompt(text="fix it"),
    ],
)
def test_the_builtin_runs_on_agree_with_their_should_run(event: Event) -> None:
    from onlooker import Session

    session = Session("s")
    ctx = ObserverContext(session, event=session.append(event))
    declared = [found for found in builtin_observers() if hasattr(found, "runs_on")]
    assert declared  # Error Cascade
    for found in declared:
        assert found.runs_on(ctx.event) is found.should_run(ctx), found.name


def test_what_an_event_fires_is_the_same_asked_again(clock: FixedClock) -> None:
    """Event conditions kept per event type and tool: the same tool fires the same observers,
    another tool and a requested marker are asked afresh."""
    on_bash = observer(name="On Bash", trigger=Trigger(tools=("Bash",)))(lambda ctx: "bash")
    on_mcp = observer(name="On MCP", trigger=Trigger(tools=("mcp__*",)))(lambda ctx: "mcp")
    engine = Engine([on_bash, on_mcp], clock=clock)
    seen = [
        [a.observer_name for a in engine.dispatch(ToolCall(tool=tool)).assessments]
        for tool in ("Bash", "mcp__x__y", "Bash", "Read", "mcp__x__y")
    ]
    assert seen == [["On Bash"], ["On MCP"], ["On Bash"], [], ["On MCP"]]


@observer(name="Quick")
def quick(ctx: ObserverContext) -> str:
    time.sleep(0.01)
    return "quick"


@observer(name="Stuck")
def stuck(ctx: ObserverContext) -> str:
    time.sleep(5)
    return "never"


def test_calls_that_together_outlast_the_limit_are_not_timed_out(clock: FixedClock) -> None:
    """The timer armed by the first call rings during a later one, well within that call's
    own limit: it is set again for the rest, and nothing times out."""
    engine = Engine([ObserverSpec(quick, timeout=0.1)], clock=clock)
    began = time.monotonic()
    with engine.dispatching():
        results = [engine.dispatch(ToolCall(tool="Bash")) for _ in range(25)]
    assert time.monotonic() - began > 0.2  # the timer rang more than once meanwhile
    assert all(r.failures == () for r in results)
    assert all([a.summary for a in r.assessments] == ["quick"] for r in results)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_call_past_its_limit_times_out_after_the_timer_was_set_for_a_longer_one(
    clock: FixedClock,
) -> None:
    """A call with a shorter limit than the armed timer's sets it sooner; a call that runs past
    its limit after the timer rang early for it still times out."""
    engine = Engine(
        [ObserverSpec(quick, timeout=30), ObserverSpec(stuck, timeout=0.05)], clock=clock
    )
    began = time.monotonic()
    with engine.dispatching():
        result = engine.dispatch(ToolCall(tool="Bash"))
    assert time.monotonic() - began < 2
    assert [f.observer for f in result.failures] == ["Stuck"] and result.failures[0].timed_out
    assert "0.05s timeout" in result.failures[0].error

    engine = Engine([ObserverSpec(quick, timeout=0.05), ObserverSpec(stuck, timeout=0.2)])
    began = time.monotonic()
    with engine.dispatching():
        result = engine.dispatch(ToolCall(tool="Bash"))
    elapsed = time.monotonic() - began
    assert [f.observer for f in result.failures] == ["Stuck"], result.failures
    assert 0.2 <= elapsed < 2  # rang at quick's 0.05 s, set again; stuck's own 0.2 s kept


def test_an_event_types_attribute_that_names_no_classes_declares_nothing(
    clock: FixedClock,
) -> None:
    """A plugin's `event_types` meaning something else (names, not classes) is no declaration:
    the observer is asked as any other."""

    @dataclass
    class Named(Asked):
        event_types: ClassVar = ("user_prompt",)  # type: ignore[misc]

    named = Named(trigger=Trigger.on("user_prompt", "tool_call"))
    engine = Engine([named], clock=clock)
    engine.dispatch(UserPrompt(text="fix it"))
    engine.dispatch(ToolCall(tool="Bash"))
    assert named.asked == ["user_prompt", "tool_call"]
