"""Replay throughput: transcript lines replayed through every built-in observer, per second.

Measured side by side with bare `json.loads` of the same lines (in memory, best of several
repeats), on the largest real transcript under tests/fixtures/ (else the bundled demo).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path

from onlooker.hosts.recorded.replay import observers_named, replay_session
from onlooker.hosts.recorded.transcripts import Tally, Transcript, iter_claude_code

from .measure import Result

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
TARGET_RATIO = 3.0
REPEATS = 40


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
    return [
        Result("json.loads", f"{count / loads_time:,.0f} lines/s", f"{name} ({count} lines)"),
        Result("replay", f"{count / replay_time:,.0f} lines/s", "parse + every built-in observer"),
        Result(
            "replay / json.loads",
            f"{ratio:.2f}x",
            f"target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'}",
            ok=ratio <= TARGET_RATIO,
        ),
    ]
