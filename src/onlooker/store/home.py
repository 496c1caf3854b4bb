"""Where onlooker keeps its data: the data home, the project a directory belongs to, journal paths.

`$ONLOOKER_HOME` wins; otherwise the platform's user data directory, as platformdirs finds it (the
hook client, standard library only, finds the same one: onlooker.daemon.client.data_home).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .identity import project_identity
from .identity import project_root as project_root  # where callers have found it

HOME_VARIABLE = "ONLOOKER_HOME"
APP_NAME = "onlooker"
INDEX_FILE = "onlooker.db"
MIRROR_FILE = "onlooker-vec.db"
"""sqlite-vec's copy of the vectors (only when that backend is used); rebuilt from the index."""
SNAPSHOT_DIR = "vectors"
"""Saved numpy matrices of the vectors, so a new process need not read them all from SQLite."""
JOURNALS = "journals"
MANUAL_JOURNAL = "_manual"
"""Journal stem for changes made outside any session (CLI, a tool call with no session)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def data_home() -> Path:
    """`$ONLOOKER_HOME`, else platformdirs' user data directory for onlooker: on Linux
    `$XDG_DATA_HOME/onlooker` (when that is an absolute path) or `~/.local/share/onlooker`; on macOS
    the same variable or `~/Library/Application Support/onlooker`; on Windows the local AppData
    folder's `onlooker`."""
    chosen = os.environ.get(HOME_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_data_path  # imported when no $ONLOOKER_HOME is set

    return user_data_path(APP_NAME, appauthor=False)


def project_for(cwd: str | os.PathLike[str]) -> str:
    """The store key of the project a directory belongs to (its canonical root's identity,
    onlooker.store.identity): `<folder name>-<hash of the root>`."""
    return project_identity(cwd).key


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
