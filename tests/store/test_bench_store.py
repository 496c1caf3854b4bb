"""The store benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_store_benchmark_runs_and_prints_its_figures() -> None:
    code = "from benchmarks.bench_store import main; raise SystemExit(main(['2000', '20']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.stderr == ""
    names = [line.split("  ")[1] for line in run.stdout.splitlines()]
    assert names == [
        "create_batch",
        "list, 3 filters, limit 50",
        "list open, newest 50",
        "search (FTS5), top 20",
        "create_batch of 1 (a hook)",
    ]
    assert "records/s" in run.stdout and "p50" in run.stdout
