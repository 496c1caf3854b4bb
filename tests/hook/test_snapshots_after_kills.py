"""Session state equals its journal after kills (specs/session.md, "A session equals its journal").

Four sessions send hooks through the installed command while the hook service is SIGKILLed six
times and the worker three times, each kill landing after a count of answered hooks (no timers).
Afterwards every session, as its snapshot was saved and as the store loads it (snapshot plus
journal tail), holds exactly the journaled slices that `reindex` rebuilds from the journal alone:
its events, the assessments and failures of its observers, and what reducers derive from them.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from kill_run import ENTRY, KillRun

from onlooker.core.assessment import Assessment
from onlooker.core.session_history import history_kinds
from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import worker_pid
from onlooker.runtime import reindex, remove_index
from onlooker.store import Store, project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint

HOOKS_PER_KILL = 14
"""Hooks answered (all sessions together) between one kill and the next."""


class CountedKillRun(KillRun):
    """The kill run with kills placed by hooks answered, not by time: after every
    HOOKS_PER_KILL hooks the service is killed, and the worker too when it runs then."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answered = threading.Condition()

    def send(self, payload: bytes) -> None:
        env = {**os.environ, "ONLOOKER_HOME": str(self.home)}
        done = subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=payload,
                              capture_output=True, env=env, timeout=60)  # fmt: skip
        assert done.returncode == 0 and not done.stderr, done.stderr
        with self.answered:
            self.hooks += 1
            self.answered.notify_all()

    def _kill(self, rng: random.Random, deadline: float) -> None:
        service_quota, worker_quota = self.quota
        marks = iter(range(HOOKS_PER_KILL, 1 << 30, HOOKS_PER_KILL))
        while (self.kills, self.worker_kills) < self.quota and time.monotonic() < deadline:
            mark = next(marks)
            with self.answered:
                self.answered.wait_for(partial(self._answered, mark), deadline - time.monotonic())
            if self.kills < service_quota and _kill(running_pid(self.home)):
                self.kills += 1
            if self.worker_kills < worker_quota and _kill(worker_pid(self.home)):
                self.worker_kills += 1
        self.killed.set()

    def _answered(self, count: int) -> bool:
        return self.hooks >= count


def _kill(pid: int | None) -> bool:
    if not pid or pid < 0:
        return False
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def _wait(condition: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def extracted(body: dict[str, Any]) -> dict[str, Any]:
    return {"memories": [{"title": "Edits", "content": "Edited files in turn."}]}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(reply=extracted, latency=0.3) as served:  # the worker's jobs last
        monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", served.spec())
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "3")
        yield served
    _kill(worker_pid(onlooker_home))


def journaled_slices(snapshot: dict[str, Any], rebuilt: dict[str, Any]) -> dict[str, Any]:
    """The slices of `snapshot` that a rebuild from the journal holds (events, assessments,
    failures and what reducers derive from them), and every history slice it has besides."""
    kinds = history_kinds() | set(rebuilt["slices"])
    return {name: found for name, found in snapshot["slices"].items() if name in kinds}


def test_sessions_equal_their_journals_after_service_and_worker_kills(
    tmp_path: Path, onlooker_home: Path, endpoint: ScriptedEndpoint
) -> None:
    run = CountedKillRun(tmp_path / "app", onlooker_home, sessions=4, service_kills=6,
                         worker_kills=3)  # fmt: skip
    run.go(random.Random(26), timeout=45, calls=24)
    assert (run.kills, run.worker_kills) == (6, 3)
    project = project_for(tmp_path / "app")
    _settle(onlooker_home)

    with Store(onlooker_home) as store:
        saved = {s: store.index.load_session(s) for s in run.sessions}
        loaded = {s: store.load_session(s) for s in run.sessions}
    remove_index(onlooker_home)  # `onlooker reindex --fresh`
    with Store(onlooker_home) as store:
        reindex(store, ())
        rebuilt = {s: store.index.load_session(s) for s in run.sessions}

    assessments = 0
    for session in run.sessions:
        found, again, fresh = saved[session], loaded[session], rebuilt[session]
        assert found is not None and again is not None and fresh is not None, session
        journal, seq, snapshot, _ = fresh
        assert journal.startswith(f"journals/{project}/"), journal
        assert found[1] == seq == again.seq, f"{session}: seq"
        expected = fresh[2]["slices"]
        for name, live in (("saved", found[2]), ("loaded", again.snapshot())):
            slices = journaled_slices(live, snapshot)
            assert set(slices) == set(expected), f"{session} {name}: {set(slices) ^ set(expected)}"
            for kind in expected:
                assert slices[kind] == expected[kind], f"{session} {name}: slice {kind} differs"
        assessments += expected.get(Assessment.kind, {}).get("total", 0)
    assert assessments >= 4, "the failing calls were meant to be assessed"


def _settle(home: Path) -> None:
    """A service replays what the kills left in the spool, then stops (saving what it holds)."""
    env = {**os.environ, "ONLOOKER_HOME": str(home)}
    ping = {"session_id": "settle", "cwd": "", "hook_event_name": "SessionStart"}
    subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=json.dumps(ping).encode(),
                   env=env, capture_output=True, timeout=60, check=True)  # fmt: skip
    _wait(lambda: not list((home / "spool").glob("*.hook")), "the spool to be replayed")
    pid = running_pid(home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)
    _wait(lambda: running_pid(home) is None, "the service to stop")
    _kill(worker_pid(home))
    _wait(lambda: worker_pid(home) is None, "the worker to stop")
