"""The engine runs every due observer, isolates failures and time-outs, and records assessments."""

from __future__ import annotations

import asyncio
import signal
import threading
import time

import pytest

from onlooker import (
    Assessment,
    Engine,
    FixedClock,
    ObserverContext,
    ObserverFailure,
    ObserverSpec,
    Session,
    ToolCall,
    Trigger,
    observer,
)
from onlooker.core.engine import held_alarm


@observer(name="First")
def first(ctx: ObserverContext) -> str:
    return "first says"


@observer(name="Second")
def second(ctx: ObserverContext) -> Assessment:
    return Assessment(summary="second says", severity="medium")


@observer(name="Boom")
def boom(ctx: ObserverContext) -> str:
    raise RuntimeError("observer bug")


def test_all_due_observers_run_and_combine(clock: FixedClock) -> None:
    engine = Engine([first, second], clock=clock)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert [a.observer_name for a in result.assessments] == ["First", "Second"]
    stored = result.assessments[1].render()  # medium: stored, so its message carries its id
    assert result.feedback.startswith(
        "[Trajectory Assessment - First]\n\nfirst says\n\n[Trajectory Assessment - Second]\n\n"
        "second says [id "
    )
    assert stored.endswith("second says")
    assert result.feedback.endswith("acknowledges or resolves one by id.")
    recorded = engine.session[Assessment].all()
    assert [(a.observer_name, a.call_index, a.timestamp) for a in recorded] == [
        ("First", 1, clock.now()),
        ("Second", 1, clock.now()),
    ]


def test_first_match_stops_at_the_first_assessment(clock: FixedClock) -> None:
    engine = Engine([first, second], clock=clock, first_match=True)
    assert [a.observer_name for a in engine.dispatch(ToolCall(tool="Bash")).assessments] == [
        "First"
    ]


def test_a_raising_observer_is_recorded_and_others_still_run(clock: FixedClock) -> None:
    engine = Engine([boom, second], clock=clock)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert [a.observer_name for a in result.assessments] == ["Second"]
    assert result.failures == (
        ObserverFailure(
            observer="Boom", error="RuntimeError: observer bug", at=clock.now(), call_index=1
        ),
    )
    assert engine.session[ObserverFailure].all() == result.failures


@observer(name="Slow")
def slow(ctx: ObserverContext) -> str:
    time.sleep(5)
    return "never"


def test_a_slow_observer_times_out_on_the_main_thread(clock: FixedClock) -> None:
    engine = Engine([ObserverSpec(slow, timeout=0.05), second], clock=clock)
    started = time.monotonic()
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert time.monotonic() - started < 2
    assert [f.observer for f in result.failures] == ["Slow"] and result.failures[0].timed_out
    assert [a.observer_name for a in result.assessments] == ["Second"]


def test_a_slow_observer_times_out_off_the_main_thread(clock: FixedClock) -> None:
    release = threading.Event()

    @observer(name="Stuck")
    def stuck(ctx: ObserverContext) -> str:
        release.wait(5)
        return "late"

    engine = Engine([ObserverSpec(stuck, timeout=0.05)], clock=clock)
    box: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: box.update(result=engine.dispatch(ToolCall(tool="Bash")))
    )
    worker.start()
    worker.join(3)
    release.set()
    result = box["result"]
    assert result.failures[0].timed_out  # type: ignore[attr-defined]


def test_off_the_main_thread_inline_observers_run_in_place_and_limited_ones_on_a_helper(
    clock: FixedClock,
) -> None:
    threads: dict[str, threading.Thread] = {}
    release = threading.Event()

    def noting(name: str, *, wait: bool = False) -> ObserverSpec:
        def check(ctx: ObserverContext) -> str:
            threads[name] = threading.current_thread()
            if wait:
                release.wait(5)
            return f"{name} says"

        return ObserverSpec(observer(name=name)(check), timeout=0.2, inline=name.startswith("In"))

    engine = Engine(
        [noting("Inline"), noting("Limited"), noting("Stuck", wait=True), noting("After"),
         noting("Inline late")], clock=clock,
    )  # fmt: skip
    box: dict[str, object] = {}
    for _ in range(2):  # the second dispatch has a fresh helper: the stuck one was left behind
        worker = threading.Thread(
            target=lambda: box.update(result=engine.dispatch(ToolCall(tool="Bash"))), name="hook"
        )
        worker.start()
        worker.join(3)
        result = box.pop("result")
        assert [a.observer_name for a in result.assessments] == [  # type: ignore[attr-defined]
            "Inline", "Limited", "After", "Inline late"
        ]  # fmt: skip
        assert [(f.observer, f.timed_out) for f in result.failures] == [("Stuck", True)]  # type: ignore[attr-defined]
        assert threads["Inline"].name == threads["Inline late"].name == "hook"
        assert threads["Limited"] is threads["Stuck"] is not threads["After"]
        assert threads["After"].name == "onlooker-observer"
    release.set()


