"""When an observer is due: triggers as data, OR'd, with per-observer state kept in the session.

every_n_calls, every_n_seconds and on_event (event kinds, Marker names, a tool-name matcher). An
event trigger stays pending until the observer has run (specs/engine.md).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from .events import Event, Marker, ToolCall
from .record_maker import maker
from .records import Record, record


@dataclass(frozen=True, slots=True)
class Trigger:
    """Conditions under which an observer runs; any one is enough."""

    every_n_calls: int | None = None
    """Run when this many tool calls happened since the observer last ran."""
    every_n_seconds: float | None = None
    """Run when this much time passed since the observer last ran (at once if it never ran)."""
    on_event: tuple[str, ...] = ()
    """Event kinds (`tool_call`, `user_prompt`, `turn_ended` …) or Marker names."""
    tools: tuple[str, ...] = ()
    """Tool-name patterns (`Bash`, `mcp__*`): tool calls matching them trigger the observer."""

    def __post_init__(self) -> None:
        if self.every_n_calls is not None and self.every_n_calls < 1:
            raise ValueError(f"every_n_calls must be at least 1, got {self.every_n_calls}")
        if self.every_n_seconds is not None and self.every_n_seconds <= 0:
            raise ValueError(f"every_n_seconds must be positive, got {self.every_n_seconds}")
        object.__setattr__(self, "on_event", tuple(self.on_event))
        object.__setattr__(self, "tools", tuple(self.tools))

    @classmethod
    def on(cls, *names: str, tools: tuple[str, ...] = ()) -> Trigger:
        """A trigger on event kinds or Marker names: `Trigger.on("turn_ended")`."""
        return cls(on_event=names, tools=tools)

    @property
    def has_event_condition(self) -> bool:
        return bool(self.on_event or self.tools)

    def matches(self, event: Event, requested: tuple[str, ...] = ()) -> bool:
        """Does this event (or a marker a reducer requested for it) fire the event condition?"""
        if requested and any(name in self.on_event for name in requested):
            return True
        if isinstance(event, Marker) and event.name in self.on_event:
            return True
        if isinstance(event, ToolCall) and self.tools:
            return _tool_matches(self.tools, event.tool)
        return event.kind in self.on_event

    def is_due(
        self, last: ObserverRun | None, *, pending: bool, call_count: int, now: datetime
    ) -> bool:
        """Is any condition met, given the observer's last run?"""
        if pending:
            return True
        if self.every_n_calls is not None:
            since = call_count - (last.call_index if last else 0)
            if since >= self.every_n_calls:
                return True
        if self.every_n_seconds is not None:
            if last is None:
                return True
            if (now - last.at).total_seconds() >= self.every_n_seconds:
                return True
        return False


@lru_cache(maxsize=1024)
def _tool_matches(patterns: tuple[str, ...], tool: str) -> bool:
    """Does the tool name match one of the patterns (asked on every tool call: kept)?"""
    return any(fnmatch.fnmatchcase(tool, pattern) for pattern in patterns)


@record("observer_run")
@dataclass(frozen=True, slots=True, kw_only=True)
class ObserverRun(Record):
    """When an observer last ran: at which tool-call count, at what time."""

    call_index: int
    at: datetime


@record("trigger_state")
@dataclass(frozen=True, slots=True, kw_only=True)
class TriggerState(Record):
    """Per-observer trigger state of a session: last runs and pending event triggers."""

    runs: dict[str, ObserverRun] = field(default_factory=dict)
    pending: frozenset[str] = frozenset()

    def has_pending(self, observer: str) -> bool:
        return observer in self.pending

    def add(self, observers: frozenset[str]) -> TriggerState:
        return _trigger_state(self.runs, self.pending | observers)

    def ran(self, observer: str, run: ObserverRun) -> TriggerState:
        return _trigger_state({**self.runs, observer: run}, self.pending - {observer})

    def ran_all(self, observers: list[str], run: ObserverRun) -> TriggerState:
        """`ran` for each of `observers` at once (one dispatch's runs)."""
        if not observers:
            return self
        return _trigger_state(
            {**self.runs, **dict.fromkeys(observers, run)}, self.pending.difference(observers)
        )


# Made after every dispatch that runs an observer: made cheaply (core/record_maker.py).
_trigger_state = maker(TriggerState, "runs", "pending")
observer_run = maker(ObserverRun, "call_index", "at")
"""`ObserverRun(call_index=…, at=…)`, made cheaply."""
