"""The index: SQLite `onlooker.db`, a view of the journals that `onlooker reindex` rebuilds.

Findings (with counts and full-text search), session snapshots, how far each journal is applied,
and the last summary delivered to each session. Connection, retries and migrations: `Database`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.assessment import Finding, severity_rank
from ..core.clock import parse_time
from ..errors import StoreError
from ._database import Database, stamp
from ._effects_index import EFFECT_TABLES, apply_effect_change
from ._memory_index import MEMORY_TABLES, apply_memory_change
from ._postgres import PostgresConnection, redacted_url
from ._score_index import SCORE_TABLES, apply_score_change
from .changes import (
    Change,
    FindingAcknowledged,
    FindingCreated,
    FindingExpired,
    FindingReopened,
    FindingResolved,
    FindingsCleared,
    FindingSeen,
    Observation,
    SummaryDelivered,
    content_hash,
)
from .query import ORDER, FindingPage, FindingQuery, countable, where_clause

_COLUMNS = (
    "id, project, session_id, observer, content, category, evidence, severity, status, "
    "created_at, acknowledged_at, resolved_at, resolution_note, source_type, source_ref, "
    "metadata, occurrences, last_seen_at"
)
_CHUNK = 500


class Index(Database):
    """The SQLite index of one data home: findings, snapshots, journal offsets, deliveries."""

    # -- changes ---------------------------------------------------------------------------------

    def last_serial(self) -> int:
        row = self._read(
            lambda c: c.execute("SELECT value FROM counters WHERE name='serial'").fetchone()
        )
        return int(row[0]) if row else 0

    def apply(self, changes: Iterable[Change], *, numbered: bool = True) -> None:
        """Apply lifecycle changes in order (inside `transaction()`); the index follows them.
        With `numbered=False` the caller records the highest serial itself (`number`)."""
        top = 0
        for change in changes:
            self._apply(change)
            top = max(top, change.serial)
        if numbered:
            self.number(top)

    def number(self, serial: int) -> None:
        """Record that changes up to `serial` are applied."""
        if serial:
            self._conn.execute(
                "INSERT INTO counters (name, value) VALUES ('serial', ?) ON CONFLICT(name) "
                "DO UPDATE SET value = max(counters.value, excluded.value)",
                (serial,),
            )

    def _apply(self, change: Change) -> None:
        if (
            apply_memory_change(self._conn, change)
            or apply_score_change(self._conn, change)
            or apply_effect_change(self._conn, change)
        ):
            return
        run = self._conn.execute
        at = stamp(change.at)
        if isinstance(change, FindingCreated):
            f = change.finding
            created = stamp(f.created_at or change.at)
            run(
                f"INSERT INTO findings ({_COLUMNS}, severity_rank, content_hash, serial) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, NULL, NULL, NULL, ?, ?, ?, 1, ?, ?, ?, "
                "?) ON CONFLICT DO NOTHING",
                (
                    f.id, f.project, f.session_id, f.observer, f.content, f.category, f.evidence,
                    f.severity, created, f.source_type, f.source_ref,
                    json.dumps(f.metadata, ensure_ascii=False, sort_keys=True), created,
                    severity_rank(f.severity), content_hash(f), change.serial,
                ),
            )  # fmt: skip
        elif isinstance(change, FindingSeen):
            run(
                "UPDATE findings SET occurrences = occurrences + 1, "
                "last_seen_at = max(last_seen_at, ?) WHERE id = ?",
                (at, change.finding_id),
            )
            if change.severity is not None:
                _update_episode(self._conn, change)
        elif isinstance(change, FindingAcknowledged):
            run(
                "UPDATE findings SET status = 'acknowledged', acknowledged_at = ? "
                "WHERE id = ? AND status = 'open'",
                (at, change.finding_id),
            )
        elif isinstance(change, FindingResolved):
            run(
                "UPDATE findings SET status = 'resolved', resolved_at = ?, resolution_note = ? "
                "WHERE id = ? AND status != 'resolved'",
                (at, change.note, change.finding_id),
            )
        elif isinstance(change, FindingExpired):
            run(
                "UPDATE findings SET status = 'expired', resolved_at = ?, resolution_note = ? "
                "WHERE id = ? AND status IN ('open', 'acknowledged')",
                (at, change.note, change.finding_id),
            )
        elif isinstance(change, FindingReopened):
            run(
                "UPDATE findings SET status = 'open', acknowledged_at = NULL, resolved_at = NULL, "
                "resolution_note = NULL WHERE id = ? AND status = 'expired'",
                (change.finding_id,),
            )
        elif isinstance(change, FindingsCleared):
            for chunk in _chunks(change.finding_ids):
                marks = ",".join("?" * len(chunk))
                run(
                    "DELETE FROM findings WHERE status IN ('resolved', 'expired') "
                    f"AND id IN ({marks})",
                    chunk,
                )
        elif isinstance(change, SummaryDelivered):
            run(
                "INSERT INTO deliveries (session_id, digest, delivered_at) VALUES (?, ?, ?) "
                "ON CONFLICT(session_id) DO UPDATE SET digest = excluded.digest, "
                "delivered_at = excluded.delivered_at",
                (change.session_id, change.digest, at),
            )

    def unresolved_duplicate(self, project: str, digest: str) -> str | None:
        """The id of an unresolved finding of `project` with this content hash, if any."""
        row = self._read(
            lambda c: c.execute(
                "SELECT id FROM findings WHERE project = ? AND content_hash = ? "
                "AND status IN ('open', 'acknowledged') ORDER BY n LIMIT 1",
                (project, digest),
            ).fetchone()
        )
        return str(row[0]) if row else None

    def has(self, finding_id: str) -> bool:
        return bool(
            self._read(
                lambda c: c.execute("SELECT 1 FROM findings WHERE id = ?", (finding_id,)).fetchone()
            )
        )

    # -- findings --------------------------------------------------------------------------------

    def query(self, query: FindingQuery) -> FindingPage:
        where, params = where_clause(query, dialect=self.dialect)
        order = ORDER[query.sort_by]
        limit = "" if query.limit is None else f" LIMIT {int(query.limit)}"
        if countable(query):
            counting = (
                f"SELECT severity, status, observer, n FROM finding_counts{where}"
                f"{' AND' if where else ' WHERE'} n > 0"
            )
        else:
            matching, _ = where_clause(query, from_text=True, dialect=self.dialect)
            counting = (
                f"SELECT severity, status, observer, count(*) FROM findings{matching} "
                "GROUP BY severity, status, observer"
            )

        def run(c: Any) -> FindingPage:
            rows = []
            if query.limit != 0:
                rows = c.execute(
                    f"SELECT {_COLUMNS} FROM findings{where} ORDER BY {order}{limit}", params
                ).fetchall()
            groups = c.execute(counting, params).fetchall()
            return FindingPage(tuple(map(_observation, rows)), tuple(map(tuple, groups)))

        return self._read(run)

    def observations(self, ids: Iterable[str], project: str | None = None) -> list[Observation]:
        """The findings with these ids (of `project`, when given), in no particular order."""
        found: list[Observation] = []
        for chunk in _chunks(tuple(dict.fromkeys(ids))):
            clause = f"id IN ({','.join('?' * len(chunk))})"
            params: list[Any] = list(chunk)
            if project is not None:
                clause += " AND project = ?"
                params.append(project)
            found.extend(
                map(
                    _observation,
                    self._rows(f"SELECT {_COLUMNS} FROM findings WHERE {clause}", params),
                )
            )
        return found

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._read(lambda c: c.execute(sql, params).fetchall())

    def count_findings(self) -> int:
        return int(self._read(lambda c: c.execute("SELECT count(*) FROM findings").fetchone()[0]))

    def ids_with_prefix(self, prefix: str, project: str | None, limit: int = 2) -> list[str]:
        clause = "id >= ? AND id < ?"
        params: list[Any] = [prefix, prefix + "\U0010ffff"]
        if project is not None:
            clause += " AND project = ?"
            params.append(project)
        return self._read(
            lambda c: [
                r[0]
                for r in c.execute(f"SELECT id FROM findings WHERE {clause} LIMIT {limit}", params)
            ]
        )

    def closed_ids(self, project: str) -> list[str]:
        """The project's resolved and expired findings, oldest first."""
        return self._read(
            lambda c: [
                r[0]
                for r in c.execute(
                    "SELECT id FROM findings WHERE project = ? "
                    "AND status IN ('resolved', 'expired') ORDER BY n",
                    (project,),
                )
            ]
        )

    # -- journals, sessions, deliveries ----------------------------------------------------------

    def applied_to(self, journal: str) -> int:
        """How far into `journal` (bytes) the index has applied."""
        row = self._read(
            lambda c: c.execute(
                "SELECT applied_to FROM journals WHERE path = ?", (journal,)
            ).fetchone()
        )
        return int(row[0]) if row else 0

    def set_applied_to(self, journal: str, offset: int) -> None:
        self._conn.execute(
            "INSERT INTO journals (path, applied_to) VALUES (?, ?) ON CONFLICT(path) "
            "DO UPDATE SET applied_to = max(journals.applied_to, excluded.applied_to)",
            (journal, offset),
        )

    def save_session(
        self,
        session_id: str,
        journal: str,
        seq: int,
        snapshot: dict[str, Any] | str,
        offset: int,
        at: datetime,
    ) -> None:
        """Keep a session's snapshot (its data, or that data already as JSON text)."""
        text = (
            snapshot
            if isinstance(snapshot, str)
            else json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
        )
        with self.transaction():
            self._conn.execute(
                "INSERT INTO sessions (session_id, journal, seq, snapshot, journal_offset, "
                "saved_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
                "journal = excluded.journal, seq = excluded.seq, snapshot = excluded.snapshot, "
                "journal_offset = excluded.journal_offset, saved_at = excluded.saved_at",
                (session_id, journal, seq, text, offset, stamp(at)),
            )

    def load_session(self, session_id: str) -> tuple[str, int, dict[str, Any], int] | None:
        """(journal, seq, snapshot, journal offset) of the saved session, or None."""
        row = self._read(
            lambda c: c.execute(
                "SELECT journal, seq, snapshot, journal_offset FROM sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
        )
        if row is None:
            return None
        return str(row[0]), int(row[1]), json.loads(row[2]), int(row[3])

    def session_seqs(self) -> dict[str, int]:
        return self._read(
            lambda c: {r[0]: int(r[1]) for r in c.execute("SELECT session_id, seq FROM sessions")}
        )

    def delivered_digest(self, session_id: str) -> str | None:
        row = self._read(
            lambda c: c.execute(
                "SELECT digest FROM deliveries WHERE session_id = ?", (session_id,)
            ).fetchone()
        )
        return str(row[0]) if row else None

    def project_keys(self) -> list[str]:
        """The distinct projects of findings, memories, pending events and jobs."""
        sql = " UNION ".join(
            f"SELECT DISTINCT project FROM {table}"
            for table in ("finding_counts", "memories", "pending_events", "jobs", "scores")
        )
        return sorted(str(row[0]) for row in self._rows(sql))

    def upgrade_due(self, name: str) -> bool:
        """Whether the named upgrade (a row of `upgrades`) has not been done yet."""
        row = self._read(
            lambda c: c.execute("SELECT done_at FROM upgrades WHERE name = ?", (name,)).fetchone()
        )
        return row is not None and row[0] is None

    def upgrade_done(self, name: str, at: datetime) -> None:
        """Record the named upgrade as done (inside `transaction()`)."""
        self._conn.execute("UPDATE upgrades SET done_at = ? WHERE name = ?", (stamp(at), name))

    def clear(self, *, sessions: bool) -> None:
        """Empty every table the journals rebuild (inside `transaction()`), for a reindex."""
        for table in ("findings", "finding_counts", "journals", "deliveries", "counters",
                      *MEMORY_TABLES, *SCORE_TABLES, *EFFECT_TABLES):  # fmt: skip
            self._conn.execute(f"DELETE FROM {table}")
        if sessions:
            self._conn.execute("DELETE FROM sessions")

    def table_rows(self, table: str) -> list[tuple[Any, ...]]:
        """Every row of a table, ordered: for checks that a reindex rebuilt the same index."""
        order = {"findings": "id", "sessions": "session_id", "deliveries": "session_id",
                 "memories": "id", "memory_files": "path, memory_id",
                 "memory_injections": "session_id, memory_id", "memory_opt_outs": "project",
                 "scores": "project, session_id",
                 "improvements": "id", "rejections": "project, pattern",
                 "observer_settings": "project, name", "side_effects": "key, path",
                 "compliance_verdicts": "n"}[table]  # fmt: skip
        return self._read(lambda c: c.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall())


def _update_episode(conn: Any, change: FindingSeen) -> None:
    """An episode's finding takes its newest report's severity, text and metadata."""
    assert change.severity is not None
    conn.execute(
        "UPDATE findings SET severity = ?, severity_rank = ?, content = coalesce(?, content), "
        "evidence = coalesce(?, evidence), metadata = coalesce(?, metadata) WHERE id = ?",
        (
            change.severity, severity_rank(change.severity), change.content, change.evidence,
            None if change.metadata is None
            else json.dumps(change.metadata, ensure_ascii=False, sort_keys=True),
            change.finding_id,
        ),
    )  # fmt: skip


class PostgresIndex(PostgresConnection, Index):
    """The index in a PostgreSQL database that a team shares (specs/store.md, "A shared store")."""


def open_index(path: Path, url: str = "") -> Index:
    """The SQLite index at `path`, or, with a postgresql:// `url`, the shared one there."""
    if not url:
        return Index(path)
    if not url.startswith(("postgresql://", "postgres://")):
        raise StoreError(
            f"store URL {redacted_url(url)!r}: only postgresql:// URLs are supported "
            "(leave it empty for onlooker.db)"
        )
    return PostgresIndex(path, url=url)


def _observation(row: tuple[Any, ...]) -> Observation:
    finding = Finding(
        id=row[0], project=row[1], session_id=row[2], observer=row[3], content=row[4],
        category=row[5], evidence=row[6], severity=row[7], status=row[8],
        created_at=_time(row[9]), acknowledged_at=_time(row[10]), resolved_at=_time(row[11]),
        resolution_note=row[12], source_type=row[13], source_ref=row[14],
        metadata=json.loads(row[15]),
    )  # fmt: skip
    return Observation(finding, int(row[16]), _time(row[17]))


def _time(text: str | None) -> datetime | None:
    return parse_time(text) if text else None


def _chunks(items: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
