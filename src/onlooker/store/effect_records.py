"""Side effects and compliance verdicts as stored (specs/side-effects.md): journal changes, so
`onlooker reindex` rebuilds what `onlooker side-effects` and `onlooker status` show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..core.records import record
from .changes import Change

VerdictKind = Literal["pass", "retry", "gave_up"]
VERDICTS: tuple[VerdictKind, ...] = ("pass", "retry", "gave_up")


@record("side_effect_saved")
@dataclass(frozen=True, slots=True, kw_only=True)
class SideEffectSaved(Change):
    """One thing a side effect wrote into a session's archive."""

    key: str
    """`<session>:<tool call id>:<rule>`: a replayed call finds it and does nothing again."""
    project: str
    session_id: str
    action: str
    """The rule's action (`save_work_product`, `summarize_search`, ... or a plugin's)."""
    tool: str = ""
    call_id: str = ""
    path: str = ""
    """Where it went, relative to the session's archive ('' when nothing was written)."""
    source: str = ""
    """What it came from (the project file copied, the search query), redacted."""
    sha256: str = ""
    size: int = 0
    note: str = ""
    """`unchanged` when the same content was archived already, or why nothing was written."""

    def listing(self) -> dict[str, Any]:
        """As `onlooker side-effects --json` and `status --json` show it."""
        return {
            "key": self.key, "project": self.project, "session_id": self.session_id,
            "action": self.action, "tool": self.tool, "call_id": self.call_id,
            "path": self.path, "source": self.source, "sha256": self.sha256, "size": self.size,
            "note": self.note, "at": self.at.isoformat(),
        }  # fmt: skip


@record("compliance_verdict")
@dataclass(frozen=True, slots=True, kw_only=True)
class ComplianceVerdict(Change):
    """What the compliance verifier decided when an agent stopped."""

    project: str
    session_id: str
    """The host's session (a subagent's stop belongs to its parent)."""
    agent_id: str = ""
    """The subagent's id; '' for the main agent's stop."""
    agent_type: str = ""
    """The subagent's type, or `main`."""
    verdict: VerdictKind = "pass"
    missing: tuple[str, ...] = ()
    """What the rules found missing ('' for a pass)."""
    attempt: int = 1
    """1 for the first stop, 2 for the stop after the first retry, ..."""

    def listing(self) -> dict[str, Any]:
        """As `onlooker side-effects --json` and `status --json` show it."""
        return {
            "project": self.project, "session_id": self.session_id, "agent_id": self.agent_id,
            "agent_type": self.agent_type, "verdict": self.verdict, "missing": list(self.missing),
            "attempt": self.attempt, "at": self.at.isoformat(),
        }  # fmt: skip
