"""What a report shows, as plain values: per project its activity over time, open findings,
sessions with their timelines, reviewer costs and memory counts; and session scores per agent.

The collectors (`report_from_store`, and replay's `report_from_transcripts`) fill it; `render_html`
draws it. Everything here is already aggregated: a report of 100k findings holds counts, not rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..core.clock import parse_time, utc

TimelineKind = Literal["prompt", "tool", "assessment", "failure", "report", "event"]
MarkerKind = Literal["applied", "rolled_back", "delta"]
MARKER_KINDS: tuple[MarkerKind, ...] = ("applied", "rolled_back", "delta")


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One moment of a session: a tool call, an assessment where it was delivered, a failure."""

    at: datetime
    kind: TimelineKind
    label: str
    """Short: `call 12 · Bash`, `stall · after call 12 · Bash`."""
    call_index: int = 0
    ok: bool = True
    """False for a failed tool call or an observer failure."""
    severity: str = ""
    """For assessments and reports."""
    text: str = ""
    """The assessment's text as delivered, the error, the prompt (clipped)."""


@dataclass(frozen=True, slots=True)
class SessionReport:
    """One session: its counts, and its timeline when the report shows it in detail."""

    session_id: str
    project: str
    started: datetime | None
    ended: datetime | None
    agent: str = ""
    tool_calls: int = 0
    failed_calls: int = 0
    assessments: int = 0
    warnings: int = 0
    """Assessments at medium severity or above."""
    observer_failures: int = 0
    findings: int = 0
    timeline: tuple[TimelineEntry, ...] = ()
    tool_times: tuple[tuple[datetime, bool], ...] = ()
    """Every tool call's time and whether it succeeded: the timeline strip."""


@dataclass(frozen=True, slots=True)
class OpenFinding:
    id: str
    observer: str
    severity: str
    status: str
    content: str
    evidence: str
    category: str
    session_id: str
    created_at: datetime | None
    occurrences: int = 1
    source_ref: str = ""


@dataclass(frozen=True, slots=True)
class ReviewerCost:
    """One observer's runs: by status, tokens, cost (None: no known price) and time."""

    observer: str
    runs: int
    by_status: Mapping[str, int]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    seconds: float
    models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryCounts:
    memories: int = 0
    new_since: int = 0
    """Memories created in the report's period (all of them when it has no --since)."""
    pending_events: int = 0
    injections: int = 0
    """Times a memory was shown to a session."""


@dataclass(frozen=True, slots=True)
class Activity:
    """Counts per time bucket: `starts` are the buckets' starts (UTC), every series as long."""

    starts: tuple[datetime, ...] = ()
    width_seconds: int = 3600
    tool_calls: tuple[int, ...] = ()
    warnings: tuple[int, ...] = ()
    findings_by_severity: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    findings_by_observer: Mapping[str, tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProjectReport:
    name: str
    """The name shown: the project's folder name."""
    sessions: tuple[SessionReport, ...]
    """Newest first; only the first `detailed` have a timeline."""
    activity: Activity
    open_findings: tuple[OpenFinding, ...]
    """The most severe unresolved findings, at most the report's limit."""
    open_total: int
    findings_total: int
    findings_by_severity: Mapping[str, int]
    findings_by_observer: Mapping[str, int]
    reviewers: tuple[ReviewerCost, ...] = ()
    memory: MemoryCounts | None = None
    """None when the source keeps no memory (recorded transcripts)."""
    key: str = ""
    """The store's key of the project (`<name>-<hash of its root>`); '' when not from a store."""
    findings_by_status: Mapping[str, int] = field(default_factory=dict)
    """open, acknowledged, resolved (someone's act) and expired (nobody acted) apart."""

    @property
    def expired(self) -> int:
        """Findings closed because their session or episode ended before anyone acted."""
        return self.findings_by_status.get("expired", 0)

    @property
    def resolved(self) -> int:
        return self.findings_by_status.get("resolved", 0)

    @property
    def tool_calls(self) -> int:
        return sum(s.tool_calls for s in self.sessions)

    @property
    def warnings(self) -> int:
        return sum(s.warnings for s in self.sessions)

    @property
    def detailed(self) -> tuple[SessionReport, ...]:
        return tuple(s for s in self.sessions if s.timeline or s.tool_times)


# -- scores ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImprovementMarker:
    """A change to the agent's instructions at a scored session: applied, rolled back, or the
    score delta it was measured to bring."""

    kind: MarkerKind
    label: str = ""
    delta: float | None = None


@dataclass(frozen=True, slots=True)
class ScoreRow:
    session_id: str
    agent_name: str
    timestamp: datetime
    overall_score: float
    markers: tuple[ImprovementMarker, ...] = ()


@dataclass(frozen=True, slots=True)
class AgentScores:
    agent: str
    points: tuple[ScoreRow, ...]
    """Oldest first."""


@dataclass(frozen=True, slots=True)
class ScoresSection:
    agents: tuple[AgentScores, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.agents


def scores_section(rows: Iterable[ScoreRow | Mapping[str, Any]]) -> ScoresSection:
    """Scores over time per agent, from score rows or their mappings ({session_id, agent_name,
    timestamp, overall_score, markers: [{kind, label, delta}]}); no rows: "no scores yet"."""
    by_agent: dict[str, list[ScoreRow]] = {}
    for row in rows:
        score = row if isinstance(row, ScoreRow) else _score_row(row)
        by_agent.setdefault(score.agent_name or "agent", []).append(score)
    return ScoresSection(
        tuple(
            AgentScores(agent, tuple(sorted(points, key=lambda p: p.timestamp)))
            for agent, points in sorted(by_agent.items())
        )
    )


def _score_row(row: Mapping[str, Any]) -> ScoreRow:
    at = row["timestamp"]
    markers = row.get("markers", row.get("improvement_markers", ())) or ()
    return ScoreRow(
        session_id=str(row["session_id"]),
        agent_name=str(row.get("agent_name") or ""),
        timestamp=utc(at) if isinstance(at, datetime) else parse_time(str(at)),
        overall_score=float(row["overall_score"]),
        markers=tuple(m if isinstance(m, ImprovementMarker) else _marker(m) for m in markers),
    )


def _marker(data: Mapping[str, Any]) -> ImprovementMarker:
    kind = data["kind"]
    if kind not in MARKER_KINDS:
        raise ValueError(f"markers.kind {kind!r}: one of {', '.join(MARKER_KINDS)}")
    delta = data.get("delta")
    return ImprovementMarker(
        kind, str(data.get("label", "")), None if delta is None else float(delta)
    )


@dataclass(frozen=True, slots=True)
class Report:
    title: str
    generated_at: datetime
    source: str
    """Where the data came from: the data home, or the transcripts replayed."""
    projects: tuple[ProjectReport, ...]
    since: datetime | None = None
    scores: ScoresSection = ScoresSection()
    notes: tuple[str, ...] = ()
    """What the reader should know: sessions shown without a timeline, lines skipped."""