def test_async_observers_in_dispatch_and_adispatch(clock: FixedClock) -> None:
    @observer(name="Async")
    async def from_async(ctx: ObserverContext) -> str:
        await asyncio.sleep(0)
        return f"async at {ctx.tool_call_count}"

    @observer(name="AsyncSlow")
    async def too_slow(ctx: ObserverContext) -> str:
        await asyncio.sleep(5)
        return "never"

    engine = Engine([from_async, ObserverSpec(too_slow, timeout=0.05)], clock=clock)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert [a.summary for a in result.assessments] == ["async at 1"]
    assert [f.observer for f in result.failures] == ["AsyncSlow"]

    async def in_loop() -> None:
        inner = await engine.adispatch(ToolCall(tool="Bash"))
        assert [a.summary for a in inner.assessments] == ["async at 2"]
        assert inner.failures[0].timed_out
        nested = engine.dispatch(ToolCall(tool="Bash"))  # sync dispatch from inside a running loop
        assert [a.summary for a in nested.assessments] == ["async at 3"]

    asyncio.run(in_loop())


def test_wrong_return_type_becomes_a_failure(clock: FixedClock) -> None:
    class Odd:
        name = "Odd"

        def should_run(self, ctx: ObserverContext) -> bool:
            return True

        def observe(self, ctx: ObserverContext) -> object:
            return 42

    result = Engine([Odd()], clock=clock).dispatch(ToolCall(tool="Bash"))  # type: ignore[list-item]
    assert "returned int" in result.failures[0].error


def test_should_run_false_skips_without_recording(clock: FixedClock) -> None:
    quiet = observer(name="Quiet", when=lambda ctx: False)(lambda ctx: "x")
    engine = Engine([quiet], clock=clock)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert result.assessments == () and result.failures == ()


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="repeated: First"):
        Engine([first, first])


def test_observer_sees_its_open_findings_and_the_event(clock: FixedClock) -> None:
    from onlooker import Finding

    seen: list[ObserverContext] = []
    probe = observer(name="Probe")(lambda ctx: seen.append(ctx) and None)
    engine = Engine(
        [probe], clock=clock, findings=lambda name: (Finding(content=f"open for {name}"),)
    )
    engine.dispatch(ToolCall(tool="Grep"))
    assert seen[0].findings[0].content == "open for Probe"
    assert isinstance(seen[0].event, ToolCall) and seen[0].event.tool == "Grep"


def test_engine_resumes_a_session_from_its_snapshot(clock: FixedClock) -> None:
    every2 = observer(name="Every2", trigger=Trigger(every_n_calls=2))(
        lambda ctx: f"at {ctx.tool_call_count}"
    )
    session = Session("s")
    Engine([every2], session=session, clock=clock).dispatch(ToolCall(tool="A"))
    later = Engine([every2], session=Session.restore(session.snapshot()), clock=clock)
    assert later.dispatch(ToolCall(tool="B")).feedback.endswith("at 2")


def test_dispatching_holds_the_alarm_over_many_dispatches(clock: FixedClock) -> None:
    engine = Engine([ObserverSpec(slow, timeout=0.05), second], clock=clock)
    with engine.dispatching():
        for _ in range(2):
            result = engine.dispatch(ToolCall(tool="Bash"))
            assert [f.observer for f in result.failures] == ["Slow"]
            assert result.failures[0].timed_out
            assert [a.observer_name for a in result.assessments] == ["Second"]
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_engines_made_one_after_another_share_a_held_alarm(clock: FixedClock) -> None:
    """`held_alarm` installs the handler once for engines made with it (a replay's sessions):
    each one's time limits hold, and the handler is restored after the block."""
    with held_alarm() as alarm:
        held = signal.getsignal(signal.SIGALRM)
        assert alarm.installed and held is not signal.SIG_DFL
        for _ in range(2):
            engine = Engine([ObserverSpec(slow, timeout=0.05), second], clock=clock, alarm=alarm)
            with engine.dispatching():
                result = engine.dispatch(ToolCall(tool="Bash"))
            assert [f.observer for f in result.failures] == ["Slow"]
            assert result.failures[0].timed_out
            assert [a.observer_name for a in result.assessments] == ["Second"]
            assert signal.getsignal(signal.SIGALRM) is held  # left installed between engines
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_alarm_between_observer_calls_times_nothing_out(clock: FixedClock) -> None:
    """The timer is left armed after a call returns (the next call re-arms it): an alarm that
    rings between calls is no timeout, and the timer is off once the dispatches end."""
    engine = Engine([ObserverSpec(second, timeout=30)], clock=clock)
    with engine.dispatching():
        engine.dispatch(ToolCall(tool="Bash"))
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # still armed by the call
        signal.raise_signal(signal.SIGALRM)  # rings outside any observer's call
        result = engine.dispatch(ToolCall(tool="Bash"))
    assert result.failures == () and [a.observer_name for a in result.assessments] == ["Second"]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    engine.dispatch(ToolCall(tool="Bash"))  # a lone dispatch installs, arms and disarms it
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
