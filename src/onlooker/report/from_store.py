"""A report of a data home: sessions from their journals, findings, reviewer runs and memory
counted in the index, session scores with the improvements made to the agents' instructions.

Journals are scanned once each (only the lines of events, assessments and failures are decoded);
the timelines of the newest sessions are kept, the rest are counted.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..core.clock import parse_time, utc
from ..core.events import EPOCH
from ..store import UNRESOLVED, FindingQuery, Observation, Store
from ..store.home import JOURNALS, MANUAL_JOURNAL, safe_name
from ..store.identity import display_name
from ..text.redact import redact
from .activity import Buckets, activity
from .model import (
    MemoryCounts,
    OpenFinding,
    ProjectReport,
    Report,
    ReviewerCost,
    scores_section,
)
from .sessions import SessionBuilder, read_journal

DETAILED = 25
"""Sessions per project shown with their timeline: the most recently active."""
OPEN_LIMIT = 200
"""Open findings listed per project (the most severe first); the rest are counted."""
EVIDENCE_LIMIT = 600


def report_from_store(
    store: Store,
    *,
    project: str | None = None,
    since: datetime | None = None,
    detailed: int = DETAILED,
    title: str = "onlooker report",
) -> Report:
    """The report of every project in `store` (or only `project`), from `since` on."""
    from ..scoring import Scores  # only here: a replay's report does without the judge's imports
    from ._scores import scores_from_store

    since = utc(since) if since is not None else None
    names = [project] if project is not None else _projects(store)
    notes: list[str] = []
    projects = [_project(store, name, since, detailed, notes) for name in names]
    return Report(
        title=title,
        generated_at=store.clock.now(),
        source=str(store.home),
        projects=tuple(p for p in projects if p.sessions or p.findings_total or p.reviewers),
        since=since,
        scores=scores_section(scores_from_store(Scores(store), names, since)),
        notes=tuple(notes),
    )


def _projects(store: Store) -> list[str]:
    """Projects with findings, runs or memories, and those with journals (by folder name when
    nothing in the index names the folder's project)."""
    known = store.overview.projects()
    by_folder = {safe_name(name): name for name in known}
    root = store.home / JOURNALS
    folders = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    return sorted(set(known) | {by_folder.get(folder, folder) for folder in folders})


def _project(
    store: Store, name: str, since: datetime | None, detailed: int, notes: list[str]
) -> ProjectReport:
    builders = _sessions(store.home / JOURNALS / safe_name(name), name, since, detailed, notes)
    overview = store.overview
    per_session = overview.findings_per_session(name, since)
    _add_reports(store, builders)
    times = [t for b in builders for t in (b.started, b.ended) if t is not None]
    span = overview.finding_span(name, since)
    if span is not None:
        times.extend(parse_time(t) for t in span)
    everything = store.query(FindingQuery(project=name, created_after=since, limit=0))
    opened = store.query(
        FindingQuery(project=name, statuses=UNRESOLVED, created_after=since, limit=OPEN_LIMIT)
    )
    if times:
        buckets = Buckets(min(times), max(times))
        found = overview.finding_buckets(name, since, buckets.origin, buckets.width)
        series = activity(
            buckets,
            (at for b in builders for at, _ in b.tool_times),
            (at for b in builders for at in b.warning_times),
            found,
        )
    else:
        series = activity(Buckets(store.clock.now(), store.clock.now()), (), (), ())
    sessions = sorted(
        (b.build(per_session.get(b.session_id, 0)) for b in builders),
        key=lambda s: s.started or EPOCH,
        reverse=True,
    )
    return ProjectReport(
        name=display_name(name),
        key=name,
        sessions=tuple(sessions),
        activity=series,
        open_findings=tuple(map(open_finding, opened.observations)),
        open_total=opened.count,
        findings_total=everything.count,
        findings_by_severity=everything.by("severity"),
        findings_by_observer=everything.by("observer"),
        findings_by_status=everything.by("status"),
        reviewers=tuple(
            ReviewerCost(
                c.observer,
                c.runs,
                c.by_status,
                c.input_tokens,
                c.output_tokens,
                c.cost_usd,
                c.seconds,
                c.models,
            )
            for c in store.runs.costs(name, since)
        ),
        memory=MemoryCounts(*overview.memory_counts(name, since)),
    )


def _sessions(
    folder: Path, project: str, since: datetime | None, detailed: int, notes: list[str]
) -> list[SessionBuilder]:
    """A builder per session journal of the project, the `detailed` newest with timelines."""
    if not folder.is_dir():
        return []
    stamped = []
    for path in folder.glob("*.jsonl"):
        if path.stem == MANUAL_JOURNAL:
            continue
        modified = path.stat().st_mtime
        if since is None or modified >= since.timestamp():
            stamped.append((modified, path))
    stamped.sort(reverse=True)
    builders: list[SessionBuilder] = []
    skipped = shown = 0
    for _, path in stamped:  # a journal of changes only (a score, a memory) is no session
        builder = SessionBuilder(path.stem, project, detailed=shown < detailed)
        skipped += read_journal(path, builder)
        if builder.started is not None or builder.tool_calls:
            builders.append(builder)
            shown += builder.detailed
    if skipped:
        notes.append(f"{project}: {skipped} journal lines could not be read and were skipped")
    if len(builders) > detailed:
        notes.append(
            f"{project}: timelines of the {detailed} most recently active sessions of "
            f"{len(builders)}; the table lists them all"
        )
    if since is not None:
        builders = [b for b in builders if b.ended is None or b.ended >= since]
    return builders


def _add_reports(store: Store, builders: list[SessionBuilder]) -> None:
    """Reviewer runs of the detailed sessions, at the time their report was delivered."""
    shown = {b.session_id: b for b in builders if b.detailed}
    for run in store.overview.session_runs(list(shown)):
        builder = shown[run.session_id]
        at = parse_time(run.delivered_at or run.started_at)
        where = "delivered" if run.delivered_at else "not delivered yet"
        text = run.report or run.error or ""
        builder.report(run.observer, at, f"{run.status}, {where}", text, "")


def open_finding(observation: Observation) -> OpenFinding:
    """An unresolved finding as the report lists it (text redacted, evidence clipped)."""
    f = observation.finding
    evidence = redact(f.evidence or "")
    if len(evidence) > EVIDENCE_LIMIT:
        evidence = evidence[:EVIDENCE_LIMIT] + "…"
    return OpenFinding(
        id=f.id, observer=f.observer, severity=f.severity, status=f.status,
        content=redact(f.content), evidence=evidence, category=f.category,
        session_id=f.session_id, created_at=f.created_at, occurrences=observation.occurrences,
        source_ref=f.source_ref or "",
    )  # fmt: skip
