"""Full-text search of memories (specs/memory.md, Search): FTS5 ranked by bm25 on SQLite, ts_rank
over the `search` tsvector on PostgreSQL, every filter inside the query.

On SQLite a search limited to one project runs over `memories_fts_by_project` (migration m015),
where a project's memories are one rowid range: FTS5 seeks to it, so the filter narrows before
anything is read or ranked, and bm25 scores as it does over all memories (same rows, same tokens).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from ._memory_index import filter_clause, last_memory_id
from .memory_records import MemoryFilter

_WORD = re.compile(r"\w+", re.UNICODE)
_RUNS = re.compile(r"[^\W_]+")
COMMON_SHARE = 0.05
"""A word in more than this share of the memories says little about a match (see text_search)."""
SAMPLE = 20_000
"""Words are counted among the newest this many memories: counting up to 5% of every memory cost
~4.5 ms a common word at 1M memories, up to 5% of these ~0.25 ms, whatever the store's size."""
RANK_WINDOW = 2_000
"""bm25 ranks at most this many matches of one query: the newest ones the filter allows. Ranking
costs per match, so a query matching 10% of 100k memories would spend ~15 ms on it; the newest
2,000 cost ~4 ms, and memory search favours recent memories anyway."""
PROJECT_SHIFT = 40
"""A row of `memories_fts_by_project` is `key << PROJECT_SHIFT | memory id` (ids below 2**40)."""

Ranked = Callable[[str, int], list[int]]


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
    ranked: Ranked
    if dialect == "postgres":
        words = [w for w in words if _RUNS.search(w)]
        clause, params = filter_clause(where)
        ranked = partial(_ranked_postgres, conn, clause, params)
        terms, both, either = _tsquery_terms, " & ", " | "
    else:
        ranked = _fts5_ranking(conn, where)
        terms, both, either = _quoted, " AND ", " OR "
    if not words:
        return []
    found = ranked(both.join(terms(words)), limit) if len(words) > 1 else []
    if len(found) >= limit:
        return found
    more = ranked(either.join(terms(_selective(conn, words, dialect))), limit + len(found))
    return list(dict.fromkeys(found + more))[:limit]


def _fts5_ranking(conn: sqlite3.Connection, where: MemoryFilter) -> Ranked:
    """How to rank FTS5 matches under `where`: in one project's rowid range when it names one
    project, else over every memory with the filter joined in."""
    if len(where.projects) != 1:
        clause, params = filter_clause(where)
        return partial(_ranked_fts5, conn, clause, params)
    row = conn.execute(
        "SELECT key FROM memory_projects WHERE project = ?", (where.projects[0],)
    ).fetchone()
    if row is None:  # the project has no memories
        return lambda match, wanted: []
    clause, params = filter_clause(replace(where, projects=()))
    return partial(_ranked_in_project, conn, int(row[0]), clause, params)


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


def _ranked_in_project(
    conn: sqlite3.Connection, key: int, clause: str, params: list[Any], match: str, wanted: int
) -> list[int]:
    """`_ranked_fts5` within one project's rowid range; the other conditions of the filter (time,
    files, sessions), if any, are joined in for the project's matches only."""
    low = key << PROJECT_SHIFT
    high = low + (1 << PROJECT_SHIFT) - 1
    fts = "memories_fts_by_project"
    join, joined = (f" JOIN memories m ON m.id = {fts}.rowid - ?", [low]) if clause else ("", [])
    matches = f"FROM {fts}{join} WHERE {fts} MATCH ? AND {fts}.rowid BETWEEN ? AND ?"
    floor = conn.execute(
        f"SELECT {fts}.rowid {matches}{clause} ORDER BY {fts}.rowid DESC LIMIT 1 OFFSET ?",
        (*joined, match, low, high, *params, RANK_WINDOW - 1),
    ).fetchone()
    rows = conn.execute(
        f"SELECT {fts}.rowid - ? {matches}{clause} ORDER BY bm25({fts}), {fts}.rowid DESC LIMIT ?",
        (low, *joined, match, int(floor[0]) if floor else low, high, *params, wanted),
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
    """The words found in at most COMMON_SHARE of the newest SAMPLE memories (or in none of them
    but in an older one), or else the rarest one. Counting stops one past the share (a common
    word's matches are not all counted), and when every word is common, each count stops at the
    fewest matches found so far."""
    total = last_memory_id(conn)
    if total < 1000 or len(words) == 1:
        return words
    since = max(0, total - SAMPLE)
    sampled = total - since
    most = int(COMMON_SHARE * sampled)
    counts = {w: _count(conn, w, dialect, most + 1, since) for w in words}
    for word in words:  # none among the newest: rare, if older memories hold it
        if not counts[word] and since and _count(conn, word, dialect, 1, 0):
            counts[word] = 1
    kept = [w for w in words if 0 < counts[w] <= most]
    if kept:
        return kept
    rarest, fewest = words[0], sampled + 1  # a word with no match counts as sampled + 1
    for word in words:
        found = _count(conn, word, dialect, fewest, since) if counts[word] else 0
        if 0 < found < fewest:
            rarest, fewest = word, found
    return [rarest]


def _count(conn: sqlite3.Connection, word: str, dialect: str, upto: int, since: int) -> int:
    """How many memories with an id above `since` hold `word`, counted up to `upto`."""
    if dialect == "postgres":
        sql = (
            "SELECT count(*) FROM (SELECT 1 FROM memories "
            "WHERE search @@ to_tsquery('onlooker_english', ?) AND id > ? LIMIT ?) found"
        )
        term = _tsquery_terms([word])[0]
    else:
        sql = (
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts "
            "WHERE memories_fts MATCH ? AND rowid > ? LIMIT ?)"
        )
        term = f'"{word}"'
    return int(conn.execute(sql, (term, since, upto)).fetchone()[0])


def _tsquery_terms(words: Sequence[str]) -> list[str]:
    """Each word as a to_tsquery phrase of its letter and digit runs (as FTS5 splits a quoted
    word), for joining with & or |."""
    return ["(" + " <-> ".join(_RUNS.findall(w)) + ")" for w in words]


def _quoted(words: Sequence[str]) -> list[str]:
    return [f'"{w}"' for w in words]
