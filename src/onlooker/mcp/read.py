"""The `read` tool: a line range of a transcript under a known root, as redacted markdown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hosts.claude_code.transcript_markdown import line_markdown
from ..text.redact import redact
from .tool_specs import DEFAULT_READ_LINES, MAX_READ_LINES
from .transcript_roots import Root, resolve_transcript

CHARACTER_BUDGET = 60_000
"""Most characters one answer carries; the rest is left for the next call (next_start_line)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """Lines start_line..end_line of a transcript, rendered, with where to go on."""

    path: Path
    root: Root
    start_line: int
    end_line: int
    total_lines: int
    text: str
    next_start_line: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "root": self.root.name,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "total_lines": self.total_lines,
            "next_start_line": self.next_start_line,
        }


def read_transcript_lines(
    path: str,
    roots: tuple[Root, ...],
    *,
    start_line: int = 1,
    end_line: int | None = None,
    raw: bool = False,
) -> Reading:
    """Read and render lines `start_line..end_line` (inclusive, 1-based) of the transcript."""
    real, root = resolve_transcript(path, roots)
    last = end_line if end_line is not None else start_line + DEFAULT_READ_LINES - 1
    if last < start_line:
        raise ValueError(f"endLine ({last}) is before startLine ({start_line})")
    last = min(last, start_line + MAX_READ_LINES - 1)
    parts: list[str] = []
    used = 0
    shown_to = start_line - 1
    total = 0
    with real.open(encoding="utf-8", errors="replace") as lines:
        for total, line in enumerate(lines, 1):
            if total < start_line or total > last or used >= CHARACTER_BUDGET:
                continue
            part = line.rstrip("\n") if raw else line_markdown(total, line)
            part = redact(part)
            if len(part) > CHARACTER_BUDGET:
                part = f"{part[:CHARACTER_BUDGET]}… [line clipped at {CHARACTER_BUDGET} characters]"
            if parts and used + len(part) > CHARACTER_BUDGET:
                used = CHARACTER_BUDGET
                continue
            parts.append(part)
            used += len(part) + 2
            shown_to = total
    following = shown_to + 1 if shown_to < total else None
    text = ("\n" if raw else "\n\n").join(parts)
    if not parts:
        text = f"(the transcript has {total} lines; none from line {start_line})"
    return Reading(real, root, start_line, shown_to, total, text, following)
