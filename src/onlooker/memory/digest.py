"""Memories by rule, with no model (specs/memory.md): what a session's compressed events say for
certain, in a few lines: files created and changed, commands with their outcome, errors that were
then fixed. Used when no extraction model is configured.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime

from ..store.memory_records import PendingEvent
from ._memories import Extracted

_CHANGED = re.compile(r"^(Created|Updated|Edited) (.+?)(?: \(\d+ lines\)|: .*)?$")
_RAN = re.compile(r"^Ran `(.+)` → (exit (-?\d+)(?:: (.*))?|interrupted)$")
MOST_FILES = 8
"""Files named in one memory; more are counted."""
MOST_COMMANDS = 4


def rule_memories(batch: Sequence[PendingEvent]) -> list[Extracted]:
    """What the events of one batch say by rule: at most one memory each for the files changed,
    the errors fixed, the commands still failing and the commands that worked."""
    if not batch:
        return []
    when = batch[-1].timestamp
    changed: dict[str, str] = {}
    outcomes: dict[str, list[tuple[int, str, int]]] = {}
    for position, event in enumerate(batch):
        found = _CHANGED.match(event.compressed)
        if found:
            verb, path = found.group(1), found.group(2)
            was_created = verb == "Created" or changed.get(path) == "created"
            changed[path] = "created" if was_created else "changed"
            continue
        ran = _RAN.match(event.compressed)
        if ran:
            code = int(ran.group(3)) if ran.group(3) is not None else 130
            outcomes.setdefault(ran.group(1), []).append((code, ran.group(4) or "", position))
    return [m for m in (_files(changed, when), *_commands(outcomes, batch, when)) if m]


def _files(changed: dict[str, str], when: datetime) -> Extracted | None:
    if not changed:
        return None
    created = [p for p, how in changed.items() if how == "created"]
    edited = [p for p, how in changed.items() if how == "changed"]
    parts = []
    if created:
        parts.append(f"Created {_listed(created)}.")
    if edited:
        parts.append(f"Changed {_listed(edited)}.")
    names = ", ".join(os.path.basename(p) for p in list(changed)[:3])
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    return Extracted(f"Files worked on: {names}{more}", " ".join(parts), when, tuple(changed))


def _commands(
    outcomes: dict[str, list[tuple[int, str, int]]], batch: Sequence[PendingEvent], when: datetime
) -> list[Extracted | None]:
    fixed, failing, working = [], [], []
    for command, runs in outcomes.items():
        last_code = runs[-1][0]
        errors = [error for code, error, _ in runs if code != 0 and error]
        if last_code == 0 and errors:
            first_fail = next(pos for code, _, pos in runs if code != 0)
            edits = _edited_between(batch, first_fail, runs[-1][2])
            how = f" after changing {_listed(edits)}" if edits else ""
            fixed.append(f"`{command}` failed ({errors[-1]}) and then passed{how}.")
        elif last_code != 0:
            failing.append(f"`{command}` still fails: {errors[-1] if errors else 'no output'}.")
        else:
            working.append(f"`{command}`")
    found = (
        ("Errors fixed", " ".join(fixed[:MOST_COMMANDS])),
        ("Commands still failing", " ".join(failing[:MOST_COMMANDS])),
        ("Commands that worked", ", ".join(working[:MOST_COMMANDS])),
    )
    return [Extracted(title, text, when) if text else None for title, text in found]


def _edited_between(batch: Sequence[PendingEvent], start: int, end: int) -> list[str]:
    paths: dict[str, None] = {}
    for event in batch[start + 1 : end]:
        found = _CHANGED.match(event.compressed)
        if found:
            paths[found.group(2)] = None
    return list(paths)


def _listed(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:MOST_FILES])
    return f"{shown} and {len(paths) - MOST_FILES} more" if len(paths) > MOST_FILES else shown
