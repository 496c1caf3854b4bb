"""The SQL of memory: applying memory changes to the index, reading memories, and the filter
clause every query shares (full-text search is `_memory_text_search`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ._database import stamp
from ._memory_usage import count_model_use
from .changes import Change
from .memory_records import (
    MemoriesDropped,
    MemoriesForgotten,
    MemoriesInjected,
    MemoriesSuperseded,
    Memory,
    MemoryCreated,
    MemoryEdited,
    MemoryFilter,
    MemoryModelUsed,
    MemoryOptOut,
    MemoryPinned,
    from_millis,
    millis,
)

MEMORY_TABLES = ("memories", "memory_files", "memory_injections", "memory_opt_outs")
"""Tables the journals rebuild (pending events are not journaled: they are a work queue)."""

_COLUMNS = "m.id, m.title, m.content, m.project, m.session_id, m.timestamp, m.created_at"
_CHUNK = 500


def apply_memory_change(conn: sqlite3.Connection, change: Change) -> bool:
    """Apply a memory change (inside a transaction); False when `change` is not one."""
    if isinstance(change, MemoryCreated):
        m = change.memory
        conn.execute(
            "INSERT INTO memories (id, title, content, project, session_id, timestamp, "
            "created_at, serial) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (m.id, m.title, m.content, m.project, m.session_id, millis(m.timestamp),
             millis(m.created_at), change.serial),
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO memory_files (path, memory_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(path, m.id) for path in m.files],
        )
        conn.execute(
            "INSERT INTO counters (name, value) VALUES ('memory', ?) ON CONFLICT(name) "
            "DO UPDATE SET value = max(counters.value, excluded.value)",
            (m.id,),
        )
        return True
    if isinstance(change, MemoriesForgotten | MemoriesSuperseded):
        for chunk in _chunks(change.memory_ids):
            marks = ",".join("?" * len(chunk))
            for table, column in (
                ("memories", "id"), ("memory_files", "memory_id"),
                ("memory_injections", "memory_id"),
            ):  # fmt: skip
                conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
            conn.execute(f"DELETE FROM vectors WHERE kind = 'memory' AND id IN ({marks})", chunk)
        return True
    if isinstance(change, MemoriesInjected):
        if change.reset:
            conn.execute("DELETE FROM memory_injections WHERE session_id = ?", (change.session_id,))
        conn.executemany(
            "INSERT INTO memory_injections (session_id, memory_id) VALUES (?, ?) "
            "ON CONFLICT DO NOTHING",
            [(change.session_id, i) for i in change.memory_ids],
        )
        return True
    if isinstance(change, MemoryOptOut):
        if change.off:
            conn.execute(
                "INSERT INTO memory_opt_outs (project, since) VALUES (?, ?) "
                "ON CONFLICT(project) DO NOTHING",
                (change.project, stamp(change.at)),
            )
        else:
            conn.execute("DELETE FROM memory_opt_outs WHERE project = ?", (change.project,))
        return True
    if isinstance(change, MemoriesDropped):
        conn.execute(
            "INSERT INTO counters (name, value) VALUES ('memory_dropped', ?) ON CONFLICT(name) "
            "DO UPDATE SET value = counters.value + excluded.value",
            (sum(change.reasons.values()),),
        )
        return True
    if isinstance(change, MemoryModelUsed):
        count_model_use(conn, change)
        return True
    if isinstance(change, MemoryEdited):
        _edit(conn, change)
        return True
    if isinstance(change, MemoryPinned):
        conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) "
            "DO UPDATE SET value = excluded.value",
            (f"{PINNED}{change.memory_id}", int(change.pinned)),
        )
        return True
    return False


PINNED = "memory_pinned:"
"""Counter name prefix of a pinned memory (value 1; 0 once unpinned)."""


def _edit(conn: sqlite3.Connection, change: MemoryEdited) -> None:
    """New title and content: the row is written again, so the full-text index follows; its
    vector is dropped (stale), `onlooker reindex` embeds it anew."""
    row = conn.execute(
        "SELECT project, session_id, timestamp, created_at, serial FROM memories WHERE id = ?",
        (change.memory_id,),
    ).fetchone()
    if row is None:
        return
    conn.execute("DELETE FROM memories WHERE id = ?", (change.memory_id,))
    conn.execute(
        "INSERT INTO memories (id, title, content, project, session_id, timestamp, created_at, "
        "serial) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (change.memory_id, change.title, change.content, *row),
    )
    conn.execute("DELETE FROM vectors WHERE kind = 'memory' AND id = ?", (change.memory_id,))


def changed_later(conn: sqlite3.Connection, memory: Memory) -> list[str]:
    """The memory's files that a memory of a later session of its project names too."""
    found: list[str] = []
    for path in memory.files:
        row = conn.execute(
            "SELECT 1 FROM memory_files f JOIN memories m ON m.id = f.memory_id "
            "WHERE f.path = ? AND m.project = ? AND m.session_id != ? AND m.timestamp > ? LIMIT 1",
            (path, memory.project, memory.session_id, millis(memory.timestamp)),
        ).fetchone()
        if row is not None:
            found.append(path)
    return found


