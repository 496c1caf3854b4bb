"""Deadline's thresholds and texts, exactly."""

from __future__ import annotations

from datetime import timedelta

import pytest

from onlooker import Deadline, Engine, FixedClock, SessionStarted, ToolCall
from onlooker.observers.deadline import DeadlineObserver, format_duration


def engine_with_deadline(clock: FixedClock, minutes: float) -> Engine:
    return Engine(
        [DeadlineObserver()],
        clock=clock,
        deadline=Deadline(clock.now() + timedelta(minutes=minutes), clock),
    )


def test_renders_the_time_remaining(clock: FixedClock) -> None:
    engine = engine_with_deadline(clock, 8.5)
    assert engine.dispatch(ToolCall(tool="Bash")).feedback == (
        "[Trajectory Assessment - Deadline]\n\nYou have 8 minutes remaining."
    )


def test_warning_under_two_minutes(clock: FixedClock) -> None:
    engine = engine_with_deadline(clock, 1.5)
    result = engine.dispatch(ToolCall(tool="Bash"))
    assert result.assessments[0].severity == "high"
    assert result.feedback == (
        "[Trajectory Assessment - Deadline]\n\n"
        "You have 90 seconds remaining.\n\n"
        "→ Prioritize completing critical remaining work.\n"
        "→ Consider summarizing progress and remaining tasks."
    )


def test_deadline_reached(clock: FixedClock) -> None:
    engine = engine_with_deadline(clock, 0.5)
    clock.advance(minutes=1)
    assert engine.dispatch(ToolCall(tool="Bash")).feedback == (
        "[Trajectory Assessment - Deadline]\n\nYou have reached the time deadline.\n\n→ Wrap up immediately."
    )


def test_runs_every_30_seconds_by_default(clock: FixedClock) -> None:
    engine = engine_with_deadline(clock, 60)
    ran = []
    for _ in range(7):
        ran.append(bool(engine.dispatch(ToolCall(tool="Bash")).assessments))
        clock.advance(10)
    assert ran == [True, False, False, True, False, False, True]


def test_deadline_can_come_from_the_session_start(clock: FixedClock) -> None:
    engine = Engine([DeadlineObserver()], clock=clock)
    started = engine.dispatch(SessionStarted(cwd="/p", deadline=clock.now() + timedelta(hours=2)))
    assert started.feedback.endswith("You have 2.0 hours remaining.")
    clock.advance(31)
    again = engine.dispatch(ToolCall(tool="Bash"))
    assert again.assessments and again.feedback == ""  # same text: not delivered twice


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
