"""The reviewer benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("openai")


def test_the_review_benchmark_runs_and_prints_its_figures() -> None:
    code = "from benchmarks.bench_review import main; raise SystemExit(main(['3', '0.3', '300']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    names = [line.split("  ")[1].strip() for line in lines]
    assert names[:2] == ["parallel wall ÷ L", "serial wall ÷ L"]
    assert "rehash" in names
    parallel_ratio = float(lines[0].split("L")[1].split()[0])
    serial_ratio = float(lines[1].split("L")[1].split()[0])
    assert serial_ratio > 2 * parallel_ratio  # three at once beat three in a row
    assert "3 ok" in lines[0] and "(3 answered)" in lines[1]
