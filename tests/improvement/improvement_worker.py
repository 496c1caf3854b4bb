"""A separate process that applies and rolls back improvements, for the reliability tests.

python improvement_worker.py ops <project> <go-file> <ops-json>
    waits for <go-file>, runs the operations, prints one JSON line per operation
python improvement_worker.py pause-before|pause-after <project> <marker>
    applies one line and stops (for a SIGKILL) just before or just after the file is replaced
python improvement_worker.py loop <project> <stale-after>
    applies `line 0`, `line 1`, ... until killed
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from onlooker.improvement import (
    InstructionTarget,
    LockSettings,
    apply_instructions,
    managed_lines,
    rollback,
)


def run_ops(project: Path, go: Path, ops: list[list[object]], agent: str | None) -> None:
    if agent is None:
        target = InstructionTarget.project(project, "AGENTS.md")
    else:
        target = InstructionTarget.agent(project, agent, "opencode")
    go.with_name(f"ready.{os.getpid()}").write_text("ready")
    while not go.exists():
        time.sleep(0.001)
    for op, argument in ops:
        if op == "apply":
            assert isinstance(argument, list)
            change = apply_instructions(target, [str(line) for line in argument])
        else:
            assert isinstance(argument, int)
            change = rollback(target, argument)
        print(json.dumps({"op": [op, argument], "change": change.to_json()}), flush=True)


def pause(project: Path, marker: Path, before: bool) -> None:
    real_replace = os.replace

    def paused_replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        stop = Path(target).name == "AGENTS.md"
        if stop and before:
            marker.write_text("paused")
            time.sleep(600)
        real_replace(source, target)
        if stop and not before:
            marker.write_text("paused")
            time.sleep(600)

    os.replace = paused_replace  # type: ignore[assignment]
    apply_instructions(InstructionTarget.project(project, "AGENTS.md"), ["from the killed writer"])


def loop(project: Path, stale_after: float) -> None:
    target = InstructionTarget.project(project, "AGENTS.md")
    settings = LockSettings(stale_after=stale_after)
    n = len(managed_lines(target))
    while True:
        apply_instructions(target, [f"line {n}"], lock=settings, backup_max_versions=3)
        n += 1


if __name__ == "__main__":
    mode, folder = sys.argv[1], Path(sys.argv[2])
    if mode == "ops":
        run_ops(folder, Path(sys.argv[3]), json.loads(sys.argv[4]), (sys.argv[5:] or [None])[0])
    elif mode in ("pause-before", "pause-after"):
        pause(folder, Path(sys.argv[3]), mode == "pause-before")
    else:
        loop(folder, float(sys.argv[3]))
