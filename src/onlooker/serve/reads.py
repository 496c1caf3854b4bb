"""What the viewer's pages read: sessions (newest first, from the journals), a session's timeline,
findings, memories, reviewer runs, improvements, and the overview charts (specs/serve.md).

Everything comes from the same store the CLI and the MCP tools read; text is shown as it was
stored (redacted before it was written) and redacted once more on the way out.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.clock import parse_time
from ..errors import BadViewerRequest
from ..memory._memories import Memories
from ..memory.search import search as search_memories
from ..report import charts
from ..report._scores import scores_from_store
from ..report.activity import Buckets
from ..report.model import scores_section
from ..report.sessions import SessionBuilder, read_journal
from ..scoring import Scores
from ..scoring._scores import STEERING
from ..store import FindingQuery, Observation, Store
from ..store.home import JOURNALS, safe_name
from ..store.identity import display_name
from ..store.memory_records import MemoryFilter
from ..text.clipping import clip
from ..text.redact import redact
from .hosts import HOSTS, UNKNOWN, host_matches, host_sessions, journal_host
from .items import item_of, run_item

SESSION_PAGE = 100
"""Sessions a page lists at first (the most recently active); more on request."""
TIMELINE_LIMIT = 5000
"""Items of one session's timeline (its newest)."""
HOST_SCAN = 2000
"""Findings looked through for the ones of one host's sessions."""


@dataclass(frozen=True, slots=True)
class JournalFile:
    project: str
    session: str
    path: Path
    mtime: float
    size: int


def journal_files(home: Path, project: str | None = None) -> list[JournalFile]:
    """Every session journal (the manual ones left out), most recently written first."""
    found: list[JournalFile] = []
    root = home / JOURNALS
    folders = [root / project] if project else _folders(root)
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".jsonl") and not entry.name.startswith("_"):
                        st = entry.stat()
                        found.append(JournalFile(folder.name, entry.name[:-6], Path(entry.path),
                                                 st.st_mtime, st.st_size))  # fmt: skip
        except FileNotFoundError:
            continue
    return sorted(found, key=lambda j: j.mtime, reverse=True)


def _folders(root: Path) -> Iterator[Path]:
    try:
        yield from (Path(e.path) for e in os.scandir(root) if e.is_dir())
    except FileNotFoundError:
        return


def sessions(
    store: Store,
    *,
    project: str | None = None,
    host: str | None = None,
    limit: int = SESSION_PAGE,
    offset: int = 0,
) -> dict[str, Any]:
    """The most recently active sessions with their counts and host, and how many there are in
    all; with `host`, only the sessions that host ran (`unknown`: those naming none)."""
    if project is not None and not plain_name(project):
        raise BadViewerRequest(f"project: a project key, not {project!r}")
    files = journal_files(store.home, project)
    if host:
        files = [j for j in files if host_matches(journal_host(j.path), host)]
    rows = []
    for journal in files[offset : offset + limit]:
        builder = SessionBuilder(journal.session, journal.project)
        read_journal(journal.path, builder)
        if "/" in builder.session_id:
            continue  # a subagent's journal: a lane of its session's timeline
        rows.append({
            "project": journal.project, "project_name": display_name(journal.project),
            "session": journal.session, "session_id": builder.session_id,
            "agent": builder.agent, "host": builder.host or UNKNOWN,
            "started": _iso(builder.started),
            "active": datetime.fromtimestamp(journal.mtime, UTC).isoformat(),
            "tool_calls": builder.tool_calls, "failed_calls": builder.failed_calls,
            "warnings": builder.warnings, "observer_failures": builder.observer_failures,
        })  # fmt: skip
    projects = sorted({j.project for j in files})
    following = min(offset + limit, len(files))
    return {"total": len(files), "next": following if following < len(files) else None,
            "sessions": rows,
            "projects": [{"key": p, "name": display_name(p)} for p in projects],
            "hosts": [*HOSTS, UNKNOWN]}  # fmt: skip


