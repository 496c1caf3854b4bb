"""What a reviewer watches (its watch targets), and change detection by hashing it.

Files: in a git work tree, the content's object id of each file the globs match, from git's index
and stat cache (`git_state.py`); elsewhere, MD5 of their sorted (path, mtime, size), found by a walk
that skips `.git` and what `.gitignore` files ignore (`file_walk.py`). Conversation: MD5 of the
relevant messages. `WatchState` keeps each reviewer's last hashes in the session, so an unchanged
target is not reviewed again by the next hook process.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.events import EPOCH, AssistantMessage, SubagentStopped, ToolCall, TurnEnded, UserPrompt
from ..core.records import Record, record
from .file_walk import SKIPPED_DIRS, WatchedFile, walk_state, watched_files
from .git_state import git_files_state

if TYPE_CHECKING:
    from ..core.session import Session

__all__ = [
    "SKIPPED_DIRS",
    "ConversationTarget",
    "FilesTarget",
    "WatchState",
    "WatchTarget",
    "WatchedFile",
    "conversation_messages",
    "conversation_state",
    "files_state",
    "target_state",
    "walk_state",
    "watch_state",
    "watched_files",
]


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


@record("watch_state")
@dataclass(frozen=True, slots=True, kw_only=True)
class WatchState(Record):
    """The target hash each reviewer last ran on (observer name -> hash) in a session."""

    window: ClassVar[int | None] = 1
    hashes: dict[str, str] = field(default_factory=dict)

    def changed(self, observer: str, digest: str) -> bool:
        return self.hashes.get(observer) != digest

    def seen(self, observer: str, digest: str) -> WatchState:
        return WatchState(hashes={**self.hashes, observer: digest})


# -- files ----------------------------------------------------------------------------------------


def files_state(root: Path, patterns: Sequence[str]) -> str:
    """The watched files' state: in a git work tree, from git's index and stat cache
    (`git_files_state`: it changes when a matched file is added, deleted, renamed or its content
    changes); elsewhere, or when git cannot answer, MD5 of their sorted (path, mtime, size) found
    by the walk."""
    state = git_files_state(root, patterns)
    return walk_state(root, patterns) if state is None else state


# -- conversation ---------------------------------------------------------------------------------


def conversation_messages(session: Session, target: ConversationTarget) -> list[dict[str, Any]]:
    """The retained messages a conversation target covers, oldest first, as plain data: the
    user's prompts, what the assistant wrote (with its reasoning when the target takes it), a
    turn's last message when the host gave it at the turn's end and no message of the session
    holds it yet, what subagents answered, and the tool calls."""
    kinds: list[type[Any]] = [UserPrompt, AssistantMessage, TurnEnded, SubagentStopped]
    if target.include_tool_calls:
        kinds.append(ToolCall)
    events = _said_in_place(
        sorted((e for kind in kinds for e in session[kind].all()), key=lambda e: e.seq)
    )
    said = {e.text.strip() for e in events if isinstance(e, AssistantMessage)}
    messages: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, UserPrompt):
            messages.append({"id": event.seq, "role": "user", "content": event.text})
        elif isinstance(event, AssistantMessage):
            message: dict[str, Any] = {"id": event.seq, "role": "assistant", "content": event.text}
            if target.include_reasoning and event.reasoning:
                message["reasoning"] = event.reasoning
            messages.append(message)
        elif isinstance(event, TurnEnded):
            if event.last_message.strip() and event.last_message.strip() not in said:
                said.add(event.last_message.strip())
                messages.append(
                    {"id": event.seq, "role": "assistant", "content": event.last_message}
                )
        elif isinstance(event, SubagentStopped):
            if event.last_message.strip():
                role = f"subagent {event.agent_type or event.agent_id}".strip()
                messages.append({"id": event.seq, "role": role, "content": event.last_message})
        elif isinstance(event, ToolCall):
            messages.append(
                {
                    "id": event.seq,
                    "role": "tool",
                    "tool": event.tool,
                    "input": event.input,
                    "content": event.output,
                    "ok": event.ok,
                }
            )
    return messages


def _said_in_place(events: list[Any]) -> list[Any]:
    """Events in arrival order, except that what the assistant wrote goes back before the tool
    calls that started after it was written: a host's transcript can reach its file after the
    call's hook (Claude Code writes it asynchronously), and the words led to the call."""
    ordered: list[Any] = []
    for event in events:
        place = len(ordered)
        if isinstance(event, AssistantMessage) and event.at > EPOCH:
            while place and _started(ordered[place - 1]) > event.at:
                place -= 1
        ordered.insert(place, event)
    return ordered


def _started(event: Any) -> datetime:
    """When a tool call began (its end less its duration); other events are never passed."""
    if not isinstance(event, ToolCall):
        return EPOCH
    return event.at - timedelta(milliseconds=event.duration_ms or 0)


def conversation_state(session: Session, target: ConversationTarget) -> str:
    """MD5 of the relevant messages (the conversation's state)."""
    text = json.dumps(conversation_messages(session, target), sort_keys=True, default=str)
    return hashlib.md5(text.encode("utf-8", "replace"), usedforsecurity=False).hexdigest()


def target_state(target: WatchTarget, root: Path | None, session: Session) -> str:
    """The hash of one target ('' for files when there is no project root)."""
    if isinstance(target, FilesTarget):
        return files_state(root, target.paths) if root is not None else ""
    return conversation_state(session, target)


def watch_state(targets: Sequence[WatchTarget], root: Path | None, session: Session) -> str:
    """One hash over all of a reviewer's targets."""
    if len(targets) == 1:
        return target_state(targets[0], root, session)
    joined = "\n".join(target_state(t, root, session) for t in targets)
    return hashlib.md5(joined.encode(), usedforsecurity=False).hexdigest()
