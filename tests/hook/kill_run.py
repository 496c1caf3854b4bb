"""The kill run's harness (tests/hook/test_kill_run.py, benchmarks/bench_hookd_kills.py): sessions
send hooks through the installed command while a killer SIGKILLs the hook service and the worker;
`settle` then lets the spool drain and the worker finish, and reindexes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onlooker
from onlooker.core.events import Event
from onlooker.core.records import record_kinds
from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import ensure_worker, worker_pid
from onlooker.runtime import reindex, remove_index
from onlooker.store import Store
from onlooker.store.query import FindingQuery

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
TURN = 12
"""Tool calls per turn: a prompt before, a Stop after."""


@dataclass
class Sent:
    """What one session's hooks sent (each hook exited 0)."""

    calls: list[str] = field(default_factory=list)
    prompts: int = 0
    stops: int = 0


@dataclass
class Outcome:
    findings: list[tuple[Any, ...]]
    reindexed: list[tuple[Any, ...]]
    jobs: dict[str, int]
    failed: list[tuple[str, str]]
    spooled: list[Path]
    refused: list[Path]


class KillRun:
    EVENT_KINDS = frozenset(k for k, cls in record_kinds().items() if issubclass(cls, Event))

    def __init__(
        self, root: Path, home: Path, *, sessions: int, service_kills: int, worker_kills: int
    ) -> None:
        self.root, self.home = root, home
        (root / ".git").mkdir(parents=True, exist_ok=True)
        self.sessions = [f"s{i}" for i in range(sessions)]
        self.quota = (service_kills, worker_kills)
        self.kills = self.worker_kills = 0
        self.sent = {session: Sent() for session in self.sessions}
        self.killed = threading.Event()
        self.hooks = 0

    def go(self, rng: random.Random, *, timeout: float, calls: int = 36) -> None:
        """Send each session's hooks (at least `calls` tool calls, more until every kill is
        done) while killing; fails when the run takes longer than `timeout` seconds."""
        deadline = time.monotonic() + timeout
        killer = threading.Thread(target=self._kill, args=(rng, deadline), daemon=True)
        workers = [
            threading.Thread(target=self._session, args=(s, calls, deadline), daemon=True)
            for s in self.sessions
        ]
        for thread in (killer, *workers):
            thread.start()
        for thread in (killer, *workers):
            thread.join(max(0.0, deadline - time.monotonic()) + 30)
            assert not thread.is_alive(), "the kill run did not finish in time"

    def hook(self, session: str, event: str, **fields: Any) -> bytes:
        return json.dumps({"session_id": session, "transcript_path": f"/t/{session}.jsonl",
                           "cwd": str(self.root), "hook_event_name": event, **fields}).encode()  # fmt: skip

    def tool_call(self, session: str, n: int) -> bytes:
        call_id = f"toolu_{session}_{n}"
        if n % 4 == 0:  # the same failing command again and again: observers report it
            return self.hook(session, "PostToolUseFailure", tool_name="Bash", tool_use_id=call_id,
                             tool_input={"command": "make check"},
                             error="make: *** [check] Error 2")  # fmt: skip
        path = f"{self.root}/src/m{n}.py"
        return self.hook(session, "PostToolUse", tool_name="Edit", tool_use_id=call_id,
                         tool_input={"file_path": path, "old_string": f"a{n}", "new_string": f"b{n}"},
                         tool_response={"filePath": path})  # fmt: skip

    def send(self, payload: bytes) -> None:
        env = {**os.environ, "ONLOOKER_HOME": str(self.home)}
        done = subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=payload,
                              capture_output=True, env=env, timeout=60)  # fmt: skip
        assert done.returncode == 0 and not done.stderr, done.stderr
        self.hooks += 1

    def _session(self, session: str, calls: int, deadline: float) -> None:
        sent = self.sent[session]
        self.send(self.hook(session, "SessionStart", source="startup"))
        n = 0
        while (n < calls or not self.killed.is_set()) and time.monotonic() < deadline:
            n += 1
            if n % TURN == 1:
                self.send(self.hook(session, "UserPromptSubmit", prompt=f"step {n}"))
                sent.prompts += 1
            self.send(self.tool_call(session, n))
            sent.calls.append(f"toolu_{session}_{n}")
            if n % TURN == 0:
                self.send(self.hook(session, "Stop", stop_hook_active=False))
                sent.stops += 1
        self.send(self.hook(session, "Stop", stop_hook_active=False))
        sent.stops += 1
        self.send(self.hook(session, "SessionEnd", reason="prompt_input_exit"))

    def _kill(self, rng: random.Random, deadline: float) -> None:
        service_quota, worker_quota = self.quota
        while (self.kills, self.worker_kills) < self.quota and time.monotonic() < deadline:
            time.sleep(rng.uniform(0.3, 1.0))
            pid = running_pid(self.home)
            if self.kills < service_quota and pid and pid > 0 and _kill(pid):
                self.kills += 1
            pid = worker_pid(self.home)
            if self.worker_kills < worker_quota and pid and pid > 0 and _kill(pid):
                self.worker_kills += 1
        self.killed.set()


def _kill(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def journal_records(home: Path, project: str, session: str) -> list[dict[str, Any]]:
    path = home / "journals" / project / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _wait(condition: Any, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _findings(store: Store, project: str) -> list[tuple[Any, ...]]:
    page = store.query(FindingQuery(project=project, limit=1000))
    return sorted(
        (o.id, o.finding.status, o.occurrences, o.finding.severity, o.finding.content)
        for o in page.observations
    )


def settle(home: Path, *, project: str) -> Outcome:
    """Let a service replay the spool, stop it, let a worker run the queued jobs, then compare
    the findings with those `reindex` rebuilds from the journals."""
    env = {**os.environ, "ONLOOKER_HOME": str(home)}
    ping = {"session_id": "settle", "cwd": "", "hook_event_name": "SessionStart"}
    subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=json.dumps(ping).encode(),
                   env=env, capture_output=True, timeout=60, check=True)  # fmt: skip
    spool = home / "spool"
    _wait(lambda: not list(spool.glob("*.hook")), "the service to replay the spool", 30)
    _stop(home, running_pid)
    ensure_worker(home)
    with Store(home) as store:
        _wait(lambda: not store.jobs.backlog().queued + store.jobs.backlog().running,
              "the worker to run every queued job", 60)  # fmt: skip
        jobs = store.jobs.counts()
        _, failed = store.jobs.failures(limit=20)
        findings = _findings(store, project)
    _stop(home, worker_pid)
    remove_index(home)
    with Store(home) as store:
        reindex(store, ())
        reindexed = _findings(store, project)
    return Outcome(findings, reindexed, jobs, failed, list(spool.glob("*.hook")),
                   list((spool / "refused").glob("*.hook")))  # fmt: skip


def _stop(home: Path, pid_of: Any) -> None:
    pid = pid_of(home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)
    _wait(lambda: pid_of(home) is None, "a process to stop", 30)
