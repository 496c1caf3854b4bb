"""Tokens and cost per day against the memory budget (specs/serve.md, Look): what memory
extraction's model used each UTC day beside `memory.dailyTokens` (the cap it is held to, every
project of the data home together), and what the reviewers used and cost that day.
"""

from __future__ import annotations

from typing import Any

from ..errors import OnlookerError
from ..memory._memories import Memories
from ..memory.settings import MemorySettings
from ..store import Store

DAYS = 14
"""Days shown (the newest with any use)."""


def daily_usage(store: Store, project: str | None) -> dict[str, Any]:
    """Per day: extraction's tokens, their share of the daily budget and their cost; the
    reviewers' tokens in and out and their cost (of `project`, or of every project)."""
    budget = _daily_budget(store, project)
    days: dict[str, dict[str, Any]] = {}

    def day(name: str) -> dict[str, Any]:
        return days.setdefault(name, {
            "day": name, "memory_tokens": 0, "memory_cost_usd": 0.0, "reviewer_input": 0,
            "reviewer_output": 0, "reviewer_cost_usd": None,
        })  # fmt: skip

    for name, tokens, cost_musd in Memories(store).model_days():
        row = day(name)
        row["memory_tokens"], row["memory_cost_usd"] = tokens, cost_musd / 1_000_000
    for name, tokens_in, tokens_out, cost in store.runs.per_day(project):
        row = day(name)
        row["reviewer_input"], row["reviewer_output"], row["reviewer_cost_usd"] = (
            tokens_in, tokens_out, cost)  # fmt: skip
    rows = [days[name] for name in sorted(days)[-DAYS:]]
    for row in rows:
        row["budget_share"] = row["memory_tokens"] / budget if budget else None
        row["over_budget"] = bool(budget) and row["memory_tokens"] > budget
    return {"daily_tokens": budget, "days": rows}


def _daily_budget(store: Store, project: str | None) -> int:
    """The project's `memory.dailyTokens` (its config, in the folder its sessions ran in), or
    the default when no project is named or its folder is gone."""
    if project:
        from ..config import load_project
        from .actions import project_folder

        try:
            return load_project(project_folder(store, project)).memory.daily_tokens
        except OnlookerError:
            pass
    return MemorySettings().daily_tokens
