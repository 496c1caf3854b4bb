"""What a project's config says, as typed values: ProjectConfig and its parts.

The file has the schema of specs/config.md: `tools` and `behaviors` are module lists; the
`hooks-observations` module holds hooks, execution, observers (LLM reviewers) and post-processing;
the `hooks-observations-display` module holds the display options. onlooker adds two top-level
sections: `trajectory`, for its trajectory observers (built-in or from plugins), `memory`, and
`side_effects` and `compliance` (specs/side-effects.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..compliance import ComplianceSettings
from ..core.observer import Observer
from ..core.triggers import Trigger
from ..display.observations import DisplayOptions
from ..memory.settings import MemorySettings
from ..observers import builtin_observers
from ..reviewers.config import ReviewerConfig, ReviewSetup
from ..reviewers.execution import Execution
from ..reviewers.watch import FilesTarget
from ..scoring.settings import ScoringSettings
from ..side_effects import SideEffectSettings

#: The config's hook names -> the event kind that fires them.
HOOK_EVENTS: dict[str, str] = {
    "message:received": "user_prompt",
    "response:complete": "turn_ended",
    "tool:post": "tool_call",
    "session:start": "session_started",
    "session:end": "session_ended",
    "compaction": "compacting",
    "subagent:stop": "subagent_stopped",
}
MARKER_HOOK = "marker:"
"""`marker:<Name>`: a custom hook, fired by a Marker event of that name."""


@dataclass(frozen=True, slots=True)
class Module:
    """One entry of `tools` or `behaviors`: a module reference."""

    module: str
    source: str = ""
    """Where an orchestrator would fetch the module from; onlooker ships these modules built in."""


@dataclass(frozen=True, slots=True)
class HookSpec:
    """When the reviewers run: a hook name (`response:complete`) and its priority."""

    trigger: str = "response:complete"
    priority: int = 5
    tools: tuple[str, ...] = ()
    """For `tool:post`: tool-name patterns (`Write`, `mcp__*`); none means every tool."""

    @property
    def event(self) -> str:
        if self.trigger.startswith(MARKER_HOOK):
            return self.trigger.removeprefix(MARKER_HOOK)
        return HOOK_EVENTS[self.trigger]


@dataclass(frozen=True, slots=True)
class IssueFiling:
    """Pattern 5's post-processing: findings of these severities become issues."""

    severities: tuple[str, ...] = ("critical", "high")
    issue_type: str = "bug"
    """Used as the issue's label."""
    auto_assign: bool = False
    """On GitHub, assign the issue to the authenticated user (`--assignee @me`)."""
    file: str = ".onlooker/issues.md"
    """The local issues file, relative to the project root."""
    github: bool = False
    """Also open them with `gh issue create` (when `gh` is installed). Off unless opted in."""


@dataclass(frozen=True, slots=True)
class TrajectoryOptions:
    """The trajectory observers that run (built-in and plugins'), with their thresholds, and a
    session deadline."""

    observers: tuple[Observer, ...] = field(default_factory=lambda: tuple(builtin_observers()))
    deadline_minutes: float | None = None
    """Each session's deadline, this many minutes after it starts (for the Deadline observer)."""

    @property
    def deadline(self) -> timedelta | None:
        return timedelta(minutes=self.deadline_minutes) if self.deadline_minutes else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "deadline_minutes": self.deadline_minutes,
            "observers": {o.name: observer_fields(o) for o in self.observers},
        }


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """Everything a project's config file says, defaults filled in."""

    root: Path
    path: Path | None = None
    """The file it came from; None when the project has no config file."""
    tools: tuple[Module, ...] = ()
    behaviors: tuple[Module, ...] = ()
    hooks: tuple[HookSpec, ...] = (HookSpec(),)
    execution: Execution = field(default_factory=Execution)
    reviewers: tuple[ReviewerConfig, ...] = ()
    display: DisplayOptions = field(default_factory=DisplayOptions)
    issues: IssueFiling | None = None
    trajectory: TrajectoryOptions = field(default_factory=TrajectoryOptions)
    memory: MemorySettings = field(default_factory=MemorySettings)
    """The memory settings (the `memory` section)."""
    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    """Session scoring (the `scoring` section); off without a model."""
    side_effects: SideEffectSettings | None = None
    """The side effects to run after tool calls (the `side_effects` section); None: none."""
    compliance: ComplianceSettings | None = None
    """What agents must have done when they stop (the `compliance` section); None: no checks."""

    @property
    def enabled_reviewers(self) -> tuple[ReviewerConfig, ...]:
        return tuple(r for r in self.reviewers if r.enabled)

    @property
    def review_trigger(self) -> Trigger:
        """The reviewers' trigger: any configured hook fires them."""
        tools = tuple(p for hook in self.hooks for p in hook.tools)
        kinds = tuple(dict.fromkeys(h.event for h in self.hooks if not h.tools))
        if any(hook.tools for hook in self.hooks):
            return Trigger(on_event=kinds, tools=tools)
        return Trigger(on_event=kinds)

    @property
    def review_setup(self) -> ReviewSetup | None:
        """The enabled reviewers, how they run and what makes them due; None when there are none."""
        enabled = self.enabled_reviewers
        return ReviewSetup(enabled, self.execution, self.review_trigger) if enabled else None

    def to_dict(self) -> dict[str, Any]:
        """The effective config as plain data (`onlooker config show --json`)."""
        return {
            "file": str(self.path) if self.path else None,
            "root": str(self.root),
            "tools": [_fields(m) for m in self.tools],
            "behaviors": [_fields(m) for m in self.behaviors],
            "hooks": [_fields(h) for h in self.hooks],
            "execution": _fields(self.execution),
            "observers": [reviewer_dict(r) for r in self.reviewers],
            "post_processing": _fields(self.issues) if self.issues else None,
            "display": _fields(self.display),
            "trajectory": self.trajectory.to_dict(),
            "memory": self.memory.to_dict(),
            "scoring": self.scoring.to_dict(),
            "side_effects": self.side_effects.to_dict() if self.side_effects else None,
            "compliance": self.compliance.to_dict() if self.compliance else None,
        }


def reviewer_dict(reviewer: ReviewerConfig) -> dict[str, Any]:
    """A reviewer as the config writes it, `watch` entries with their `type`."""
    data = _fields(reviewer)
    data["watch"] = [
        {"type": "files", "paths": list(t.paths)}
        if isinstance(t, FilesTarget)
        else {"type": "conversation", **_fields(t)}
        for t in reviewer.watch
    ]
    return data


def observer_fields(observer: Observer) -> dict[str, Any]:
    """An observer's settings as plain data: its dataclass fields that hold data (a plugin's
    observer may hold functions, which are left out)."""
    if not dataclasses.is_dataclass(observer) or isinstance(observer, type):
        return {}
    data: dict[str, Any] = {}
    for f in dataclasses.fields(observer):
        value = getattr(observer, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = dataclasses.asdict(value)
        if _plain(value):
            data[f.name] = value
    return data


def _plain(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return value is None or isinstance(value, str | int | float | bool)


def _fields(value: Any) -> dict[str, Any]:
    data: dict[str, Any] = dataclasses.asdict(value)
    return data
