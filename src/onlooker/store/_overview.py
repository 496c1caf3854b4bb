"""What the index says about projects at a glance, counted in SQL: findings per time bucket,
observer and severity, findings per session, reviewer runs of sessions, memory counts.

Reports read these, so a report of 100k findings moves counts, not rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ._database import Database, stamp
from .memory_records import millis


@dataclass(frozen=True, slots=True)
class SessionRun:
    """One observer run of a session, with the report it delivered (if any)."""

    session_id: str
    observer: str
    status: str
    started_at: str
    delivered_at: str | None
    report: str
    error: str | None


class Overview:
    """Read-only counts over one index."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.db._read(lambda c: c.execute(sql, params).fetchall())

    def projects(self) -> list[str]:
        """Every project with findings, observer runs or memories."""
        rows = self._rows(
            "SELECT project FROM finding_counts WHERE n > 0 UNION "
            "SELECT DISTINCT project FROM observer_runs UNION SELECT DISTINCT project FROM memories"
        )
        return sorted(str(r[0]) for r in rows)

    def finding_span(self, project: str, since: datetime | None) -> tuple[str, str] | None:
        """The first and last creation time of the project's findings (since `since`)."""
        where, params = _where(project, since)
        row = self._rows(f"SELECT min(created_at), max(created_at) FROM findings{where}", params)
        return (str(row[0][0]), str(row[0][1])) if row and row[0][0] else None

    def finding_buckets(
        self, project: str, since: datetime | None, origin: datetime, width: int
    ) -> list[tuple[int, str, str, int]]:
        """(bucket number from `origin`, observer, severity, count) of the project's findings,
        in buckets of `width` seconds."""
        where, params = _where(project, since)
        bucket = "(CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) - ?) / ?"
        return [
            (int(b), str(o), str(s), int(n))
            for b, o, s, n in self._rows(
                f"SELECT {bucket} AS b, observer, severity, count(*) FROM findings{where} "
                "GROUP BY b, observer, severity",
                (int(origin.timestamp()), width, *params),
            )
        ]

    def findings_per_session(self, project: str, since: datetime | None) -> dict[str, int]:
        where, params = _where(project, since)
        rows = self._rows(f"SELECT session_id, count(*) FROM findings{where} GROUP BY 1", params)
        return {str(s): int(n) for s, n in rows}

    def session_runs(self, session_ids: list[str]) -> list[SessionRun]:
        """Observer runs of these sessions, oldest first."""
        if not session_ids:
            return []
        marks = ",".join("?" * len(session_ids))
        rows = self._rows(
            "SELECT session_id, observer, status, started_at, delivered_at, report, error "
            f"FROM observer_runs WHERE session_id IN ({marks}) ORDER BY n",
            tuple(session_ids),
        )
        return [SessionRun(*map(_text_or_none, row)) for row in rows]  # type: ignore[arg-type]

    def memory_counts(self, project: str, since: datetime | None) -> tuple[int, int, int, int]:
        """(memories, memories created since `since`, pending events, injections) of a project."""
        after = millis(since) if since is not None else 0
        row = self._rows(
            "SELECT (SELECT count(*) FROM memories WHERE project = ?), "
            "(SELECT count(*) FROM memories WHERE project = ? AND created_at >= ?), "
            "(SELECT count(*) FROM pending_events WHERE project = ?), "
            "(SELECT count(*) FROM memory_injections i JOIN memories m ON m.id = i.memory_id "
            "WHERE m.project = ?)",
            (project, project, after, project, project),
        )[0]
        return int(row[0]), int(row[1]), int(row[2]), int(row[3])


def _where(project: str, since: datetime | None) -> tuple[str, tuple[Any, ...]]:
    if since is None:
        return " WHERE project = ?", (project,)
    return " WHERE project = ? AND created_at >= ?", (project, stamp(since))


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
