"""Where the `read` tool may read: Claude Code's projects folder and onlooker's journals.

A path is resolved (symlinks followed, `..` collapsed) before it is compared with the roots, so
neither a link nor `..` leads outside them. Only `.jsonl` files are read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import RefusedPath
from ..hosts.claude_code.paths import claude_projects_dir
from ..store.home import JOURNALS, data_home

SUFFIX = ".jsonl"


@dataclass(frozen=True, slots=True)
class Root:
    """A folder transcripts may be read from."""

    name: str
    path: Path


def transcript_roots(home: Path | None = None) -> tuple[Root, ...]:
    """Claude Code's projects folder, then the journals under onlooker's data home."""
    home = home if home is not None else data_home()
    return (
        Root("claude-code", claude_projects_dir()),
        Root("onlooker", home / JOURNALS),
    )


def resolve_transcript(path: str, roots: tuple[Root, ...]) -> tuple[Path, Root]:
    """The real file `path` names and the root it lies under; RefusedPath when it is elsewhere,
    missing, not a file, or not `.jsonl`. A relative path is taken relative to each root's
    folder in turn (and to the data home, so `journals/<project>/<session>.jsonl` works)."""
    if not path.strip():
        raise RefusedPath("path is empty; give a transcript path")
    if "\x00" in path:
        raise RefusedPath("path contains a NUL character")
    given = Path(path).expanduser()
    candidates = [given] if given.is_absolute() else _relative(given, roots)
    allowed = ", ".join(str(root.path) for root in roots)
    for candidate in candidates:
        real = Path(os.path.realpath(candidate))
        root = _root_of(real, roots)
        if root is None:
            continue
        if not real.exists():
            raise RefusedPath(f"{path}: no such transcript under {root.path}")
        if not real.is_file():
            raise RefusedPath(f"{path}: not a file")
        if real.suffix != SUFFIX:
            raise RefusedPath(f"{path}: only {SUFFIX} transcripts can be read")
        return real, root
    raise RefusedPath(f"{path}: outside the transcript folders ({allowed}); refused")


def _relative(given: Path, roots: tuple[Root, ...]) -> list[Path]:
    bases = [root.path for root in roots] + [root.path.parent for root in roots]
    found = [base / given for base in bases if (base / given).exists()]
    return found or [bases[0] / given]


def _root_of(real: Path, roots: tuple[Root, ...]) -> Root | None:
    for root in roots:
        base = Path(os.path.realpath(root.path))
        if real != base and real.is_relative_to(base):
            return root
    return None
