"""Memory search at 100,000 memories: p50 of text (FTS5), vector (local MiniLM) and hybrid search,
unfiltered and limited to one project.

Memories are written from 1,000 distinct texts through `Memories.remember` (journaled, as
extraction does). Embedding 100,000 texts would take minutes, so each distinct text is embedded
once with the real model and its memories get that vector plus a little noise: the matrix the
search scans is full size, and every query is embedded by the real model while timed.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta

from onlooker.memory import search
from onlooker.memory._memories import Extracted, Memories
from onlooker.memory._vector_search import MemoryVectors
from onlooker.store import Store
from onlooker.store.memory_records import MemoryFilter
from onlooker.vectors import embeddings

from .measure import Result

MEMORIES = 100_000
PROJECTS = 20
BATCH = 2_000
QUERIES = 60
"""Searches timed per mode (the first SEARCHES, round robin)."""
TARGET_HYBRID_P50_MS = 20.0

SUBJECTS = ("the login endpoint", "the payment webhook", "the CSV importer", "the search index",
            "the nightly backup", "the image resizer", "the rate limiter", "the email queue",
            "the config loader", "the migration runner")  # fmt: skip
EVENTS = ("fails with a 401 after the token expires", "times out under load",
          "needs the cache cleared after a schema change", "was rewritten to stream rows",
          "is covered by tests in tests/test_api.py", "reads its settings from the environment",
          "retries three times with exponential backoff", "logs secrets unless redacted",
          "breaks when the locale is not UTF-8",
          "must run before the web server starts")  # fmt: skip
FIXES = ("refresh the session first", "raise the pool size to 20", "run make migrate",
         "pin the client library", "use the staging branch", "set TZ=UTC",
         "call flush() before closing", "split the job into batches of 500",
         "check the feature flag", "restart the worker")  # fmt: skip
SEARCHES = ("why does authentication fail", "webhook timeout under load", "how to import csv",
            "backup schedule", "resize uploaded pictures", "too many requests limit",
            "email sending queue stuck", "where are settings loaded", "database migration order",
            "token expired 401", "flaky test fix",
            "stream rows instead of loading all")  # fmt: skip


def texts() -> list[tuple[str, str]]:
    """1,000 distinct (title, content) pairs."""
    return [
        (f"{subject.capitalize()} {event}", f"{subject.capitalize()} {event}; fix: {fix}.")
        for subject in SUBJECTS
        for event in EVENTS
        for fix in FIXES
    ]


def fill(store: Store, count: int) -> list[int]:
    """Store `count` memories over PROJECTS projects and 30 days; the distinct text of each, in
    id order."""
    memories = Memories(store)
    pairs = texts()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    kinds: list[int] = []
    for first in range(0, count, BATCH):
        chunk = range(first, min(first + BATCH, count))
        by_project: dict[int, list[tuple[int, Extracted]]] = {}
        for n in chunk:
            title, content = pairs[n % len(pairs)]
            when = start + timedelta(seconds=26 * n)
            by_project.setdefault(n % PROJECTS, []).append((n, Extracted(title, content, when)))
        for project, found in by_project.items():
            memories.remember([e for _, e in found], project=f"project-{project}",
                              session_id=f"s{first}")  # fmt: skip
            kinds.extend(n % len(pairs) for n, _ in found)
    return kinds


def add_vectors(vectors: MemoryVectors, kinds: list[int]) -> None:
    import numpy as np

    pairs = texts()
    used = sorted(set(kinds))
    embedded = embeddings.shared_embedder().embed_array(
        [f"{pairs[k][0]}\n{pairs[k][1]}" for k in used]
    )
    base = np.zeros((len(pairs), embedded.shape[1]), dtype=np.float32)
    base[used] = embedded
    noise = np.random.default_rng(7)
    ids = sorted(Memories(vectors.store).matching(MemoryFilter()))
    for first in range(0, len(ids), 5_000):
        block = base[kinds[first : first + 5_000]]
        block = block + noise.normal(0, 0.02, block.shape).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        rows = [(ids[first + i], row.tobytes(), "") for i, row in enumerate(block)]
        vectors.index._put(rows)


def p50(work: list[float]) -> float:
    return statistics.median(work)


def timed(
    store: Store, vectors: MemoryVectors, mode: str, projects: list[str] | None, queries: int
) -> float:
    spent = []
    for n in range(queries):
        query = SEARCHES[n % len(SEARCHES)]
        began = time.perf_counter()
        search(store, query, mode, limit=10, projects=projects, vectors=vectors)  # type: ignore[arg-type]
        spent.append((time.perf_counter() - began) * 1000)
    return p50(spent)


def run(count: int = MEMORIES, queries: int = QUERIES) -> list[Result]:
    if not embeddings.available():
        return [Result("memory search", "skipped", "the embeddings extra is not installed", False)]
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        began = time.perf_counter()
        kinds = fill(store, count)
        stored = time.perf_counter() - began
        vectors = MemoryVectors(store)
        add_vectors(vectors, kinds)
        embeddings.shared_embedder().embed_one("warm up")
        vectors.nearest("warm up", MemoryFilter(), 1)  # loads the matrix once
        figures = {
            (mode, scope): timed(store, vectors, mode, ["project-3"] if scope else None, queries)
            for mode in ("text", "vector", "both")
            for scope in (False, True)
        }
    results = [
        Result("store memories", f"{count / stored:,.0f} /s", f"{count:,} memories, journaled")
    ]
    for (mode, scope), value in figures.items():
        hybrid = mode == "both" and not scope
        note = f"at {count:,} memories" + (", one project of 20" if scope else "")
        if hybrid:
            note += f" (target ≤ {TARGET_HYBRID_P50_MS:g} ms)"
        results.append(
            Result(
                f"search {mode}{' +project' if scope else ''}",
                f"p50 {value:.2f} ms",
                note,
                value <= TARGET_HYBRID_P50_MS if hybrid else True,
            )
        )
    return results


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_search [MEMORIES [QUERIES]]`."""
    args = [int(a) for a in (sys.argv[1:] if argv is None else argv)]
    results = run(*args[:2])
    width = max(len(r.name) for r in results)
    for result in results:
        print(f"  {result.name.ljust(width)}  {result.value:>18}  {result.note}")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
