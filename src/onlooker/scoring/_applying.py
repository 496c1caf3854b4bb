"""How `apply` and `accept N` show an improvement: first what it will change (the file, the
section, the lines added, the weakness it answers, where the backup goes), then what it changed
(specs/scoring.md). Each is text for a person and the same facts as data."""

from __future__ import annotations

from typing import Any

from ..improvement import PlannedChange
from ..store.score_records import Improvement
from ._rows import improvement_row, label

Shown = tuple[str, dict[str, Any]]


def preview_shown(number: int, chosen: Improvement, planned: PlannedChange) -> Shown:
    """What accepting pending improvement `number` would change; nothing is written."""
    where = f"{label(chosen)} ({planned.path}{', a new file' if planned.creates else ''})"
    data: dict[str, Any] = {
        "preview": {
            "number": number,
            "improvement": improvement_row(chosen),
            "path": str(planned.path),
            "section": planned.section,
            "added": list(planned.lines),
            "backups": str(planned.backups),
            "creates": planned.creates,
            "changed": planned.changed,
        },
        "applied": None,
    }
    if not planned.changed:
        return (
            f"{where}: already present, nothing would change: {chosen.text}\n"
            f"  for weakness: {chosen.pattern}",
            data,
        )
    return (
        f"Improvement {number} would change {where}, {_lines(planned.section, planned.lines)}\n"
        f"  for weakness: {chosen.pattern} ({chosen.reason})\n"
        f"  backup: what the file holds now is copied into {planned.backups} first "
        f"(`onlooker observer rollback{_agent(chosen)}` undoes it)",
        data,
    )


def applied_shown(chosen: Improvement, done: Improvement, path: str, section: str,
                  lines: tuple[str, ...], backup: str, changed: bool) -> Shown:  # fmt: skip
    """What accepting the improvement changed (or that the file already held its line)."""
    where = f"{label(chosen)} ({path})"
    row = improvement_row(done)
    if not changed:
        return (
            f"{where}: already present, nothing changed: {chosen.text}\n"
            f"  for weakness: {chosen.pattern}",
            {"applied": None, "already_present": row},
        )
    return (
        f"{where} updated, {_lines(section, lines)}\n"
        f"  for weakness: {chosen.pattern}\n"
        f"  backup: {backup} (`onlooker observer rollback{_agent(chosen)}` undoes it)",
        {"applied": row, "added": list(lines), "path": path},
    )


def _lines(section: str, lines: tuple[str, ...]) -> str:
    if section:
        added = "\n".join(f"  + - {line}" for line in lines)
        return f"in section `## {section}`:\n{added}"
    return f"in its front matter:\n  + {lines[0]}"


def _agent(chosen: Improvement) -> str:
    return f" {chosen.agent_name}" if chosen.target != "agents_md" else ""
