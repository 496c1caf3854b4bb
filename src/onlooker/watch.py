"""What a reviewer watches (seed 000's WatchConfig): files by glob, or the conversation.

Change detection (hashing the watched targets so an unchanged target is not reviewed again) builds
on these shapes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FilesTarget:
    """Files under the project root matched by glob patterns (`src/**/*.py`)."""

    paths: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConversationTarget:
    """The conversation: messages, optionally with tool calls and the assistant's reasoning."""

    include_tool_calls: bool = True
    include_reasoning: bool = True


WatchTarget = FilesTarget | ConversationTarget
