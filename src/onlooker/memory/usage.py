"""What memory extraction's model has used and cost, and what its budgets kept from it, as
`onlooker status` and `onlooker doctor` show it (specs/memory.md)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from ._memories import Memories
from .budget import day_of
from .settings import NO_MODEL, extraction_model, model_source


def model_report(
    memories: Memories, *, configured: str, home: Path, now: datetime
) -> dict[str, Any]:
    """The model in effect, where it is named, and what extraction's calls used in this data
    home: calls, tokens, estimated cost, today's tokens, batches over a budget."""
    today = f"tokens@day:{day_of(now)}"
    count = memories.model_counters(
        "calls", "input", "output", "cost_musd", "unpriced", "skipped", "skipped_session",
        "skipped_day", today,
    )  # fmt: skip
    spec = extraction_model(configured, home)
    return {
        "model": spec or NO_MODEL,
        "source": model_source(configured, home),
        "calls": count["calls"],
        "input_tokens": count["input"],
        "output_tokens": count["output"],
        "cost_usd": count["cost_musd"] / 1_000_000,
        "unpriced_calls": count["unpriced"],
        "tokens_today": count[today],
        "over_budget": {"session": count["skipped_session"], "day": count["skipped_day"]},
    }


def describe(report: dict[str, Any]) -> list[str]:
    """The report in a few lines."""
    source = report["source"]
    lines = [f"{report['model']}" + (f" (from {source})" if source != "none" else "")]
    if report["calls"]:
        unpriced = report["unpriced_calls"]
        cost = f"${report['cost_usd']:.4f} estimated" + (
            f" ({unpriced} call{'s' if unpriced != 1 else ''} not priced)" if unpriced else ""
        )
        lines.append(
            f"{report['calls']} calls, {report['input_tokens']:,} input + "
            f"{report['output_tokens']:,} output tokens, {cost}; "
            f"{report['tokens_today']:,} tokens today"
        )
    over = report["over_budget"]
    if over["session"] or over["day"]:
        lines.append(
            f"{over['session'] + over['day']} batches made by rule instead, over the token budget "
            f"(per session: {over['session']}, per day: {over['day']}; memory.sessionTokens, "
            "memory.dailyTokens)"
        )
    return lines
