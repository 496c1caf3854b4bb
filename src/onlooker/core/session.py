"""A session: appended events reduced into typed, bounded slices, with snapshot and restore.

`session[ToolCall].latest()`, `session[Plan].latest()`, `session[Assessment].all()`. Slices keep a
window, so a snapshot (and so a hook process resuming the session) costs O(1) in session length.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Any, TypeVar, cast

from ..errors import RecordError
from .events import Event, PlanUpdated, SessionStarted, ToolCall, UserPrompt
from .plan import Plan, reduce_plan
from .record_maker import maker
from .records import Record, decode_record, encode, record, record_kinds
from .slices import Append, Op, Reduced, Reducer, Replace, Request, Slice

T = TypeVar("T")

SNAPSHOT_VERSION = 1
DEFAULT_WINDOW = 20
TASK_CONTEXT_PATHS = 10


@record("session_info")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionInfo(Record):
    """What the session started with: where, for whom, until when."""

    started: SessionStarted
    began_at: datetime | None = None
    """When the session first started: a resume or a compaction keeps it, and its deadline."""

    @property
    def began(self) -> datetime:
        return self.began_at or self.started.at


@record("task_context")
@dataclass(frozen=True, slots=True, kw_only=True)
class TaskContext(Record):
    """The task as first stated: the first prompt and the first files touched."""

    first_prompt: str = ""
    first_paths: tuple[str, ...] = ()


def reduce_session_info(view: Slice[SessionInfo], event: SessionStarted) -> Reduced:
    """The newest start; a resume or a compaction continues the session's time and deadline."""
    before = view.latest()
    if before is None or event.source not in CONTINUING:
        return Replace(SessionInfo(started=event))
    if before.started.deadline is not None:
        event = dataclasses.replace(event, deadline=before.started.deadline)
    return Replace(SessionInfo(started=event, began_at=before.began))


CONTINUING = ("resume", "compact")
"""Session-start sources that go on with the same session."""


def reduce_task_context(view: Slice[TaskContext], event: UserPrompt | ToolCall) -> Reduced:
    current = view.latest() or _NO_TASK
    if isinstance(event, UserPrompt):
        text = event.text.strip()
        if current.first_prompt or not text or _is_bare_command(text):
            return None
        return Replace(_task_context(event.text[:4000], current.first_paths))
    if len(current.first_paths) >= TASK_CONTEXT_PATHS:
        return None
    new = [p for p in event.paths if p not in current.first_paths]
    if not new:
        return None
    paths = (*current.first_paths, *new)[:TASK_CONTEXT_PATHS]
    return Replace(_task_context(current.first_prompt, paths))


_NO_TASK = TaskContext()
# `TaskContext(first_prompt=…, first_paths=…)`, made on every call that adds a first file: cheaply
_task_context = maker(TaskContext, "first_prompt", "first_paths")


def _is_bare_command(text: str) -> bool:
    """A one-word slash command (`/clear`, `/compact`) states no task."""
    return text.startswith("/") and len(text.split()) == 1


#: Extra reducers per event type: (slice type, reducer). Each event also goes to its own slice.
DEFAULT_REDUCERS: Mapping[type[Event], tuple[tuple[type[Any], Reducer], ...]] = {
    SessionStarted: ((SessionInfo, reduce_session_info),),
    UserPrompt: ((TaskContext, reduce_task_context),),
    ToolCall: ((TaskContext, reduce_task_context), (Plan, reduce_plan)),
    PlanUpdated: ((Plan, reduce_plan),),
}

#: How many items each slice keeps; others keep DEFAULT_WINDOW.
DEFAULT_WINDOWS: Mapping[str, int] = {
    "tool_call": 100,
    "assessment": 200,
    "session_info": 1,
    "task_context": 1,
    "plan": 1,
    "trigger_state": 1,
    "delivered": 1,
}


