"""The kill run, bounded: hooks flow from several real hook processes (the installed command)
while the hook service is SIGKILLed 10 times and the worker 5 times. Afterwards every tool call
sent is journaled exactly once (no duplicate call id, no duplicate seq), every prompt and Stop
once, the spool is drained, `reindex` reproduces every finding, and once the worker has run no
memory job is left queued or running, and a failed one failed because its worker was killed at each
of its attempts. `benchmarks/bench_hookd_kills.py` runs it
longer."""

from __future__ import annotations

import os
import random
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kill_run import KillRun, journal_records, settle

from onlooker.daemon.worker import worker_pid
from onlooker.store import project_for
from onlooker.store._jobs import DIED
from onlooker.testing.openai_endpoint import ScriptedEndpoint


def extracted(body: dict[str, Any]) -> dict[str, Any]:
    return {"memories": [{"title": "Edits", "content": "Edited files in turn."}]}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(reply=extracted, latency=0.5) as served:  # jobs last: kills land
        monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", served.spec())
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "3")
        yield served
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


def test_hooks_survive_ten_service_kills_and_five_worker_kills(
    tmp_path: Path, onlooker_home: Path, endpoint: ScriptedEndpoint
) -> None:
    run = KillRun(tmp_path / "app", onlooker_home, sessions=4, service_kills=10, worker_kills=5)
    run.go(random.Random(20), timeout=100)
    assert (run.kills, run.worker_kills) == (10, 5)
    project = project_for(tmp_path / "app")
    outcome = settle(onlooker_home, project=project)
    for session, sent in run.sent.items():
        records = journal_records(onlooker_home, project, session)
        seqs = [r["seq"] for r in records if "seq" in r and r["kind"] in run.EVENT_KINDS]
        assert len(seqs) == len(set(seqs)), f"{session}: a seq journaled twice"
        calls = Counter(r["call_id"] for r in records if r["kind"] == "tool_call")
        assert calls == Counter(sent.calls), f"{session}: calls sent once, journaled {calls}"
        for kind, count in (("user_prompt", sent.prompts), ("turn_ended", sent.stops)):
            inputs = [r.get("input_id", "") for r in records if r["kind"] == kind]
            assert len(inputs) == count == len(set(inputs)), f"{session}: {kind} {inputs}"
    assert outcome.findings, "the failing calls were meant to leave findings"
    assert outcome.reindexed == outcome.findings
    assert outcome.jobs.get("queued", 0) == outcome.jobs.get("running", 0) == 0, outcome.jobs
    assert outcome.jobs.get("done", 0) >= 4, outcome.jobs  # each session's final extraction
    # a job fails only when the worker running it was killed at each of its attempts
    assert all(error.endswith(DIED) for _, error in outcome.failed), outcome.failed
    assert not outcome.spooled and not outcome.refused
