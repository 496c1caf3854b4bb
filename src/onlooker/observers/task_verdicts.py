"""Verdicts on tool calls for Drift: each call under the task's scope and ground, and the leads.

Drift reads every retained call on every run; judging them all again each time made a run cost
the whole window's path work (resolving, relating, parsing outputs for leads). `TaskVerdicts`
keeps what a call's verdict needs between runs, kept beside the session (`Session.derived`), so a
run judges only the calls it has not seen. It is a function of the retained slices alone: a new
task scope (a prompt, a first file) starts it over, a restored session derives it again. What a
call says whatever the scope (the paths it works on, the words its search looks for) is kept
across a new scope: a scope grows with the task's first files and prompts, and every retained
call is judged again then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.events import ToolCall
from .call_paths import activity_paths
from .task_leads import output_paths, pattern_words
from .task_scope import TaskScope

ScopeKey = tuple[str, tuple[str, ...], tuple[str, ...], str | None]
"""What the scope and ground are made of: first prompt, first paths, prompts, project root."""


@dataclass(slots=True)
class _Facts:
    """What a call says whatever the task's scope, worked out once per call."""

    paths: tuple[str, ...]
    """The paths it works on (`activity_paths`)."""
    words: frozenset[str] | None
    """The telling words its search looks for; None: it is no search (`pattern_words`)."""


def _facts(call: ToolCall) -> _Facts:
    return _Facts(activity_paths(call), pattern_words(call) if call.output else None)


@dataclass(slots=True)
class _Judged:
    """What a call's verdicts need, worked out once per task scope when first asked for: a run
    that finds nothing new away from the task asks for few verdicts, and for no leads."""

    call: ToolCall
    """Held, so that the id it is filed under stays this call's."""
    facts: _Facts
    leads_to: tuple[str, ...] | None = None
    """The paths its output points to, when it leads where the task goes (None: not yet
    worked out)."""
    resolved: tuple[str, ...] = ()
    """The paths it works on, resolved (those that tell something)."""
    alone: tuple[str | None, str] | None = None
    """Its verdicts under the scope and the ground, leads aside (None: not yet judged)."""


_ON_TASK = ("", "")


@dataclass(slots=True)
class TaskVerdicts:
    """The task's scope and ground, the leads among the retained calls, each call's verdicts.

    The leads are gathered when a verdict first needs them: only a call that names a path away
    from the task can be put back on it by a lead.
    """

    key: ScopeKey | None = None
    scope: TaskScope = field(default_factory=lambda: TaskScope(None))
    ground: TaskScope = field(default_factory=lambda: TaskScope(None))
    _leads: dict[str, int] = field(default_factory=dict)
    _leads_known: bool = False
    """Whether `_leads` holds every retained call's leads (else it is gathered when needed)."""
    _order: list[ToolCall] = field(default_factory=list)
    """The retained calls as last seen, oldest first."""
    _judged: dict[int, _Judged] = field(default_factory=dict)
    _carried: dict[int, _Judged] = field(default_factory=dict)
    """The calls judged under the scope before: what they say is taken from there."""
    _on_task: ToolCall | None = None
    """The oldest retained call on the task's ground, once found (`first_on_task`)."""
    _scanned: int = 0
    """How many of the oldest retained calls are known not to be on it, while none is found."""

    @property
    def leads(self) -> dict[str, int]:
        """Path -> index of the first retained call that leads to it (`task_leads`)."""
        if not self._leads_known:
            self._leads = {}
            for call in self._order:
                self._add_leads(self._judge(call))
            self._leads_known = True
        return self._leads

    def update(
        self, key: ScopeKey, scope: TaskScope, ground: TaskScope, calls: Sequence[ToolCall]
    ) -> None:
        """Catch up with the session's retained calls (oldest first) under this scope."""
        if key != self.key:  # every call is judged again, from what it says
            self.key, self.scope, self.ground = key, scope, ground
            self._carried, self._judged = self._judged, {}
            self._start_over(calls)
            return
        kept = _kept_from(self._order, calls)
        if kept is None:
            self._carried, self._judged = self._judged, {}
            self._start_over(calls)
            return
        dropped = self._order[:kept]
        if self._leads_known and any(self._judged[id(call)].leads_to for call in dropped):
            self._leads_known = False  # the leads are gathered again from the calls left
            self._on_task, self._scanned = None, 0
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
            judged = self._judge(call)
            if self._leads_known:
                self._add_leads(judged)
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
        # A lead puts the call back on the task: asked only of one that names a path away.
        if judged.resolved and alone != _ON_TASK and self.leads:
            index = call.index
            for path in judged.resolved:
                if self._leads.get(path, index) < index:
                    return _ON_TASK
        return alone

    def broad(self, call: ToolCall) -> str | None:
        """The call under the task's scope alone (`TaskScope.verdict`), leads aside."""
        judged = self._judge(call)
        return (judged.alone if judged.alone is not None else self._alone(judged))[0]

    def _alone(self, judged: _Judged) -> tuple[str | None, str]:
        judged.resolved, judged.alone = _verdicts(judged.facts.paths, self.scope, self.ground)
        return judged.alone

    def _start_over(self, calls: Sequence[ToolCall]) -> None:
        """Every call to be judged again (those in `_judged` keep what they say)."""
        self._order = list(calls)
        self._leads, self._leads_known = {}, False
        self._on_task, self._scanned = None, 0

    def _add_leads(self, judged: _Judged) -> None:
        if judged.leads_to is None:
            judged.leads_to = _leads(judged.call, judged.facts, self.ground)
        for path in judged.leads_to:
            self._leads.setdefault(path, judged.call.index)

    def _judge(self, call: ToolCall) -> _Judged:
        found = self._judged.get(id(call))
        if found is not None and found.call is call:
            return found
        before = self._carried.get(id(call))
        facts = before.facts if before is not None and before.call is call else _facts(call)
        found = self._judged[id(call)] = _Judged(call, facts)
        return found


def _leads(call: ToolCall, facts: _Facts, ground: TaskScope) -> tuple[str, ...]:
    """The paths the call's output points to, resolved, when it leads where the task goes
    (`task_leads.leads`, from what the call says)."""
    if not call.output:
        return ()
    if facts.words is not None:
        if facts.words.isdisjoint(ground.words):
            return ()
    elif call.ok or ground.judge(facts.paths):
        return ()
    found = map(ground.resolve, output_paths(call.output))
    return tuple(path for path in found if path is not None)


def _verdicts(
    paths: tuple[str, ...], scope: TaskScope, ground: TaskScope
) -> tuple[tuple[str, ...], tuple[str | None, str]]:
    """The resolved paths of a call working on `paths`, and its verdicts as Drift gives them
    with leads aside."""
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
