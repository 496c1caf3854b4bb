"""Counters of memory extraction's model use (specs/memory.md): calls, tokens, cost, and the
batches a budget kept from the model, overall, per UTC day and per session. Kept in the index's
`counters` table, rebuilt from the journaled `memory_model_used` records by `onlooker reindex`.
"""

from __future__ import annotations

import sqlite3

from .memory_records import MemoryModelUsed

MODEL_COUNTER = "memory_model"
"""Prefix of the counters of extraction's model use: `memory_model:calls`, `:input`, `:output`,
`:cost_musd` (micro-dollars), `:skipped`, `:tokens@day:DAY`, `:cost_musd@day:DAY`,
`:tokens@session:ID`."""
DAY_COUNTERS = ("tokens@day:", "cost_musd@day:")
"""The per-day counters, each followed by its UTC day (YYYY-MM-DD)."""


def count_model_use(conn: sqlite3.Connection, change: MemoryModelUsed) -> None:
    if change.skipped:
        counts = {"skipped": 1, f"skipped_{change.skipped}": 1}
    else:
        tokens = change.input_tokens + change.output_tokens
        counts = {
            "calls": 1, "input": change.input_tokens, "output": change.output_tokens,
            "cost_musd": round((change.cost_usd or 0.0) * 1_000_000),
            "unpriced": int(change.cost_usd is None),
            f"tokens@day:{change.day}": tokens, f"tokens@session:{change.session_id}": tokens,
            f"cost_musd@day:{change.day}": round((change.cost_usd or 0.0) * 1_000_000),
        }  # fmt: skip
    conn.executemany(
        "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) "
        "DO UPDATE SET value = counters.value + excluded.value",
        [(f"{MODEL_COUNTER}:{name}", value) for name, value in counts.items()],
    )


def model_counters(conn: sqlite3.Connection, *names: str) -> dict[str, int]:
    """The extraction model's counters by name (`calls`, `tokens@day:2026-11-25`, ...; 0 when
    never counted)."""
    keys = [f"{MODEL_COUNTER}:{name}" for name in names]
    marks = ",".join("?" * len(keys))
    rows = conn.execute(f"SELECT name, value FROM counters WHERE name IN ({marks})", keys)
    found = {str(name): int(value) for name, value in rows}
    return {name: found.get(key, 0) for name, key in zip(names, keys, strict=True)}


def model_days(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """(UTC day, tokens, cost in micro-dollars) of extraction's calls per day, oldest first."""
    days: dict[str, list[int]] = {}
    for position, counter in enumerate(DAY_COUNTERS):
        prefix = f"{MODEL_COUNTER}:{counter}"
        rows = conn.execute(
            "SELECT name, value FROM counters WHERE name >= ? AND name < ?",
            (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        )
        for name, value in rows:
            days.setdefault(str(name)[len(prefix) :], [0, 0])[position] = int(value)
    return [(day, tokens, cost) for day, (tokens, cost) in sorted(days.items())]
