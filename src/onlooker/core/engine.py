"""The engine: append an event, run every due observer in isolation, record and deliver the result.

An observer that raises or runs past its timeout becomes an ObserverFailure in the session and never
reaches the agent as a crash. All due observers run and are combined; `first_match=True` stops at
the first observer with an assessment. See specs/engine.md.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any, TypeVar

from ..errors import ObserverTimeout
from ..text.encodable import encodable, encodable_text
from ._alarm import NOT_RUN
from ._alarm import CallAlarm as CallAlarm  # for `Engine(alarm=...)` and `held_alarm`
from ._alarm import held_alarm as held_alarm
from ._due import Schedule, schedule_for
from ._observer_thread import Commit, run_jobs
from ._time_limit import as_coroutine, await_blocking, call_within
from .assessment import Assessment, Finding, ObserverFailure
from .clock import Clock, Deadline, SystemClock
from .events import Event
from .feedback import FEEDBACK_LIMIT, Telling, tell
from .observer import Observer, ObserverContext, dispatch_context
from .record_maker import maker
from .session import Session, SessionInfo
from .triggers import Trigger, TriggerState, observer_run

T = TypeVar("T")

DEFAULT_TIMEOUT = 5.0
"""Seconds an inline observer may take before it is recorded as timed out."""

DEFAULT_TRIGGER = Trigger(every_n_calls=1)


@dataclass(frozen=True, slots=True)
class ObserverSpec:
    """An observer as the engine runs it: with its trigger and time limit."""

    observer: Observer
    trigger: Trigger = DEFAULT_TRIGGER
    timeout: float | None = DEFAULT_TIMEOUT
    inline: bool = False
    """Runs in the calling thread off the main thread too, where the time limit would cost a
    thread hand-off: set by observers whose work is bounded computation over the session (the
    built-in rule observers, `inline = True`), never by one that waits on anything."""

    @property
    def name(self) -> str:
        return self.observer.name


def spec_for(
    item: Observer | ObserverSpec, timeout: float | None = DEFAULT_TIMEOUT
) -> ObserverSpec:
    """An ObserverSpec, taking the observer's own `trigger` attribute as default."""
    if isinstance(item, ObserverSpec):
        return item
    trigger = getattr(item, "trigger", None)
    trigger = trigger if isinstance(trigger, Trigger) else DEFAULT_TRIGGER
    return ObserverSpec(item, trigger, timeout, getattr(item, "inline", False) is True)


@dataclass(frozen=True, slots=True)
class Dispatch:
    """The outcome of one dispatched event."""

    event: Event
    """The event as stored (with seq and index assigned)."""
    assessments: tuple[Assessment, ...] = ()
    failures: tuple[ObserverFailure, ...] = ()
    feedback: str = ""
    """Text to inject into the agent's context now ('' for nothing)."""
    telling: Telling = field(default_factory=Telling)
    """What the feedback says, as messages (a host with a store renders them with stored ids)."""


@dataclass(slots=True)
class _Run:
    spec: ObserverSpec
    ctx: ObserverContext
    result: Any = None
    error: BaseException | None = None