def pinned_memories(conn: sqlite3.Connection, where: MemoryFilter, limit: int) -> list[Memory]:
    """Pinned memories the filter allows whatever their age, newest first. Pins are few: they
    are read from their counters, not found by scanning the memories."""
    rows = conn.execute(
        "SELECT name FROM counters WHERE name LIKE 'memory_pinned:%' AND value > 0"
    ).fetchall()
    ids = tuple(int(str(row[0]).rpartition(":")[2]) for row in rows)
    clause, params = filter_clause(replace(where, after=None, before=None))
    found: list[Memory] = []
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        query = f"SELECT {_COLUMNS} FROM memories m WHERE m.id IN ({marks}){clause}"
        found.extend(_memories(conn, conn.execute(query, (*chunk, *params)).fetchall()))
    return sorted(found, key=lambda m: (m.timestamp, m.id), reverse=True)[:limit]


def last_memory_id(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM counters WHERE name = 'memory'").fetchone()
    return int(row[0]) if row else 0


# -- memories -------------------------------------------------------------------------------------


def memories_by_id(conn: sqlite3.Connection, ids: Iterable[int]) -> list[Memory]:
    """The memories with these ids, in the order asked (unknown ids left out)."""
    wanted = tuple(dict.fromkeys(int(i) for i in ids))
    found: dict[int, Memory] = {}
    for chunk in _chunks(wanted):
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT {_COLUMNS} FROM memories m WHERE m.id IN ({marks})", chunk)
        found.update((m.id, m) for m in _memories(conn, rows.fetchall()))
    return [found[i] for i in wanted if i in found]


def recent_memories(
    conn: sqlite3.Connection, where: MemoryFilter, limit: int, *, skip_session: str = ""
) -> list[Memory]:
    """Newest first; with `skip_session`, leave out memories already injected into it."""
    clause, params = filter_clause(where)
    if skip_session:
        clause += (
            " AND NOT EXISTS (SELECT 1 FROM memory_injections i "
            "WHERE i.session_id = ? AND i.memory_id = m.id)"
        )
        params.append(skip_session)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM memories m WHERE 1 = 1{clause} "
        "ORDER BY m.timestamp DESC, m.id DESC LIMIT ?",
        (*params, limit),
    ).fetchall()
    return _memories(conn, rows)


def session_memories(conn: sqlite3.Connection, session_id: str, limit: int) -> list[Memory]:
    """A session's latest memories, oldest of them first."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM memories m WHERE m.session_id = ? ORDER BY m.id DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return list(reversed(_memories(conn, rows)))


def matching_ids(conn: sqlite3.Connection, where: MemoryFilter) -> list[int]:
    clause, params = filter_clause(where)
    return [
        int(r[0]) for r in conn.execute(f"SELECT m.id FROM memories m WHERE 1 = 1{clause}", params)
    ]


def filter_clause(where: MemoryFilter) -> tuple[str, list[Any]]:
    """` AND ...` conditions on the memories alias `m`, and their parameters."""
    clause = ""
    params: list[Any] = []
    if where.projects:
        clause += f" AND m.project IN ({','.join('?' * len(where.projects))})"
        params.extend(where.projects)
    if where.after is not None:
        clause += " AND m.timestamp >= ?"
        params.append(millis(where.after))
    if where.before is not None:
        clause += " AND m.timestamp < ?"
        params.append(millis(where.before))
    if where.not_session:
        clause += " AND (m.session_id IS NULL OR m.session_id != ?)"
        params.append(where.not_session)
    if where.opted_in:
        clause += " AND m.project NOT IN (SELECT o.project FROM memory_opt_outs o)"
    if where.files:
        ends = " OR ".join("(f.path = ? OR f.path LIKE ? ESCAPE '\\')" for _ in where.files)
        clause += (
            f" AND EXISTS (SELECT 1 FROM memory_files f WHERE f.memory_id = m.id AND ({ends}))"
        )
        for path in where.files:
            params.extend((path, "%/" + _like_escaped(path.lstrip("/"))))
    return clause, params


def dropped_count(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM counters WHERE name = 'memory_dropped'").fetchone()
    return int(row[0]) if row else 0


def count_memories(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def _memories(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[Memory]:
    files: dict[int, list[str]] = {}
    ids = tuple(int(r[0]) for r in rows)
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for path, memory_id in conn.execute(
            f"SELECT path, memory_id FROM memory_files WHERE memory_id IN ({marks})", chunk
        ):
            files.setdefault(int(memory_id), []).append(path)
    return [
        Memory(int(r[0]), r[1], r[2], r[3], r[4] or "", from_millis(r[5]), from_millis(r[6]),
               tuple(sorted(files.get(int(r[0]), ()))))
        for r in rows
    ]  # fmt: skip


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _chunks(items: tuple[Any, ...]) -> Iterable[tuple[Any, ...]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
