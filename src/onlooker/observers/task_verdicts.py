"""Verdicts on tool calls for Drift: each call under the task's scope and ground, and the leads.

Drift reads every retained call on every run; judging them all again each time made a run cost
the whole window's path work (resolving, relating, parsing outputs for leads). `TaskVerdicts`
keeps what a call's verdict needs between runs, kept beside the session (`Session.derived`), so a
run judges only the calls it has not seen. It is a function of the retained slices alone: a new
task scope (a prompt, a first file) starts it over, a restored session derives it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.events import ToolCall
from .task_leads import leads, output_paths
from .task_scope import TaskScope, activity_paths

ScopeKey = tuple[str, tuple[str, ...], tuple[str, ...], str | None]
"""What the scope and ground are made of: first prompt, first paths, prompts, project root."""


@dataclass(slots=True)
class _Judged:
    """What a call's verdicts need, worked out once per task scope (the verdicts when first
    asked for: a run that finds nothing new away from the task asks for few)."""

    call: ToolCall
    """Held, so that the id it is filed under stays this call's."""
    leads_to: tuple[str, ...]
    """The paths its output points to, when it leads where the task goes."""
    resolved: tuple[str, ...] = ()
    """The paths it works on, resolved (those that tell something)."""
    alone: tuple[str | None, str] | None = None
    """Its verdicts under the scope and the ground, leads aside (None: not yet judged)."""


@dataclass(slots=True)
class TaskVerdicts:
    """The task's scope and ground, the leads among the retained calls, each call's verdicts."""

    key: ScopeKey | None = None
    scope: TaskScope = field(default_factory=lambda: TaskScope(None))
    ground: TaskScope = field(default_factory=lambda: TaskScope(None))
    leads: dict[str, int] = field(default_factory=dict)
    """Path -> index of the first retained call that leads to it (`task_leads`)."""
    _order: list[ToolCall] = field(default_factory=list)
    """The retained calls as last seen, oldest first."""
    _judged: dict[int, _Judged] = field(default_factory=dict)
    _on_task: ToolCall | None = None
    """The oldest retained call on the task's ground, once found (`first_on_task`)."""
    _scanned: int = 0
    """How many of the oldest retained calls are known not to be on it, while none is found."""

    def update(
        self, key: ScopeKey, scope: TaskScope, ground: TaskScope, calls: Sequence[ToolCall]
    ) -> None:
        """Catch up with the session's retained calls (oldest first) under this scope."""
        if key != self.key:
            self.key, self.scope, self.ground = key, scope, ground
            self._order, self._judged, self.leads = [], {}, {}
            self._on_task, self._scanned = None, 0
        kept = _kept_from(self._order, calls)
        if kept is None:
            self._rebuild(calls)
            return
        dropped = self._order[:kept]
        if any(self._judged[id(call)].leads_to for call in dropped):
            self._rebuild(calls)
            return
        for call in dropped:
            self._judged.pop(id(call), None)
        if any(call is self._on_task for call in dropped):
            self._on_task, self._scanned = None, 0
        self._scanned = max(0, self._scanned - kept)
        last = self._order[-1].index if self._order else None
        for call in calls[len(self._order) - kept :]:
            if last is not None and call.index <= last:  # a lead could change earlier verdicts
                self._on_task, self._scanned = None, 0
            last = call.index
            self._add_leads(self._judge(call))
        self._order = list(calls)

    def first_on_task(self) -> int | None:
        """The index of the oldest retained call on the task's ground (naming a telling path
        related to the scope and near the ground); None when there is none.

        Kept between runs: new calls come after it, and the verdicts of the calls before them
        change only when a call that led leaves the window (the verdicts are worked out again).
        """
        if self._on_task is not None:
            return self._on_task.index
        for position in range(self._scanned, len(self._order)):
            call = self._order[position]
            broad, near = self.verdicts(call)
            if broad is not None and not near:
                self._on_task = call
                return call.index
        self._scanned = len(self._order)
        return None

    def verdicts(self, call: ToolCall) -> tuple[str | None, str]:
        """The call under the task's scope (None: names no telling path; '': related; else the
        unrelated path) and under its ground ('' or an unrelated path)."""
        judged = self._judge(call)
        alone = judged.alone if judged.alone is not None else self._alone(judged)
        if judged.resolved and self.leads:
            index = call.index
            for path in judged.resolved:
                if self.leads.get(path, index) < index:
                    return "", ""
        return alone

    def broad(self, call: ToolCall) -> str | None:
        """The call under the task's scope alone (`TaskScope.verdict`), leads aside."""
        judged = self._judge(call)
        return (judged.alone if judged.alone is not None else self._alone(judged))[0]

    def _alone(self, judged: _Judged) -> tuple[str | None, str]:
        judged.resolved, judged.alone = _verdicts(judged.call, self.scope, self.ground)
        return judged.alone

    def _rebuild(self, calls: Sequence[ToolCall]) -> None:
        judged = [self._judge(call) for call in calls]
        self._judged = {id(item.call): item for item in judged}
        self.leads = {}
        for item in judged:
            self._add_leads(item)
        self._order = list(calls)
        self._on_task, self._scanned = None, 0

    def _add_leads(self, judged: _Judged) -> None:
        for path in judged.leads_to:
            self.leads.setdefault(path, judged.call.index)

    def _judge(self, call: ToolCall) -> _Judged:
        found = self._judged.get(id(call))
        if found is not None and found.call is call:
            return found
        found = self._judged[id(call)] = _Judged(call, _leads_to(call, self.ground))
        return found


def _leads_to(call: ToolCall, ground: TaskScope) -> tuple[str, ...]:
    """The paths the call's output points to, resolved, when it leads where the task goes."""
    if not call.output or not leads(call, ground):
        return ()
    found = map(ground.resolve, output_paths(call.output))
    return tuple(path for path in found if path is not None)


def _verdicts(
    call: ToolCall, scope: TaskScope, ground: TaskScope
) -> tuple[tuple[str, ...], tuple[str | None, str]]:
    """The call's resolved paths, and its verdicts as Drift gives them with leads aside."""
    paths = activity_paths(call)
    if not paths:
        return (), (None, "")
    resolved = tuple(path for path in map(scope.resolve, paths) if path is not None)
    broad = scope.judge(paths)
    if broad is None or broad:
        return resolved, (broad, broad or "")
    return resolved, (broad, ground.judge(paths) or "")


def _kept_from(before: list[ToolCall], now: Sequence[ToolCall]) -> int | None:
    """Where the calls seen before go on in `now`: how many of the oldest left the window since;
    None when `now` is no such continuation.

    A slice only appends (dropping its oldest) or is replaced whole: when both ends of what is
    left of `before` are where they should be in `now`, everything between them is too.
    """
    if not before:
        return 0
    if not now:
        return len(before)
    first = now[0]
    start = next((i for i, call in enumerate(before) if call is first), None)
    if start is None or len(before) - start > len(now):
        return None
    return start if now[len(before) - start - 1] is before[-1] else None
