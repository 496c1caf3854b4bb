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


@dataclass(frozen=True, slots=True)
class _Judged:
    """What a call's verdicts need, worked out once per task scope."""

    call: ToolCall
    """Held, so that the id it is filed under stays this call's."""
    resolved: tuple[str, ...]
    """The paths it works on, resolved (those that tell something)."""
    alone: tuple[str | None, str]
    """Its verdicts under the scope and the ground, leads aside."""
    leads_to: tuple[str, ...]
    """The paths its output points to, when it leads where the task goes."""


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

    def update(
        self, key: ScopeKey, scope: TaskScope, ground: TaskScope, calls: Sequence[ToolCall]
    ) -> None:
        """Catch up with the session's retained calls (oldest first) under this scope."""
        if key != self.key:
            self.key, self.scope, self.ground = key, scope, ground
            self._order, self._judged, self.leads = [], {}, {}
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
        for call in calls[len(self._order) - kept :]:
            self._add_leads(self._judge(call))
        self._order = list(calls)

    def verdicts(self, call: ToolCall) -> tuple[str | None, str]:
        """The call under the task's scope (None: names no telling path; '': related; else the
        unrelated path) and under its ground ('' or an unrelated path)."""
        judged = self._judge(call)
        if judged.resolved and self.leads:
            index = call.index
            for path in judged.resolved:
                if self.leads.get(path, index) < index:
                    return "", ""
        return judged.alone

    def broad(self, call: ToolCall) -> str | None:
        """The call under the task's scope alone (`TaskScope.verdict`), leads aside."""
        return self._judge(call).alone[0]

    def _rebuild(self, calls: Sequence[ToolCall]) -> None:
        judged = [self._judge(call) for call in calls]
        self._judged = {id(item.call): item for item in judged}
        self.leads = {}
        for item in judged:
            self._add_leads(item)
        self._order = list(calls)

    def _add_leads(self, judged: _Judged) -> None:
        for path in judged.leads_to:
            self.leads.setdefault(path, judged.call.index)

    def _judge(self, call: ToolCall) -> _Judged:
        found = self._judged.get(id(call))
        if found is not None and found.call is call:
            return found
        found = self._judged[id(call)] = _judged(call, self.scope, self.ground)
        return found


def _judged(call: ToolCall, scope: TaskScope, ground: TaskScope) -> _Judged:
    """`_Judged` for a call: its verdicts as Drift gave them, leads aside, and where it leads."""
    paths = activity_paths(call)
    resolved: tuple[str, ...] = ()
    alone: tuple[str | None, str] = (None, "")
    if paths:
        resolved = tuple(path for path in map(scope.resolve, paths) if path is not None)
        broad = scope.judge(paths)
        if broad is None or broad:
            alone = (broad, broad or "")
        else:
            alone = (broad, ground.judge(paths) or "")
    leads_to: tuple[str, ...] = ()
    if call.output and leads(call, ground):
        found = map(ground.resolve, output_paths(call.output))
        leads_to = tuple(path for path in found if path is not None)
    return _Judged(call, resolved, alone, leads_to)


def _kept_from(before: list[ToolCall], now: Sequence[ToolCall]) -> int | None:
    """Where the calls seen before go on in `now`: how many of the oldest left the window since;
    None when `now` is no such continuation."""
    if not before:
        return 0
    if not now:
        return len(before)
    first = now[0]
    start = next((i for i, call in enumerate(before) if call is first), None)
    if start is None:
        return None
    if len(before) - start > len(now):
        return None
    for offset in range(start, len(before)):
        if before[offset] is not now[offset - start]:
            return None
    return start
