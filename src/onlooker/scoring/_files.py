"""The files an improvement changes: the project's instructions file and each agent's prompt file.

Reading them (for the judge) is done here; writing them (managed section, lock, atomic replace,
backup, rollback, history) is `onlooker.improvement`'s, reached through `InstructionFiles`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
AGENT_FOLDERS = {
    "claude_code": Path(".claude") / "agents",
    "opencode": Path(".opencode") / "agents",
}
READ_LIMIT = 64 * 1024


class InstructionFiles(Protocol):
    """What improvements need of the file writer (the `onlooker.improvement` module)."""

    def project_target(self, root: Path, filename: str | None) -> Any: ...
    def agent_target(self, root: Path, agent_name: str, host: str) -> Any: ...
    def apply(self, target: Any, lines: list[str], section: str) -> Any: ...
    def rollback(self, target: Any, steps: int) -> Any: ...
    def history(self, target: Any) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class ImprovementModule:
    """`InstructionFiles` over the `onlooker.improvement` package."""

    module: Any

    def project_target(self, root: Path, filename: str | None) -> Any:
        return self.module.InstructionTarget.project(root, filename)

    def agent_target(self, root: Path, agent_name: str, host: str) -> Any:
        return self.module.InstructionTarget.agent(root, agent_name, host=host)

    def apply(self, target: Any, lines: list[str], section: str) -> Any:
        return self.module.apply_instructions(target, lines, section=section)

    def rollback(self, target: Any, steps: int) -> Any:
        return self.module.rollback(target, steps)

    def history(self, target: Any) -> list[Any]:
        return list(self.module.history(target))


def instruction_files() -> InstructionFiles:
    """The file writer (imported by name: it is a package of its own, loaded only to write)."""
    return ImprovementModule(importlib.import_module("onlooker.improvement"))


def instructions_path(root: Path, filename: str = "") -> Path | None:
    """The project's instructions file: `filename` when set, else AGENTS.md, else CLAUDE.md."""
    names = (filename,) if filename else INSTRUCTION_FILES
    for name in names:
        if (root / name).is_file():
            return root / name
    return None


def agent_prompt_path(root: Path, agent_name: str) -> tuple[Path, str] | None:
    """An agent's prompt file and its host (Claude Code's first, then opencode's)."""
    if not agent_name or "/" in agent_name or agent_name.startswith("."):
        return None
    for host, folder in AGENT_FOLDERS.items():
        path = root / folder / f"{agent_name}.md"
        if path.is_file():
            return path, host
    return None


def read_text(path: Path | None) -> str | None:
    """A file's text (its first 64 KiB), None when it is missing or unreadable."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(READ_LIMIT)
    except OSError:
        return None
