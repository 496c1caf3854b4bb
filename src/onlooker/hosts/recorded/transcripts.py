"""Recorded sessions imported as events: Claude Code transcripts (with subagents), OpenAI messages.

`read_transcript` tells the formats apart; `transcript_paths` lists a project folder's sessions.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.events import Event, ToolCall
from ...errors import TranscriptError
from ..claude_code.transcript import Tally, iter_claude_code
from .openai_messages import messages_to_events

__all__ = [
    "Tally",
    "Transcript",
    "iter_claude_code",
    "read_claude_code",
    "read_openai_messages",
    "read_transcript",
    "subagent_id",
    "transcript_paths",
]

SUBAGENTS = "subagents"
READ_BUFFER = 1 << 20
"""Bytes read at a time: transcript lines run long, and a small buffer costs reading them
three times the CPU."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """One recorded session as events, with what could not be read, and its subagents."""

    session_id: str
    path: str
    events: tuple[Event, ...]
    malformed: int
    """Lines (or messages) that could not be read."""
    malformed_lines: tuple[int, ...]
    """Their 1-based line numbers (the first few)."""
    skipped: int
    """Lines read but not turned into events (metadata, progress, harness noise)."""
    parent_session_id: str = ""
    agent_id: str = ""
    agent_type: str = ""
    subagents: tuple[Transcript, ...] = ()
    unanswered: int = 0
    """Tool calls that never got a result (dropped)."""

    @property
    def tool_calls(self) -> int:
        return sum(1 for event in self.events if type(event) is ToolCall)

    def sessions(self) -> Iterator[Transcript]:
        """This transcript, then its subagents (depth first)."""
        yield self
        for subagent in self.subagents:
            yield from subagent.sessions()


def read_transcript(path: str | Path) -> Transcript:
    """Read a Claude Code JSONL transcript or an OpenAI messages JSON file, whichever it is."""
    path = Path(path)
    if path.suffix == ".jsonl":
        return read_claude_code(path)
    with _open(path) as file:
        first = file.readline().strip()
    if first.startswith(b"["):
        return read_openai_messages(path)
    try:
        data = json.loads(first) if first else None
    except ValueError:  # a pretty-printed JSON object, or a torn first line
        try:
            return read_openai_messages(path)
        except TranscriptError:
            return read_claude_code(path)
    if isinstance(data, dict) and "messages" in data and "type" not in data:
        return read_openai_messages(path)
    return read_claude_code(path)


def read_claude_code(path: str | Path) -> Transcript:
    """A Claude Code session file, with the subagent transcripts in `<session>/subagents/`."""
    path = Path(path)
    parent = _read_lines(path, default_session_id=path.stem)
    subagents = tuple(_read_subagent(file, parent) for file in subagent_files(path))
    return dataclasses.replace(parent, subagents=subagents) if subagents else parent


def subagent_dir(path: Path) -> Path:
    """Where Claude Code keeps a session's subagent transcripts."""
    return path.with_suffix("") / SUBAGENTS


def subagent_files(path: Path) -> list[Path]:
    """The session's subagent transcripts (`agent-*.jsonl`), in name order: what
    `sorted(subagent_dir(path).glob("agent-*.jsonl"))` gives, at a fraction of its cost (most
    sessions have no such folder, and replay asks for every session file)."""
    folder = os.path.join(os.path.splitext(path)[0], SUBAGENTS)  # `subagent_dir`, as text
    try:
        names = os.listdir(folder)
    except OSError:  # no folder (most sessions), or not one
        return []
    found = subagent_dir(path)
    return [found / n for n in sorted(names) if n.startswith("agent-") and n.endswith(".jsonl")]


def subagent_id(path: Path) -> str:
    """`agent-a7bb58f3fff2b3e8d.jsonl` → `a7bb58f3fff2b3e8d`."""
    return path.stem.removeprefix("agent-")


def _read_subagent(path: Path, parent: Transcript) -> Transcript:
    agent_id = subagent_id(path)
    return _read_lines(
        path,
        session_id=f"{parent.session_id}-agent-{agent_id}",
        agent_id=agent_id,
        agent_type=_agent_type(path, agent_id, parent),
        parent_session_id=parent.session_id,
    )


def _agent_type(path: Path, agent_id: str, parent: Transcript) -> str:
    """From `agent-<id>.meta.json`, else from the parent's Task/Agent call that started it."""
    try:
        meta = json.loads(path.with_suffix(".meta.json").read_bytes())
        if isinstance(meta, dict) and isinstance(meta.get("agentType"), str):
            return str(meta["agentType"])
    except (OSError, ValueError):
        pass
    for event in parent.events:
        if type(event) is ToolCall and (event.result or {}).get("agentId") == agent_id:
            found = event.input.get("subagent_type") or (event.result or {}).get("agentType")
            return found if isinstance(found, str) else ""
    return ""


def _read_lines(path: Path, *, default_session_id: str = "", **who: str) -> Transcript:
    tally = Tally()
    with _open(path) as lines:
        events = tuple(
            iter_claude_code(lines, tally=tally, default_session_id=default_session_id, **who)
        )
    if tally.lines and not tally.typed_lines and tally.malformed:
        raise TranscriptError(
            f"{path}: not a Claude Code transcript (no line is a JSON object with a 'type')"
        )
    return Transcript(
        session_id=tally.session_id or default_session_id,
        path=str(path),
        events=events,
        malformed=tally.malformed,
        malformed_lines=tuple(tally.malformed_lines),
        skipped=tally.skipped,
        parent_session_id=who.get("parent_session_id", ""),
        agent_id=who.get("agent_id", ""),
        agent_type=who.get("agent_type", ""),
        unanswered=tally.unanswered,
    )


def read_openai_messages(path: str | Path) -> Transcript:
    """An OpenAI chat `messages` list as JSON: a list, or an object with `messages`."""
    path = Path(path)
    with _open(path) as file:
        raw = file.read()
    try:
        data: Any = json.loads(raw)
    except ValueError as exc:
        raise TranscriptError(f"{path}: not JSON ({exc})") from None
    meta: dict[str, Any] = data if isinstance(data, dict) else {}
    messages = meta.get("messages") if meta else data
    if not isinstance(messages, list):
        raise TranscriptError(
            f"{path}: not an OpenAI messages file (expected a list, or an object with 'messages')"
        )
    session_id = meta.get("session_id") or meta.get("id") or path.stem
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else ""
    tally = Tally()
    events = messages_to_events(messages, str(session_id), tally, cwd=str(cwd))
    return Transcript(
        session_id=str(session_id),
        path=str(path),
        events=tuple(events),
        malformed=tally.malformed,
        malformed_lines=tuple(tally.malformed_lines),
        skipped=tally.skipped,
        unanswered=tally.unanswered,
    )


def transcript_paths(path: str | Path) -> list[Path]:
    """The session files a path names: itself, or every `*.jsonl` under a folder.

    Subagent transcripts are left out: they are read with their parent session.
    """
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise TranscriptError(f"{path}: no such file or folder")
    found: list[Path] = []
    for folder, folders, names in os.walk(path):  # as rglob walks: symlinked folders not entered
        folders[:] = [name for name in folders if name != SUBAGENTS]
        found.extend(Path(folder, name) for name in names if name.endswith(".jsonl"))
    found = sorted(file for file in found if file.is_file())
    if not found:
        raise TranscriptError(f"{path}: no *.jsonl transcripts in this folder")
    return found


def _open(path: Path) -> Any:
    try:
        return path.open("rb", buffering=READ_BUFFER)
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TranscriptError(f"{path}: is a folder, not a transcript file") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read ({exc.strerror or exc})") from None
