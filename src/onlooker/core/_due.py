"""Which of an engine's observers are due after an event, asked cheaply (specs/engine.md).

The engine asks this after every event, for every observer: a replay of 100 MB of transcripts
asks it some 75,000 times. What an event fires depends, but for requested markers and Marker
events, on its type and tool name alone: it is worked out once for each and kept. Call counts
are checked here without a call into the trigger; a time condition asks `Trigger.is_due`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from .events import Event, Marker, ToolCall
from .triggers import Trigger, TriggerState


class _Spec(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def trigger(self) -> Trigger: ...

    @property
    def observer(self) -> Any: ...


S = TypeVar("S", bound=_Spec)

KEPT_KINDS = 1024
"""Kinds of event (type and tool name) whose firing is kept, at most."""


class Schedule(Generic[S]):
    """The engine's observers (each with its name, in order) as the due check reads them."""

    __slots__ = (
        "_blocked",
        "_counting",
        "_fired",
        "_listening",
        "_need_deadline",
        "_only_on",
        "_runs_on",
        "named",
    )

    def __init__(self, named: Sequence[tuple[S, str]]) -> None:
        self.named = list(named)
        self._listening: list[tuple[S, str]] = []
        """The specs whose trigger has an event condition: the only ones an event can fire."""
        self._counting: dict[str, tuple[int | None, bool]] = {}
        """The observers whose trigger counts calls or time: due without an event firing them."""
        self._only_on: dict[str, tuple[type[Event], ...]] = {}
        """The observers that declare the event types they can run on (`event_types`)."""
        self._runs_on: dict[str, Callable[[Event], bool]] = {}
        """The observers that say from the event alone whether they would run (`runs_on`)."""
        need_deadline = []
        for spec, name in self.named:
            trigger = spec.trigger
            if trigger.on_event or trigger.tools:  # `has_event_condition`
                self._listening.append((spec, name))
            if trigger.every_n_calls is not None or trigger.every_n_seconds is not None:
                self._counting[name] = (trigger.every_n_calls, trigger.every_n_seconds is not None)
            types = event_types(spec.observer)
            if types:
                self._only_on[name] = types
            runs_on = getattr(spec.observer, "runs_on", None)
            if callable(runs_on):
                self._runs_on[name] = runs_on
            if getattr(spec.observer, "needs_deadline", False) is True:
                need_deadline.append(name)
        self._need_deadline = frozenset(need_deadline)
        """The observers that declare they have nothing to say without a deadline."""
        self._fired: dict[tuple[type[Event], str], frozenset[str]] = {}
        self._blocked: dict[tuple[type[Event], bool], frozenset[str]] = {}
        """The observers `runnable` leaves out by the event's type and the deadline."""

    def fired(self, event: Event, requested: tuple[str, ...]) -> frozenset[str]:
        """The observers whose event condition this event (or a requested marker) fires."""
        if requested or isinstance(event, Marker):
            return self._match(event, requested)
        key = (type(event), event.tool if isinstance(event, ToolCall) else "")
        found = self._fired.get(key)
        if found is None:
            found = self._match(event, requested)
            if len(self._fired) < KEPT_KINDS:
                self._fired[key] = found
        return found

    def _match(self, event: Event, requested: tuple[str, ...]) -> frozenset[str]:
        return frozenset(n for s, n in self._listening if s.trigger.matches(event, requested))

    def due(self, state: TriggerState, count: int, now: datetime) -> list[tuple[S, str]]:
        """The observers pending, or whose count or time condition is met (`Trigger.is_due`)."""
        runs, pending, counting = state.runs, state.pending, self._counting
        due = []
        for spec, name in self.named:
            if name in pending:
                due.append((spec, name))
                continue
            condition = counting.get(name)
            if condition is None:
                continue
            calls, timed = condition
            if calls is not None:
                last = runs.get(name)
                if count - (last.call_index if last else 0) >= calls:
                    due.append((spec, name))
                    continue
            if timed and spec.trigger.is_due(
                runs.get(name), pending=False, call_count=count, now=now
            ):
                due.append((spec, name))
        return due

    def runnable(
        self, due: list[tuple[S, str]], event: Event, deadline: bool
    ) -> list[tuple[S, str]]:
        """The due observers that can run on this event: one that declares its event types
        (`event_types`) would say no (`should_run`) on any other, one whose `runs_on(event)`
        says no would too, and one that declares it `needs_deadline` would say no while there
        is none, so they are not asked."""
        key = (type(event), deadline)
        blocked = self._blocked.get(key)
        if blocked is None:  # what the event's type and the deadline rule out, worked out once
            blocked = frozenset(
                name
                for name, types in self._only_on.items()
                if not isinstance(event, types)  # the same for every event of its type
            )
            if not deadline:
                blocked |= self._need_deadline
            if len(self._blocked) < KEPT_KINDS:
                self._blocked[key] = blocked
        runs_on = self._runs_on
        if not blocked and not runs_on:
            return due
        return [
            (s, n) for s, n in due if n not in blocked and (n not in runs_on or runs_on[n](event))
        ]


KEPT_SCHEDULES = 64
"""Schedules kept for reuse, at most (`schedule_for`)."""
_schedules: dict[tuple[int, ...], Schedule[Any]] = {}


def schedule_for(specs: Sequence[S]) -> Schedule[S]:
    """The Schedule of these specs (each named by its `name`), made once for the same specs.

    A Schedule holds nothing of a session (what an event fires depends on the triggers alone),
    and engines are made by the thousand over the same specs (one a replayed session, one a hook
    call): they share one, with what it learnt of the events it has seen. Kept by the specs'
    identity, which the Schedule holds, so an id is not reused while it is kept.
    """
    key = tuple(map(id, specs))
    found = _schedules.get(key)
    if found is not None and all(a is b for a, (b, _) in zip(specs, found.named, strict=True)):
        return found
    made: Schedule[S] = Schedule([(spec, spec.name) for spec in specs])
    if len(_schedules) >= KEPT_SCHEDULES:
        _schedules.clear()
    _schedules[key] = made
    return made


def event_types(observer: Any) -> tuple[type[Event], ...]:
    """The event types an observer declares it can run on (`event_types`); () for any."""
    found = getattr(observer, "event_types", ())
    if not isinstance(found, tuple | frozenset | list):
        return ()
    types = tuple(found)  # only classes: an attribute of that name meaning something else is no
    return types if all(isinstance(t, type) for t in types) else ()  # declaration
