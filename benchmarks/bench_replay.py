"""Replay throughput: transcript lines replayed through every built-in observer, per second.

Measured side by side with bare `json.loads` of the same lines (in memory, best of several
repeats), on the largest real transcript under tests/fixtures/ (else the bundled demo); and as
whole processes: `onlooker replay --json` over at least 100 MB of real transcripts (copies of
tests/fixtures/claude-code/) beside a script that `json.loads` every line of the same files, in
turns, the median ratio of wall time and of CPU time with their spread (target <= 2x); by
default replay spreads the files over a worker process a core, and `--jobs 1` (one process) is
measured beside it.
"""

from __future__ import annotations

import compileall
import gc
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from onlooker.hosts.recorded.replay import observers_named, replay_session
from onlooker.hosts.recorded.replay_pool import workers_for
from onlooker.hosts.recorded.transcripts import (
    Tally,
    Transcript,
    iter_claude_code,
    transcript_paths,
)

from .measure import Result

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
TARGET_RATIO = 3.0
REPEATS = 40
CORPUS_BYTES = 100_000_000
PROCESS_TARGET = 2.0
PROCESS_REPEATS = 3
BARE_LOADS = """
import json, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with path.open("rb") as lines:
        for line in lines:
            if line.strip():
                try:
                    json.loads(line)
                except ValueError:
                    pass
"""


def largest_transcript() -> Path:
    """The biggest real Claude Code session file (subagent files count as part of a session)."""
    found = [
        path
        for path in (FIXTURES / "claude-code").rglob("*.jsonl")
        if "subagents" not in path.parts
    ]
    return max(found, key=lambda path: path.stat().st_size) if found else DEMO


def best_of(repeats: int, *works: Callable[[], object]) -> list[float]:
    """The fastest of `repeats` runs of each, in seconds; runs alternate, so both see one load."""
    best = [float("inf")] * len(works)
    for _ in range(repeats):
        for i, work in enumerate(works):
            gc.collect()  # start each run from the same heap, not the other's garbage
            began = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - began)
    return best


def run(repeats: int = REPEATS) -> list[Result]:
    path = largest_transcript()
    lines = path.read_bytes().splitlines(keepends=True)
    observers = observers_named()

    def bare() -> None:
        for line in lines:
            if line.strip():
                json.loads(line)

    def replay() -> None:
        tally = Tally()
        events = tuple(iter_claude_code(lines, tally=tally, default_session_id=path.stem))
        transcript = Transcript(tally.session_id, str(path), events, 0, (), 0)
        replay_session(transcript, observers)

    replay()  # warm up imports and caches
    loads_time, replay_time = best_of(repeats, bare, replay)
    ratio = replay_time / loads_time
    count = len(lines)
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    in_memory = [
        Result("json.loads", f"{count / loads_time:,.0f} lines/s", f"{name} ({count} lines)"),
        Result("replay", f"{count / replay_time:,.0f} lines/s", "parse + every built-in observer"),
        Result(
            "replay / json.loads",
            f"{ratio:.2f}x",
            f"target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'}",
            ok=ratio <= TARGET_RATIO,
        ),
    ]
    return in_memory + run_process()


def corpus(folder: Path, size: int = CORPUS_BYTES) -> int:
    """Copies of the real Claude Code transcripts (with their subagents) until `size` bytes of
    them; the bytes of transcript lines."""
    source = FIXTURES / "claude-code"
    total = 0
    copies = 0
    while total < size:
        copies += 1
        target = folder / f"copy-{copies:03d}"
        shutil.copytree(source, target)
        total += sum(path.stat().st_size for path in target.rglob("*.jsonl"))
    return total


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def run_process(repeats: int = PROCESS_REPEATS) -> list[Result]:
    """`onlooker replay --json` over >= 100 MB beside a bare json.loads script, in turns: as it
    runs by default (the files spread over one worker process a core) and in one process."""
    # An installed package has its bytecode (pip compiles it): measure that, not a first compile
    # of every module, which PYTHONDONTWRITEBYTECODE would otherwise leave to each run.
    compileall.compile_dir(ROOT / "src", quiet=1)
    with tempfile.TemporaryDirectory(prefix="onlooker-bench-replay-") as scratch:
        folder = Path(scratch)
        size = corpus(folder)
        workers = workers_for(transcript_paths(folder))
        bare = [sys.executable, "-c", BARE_LOADS, str(folder)]
        replay = [sys.executable, "-m", "onlooker", "replay", "--json", str(folder)]
        runs = {"default": replay, "serial": [*replay, "--jobs", "1"]}
        walls: dict[str, list[float]] = {name: [] for name in runs}
        cpus: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(repeats):
            for name, argv in runs.items():
                bare_wall, bare_cpu = _timed(bare)
                replay_wall, replay_cpu = _timed(argv)
                walls[name].append(replay_wall / bare_wall)
                cpus[name].append(replay_cpu / bare_cpu)
    wall = {name: statistics.median(found) for name, found in walls.items()}
    cpu = {name: statistics.median(found) for name, found in cpus.items()}
    spread = {name: f"[{min(found):.2f}-{max(found):.2f}]" for name, found in walls.items()}
    met = wall["default"] <= PROCESS_TARGET
    return [
        Result(
            "replay --json / json.loads, whole process",
            f"{wall['default']:.2f}x",
            f"{size / 1e6:.0f} MB, {workers} process{'es' if workers > 1 else ''}; "
            f"median of {repeats} in turns {spread['default']}; "
            f"target <= {PROCESS_TARGET:g}x: {'met' if met else 'MISSED'}",
            ok=met,
        ),
        Result(
            "the same, CPU time",
            f"{cpu['default']:.2f}x",
            "every process's: what a shared machine's load moves least",
        ),
        Result(
            "the same in one process (--jobs 1)",
            f"{wall['serial']:.2f}x",
            f"{spread['serial']}; CPU time {cpu['serial']:.2f}x",
        ),
    ]
