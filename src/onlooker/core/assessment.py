"""What observers produce: an Assessment (one run's message to the agent) made of Findings.

`Assessment.render()` gives the trajectory assessment text (specs/engine.md). Severities are
critical|high|medium|low|info; the older caution|warning are accepted and mean medium|high.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from .events import EPOCH
from .records import Record, record

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
SEVERITY_ALIASES = {"caution": "medium", "warning": "high"}
_RANK = {name: len(SEVERITIES) - i for i, name in enumerate(SEVERITIES)}


def severity(value: str) -> Severity:
    """The canonical severity for `value` (aliases accepted); ValueError says what is allowed."""
    name = SEVERITY_ALIASES.get(value, value)
    if name not in _RANK:
        allowed = ", ".join((*SEVERITIES, *SEVERITY_ALIASES))
        raise ValueError(f"severity {value!r} is not one of: {allowed}")
    return name


def severity_rank(value: str) -> int:
    """5 for critical down to 1 for info."""
    return _RANK[severity(value)]


def is_warning(value: str) -> bool:
    """Medium or above: the level a user notices."""
    return severity_rank(value) >= _RANK["medium"]


@record("finding")
@dataclass(frozen=True, slots=True, kw_only=True)
class Finding(Record):
    """One thing an observer noticed; stored findings carry a lifecycle (open → resolved, or
    expired when its session or episode ended without anyone acting)."""

    content: str
    """What was noticed (rendered after the category)."""
    category: str = ""
    """loop, error_rate, drift, stall, security, quality …"""
    evidence: str | None = None
    """The tool calls or lines it rests on."""
    id: str = field(default_factory=lambda: os.urandom(16).hex())
    observer: str = ""
    severity: Severity = "info"
    status: Literal["open", "acknowledged", "resolved", "expired"] = "open"
    created_at: datetime | None = None
    acknowledged_at: datetime | None = None
    resolved_at: datetime | None = None
    """When it was closed: resolved, or expired."""
    resolution_note: str | None = None
    """The note of whoever resolved it, or why it expired."""
    source_type: str = "conversation"
    """file | conversation | mixed"""
    source_ref: str | None = None
    """A file path (with :line) or a message / tool-call reference."""
    metadata: dict[str, Any] = field(default_factory=dict)
    session_id: str = ""
    project: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", severity(self.severity))

    @property
    def description(self) -> str:
        """The content, under the name trajectory observers give it."""
        return self.content

    def render(self) -> str:
        return f"• {self.category}: {self.content}" if self.category else f"• {self.content}"


@record("assessment")
@dataclass(frozen=True, slots=True, kw_only=True)
class Assessment(Record):
    """One observer run's message to the agent."""

    observer_name: str = ""
    summary: str = ""
    findings: tuple[Finding, ...] = ()
    suggestions: tuple[str, ...] = ()
    severity: Severity = "info"
    timestamp: datetime = EPOCH
    call_index: int = 0
    """Tool-call count of the session when the assessment was made."""
    status: bool = False
    """A status line (time left, plan steps), not trouble: never stored as a finding, told as one
    line (specs/engine.md, Feedback)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", severity(self.severity))
        object.__setattr__(self, "findings", tuple(self.findings))
        object.__setattr__(self, "suggestions", tuple(self.suggestions))

    def render(self) -> str:
        """Concise text for context injection, in the assessment format of specs/engine.md."""
        lines = [f"[Trajectory Assessment - {self.observer_name}]", "", self.summary]
        if self.findings:
            lines.append("")
            lines.extend(finding.render() for finding in self.findings)
        if self.suggestions:
            lines.append("")
            lines.extend(f"→ {suggestion}" for suggestion in self.suggestions)
        return "\n".join(lines)


@record("observer_failure")
@dataclass(frozen=True, slots=True, kw_only=True)
class ObserverFailure(Record):
    """An observer raised or ran out of time; recorded instead of reaching the agent."""

    observer: str
    error: str
    at: datetime = EPOCH
    call_index: int = 0
    timed_out: bool = False
