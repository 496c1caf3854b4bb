"""One change onlooker made to an instructions or prompt file, as `apply` and `rollback` return it
and `history` lists it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ._files import ABSENT


@dataclass(frozen=True, slots=True)
class AppliedChange:
    """A change to one target's file.

    `backup` holds the file as it was before (None when nothing changed, so nothing was backed
    up); `before_sha` and `after_sha` are sha256 of the whole file before and after (`absent`
    for no file). `sequence` orders the changes made to one target, across processes.
    """

    path: Path
    backup: Path | None
    before_sha: str
    after_sha: str
    timestamp: datetime
    target: str
    """The target's label: `AGENTS.md`, `CLAUDE.md`, `build prompt`."""
    action: str = "apply"
    """`apply` or `rollback`."""
    sequence: int = 0
    lines: tuple[str, ...] = ()
    """The instruction lines an apply added (or set, with replace)."""
    steps: int = 0
    """How many versions a rollback walked back."""
    section: str = ""

    @property
    def changed(self) -> bool:
        return self.before_sha != self.after_sha

    @property
    def created(self) -> bool:
        """The file did not exist before this change."""
        return self.before_sha == ABSENT

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "backup": str(self.backup) if self.backup else None,
            "before_sha": self.before_sha,
            "after_sha": self.after_sha,
            "timestamp": self.timestamp.isoformat(),
            "target": self.target,
            "action": self.action,
            "sequence": self.sequence,
            "lines": list(self.lines),
            "steps": self.steps,
            "section": self.section,
            "changed": self.changed,
        }


def change_record(change: AppliedChange) -> dict[str, Any]:
    """What the backup index keeps of a change (paths relative to its folder)."""
    record = change.to_json()
    record["backup"] = change.backup.name if change.backup else None
    del record["path"], record["changed"]
    return record


def from_record(record: dict[str, Any], path: Path, folder: Path) -> AppliedChange:
    backup = record.get("backup")
    return AppliedChange(
        path=path,
        backup=folder / backup if backup else None,
        before_sha=str(record["before_sha"]),
        after_sha=str(record["after_sha"]),
        timestamp=datetime.fromisoformat(str(record["timestamp"])),
        target=str(record["target"]),
        action=str(record.get("action", "apply")),
        sequence=int(record.get("sequence", 0)),
        lines=tuple(record.get("lines", ())),
        steps=int(record.get("steps", 0)),
        section=str(record.get("section", "")),
    )
