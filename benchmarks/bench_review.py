"""Reviewer figures: 10 reviewers against a local OpenAI-compatible endpoint that answers after a
fixed latency L, through the real `openai-compatible:` provider, run in parallel (wall ÷ L, target
≤ 1.2) and one by one for contrast; then a rehash of a generated 100,000-file tree next to
`git ls-files -s` on the same tree."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from onlooker import Session
from onlooker.core.events import UserPrompt
from onlooker.reviewers._run import ModelCache, run_parallel
from onlooker.reviewers.config import ReviewerConfig
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import ConversationTarget, files_state
from onlooker.store import Store
from onlooker.testing.openai_endpoint import ScriptedEndpoint

from .measure import Result, report

REVIEWERS = 10
LATENCY = 1.0
TARGET_RATIO = 1.2
FILES = 100_000
PER_DIR = 100


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


def median_seconds(work: object, runs: int = 3) -> float:
    spent = []
    for _ in range(runs):
        began = time.perf_counter()
        work()  # type: ignore[operator]
        spent.append(time.perf_counter() - began)
    return statistics.median(spent)


def rehash_figures(files: int) -> list[Result]:
    git = shutil.which("git")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        make_tree(root, files)
        ours = median_seconds(lambda: files_state(root, ["**/*"]))
        if git is None:
            return [Result("rehash", f"{ours * 1000:.0f} ms", "git not installed: no contrast")]
        env = {**os.environ, "GIT_INDEX_FILE": str(root / ".git" / "index")}
        quiet = {"cwd": root, "env": env, "check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([git, "init", "-q"], **quiet)  # type: ignore[call-overload]
        subprocess.run([git, "add", "-A"], **quiet)  # type: ignore[call-overload]
        theirs = median_seconds(lambda: subprocess.run([git, "ls-files", "-s"], **quiet))  # type: ignore[call-overload]
        ours = median_seconds(lambda: files_state(root, ["**/*"]))  # with .git present
    return [
        Result(
            "rehash", f"{ours * 1000:.0f} ms", f"files_state over {files:,} files (median of 3)"
        ),
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
