"""Reviewers' change detection in a git work tree of 100,000 files (most committed, some modified,
some untracked, some ignored): `files_state` over `**/*` ÷ `git status --porcelain
--untracked-files=all` on the same tree, measured in turns in the same run (medians): a repeated
check (the index listing kept, as in the hook service and the worker) and a first check in a
process, both when an earlier process left its listing and index copy in the data home and when
none did (cold); and the same ratio for the two `git ls-files` at once it replaced
(git_state_baseline.py) and for the walk before them (files_state_baseline.py)."""

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

from onlooker.reviewers import git_state
from onlooker.reviewers.git_index import IndexListings
from onlooker.reviewers.git_listing_file import FOLDER
from onlooker.reviewers.git_status_cache import SEEDS, PrivateIndexes
from onlooker.reviewers.watch import files_state
from onlooker.store.home import HOME_VARIABLE, data_home

from . import files_state_baseline, git_state_baseline
from .bench_review import make_tree
from .measure import Result, report

FILES = 100_000
CHANGED = 100
"""Files modified, and files added untracked, after the commit (and as many ignored ones)."""
RUNS = 9
TARGET = 1.0
PATTERNS = ["**/*"]


def git(root: Path, *args: str) -> bytes:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    identity += ["-c", "gc.auto=0", "-c", "maintenance.auto=false"]  # no gc left running
    return subprocess.run(
        ["git", *identity, *args], cwd=root, env=env, check=True, capture_output=True
    ).stdout


def make_repository(root: Path, files: int, changed: int) -> None:
    """`files` files committed; then `changed` modified in place (same size), `changed` new
    untracked files and `changed` ignored ones."""
    make_tree(root, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tree")
    step = max(files // changed, 1)
    for n in range(0, files, step)[:changed]:
        folder = root / f"pkg{n // 1000}" / f"mod{(n // 100) % 10}"
        path = folder / f"f{n}.py"
        path.write_text(f"y = {n}\n")
        (folder / f"new{n}.py").write_text("new\n")
        (folder / f"f{n}.pyc").write_bytes(b"ignored")


def timed(work: Callable[[], object]) -> float:
    began = time.perf_counter()
    work()
    return time.perf_counter() - began


def first_check(root: Path) -> object:
    """A check as the first of a process: nothing kept in it yet (and what this process keeps,
    left as it was); what an earlier process left in the data home is read."""
    kept = git_state.LISTINGS, git_state.PRIVATE
    git_state.LISTINGS, git_state.PRIVATE = IndexListings(), PrivateIndexes()
    try:
        return files_state(root, PATTERNS)
    finally:
        git_state.LISTINGS, git_state.PRIVATE = kept


def cold_check(root: Path) -> object:
    """A first check in a process when no earlier one left anything in the data home (the
    first ever on this tree, or the first since its index changed)."""
    for folder in (FOLDER, SEEDS):
        shutil.rmtree(data_home() / "run" / folder, ignore_errors=True)
    return first_check(root)


def ratios(root: Path, runs: int) -> dict[str, float]:
    """Median seconds of each way, in turns (one of each per round, the order rotating)."""
    status = ["git", "status", "--porcelain", "--untracked-files=all"]
    ways: dict[str, Callable[[], object]] = {
        "git status": lambda: subprocess.run(status, cwd=root, check=True, capture_output=True),
        "files_state": lambda: files_state(root, PATTERNS),
        "first": lambda: first_check(root),
        "cold": lambda: cold_check(root),
        "two ls-files": lambda: git_state_baseline.git_files_state(root, PATTERNS),
        "walk": lambda: files_state_baseline.files_state(root, PATTERNS),
    }
    spent: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for _ in range(2):  # the listing and the index copy kept, as in a hook service
        files_state(root, PATTERNS)
    for turn in range(runs):
        for name in names[turn % len(names) :] + names[: turn % len(names)]:
            spent[name].append(timed(ways[name]))
    return {name: statistics.median(seconds) for name, seconds in spent.items()}


def reacts(root: Path) -> bool:
    """Whether the state changes when one committed file changes in place, and comes back."""
    path = next(root.glob("pkg0/mod0/f1.py"))
    before = files_state(root, PATTERNS)
    text = path.read_text()
    path.write_text(text.replace("1", "2"))
    changed = files_state(root, PATTERNS) != before
    path.write_text(text)
    return changed and files_state(root, PATTERNS) == before


def run(files: int = FILES, runs: int = RUNS) -> list[Result]:
    if shutil.which("git") is None:
        return [Result("files_state ÷ git status", "-", "git is not installed", ok=False)]
    home = os.environ.get(HOME_VARIABLE)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as folder:
        root = Path(folder) / "tree"
        os.environ[HOME_VARIABLE] = str(Path(folder) / "home")  # what checks leave, left here
        try:
            make_repository(root, files, min(CHANGED, files // 10))
            subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True)
            medians = ratios(root, runs)
            reacting = reacts(root)
        finally:
            if home is None:
                os.environ.pop(HOME_VARIABLE, None)
            else:
                os.environ[HOME_VARIABLE] = home
    base = medians["git status"]
    new, first = medians["files_state"] / base, medians["first"] / base
    cold = medians["cold"] / base
    pair, old = medians["two ls-files"] / base, medians["walk"] / base
    note = f"{files:,} files, {min(CHANGED, files // 10)} modified, as many untracked and ignored"
    return [
        Result("git status --porcelain -uall", f"{base * 1000:.0f} ms", f"{note}; {runs} runs"),
        Result("files_state (git's index)", f"{medians['files_state'] * 1000:.0f} ms", "same tree"),
        Result("walk (before)", f"{medians['walk'] * 1000:.0f} ms", "the walk it replaced"),
        Result(
            "files_state ÷ git status",
            f"{new:.2f}x",
            f"after, a repeated check; target ≤ {TARGET}",
            ok=new <= TARGET,
        ),
        Result(
            "first check ÷ git status",
            f"{first:.2f}x",
            f"a new process, what the last left read; target ≤ {TARGET}",
            ok=first <= TARGET,
        ),
        Result("cold first check ÷ git status", f"{cold:.2f}x", "nothing left: the index listed"),
        Result("two ls-files ÷ git status", f"{pair:.2f}x", "the way before, same run"),
        Result("walk ÷ git status", f"{old:.2f}x", "before, same run"),
        Result(
            "a modified file changes the state",
            "yes" if reacting else "no",
            "and its old content brings the state back",
            ok=reacting,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_git_state [FILES [RUNS]]`."""
    args = [int(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    return report(run(*args))


if __name__ == "__main__":
    raise SystemExit(main())
