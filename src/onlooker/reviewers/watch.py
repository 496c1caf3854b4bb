"""What a reviewer watches (its watch targets), and change detection by hashing it.

Files: MD5 of the sorted (path, mtime, size) of the files the globs match under the project root,
found by walking only below each glob's fixed prefix, skipping `.git` and what `.gitignore` files
ignore. Conversation: MD5 of the relevant messages. `WatchState` keeps each reviewer's last hashes
in the session, so an unchanged target is not reviewed again by the next hook process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.events import AssistantMessage, SubagentStopped, ToolCall, TurnEnded, UserPrompt
from ..core.records import Record, record
from ..text.globs import glob_regex
from ..text.ignore import IGNORE_FILE, IgnoreRules

if TYPE_CHECKING:
    from ..core.session import Session

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
_GLOB_CHARS = re.compile(r"[*?\[]")


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


@dataclass(frozen=True, slots=True)
class WatchedFile:
    path: str
    """Relative to the project root, `/`-separated."""
    mtime_ns: int
    size: int


def watched_files(root: Path, patterns: Sequence[str]) -> list[WatchedFile]:
    """The files under `root` that any pattern matches, sorted by path (ignored files left out)."""
    found: dict[str, WatchedFile] = {}
    for prefix, regex, depth in _plans(patterns):
        for item in _walk(root, prefix, regex, depth):
            found.setdefault(item.path, item)
    return [found[path] for path in sorted(found)]


def files_state(root: Path, patterns: Sequence[str]) -> str:
    """MD5 of the sorted (path, mtime, size) of the watched files (the files' state)."""
    text = "".join(f"{f.path}\0{f.mtime_ns}\0{f.size}\n" for f in watched_files(root, patterns))
    return hashlib.md5(text.encode("utf-8", "replace"), usedforsecurity=False).hexdigest()


def _plans(patterns: Sequence[str]) -> list[tuple[str, re.Pattern[str], int | None]]:
    """Per pattern: the fixed directory prefix to walk from, the full-path regex, and the depth
    below the prefix (None when `**` makes it unbounded)."""
    plans = []
    for pattern in patterns:
        parts = [p for p in pattern.replace("\\", "/").strip("/").split("/") if p not in ("", ".")]
        fixed: list[str] = []
        for part in parts[:-1]:
            if _GLOB_CHARS.search(part):
                break
            fixed.append(part)
        rest = parts[len(fixed) :]
        depth = None if "**" in rest else len(rest)
        regex = re.compile(glob_regex("/".join(parts)), re.S)
        plans.append(("/".join(fixed), regex, depth))
    return plans


def _walk(
    root: Path, prefix: str, regex: re.Pattern[str], depth: int | None
) -> Iterator[WatchedFile]:
    rules = IgnoreRules().with_file(root / IGNORE_FILE, "")
    parts = prefix.split("/") if prefix else []
    for i, part in enumerate(parts):  # the rules of the directories above the prefix
        above = "/".join(parts[: i + 1])
        if part in SKIPPED_DIRS or rules.ignored(above, True):
            return
        rules = rules.with_file(root / above / IGNORE_FILE, above)
    stack: list[tuple[str, IgnoreRules, int]] = [(prefix, rules, 1)]
    while stack:
        rel, rules, level = stack.pop()
        try:
            entries = os.scandir(root / rel if rel else root)
        except OSError:
            continue
        with entries:
            for entry in entries:
                path = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if entry.name in SKIPPED_DIRS or (depth is not None and level >= depth):
                        continue
                    if not rules.ignored(path, True):
                        inner = rules.with_file(Path(entry.path) / IGNORE_FILE, path)
                        stack.append((path, inner, level + 1))
                elif (depth is None or level == depth) and regex.fullmatch(path):
                    if rules.ignored(path, False):
                        continue
                    try:
                        stat = entry.stat()
                    except OSError:
                        continue
                    yield WatchedFile(path, stat.st_mtime_ns, stat.st_size)


# -- conversation ---------------------------------------------------------------------------------


def conversation_messages(session: Session, target: ConversationTarget) -> list[dict[str, Any]]:
    """The retained messages a conversation target covers, oldest first, as plain data: the
    user's prompts, what the assistant wrote (with its reasoning when the target takes it), a
    turn's last message when the host gave it at the turn's end and no message of the session
    holds it yet, what subagents answered, and the tool calls."""
    kinds: list[type[Any]] = [UserPrompt, AssistantMessage, TurnEnded, SubagentStopped]
    if target.include_tool_calls:
        kinds.append(ToolCall)
    events = sorted((e for kind in kinds for e in session[kind].all()), key=lambda e: e.seq)
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