@dataclass
class Engine:
    """Runs observers over one session's events."""

    observers: Iterable[Observer | ObserverSpec] = ()
    session: Session = field(default_factory=Session)
    clock: Clock = field(default_factory=SystemClock)
    deadline: Deadline | None = None
    project_root: PurePath | None = None
    first_match: bool = False
    timeout: float | None = DEFAULT_TIMEOUT
    feedback_limit: int = FEEDBACK_LIMIT
    findings: Callable[[str], tuple[Finding, ...]] | None = None
    """Gives an observer's open findings by name (a store plugs in here)."""
    alarm: CallAlarm | None = field(default=None, repr=False, compare=False)
    """The time limit's handler, shared with other engines that dispatch one after another on
    this thread (`held_alarm`); None: the engine's own."""

    def __post_init__(self) -> None:
        self.specs: list[ObserverSpec] = [spec_for(o, self.timeout) for o in self.observers]
        names = [spec.name for spec in self.specs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"observer names must be unique; repeated: {', '.join(duplicates)}")
        self._alarm = self.alarm if self.alarm is not None else CallAlarm()
        self._root: tuple[SessionInfo | None, PurePath | None] = (None, None)
        self._schedule: Schedule[ObserverSpec] = schedule_for(self.specs)

    def add(self, observer: Observer | ObserverSpec) -> ObserverSpec:
        spec = spec_for(observer, self.timeout)
        if any(s.name == spec.name for s in self.specs):
            raise ValueError(f"an observer named {spec.name!r} is already registered")
        self.specs.append(spec)
        self._name_specs()
        return spec

    def _name_specs(self) -> None:
        """Each spec with its name, asked once (a name is fixed: it is checked unique)."""
        self._schedule = schedule_for(self.specs)

    def dispatch(self, event: Event) -> Dispatch:
        """Append `event`, run the due observers (awaiting async ones), return what to deliver."""
        event, runs, now, due = self._begin(event)
        alarm = self._alarm
        previous = alarm.install() if runs and not alarm.installed else None
        try:
            if alarm.installed:
                for run in runs:
                    self._run_sync(run)
                    if self.first_match and isinstance(run.result, Assessment):
                        break
            else:
                self._run_off_main_thread(runs)
        finally:
            if previous is not None:
                alarm.restore(previous)
        return self._finish(event, runs, now, due)

    def _run_off_main_thread(self, runs: list[_Run]) -> None:
        """No SIGALRM here: observers with a time limit run on this thread's helper, a run of
        them at a time (core/_observer_thread.py); inline ones (and those without a limit) run
        here, with no thread hand-off."""
        start = 0
        while start < len(runs):
            end = start
            while end < len(runs) and not _here(runs[end].spec):
                end += 1
            if end > start:
                self._run_on_helper(runs[start:end])
                done = runs[start:end]
            else:
                self._run_sync(runs[start], limit=False)
                done, end = [runs[start]], start + 1
            if self.first_match and any(isinstance(r.result, Assessment) for r in done):
                return
            start = end

    def _run_on_helper(self, runs: list[_Run]) -> None:
        """Run observers on this thread's helper; one past its time limit is timed out and the
        rest go on."""
        start = 0
        while start < len(runs):
            left = runs[start:]
            stuck = run_jobs([self._job(run) for run in left], [r.spec.timeout for r in left])
            if stuck is None:
                return
            run = left[stuck]
            run.error = ObserverTimeout(f"ran past its {run.spec.timeout:g}s timeout")
            start += stuck + 1

    def _job(self, run: _Run) -> Callable[[], Commit]:
        def work() -> Commit:
            scratch = _Run(run.spec, run.ctx)
            try:
                self._run_sync(scratch, limit=False)
            except BaseException as exc:  # reported in the session like any observer's error
                scratch.error = exc

            def commit() -> bool:
                run.result, run.error = scratch.result, scratch.error
                return self.first_match and isinstance(run.result, Assessment)

            return commit

        return work

    @contextmanager
    def dispatching(self) -> Iterator[Engine]:
        """Hold the time-limit machinery over a run of `dispatch` calls (a replay, a batch).

        Each dispatch otherwise installs and restores the SIGALRM handler itself; holding it over
        many dispatches makes them cheaper and changes nothing else.
        """
        alarm = self._alarm
        previous = None if alarm.installed else alarm.install()
        try:
            yield self
        finally:
            if previous is not None:
                alarm.restore(previous)

    async def adispatch(self, event: Event) -> Dispatch:
        """`dispatch` for callers inside an event loop: async observers run concurrently."""
        import asyncio

        event, runs, now, due = self._begin(event)
        waiting: list[tuple[_Run, Awaitable[Any]]] = []
        for run in runs:
            pending = self._start(run)
            if pending is None:
                if self.first_match and isinstance(run.result, Assessment):
                    break
                continue
            if self.first_match:
                await self._settle(run, pending)
                if isinstance(run.result, Assessment):
                    break
            else:
                waiting.append((run, pending))
        await asyncio.gather(*(self._settle(run, pending) for run, pending in waiting))
        return self._finish(event, runs, now, due)

    # -- the steps -----------------------------------------------------------------------------

    def _begin(self, event: Event) -> tuple[Event, list[_Run], datetime, bool]:
        """The event as stored, the runs of the due observers that can run on it, the time, and
        whether any observer was due (skipped ones count: their trigger state is kept)."""
        session = self.session
        event = session.append(event)
        requested = session.take_requests()
        state = session[TriggerState].latest() or TriggerState()
        schedule = self._schedule
        if len(schedule.named) != len(self.specs):  # specs changed other than through `add`
            self._name_specs()
            schedule = self._schedule
        fired = schedule.fired(event, requested)
        if fired and not fired <= state.pending:
            state = state.add(fired)
            session[TriggerState].seed(state)
        now = self.clock.now()
        due = schedule.due(state, session.tool_call_count, now)
        if not due:
            return event, [], now, False
        info = session[SessionInfo].latest()  # the same for every context of this dispatch
        deadline = self.deadline
        if deadline is None and info is not None and info.started.deadline is not None:
            deadline = Deadline(info.started.deadline, self.clock)
        due = schedule.runnable(due, event, deadline is not None)
        if not due:
            return event, [], now, True
        root = self.project_root or self._session_root(info)
        clock, findings = self.clock, self.findings
        return (
            event,
            [
                _Run(
                    spec,
                    dispatch_context(
                        session,
                        name,
                        clock,
                        deadline,
                        root,
                        event,
                        functools.partial(findings, name) if findings else None,
                    ),
                )
                for spec, name in due
            ],
            now,
            True,
        )

    def _session_root(self, info: SessionInfo | None) -> PurePath | None:
        """The session's working directory as a path, made once per SessionInfo."""
        if info is None or not info.started.cwd:
            return None
        if self._root[0] is not info:
            self._root = (info, PurePath(info.started.cwd))
        return self._root[1]

    def _start(self, run: _Run, *, limit: bool = True) -> Awaitable[Any] | None:
        """Run should_run and observe (each within the time limit unless `limit` is False: the
        caller keeps it); return the awaitable if observe is async."""
        observer, ctx, timeout = run.spec.observer, run.ctx, run.spec.timeout
        alarm = self._alarm
        try:
            if (
                limit
                and timeout is not None
                and alarm.installed
                and threading.get_ident() == alarm.thread
            ):
                result = alarm.observe(observer, ctx, timeout)  # both calls in one go
                if result is NOT_RUN:
                    run.result = _SKIPPED
                    return None
            else:
                call = self._call if limit else _unlimited
                if not call(observer.should_run, ctx, timeout):
                    run.result = _SKIPPED
                    return None
                result = call(observer.observe, ctx, timeout)
        except Exception as exc:
            run.error = exc
            return None
        if result is not None and type(result) is not Assessment and inspect.isawaitable(result):
            return result
        run.result = result
        return None

    def _call(
        self, call: Callable[[ObserverContext], T], ctx: ObserverContext, timeout: float | None
    ) -> T:
        """`call(ctx)` within the time limit, using this dispatch's alarm handler when it has
        one."""
        alarm = self._alarm
        if (
            timeout is None
            or not alarm.installed
            or threading.get_ident() != alarm.thread  # the main thread, which installed it
        ):
            return call_within(functools.partial(call, ctx), timeout)
        return alarm.call(call, ctx, timeout)

    def _run_sync(self, run: _Run, *, limit: bool = True) -> None:
        pending = self._start(run, limit=limit)
        if pending is not None:
            try:
                run.result = await_blocking(pending, run.spec.timeout)
            except Exception as exc:
                run.error = exc

    async def _settle(self, run: _Run, pending: Awaitable[Any]) -> None:
        import asyncio

        try:
            run.result = await asyncio.wait_for(as_coroutine(pending), run.spec.timeout)
        except TimeoutError:
            run.error = ObserverTimeout(f"ran past its {run.spec.timeout:g}s timeout")
        except Exception as exc:
            run.error = exc

    def _finish(self, event: Event, runs: list[_Run], now: datetime, due: bool) -> Dispatch:
        session = self.session
        if not runs:  # most events: nothing ran, nothing to record or to tell
            if due:  # skipped observers keep their trigger state (specs/engine.md)
                states = session[TriggerState]
                states.seed(states.latest() or TriggerState())
            return _dispatch(event, (), (), "", tell(session, ()))
        count = session.tool_call_count
        state = session[TriggerState].latest() or TriggerState()
        assessments: list[Assessment] = []
        failures: list[ObserverFailure] = []
        ran: list[str] = []
        for run in runs:
            if run.result is _SKIPPED:
                continue
            ran.append(run.ctx.observer_name)
            if run.error is None and not (run.result is None or isinstance(run.result, Assessment)):
                run.error = TypeError(
                    f"observe() returned {type(run.result).__name__}, not an Assessment or None"
                )
            if run.error is not None:
                failure = ObserverFailure(
                    observer=run.ctx.observer_name,
                    error=encodable_text(_describe(run.error)),
                    at=now,
                    call_index=count,
                    timed_out=isinstance(run.error, ObserverTimeout),
                )
                session.record(failure)
                failures.append(failure)
            elif isinstance(run.result, Assessment):
                assessment = dataclasses.replace(
                    encodable(run.result),  # an observer's text is stored and sent: encodable
                    observer_name=run.result.observer_name or run.ctx.observer_name,
                    call_index=count,
                    timestamp=now,
                )
                session.record(assessment)
                assessments.append(assessment)
        if due:
            session[TriggerState].seed(
                state.ran_all(ran, observer_run(count, now)) if ran else state
            )
        telling = tell(session, assessments)
        feedback = telling.render(self.feedback_limit) if telling.messages else ""
        return _dispatch(event, tuple(assessments), tuple(failures), feedback, telling)


_SKIPPED: Any = object()
DISPATCH_FIELDS = ("event", "assessments", "failures", "feedback", "telling")
"""Every field of Dispatch (tests/core/test_record_maker.py), in the order `_dispatch` takes."""
_dispatch = maker(Dispatch, *DISPATCH_FIELDS)
"""`Dispatch(...)` with every field given, made straight into its slots: one a dispatch."""


def _unlimited(call: Callable[[ObserverContext], T], ctx: ObserverContext, _: float | None) -> T:
    return call(ctx)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _here(spec: ObserverSpec) -> bool:
    """Whether the observer runs in the calling thread even off the main thread."""
    return spec.timeout is None or spec.inline
