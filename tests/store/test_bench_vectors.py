"""The vector benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from onlooker.store import embeddings
from onlooker.store.vec_mirror import unavailable

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not embeddings.available(), reason="the embeddings extra is missing")
def test_the_vector_benchmark_runs_and_prints_its_figures() -> None:
    code = "from benchmarks.bench_vectors import main; raise SystemExit(main(['500', '5', '16']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.stderr == ""
    names = [line.split("  ")[1] for line in run.stdout.splitlines()]
    searches = ["search top 20", "within 50 ids", "within 50 ids"]
    expected = [
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
    assert names == [*expected, "python: search top 20"]
    assert "sentences/s" in run.stdout and "p50" in run.stdout
