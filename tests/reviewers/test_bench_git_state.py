"""The change-detection benchmark runs (small) and prints its figures: both ratios against git
status measured in the same run, and that its tree's state follows an edit."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_change_detection_benchmark_prints_before_and_after_ratios() -> None:
    code = "from benchmarks.bench_git_state import main; raise SystemExit(main(['2000', '3']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.stderr == ""
    names = [
        "git status --porcelain -uall",
        "files_state (git's index)",
        "walk (before)",
        "files_state ÷ git status",
        "first check ÷ git status",
        "cold first check ÷ git status",
        "two ls-files ÷ git status",
        "walk ÷ git status",
        "a modified file changes the state",
    ]
    lines = run.stdout.splitlines()
    assert len(lines) == len(names)
    figures = {}
    for name, line in zip(names, lines, strict=True):
        assert line.startswith(f"  {name}  ")
        figures[name] = line[len(name) + 2 :].split()[0]
    assert figures["a modified file changes the state"] == "yes"
    assert float(figures["files_state ÷ git status"].rstrip("x")) > 0
    for ratio in ("first check", "cold first check", "two ls-files", "walk"):
        assert float(figures[f"{ratio} ÷ git status"].rstrip("x")) > 0
    assert run.returncode in (0, 1)  # 1: a ratio missed its target on a tree this small
