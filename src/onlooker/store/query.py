"""Which findings to list and what a listing returns, with the SQL that selects them.

Filters combine with AND; the values of one filter are alternatives (status open or acknowledged).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..core.assessment import SEVERITIES
from ._database import stamp
from .changes import EPISODE_REF, Observation

_RUNS = re.compile(r"[^\W_]+")
STATUSES = ("open", "acknowledged", "resolved", "expired")
UNRESOLVED = ("open", "acknowledged")
CLOSED = ("resolved", "expired")
"""resolved: someone's act, with its note; expired: its session or episode ended first."""

#: sort_by -> ORDER BY
ORDER = {
    "severity": "severity_rank DESC, created_at ASC, n ASC",
    "created_at": "created_at DESC, n DESC",
}


@dataclass(frozen=True, slots=True)
class FindingQuery:
    """Which findings to list; empty tuples mean no filter."""

    project: str | None = None
    statuses: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()
    observers: tuple[str, ...] = ()
    session_id: str | None = None
    ids: tuple[str, ...] = ()
    text: str | None = None
    """Full-text search over content, category, evidence, observer, source_ref, note."""
    created_after: datetime | None = None
    """Only findings created at or after this time."""
    created_before: datetime | None = None
    """Only findings created before this time."""
    mentions: tuple[str, ...] = ()
    """Only findings whose content, source_ref or evidence contains one of these strings."""
    episodes_of: str | None = None
    """Leave out the trajectory findings (episodes) of every session but this one."""
    sort_by: str = "severity"
    """severity (most severe first, then oldest) | created_at (newest first)"""
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class FindingPage:
    """A page of findings and the counts of everything the query matched (not only the page)."""

    observations: tuple[Observation, ...]
    groups: tuple[tuple[str, str, str, int], ...]
    """(severity, status, observer, count) over all matches."""

    @property
    def count(self) -> int:
        return sum(group[3] for group in self.groups)

    def by(self, field: str) -> dict[str, int]:
        """Counts by "severity" (most severe first), "status" or "observer"."""
        position = ("severity", "status", "observer").index(field)
        counts: dict[str, int] = {}
        for group in self.groups:
            name = group[position]
            assert isinstance(name, str)
            counts[name] = counts.get(name, 0) + group[3]
        if field == "severity":
            return {name: counts[name] for name in SEVERITIES if name in counts}
        return dict(sorted(counts.items()))


def countable(query: FindingQuery) -> bool:
    """Whether the `finding_counts` table answers the query's counts (no session, id or text)."""
    return (
        query.session_id is None
        and not query.ids
        and not query.text
        and query.created_after is None
        and query.created_before is None
        and not query.mentions
        and query.episodes_of is None
    )


def where_clause(
    query: FindingQuery, *, from_text: bool = False, dialect: str = "sqlite"
) -> tuple[str, list[Any]]:
    """' WHERE ...' and its parameters; on `finding_counts` too when the query is countable.
    `from_text` keeps SQLite from the project index, so it starts from the full-text matches.
    Full-text search is FTS5 on SQLite, the `search` tsvector on PostgreSQL."""
    clauses: list[str] = []
    params: list[Any] = []

    def among(column: str, values: tuple[str, ...]) -> None:
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)

    if query.project is not None:
        clauses.append("+project = ?" if from_text and query.text else "project = ?")
        params.append(query.project)
    among("status", query.statuses)
    among("severity", query.severities)
    among("observer", query.observers)
    among("id", query.ids)
    if query.session_id is not None:
        clauses.append("session_id = ?")
        params.append(query.session_id)
    if query.episodes_of is not None:
        clauses.append("(source_ref IS NULL OR substr(source_ref, 1, ?) != ? OR session_id = ?)")
        params.extend((len(EPISODE_REF), EPISODE_REF, query.episodes_of))
    if query.text and dialect == "postgres":
        clauses.append("search @@ websearch_to_tsquery('simple', ?)")
        params.append(_phrases(query.text))
    elif query.text:
        clauses.append("n IN (SELECT rowid FROM findings_fts WHERE findings_fts MATCH ?)")
        params.append(_match(query.text))
    if query.created_after is not None:
        clauses.append("created_at >= ?")
        params.append(stamp(query.created_after))
    if query.created_before is not None:
        clauses.append("created_at < ?")
        params.append(stamp(query.created_before))
    if query.mentions:
        fields = ("content", "coalesce(source_ref, '')", "coalesce(evidence, '')")
        clauses.append(
            "(" + " OR ".join(f"instr({f}, ?) > 0" for _ in query.mentions for f in fields) + ")"
        )
        params.extend(m for m in query.mentions for _ in fields)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _phrases(text: str) -> str:
    """Free text as websearch_to_tsquery takes it: each word a quoted phrase of its letter and
    digit runs (as FTS5 splits a quoted word), so every word must appear."""
    phrases = (" ".join(_RUNS.findall(word)) for word in text.split())
    return " ".join(f'"{phrase}"' for phrase in phrases if phrase)


def _match(text: str) -> str:
    """Free text as an FTS5 query: every word must appear (quoted, so no syntax errors)."""
    return " ".join('"' + word.replace('"', '""') + '"' for word in text.split())
