"""Memory search p50 at 10,000 and 100,000 memories (and 1,000,000 on request): text (FTS5),
vector (local MiniLM) and hybrid search, over all memories, limited to one project of 20, and
limited to a small project (50 memories among all the others).

The store is filled in bulk (rows written to the index in one transaction, as a reindex does;
5,000 of them first through `Memories.remember`, journaled, for the write rate). Embedding 100k
texts would take minutes, so each of 1,000 distinct texts is embedded once with the real model
and its memories get that vector plus a little noise: the matrix the search scans is full size,
and every query is embedded by the real model while timed.

From 50,000 vectors up the approximate graph (vectors/_ann.py) is made first, as `onlooker
reindex` makes it, and its build time and file size printed; the same hybrid search over the exact
scan is timed in the same run as the baseline, and the recall@10 and @30 of the vector half
against the exact scan over 112 queries (target ≥ 0.95). Times: p50 wall and CPU (both threads);
on this shared 2-core machine the CPU figure is the steadier one.

`python -m benchmarks.bench_search [SIZE...] [--keep DIR]`; `ONLOOKER_BENCH_SEARCH_1M=1 make bench`
adds the 1M point to `make bench` (building it took 7.5 minutes here, and its graph more; ~3 GB
of memory); `--keep DIR` builds each size's store (and graph) once in DIR and reuses it.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta

from onlooker.memory import search
from onlooker.memory._memories import Extracted, Memories
from onlooker.memory._vector_search import MemoryVectors
from onlooker.store import Store
from onlooker.store.memory_records import MemoryFilter, millis
from onlooker.vectors import embeddings

from .measure import Result

SIZES = (10_000, 100_000)
LARGE = 1_000_000
PROJECTS = 20
SMALL = 50
"""Memories of the small project, spread among all the others."""
JOURNALED = 5_000
BATCH = 20_000
QUERIES = 60
"""Searches timed per mode and scope (SEARCHES, round robin)."""
TARGET_P50_MS = {10_000: 10.0, 100_000: 10.0, 1_000_000: 25.0}
"""Hybrid search p50 targets (issue 31), with and without a project filter."""
SCOPES = {"all": None, "project": ["project-3"], "small project": ["project-small"]}

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
START = datetime(2026, 1, 1, tzinfo=UTC)


def texts() -> list[tuple[str, str]]:
    """1,000 distinct (title, content) pairs."""
    return [
        (f"{subject.capitalize()} {event}", f"{subject.capitalize()} {event}; fix: {fix}.")
        for subject in SUBJECTS
        for event in EVENTS
        for fix in FIXES
    ]


def project_of(n: int, count: int) -> str:
    """Memory n's project: one of PROJECTS, or now and then the small one."""
    return "project-small" if n % max(count // SMALL, 8) == 7 else f"project-{n % PROJECTS}"


def fill(store: Store, count: int) -> tuple[list[int], float]:
    """Store `count` memories over 30 days: the first JOURNALED through `remember` (their rate
    is the second value), the rest in bulk. Returns the distinct text of each, in id order."""
    pairs = texts()
    memories = Memories(store)
    journaled = min(JOURNALED, count)
    began = time.perf_counter()
    for first in range(0, journaled, 500):
        by_project: dict[str, list[Extracted]] = {}
        for n in range(first, min(first + 500, journaled)):
            title, content = pairs[n % len(pairs)]
            when = START + timedelta(seconds=26 * n)
            by_project.setdefault(project_of(n, count), []).append(Extracted(title, content, when))
        for project, found in by_project.items():
            memories.remember(found, project=project, session_id=f"s{first}")
    rate = journaled / (time.perf_counter() - began)
    kinds = [0] * journaled
    for memory in memories.recent(MemoryFilter(), journaled):
        kinds[memory.id - 1] = _kind_of(memory.timestamp)
    created = millis(START)
    with store.index.transaction():
        conn = store.index._conn
        for first in range(journaled, count, BATCH):
            rows = []
            for n in range(first, min(first + BATCH, count)):
                title, content = pairs[n % len(pairs)]
                at = millis(START + timedelta(seconds=26 * n))
                rows.append((n + 1, title, content, project_of(n, count), f"s{n // 500}", at,
                             created, 0))  # fmt: skip
            conn.executemany(
                "INSERT INTO memories (id, title, content, project, session_id, timestamp, "
                "created_at, serial) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        conn.execute("UPDATE counters SET value = ? WHERE name = 'memory'", (count,))
    return kinds + [n % len(pairs) for n in range(journaled, count)], rate


def _kind_of(timestamp: datetime) -> int:
    """The distinct text of the memory written at `timestamp` (memory n is at 26 n seconds)."""
    return int((timestamp - START).total_seconds()) // 26 % len(texts())


def add_vectors(store: Store, kinds: list[int]) -> None:
    import numpy as np

    pairs = texts()
    used = sorted(set(kinds))
    embedded = np.zeros((len(pairs), embeddings.DIMENSIONS), dtype=np.float32)
    embedded[used] = embeddings.shared_embedder().embed_array(
        [f"{pairs[k][0]}\n{pairs[k][1]}" for k in used]
    )
    noise = np.random.default_rng(7)
    with store.index.transaction():
        conn = store.index._conn
        for first in range(0, len(kinds), BATCH):
            block = embedded[kinds[first : first + BATCH]]
            block = block + noise.normal(0, 0.02, block.shape).astype(np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)
            conn.executemany(
                "INSERT INTO vectors (kind, id, model, digest, vector) "
                "VALUES ('memory', ?, ?, '', ?)",
                [(first + i + 1, embeddings.MODEL, row.tobytes()) for i, row in enumerate(block)],
            )


def timed(
    store: Store, vectors: MemoryVectors, mode: str, projects: list[str] | None, queries: int
) -> tuple[float, float]:
    """p50 of wall time and of CPU time (both threads; on a busy machine the steadier of the two),
    in milliseconds."""
    spent, cpu = [], []
    for n in range(queries):
        query = SEARCHES[n % len(SEARCHES)]
        began, used = time.perf_counter(), time.process_time()
        search(store, query, mode, limit=10, projects=projects, vectors=vectors)  # type: ignore[arg-type]
        spent.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return statistics.median(spent), statistics.median(cpu)


def embedding(queries: int) -> tuple[float, float]:
    """p50 wall and CPU milliseconds of embedding one query (the same queries)."""
    embedder = embeddings.shared_embedder()
    spent, cpu = [], []
    for n in range(queries):
        began, used = time.perf_counter(), time.process_time()
        embedder.embed_one(SEARCHES[n % len(SEARCHES)])
        spent.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return statistics.median(spent), statistics.median(cpu)


def built_store(home: str, count: int) -> tuple[float, float]:
    """Fill the store at `home` with `count` memories and their vectors, unless a run with `--keep`
    did so before (its `built-COUNT.json`); (seconds it took, journaled memories a second)."""
    import json
    from pathlib import Path

    done = Path(home) / f"built-{count}.json"
    if done.exists():
        figures = json.loads(done.read_text())
        return figures["built"], figures["rate"]
    with Store(home) as store:
        began = time.perf_counter()
        kinds, rate = fill(store, count)
        add_vectors(store, kinds)
        built = time.perf_counter() - began
    done.write_text(json.dumps({"built": built, "rate": rate}))
    return built, rate


def measure(count: int, queries: int = QUERIES, keep: str | None = None) -> list[Result]:
    """Every figure at one size; `keep`: a folder that keeps the store between runs."""
    with tempfile.TemporaryDirectory() as scratch:
        home = os.path.join(keep, str(count)) if keep else scratch
        os.makedirs(home, exist_ok=True)
        built, rate = built_store(home, count)
        return _measured(home, count, queries, built, rate)


def _measured(home: str, count: int, queries: int, built: float, rate: float) -> list[Result]:
    size = f"{count:,}"
    with Store(home) as store:
        results = [
            Result(f"{size}: build", f"{built:.1f} s", "memories and vectors, bulk"),
            Result(f"{size}: remember", f"{rate:,.0f} /s", f"{JOURNALED:,} memories, journaled"),
            *graph_made(store, size),
        ]
        vectors = MemoryVectors(store)
        exact = MemoryVectors(store, approximate=False)
        embeddings.shared_embedder().embed_one("warm up")
        for projects in SCOPES.values():  # loads the matrix and the ids by project once
            search(store, "warm up", "both", projects=projects, vectors=vectors)
        search(store, "warm up", "both", vectors=exact)
        search(store, "warm up", "both", vectors=exact)  # the int8 codes are made at the second
        figures = {
            (mode, scope): timed(store, vectors, mode, projects, queries)
            for mode in ("text", "vector", "both")
            for scope, projects in SCOPES.items()
        }
        baseline = timed(store, exact, "both", None, queries)
        figures["embed", "query"] = embedding(queries)
        results += recall(vectors, exact, size)
    target = TARGET_P50_MS.get(count)
    embed, embed_cpu = figures.pop(("embed", "query"))
    results.append(Result(f"{size}: embed the query", f"p50 {embed:.2f} ms",
                          f"cpu {embed_cpu:.2f} ms: part of vector and both"))  # fmt: skip
    results.append(Result(f"{size}: both, all, exact scan", f"p50 {baseline[0]:.2f} ms",
                          f"cpu {baseline[1]:.2f} ms: the baseline, no graph"))  # fmt: skip
    for (mode, scope), (value, cpu) in figures.items():
        note = {"all": "every memory", "project": "one project of 20",
                "small project": f"a project of {SMALL}"}[scope]  # fmt: skip
        note += f"; cpu {cpu:.2f} ms"
        ok = True
        if mode == "both" and target is not None:
            ok = value <= target
            note += f"; {value / target:.2f}× the {target:g} ms target"
            if scope == "all":
                ratio = f"{value / baseline[0]:.2f}× (cpu {cpu / baseline[1]:.2f}×)"
                note += f", {ratio} the exact scan"
        results.append(Result(f"{size}: {mode}, {scope}", f"p50 {value:.2f} ms", note, ok))
    return results


def graph_made(store: Store, size: str) -> list[Result]:
    """Make the approximate graph of the memories' vectors, as `onlooker reindex` does (kept with
    `--keep`): its build time and file."""
    from onlooker.vectors import _ann
    from onlooker.vectors.index import VectorIndex

    index = VectorIndex(store.index, "memory")
    if not _ann.available() or index.count() < _ann.ANN_FROM:
        return [Result(f"{size}: graph", "none", f"exact scan below {_ann.ANN_FROM:,} vectors")]
    import json

    folder = store.index.path.parent / "vectors"
    figures = store.index.path.parent / "graph-built.json"
    kept = list(folder.glob("*.ann.usearch")) and figures.exists()
    if kept:
        wall, cpu = json.loads(figures.read_text())
    else:
        began, used = time.perf_counter(), time.process_time()
        index.build_graph()
        wall, cpu = time.perf_counter() - began, time.process_time() - used
        figures.write_text(json.dumps([wall, cpu]))
    megabytes = sum(f.stat().st_size for f in folder.glob("*.ann.usearch")) / 1e6
    what = f"wall, cpu {cpu:.1f} s (both cores){'; kept from an earlier run' if kept else ''}"
    return [
        Result(f"{size}: graph build", f"{wall:.1f} s", f"{what}; matrix already in memory"),
        Result(f"{size}: graph file", f"{megabytes:.0f} MB", "memory-mapped by each searching "
               f"process; the float32 matrix is {index.count() * 384 * 4 / 1e6:.0f} MB"),
    ]  # fmt: skip


RECALLED = tuple(f"{subject} {event}" for subject in SUBJECTS for event in EVENTS) + SEARCHES


def recall(vectors: MemoryVectors, exact: MemoryVectors, size: str) -> list[Result]:
    """Recall of the vector half against the exact scan over every memory, at 10 (a search's
    answer) and 30 (what hybrid search fuses), over 112 queries."""
    from onlooker.store.memory_records import MemoryFilter

    embedded = embeddings.shared_embedder().embed_array(list(RECALLED))
    results = []
    for k in (10, 30):
        found = 0
        for query in embedded:
            want = set(exact.nearest_to(query.tolist(), MemoryFilter(), k))
            found += len(want & set(vectors.nearest_to(query.tolist(), MemoryFilter(), k)))
        share = found / (k * len(embedded))
        results.append(Result(f"{size}: vector recall@{k}", f"{share:.3f}",
                              f"vs the exact scan, {len(embedded)} queries; target ≥ 0.95",
                              share >= 0.95))  # fmt: skip
    return results


def run(
    sizes: tuple[int, ...] | None = None, queries: int = QUERIES, keep: str | None = None
) -> list[Result]:
    if not embeddings.available():
        return [Result("memory search", "skipped", "the embeddings extra is not installed", False)]
    if sizes is None:
        sizes = SIZES + ((LARGE,) if os.environ.get("ONLOOKER_BENCH_SEARCH_1M") == "1" else ())
    results: list[Result] = []
    for count in sizes:
        results += measure(count, queries, keep)
    if LARGE not in sizes:
        results.append(Result("1,000,000", "not run", "ONLOOKER_BENCH_SEARCH_1M=1 measures it"))
    return results


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_search [SIZE...] [--queries N] [--keep DIR]`
    (`--keep`: build each size's store in DIR once and reuse it in later runs)."""
    args = list(sys.argv[1:] if argv is None else argv)
    queries = QUERIES
    if "--queries" in args:
        at = args.index("--queries")
        queries = int(args[at + 1])
        del args[at : at + 2]
    keep = None
    if "--keep" in args:
        at = args.index("--keep")
        keep = args[at + 1]
        del args[at : at + 2]
    results = run(tuple(int(a) for a in args) or None, queries, keep)
    width = max(len(r.name) for r in results)
    for result in results:
        print(f"  {result.name.ljust(width)}  {result.value:>18}  {result.note}")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
