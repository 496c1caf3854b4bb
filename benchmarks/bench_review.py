"""Reviewer figures: 10 reviewers against a local OpenAI-compatible endpoint that answers after a
fixed latency L, through the real `openai-compatible:` provider, run in parallel (wall ÷ L, target
≤ 1.2) and one by one for contrast; then a rehash of a generated 100,000-file tree with pathspec
and with the hand-written .gitignore matcher it replaced, and `git ls-files -s` on the same tree."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from onlooker import Session
from onlooker.core.events import UserPrompt
from onlooker.reviewers import file_walk
from onlooker.reviewers._run import ModelCache, run_parallel
from onlooker.reviewers.config import ReviewerConfig
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.file_walk import walk_state
from onlooker.reviewers.watch import ConversationTarget
from onlooker.store import Store
from onlooker.testing.openai_endpoint import ScriptedEndpoint

from . import gitignore_baseline
from .measure import Result, report

REVIEWERS = 10
LATENCY = 1.0
TARGET_RATIO = 1.2
FILES = 100_000
PER_DIR = 100
MATCHER_TARGET = 1.1


def reviewers(spec: str, count: int) -> list[ReviewerConfig]:
    return [
        ReviewerConfig(
            name=f"Reviewer {n}",
            role="Reviews reasoning",
            focus="Unstated assumptions",
            model=spec,
            watch=(ConversationTarget(),),
            timeout=30,
        )
        for n in range(count)
    ]


def review_wall(count: int, latency: float, concurrent: int) -> tuple[float, int]:
    """Seconds for `count` reviewers with `concurrent` at a time; and how many answered ok."""
    with ScriptedEndpoint({"observations": []}, latency=latency) as endpoint:
        models = ModelCache()
        session = Session("bench")
        session.append(UserPrompt(text="refactor the parser"))
        with tempfile.TemporaryDirectory() as home, Store(home) as store:

            def go(n: int, slots: int) -> tuple[float, int]:
                began = time.perf_counter()
                runs = run_parallel(
                    reviewers(endpoint.spec(), n),
                    Execution(mode="parallel", max_concurrent=slots, timeout_per_observer=60),
                    store=store, project="bench", session=session, root=None, model_for=models,
                )  # fmt: skip
                ok = sum(run.outcome.status == "ok" for run in runs)
                return time.perf_counter() - began, ok

            go(1, 1)  # warm up: the openai SDK's import and first connection
            return go(count, concurrent)


def make_tree(root: Path, files: int) -> None:
    for n in range(files):
        folder = root / f"pkg{n // (PER_DIR * 10)}" / f"mod{(n // PER_DIR) % 10}"
        if n % PER_DIR == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n}.py").write_text(f"x = {n}\n")
    (root / ".gitignore").write_text("*.pyc\nbuild/\n")


TYPICAL_GITIGNORE = """\
__pycache__/
*.py[cod]
*$py.class
*.so
build/
dist/
downloads/
eggs/
.eggs/
lib/
lib64/
parts/
sdist/
var/
wheels/
*.egg-info/
*.egg
MANIFEST
pip-log.txt
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
.cache
coverage.xml
*.cover
.hypothesis/
.pytest_cache/
*.mo
*.pot
*.log
local_settings.py
db.sqlite3
instance/
docs/_build/
target/
.ipynb_checkpoints
.python-version
.env
.venv
env/
venv/
ENV/
.mypy_cache/
.dmypy.json
.pyre/
.pytype/
.ruff_cache/
cython_debug/
.idea/
.vscode/
*.swp
*~
.DS_Store
Thumbs.db
node_modules/
/site
/scratch/
!/scratch/README.md
"""
"""A Python project's usual .gitignore (60 patterns): the matcher's cost with many rules."""


def median_seconds(work: Callable[[], object], runs: int = 3) -> float:
    spent = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        spent.append(time.perf_counter() - began)
    return statistics.median(spent)


def rehash_pair(root: Path, runs: int = 4) -> tuple[float, float]:
    """Median seconds of a rehash with pathspec, and with the hand-written matcher it replaced
    swapped into the same walk; they take turns going first, so both see the same cache and load."""
    ours, before = [], []

    def pathspec() -> None:
        ours.append(median_seconds(lambda: walk_state(root, ["**/*"]), runs=1))

    def hand_written() -> None:
        with mock.patch.object(file_walk, "IgnoreRules", gitignore_baseline.IgnoreRules):
            before.append(median_seconds(lambda: walk_state(root, ["**/*"]), runs=1))

    for turn in range(runs):
        for measure in (pathspec, hand_written) if turn % 2 == 0 else (hand_written, pathspec):
            measure()
    return statistics.median(ours), statistics.median(before)


def matcher_figures(label: str, ours: float, before: float, note: str) -> list[Result]:
    ratio = ours / before
    return [
        Result(f"rehash{label}", f"{ours * 1000:.0f} ms", f"{note}; pathspec (median of 4)"),
        Result(
            f"rehash{label}, hand-written", f"{before * 1000:.0f} ms", "the matcher it replaced"
        ),
        Result(
            f"rehash{label}, pathspec ÷ hand-written",
            f"{ratio:.2f}x",
            f"same tree, same run; target ≤ {MATCHER_TARGET} (not slower, within noise)",
            ok=ratio <= MATCHER_TARGET,
        ),
    ]


def rehash_figures(files: int) -> list[Result]:
    git = shutil.which("git")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        make_tree(root, files)
        theirs = None
        if git is not None:
            env = {**os.environ, "GIT_INDEX_FILE": str(root / ".git" / "index")}
            quiet = {"cwd": root, "env": env, "check": True, "stdout": subprocess.DEVNULL}
            subprocess.run([git, "init", "-q"], **quiet)  # type: ignore[call-overload]
            subprocess.run([git, "add", "-A"], **quiet)  # type: ignore[call-overload]
            theirs = median_seconds(lambda: subprocess.run([git, "ls-files", "-s"], **quiet))  # type: ignore[call-overload]
        ours, before = rehash_pair(root)
        (root / ".gitignore").write_text(TYPICAL_GITIGNORE)
        typical = rehash_pair(root)
    results = [
        *matcher_figures("", ours, before, f"the walk over {files:,} files, 2 patterns"),
        *matcher_figures(", 60 patterns", *typical, "the same with a usual .gitignore"),
    ]
    if theirs is None:
        return [*results, Result("git ls-files -s", "-", "git not installed: no contrast")]
    return [
        *results,
        Result("git ls-files -s", f"{theirs * 1000:.0f} ms", "same tree, same run"),
        Result(
            "rehash ÷ git", f"{ours / theirs:.1f}x", "git reads its index; onlooker stats files"
        ),
    ]


def run(count: int = REVIEWERS, latency: float = LATENCY, files: int = FILES) -> list[Result]:
    parallel, ok_parallel = review_wall(count, latency, concurrent=count)
    serial, ok_serial = review_wall(count, latency, concurrent=1)
    ratio = parallel / latency
    return [
        Result(
            "parallel wall ÷ L",
            f"{ratio:.2f}",
            f"{count} reviewers, L = {latency:g} s, {ok_parallel} ok; target ≤ {TARGET_RATIO}",
            ok=ratio <= TARGET_RATIO and ok_parallel == count,
        ),
        Result(
            "serial wall ÷ L",
            f"{serial / latency:.2f}",
            f"the same reviewers one by one ({ok_serial} answered), for contrast",
            ok=ok_serial == count,
        ),
        *rehash_figures(files),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_review [REVIEWERS [LATENCY [FILES]]]`."""
    args = sys.argv[1:] if argv is None else argv
    kinds = (int, float, int)
    results = run(*(kind(arg) for kind, arg in zip(kinds, args, strict=False)))  # type: ignore[arg-type]
    return report(results)


if __name__ == "__main__":
    raise SystemExit(main())
