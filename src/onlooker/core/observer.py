"""The observer protocol, the context an observer reads, and a decorator for plain functions.

An observer has a `name`, decides with `should_run(ctx)` and reports with `observe(ctx)` (sync or
async), returning an Assessment or None. It may carry a default `trigger`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any, Protocol, overload, runtime_checkable

from .assessment import Assessment, Finding
from .clock import Clock, Deadline, SystemClock
from .events import Event, ToolCall
from .session import Session
from .triggers import Trigger

ObserveResult = Assessment | None
"""What `observe` returns (or, for async observers, what its awaitable gives)."""


@runtime_checkable
class Observer(Protocol):
    """Anything that watches a session and may have something to tell the agent."""

    @property
    def name(self) -> str:
        """Unique, human-readable name; it appears in output (`[Trajectory Assessment - name]`)."""
        ...

    def should_run(self, ctx: ObserverContext) -> bool:
        """Whether there is anything to assess now (cheap)."""
        ...

    def observe(self, ctx: ObserverContext) -> ObserveResult | Awaitable[ObserveResult]:
        """Assess the trajectory; None when there is nothing to say."""
        ...


@dataclass(frozen=True, slots=True)
class ObserverContext:
    """What an observer may read: the session and its surroundings (specs/engine.md)."""

    session: Session
    observer_name: str = ""
    clock: Clock = field(default_factory=SystemClock)
    deadline: Deadline | None = None
    project_root: PurePath | None = None
    event: Event | None = None
    """The event being dispatched."""
    open_findings: Callable[[], tuple[Finding, ...]] | None = None
    """Reads this observer's open findings from a store, only when an observer asks."""
    model: Any = None
    """The observer's Model, when one is configured."""

    @property
    def findings(self) -> tuple[Finding, ...]:
        """This observer's open findings, when a store provides them."""
        return self.open_findings() if self.open_findings is not None else ()

    @property
    def now(self) -> datetime:
        return self.clock.now()

    @property
    def last_assessment(self) -> Assessment | None:
        """This observer's most recent assessment (any observer's, for a nameless context)."""
        for assessment in self.session[Assessment].newest_first():
            if not self.observer_name or assessment.observer_name == self.observer_name:
                return assessment
        return None

    @property
    def tool_call_count(self) -> int:
        """Total tool calls in the session."""
        return self.session.tool_call_count

    def tool_calls_since_last_assessment(self) -> int:
        last = self.last_assessment
        if last is None:
            return self.tool_call_count
        return self.tool_call_count - last.call_index

    def recent_tool_calls(self, n: int) -> Sequence[ToolCall]:
        """The N most recent tool calls, oldest first (at most the session's window)."""
        return self.session[ToolCall].recent(n)

    def error_rate(self, window: int) -> float:
        """Share of failed calls among the last `window` calls."""
        recent = self.recent_tool_calls(window)
        if not recent:
            return 0.0
        return sum(1 for call in recent if not call.ok) / len(recent)


CONTEXT_FIELDS = (
    "session", "observer_name", "clock", "deadline", "project_root", "event", "open_findings",
    "model",
)  # fmt: skip
"""The fields `dispatch_context` sets: all of ObserverContext's (tests/core/test_observer.py)."""
_new = object.__new__
_session, _name, _clock, _deadline, _root, _event, _findings, _model = (
    getattr(ObserverContext, name).__set__ for name in CONTEXT_FIELDS
)


def dispatch_context(
    session: Session,
    observer_name: str,
    clock: Clock,
    deadline: Deadline | None,
    project_root: PurePath | None,
    event: Event | None,
    open_findings: Callable[[], tuple[Finding, ...]] | None,
) -> ObserverContext:
    """`ObserverContext(...)` with every field but `model` given, made at a third of the cost: a
    frozen dataclass sets each field through `object.__setattr__`, and the engine makes one
    context per due observer per event. Its fields are set here straight into their slots."""
    ctx = _new(ObserverContext)
    _session(ctx, session)
    _name(ctx, observer_name)
    _clock(ctx, clock)
    _deadline(ctx, deadline)
    _root(ctx, project_root)
    _event(ctx, event)
    _findings(ctx, open_findings)
    _model(ctx, None)
    return ctx


ObserverFunction = Callable[[ObserverContext], "Assessment | str | Awaitable[Any] | None"]


@dataclass(frozen=True, slots=True)
class FunctionObserver:
    """An observer made from a plain function by `@observer`."""

    function: ObserverFunction
    observer_name: str
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=1))
    when: Callable[[ObserverContext], bool] | None = None

    @property
    def name(self) -> str:
        return self.observer_name

    def should_run(self, ctx: ObserverContext) -> bool:
        return self.when(ctx) if self.when is not None else True

    def observe(self, ctx: ObserverContext) -> ObserveResult | Awaitable[ObserveResult]:
        result = self.function(ctx)
        if inspect.isawaitable(result):
            return self._finish(result)
        return self._assessment(result)

    async def _finish(self, pending: Awaitable[Any]) -> ObserveResult:
        return self._assessment(await pending)

    def _assessment(self, result: Any) -> ObserveResult:
        if result is None or isinstance(result, Assessment):
            return result
        if isinstance(result, str):
            return Assessment(observer_name=self.observer_name, summary=result) if result else None
        raise TypeError(
            f"observer {self.observer_name!r} returned {type(result).__name__}; "
            "return an Assessment, a string or None"
        )


@overload
def observer(function: ObserverFunction, /) -> FunctionObserver: ...


@overload
def observer(
    *,
    name: str | None = None,
    trigger: Trigger | None = None,
    when: Callable[[ObserverContext], bool] | None = None,
) -> Callable[[ObserverFunction], FunctionObserver]: ...


def observer(
    function: ObserverFunction | None = None,
    /,
    *,
    name: str | None = None,
    trigger: Trigger | None = None,
    when: Callable[[ObserverContext], bool] | None = None,
) -> FunctionObserver | Callable[[ObserverFunction], FunctionObserver]:
    """Turn `def check(ctx) -> Assessment | str | None` (or an async one) into an observer.

    `@observer` uses the function's name and runs after every tool call;
    `@observer(name="No tests", trigger=Trigger(every_n_calls=10))` sets both.
    """

    def wrap(fn: ObserverFunction) -> FunctionObserver:
        label = name or getattr(fn, "__name__", "observer").replace("_", " ").strip().title()
        return FunctionObserver(fn, label, trigger or Trigger(every_n_calls=1), when)

    return wrap(function) if function is not None else wrap
