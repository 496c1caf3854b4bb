"""The schema benchmark runs (small) and reports every figure it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("openai")
pytest.importorskip("mcp")


def test_the_schema_benchmark_runs_and_prints_its_figures() -> None:
    code = "from benchmarks.bench_schema import main; raise SystemExit(main(['20']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    names = [line.split("  ")[1].strip() for line in run.stdout.splitlines()]
    for check in ("answer", "arguments"):
        assert f"{check}, jsonschema" in names and f"{check}, hand-written" in names
    assert "model call" in names and "tool call" in names
