"""Improvement writes: apply and rollback latency on an AGENTS.md, side by side with one bare
atomic write of the same file (temp file, fsync, rename, fsync of the folder) in the same run.

An apply takes the lock, backs up, notes the change, replaces the file and commits the index:
about four durable writes, so its ratio to one bare atomic write is what to watch.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from onlooker.improvement import InstructionTarget, apply_instructions, rollback
from onlooker.improvement._files import write_atomically

from .measure import Result, report

RUNS = 40
TARGET_RATIO = 10.0
"""An apply or a rollback may cost at most this many bare atomic writes."""
AGENTS_MD = "# Project\n\n" + "".join(f"- Rule {n}: keep the build green.\n" for n in range(150))


def median_ms(work: Callable[[int], object], runs: int) -> float:
    times = []
    for n in range(runs):
        began = time.perf_counter()
        work(n)
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def run(runs: int = RUNS) -> list[Result]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / "AGENTS.md"
        path.write_text(AGENTS_MD)
        data = AGENTS_MD.encode()
        bare = median_ms(lambda n: write_atomically(root / "bare.md", data), runs)
        target = InstructionTarget.project(root)
        apply = median_ms(lambda n: apply_instructions(target, [f"Improvement {n}"]), runs)
        back = median_ms(lambda n: rollback(target), min(runs, 20))
        restored = path.read_text()
    assert restored.startswith(AGENTS_MD)
    return [
        Result("bare atomic write", f"{bare:.2f} ms", "temp + fsync + rename + fsync folder"),
        Result("apply (p50)", f"{apply:.2f} ms", "lock, backup, pending, replace, commit"),
        Result("rollback (p50)", f"{back:.2f} ms", "lock, backup, restore, commit"),
        Result(
            "apply ÷ bare write",
            f"{apply / bare:.1f}×",
            f"target <= {TARGET_RATIO:.0f}×",
            apply / bare <= TARGET_RATIO,
        ),
        Result(
            "rollback ÷ bare write",
            f"{back / bare:.1f}×",
            f"target <= {TARGET_RATIO:.0f}×",
            back / bare <= TARGET_RATIO,
        ),
    ]


def main(argv: list[str]) -> int:
    """`python -m benchmarks.bench_improvement [runs]`"""
    return report(run(int(argv[0]) if argv else RUNS))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
