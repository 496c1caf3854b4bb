"""Drift as it was before it kept state between runs: every run judges every retained call again.

The reference the incremental observer (src/onlooker/observers/drift.py) must equal, finding for
finding (tests/observers/test_drift_incremental.py). Copied unchanged but for its imports and name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from onlooker.core.assessment import Assessment, Finding, Severity
from onlooker.core.events import ToolCall, UserPrompt
from onlooker.core.observer import ObserverContext
from onlooker.core.session import TaskContext
from onlooker.core.triggers import Trigger, TriggerState
from onlooker.observers.call_paths import activity_paths
from onlooker.observers.episodes import WRITE_TOOLS, cite, require_counts
from onlooker.observers.task_leads import task_leads
from onlooker.observers.task_scope import TaskScope, task_scopes

FILE_TOOLS = ("Read", "Write", "*Edit")
"""Tools that read or change a file (Read, Write, Edit, MultiEdit, NotebookEdit): Drift looks
after each of their calls, and every 10 calls for the rest (shell commands name files too)."""


@dataclass(frozen=True, slots=True)
class ReferenceDriftObserver:
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
        judge = _judge(ctx)
        if judge is None or not _away_since_last_run(ctx, judge):
            return None
        ground = judge.ground
        run, changed, passed = self._ground_run(ctx, judge)
        if ground.first_paths and self._long_enough(ctx, run, changed):
            away, base, judged, oldest = run, ground, len(run) + passed, run[-1][0]
        else:
            window = self._share_window(ctx, judge)
            if window is None:
                return None
            away, judged, oldest = window
            base = judge.scope
        level = self._level(ctx, oldest, lambda: self._before(judge.scope, ctx, oldest))
        if level is None:
            return None
        return self._assessment(base, judged, sorted(away), level)

    def _long_enough(self, ctx: ObserverContext, run: list[tuple[int, str]], changed: bool) -> bool:
        """A run that changes files away from the ground: `away_run` calls since it began, most
        of them naming files there (searches and shell commands between them are part of it);
        a run that only reads: a whole window of calls naming files."""
        if not changed:
            return len(run) >= self.window
        spanned = ctx.tool_call_count - run[-1][0] + 1
        return spanned >= self.away_run and 10 * len(run) >= 7 * self.away_run

    def _ground_run(
        self, ctx: ObserverContext, judge: _Judge
    ) -> tuple[list[tuple[int, str]], bool, int]:
        """The latest calls away from the task's ground (newest first), back to the last change
        made on it; whether one of them changed a file; how many calls back on the task's files
        were passed over between them.

        Reading the task's files again or running its check now and then between the calls
        away is no return to the task: such calls are passed over. A change to the task's
        files is, and so is going back to them for more than half as many calls as went away.
        Calls before the task's files were first touched leave nothing.
        """
        verdicts = [(call, *judge.verdicts(call)) for call in ctx.session[ToolCall].all()]
        on_task = [call.index for call, broad, near in verdicts if broad is not None and not near]
        run: list[tuple[int, str]] = []
        changed = False
        returns: list[int] = []
        for call, broad, near in reversed(verdicts):
            if broad is None:
                continue
            if not on_task or call.index < on_task[0]:
                break  # before the task's files were first touched: no task to leave yet
            changes = call.ok and call.tool in WRITE_TOOLS
            if not near:
                if changes or 2 * (len(returns) + 1) > len(run):
                    break
                returns.append(call.index)
                continue
            run.append((call.index, near))
            changed = changed or changes
            if len(run) == self.window:
                break
        oldest = run[-1][0] if run else 0
        return run, changed, sum(1 for index in returns if index > oldest)

    def _share_window(
        self, ctx: ObserverContext, judge: _Judge
    ) -> tuple[list[tuple[int, str]], int, int] | None:
        """The unrelated calls among the last `window` calls naming files, when they are most;
        how many calls were judged, and the oldest of them."""
        allowed = self.window - math.ceil(self.unrelated_share * self.window)
        away: list[tuple[int, str]] = []
        judged = 0
        for call in ctx.session[ToolCall].newest_first():
            broad = judge.verdicts(call)[0]
            if broad is None:
                continue
            judged += 1
            if broad:
                away.append((call.index, broad))
            if judged - len(away) > allowed:
                return None
            if judged == self.window:
                return away, judged, call.index
        return None

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


@dataclass(frozen=True, slots=True)
class _Judge:
    """The task's scope, its ground, and the files its own searches and failures led to."""

    scope: TaskScope
    ground: TaskScope
    leads: dict[str, int]
    judged: dict[int, tuple[str | None, str]] = field(default_factory=dict, compare=False)
    """Verdicts given in this run, by call: one run reads most calls more than once."""

    def verdicts(self, call: ToolCall) -> tuple[str | None, str]:
        """The call under the task's scope (None: names no telling path; '': related; else the
        unrelated path) and under its ground ('' or an unrelated path)."""
        found = self.judged.get(id(call))  # the session holds its calls while this judge lives
        if found is None:
            found = self.judged[id(call)] = self._verdicts(call)
        return found

    def _verdicts(self, call: ToolCall) -> tuple[str | None, str]:
        paths = activity_paths(call)
        if not paths:
            return None, ""
        for raw in paths:
            path = self.scope.resolve(raw)
            if path is not None and self.leads.get(path, call.index) < call.index:
                return "", ""
        broad = self.scope.judge(paths)
        if broad is None or broad:
            return broad, broad or ""
        return broad, self.ground.judge(paths) or ""


def _judge(ctx: ObserverContext) -> _Judge | None:
    """The task's scope and ground, once it has touched files, and where it led."""
    task = ctx.session[TaskContext].latest()
    if task is None or not task.first_paths:
        return None
    root = str(ctx.project_root) if ctx.project_root else None
    prompts = tuple([prompt.text for prompt in ctx.session[UserPrompt].all()])
    scope, ground = task_scopes(task.first_prompt, task.first_paths, prompts, root)
    return _Judge(scope, ground, task_leads(ctx.session[ToolCall].all(), ground))


def _away_since_last_run(ctx: ObserverContext, judge: _Judge) -> bool:
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
        if judge.verdicts(call)[1]:
            return True
    return False


def _top_places(scope: TaskScope, paths: list[str], limit: int = 2) -> str:
    counts: dict[str, int] = {}
    for path in paths:
        relative = scope.relative(path)
        place = relative.rsplit("/", 1)[0] if "/" in relative else relative
        counts[place] = counts.get(place, 0) + 1
    top = sorted(counts, key=lambda p: -counts[p])[:limit]
    return ", ".join(f"{place} ({counts[place]})" for place in top)
