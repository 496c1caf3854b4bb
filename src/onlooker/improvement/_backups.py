"""A target's backups: one file per change, holding what the file was before it, and an index.

`<project>/.onlooker/backups/<target>/` holds one file per backup, named like
`2026-05-15T10-30-00.123456Z-000007--pre-improvement.md` (UTC time, then a counter that only
grows, so two names never collide), and `index.json`:

- `counter`: the last counter handed out (also each change's `sequence`);
- `stack`: the versions rollback walks back through, newest last;
- `changes`: what was applied and rolled back, oldest first;
- `pending`: the state to commit once the file is replaced. A writer killed before that leaves
  it behind; the next reader commits it if the file holds the new version and drops it if not.

Everything here runs under the target file's lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import ImprovementError
from ._files import write_atomically

INDEX = "index.json"
_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?Z-(\d+)--[\w.-]+$")


@dataclass(slots=True)
class BackupIndex:
    """The index of one target's backup folder (see the module docstring)."""

    counter: int = 0
    stack: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None

    def state(self) -> dict[str, Any]:
        return {"stack": self.stack, "changes": self.changes}


class BackupFolder:
    """The backup folder of one target."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load(self, current_sha: str) -> BackupIndex:
        """The index, with a pending change committed when the file holds its result."""
        path = self.folder / INDEX
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return BackupIndex()
        except (OSError, ValueError) as error:
            raise ImprovementError(f"{path}: the backup index cannot be read: {error}") from None
        try:
            index = BackupIndex(
                int(raw["counter"]), list(raw["stack"]), list(raw["changes"]), raw.get("pending")
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ImprovementError(f"{path}: the backup index lacks {error}") from None
        if index.pending is not None:
            if index.pending.get("after_sha") == current_sha:
                index.stack = list(index.pending["state"]["stack"])
                index.changes = list(index.pending["state"]["changes"])
            index.pending = None
        return index

    def save(self, index: BackupIndex) -> None:
        data = {
            "counter": index.counter,
            "stack": index.stack,
            "changes": index.changes,
            "pending": index.pending,
        }
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        write_atomically(self.folder / INDEX, text.encode("utf-8"))

    def write(
        self, index: BackupIndex, data: bytes, when: datetime, reason: str, suffix: str
    ) -> str:
        """Write a backup holding `data`; returns its file name. Never overwrites one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = when.strftime("%Y-%m-%dT%H-%M-%S.%fZ")
        while True:
            index.counter += 1
            name = f"{stamp}-{index.counter:06d}--{reason}{suffix}"
            try:
                fd = os.open(self.folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            return name

    def read(self, name: str) -> bytes:
        path = self.folder / name
        try:
            return path.read_bytes()
        except OSError as error:
            raise ImprovementError(f"{path}: the backup cannot be read: {error.strerror}") from None

    def names(self) -> list[str]:
        """Backup file names, oldest (lowest counter) first."""
        try:
            entries = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        found = [(int(m.group(1)), n) for n in entries if (m := _NAME.match(n))]
        return [name for _, name in sorted(found)]

    def plan_pruning(self, index: BackupIndex, max_versions: int) -> list[str]:
        """Trim the index to `max_versions` backups and return the files to delete after it is
        saved. The rollback stack, newest first, is kept before any other backup, so what the
        next rollback needs is never pruned."""
        if max_versions < 1:
            raise ImprovementError(f"backup_max_versions: must be 1 or more, not {max_versions}")
        index.stack = index.stack[-max_versions:]
        keep = [entry["backup"] for entry in reversed(index.stack)]
        for name in reversed(self.names()):
            if len(keep) >= max_versions:
                break
            if name not in keep:
                keep.append(name)
        kept = set(keep)
        index.changes = [c for c in index.changes if c.get("backup") in kept]
        return [name for name in self.names() if name not in kept]

    def delete(self, names: list[str]) -> None:
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