class Session:
    """The state of one agent session."""

    def __init__(
        self,
        session_id: str = "",
        *,
        windows: Mapping[str, int] | None = None,
        reducers: Mapping[type[Event], tuple[tuple[type[Any], Reducer], ...]] | None = None,
    ) -> None:
        self.id = session_id
        self.seq = 0
        self._windows = {**DEFAULT_WINDOWS, **(windows or {})}
        self._reducers = DEFAULT_REDUCERS if reducers is None else reducers
        self._slices: dict[type[Any], Slice[Any]] = {}
        self._requests: list[str] = []
        self._undecoded: dict[str, Mapping[str, Any]] = {}
        """Restored slices of record kinds this process has not loaded, decoded on first use
        and otherwise written back as they were (a feature's state survives a process without
        that feature)."""
        self._derived: dict[str, Any] = {}
        """What observers derive from the slices and keep between runs (`derived`)."""

    def __getitem__(self, kind: type[T]) -> Slice[T]:
        found = self._slices.get(kind)
        if found is None:
            stored = self._undecoded.pop(getattr(kind, "kind", ""), None)
            found = self._slices[kind] = (
                Slice(self._window_for(kind))
                if stored is None
                else _restored_slice(stored, self._window_for(kind))
            )
        return found

    def _window_for(self, kind: type[Any]) -> int:
        """The slice's window: the session's setting, else the record's own, else the default."""
        name = getattr(kind, "kind", "") or kind.__name__
        window = self._windows.get(name)
        if window is None:
            window = getattr(kind, "window", None)
        return DEFAULT_WINDOW if window is None else window

    @property
    def tool_call_count(self) -> int:
        """Tool calls ever appended (not only the retained window)."""
        found = self._slices.get(ToolCall)
        return found.total if found is not None else 0

    def append(self, event: Event) -> Event:
        """Number an event, store it in its slice, run the reducers; return it as stored."""
        if (
            event.seq <= self.seq
            or (self.id and not event.session_id)
            or (isinstance(event, ToolCall) and event.index == 0)
        ):
            event = self._numbered(event)
        self.seq = event.seq
        if not self.id:
            self.id = event.session_id
        slices = self._slices
        kind = type(event)
        found = slices.get(kind)
        (self[kind] if found is None else found).append(event)
        for into, reducer in self._reducers.get(kind, ()):
            found = slices.get(into)
            reduced = reducer(self[into] if found is None else found, event)
            if reduced is not None:
                self._apply(into, reduced)
        return event

    def _numbered(self, event: Event) -> Event:
        """The event with its seq, session id and tool-call index, where it has none yet."""
        changes: dict[str, Any] = {}
        if event.seq <= self.seq:
            changes["seq"] = self.seq + 1
        if not event.session_id and self.id:
            changes["session_id"] = self.id
        if isinstance(event, ToolCall) and event.index == 0:
            changes["index"] = self.tool_call_count + 1
        return dataclasses.replace(event, **changes)

    def derived(self, key: str, make: Callable[[], T]) -> T:
        """The state kept beside this session under `key`, made by `make` on first use.

        For what an observer derives from the slices and would otherwise work out again on every
        run. It lives with this Session object and never rides in a snapshot: a restored session
        derives it again from what it retained, so it must be a function of the slices alone.
        """
        found = self._derived.get(key)
        if found is None:
            found = self._derived[key] = make()
        return cast(T, found)

    def record(self, item: Any) -> None:
        """Append a derived record (an Assessment, an ObserverFailure) to the slice of its type."""
        self[type(item)].append(item)

    def take_requests(self) -> tuple[str, ...]:
        """Marker names that reducers requested since the last call."""
        if not self._requests:  # most events request nothing
            return ()
        taken = tuple(self._requests)
        self._requests.clear()
        return taken

    def _apply(self, kind: type[Any], reduced: Reduced) -> None:
        if reduced is None:
            return
        ops: tuple[Op, ...] = reduced if isinstance(reduced, tuple) else (reduced,)
        for op in ops:
            if isinstance(op, Request):
                self._requests.append(op.name)
            elif isinstance(op, Replace):
                self[type(op.item)].seed(op.item)
            elif isinstance(op, Append):
                self[type(op.item)].append(op.item)

    @property
    def project_root(self) -> PurePath | None:
        info = self[SessionInfo].latest()
        return PurePath(info.started.cwd) if info and info.started.cwd else None

    def snapshot(self) -> dict[str, Any]:
        """Everything retained, as JSON data; its size depends on the windows, not on the length."""
        slices: dict[str, Any] = {}
        for kind, found in self._slices.items():
            name = getattr(kind, "kind", "")
            if not name or (not len(found) and not found.total):
                continue
            slices[name] = {"total": found.total, "items": [encode(i) for i in found.all()]}
        for name, stored in self._undecoded.items():
            slices.setdefault(name, dict(stored))
        return {
            "version": SNAPSHOT_VERSION,
            "session_id": self.id,
            "seq": self.seq,
            "slices": slices,
        }

    @classmethod
    def restore(
        cls,
        data: Mapping[str, Any],
        *,
        windows: Mapping[str, int] | None = None,
        reducers: Mapping[type[Event], tuple[tuple[type[Any], Reducer], ...]] | None = None,
    ) -> Session:
        """Rebuild a session from `snapshot()` output without replaying its events."""
        if data.get("version") != SNAPSHOT_VERSION:
            raise RecordError(f"unsupported session snapshot version {data.get('version')!r}")
        session = cls(str(data.get("session_id", "")), windows=windows, reducers=reducers)
        session.seq = int(data.get("seq", 0))
        kinds = record_kinds()
        for name, stored in dict(data.get("slices", {})).items():
            kind = kinds.get(name)
            if kind is None:
                session._undecoded[name] = stored
                continue
            session._slices[kind] = _restored_slice(stored, session._window_for(kind))
        return session


def _restored_slice(stored: Mapping[str, Any], window: int) -> Slice[Any]:
    items = tuple(decode_record(item) for item in stored.get("items", ()))
    return Slice(window, items, int(stored.get("total", 0)))
