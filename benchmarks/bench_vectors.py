"""Vector figures: model load, embedding throughput and query embedding with the int8 MiniLM;
top-k search at 100,000 vectors per backend, with and without an id filter.

The 100k vectors are random unit vectors of the model's 384 dimensions (embedding 100k texts
would take minutes; exact search costs the same whatever the vectors hold).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from onlooker.store import Store
from onlooker.vectors import embeddings as emb
from onlooker.vectors._sqlite_vec import unavailable
from onlooker.vectors.index import Backend, VectorIndex

from .bench_store import timings
from .measure import Result, report

VECTORS = 100_000
QUERIES = 50
PYTHON_VECTORS = 2_000
"""The pure-python backend is for small sets; it is measured at this size."""
SENTENCES = 200
LIMIT = 20
TARGET_SEARCH_P50_MS = 20.0
WORDS = ("store", "index", "lock", "journal", "test", "flaky", "hook", "session", "deploy",
         "token", "parser", "retry", "cache", "query", "memory", "worker", "timeout", "schema",
         "migration", "reviewer", "finding", "commit", "branch", "config")  # fmt: skip


def sentences(count: int, words: tuple[int, int], seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words))).capitalize() + "."
        for _ in range(count)
    ]


def p50(values: list[float]) -> float:
    return statistics.median(values)


def model_results(count: int) -> list[Result]:
    missing = emb.missing()
    if missing:
        return [Result("embeddings", "skipped", f"missing: {', '.join(missing)}")]
    began = time.perf_counter()
    embedder = emb.Embedder()
    embedder.load()
    loaded = time.perf_counter() - began
    began = time.perf_counter()
    emb.Embedder().load()
    reloaded = time.perf_counter() - began
    results = [
        Result("model load (first)", f"{loaded:.2f} s", "onnxruntime and tokenizers imported too"),
        Result("model load (again)", f"{reloaded:.2f} s", "a second Embedder in the process"),
    ]
    embedder.embed(sentences(8, (5, 8)))  # warm up
    for label, words in (("short", (5, 8)), ("memory-sized", (30, 50))):
        texts = sentences(count, words)
        began, cpu = time.perf_counter(), time.process_time()
        embedder.embed(texts)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        results.append(
            Result(
                f"embed {label} texts",
                f"{count / wall:,.0f} sentences/s",
                f"{words[0]}-{words[1]} words, batches of {emb.BATCH}; "
                f"{count / cpu:,.0f} per CPU-second",
            )
        )
    queries = timings(lambda: embedder.embed_one("why did the flaky store test fail"), 30)
    results.append(
        Result(
            "embed one query", f"p50 {p50(queries):.1f} ms", "7 words: a search embeds its query"
        )
    )
    return results


def search_results(count: int, queries: int) -> list[Result]:
    import numpy as np

    rng = np.random.default_rng(11)
    results = []
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        loader = VectorIndex(store.index, "memory")
        began = time.perf_counter()
        for start in range(0, count, 10_000):
            block = rng.standard_normal((min(10_000, count - start), emb.DIMENSIONS))
            loader.add_array(range(start + 1, start + 1 + len(block)), block)
        stored = time.perf_counter() - began
        results.append(
            Result("store vectors", f"{count / stored:,.0f} vectors/s", f"{count:,} via add_array")
        )
        probes = rng.standard_normal((queries, emb.DIMENSIONS)).astype(np.float32).tolist()
        tenth = set(range(1, count + 1, 10))
        few = set(range(1, count + 1, max(1, count // 50)))
        backends: list[Backend] = ["numpy"]
        why_not = unavailable()
        if why_not is None:
            backends.append("sqlite-vec")
        else:
            results.append(Result("sqlite-vec", "skipped", why_not))
        for backend in backends:
            results += searches(store, backend, probes, (tenth, few))
        results.append(
            Result(
                "numpy: first search, new process",
                f"{first_search(home):,.0f} ms",
                "a CLI search: the saved matrix is mapped, not read from SQLite",
            )
        )
    return results


def first_search(home: str) -> float:
    """Milliseconds of the first numpy search in a fresh python process (imports excluded)."""
    code = (
        "import sys, time\nfrom onlooker.store import Store\n"
        "from onlooker.vectors.index import VectorIndex\n"
        "with Store(sys.argv[1]) as store:\n"
        "    began = time.perf_counter()\n"
        "    VectorIndex(store.index, 'memory').search([1.0] * 384, 20)\n"
        "    print((time.perf_counter() - began) * 1000)\n"
    )
    run = subprocess.run([sys.executable, "-c", code, home], capture_output=True, text=True,
                         check=True, timeout=600)  # fmt: skip
    return float(run.stdout)


def searches(
    store: Store,
    backend: Backend,
    probes: list[list[float]],
    filters: tuple[set[int], set[int]],
) -> list[Result]:
    """p50 of top-k searches over every vector, then within each id filter."""
    index = VectorIndex(store.index, "memory", backend=backend, approximate=False)  # bench_search
    began = time.perf_counter()
    index.search(probes[0], LIMIT)
    cold = (time.perf_counter() - began) * 1000
    count = index.count()
    rounds = iter(probes * 3)
    cpu = time.process_time()
    plain = p50(timings(lambda: index.search(next(rounds), LIMIT), len(probes)))
    cpu = (time.process_time() - cpu) * 1000 / len(probes)
    results = [
        Result(f"{backend}: search top {LIMIT}", f"p50 {plain:.2f} ms",
               f"{count:,} vectors (target ≤ {TARGET_SEARCH_P50_MS:g} ms), {cpu:.1f} ms CPU "
               f"each; first search {cold:,.0f} ms (loads them)",
               plain <= TARGET_SEARCH_P50_MS or backend != "numpy")
    ]  # fmt: skip
    for ids in filters:
        spent = timings(lambda: index.search(next(rounds), LIMIT, ids=ids), len(probes))  # noqa: B023
        results.append(Result(f"{backend}: within {len(ids):,} ids", f"p50 {p50(spent):.2f} ms",
                              "the filter applies first, then the ranking"))  # fmt: skip
    index.close()
    return results


def python_results(count: int, queries: int) -> list[Result]:
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        index = VectorIndex(store.index, "memory", backend="python")
        index.add([(i, [rng.gauss(0, 1) for _ in range(emb.DIMENSIONS)]) for i in range(count)])
        probes = iter([[rng.gauss(0, 1) for _ in range(emb.DIMENSIONS)] for _ in range(queries)])
        index.search(next(probes), LIMIT)
        spent = timings(lambda: index.search(next(probes), LIMIT), queries - 1)
    return [
        Result("python: search top 20", f"p50 {p50(spent):.1f} ms", f"{count:,} vectors, no numpy")
    ]


def load_average() -> list[Result]:
    """The machine's load: on 2 shared cores the wall-clock figures grow with it."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return []
    return [Result("load average", f"{one:.1f} (5 min {five:.1f})", f"{os.cpu_count()} cores")]


def run(vectors: int = VECTORS, queries: int = QUERIES, sentences: int = SENTENCES) -> list[Result]:
    return (
        load_average()
        + model_results(sentences)
        + search_results(vectors, queries)
        + python_results(min(vectors, PYTHON_VECTORS), min(queries, 10))
    )


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_vectors [VECTORS [QUERIES [SENTENCES]]]`."""
    args = [int(a) for a in (sys.argv[1:] if argv is None else argv)]
    return report(run(*args[:3]))


if __name__ == "__main__":
    raise SystemExit(main())
