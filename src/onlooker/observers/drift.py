"""Drift: recent activity going on in places unrelated to the task as it was given.

Most of the last calls that name files away from the task's scope, or a run of them changing
files away from its ground (a narrow task left behind). Soft: low, medium if it stays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from ..core.assessment import Assessment, Finding, Severity
from ..core.events import ToolCall, UserPrompt
from ..core.observer import ObserverContext
from ..core.session import TaskContext
from ..core.triggers import Trigger, TriggerState
from .episodes import WRITE_TOOLS, cite, require_counts
from .task_scope import TaskScope, activity_paths, task_scopes

FILE_TOOLS = ("Read", "Write", "*Edit")
"""Tools that read or change a file (Read, Write, Edit, MultiEdit, NotebookEdit): Drift looks
after each of their calls, and every 10 calls for the rest (shell commands name files too)."""


@dataclass(frozen=True, slots=True)
class DriftObserver:
    """Note when recent calls that name files work away from the task's initial context."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""

    window: int = 20
    """Recent tool calls that name paths, judged together."""
    unrelated_share: float = 0.7
    """Share of them that must be unrelated to the task's scope (its prompts and first files)."""
    away_run: int = 10
    """Consecutive calls naming paths, all away from the task's ground and changing a file there:
    a drift already. Reading around is exploring: a run that only reads needs a whole window."""
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=10, tools=FILE_TOOLS))

    def __post_init__(self) -> None:
        require_counts(self)
        if not 0 < self.unrelated_share <= 1:
            raise ValueError(f"unrelated_share must be in (0, 1], got {self.unrelated_share}")

    @property
    def name(self) -> str:
        return "Drift"

    def should_run(self, ctx: ObserverContext) -> bool:
        if ctx.tool_call_count < min(self.window, self.away_run):
            return False
        task = ctx.session[TaskContext].latest()
        return task is not None and bool(task.first_paths)

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        scopes = _scopes(ctx)
        if scopes is None:
            return None
        scope, ground = scopes
        if not _away_since_last_run(ctx, scope, ground):
            return None
        # Newest first: (call, its unrelated path or '' under the scope, … under the ground).
        allowed = self.window - math.ceil(self.unrelated_share * self.window)
        recent: list[tuple[int, str, str]] = []
        run = 0
        changed = False
        related = 0
        for call in ctx.session[ToolCall].newest_first():
            broad, near = _verdicts(call, scope, ground)
            if broad is None:
                continue
            if run == len(recent) and near:
                run += 1
                changed = changed or (call.ok and call.tool in WRITE_TOOLS)
            related += not broad
            recent.append((call.index, broad, near))
            if len(recent) == self.window or (run < len(recent) and related > allowed):
                break
        if ground.first_paths and run >= (self.away_run if changed else self.window):
            away = [(index, path) for index, _, path in recent[:run]]
            base = ground
        elif len(recent) == self.window and related <= allowed:
            away = [(index, path) for index, path, _ in recent if path]
            base = scope
        else:
            return None
        oldest = recent[run - 1][0] if base is ground else recent[-1][0]
        level = self._level(ctx, oldest, lambda: self._before(scope, ctx, oldest))
        if level is None:
            return None
        judged = run if base is ground else len(recent)
        return self._assessment(base, judged, sorted(away), level)

    def _level(
        self, ctx: ObserverContext, oldest: int, before: Callable[[], int | None]
    ) -> Severity | None:
        """Low for a new drift; medium once when it outlasts a whole window after being told."""
        last = ctx.last_assessment
        if last is None:
            return "low"
        if last.call_index >= oldest:
            return None
        earlier = before()
        if earlier is not None and last.call_index >= earlier:
            return "medium" if last.severity == "low" else None
        return "low"

    def _before(self, scope: TaskScope, ctx: ObserverContext, oldest: int) -> int | None:
        """The oldest call of the window of calls naming paths just before call `oldest`."""
        found = None
        seen = 0
        for call in ctx.session[ToolCall].newest_first():
            if call.index >= oldest or scope.verdict(call) is None:
                continue
            found = call.index
            seen += 1
            if seen == self.window:
                break
        return found

    def _assessment(
        self, base: TaskScope, judged: int, away: list[tuple[int, str]], level: Severity
    ) -> Assessment:
        share = round(100 * len(away) / judged)
        places = _top_places(base, [path for _, path in away])
        anchor = ", ".join(base.relative(p) for p in base.first_paths[:3])
        if len(away) == judged:
            told = f"The last {judged} calls that name files all work on paths"
        else:
            told = f"{len(away)} of the last {judged} calls that name files work on paths"
        cited = cite([index for index, _ in away], 10)
        finding = Finding(
            content=(
                f"{told} unrelated to the task's first files ({anchor}): mostly {places}; {cited}."
            ),
            category="drift",
            evidence=cited,
            severity=level,
            source_type="mixed",
            metadata={"share": share},
        )
        persists = "still " if level != "low" else ""
        return Assessment(
            observer_name=self.name,
            summary=f"Recent work is {persists}mostly away from the files the task started with.",
            findings=(finding,),
            suggestions=(
                f"{share}% of recent file activity is outside the task's initial context; "
                "this is fine if the task required it, otherwise the original goal may be waiting.",
            ),
            severity=level,
        )


def _scopes(ctx: ObserverContext) -> tuple[TaskScope, TaskScope] | None:
    """The task's scope and its ground, once it has touched files."""
    task = ctx.session[TaskContext].latest()
    if task is None or not task.first_paths:
        return None
    root = str(ctx.project_root) if ctx.project_root else None
    prompts = tuple([prompt.text for prompt in ctx.session[UserPrompt].all()])
    return task_scopes(task.first_prompt, task.first_paths, prompts, root)


def _away_since_last_run(ctx: ObserverContext, scope: TaskScope, ground: TaskScope) -> bool:
    """Did a call since this observer last ran work away from the task's ground?

    Only such a call can start or extend a drift (a related call lowers the share, a call naming
    no file changes nothing): without one there is nothing new to say.
    """
    state = ctx.session[TriggerState].latest()
    last = state.runs.get(ctx.observer_name) if state is not None else None
    since = last.call_index if last is not None else 0
    for call in ctx.session[ToolCall].newest_first():
        if call.index <= since:
            return False
        if _verdicts(call, scope, ground)[1]:
            return True
    return False


def _verdicts(call: ToolCall, scope: TaskScope, ground: TaskScope) -> tuple[str | None, str]:
    """The call under the task's scope (None: names no telling path; '': related; else the
    unrelated path) and under its ground ('' or an unrelated path)."""
    paths = activity_paths(call)
    if not paths:
        return None, ""
    broad = scope.judge(paths)
    if broad is None or broad:
        return broad, broad or ""
    return broad, ground.judge(paths) or ""


def _top_places(scope: TaskScope, paths: list[str], limit: int = 2) -> str:
    counts: dict[str, int] = {}
    for path in paths:
        relative = scope.relative(path)
        place = relative.rsplit("/", 1)[0] if "/" in relative else relative
        counts[place] = counts.get(place, 0) + 1
    top = sorted(counts, key=lambda p: -counts[p])[:limit]
    return ", ".join(f"{place} ({counts[place]})" for place in top)
