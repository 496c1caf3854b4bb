"""Where onlooker keeps its data: the data home, the project a directory belongs to, journal paths.

`$ONLOOKER_HOME` wins; otherwise the platform's user data directory, as platformdirs finds it (the
hook client, standard library only, finds the same one: onlooker.daemon.client.data_home).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .identity import identity_of
from .identity import project_root as project_root  # where callers have found it

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
    """The store key of the project a directory belongs to (onlooker.store.identity):
    `<folder name>-<hash of the canonical root>`; with a shared store (PostgreSQL) and a git
    `origin` remote, `<folder name>-<hash of the remote>`, the same on every machine of a team."""
    return project_key(project_root(cwd))


def project_key(root: Path, *, shared: bool | None = None) -> str:
    """The store key of the project whose canonical root is `root`; every key the store keeps
    comes from here. `shared`: whether the store is a shared one (None: as configured)."""
    identity = identity_of(root)
    if shared is None:
        shared = _shared_store_set()
    if shared and identity.shared_key is not None:
        return shared_project_key(identity.name, identity.shared_key)
    return identity.key


def shared_project_key(name: str, shared_key: str) -> str:
    """The key of a project in a shared store: its name and a hash of its remote."""
    digest = hashlib.blake2b(shared_key.encode(), digest_size=4).hexdigest()
    return f"{_UNSAFE.sub('-', name).strip('.-')[:60] or 'project'}-{digest}"


def _shared_store_set() -> bool:
    """Whether a shared store is configured: $ONLOOKER_STORE_URL, or the data home's config.yaml
    (read only when it exists)."""
    if os.environ.get(STORE_URL_VARIABLE, "").strip():
        return True
    home = data_home()
    return (home / USER_CONFIG).is_file() and bool(store_url(home))


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