def timeline(store: Store, project: str, session: str) -> dict[str, Any]:
    """A session's items in order (its newest TIMELINE_LIMIT), reviewer runs among them, and
    its lanes (the main agent's, then each subagent's)."""
    if not (plain_name(project) and plain_name(session)):
        raise BadViewerRequest("project, session: a journal's folder and file name (no path)")
    folder = store.home / JOURNALS / project
    path = folder / f"{session}.jsonl"
    if not path.is_file():
        return {"items": [], "lanes": [], "dropped": 0}
    items = _journal_items(path, project, session)
    session_id = next((str(i["session_id"]) for i in items if i.get("session_id")), session)
    children = {f"{session_id}/{i['agent_id']}" for i in items
                if i["kind"] == "subagent_started" and i.get("agent_id")}  # fmt: skip
    for child in sorted(children):  # each subagent journals its own events: its lane
        items += _journal_items(folder / f"{safe_name(child)}.jsonl", project, session)
    for one in {session_id, *children}:
        items += [run_item(r) for r in store.runs.after(0, session_id=one, limit=TIMELINE_LIMIT)]
    items.sort(key=lambda i: str(i.get("at", "")))
    dropped = max(len(items) - TIMELINE_LIMIT, 0)
    items = items[dropped:]
    lanes = ["", *sorted({str(i["lane"]) for i in items if i["lane"]})]
    return {"items": items, "lanes": lanes, "dropped": dropped}


def plain_name(name: str) -> bool:
    """A file or folder name of the journals (as `safe_name` makes them): no path in it."""
    return bool(name) and name == Path(name).name and not name.startswith(".") and "\\" not in name


def _journal_items(path: Path, project: str, session: str) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    return [
        i for line in data[: data.rfind(b"\n") + 1].splitlines()
        if line and (i := item_of(line, project, session)) is not None
    ]  # fmt: skip


def findings(
    store: Store,
    *,
    project: str | None = None,
    statuses: tuple[str, ...] = ("open", "acknowledged"),
    observers: tuple[str, ...] = (),
    severities: tuple[str, ...] = (),
    session_id: str | None = None,
    host: str | None = None,
    limit: int = 200,
) -> dict[str, Any]:
    """The store's findings query; with `host`, only the findings of sessions that host ran
    (the newest HOST_SCAN findings looked through)."""
    page = store.query(FindingQuery(
        project=project, statuses=statuses, observers=observers, severities=severities,
        session_id=session_id, limit=HOST_SCAN if host else limit,
    ))  # fmt: skip
    if not host:
        return {"count": page.count, "by_severity": page.by("severity"),
                "by_observer": page.by("observer"),
                "findings": [finding_row(o) for o in page.observations]}  # fmt: skip
    ran = host_sessions([j.path for j in journal_files(store.home, project)], host)
    mine = [o for o in page.observations if o.finding.session_id in ran]
    return {"count": len(mine), "by_severity": _by(mine, "severity"),
            "by_observer": _by(mine, "observer"),
            "findings": [finding_row(o) for o in mine[:limit]]}  # fmt: skip


def _by(observations: list[Observation], field: str) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for o in observations:
        counts[str(getattr(o.finding, field))] += 1
    return dict(counts)


def finding_row(observation: Observation) -> dict[str, Any]:
    row = observation.to_dict()
    for name in ("content", "evidence", "resolution_note"):
        if row.get(name):
            row[name] = clip(redact(str(row[name])), 4000)
    row["project_name"] = display_name(str(row.get("project") or ""))
    return row


def memories(store: Store, query: str, project: str | None, limit: int = 30) -> dict[str, Any]:
    """Memories matching `query` (text search), or, with no query, the pinned ones then the
    newest: the order of the session-start digest. Each says whether it is pinned."""
    projects = (project,) if project else ()
    where = MemoryFilter(projects, None, None, ())
    every = Memories(store)
    pinned = every.pinned(where, 1000)
    if query.strip():
        found = search_memories(store, query, "text", limit, projects=projects, vectors=None)
    else:
        first = pinned[:limit]
        ids = {m.id for m in first}
        found = first + [m for m in every.recent(where, limit) if m.id not in ids]
    marked = {m.id for m in pinned}
    return {"memories": [
        {"id": m.id, "title": redact(m.title), "content": clip(redact(m.content), 4000),
         "project": m.project, "project_name": display_name(m.project), "session": m.session_id,
         "created_at": m.created_at.isoformat(), "files": list(m.files),
         "pinned": m.id in marked}
        for m in found[:limit]
    ]}  # fmt: skip


