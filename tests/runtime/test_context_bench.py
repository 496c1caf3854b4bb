"""The context benchmark (benchmarks/bench_context.py) through the Runtime and a real SQLite store
meets issue 25's targets: no duplicate fact, no stale statement, every finding with an id; eight
identical failing calls in two messages within 900 characters; at most 6 deadline messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_what_the_agent_hears_meets_its_targets() -> None:
    code = "from benchmarks.bench_context import main; raise SystemExit(main(['--details']))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    print(done.stdout)
    assert done.stderr == ""
    assert done.returncode == 0  # every figure met its target
    (ids,) = [line for line in done.stdout.splitlines() if "findings carrying an id" in line]
    assert " 100% " in ids
    deadline = [
        t for t in done.stdout.split("== 30-minute deadline ==")[1].split("---") if "[" in t
    ]
    assert [t.strip().split(" (")[0] for t in deadline] == [
        "[Deadline] 15 minutes remaining",
        "[Deadline] 7 minutes remaining",
        "[Deadline] 3 minutes remaining",
        "[Deadline] The deadline has passed: overdue by 0 seconds.",
    ]
