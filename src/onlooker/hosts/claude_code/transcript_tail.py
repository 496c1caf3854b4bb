"""The assistant's own words from a Claude Code transcript, read from where the last read ended.

Hooks carry the user's prompt and the tool calls, never what the assistant wrote; conversation
reviewers need it (specs/hosts.md, "The assistant's words"). `TranscriptTails` remembers, per
transcript file, the byte offset it has read up to, so a hook reads only what was appended since
the last one; a first read (the service restarted, a reviewer was just configured) or a file that
shrank starts at most FIRST_READ bytes from its end, and a hook never reads more than READ_LIMIT
bytes. Each message carries an input id made from its first line's uuid: one read again after a
restart is recorded once.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from datetime import datetime
from typing import Any

from ...core.clock import utc
from ...core.events import AssistantMessage
from ...text.clipping import clip

FIRST_READ = 256 * 1024
"""Bytes read back from a transcript's end the first time (more would not fit a review anyway)."""
READ_LIMIT = 4 * 1024 * 1024
"""Bytes one hook reads at most; past it, only the newest FIRST_READ bytes are read."""
MESSAGE_LIMIT = 4000
"""Characters of a message's text, and of its reasoning, that are kept (head and tail)."""
KNOWN_FILES = 256
"""Transcripts whose offset is remembered (least recently read first out)."""


class TranscriptTails:
    """Where each transcript was last read up to; safe to share between threads."""

    def __init__(self) -> None:
        self._offsets: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def new_messages(
        self, path: str, *, reasoning: bool, now: datetime, sidechain: bool = False
    ) -> list[AssistantMessage]:
        """The assistant messages appended to `path` since the last read (thinking blocks as
        `reasoning` only when asked); lines whose `isSidechain` is not `sidechain` are left out.
        A file that cannot be read gives nothing."""
        if not path:
            return []
        with self._lock:
            offset = self._offsets.pop(path, None)
        try:
            chunk, offset = _read_from(path, offset)
        finally:
            if offset is not None:
                with self._lock:
                    self._offsets[path] = offset
                    while len(self._offsets) > KNOWN_FILES:
                        self._offsets.popitem(last=False)
        return assistant_messages(chunk, reasoning=reasoning, now=now, sidechain=sidechain)


def _read_from(path: str, offset: int | None) -> tuple[bytes, int | None]:
    """(the whole lines after `offset`, the offset after them); a fresh start near the end."""
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            fresh = offset is None or offset > size or size - offset > READ_LIMIT
            start = max(0, size - FIRST_READ) if fresh else offset
            assert start is not None
            file.seek(start)
            chunk = file.read(size - start)
    except OSError:
        return b"", offset
    if fresh and start > 0:  # began mid-line: skip to the next whole line
        cut = chunk.find(b"\n")
        chunk, start = (b"", size) if cut < 0 else (chunk[cut + 1 :], start + cut + 1)
    end = chunk.rfind(b"\n") + 1  # a line still being written waits for the next read
    return chunk[:end], start + end


def assistant_messages(
    chunk: bytes, *, reasoning: bool, now: datetime, sidechain: bool = False
) -> list[AssistantMessage]:
    """The assistant messages in whole transcript lines: the text and thinking blocks of the
    lines that share one `message.id` make one message (tool_use blocks are the tool calls' own
    hooks), stamped with its first line's time (else `now`) and uuid."""
    found: list[AssistantMessage] = []
    group: dict[str, Any] | None = None
    for raw in chunk.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or line.get("type") != "assistant":
            continue
        if (line.get("isSidechain") is True) is not sidechain:
            continue
        message = line.get("message")
        if not isinstance(message, dict):
            continue
        key = message.get("id") or line.get("uuid")
        if group is None or group["key"] != key:
            _flush(group, found, reasoning, now)
            group = {"key": key, "first": line, "texts": [], "thoughts": []}
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks if isinstance(blocks, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                group["texts"].append(block["text"])
            elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                group["thoughts"].append(block["thinking"])
    _flush(group, found, reasoning, now)
    return found


def _flush(
    group: dict[str, Any] | None, found: list[AssistantMessage], reasoning: bool, now: datetime
) -> None:
    if group is None:
        return
    text = "\n\n".join(t for t in group["texts"] if t.strip())
    thought = "\n\n".join(t for t in group["thoughts"] if t.strip()) if reasoning else ""
    if not text and not thought:
        return
    first = group["first"]
    uuid = first.get("uuid") if isinstance(first.get("uuid"), str) else str(group["key"])
    found.append(
        AssistantMessage(
            at=_time(first.get("timestamp")) or now,
            text=clip(text, MESSAGE_LIMIT),
            reasoning=clip(thought, MESSAGE_LIMIT),
            input_id=f"transcript:{uuid}"[:64],
        )
    )


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return utc(datetime.fromisoformat(value))
    except ValueError:
        return None
