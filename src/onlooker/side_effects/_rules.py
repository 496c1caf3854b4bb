"""Side-effect rules: which tool calls (a tool matcher, an optional path or output condition) set
off which action, and the limits every action keeps (specs/side-effects.md)."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.events import ToolCall

FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
SEARCH_TOOLS = ("WebSearch", "WebFetch")
EXEC_TOOLS = ("Bash",)
MEDIA_EXTENSIONS = (
    "mp4", "mov", "mkv", "webm", "avi", "m4v", "mp3", "wav", "m4a", "flac", "ogg", "aac",
    "png", "jpg", "jpeg", "gif", "webp", "svg",
)  # fmt: skip
MEDIA_NAME = re.compile(
    r"(?<![\w.])((?:[\w~.-]+/)*[\w.-]+\.(?:" + "|".join(MEDIA_EXTENSIONS) + r"))\b", re.IGNORECASE
)
"""A file name with a media extension, as tool results print them (`out/clip.mp4`)."""

#: Action -> the tools that set it off when a rule names none.
DEFAULT_TOOLS: dict[str, tuple[str, ...]] = {
    "save_work_product": FILE_TOOLS,
    "summarize_search": SEARCH_TOOLS,
    "activity_log": EXEC_TOOLS,
    "collect_media": ("Bash", "mcp__*"),
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One side effect: the tool calls that set it off and the action that runs."""

    action: str
    tools: tuple[str, ...] = ()
    """Tool-name patterns (`Write`, `mcp__search__*`, `mcp__*__web_search`); () = the action's
    default tools."""
    name: str = ""
    """Its name in listings and in the replay key; default: the action."""
    path: str = ""
    """Only calls whose file path (relative to the project) matches this glob (`*` crosses
    folders: `work_products/*`)."""
    output: str = ""
    """Only calls whose result text matches this regular expression."""
    options: dict[str, Any] = field(default_factory=dict)
    """Settings for the action (a plugin action's own, or `extensions` for collect_media)."""

    @property
    def label(self) -> str:
        return self.name or self.action

    def patterns(self) -> tuple[str, ...]:
        return self.tools or DEFAULT_TOOLS.get(self.action, ())

    def matches(self, call: ToolCall, root: Path | None) -> bool:
        """Whether `call` sets this rule off (cheap: the hook asks it of every call)."""
        if not call.ok or not any(fnmatch.fnmatchcase(call.tool, p) for p in self.patterns()):
            return False
        if self.path and not any(_path_matches(self.path, p, root) for p in call.paths):
            return False
        if self.output and not re.search(self.output, call.output):
            return False
        if self.action == "collect_media" and not self.output:
            return MEDIA_NAME.search(call.output) is not None
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action, "tools": list(self.tools), "name": self.name,
            "path": self.path, "output": self.output, "options": dict(self.options),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        return cls(
            action=str(data["action"]), tools=tuple(data.get("tools") or ()),
            name=str(data.get("name") or ""), path=str(data.get("path") or ""),
            output=str(data.get("output") or ""), options=dict(data.get("options") or {}),
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Limits:
    """What one session's archive may take."""

    max_file_bytes: int = 10 * 1024 * 1024
    """A larger work product or media file is not copied (noted instead)."""
    max_summary_bytes: int = 64 * 1024
    """A search summary is clipped to this."""
    max_log_bytes: int = 1024 * 1024
    """The activity log rolls over to `activity.1.log` past this (so it keeps twice this)."""
    max_archive_bytes: int = 200 * 1024 * 1024
    """Past this, a session's archive takes nothing more (noted instead)."""

    def to_dict(self) -> dict[str, int]:
        return {
            "max_file_bytes": self.max_file_bytes, "max_summary_bytes": self.max_summary_bytes,
            "max_log_bytes": self.max_log_bytes, "max_archive_bytes": self.max_archive_bytes,
        }  # fmt: skip


def default_rules() -> tuple[Rule, ...]:
    """The four built-in side effects with their default tools."""
    return tuple(Rule(action) for action in DEFAULT_TOOLS)


@dataclass(frozen=True, slots=True)
class SideEffectSettings:
    """The `side_effects` section: the rules, where the archive is, and its limits."""

    rules: tuple[Rule, ...] = field(default_factory=default_rules)
    archive: str = ""
    """The archive folder ('' = `<data home>/archive`); sessions go in `<project>/<session>/`."""
    limits: Limits = field(default_factory=Limits)

    def due(self, call: ToolCall, root: Path | None) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if rule.matches(call, root))

    def archive_root(self, home: Path) -> Path:
        return Path(os.path.expanduser(self.archive)) if self.archive else home / "archive"

    def to_dict(self) -> dict[str, Any]:
        return {
            "archive": self.archive, "limits": self.limits.to_dict(),
            "rules": [rule.to_dict() for rule in self.rules],
        }  # fmt: skip


def _path_matches(pattern: str, path: str, root: Path | None) -> bool:
    candidates = [path]
    if root is not None and os.path.isabs(path):
        with contextlib.suppress(ValueError):
            candidates.append(Path(path).relative_to(root).as_posix())
    return any(fnmatch.fnmatchcase(c, pattern) or fnmatch.fnmatchcase(c, f"*/{pattern}")
               for c in candidates)  # fmt: skip
