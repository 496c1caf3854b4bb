"""An agent's own work products: the files its own successful calls wrote (specs/side-effects.md).

Compliance judges an agent by what it made, never by what happens to be new in the folder: two
subagents running side by side each answer for their own files. A file tool's path counts (Write,
Edit, MultiEdit, NotebookEdit); so does a path a shell command of the agent names, when the file
changed since the agent started (`cat > out.md`, `pandoc -o out.md`).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..core.events import ToolCall

FILE_WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
"""Tools whose path argument is a file they wrote."""
SHELL_TOOLS = frozenset({"Bash"})
_SHELL_WORDS = re.compile(r"[;&|<>()`]+")


@dataclass(frozen=True, slots=True)
class Products:
    """The files an agent's calls wrote, real paths inside the project."""

    written: frozenset[Path]
    """By a file tool: the agent's own for certain."""
    named: frozenset[Path]
    """Named by one of its shell commands: its own when changed since it started."""

    def own(self, path: Path, since: datetime | None) -> bool:
        real = Path(os.path.realpath(path))
        if real in self.written:
            return True
        if real not in self.named:
            return False
        return since is None or real.stat().st_mtime >= since.timestamp() - 1.0


def products(calls: Iterable[ToolCall], root: Path) -> Products:
    """What `calls` (one agent's) wrote under `root`; failed calls wrote nothing."""
    written: set[Path] = set()
    named: set[Path] = set()
    for call in calls:
        if not call.ok:
            continue
        if call.tool in FILE_WRITERS:
            written.update(_inside(root, call.paths))
        elif call.tool in SHELL_TOOLS and isinstance(command := call.input.get("command"), str):
            named.update(_inside(root, _command_words(command)))
    return Products(frozenset(written), frozenset(named - written))


def _command_words(command: str) -> list[str]:
    """The words of a shell command that may be files, split at its operators (`>out.md` gives
    `out.md`): those with a folder or a suffix."""
    try:
        words = shlex.split(_SHELL_WORDS.sub(" ", command))
    except ValueError:  # an unbalanced quote: take the plain words
        words = _SHELL_WORDS.sub(" ", command).split()
    return [w for w in words if not w.startswith("-") and ("/" in w or "." in w.strip("."))]


def _inside(root: Path, paths: Iterable[str]) -> list[Path]:
    real_root = Path(os.path.realpath(root))
    found = []
    for raw in paths:
        path = Path(os.path.realpath(root / os.path.expanduser(raw)))
        if path.is_relative_to(real_root):
            found.append(path)
    return found
