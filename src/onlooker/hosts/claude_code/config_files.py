"""The JSON files install changes: read and parse them naming the file, write them atomically, and
keep what each held before onlooker first changed it (a backup and a manifest in the data home).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InstallError

MANIFEST = "claude-code-installs.json"


@dataclass(frozen=True, slots=True)
class Change:
    """What an install or uninstall did (or would do, on a dry run) to one file."""

    path: Path
    before: str | None
    after: str | None
    events: tuple[str, ...] = ()
    backup: Path | None = None
    changed: bool = False
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": str(self.path),
            "changed": self.changed,
            "events": list(self.events),
            "backup": str(self.backup) if self.backup else None,
            "notes": list(self.notes),
        }


def read_text(path: Path) -> str | None:
    """The file's text, or None when there is no file."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None


def parse_object(path: Path, text: str | None) -> dict[str, Any]:
    """The JSON object a file holds ({} for no file or an empty one)."""
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it, then install again"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} must hold a JSON object, found {type(data).__name__}")
    return data


def write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace the file's content in one step (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.onlooker-{time.time_ns()}")
    temporary.write_text(text, encoding="utf-8")
    if mode is not None:
        temporary.chmod(mode)
    temporary.replace(path)


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def manifest(home: Path) -> dict[str, Any]:
    """What install changed, by file: its backup and whether it existed before."""
    try:
        data = json.loads((home / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_manifest(home: Path, data: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    write_text(home / MANIFEST, json.dumps(data, indent=2) + "\n")


def remember_original(path: Path, before: str | None, home: Path) -> Path | None:
    """Back the file up in the data home; the first install's original is kept for uninstall."""
    backup = None
    if before is not None:
        folder = home / "backups" / "claude-code"
        folder.mkdir(parents=True, exist_ok=True)
        backup = folder / f"{path.parent.parent.name or 'home'}-{path.name}.{time.time_ns()}.bak"
        backup.write_text(before, encoding="utf-8")
    recorded = manifest(home)
    if str(path) not in recorded:
        recorded[str(path)] = {
            "backup": str(backup) if backup else None,
            "existed": before is not None,
            # the folders install creates for it, removed again by uninstall when left empty
            "folders": [str(f) for f in _missing_folders(path.parent)],
        }
        save_manifest(home, recorded)
    return backup


def write_changed(
    path: Path, before: str | None, after: str, home: Path, *, changed: bool, dry_run: bool
) -> Path | None:
    """Install's write: `after` into `path` when it changed (not on a dry run), the original
    remembered first; the backup made, if any."""
    if not changed or dry_run:
        return None
    backup = remember_original(path, before, home)
    write_text(path, after)
    return backup


def put_back(path: Path, after: str | None) -> None:
    """Uninstall's write: `after` into `path`, or the file removed when there was none before."""
    if after is None:
        path.unlink()
    else:
        write_text(path, after)


def original_text(entry: Any) -> str | None:
    """The text a file held before the first install (None: there was no file, or it is lost)."""
    if not isinstance(entry, dict) or not entry.get("existed"):
        return None
    try:
        return Path(str(entry["backup"])).read_text(encoding="utf-8")
    except (OSError, KeyError):
        return None


def forget(home: Path, path: Path) -> None:
    """Drop the file from the manifest (after an uninstall restored it); the folders install
    created for it go too, when the file is gone and nothing else is in them."""
    recorded = manifest(home)
    entry = recorded.pop(str(path), None)
    if entry is None:
        return
    save_manifest(home, recorded)
    folders = entry.get("folders", []) if isinstance(entry, dict) else []
    if not path.exists():
        for folder in (Path(f) for f in folders):  # deepest first
            try:
                folder.rmdir()
            except OSError:
                break  # not empty (or gone): its parents are kept too


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing
