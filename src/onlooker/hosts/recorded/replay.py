"""Replay: run observers over recorded sessions as if live, and say what the agent would have read.

Each session and subagent gets a fresh Session and Engine on a clock that follows its events
(specs/replay.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ...core.assessment import Assessment, ObserverFailure, is_warning
from ...core.clock import ReplayClock
from ...core.engine import CallAlarm, Dispatch, Engine, ObserverSpec, spec_for
from ...core.events import AssistantMessage, SessionStarted, ToolCall
from ...core.observer import Observer
from ...core.session import Session
from ...observers import builtin_observers
from .transcripts import Transcript, read_transcript

ObserverFactory = Callable[[], Iterable[Observer | ObserverSpec]]
"""Makes a fresh set of observers for each replayed session."""


@dataclass(frozen=True, slots=True)
class Injection:
    """Text the agent would have been given right after an event."""

    call_index: int
    """Tool calls so far (the call itself, when the event is a tool call)."""
    tool: str
    """The tool, when the event is a tool call; '' for other events."""
    event_kind: str
    at: datetime
    text: str


@dataclass(frozen=True, slots=True)
class SessionReplay:
    """What replaying one session produced."""

    session_id: str
    path: str
    tool_calls: int
    assessments: tuple[Assessment, ...]
    failures: tuple[ObserverFailure, ...]
    injections: tuple[Injection, ...]
    malformed: int = 0
    malformed_lines: tuple[int, ...] = ()
    skipped: int = 0
    unanswered: int = 0
    parent_session_id: str = ""
    agent_id: str = ""
    agent_type: str = ""

    @property
    def warnings(self) -> int:
        """Assessments of severity medium or above."""
        return sum(1 for a in self.assessments if is_warning(a.severity))

    def to_dict(self) -> dict[str, Any]:
        """The `--json` shape of one session."""
        return {
            "session_id": self.session_id,
            "path": self.path,
            "tool_calls": self.tool_calls,
            "assessments": [assessment_dict(a) for a in self.assessments],
            "failures": [
                {
                    "observer": f.observer,
                    "error": f.error,
                    "call_index": f.call_index,
                    "at": f.at.isoformat(),
                    "timed_out": f.timed_out,
                }
                for f in self.failures
            ],
            "injections": [
                {
                    "call_index": i.call_index,
                    "tool": i.tool,
                    "event": i.event_kind,
                    "at": i.at.isoformat(),
                    "text": i.text,
                }
                for i in self.injections
            ],
            "warnings": self.warnings,
            "malformed": self.malformed,
            "malformed_lines": list(self.malformed_lines),
            "skipped": self.skipped,
            "unanswered_tool_calls": self.unanswered,
            "parent_session_id": self.parent_session_id,
            "agent_id": self.agent_id,
            "agent_type": self.agent_type,
        }


def assessment_dict(assessment: Assessment) -> dict[str, Any]:
    return {
        "observer": assessment.observer_name,
        "call_index": assessment.call_index,
        "severity": assessment.severity,
        "summary": assessment.summary,
        "findings": [
            {
                "category": f.category,
                "content": f.content,
                "severity": f.severity,
                "evidence": f.evidence,
            }
            for f in assessment.findings
        ],
        "suggestions": list(assessment.suggestions),
        "at": assessment.timestamp.isoformat(),
    }


def observers_named(names: Sequence[str] | None = None) -> ObserverFactory:
    """A factory of the named observers, plugins' too (all the built-ins for None); unknown names
    fail now."""
    chosen = list(names) if names else None
    made = builtin_observers(chosen)
    if chosen is None:  # the built-ins are frozen values, their state is the session's: shared,
        specs = [spec_for(o) for o in made]  # and so are their specs (made once, not a session)
        return lambda: list(specs)
    return lambda: builtin_observers(chosen)


def replay_session(
    transcript: Transcript,
    observers: ObserverFactory | None = None,
    *,
    deadline_minutes: float | None = None,
    on_dispatch: Callable[[Dispatch], None] | None = None,
    alarm: CallAlarm | None = None,
) -> SessionReplay:
    """Dispatch one transcript's events (not its subagents) through a fresh engine.

    The clock follows the events' timestamps (never backwards); `deadline_minutes` sets a deadline
    that many minutes after the session started. Assistant messages go into the session without a
    dispatch: no Claude Code hook fires on them, so nothing could be delivered there.
    `on_dispatch` sees each dispatched event with its assessments and failures, in order.
    `alarm`: the time limit's handler held over many sessions (`held_alarm`).
    """
    make = observers or observers_named()
    clock = ReplayClock()
    engine = Engine(make(), session=Session(transcript.session_id), clock=clock, alarm=alarm)
    deadline = timedelta(minutes=deadline_minutes) if deadline_minutes is not None else None
    assessments: list[Assessment] = []
    failures: list[ObserverFailure] = []
    injections: list[Injection] = []
    session = engine.session
    dispatch, follow, append = engine.dispatch, clock.follow, session.append
    with engine.dispatching():
        for event in transcript.events:
            if deadline is not None and type(event) is SessionStarted and event.deadline is None:
                event = dataclasses.replace(event, deadline=event.at + deadline)
            follow(event.at)
            if type(event) is AssistantMessage:
                append(event)  # observers see it; nothing is delivered at this point
                continue
            outcome = dispatch(event)
            if on_dispatch is not None:
                on_dispatch(outcome)
            if outcome.assessments:
                assessments.extend(outcome.assessments)
            if outcome.failures:
                failures.extend(outcome.failures)
            if outcome.feedback:
                stored = outcome.event
                tool = stored.tool if type(stored) is ToolCall else ""
                injections.append(
                    Injection(
                        session.tool_call_count, tool, stored.kind, clock.now(), outcome.feedback
                    )
                )
    return SessionReplay(
        session_id=transcript.session_id,
        path=transcript.path,
        tool_calls=session.tool_call_count,
        assessments=tuple(assessments),
        failures=tuple(failures),
        injections=tuple(injections),
        malformed=transcript.malformed,
        malformed_lines=transcript.malformed_lines,
        skipped=transcript.skipped,
        unanswered=transcript.unanswered,
        parent_session_id=transcript.parent_session_id,
        agent_id=transcript.agent_id,
        agent_type=transcript.agent_type,
    )


def replay_transcript(
    transcript: Transcript,
    observers: ObserverFactory | None = None,
    *,
    deadline_minutes: float | None = None,
    alarm: CallAlarm | None = None,
) -> list[SessionReplay]:
    """The session and then each of its subagents, replayed separately."""
    return [
        replay_session(t, observers, deadline_minutes=deadline_minutes, alarm=alarm)
        for t in transcript.sessions()
    ]


def replay_paths(
    paths: Iterable[str | Path],
    observers: ObserverFactory | None = None,
    *,
    deadline_minutes: float | None = None,
) -> Iterator[SessionReplay]:
    """Read and replay transcript files one by one (TranscriptError for one that cannot be read)."""
    for path in paths:
        transcript = read_transcript(path)
        yield from replay_transcript(transcript, observers, deadline_minutes=deadline_minutes)
