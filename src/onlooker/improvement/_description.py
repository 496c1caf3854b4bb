"""An agent's description (the front matter's `description:`, which tells the parent agent when to
delegate to it): read it, and set it as one reversible change, locked and backed up like every
other (specs/improvement.md). A prompt kept inline in opencode.json has no front matter: its
description is opencode.json's `agent.<name>.description`, which is not changed here."""

from __future__ import annotations

import json

from ..core.clock import Clock
from ..errors import ImprovementError
from ._apply import BACKUP_MAX_VERSIONS, LockSettings, apply_edit, current_text
from ._change import AppliedChange
from ._section import body_start, newline_of, split_lines
from ._target import InstructionTarget

KEY = "description:"


def agent_description(target: InstructionTarget) -> str:
    """The description in the agent file's front matter ('' for none)."""
    lines = split_lines(current_text(target))
    for line in lines[1 : max(1, body_start(lines) - 1)]:
        if line.startswith(KEY):
            return _value(line[len(KEY) :].strip())
    return ""


def describe_agent(
    target: InstructionTarget,
    description: str,
    *,
    backup_max_versions: int = BACKUP_MAX_VERSIONS,
    lock: LockSettings | None = None,
    clock: Clock | None = None,
) -> AppliedChange:
    """Set the agent's description (one line) in its file's front matter, which is added when
    the file has none. Nothing is written when it already says that."""
    wanted = check_describable(target, description)

    def edit(text: str) -> tuple[str, tuple[str, ...]]:
        return with_description(text, wanted), (f"{KEY} {wanted}",)

    return apply_edit(
        target, edit, section="", backup_max_versions=backup_max_versions,
        reason="pre-description", lock=lock or LockSettings(), clock=clock,
    )  # fmt: skip


def check_describable(target: InstructionTarget, description: str) -> str:
    """The description as one line; refused for an inline prompt, or when empty."""
    if target.json_path is not None:
        where = ".".join(target.json_path[:-1])
        raise ImprovementError(
            f"{target.path}: the agent's prompt is inline, so its description is {where}."
            "description in that file; change it there"
        )
    wanted = " ".join(description.split())
    if not wanted:
        raise ImprovementError("description: must not be empty")
    return wanted


def with_description(text: str, description: str) -> str:
    """`text` whose front matter says `description: …` (as a YAML string); nothing else changes."""
    newline = newline_of(text)
    line = f"{KEY} {json.dumps(description, ensure_ascii=False)}{newline}"
    lines = split_lines(text)
    end = body_start(lines)
    if end == 0:
        return f"---{newline}{line}---{newline}{text}"
    for index in range(1, end - 1):
        if lines[index].startswith(KEY):
            if _value(lines[index][len(KEY) :].strip()) == description:
                return text
            return "".join([*lines[:index], line, *lines[index + 1 :]])
    return "".join([*lines[: end - 1], line, *lines[end - 1 :]])


def _value(raw: str) -> str:
    """A one-line YAML scalar: quoted (JSON-style or single quotes) or plain."""
    if raw.startswith('"'):
        try:
            return str(json.loads(raw))
        except ValueError:
            return raw.strip('"')
    if raw.startswith("'") and raw.endswith("'") and len(raw) > 1:
        return raw[1:-1].replace("''", "'")
    return raw
