"""Store figures at scale: create_batch throughput into a fresh data home, then `list` with
filters, full-text search and one-finding creates (what a hook does) at 100,000 findings."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from onlooker.core.assessment import SEVERITIES
from onlooker.store import ObservationsTool, Store

from .measure import Result, report

FINDINGS = 100_000
BATCH = 1_000
OBSERVERS = ("Security Reviewer", "Code Quality", "Logic Checker", "Quick Scanner", "stall",
             "cascade", "drift", "deadline")  # fmt: skip
TOPICS = tuple(
    f"{problem} in {place}"
    for problem in ("SQL injection", "unchecked return value", "retry loop without backoff",
                    "hardcoded credential", "missing test", "race on shared state",
                    "path traversal", "unbounded cache", "swallowed exception", "N+1 query")
    for place in ("the query builder", "the HTTP client", "the parser", "settings",
                  "the job runner")
)  # fmt: skip
CHANGED_SHARE = 0.02
"""Share of the findings acknowledged, and again resolved, one tool call each."""
QUERIES = 200
TARGET_LIST_P50_MS = 50.0
TARGET_CREATE_PER_S = 1_000.0


def batch(start: int, size: int) -> list[dict[str, Any]]:
    return [
        {
            "observer": OBSERVERS[n % len(OBSERVERS)],
            "content": f"{TOPICS[n % len(TOPICS)]} (case {n})",
            "severity": SEVERITIES[n % len(SEVERITIES)],
            "source_type": "file",
            "source_ref": f"src/module_{n % 500}.py:{n}",
            "metadata": {"category": "security" if n % 3 else "quality"},
        }
        for n in range(start, start + size)
    ]


def timings(work: Callable[[], object], runs: int) -> list[float]:
    spent = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        spent.append((time.perf_counter() - began) * 1000)
    return spent


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def run(findings: int = FINDINGS, queries: int = QUERIES) -> list[Result]:
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        tool = ObservationsTool(store, project="bench", session_id="bench-session")
        began = time.perf_counter()
        ids: list[str] = []
        for start in range(0, findings, BATCH):
            response = tool({"operation": "create_batch", "observations": batch(start, BATCH)})
            ids.extend(o["id"] for o in response["observations"])
        rate = findings / (time.perf_counter() - began)
        changed = int(findings * CHANGED_SHARE)
        for finding_id in ids[:changed]:
            tool({"operation": "acknowledge", "observation_id": finding_id})
        for finding_id in ids[changed : 2 * changed]:
            tool({"operation": "resolve", "observation_id": finding_id, "resolution_note": "ok"})

        filtered = {
            "operation": "list",
            "filters": {"status": "open", "severity": ["critical", "high"],
                        "observer": "Security Reviewer"},
            "sort_by": "severity",
            "limit": 50,
        }  # fmt: skip
        newest = {"operation": "list", "filters": {"status": "open"}, "sort_by": "created_at",
                  "limit": 50}  # fmt: skip
        listed = timings(lambda: tool(filtered), queries)
        recent = timings(lambda: tool(newest), queries)
        searched = timings(lambda: store.search("path traversal parser", "bench", 20), queries)
        fresh = iter(range(len(ids), len(ids) + queries))
        single = timings(
            lambda: tool({"operation": "create_batch", "observations": batch(next(fresh), 1)}),
            queries,
        )
    p50 = p(listed, 50)
    return [
        Result(
            "create_batch",
            f"{rate:,.0f} records/s",
            f"{findings:,} findings in batches of {BATCH:,} (target ≥ {TARGET_CREATE_PER_S:,.0f})",
            rate >= TARGET_CREATE_PER_S,
        ),
        Result(
            "list, 3 filters, limit 50",
            f"p50 {p50:.2f} ms",
            f"p95 {p(listed, 95):.2f} ms at {findings:,} findings (target p50 ≤ "
            f"{TARGET_LIST_P50_MS:g} ms)",
            p50 <= TARGET_LIST_P50_MS,
        ),
        Result(
            "list open, newest 50",
            f"p50 {p(recent, 50):.2f} ms",
            f"p95 {p(recent, 95):.2f} ms (counts over every open finding included)",
        ),
        Result(
            "search (FTS5), top 20",
            f"p50 {p(searched, 50):.2f} ms",
            f"p95 {p(searched, 95):.2f} ms; 3 words, {findings // len(TOPICS):,} matches",
        ),
        Result(
            "create_batch of 1 (a hook)",
            f"p50 {p(single, 50):.2f} ms",
            f"p95 {p(single, 95):.2f} ms, journal append and commit included",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_store [FINDINGS [QUERIES]]`."""
    args = [int(a) for a in (sys.argv[1:] if argv is None else argv)]
    results = run(*args[:2])
    return report(results)


if __name__ == "__main__":
    raise SystemExit(main())
