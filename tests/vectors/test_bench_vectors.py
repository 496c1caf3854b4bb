"""The vector benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from onlooker.vectors import embeddings
from onlooker.vectors._sqlite_vec import unavailable

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not embeddings.available(), reason="the embeddings extra is missing")
def test_the_vector_benchmark_runs_and_prints_its_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.bench_vectors import main
    finally:
        sys.path.pop(0)
    main(["500", "5", "16"])
    out, err = capsys.readouterr()
    assert err == ""
    names = [line.split("  ")[1] for line in out.splitlines()]
    searches = ["search top 20", "within 50 ids", "within 50 ids"]
    expected = [
        "load average",
        "model load (first)",
        "model load (again)",
        "embed short texts",
        "embed memory-sized texts",
        "embed one query",
        "store vectors",
        *(f"numpy: {name}" for name in searches),
    ]
    if unavailable() is None:
        expected += [f"sqlite-vec: {name}" for name in searches]
    else:
        expected.append("sqlite-vec")
    expected.append("numpy: first search, new process")
    assert names == [*expected, "python: search top 20"]
    assert "sentences/s" in out and "p50" in out
