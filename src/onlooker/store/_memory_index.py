"""The SQL of memory: applying memory changes to the index, reading memories, and full-text
search (FTS5, best first by bm25) with every filter inside the query.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
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
_WORD = re.compile(r"\w+", re.UNICODE)
_RUNS = re.compile(r"[^\W_]+")
_CHUNK = 500
COMMON_SHARE = 0.05
"""A word in more than this share of the memories says little about a match (see text_search)."""
RANK_WINDOW = 2_000
"""bm25 ranks at most this many matches of one query: the newest ones the filter allows. Ranking
costs per match, so a query matching 10% of 100k memories would spend ~15 ms on it; the newest
2,000 cost ~4 ms, and memory search favours recent memories anyway."""


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


def text_search(
    conn: sqlite3.Connection, query: str, where: MemoryFilter, limit: int, dialect: str = "sqlite"
) -> list[int]:
    """Ids of the memories matching `query`, best first (bm25 over title and content; on
    PostgreSQL ts_rank over the `search` tsvector): those with every word first, then those with
    any of its selective words. Ranking costs per match, so words found in more than COMMON_SHARE
    of the memories are left out of the second step while a rarer word remains, and each step
    ranks only its newest RANK_WINDOW matches."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(query)))
    if not words:
        return []
    clause, params = filter_clause(where)
    if dialect == "postgres":
        words = [w for w in words if _RUNS.search(w)]
        ranked = partial(_ranked_postgres, conn, clause, params)
        terms, both, either = _tsquery_terms, " & ", " | "
    else:
        ranked = partial(_ranked_fts5, conn, clause, params)
        terms, both, either = _quoted, " AND ", " OR "
    if not words:
        return []
    found = ranked(both.join(terms(words)), limit) if len(words) > 1 else []
    if len(found) >= limit:
        return found
    more = ranked(either.join(terms(_selective(conn, words, dialect))), limit + len(found))
    return list(dict.fromkeys(found + more))[:limit]


def _ranked_fts5(
    conn: sqlite3.Connection, clause: str, params: list[Any], match: str, wanted: int
) -> list[int]:
    matches = (
        "FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
        f"WHERE memories_fts MATCH ?{clause}"
    )
    floor = conn.execute(
        f"SELECT m.id {matches} ORDER BY memories_fts.rowid DESC LIMIT 1 OFFSET ?",
        (match, *params, RANK_WINDOW - 1),
    ).fetchone()
    window = " AND memories_fts.rowid >= ?" if floor else ""
    # bm25() rather than `rank`: FTS5 would rank every match before the filter applies
    rows = conn.execute(
        f"SELECT m.id {matches}{window} ORDER BY bm25(memories_fts), m.id DESC LIMIT ?",
        (match, *params, *([floor[0]] if floor else []), wanted),
    ).fetchall()
    return [int(r[0]) for r in rows]


def _ranked_postgres(
    conn: sqlite3.Connection, clause: str, params: list[Any], match: str, wanted: int
) -> list[int]:
    tsquery = "to_tsquery('onlooker_english', ?)"
    rows = conn.execute(
        f"SELECT id FROM (SELECT m.id, ts_rank(m.search, {tsquery}) AS score FROM memories m "
        f"WHERE m.search @@ {tsquery}{clause} ORDER BY m.id DESC LIMIT ?) newest "
        "ORDER BY score DESC, id DESC LIMIT ?",
        (match, match, *params, RANK_WINDOW, wanted),
    ).fetchall()
    return [int(r[0]) for r in rows]


def _selective(conn: sqlite3.Connection, words: list[str], dialect: str) -> list[str]:
    """The words found in at most COMMON_SHARE of the memories, or else the rarest one."""
    total = last_memory_id(conn)
    if total < 1000 or len(words) == 1:
        return words
    if dialect == "postgres":
        count = "SELECT count(*) FROM memories WHERE search @@ to_tsquery('onlooker_english', ?)"
        counts = {
            w: int(conn.execute(count, (_tsquery_terms([w])[0],)).fetchone()[0]) for w in words
        }
    else:
        count = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"
        counts = {w: int(conn.execute(count, (f'"{w}"',)).fetchone()[0]) for w in words}
    kept = [w for w in words if 0 < counts[w] <= COMMON_SHARE * total]
    return kept or [min(words, key=lambda w: counts[w] or total + 1)]


def _tsquery_terms(words: Sequence[str]) -> list[str]:
    """Each word as a to_tsquery phrase of its letter and digit runs (as FTS5 splits a quoted
    word), for joining with & or |."""
    return ["(" + " <-> ".join(_RUNS.findall(w)) + ")" for w in words]


def _quoted(words: Sequence[str]) -> list[str]:
    return [f'"{w}"' for w in words]


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
