"""Where onlooker keeps its data: the data home, the project a directory belongs to, journal paths.

`$ONLOOKER_HOME` wins; otherwise the platform's user data directory (XDG on Linux), found with the
standard library alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

HOME_VARIABLE = "ONLOOKER_HOME"
INDEX_FILE = "onlooker.db"
JOURNALS = "journals"
MANUAL_JOURNAL = "_manual"
"""Journal stem for changes made outside any session (CLI, a tool call with no session)."""

PROJECT_MARKERS = (".onlooker", "onlooker.yaml", ".git")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def data_home() -> Path:
    """`$ONLOOKER_HOME`, else the user data dir: XDG, Application Support or LOCALAPPDATA."""
    chosen = os.environ.get(HOME_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "onlooker"


def project_for(cwd: str | os.PathLike[str]) -> str:
    """The project a directory belongs to: the name of the nearest folder with a project marker
    (.onlooker, onlooker.yaml, .git) at or above it, else the directory's own name."""
    return project_root(cwd).name or "root"


def project_root(cwd: str | os.PathLike[str]) -> Path:
    """The nearest folder at or above `cwd` with a project marker, else `cwd` itself."""
    start = Path(cwd).expanduser().absolute()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


def safe_name(name: str) -> str:
    """A file-name-safe form of `name`; a short hash is added when characters had to change."""
    cleaned = _UNSAFE.sub("-", name).strip(".-")[:80]
    if cleaned == name and not cleaned.startswith("_"):
        return cleaned
    digest = hashlib.blake2b(name.encode(), digest_size=4).hexdigest()
    return f"{cleaned or 'x'}-{digest}"


def journal_path(home: Path, project: str, session_id: str = "") -> Path:
    """`journals/<project>/<session>.jsonl`; `_manual.jsonl` when there is no session."""
    stem = safe_name(session_id) if session_id else MANUAL_JOURNAL
    return home / JOURNALS / safe_name(project or "default") / f"{stem}.jsonl"


def journal_paths(home: Path) -> list[Path]:
    """Every journal in the data home, in a stable order."""
    root = home / JOURNALS
    if not root.is_dir():
        return []
    return sorted(root.glob("*/*.jsonl"))
