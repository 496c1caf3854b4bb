"""The SQL of memory capture's pending events: compressed tool calls waiting for extraction,
queued per session, read in order, counted, and consumed once extracted (specs/memory.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ._memory_index import _chunks
from .memory_records import PendingEvent, from_millis


def add_pending(
    conn: sqlite3.Connection,
    session_id: str,
    project: str,
    tool_name: str,
    compressed: str,
    files: Sequence[str],
    timestamp: int,
    created_at: int,
) -> int:
    row = conn.execute(
        "INSERT INTO pending_events (session_id, project, tool_name, compressed, files, "
        "timestamp, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (session_id, project, tool_name, compressed, "\n".join(files), timestamp, created_at),
    ).fetchone()
    return int(row[0])


def pending_events(conn: sqlite3.Connection, project: str, session_id: str) -> list[PendingEvent]:
    rows = conn.execute(
        "SELECT id, session_id, project, tool_name, compressed, files, timestamp "
        "FROM pending_events WHERE project = ? AND session_id = ? ORDER BY id",
        (project, session_id),
    ).fetchall()
    return [
        PendingEvent(r[0], r[1], r[2], r[3], r[4], tuple(p for p in r[5].split("\n") if p),
                     from_millis(r[6]))
        for r in rows
    ]  # fmt: skip


def idle_sessions(conn: sqlite3.Connection, project: str, before: int) -> list[str]:
    """Sessions of `project` with pending events, none queued at or after `before` (ms)."""
    rows = conn.execute(
        "SELECT session_id FROM pending_events WHERE project = ? GROUP BY session_id "
        "HAVING max(created_at) < ? ORDER BY min(id)",
        (project, before),
    )
    return [str(r[0]) for r in rows]


def count_pending(conn: sqlite3.Connection, project: str, session_id: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM pending_events WHERE project = ? AND session_id = ?",
        (project, session_id),
    ).fetchone()
    return int(row[0])


def consume_pending(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    for chunk in _chunks(tuple(ids)):
        conn.execute(
            f"DELETE FROM pending_events WHERE id IN ({','.join('?' * len(chunk))})", chunk
        )
