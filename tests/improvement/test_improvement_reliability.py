"""Real processes on one project: four writers at once, and writers killed mid-apply."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from onlooker.errors import LockTimeout, NothingToRollBack
from onlooker.improvement import (
    InstructionTarget,
    LockSettings,
    apply_instructions,
    history,
    rollback,
    rollback_depth,
)
from onlooker.improvement._section import SECTION, inject

WORKER = Path(__file__).with_name("improvement_worker.py")
ORIGINAL = b"# Project\r\n\r\nUse make.\r\n\r\n## Later\r\nStays.\r\n"
WORKERS = 4


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def worker_ops(worker: int) -> list[list[object]]:
    """Every prefix applies at least as often as it rolls back, so no rollback can run out."""
    return [
        ["apply", [f"w{worker} first"]],
        ["apply", [f"w{worker} second", f"w{worker} also"]],
        ["rollback", 1],
        ["apply", [f"w{worker} third"]],
        ["apply", [f"w{worker} fourth"]],
        ["rollback", 2],
        ["apply", [f"w{worker} fifth"]],
    ]


def start(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(path: Path, process: subprocess.Popen[str], limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def run_workers(
    tmp_path: Path, project: Path, agents: list[str] | None = None
) -> list[dict[str, Any]]:
    """Start one worker per agent (or WORKERS on AGENTS.md), let them go at once, collect their
    records."""
    go = tmp_path / "go"
    processes = [
        start("ops", project, go, json.dumps(worker_ops(w)), *([agents[w]] if agents else []))
        for w in range(WORKERS)
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready.*"))) < WORKERS:  # every worker at the start line
        assert time.monotonic() < deadline and all(p.poll() is None for p in processes)
        time.sleep(0.01)
    go.write_text("go")
    records = []
    for process in processes:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err
        records += [json.loads(line) for line in out.splitlines()]
    assert len(records) == WORKERS * 7
    return records


def test_four_processes_at_once_equal_a_serial_order(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_bytes(ORIGINAL)
    records = run_workers(tmp_path, project)

    # The order the lock was taken in: each change's sequence, every one of them distinct.
    records.sort(key=lambda r: r["change"]["sequence"])
    assert [r["change"]["sequence"] for r in records] == list(range(1, len(records) + 1))
    order = [r["op"][1][0].split()[0] if r["op"][0] == "apply" else "" for r in records]
    took_turns = sum(a != b for a, b in itertools.pairwise(order) if a and b)
    assert took_turns >= WORKERS - 1, f"the workers did not overlap: {order}"
    chain = sha(ORIGINAL)
    for record in records:  # each change started from the file the previous one left
        assert record["change"]["before_sha"] == chain
        chain = record["change"]["after_sha"]
    final = (project / "AGENTS.md").read_bytes()
    assert sha(final) == chain

    # Replayed one at a time in that order, the same operations give the same file at every step.
    serial = tmp_path / "serial"
    serial.mkdir()
    (serial / "AGENTS.md").write_bytes(ORIGINAL)
    target = InstructionTarget.project(serial, "AGENTS.md")
    for record in records:
        op, argument = record["op"]
        change = (
            apply_instructions(target, argument) if op == "apply" else rollback(target, argument)
        )
        assert change.after_sha == record["change"]["after_sha"]
    assert (serial / "AGENTS.md").read_bytes() == final
    assert final.startswith(ORIGINAL) and f"## {SECTION}".encode() in final

    # Every kept backup is a whole version the file held, and rollback walks back to the start.
    concurrent = InstructionTarget.project(project, "AGENTS.md")
    states = {r["change"]["before_sha"] for r in records}
    backups = [p for p in concurrent.backups.iterdir() if p.name != "index.json"]
    assert len(backups) == 20
    assert all(sha(p.read_bytes()) in states for p in backups)
    assert [c.sequence for c in history(concurrent)] == sorted(
        c.sequence for c in history(concurrent)
    )
    assert rollback_depth(concurrent) == WORKERS * 2
    for _ in range(WORKERS * 2):
        rollback(concurrent)
    assert (project / "AGENTS.md").read_bytes() == ORIGINAL
    with pytest.raises(NothingToRollBack):
        rollback(concurrent)
    assert [p.name for p in (project / ".onlooker" / "locks").iterdir()] == [".gitignore"]


def test_four_agents_in_one_opencode_json_lose_no_update(tmp_path: Path) -> None:
    agents = [f"agent{w}" for w in range(WORKERS)]
    config = {"$schema": "https://opencode.ai/config.json",
              "agent": {name: {"mode": "subagent", "prompt": f"You are {name}."} for name in agents},
              "theme": "dark"}  # fmt: skip
    original = json.dumps(config, indent=2) + "\n"
    project = tmp_path / "project"
    project.mkdir()
    (project / "opencode.json").write_text(original)
    records = run_workers(tmp_path, project, agents)
    assert sorted(r["change"]["sequence"] for r in records) == [
        n for n in range(1, 8) for _ in agents
    ]

    # Each agent's operations, replayed alone, give the same prompt: no worker lost another's.
    serial = tmp_path / "serial"
    serial.mkdir()
    (serial / "opencode.json").write_text(original)
    for w, name in enumerate(agents):
        target = InstructionTarget.agent(serial, name, "opencode")
        for op, argument in worker_ops(w):
            apply_instructions(target, argument) if op == "apply" else rollback(target, argument)
    assert (project / "opencode.json").read_bytes() == (serial / "opencode.json").read_bytes()
    assert json.loads((project / "opencode.json").read_text())["theme"] == "dark"


def test_a_writer_killed_before_the_replace_leaves_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(ORIGINAL)
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    apply_instructions(target, ["before the crash"])
    old = target.path.read_bytes()
    marker = tmp_path / "paused"
    process = start("pause-before", tmp_path, marker)
    wait_for(marker, process)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert target.path.read_bytes() == old
    lock = target.lock_path
    assert lock.exists() and json.loads(lock.read_text())["pid"] == process.pid
    lock_written = lock.stat().st_mtime
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".onlooker-tmp")]

    # Younger than 30 s, the dead writer's lock is still respected...
    with pytest.raises(
        LockTimeout, match=rf"pid {process.pid} .*\(taken over once older than 30 s\)"
    ):
        apply_instructions(target, ["too early"], lock=LockSettings(timeout=0.3))
    # ...and taken over once it is older than the staleness limit.
    settings = LockSettings(stale_after=1.0, timeout=60)
    change = apply_instructions(target, ["after the crash"], lock=settings)
    assert time.time() - lock_written >= 1.0
    assert change.before_sha == sha(old)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".onlooker-tmp")]
    assert [c.lines for c in history(target)] == [("before the crash",), ("after the crash",)]
    rollback(target)
    rollback(target)
    assert target.path.read_bytes() == ORIGINAL


def test_a_writer_killed_after_the_replace_leaves_the_new_file_on_record(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_bytes(ORIGINAL)
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    marker = tmp_path / "paused"
    process = start("pause-after", tmp_path, marker)
    wait_for(marker, process)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert (
        target.path.read_bytes()
        == inject(ORIGINAL.decode(), SECTION, ["from the killed writer"]).encode()
    )
    # The change the killed writer noted as pending is on record, so it can be rolled back.
    assert [c.lines for c in history(target)] == [("from the killed writer",)]
    rollback(target, lock=LockSettings(stale_after=0.5))
    assert target.path.read_bytes() == ORIGINAL


def test_kills_at_random_moments_never_leave_a_torn_file(tmp_path: Path) -> None:
    big = (ORIGINAL + b"filler line that makes every write take a while\r\n" * 4_000).decode()
    (tmp_path / "AGENTS.md").write_text(big, newline="")
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    chooser = random.Random(15)

    def version(applied: int) -> str:
        """The file after `line 0` ... `line <applied - 1>` were applied."""
        return inject(big, SECTION, [f"line {n}" for n in range(applied)])

    for _ in range(5):
        process = start("loop", tmp_path, 0.3)
        time.sleep(chooser.uniform(1.0, 2.0))
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        now = target.path.read_bytes().decode()
        applied = now.count("\r\n- line ")
        assert now == version(applied), "the file is neither the old nor a new version"
    assert applied > 0, "no apply finished between the kills"
    rollback(target, lock=LockSettings(stale_after=0.3))
    assert target.path.read_bytes().decode() == version(applied - 1)
