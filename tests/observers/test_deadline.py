"""Deadline: a status line at half time, 75 %, 90 % and overdue, with the time left at the moment
it is said; periodic when given an `every_n_seconds` trigger; continued across a resume."""

from __future__ import annotations

from datetime import timedelta

import pytest

from onlooker import (
    Deadline,
    Engine,
    FixedClock,
    Session,
    SessionStarted,
    ToolCall,
    Trigger,
    UserPrompt,
)
from onlooker.observers.deadline import DeadlineObserver, format_duration
from onlooker.store import trajectory_findings


def started_engine(clock: FixedClock, minutes: float, **fields: object) -> Engine:
    engine = Engine([DeadlineObserver(**fields)], clock=clock)  # type: ignore[arg-type]
    ends = clock.now() + timedelta(minutes=minutes)
    engine.dispatch(SessionStarted(at=clock.now(), cwd="/p", deadline=ends))
    return engine


def said_every_30_seconds(engine: Engine, clock: FixedClock, minutes: float) -> list[str]:
    said = []
    for _ in range(int(minutes * 2)):
        clock.advance(30)
        result = engine.dispatch(ToolCall(tool="Bash"))
        if result.feedback:
            said.append(f"{clock.now():%H:%M:%S} {result.feedback}")
    return said


def test_speaks_at_half_three_quarters_ninety_percent_and_overdue(clock: FixedClock) -> None:
    engine = started_engine(clock, 30)
    assert said_every_30_seconds(engine, clock, 36) == [
        "00:15:00 [Deadline] 15 minutes remaining (50% of the time used).",
        "00:22:30 [Deadline] 7 minutes remaining (75% of the time used).",
        "00:27:00 [Deadline] 3 minutes remaining (90% of the time used).",
        "00:30:00 [Deadline] The deadline has passed: overdue by 0 seconds.",
    ]


def test_the_time_left_is_the_time_when_it_is_said(clock: FixedClock) -> None:
    engine = started_engine(clock, 30)
    clock.advance(minutes=28, seconds=30)  # the first call after a long pause: 95 % used
    result = engine.dispatch(UserPrompt(text="go on"))
    assert result.feedback == (
        "[Deadline] 90 seconds remaining (95% of the time used). "
        "The remaining work is best wrapped up."
    )
    clock.advance(minutes=3)
    assert engine.dispatch(ToolCall(tool="Bash")).feedback == (
        "[Deadline] The deadline has passed: overdue by 90 seconds."
    )
    assert engine.dispatch(ToolCall(tool="Bash")).feedback == ""  # overdue is told once


def test_thresholds_are_configurable(clock: FixedClock) -> None:
    engine = started_engine(clock, 10, thresholds=(0.8,))
    said = said_every_30_seconds(engine, clock, 12)
    assert said == [
        "00:08:00 [Deadline] 2 minutes remaining (80% of the time used). "
        "The remaining work is best wrapped up."
    ]
    with pytest.raises(ValueError, match="thresholds"):
        DeadlineObserver(thresholds=(0.9, 0.5))


def test_every_n_seconds_when_configured(clock: FixedClock) -> None:
    engine = started_engine(clock, 60, trigger=Trigger(every_n_seconds=120))
    said = said_every_30_seconds(engine, clock, 5)
    assert [line.split(" ", 1)[0] for line in said] == ["00:02:00", "00:04:00"]  # and at the start
    assert said[0].endswith("[Deadline] 58 minutes remaining (3% of the time used).")


def test_a_resumed_session_continues_its_deadline(clock: FixedClock) -> None:
    engine = started_engine(clock, 30)
    said_every_30_seconds(engine, clock, 20)
    resumed = Engine([DeadlineObserver()], session=Session.restore(engine.session.snapshot()),
                     clock=clock)  # fmt: skip
    # Claude Code's resume is a new start; the config would give it a new deadline
    start = SessionStarted(
        at=clock.now(), cwd="/p", source="resume", deadline=clock.now() + timedelta(minutes=30)
    )
    assert resumed.dispatch(start).feedback == ""
    assert said_every_30_seconds(resumed, clock, 8) == [
        "00:22:30 [Deadline] 7 minutes remaining (75% of the time used).",
        "00:27:00 [Deadline] 3 minutes remaining (90% of the time used).",
    ]


def test_a_status_is_never_stored_as_a_finding(clock: FixedClock) -> None:
    engine = started_engine(clock, 1)
    clock.advance(minutes=2)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert result.assessments[0].severity == "high" and result.assessments[0].status
    assert trajectory_findings(result.assessments[0], "s") == []


def test_a_deadline_given_to_the_engine(clock: FixedClock) -> None:
    engine = Engine(
        [DeadlineObserver()],
        clock=clock,
        deadline=Deadline(clock.now() + timedelta(minutes=1), clock),
    )
    # no session start, so no shares: told in its last two minutes and once it has passed
    assert (
        engine.dispatch(ToolCall(tool="Bash")).feedback
        == "[Deadline] 60 seconds remaining. The remaining work is best wrapped up."
    )
    clock.advance(45)
    assert engine.dispatch(ToolCall(tool="Bash")).feedback == ""
    clock.advance(20)
    assert engine.dispatch(ToolCall(tool="Bash")).feedback.endswith("overdue by 5 seconds.")


def test_silent_without_deadline(clock: FixedClock) -> None:
    assert Engine([DeadlineObserver()], clock=clock).dispatch(ToolCall(tool="Bash")).feedback == ""


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (59.9, "59 seconds"),
        (90, "90 seconds"),
        (120, "2 minutes"),
        (480, "8 minutes"),
        (5400, "1.5 hours"),
    ],
)
def test_duration_wording(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
