"""Reversible changes to a project's instructions file and its agents' prompt files.

Only the managed section (`## Observer Inferred Instructions`) changes; each write is locked
across processes, backed up first, and atomic. See specs/improvement.md.
"""

from ._apply import (
    BACKUP_MAX_VERSIONS,
    LockSettings,
    apply_instructions,
    current_text,
    history,
    managed_lines,
    rollback,
    rollback_depth,
)
from ._change import AppliedChange
from ._description import agent_description, describe_agent
from ._lock import STALE_AFTER
from ._preview import PlannedChange, preview_description, preview_instructions
from ._section import MANAGED_BY, SECTION, clean_lines
from ._target import HOSTS, InstructionTarget

__all__ = [
    "BACKUP_MAX_VERSIONS",
    "HOSTS",
    "MANAGED_BY",
    "SECTION",
    "STALE_AFTER",
    "AppliedChange",
    "InstructionTarget",
    "LockSettings",
    "PlannedChange",
    "agent_description",
    "apply_instructions",
    "clean_lines",
    "current_text",
    "describe_agent",
    "history",
    "managed_lines",
    "preview_description",
    "preview_instructions",
    "rollback",
    "rollback_depth",
]
