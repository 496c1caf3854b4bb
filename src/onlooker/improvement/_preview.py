"""What an apply or a description change would do, read without the lock and without writing
anything: the file, the section, the lines it would add, where the backup would go
(specs/improvement.md). The write itself reads the file again under the lock."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ._apply import added_lines, current_text
from ._description import KEY, check_describable, with_description
from ._files import read_bytes
from ._section import MANAGED_BY, SECTION, clean_lines, inject
from ._target import InstructionTarget


@dataclass(frozen=True, slots=True)
class PlannedChange:
    """A change not made yet: what `apply_instructions` or `describe_agent` would write."""

    path: Path
    target: str
    """The target's label: `AGENTS.md`, `CLAUDE.md`, `build prompt`."""
    lines: tuple[str, ...]
    """The lines it would add to the section (or the front matter's `description:` line)."""
    section: str
    """The managed section ('' for a description, which goes in the front matter)."""
    backups: Path
    """The folder the backup of the current file would go to."""
    changed: bool
    """False when the file already holds it: an apply would write nothing."""
    creates: bool
    """The file does not exist yet: the apply would create it."""


def preview_instructions(
    target: InstructionTarget,
    lines: list[str],
    *,
    section: str = SECTION,
    managed_by: str = MANAGED_BY,
    replace: bool = False,
) -> PlannedChange:
    """What `apply_instructions(target, lines, …)` would change now."""
    wanted = clean_lines(lines)
    text = current_text(target)
    new = inject(text, section, wanted, managed_by=managed_by, replace=replace)
    added = tuple(wanted if replace else added_lines(text, section, wanted))
    return _planned(target, new != text, added, section)


def preview_description(target: InstructionTarget, description: str) -> PlannedChange:
    """What `describe_agent(target, description)` would change now."""
    wanted = check_describable(target, description)
    text = current_text(target)
    return _planned(target, with_description(text, wanted) != text, (f"{KEY} {wanted}",), "")


def _planned(
    target: InstructionTarget, changed: bool, lines: tuple[str, ...], section: str
) -> PlannedChange:
    return PlannedChange(
        target.path, target.label, lines if changed else (), section, target.backups, changed,
        creates=read_bytes(target.path) is None,
    )  # fmt: skip
