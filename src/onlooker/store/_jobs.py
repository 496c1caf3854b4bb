"""The job queue in the index: work a hook hands to the detached worker (`onlooker.daemon.worker`).

A job is queued, claimed under a lease, then done or failed. The worker renews the lease while the
handler runs; a worker that dies leaves its lease to run out, and the job is claimed again (up to
`max_attempts` claims); a failed attempt is retried after a back-off. Only the claim that still
holds the job may finish it, so a worker that lost its claim cannot undo the next one's work.
Handlers are `def handle(job: Job, ctx: JobContext) -> None`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from ..core.clock import Clock, parse_time
from ._database import Database, stamp

JobStatus = Literal["queued", "running", "done", "failed"]
LEASE = 300.0
"""Seconds a claimed job belongs to its worker before another may take it over."""
MAX_ATTEMPTS = 3
RETRY_AFTER = 5.0
"""Seconds before a failed attempt is tried again (doubled per attempt)."""

_COLUMNS = (
    "id, kind, project, session_id, payload, status, attempts, max_attempts, created_at, worker"
)
_HELD = "id = ? AND status = 'running' AND worker = ? AND attempts = ?"
"""The job is still under this claim: no other claim took it over since."""


@dataclass(frozen=True, slots=True)
class Job:
    """One unit of queued work."""

    id: int
    kind: str
    """Which handler runs it (`review.run`, `memory.extract`): a key of `worker.HANDLERS`."""
    project: str
    session_id: str
    payload: dict[str, Any]
    status: JobStatus = "queued"
    attempts: int = 0
    """Claims so far, this one included."""
    max_attempts: int = MAX_ATTEMPTS
    created_at: datetime | None = None
    worker: str = ""
    """Who holds (or last held) the claim, `host:pid`; empty until first claimed."""


DIED = "the worker running it died each time"
"""Why a job whose attempts ran out while running failed (it is never retried again)."""


@dataclass(frozen=True, slots=True)
class Backlog:
    """Jobs waiting or running in a data home, and the age of the oldest (0 when none)."""

    queued: int
    running: int
    oldest_seconds: float


class JobQueue:
    """The `jobs` table of one index."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    def enqueue(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        project: str,
        session_id: str = "",
        max_attempts: int = MAX_ATTEMPTS,
        delay: float = 0.0,
    ) -> int:
        """Queue a job; it is claimed no sooner than `delay` seconds from now."""
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
        when = self.clock.now()
        now, due = stamp(when), stamp(when + timedelta(seconds=delay))
        with self.db.transaction(exclusive=False):
            row = self.db._conn.execute(
                "INSERT INTO jobs (kind, project, session_id, payload, status, max_attempts, "
                "created_at, available_at) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?) RETURNING id",
                (kind, project, session_id, text, max_attempts, now, due),
            ).fetchone()
            return int(row[0])

    def claim(self, worker: str, *, lease: float = LEASE) -> Job | None:
        """Take the oldest ready job (queued and due, or running with an expired lease). On
        PostgreSQL the row is locked FOR UPDATE SKIP LOCKED: workers on several machines claim
        different jobs at once, never one job twice."""
        now = self.clock.now()
        at = stamp(now)
        skip_locked = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgres" else ""
        with self.db.transaction(exclusive=False):
            conn = self.db._conn
            while True:
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM jobs WHERE (status = 'queued' AND available_at <= ?) "
                    f"OR (status = 'running' AND lease_until < ?) ORDER BY id LIMIT 1{skip_locked}",
                    (at, at),
                ).fetchone()
                if row is None:
                    return None
                job = _job(row)
                if job.attempts >= job.max_attempts:  # its workers died every time
                    conn.execute(
                        "UPDATE jobs SET status = 'failed', finished_at = ?, error = ? "
                        "WHERE id = ?",
                        (at, f"abandoned after {job.attempts} attempts: {DIED}", job.id),
                    )
                    continue
                conn.execute(
                    "UPDATE jobs SET status = 'running', attempts = attempts + 1, "
                    "lease_until = ?, worker = ? WHERE id = ?",
                    (stamp(now + timedelta(seconds=lease)), worker, job.id),
                )
                return replace(job, status="running", attempts=job.attempts + 1, worker=worker)

    def release(self, host: str) -> int:
        """Make the running jobs of workers on `host` claimable at once: called by the one worker
        that holds a data home's lock, every other worker of this host for it has died."""
        at = stamp(self.clock.now())
        with self.db.transaction(exclusive=False):
            cursor = self.db._conn.execute(
                "UPDATE jobs SET lease_until = ? WHERE status = 'running' AND worker LIKE ?",
                (at, f"{host}:%"),
            )
            return cursor.rowcount

    def backlog(self) -> Backlog:
        """Jobs waiting or running, and how long the oldest of them has waited."""
        row = self.db._read(
            lambda c: c.execute(
                "SELECT count(*) FILTER (WHERE status = 'queued'), "
                "count(*) FILTER (WHERE status = 'running'), min(created_at) FROM jobs "
                "WHERE status IN ('queued', 'running')"
            ).fetchone()
        )
        oldest = parse_time(row[2]) if row[2] else None
        waited = (self.clock.now() - oldest).total_seconds() if oldest else 0.0
        return Backlog(queued=int(row[0]), running=int(row[1]), oldest_seconds=waited)

    def failures(
        self, limit: int = 3, kind: str = "", since: datetime | None = None
    ) -> tuple[int, list[tuple[str, str]]]:
        """How many jobs (of `kind`, when given; failed at or after `since`, when given) failed
        for good, and the (kind, error) of the latest `limit` of them."""
        where = "status = 'failed'" + (" AND kind = ?" if kind else "")
        params: tuple[str, ...] = (kind,) if kind else ()
        if since is not None:
            where += " AND finished_at >= ?"
            params = (*params, stamp(since))

        def read(c: sqlite3.Connection) -> tuple[int, list[tuple[str, str]]]:
            count = c.execute(f"SELECT count(*) FROM jobs WHERE {where}", params).fetchone()[0]
            rows = c.execute(
                f"SELECT kind, error FROM jobs WHERE {where} ORDER BY id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
            return int(count), [(str(kind), str(error or "")) for kind, error in rows]

        return self.db._read(read)

    def renew(self, job: Job, *, lease: float = LEASE) -> bool:
        """Extend a claim's lease from now, so a handler that outlives one lease keeps its job.
        False when the claim no longer holds the job."""
        until = stamp(self.clock.now() + timedelta(seconds=lease))
        with self.db.transaction(exclusive=False):
            cursor = self.db._conn.execute(
                f"UPDATE jobs SET lease_until = ? WHERE {_HELD}",
                (until, job.id, job.worker, job.attempts),
            )
            return cursor.rowcount > 0

    def holds(self, job_id: int, worker: str, attempts: int) -> bool:
        """Whether that claim (the job's attempt `attempts` by `worker`) still holds the job with a
        live lease: False once it finished, failed, was taken over, or its worker died (the lease
        ran out, or the next worker of its host released it)."""
        at = stamp(self.clock.now())
        return bool(
            self.db._read(
                lambda c: c.execute(
                    f"SELECT 1 FROM jobs WHERE {_HELD} AND lease_until >= ?",
                    (job_id, worker, attempts, at),
                ).fetchone()
            )
        )

    def complete(self, job: Job) -> bool:
        """Mark a claimed job done. False, changing nothing, when the claim no longer holds it
        (its lease ran out and another claim took the job over)."""
        with self.db.transaction(exclusive=False):
            cursor = self.db._conn.execute(
                "UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL, "
                f"error = NULL WHERE {_HELD}",
                (stamp(self.clock.now()), job.id, job.worker, job.attempts),
            )
            return cursor.rowcount > 0

    def fail(self, job: Job, error: str, *, retry: bool = True) -> JobStatus | None:
        """Record a claim's failed attempt: queued again after a back-off while attempts remain,
        else failed. Returns the job's new status; None, changing nothing, when the claim no
        longer holds the job (a late failure must not re-queue a job another claim finished)."""
        now = self.clock.now()
        status: JobStatus = "queued" if retry and job.attempts < job.max_attempts else "failed"
        later = now + timedelta(seconds=RETRY_AFTER * 2 ** max(job.attempts - 1, 0))
        with self.db.transaction(exclusive=False):
            cursor = self.db._conn.execute(
                "UPDATE jobs SET status = ?, error = ?, lease_until = NULL, available_at = ?, "
                f"finished_at = ? WHERE {_HELD}",
                (status, error[:2000], stamp(later), stamp(now) if status == "failed" else None,
                 job.id, job.worker, job.attempts),
            )  # fmt: skip
            return status if cursor.rowcount > 0 else None

    def get(self, job_id: int) -> Job | None:
        row = self.db._read(
            lambda c: c.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        )
        return _job(row) if row else None

    def counts(self) -> dict[str, int]:
        """Jobs by status."""
        return self.db._read(
            lambda c: {
                str(r[0]): int(r[1])
                for r in c.execute("SELECT status, count(*) FROM jobs GROUP BY status")
            }
        )

    def unfinished(self, kind: str, session_id: str) -> bool:
        """Whether a job of `kind` for the session is queued or running."""
        return bool(
            self.db._read(
                lambda c: c.execute(
                    "SELECT 1 FROM jobs WHERE kind = ? AND session_id = ? "
                    "AND status IN ('queued', 'running') LIMIT 1",
                    (kind, session_id),
                ).fetchone()
            )
        )

    def hasten(self, kind: str, session_id: str) -> bool:
        """Make the queued jobs of `kind` for the session due now; whether there was one."""
        now = stamp(self.clock.now())
        with self.db.transaction(exclusive=False):
            cursor = self.db._conn.execute(
                "UPDATE jobs SET available_at = ? WHERE kind = ? AND session_id = ? "
                "AND status = 'queued' AND available_at > ?",
                (now, kind, session_id, now),
            )
            return cursor.rowcount > 0

    def has_ready(self) -> bool:
        """Whether a job is waiting now (queued and due, or with an expired lease)."""
        at = stamp(self.clock.now())
        return bool(
            self.db._read(
                lambda c: c.execute(
                    "SELECT 1 FROM jobs WHERE (status = 'queued' AND available_at <= ?) "
                    "OR (status = 'running' AND lease_until < ?) LIMIT 1",
                    (at, at),
                ).fetchone()
            )
        )

    def next_due(self) -> datetime | None:
        """When the next queued job becomes due (for a worker deciding how long to wait)."""
        row = self.db._read(
            lambda c: c.execute(
                "SELECT min(available_at) FROM jobs WHERE status = 'queued'"
            ).fetchone()
        )
        return parse_time(row[0]) if row and row[0] else None


def _job(row: tuple[Any, ...]) -> Job:
    return Job(
        id=int(row[0]), kind=str(row[1]), project=str(row[2]), session_id=str(row[3]),
        payload=json.loads(row[4]), status=row[5], attempts=int(row[6]),
        max_attempts=int(row[7]), created_at=parse_time(row[8]), worker=str(row[9] or ""),
    )  # fmt: skip
