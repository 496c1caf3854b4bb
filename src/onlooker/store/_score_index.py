"""The SQL of session scores: applying score changes to the index and reading them back.

Scores, improvements, rejections and settings are each kept whole (as the journal record's JSON)
beside the columns they are looked up by.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, TypeVar

from ..core.records import decode_as, encode
from .changes import Change
from .score_records import (
    Improvement,
    ImprovementRecorded,
    ObserverSettingSet,
    PatternRejected,
    ScoresPruned,
    SessionScore,
    SessionScored,
)

T = TypeVar("T")

SCORE_TABLES = ("scores", "improvements", "rejections", "observer_settings")
"""Tables the journals rebuild."""


def apply_score_change(conn: sqlite3.Connection, change: Change) -> bool:
    """Apply a score change (inside a transaction); False when `change` is not one."""
    if isinstance(change, SessionScored):
        s = change.score
        conn.execute(
            "INSERT INTO scores (project, session_id, agent_name, agent_type, score, timestamp, "
            "data, serial) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(project, session_id) DO "
            "UPDATE SET agent_name = excluded.agent_name, agent_type = excluded.agent_type, "
            "score = excluded.score, timestamp = excluded.timestamp, data = excluded.data, "
            "serial = excluded.serial",
            (s.project, s.session_id, s.agent_name, s.agent_type, s.score, s.card.timestamp,
             _json(s), change.serial),
        )  # fmt: skip
        return True
    if isinstance(change, ScoresPruned):
        conn.executemany(
            "DELETE FROM scores WHERE project = ? AND session_id = ?",
            [(change.project, session_id) for session_id in change.session_ids],
        )
        return True
    if isinstance(change, ImprovementRecorded):
        i = change.improvement
        conn.execute(
            "INSERT INTO improvements (id, project, status, data, serial) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET status = excluded.status, data = excluded.data",
            (i.id, i.project, i.status, _json(i), change.serial),
        )
        return True
    if isinstance(change, PatternRejected):
        if change.rejected:
            conn.execute(
                "INSERT OR IGNORE INTO rejections (project, pattern, serial) VALUES (?, ?, ?)",
                (change.project, change.pattern, change.serial),
            )
        else:
            conn.execute(
                "DELETE FROM rejections WHERE project = ? AND pattern = ?",
                (change.project, change.pattern),
            )
        return True
    if isinstance(change, ObserverSettingSet):
        if change.value:
            conn.execute(
                "INSERT INTO observer_settings (project, name, value) VALUES (?, ?, ?) "
                "ON CONFLICT(project, name) DO UPDATE SET value = excluded.value",
                (change.project, change.name, change.value),
            )
        else:
            conn.execute(
                "DELETE FROM observer_settings WHERE project = ? AND name = ?",
                (change.project, change.name),
            )
        return True
    return False


def read_scores(conn: sqlite3.Connection, project: str) -> list[SessionScore]:
    """A project's scores, oldest first."""
    rows = conn.execute(
        "SELECT data FROM scores WHERE project = ? ORDER BY timestamp, session_id", (project,)
    ).fetchall()
    return [_decode(SessionScore, row[0]) for row in rows]


def read_score(conn: sqlite3.Connection, project: str, session_id: str) -> SessionScore | None:
    row = conn.execute(
        "SELECT data FROM scores WHERE project = ? AND session_id = ?", (project, session_id)
    ).fetchone()
    return _decode(SessionScore, row[0]) if row else None


def read_improvements(conn: sqlite3.Connection, project: str) -> list[Improvement]:
    """A project's improvements in the order they were proposed."""
    rows = conn.execute(
        "SELECT data FROM improvements WHERE project = ? ORDER BY serial, id", (project,)
    ).fetchall()
    return [_decode(Improvement, row[0]) for row in rows]


def read_rejections(conn: sqlite3.Connection, project: str) -> list[str]:
    rows = conn.execute(
        "SELECT pattern FROM rejections WHERE project = ? ORDER BY serial", (project,)
    ).fetchall()
    return [str(row[0]) for row in rows]


def read_settings(conn: sqlite3.Connection, project: str) -> dict[str, str]:
    rows = conn.execute(
        "SELECT name, value FROM observer_settings WHERE project = ?", (project,)
    ).fetchall()
    return {str(name): str(value) for name, value in rows}


def _json(value: Any) -> str:
    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True)


def _decode(cls: type[T], text: str) -> T:
    return decode_as(cls, json.loads(text))
