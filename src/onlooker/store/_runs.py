"""Observer runs in the index: how each reviewer run went, what it cost, what it has to deliver.

One row per run: status (ok | timeout | error | skipped), error text, duration, model, tokens and
estimated cost. A background run's report waits here until the session's next delivery point takes
it, once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ..core.clock import Clock
from ._database import Database, stamp


def _when(value: object) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


RunStatus = Literal["ok", "timeout", "error", "skipped"]
RUN_STATUSES: tuple[RunStatus, ...] = ("ok", "timeout", "error", "skipped")


@dataclass(frozen=True, slots=True)
class ObserverCost:
    """What one observer's runs in a project added up to."""

    observer: str
    runs: int
    by_status: dict[str, int]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """None when no run had a known price."""
    seconds: float
    models: tuple[str, ...]


class ObserverRuns:
    """The `observer_runs` table of one index."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    def record(self, run: dict[str, Any]) -> int:
        """Insert one run; `run` holds the columns (see `Store.record_observer_run`)."""
        if run["status"] not in RUN_STATUSES:
            allowed = ", ".join(RUN_STATUSES)
            raise ValueError(f"run status {run['status']!r} is not one of: {allowed}")
        row = {"started_at": stamp(self.clock.now()), **run}
        names = ", ".join(row)
        with self.db.transaction(exclusive=False):
            found = self.db._conn.execute(
                f"INSERT INTO observer_runs ({names}) VALUES ({', '.join('?' * len(row))}) "
                "RETURNING n",
                tuple(row.values()),
            ).fetchone()
            return int(found[0])

    def take_undelivered(self, session_id: str) -> list[str]:
        """The reports of this session's runs not yet delivered, oldest first; they are marked
        delivered, so each is delivered once."""
        at = stamp(self.clock.now())
        sql = (
            "SELECT n, report FROM observer_runs WHERE session_id = ? AND delivered_at IS NULL "
            "AND report != '' ORDER BY n"
        )
        if not self.db._read(lambda c: c.execute(sql + " LIMIT 1", (session_id,)).fetchone()):
            return []
        with self.db.transaction(exclusive=False):
            conn = self.db._conn
            rows = conn.execute(sql, (session_id,)).fetchall()
            conn.executemany(
                "UPDATE observer_runs SET delivered_at = ? WHERE n = ?", [(at, r[0]) for r in rows]
            )
        return [str(r[1]) for r in rows]

    def errors(
        self, since: datetime | None = None, limit: int = 3
    ) -> tuple[int, list[tuple[str, str]]]:
        """How many runs (started at or after `since`, when given) ended in an error, and the
        (observer, error) of the latest `limit` of them."""
        where = "status = 'error'" + (" AND started_at >= ?" if since is not None else "")
        params: tuple[str, ...] = (stamp(since),) if since is not None else ()

        def read(c: sqlite3.Connection) -> tuple[int, list[tuple[str, str]]]:
            count = c.execute(f"SELECT count(*) FROM observer_runs WHERE {where}", params)
            rows = c.execute(
                f"SELECT observer, error FROM observer_runs WHERE {where} ORDER BY n DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
            return int(count.fetchone()[0]), [(str(o), str(e or "")) for o, e in rows]

        return self.db._read(read)

    def costs(
        self, project: str | None = None, since: datetime | None = None
    ) -> list[ObserverCost]:
        """Per observer: runs by status, tokens, cost and time, most expensive first (only runs
        started at or after `since`, when given)."""
        clauses: list[str] = []
        params: list[str] = []
        if project is not None:
            clauses.append("project = ?")
            params.append(project)
        if since is not None:
            clauses.append("started_at >= ?")
            params.append(stamp(since))
        where = "WHERE " + " AND ".join(clauses) if clauses else ""
        rows = self.db._read(
            lambda c: c.execute(
                "SELECT observer, status, count(*), sum(input_tokens), sum(output_tokens), "
                "sum(cost_usd), count(cost_usd), sum(duration), group_concat(DISTINCT model) "
                f"FROM observer_runs {where} GROUP BY observer, status",
                params,
            ).fetchall()
        )
        merged: dict[str, ObserverCost] = {}
        for observer, status, runs, tin, tout, cost, priced, seconds, models in rows:
            was = merged.get(observer) or ObserverCost(observer, 0, {}, 0, 0, None, 0.0, ())
            known = [c for c in (was.cost_usd, float(cost) if priced else None) if c is not None]
            found = {m for m in (models or "").split(",") if m}
            merged[observer] = ObserverCost(
                observer=observer,
                runs=was.runs + int(runs),
                by_status={**was.by_status, status: int(runs)},
                input_tokens=was.input_tokens + int(tin or 0),
                output_tokens=was.output_tokens + int(tout or 0),
                cost_usd=sum(known) if known else None,
                seconds=was.seconds + float(seconds or 0.0),
                models=tuple(sorted(set(was.models) | found)),
            )
        return sorted(merged.values(), key=lambda c: (-(c.cost_usd or 0.0), c.observer))

    def after(
        self, n: int, *, session_id: str | None = None, limit: int = 500
    ) -> list[dict[str, Any]]:
        """Runs numbered after `n` (of one session, when given), oldest first: the live viewer's
        feed and a session's timeline."""
        where, params = "n > ?", list[Any]([n])
        if session_id is not None:
            where += " AND session_id = ?"
            params.append(session_id)
        columns = ("n", "project", "session_id", "observer", "status", "error", "started_at",
                   "duration", "model", "input_tokens", "output_tokens", "cost_usd", "report",
                   "delivered_at")  # fmt: skip
        rows = self.db._read(
            lambda c: c.execute(
                f"SELECT {', '.join(columns)} FROM observer_runs WHERE {where} ORDER BY n LIMIT ?",
                (*params, limit),
            ).fetchall()
        )
        return [dict(zip(columns, row, strict=True)) for row in rows]

    def newest(self) -> int:
        """The number of the latest run (0 with none)."""
        found = self.db._read(lambda c: c.execute("SELECT max(n) FROM observer_runs").fetchone())
        return int(found[0] or 0)

    def per_day(self, project: str | None = None) -> list[tuple[str, int, int, float | None]]:
        """(UTC day, input tokens, output tokens, cost or None when none was priced) per day."""
        where, params = ("WHERE project = ?", (project,)) if project is not None else ("", ())
        rows = self.db._read(
            lambda c: c.execute(
                "SELECT substr(started_at, 1, 10) AS day, sum(input_tokens), sum(output_tokens), "
                f"sum(cost_usd), count(cost_usd) FROM observer_runs {where} GROUP BY day "
                "ORDER BY day",
                params,
            ).fetchall()
        )
        return [(str(d), int(i or 0), int(o or 0), float(c) if p else None)
                for d, i, o, c, p in rows]  # fmt: skip

    def unresolved_errors(
        self, observer: str, project: str, limit: int = 20
    ) -> list[tuple[str, datetime, str]]:
        """(session id, started at, error) of the sessions of a project whose latest run of the
        observer failed, newest first."""
        rows = self.db._read(
            lambda c: c.execute(
                "SELECT r.session_id, r.started_at, r.error FROM observer_runs r "
                "WHERE r.observer = ? AND r.project = ? AND r.status = 'error' AND NOT EXISTS ("
                "SELECT 1 FROM observer_runs o WHERE o.observer = r.observer AND "
                "o.project = r.project AND o.session_id = r.session_id AND o.n > r.n) "
                "ORDER BY r.n DESC LIMIT ?",
                (observer, project, limit),
            ).fetchall()
        )
        return [(str(sid), _when(at), str(error or "")) for sid, at, error in rows]

    def last(self, observer: str, session_id: str) -> tuple[str, str | None] | None:
        """(status, error) of an observer's latest run in a session."""
        row = self.db._read(
            lambda c: c.execute(
                "SELECT status, error FROM observer_runs WHERE observer = ? AND session_id = ? "
                "ORDER BY n DESC LIMIT 1",
                (observer, session_id),
            ).fetchone()
        )
        return (str(row[0]), row[1]) if row else None
