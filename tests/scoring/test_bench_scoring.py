"""The scoring benchmark runs (small): one judge call per session however many turns it had,
none on a second pass, and every detail level bigger than the one before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_scoring_benchmark_runs_and_meets_its_targets() -> None:
    code = "from benchmarks.bench_scoring import main; raise SystemExit(main(['5']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0 and run.stderr == "", run.stdout + run.stderr
    figures = {
        line[: line.index("  ", 2)].strip(): line[line.index("  ", 2) :].split()[0]
        for line in run.stdout.splitlines()
    }
    assert figures["turn/session ends seen"] == "25"
    assert figures["judge calls per 100 sessions"] == "100"
    assert figures["re-run with nothing new"] == "0"
    minimal, standard, thorough = (
        int(figures[f"tokens per score, {level}"].strip("~").replace(",", ""))
        for level in ("minimal", "standard", "thorough")
    )
    assert minimal < standard < thorough
