"""The improvement benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_improvement_benchmark_runs_and_prints_its_figures() -> None:
    code = "from benchmarks.bench_improvement import main; main(['4'])"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    names = [line.split("  ")[1].strip() for line in run.stdout.splitlines()]
    assert names == [
        "bare atomic write",
        "apply (p50)",
        "rollback (p50)",
        "apply ÷ bare write",
        "rollback ÷ bare write",
    ]
