"""A reviewer observer's configuration: an `observers` entry of the config, field for field; the
reviewers of a project with their execution settings (ReviewSetup); their form in a queued job."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.triggers import Trigger
from .execution import Execution
from .watch import ConversationTarget, FilesTarget, WatchTarget


@dataclass(frozen=True, slots=True)
class ReviewerConfig:
    name: str
    """Display name; findings carry it as their observer."""
    role: str
    """One line: what this reviewer is."""
    focus: str
    """What to look for, in detail."""
    model: str
    """A model string, e.g. `openai:gpt-4o-mini` or `local:smollm2`."""
    watch: tuple[WatchTarget, ...]
    timeout: float = 30.0
    enabled: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReviewSetup:
    """A project's reviewers, how they run, and which events make them due."""

    reviewers: tuple[ReviewerConfig, ...]
    execution: Execution = field(default_factory=Execution)
    trigger: Trigger = field(default_factory=lambda: Trigger.on("turn_ended"))
    """The config's hooks: response:complete is `turn_ended`, tool:post `tool_call` (with `tools`
    for a tool-name matcher), message:received `user_prompt`."""

    @property
    def conversation(self) -> ConversationTarget | None:
        """What the reviewers read of the conversation, all together (None: none reads it):
        whether any takes the assistant's reasoning, whether any takes the tool calls."""
        targets = [
            t for r in self.reviewers if r.enabled for t in r.watch
            if isinstance(t, ConversationTarget)
        ]  # fmt: skip
        if not targets:
            return None
        return ConversationTarget(
            include_tool_calls=any(t.include_tool_calls for t in targets),
            include_reasoning=any(t.include_reasoning for t in targets),
        )


def reviewer_to_dict(config: ReviewerConfig) -> dict[str, Any]:
    """The reviewer as JSON data (the payload of a `review.run` job)."""
    watch: list[dict[str, Any]] = []
    for target in config.watch:
        if isinstance(target, FilesTarget):
            watch.append({"type": "files", "paths": list(target.paths)})
        else:
            watch.append(
                {
                    "type": "conversation",
                    "include_tool_calls": target.include_tool_calls,
                    "include_reasoning": target.include_reasoning,
                }
            )
    return {
        "name": config.name,
        "role": config.role,
        "focus": config.focus,
        "model": config.model,
        "watch": watch,
        "timeout": config.timeout,
        "enabled": config.enabled,
        "metadata": config.metadata,
    }


def reviewer_from_dict(data: dict[str, Any]) -> ReviewerConfig:
    """The reviewer `reviewer_to_dict` wrote."""
    watch: list[WatchTarget] = []
    for target in data["watch"]:
        if target["type"] == "files":
            watch.append(FilesTarget(tuple(target["paths"])))
        else:
            watch.append(
                ConversationTarget(target["include_tool_calls"], target["include_reasoning"])
            )
    return ReviewerConfig(
        name=data["name"],
        role=data["role"],
        focus=data["focus"],
        model=data["model"],
        watch=tuple(watch),
        timeout=float(data["timeout"]),
        enabled=bool(data["enabled"]),
        metadata=dict(data.get("metadata") or {}),
    )
