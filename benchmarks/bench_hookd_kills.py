"""The kill run at the length of the original measurement: 8 sessions send hooks through the
installed command while the hook service is SIGKILLed 35 times and the worker 20 times
(`tests/hook/test_kill_run.py` runs a bounded one). Counts what was journaled twice or lost, the
jobs left and failed, and whether `reindex` reproduces every finding."""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.measure import Result
from onlooker.store import project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "hook"))
from kill_run import KillRun, journal_records, settle

SERVICE_KILLS = 35
WORKER_KILLS = 20


def run() -> list[Result]:
    home = Path(tempfile.mkdtemp(prefix="onlooker-bench-kills-"))
    os.environ["ONLOOKER_HOME"] = str(home)
    os.environ["ONLOOKER_WORKER_IDLE"] = "3"
    with ScriptedEndpoint(reply='{"memories": []}', latency=0.5) as endpoint:
        os.environ["ONLOOKER_MEMORY_MODEL"] = endpoint.spec()
        kills = KillRun(home / "app", home, sessions=8, service_kills=SERVICE_KILLS,
                        worker_kills=WORKER_KILLS)  # fmt: skip
        started = time.monotonic()
        kills.go(random.Random(35), timeout=600)
        took = time.monotonic() - started
        project = project_for(home / "app")
        outcome = settle(home, project=project)
    twice = lost = 0
    for session, sent in kills.sent.items():
        records = journal_records(home, project, session)
        calls = Counter(r["call_id"] for r in records if r["kind"] == "tool_call")
        twice += sum(n - 1 for n in calls.values() if n > 1)
        lost += len(set(sent.calls) - set(calls))
    return [
        Result(
            "kills: service / worker",
            f"{kills.kills} / {kills.worker_kills}",
            f"{kills.hooks} hooks in {took:.0f} s",
        ),
        Result(
            "tool calls journaled twice / lost",
            f"{twice} / {lost}",
            "target 0 / 0",
            twice == lost == 0,
        ),
        Result(
            "jobs left queued or running",
            str(outcome.jobs.get("queued", 0) + outcome.jobs.get("running", 0)),
            f"after the worker ran; done {outcome.jobs.get('done', 0)}",
            not outcome.jobs.get("queued") and not outcome.jobs.get("running"),
        ),
        Result(
            "jobs failed",
            str(len(outcome.failed)),
            "each because its worker was killed at every attempt" if outcome.failed else "",
        ),
        Result(
            "reindex reproduces the findings",
            str(outcome.reindexed == outcome.findings),
            f"{len(outcome.findings)} findings",
            outcome.reindexed == outcome.findings,
        ),
    ]
