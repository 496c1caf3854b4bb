"""A report of recorded sessions: replay each transcript (observers run as if live) and report
what they would have said, with the findings the store would have kept (medium and above): one
per episode, at its newest severity and text, as `Store.create` keeps them (`kept_findings`).

Nothing is stored; there are no reviewer runs or memories to count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.assessment import Finding, severity_rank
from ...core.clock import SystemClock, utc
from ...core.events import EPOCH, SessionStarted
from ...report import (
    DETAILED,
    OPEN_LIMIT,
    Buckets,
    OpenFinding,
    ProjectReport,
    Report,
    ScoreRow,
    SessionBuilder,
    activity,
    scores_section,
)
from ...store import kept_findings, trajectory_findings
from ...text.redact import redact
from .replay import ObserverFactory, replay_session
from .transcripts import Transcript, read_transcript

Kept = tuple[Finding, int]
"""A finding as the store keeps it, with how often it was reported."""


def report_from_transcripts(
    paths: Iterable[str | Path],
    observers: ObserverFactory | None = None,
    *,
    deadline_minutes: float | None = None,
    project: str | None = None,
    since: datetime | None = None,
    detailed: int = DETAILED,
    scores: Iterable[ScoreRow | Mapping[str, Any]] = (),
    title: str = "onlooker report",
) -> Report:
    """Replay the transcript files (TranscriptError for one that cannot be read) and report them
    per project (the sessions' own project, else `recorded`); `project` keeps only that one."""
    since = utc(since) if since is not None else None
    files = [str(p) for p in paths]
    by_project: dict[str, list[tuple[SessionBuilder, list[Kept]]]] = {}
    for path in files:
        for transcript in read_transcript(path).sessions():
            name = _project_of(transcript)
            if project is not None and name != project:
                continue
            builder = SessionBuilder(
                transcript.session_id, name, detailed=True, keep_assessments=True
            )
            replay_session(transcript, observers, deadline_minutes=deadline_minutes,
                           on_dispatch=builder.dispatched)  # fmt: skip
            if since is not None and (builder.ended is None or builder.ended < since):
                continue
            findings = kept_findings(
                f
                for a in builder.assessment_records
                for f in trajectory_findings(a, builder.session_id)
            )
            by_project.setdefault(name, []).append((builder, findings))
    notes = []
    for name, sessions in by_project.items():
        if len(sessions) > detailed:
            notes.append(f"{name}: timelines of the {detailed} newest sessions of {len(sessions)}")
    return Report(
        title=title,
        generated_at=SystemClock().now(),
        source=", ".join(files),
        projects=tuple(_project(n, s, detailed) for n, s in sorted(by_project.items())),
        since=since,
        scores=scores_section(scores),
        notes=tuple(notes),
    )


def _project_of(transcript: Transcript) -> str:
    for event in transcript.events:
        if isinstance(event, SessionStarted):
            return event.project or Path(event.cwd).name or "recorded"
    return "recorded"


def _project(
    name: str, sessions: list[tuple[SessionBuilder, list[Kept]]], detailed: int
) -> ProjectReport:
    sessions.sort(key=lambda pair: pair[0].started or EPOCH, reverse=True)
    kept = [k for _, found in sessions for k in found]
    findings = [f for f, _ in kept]
    times = [t for b, _ in sessions for t in (b.started, b.ended) if t is not None]
    now = SystemClock().now()
    buckets = Buckets(min(times, default=now), max(times, default=now))
    counted: Counter[tuple[int, str, str]] = Counter(
        (buckets.index(f.created_at or EPOCH), f.observer, f.severity) for f in findings
    )
    series = activity(
        buckets,
        (at for b, _ in sessions for at, _ in b.tool_times),
        (at for b, _ in sessions for at in b.warning_times),
        ((n, o, s, count) for (n, o, s), count in counted.items()),
    )
    for rank, (builder, _) in enumerate(sessions):
        builder.detailed = rank < detailed
    return ProjectReport(
        name=name,
        sessions=tuple(b.build(len(found)) for b, found in sessions),
        activity=series,
        open_findings=_open(kept),
        open_total=len(findings),
        findings_total=len(findings),
        findings_by_severity=dict(Counter(f.severity for f in findings)),
        findings_by_observer=dict(Counter(f.observer for f in findings)),
    )


def _open(kept: list[Kept]) -> tuple[OpenFinding, ...]:
    """The most severe findings first, each with how often it was reported."""
    ranked = sorted(kept, key=lambda p: (-severity_rank(p[0].severity), p[0].created_at or EPOCH))
    return tuple(
        OpenFinding(
            id=f.id,
            observer=f.observer,
            severity=f.severity,
            status="open",
            content=redact(f.content),
            evidence=redact(f.evidence or "")[:600],
            category=f.category,
            session_id=f.session_id,
            created_at=f.created_at,
            occurrences=n,
            source_ref=f.source_ref or "",
        )
        for f, n in ranked[:OPEN_LIMIT]
    )
