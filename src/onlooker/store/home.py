"""Where onlooker keeps its data: the data home, the project a directory belongs to, journal paths.

`$ONLOOKER_HOME` wins; otherwise the platform's user data directory, as platformdirs finds it (the
hook client, standard library only, finds the same one: onlooker.daemon.client.data_home).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

HOME_VARIABLE = "ONLOOKER_HOME"
STORE_URL_VARIABLE = "ONLOOKER_STORE_URL"
"""A PostgreSQL URL: the index lives there, shared by a team (else onlooker.db, SQLite)."""
USER_CONFIG = "config.yaml"
"""The user's own settings, in the data home: `store: {url: postgresql://...}`."""
ORIGIN_FILE = "origin"
"""A random id of the data home, naming its journals in a shared store."""
APP_NAME = "onlooker"
INDEX_FILE = "onlooker.db"
MIRROR_FILE = "onlooker-vec.db"
"""sqlite-vec's copy of the vectors (only when that backend is used); rebuilt from the index."""
SNAPSHOT_DIR = "vectors"
"""Saved numpy matrices of the vectors, so a new process need not read them all from SQLite."""
JOURNALS = "journals"
MANUAL_JOURNAL = "_manual"
"""Journal stem for changes made outside any session (CLI, a tool call with no session)."""

PROJECT_MARKERS = (".onlooker", "onlooker.yaml", ".git")
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
    """The project a directory belongs to: the name of the nearest folder with a project marker
    (.onlooker, onlooker.yaml, .git) at or above it, else the directory's own name."""
    return project_key(project_root(cwd))


def project_key(root: Path) -> str:
    """What the store calls the project at `root`: every project name the store keeps comes
    from here (through `project_for`), so a shared store can key projects by what is the same on
    every machine of a team."""
    return root.name or "root"


def store_url(home: Path) -> str:
    """Where the index lives: `$ONLOOKER_STORE_URL`, else `store.url` in the data home's
    config.yaml, else '' (onlooker.db in the data home)."""
    chosen = os.environ.get(STORE_URL_VARIABLE, "").strip()
    if chosen:
        return chosen
    path = home / USER_CONFIG
    if not path.is_file():
        return ""
    from ..errors import StoreError

    try:
        import yaml
    except ImportError:
        raise StoreError(
            f"{path}: reading it needs PyYAML: pip install 'onlooker[config]'"
        ) from None
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise StoreError(f"{path}: cannot read the user config ({exc})") from None
    store = document.get("store", {}) if isinstance(document, dict) else None
    url = store.get("url", "") if isinstance(store, dict) else None
    if not isinstance(url, str):
        raise StoreError(f"{path}: store.url must be a postgresql:// URL (a string)")
    return url.strip()


def home_origin(home: Path) -> str:
    """The data home's id (made once, kept in `origin`): a shared store keys its journals by it,
    as two machines' journals have the same paths."""
    path = home / ORIGIN_FILE
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    home.mkdir(parents=True, exist_ok=True)
    draft = home / f".{ORIGIN_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
    draft.write_text(os.urandom(8).hex() + "\n", encoding="ascii")
    try:
        os.link(draft, path)  # atomic: the first process to link names the data home
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_text(encoding="ascii").strip()


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
