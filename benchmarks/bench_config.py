"""Config figures: a cold load of the complete config example (read, compose, validate), and the
cached lookup every hook makes, as a ratio to one bare `os.stat` measured in the same run."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from onlooker.config import ProjectConfigs, load_config

from .measure import Result

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "config" / "complete.yaml"
COLD_RUNS = 200
LOOKUPS = 20_000
TARGET_COLD_MS = 50.0
TARGET_LOOKUP_RATIO = 10.0
"""A cached lookup may cost at most this many bare stats (it makes one or two)."""


def per_call_us(work: Callable[[], object], runs: int) -> float:
    """Median of 5 rounds of `runs` calls, in microseconds per call."""
    rounds = []
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(runs):
            work()
        rounds.append((time.perf_counter() - began) / runs * 1e6)
    return statistics.median(rounds)


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        cwd = root / "src" / "pkg"
        cwd.mkdir(parents=True)
        (root / ".git").mkdir()
        config = root / ".onlooker" / "config.yaml"
        config.parent.mkdir()
        shutil.copy(EXAMPLE, config)

        cold_us = per_call_us(lambda: load_config(config, root), COLD_RUNS // 5)
        configs = ProjectConfigs()
        first = configs.lookup(str(cwd))
        assert first.config is not None and len(first.config.reviewers) == 3
        stat_us = per_call_us(lambda: os.stat(config), LOOKUPS)
        lookup_us = per_call_us(lambda: configs.lookup(str(cwd)), LOOKUPS)
        assert configs.lookup(str(cwd)) is first
        ratio = lookup_us / stat_us
    return [
        Result(
            "cold load, complete example",
            f"{cold_us / 1000:.2f} ms",
            f"read + compose + validate; target < {TARGET_COLD_MS:.0f} ms",
            cold_us / 1000 < TARGET_COLD_MS,
        ),
        Result("bare os.stat", f"{stat_us:.2f} µs", "the floor"),
        Result("cached lookup (hook path)", f"{lookup_us:.2f} µs", "dict hit + stat of the file"),
        Result(
            "lookup ÷ stat",
            f"{ratio:.1f}×",
            f"target <= {TARGET_LOOKUP_RATIO:.0f}×",
            ratio <= TARGET_LOOKUP_RATIO,
        ),
    ]
