"""The store's two backends side by side in one run: SQLite (onlooker.db) and PostgreSQL (a real
server started for the run, as a team's shared store would be).

(a) a PostToolUse hook run by the installed command, the hook service warm (its pool connected),
    PostgreSQL ÷ SQLite (target <= 1.5); (b) one finding created through the Store (a write
    transaction with its journal append), and one listing of a project's open findings, per
    backend. Medians of interleaved runs.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.bench_hook import _payload
from benchmarks.measure import Result
from onlooker.core.assessment import Finding
from onlooker.daemon.hookd import running_pid
from onlooker.hosts.claude_code.install import hook_command
from onlooker.store import FindingQuery, Store
from onlooker.testing.postgres import start_postgres

ROUNDS = 60
STORE_ROUNDS = 300


def _hook(home: Path, url: str, payload: bytes) -> float:
    env = {**os.environ, "ONLOOKER_HOME": str(home), "ONLOOKER_STORE_URL": url}
    started = time.perf_counter()
    subprocess.run(hook_command(), input=payload, stdout=subprocess.DEVNULL, check=True,
                   shell=True, env=env)  # fmt: skip
    return time.perf_counter() - started


def _store_ops(store: Store, rounds: int) -> tuple[float, float]:
    """Median seconds of one create and of one listing of open findings."""
    create, listing = [], []
    for i in range(rounds):
        finding = Finding(observer="bench", content=f"finding {i}", source_ref=f"a.py:{i}")
        started = time.perf_counter()
        store.create([finding], project="bench", session_id="s1")
        create.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.query(FindingQuery(project="bench", statuses=("open",), limit=20))
        listing.append(time.perf_counter() - started)
    return statistics.median(create), statistics.median(listing)


def run() -> list[Result]:
    server = start_postgres()
    base = Path(tempfile.mkdtemp(prefix="onlooker-bench-backends-"))
    homes = {"sqlite": (base / "sqlite", "")}
    homes["postgres"] = (base / "postgres", server.fresh_database())
    os.environ["ONLOOKER_HOOKD_IDLE"] = "120"
    timings: dict[str, list[float]] = {name: [] for name in homes}
    try:
        for name, (home, url) in homes.items():
            for n in range(5):  # start the service, warm its store
                _hook(home, url, _payload(name, n, str(home / "project")))
        for i in range(ROUNDS):
            for name, (home, url) in homes.items():
                payload = _payload(name, 100 + i, str(home / "project"))
                timings[name].append(_hook(home, url, payload))
        with (
            Store(base / "ops-sqlite", url="") as lite,
            Store(base / "ops-postgres", url=server.fresh_database()) as shared,
        ):
            lite_ops = _store_ops(lite, STORE_ROUNDS)
            shared_ops = _store_ops(shared, STORE_ROUNDS)
    finally:
        for home, _ in homes.values():
            pid = running_pid(home)
            if pid:
                os.kill(pid, signal.SIGTERM)
        server.stop()
    shell_cost = statistics.median(
        [_time_shell() for _ in range(ROUNDS)]
    )  # the shell that runs the installed command, as bench_hook removes it
    lite_ms = (statistics.median(timings["sqlite"]) - shell_cost) * 1000
    pg_ms = (statistics.median(timings["postgres"]) - shell_cost) * 1000
    ratio = pg_ms / lite_ms
    return [
        Result("PostToolUse hook, SQLite", f"{lite_ms:.1f} ms", "installed command, warm service"),
        Result("PostToolUse hook, PostgreSQL", f"{pg_ms:.1f} ms", "same, the service's pool warm"),
        Result("hook: PostgreSQL / SQLite", f"{ratio:.2f}x", "target <= 1.5", ratio <= 1.5),
        Result("create one finding, SQLite", f"{lite_ops[0] * 1000:.2f} ms", "Store.create"),
        Result("create one finding, PostgreSQL", f"{shared_ops[0] * 1000:.2f} ms", "Store.create"),
        Result("list open findings, SQLite", f"{lite_ops[1] * 1000:.2f} ms", "limit 20"),
        Result("list open findings, PostgreSQL", f"{shared_ops[1] * 1000:.2f} ms", "limit 20"),
    ]


def _time_shell() -> float:
    started = time.perf_counter()
    subprocess.run("true", shell=True, check=True)
    return time.perf_counter() - started
