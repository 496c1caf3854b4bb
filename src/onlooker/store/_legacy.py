"""Stores from before project identities: their journals sit under the bare folder name
(`journals/api/`). Each session journal whose `session_started` names a working directory whose
root still resolves moves to its project's key (copy, then rename, then remove: never lost); the
index is then rebuilt from the journals (specs/store.md, Stores from before project identities).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .home import JOURNALS, MANUAL_JOURNAL
from .identity import _KEYED, PROJECT_MARKERS, ProjectIdentity, display_name, project_identity

UPGRADE = "project_keys"
"""The name of this upgrade in the index's `upgrades` table (migration m009_project_keys)."""
_HEAD_LINES = 20


@dataclass(frozen=True, slots=True)
class Move:
    """One legacy session journal and where it belongs."""

    source: Path
    target: Path

    @property
    def session_id(self) -> str:
        return self.source.stem


def legacy_moves(home: Path) -> list[Move]:
    """The session journals under legacy (unkeyed) folders whose session's root still resolves."""
    root = home / JOURNALS
    if not root.is_dir():
        return []
    moves = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not _KEYED.match(p.name)):
        for journal in sorted(folder.glob("*.jsonl")):
            if journal.stem == MANUAL_JOURNAL:
                continue
            identity = _identity(_session_cwd(journal))
            if identity is None or folder.name not in (identity.name, display_name(identity.key)):
                continue  # unknown, gone, or no longer of that name: do not guess
            moves.append(Move(journal, root / identity.key / journal.name))
    return moves


def adopt_legacy_journals(home: Path) -> list[Move]:
    """Move each legacy session journal to its project's key; idempotent and crash-safe: the
    copy is complete (and synced) before it takes the target's name, and the source is removed
    only then. A target already there from an interrupted run is kept when it is as long."""
    done = []
    for move in legacy_moves(home):
        move.target.parent.mkdir(parents=True, exist_ok=True)
        size = move.source.stat().st_size
        if not (move.target.exists() and move.target.stat().st_size >= size):
            partial = move.target.with_name(move.target.name + ".moving")
            shutil.copy2(move.source, partial)
            with open(partial, "rb") as copied:
                os.fsync(copied.fileno())
            os.replace(partial, move.target)
        move.source.unlink()
        done.append(move)
    return done


def keyed_project(project: str, journal_key: str) -> str:
    """The project a journaled change belongs to: a legacy bare name in a journal filed under a
    key of that name is that key's (the journal was moved there); anything else is unchanged."""
    folder = journal_key.split("/")[1] if journal_key.count("/") >= 2 else ""
    if folder and project == display_name(folder) and project != folder:
        return folder
    return project


def _identity(cwd: str) -> ProjectIdentity | None:
    """The identity of the project `cwd` belonged to, when its root still resolves: a folder with
    a project marker at or above the nearest folder of `cwd` still there, or `cwd` itself."""
    if not cwd or not os.path.isabs(cwd):
        return None
    here = Path(cwd)
    while not here.is_dir() and here != here.parent:
        here = here.parent
    identity = project_identity(here)
    marked = any((identity.root / marker).exists() for marker in PROJECT_MARKERS)
    return identity if marked or identity.root == Path(cwd).resolve() else None


def _session_cwd(journal: Path) -> str:
    """The working directory the session's first `session_started` names ('' when none)."""
    try:
        with open(journal, encoding="utf-8", errors="replace") as lines:
            for _, line in zip(range(_HEAD_LINES), lines, strict=False):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("kind") == "session_started":
                    return str(record.get("cwd") or "")
    except OSError:
        return ""
    return ""
