"""The SQL of side effects and compliance verdicts: applying their changes to the index, and the
reads behind `onlooker side-effects`, `onlooker status` and the verifier's retry count."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..core.clock import parse_time
from ._database import Database, stamp
from .changes import Change
from .effect_records import ComplianceVerdict, SideEffectSaved

EFFECT_TABLES = ("side_effects", "compliance_verdicts")
"""Tables the journals rebuild."""

_SAVED = "key, project, session_id, action, tool, call_id, path, source, sha256, size, note, at"
_VERDICT = "project, session_id, agent_id, agent_type, verdict, missing, attempt, at"


def apply_effect_change(conn: sqlite3.Connection, change: Change) -> bool:
    """Apply a side-effect or verdict change (inside a transaction); False when it is neither."""
    if isinstance(change, SideEffectSaved):
        c = change
        conn.execute(
            f"INSERT OR IGNORE INTO side_effects ({_SAVED}, serial) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (c.key, c.project, c.session_id, c.action, c.tool, c.call_id, c.path, c.source,
             c.sha256, c.size, c.note, stamp(c.at), c.serial),
        )  # fmt: skip
        return True
    if isinstance(change, ComplianceVerdict):
        v = change
        conn.execute(
            f"INSERT INTO compliance_verdicts ({_VERDICT}, serial) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (v.project, v.session_id, v.agent_id, v.agent_type, v.verdict,
             json.dumps(list(v.missing), ensure_ascii=False), v.attempt, stamp(v.at), v.serial),
        )  # fmt: skip
        return True
    return False


class EffectsIndex:
    """Reads of the `side_effects` and `compliance_verdicts` tables of one index."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def done(self, key: str) -> bool:
        """Whether a side effect with this key was recorded."""
        return bool(
            self.db._read(
                lambda c: c.execute(
                    "SELECT 1 FROM side_effects WHERE key = ? LIMIT 1", (key,)
                ).fetchone()
            )
        )

    def saved(
        self, project: str | None = None, session_id: str | None = None, limit: int = 1000
    ) -> list[SideEffectSaved]:
        """What side effects saved, oldest first (a project's, a session's, or all)."""
        where, params = _where(project, session_id)
        rows = self.db._read(
            lambda c: c.execute(
                f"SELECT {_SAVED}, serial FROM side_effects{where} ORDER BY n LIMIT ?",
                (*params, limit),
            ).fetchall()
        )
        return [
            SideEffectSaved(
                key=r[0],
                project=r[1],
                session_id=r[2],
                action=r[3],
                tool=r[4],
                call_id=r[5],
                path=r[6],
                source=r[7],
                sha256=r[8],
                size=int(r[9]),
                note=r[10],
                at=parse_time(r[11]),
                serial=int(r[12]),
            )
            for r in rows
        ]

    def verdicts(
        self, project: str | None = None, session_id: str | None = None, limit: int = 1000
    ) -> list[ComplianceVerdict]:
        """Compliance verdicts, oldest first."""
        where, params = _where(project, session_id)
        rows = self.db._read(
            lambda c: c.execute(
                f"SELECT {_VERDICT}, serial FROM compliance_verdicts{where} ORDER BY n LIMIT ?",
                (*params, limit),
            ).fetchall()
        )
        return [_verdict(r) for r in rows]

    def last_verdicts(self, session_id: str, agent_id: str, limit: int) -> list[ComplianceVerdict]:
        """An agent's latest verdicts in a session, newest first."""
        rows = self.db._read(
            lambda c: c.execute(
                f"SELECT {_VERDICT}, serial FROM compliance_verdicts "
                "WHERE session_id = ? AND agent_id = ? ORDER BY n DESC LIMIT ?",
                (session_id, agent_id, limit),
            ).fetchall()
        )
        return [_verdict(r) for r in rows]

    def verdict_counts(self, project: str) -> dict[str, int]:
        """A project's verdicts by kind."""
        return self.db._read(
            lambda c: {
                str(r[0]): int(r[1])
                for r in c.execute(
                    "SELECT verdict, count(*) FROM compliance_verdicts WHERE project = ? "
                    "GROUP BY verdict",
                    (project,),
                )
            }
        )


def _where(project: str | None, session_id: str | None) -> tuple[str, tuple[Any, ...]]:
    parts, params = [], []
    if project is not None:
        parts.append("project = ?")
        params.append(project)
    if session_id is not None:
        parts.append("session_id = ?")
        params.append(session_id)
    return (" WHERE " + " AND ".join(parts) if parts else ""), tuple(params)


def _verdict(r: tuple[Any, ...]) -> ComplianceVerdict:
    return ComplianceVerdict(
        project=r[0], session_id=r[1], agent_id=r[2], agent_type=r[3], verdict=r[4],
        missing=tuple(json.loads(r[5])), attempt=int(r[6]), at=parse_time(r[7]),
        serial=int(r[8]),
    )  # fmt: skip
