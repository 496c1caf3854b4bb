"""A worker killed in the middle of a side effect: its claim on the replay key does not keep the
rule from running. The job's next attempt, in a new worker process, takes the claim over and
completes the side effect once; the archived file is there once.

The slow side effect is a plugin's, installed for the test as a package folder with its own
`onlooker.side_effects` entry point on the workers' PYTHONPATH.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from onlooker.core.events import ToolCall
from onlooker.side_effects import (
    JOB_KIND,
    Archive,
    Limits,
    Rule,
    SideEffectSettings,
    job_payload,
    run_side_effects,
)
from onlooker.store import Store

AT = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)

PLUGIN = '''
import os, time
from pathlib import Path


def register(register):
    register("slow_save", slow_save)


def slow_save(call, ctx):
    """Copy the written file, say so, then wait while the test's hold file exists."""
    written = ctx.archive.copy(Path(call.input["file_path"]), "files/report.md", ctx.project_root)
    with open(ctx.rule.options["log"], "a") as log:
        log.write(f"copied {os.getpid()}\\n")
    hold = Path(ctx.rule.options["hold"])
    deadline = time.monotonic() + 60
    while hold.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return written
'''


def install_plugin(folder: Path) -> Path:
    """A package with an `onlooker.side_effects` entry point, importable from `folder`."""
    folder.mkdir(parents=True)
    (folder / "slow_effect.py").write_text(PLUGIN)
    info = folder / "onlooker_slow_effect-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: onlooker-slow-effect\n"
                                   "Version: 0.1\n")  # fmt: skip
    (info / "entry_points.txt").write_text("[onlooker.side_effects]\nslow = slow_effect:register\n")
    return folder


@pytest.fixture
def start_worker(
    tmp_path: Path, onlooker_home: Path
) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    plugin = install_plugin(tmp_path / "plugin")
    env = {**os.environ, "ONLOOKER_HOME": str(onlooker_home), "PYTHONPATH": str(plugin)}
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        with (tmp_path / f"worker-{len(started)}.log").open("wb") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "onlooker.daemon.worker", "--home", str(onlooker_home),
                 "--idle", "1"],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        started.append(worker)
        return worker

    yield start
    for worker in started:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_side_effect_whose_worker_was_killed_mid_action_is_done_once_by_the_next(
    tmp_path: Path, onlooker_home: Path, start_worker: Callable[[], subprocess.Popen[bytes]]
) -> None:
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    (root / "report.md").write_text("# Q3\n")
    ran, hold = tmp_path / "ran.log", tmp_path / "hold"
    hold.touch()
    call = ToolCall(session_id="s", at=AT, call_id="toolu_1", tool="Write",
                    input={"file_path": str(root / "report.md")})  # fmt: skip
    rule = Rule("slow_save", ("Write",), options={"log": str(ran), "hold": str(hold)})
    settings = SideEffectSettings(rules=(rule,))
    payload = job_payload(call, settings.due(call, root), settings, session_id="s",
                          project_root=root, home=onlooker_home)  # fmt: skip
    with Store(onlooker_home) as store:
        store.enqueue(JOB_KIND, payload, project="app", session_id="s")

    first = start_worker()
    wait_for(lambda: ran.exists() and ran.read_text().count("copied") == 1, "the first run")
    first.send_signal(signal.SIGKILL)  # mid-action: the file copied, nothing recorded yet
    first.wait()
    folder = Archive(onlooker_home / "archive", "app", "s", Limits()).folder
    assert (folder / "files/report.md").read_text() == "# Q3\n"
    with Store(onlooker_home) as store:
        assert store.effects.saved("app", "s") == []
        assert store.jobs.counts() == {"running": 1}

    hold.unlink()
    second = start_worker()
    assert second.wait(timeout=60) == 0
    with Store(onlooker_home) as store:
        saved = store.effects.saved("app", "s")
        assert store.jobs.counts() == {"done": 1}
        (job,) = [store.jobs.get(i) for i in (1,)]
        assert job is not None and job.attempts == 2
        assert run_side_effects(store, "app", payload) == []  # a replay does nothing again
    pids = [line.split()[1] for line in ran.read_text().splitlines()]
    assert len(pids) == 2 and pids[0] == str(first.pid) and pids[1] == str(second.pid)
    assert [(s.action, s.path, s.call_id) for s in saved] == [
        ("slow_save", "files/report.md", "toolu_1")
    ]
    assert sorted(p.name for p in (folder / "files").iterdir()) == ["report.md"]
    assert (folder / "files/report.md").read_text() == "# Q3\n"
