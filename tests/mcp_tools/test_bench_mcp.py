"""The MCP benchmark runs (small) and reports every figure it promises.

About 20 s: it starts the server twice and a bare Python once, as the real benchmark does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_mcp_benchmark_runs_and_prints_its_figures() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_mcp", "300", "3", "1"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert run.stderr == ""
    names = [line[2:42].strip() for line in run.stdout.splitlines()]
    assert names == [
        "start to tools listed",
        "start to first answer",
        "start to first search answer",
        "search (hybrid, both kinds, top 10)",
        "search (text, both kinds, top 10)",
        "search with filters",
        "get_observations (20 ids)",
        "observations list, limit 20",
        "read 200 lines of a 1 MB transcript",
        "read 500 lines in-process",
    ]
    assert "is redaction" in run.stdout