def overview(store: Store, project: str | None) -> dict[str, Any]:
    """The charts: findings over time by severity and by observer, scores per agent, tokens and
    cost per day; drawn by the report's own chart code (SVG, escaped)."""
    projects = [project] if project else store.overview.projects()
    spans = [s for p in projects if (s := store.overview.finding_span(p, None))]
    out: dict[str, Any] = {}
    if spans:
        start = min(parse_time(a) for a, _ in spans)
        end = max(parse_time(b) for _, b in spans)
        buckets = Buckets(start, end)
        by_severity: dict[str, list[int]] = defaultdict(lambda: [0] * buckets.count)
        by_observer: dict[str, list[int]] = defaultdict(lambda: [0] * buckets.count)
        for p in projects:
            for number, observer, severity, n in store.overview.finding_buckets(
                p, None, buckets.origin, buckets.width
            ):
                at = min(max(number, 0), buckets.count - 1)
                by_severity[severity][at] += n
                by_observer[observer][at] += n
        starts = buckets.starts()
        out["severity"] = str(charts.stacked_bars(
            "Findings by severity over time", starts, buckets.width, dict(by_severity),
            {s: f"sev-{s}" for s in by_severity},
        ))  # fmt: skip
        out["observer"] = str(charts.stacked_bars(
            "Findings by observer over time", starts, buckets.width, dict(by_observer)
        ))  # fmt: skip
    rows = scores_from_store(Scores(store), projects, None)
    if rows:
        out["scores"] = str(charts.score_chart(scores_section(rows).agents))
    days = store.runs.per_day(project)
    if days:
        out["cost"] = str(charts.hbars("Reviewer tokens and cost per day", [
            (day, float(cost if cost is not None else tin + tout),
             f"{tin:,} in · {tout:,} out" + (f" · ${cost:.4f}" if cost is not None else ""))
            for day, tin, tout, cost in days[-14:]
        ]))  # fmt: skip
    return out


def improvements(store: Store, project: str) -> dict[str, Any]:
    """A project's improvements: the pending ones numbered as `onlooker observer accept N` and
    the MCP tool number them, every one with its status, and the judge's guidance."""
    scores = Scores(store)
    every = scores.improvements(project)
    waiting = [i for i in every if i.status == "pending"]
    numbers = {i.id: n for n, i in enumerate(waiting, 1)}
    return {"project": project, "guidance": scores.settings(project).get(STEERING, ""),
            "improvements": [
                {"id": i.id, "number": numbers.get(i.id), "status": i.status,
                 "text": redact(i.text),
                 "reason": redact(i.reason), "pattern": i.pattern, "target": i.target,
                 "agent": i.agent_name, "delta": i.outcome_score_delta,
                 "created_at": i.created_at.isoformat()}
                for i in reversed(every)
            ]}  # fmt: skip


def hook_health(store: Store) -> dict[str, Any]:
    """What is recorded of the hooks' health: whether the hook service runs, inputs spooled
    (waiting to be replayed) or refused, the service log's latest errors and warnings, reviewer
    runs that ended in an error, and the service's answer times (p50, p95) of the newest hooks."""
    from ..daemon.health import recent_errors
    from ..daemon.hook_times import hook_latency
    from ..daemon.hookd import running_pid
    from ..daemon.spool import spool_entries

    failed, latest = store.runs.errors(limit=5)
    return {
        "service_pid": running_pid(store.home),
        "latency": hook_latency(store.home),
        "spooled": [redact(e.reason) for e in spool_entries(store.home)],
        "refused": [redact(e.reason) for e in spool_entries(store.home, refused=True)],
        "log_errors": [redact(line) for line in recent_errors(store.home)],
        "run_errors": failed,
        "latest_run_errors": [{"observer": o, "error": redact(e)} for o, e in latest],
    }


def _iso(at: datetime | None) -> str:
    return at.isoformat() if at else ""
