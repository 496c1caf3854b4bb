"""What a reviewer reads: the watched files (numbered lines) and the conversation, as one text.

Bounded in size, secrets redacted, binary files left out. Messages are labelled with their ids
(`[message 12]`) and files with their paths, so findings can cite `file:line` or a message id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..core.session import Session
from ..text.clipping import head, tail
from ..text.redact import redact
from .file_walk import watched_files as find_files
from .watch import ConversationTarget, FilesTarget, WatchTarget, conversation_messages

MATERIAL_LIMIT = 60_000
"""Characters of material one review reads at most."""
FILE_LIMIT = 20_000
MESSAGE_LIMIT = 4_000


def review_material(
    targets: Sequence[WatchTarget],
    root: Path | None,
    session: Session,
    limit: int = MATERIAL_LIMIT,
) -> str:
    """The content to review for these targets, redacted and within `limit` characters."""
    parts: list[str] = []
    for target in targets:
        if isinstance(target, FilesTarget) and root is not None:
            parts.append(_files(target, root, limit))
        elif isinstance(target, ConversationTarget):
            parts.append(_conversation(session, target, limit))
    text = "\n\n".join(p for p in parts if p) or "(nothing to review)"
    return redact(text)[:limit]  # redacted whole first: the cut cannot halve a secret


def _files(target: FilesTarget, root: Path, limit: int) -> str:
    out: list[str] = []
    used = 0
    files = find_files(root, target.paths)
    for index, item in enumerate(files):
        if used >= limit:
            out.append(f"[{len(files) - index} more files not shown]")
            break
        try:
            raw = (root / item.path).read_bytes()[: FILE_LIMIT * 4]
        except OSError:
            continue
        if b"\0" in raw[:8192]:
            continue
        text = redact(raw.decode("utf-8", "replace"))  # before any cut can halve a secret
        numbered = "\n".join(f"{n:>5}  {line}" for n, line in enumerate(text.splitlines(), 1))
        if len(numbered) > FILE_LIMIT:
            numbered = numbered[:FILE_LIMIT] + "\n[file clipped]"
        block = f"### File: {item.path}\n{numbered}"
        out.append(block)
        used += len(block)
    return "## Files\n\n" + "\n\n".join(out) if out else ""


def _conversation(session: Session, target: ConversationTarget, limit: int) -> str:
    lines: list[str] = []
    for message in conversation_messages(session, target):
        head = f"[message {message['id']}] {message['role']}"
        if message["role"] == "tool":
            status = "ok" if message["ok"] else "failed"
            arguments = json.dumps(message["input"], ensure_ascii=False, default=str)
            head += f" {message['tool']} {_clip(arguments, 1000)} ({status})"
        body = _clip(str(message.get("content") or ""), MESSAGE_LIMIT)
        if message.get("reasoning"):
            body = f"(reasoning) {_clip(message['reasoning'], MESSAGE_LIMIT)}\n{body}"
        lines.append(f"{head}:\n{body}" if body else head)
    if not lines:
        return ""
    text = "\n\n".join(lines)
    if len(text) > limit:  # keep the newest messages
        text = "[earlier messages not shown]\n" + tail(text, limit)
    return "## Conversation\n\n" + text


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else head(text, limit) + "…"
