"""The detached worker with real processes: queued by a real `onlooker hook`, started detached,
one per data home, alive after its starter dies, gone when idle; results in the next hook."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hook_runner import answer, make_project
from processes import alive, wait_for

from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import WorkerContext, ensure_worker, run_job, worker_pid
from onlooker.daemon.worker._launch import _started
from onlooker.store import Store, project_for
from onlooker.store._jobs import Job
from onlooker.testing.openai_endpoint import ScriptedEndpoint

pytest.importorskip("openai")

ISSUE = {"content": "Bare except hides errors", "severity": "medium", "source_ref": "src/a.py:2"}


def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, {"src/a.py": "try:\n    go()\nexcept:\n    pass\n"})


def hook(event: str, root: Path, **fields: Any) -> dict[str, Any]:
    return {"session_id": "s1", "cwd": str(root), "hook_event_name": event, **fields}


def tool_use(root: Path, n: int) -> dict[str, Any]:
    return hook("PostToolUse", root, tool_name="Read", tool_input={"file_path": "src/a.py"},
                tool_response={"ok": True}, tool_use_id=f"toolu_{n}")  # fmt: skip


def jobs(home: Path) -> dict[str, int]:
    with Store(home) as store:
        return store.jobs.counts()


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_a_hook_queues_the_review_and_the_next_hook_delivers_it(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    with ScriptedEndpoint({"observations": [ISSUE]}) as endpoint:
        monkeypatch.setenv("ONLOOKER_TEST_MODEL", endpoint.spec())
        assert answer(hook("UserPromptSubmit", root, prompt="tidy a.py")) == {}
        assert answer(hook("Stop", root, stop_hook_active=False)) == {}  # queued, not waited on
        wait_for(lambda: jobs(onlooker_home).get("done") == 1, what="the review job")
        pid = worker_pid(onlooker_home)
        assert pid is not None and pid != running_pid(onlooker_home)
        delivered = answer(tool_use(root, 1))["hookSpecificOutput"]["additionalContext"]
        assert "[Trajectory Assessment - Code Reviewer]" in delivered
        assert re.search(
            r"• \[id [0-9a-f]{8}\]: Bare except hides errors \(src/a.py:2\)", delivered
        )
        assert "additionalContext" not in json.dumps(answer(tool_use(root, 2)))  # only once
        assert answer(hook("Stop", root, stop_hook_active=False)) == {}  # unchanged: skipped
        assert len(endpoint.requests) == 1
    wait_for(lambda: not alive(pid), what="the idle worker to exit")
    assert worker_pid(onlooker_home) is None
    with Store(onlooker_home) as store:
        (cost,) = store.runs.costs(project_for(root))
        assert cost.by_status == {"ok": 1, "skipped": 1} and cost.input_tokens > 0


def test_the_worker_outlives_the_process_that_started_it(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    with ScriptedEndpoint({"observations": []}, latency=1.0) as endpoint:
        monkeypatch.setenv("ONLOOKER_TEST_MODEL", endpoint.spec())
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "5")
        answer(hook("Stop", root, stop_hook_active=False))
        wait_for(lambda: endpoint.requests, what="the worker to call the model")
        service = running_pid(onlooker_home)
        worker = worker_pid(onlooker_home)
        assert service is not None and worker is not None and worker > 0
        os.kill(service, signal.SIGKILL)  # the hook service that started it dies mid-review
        wait_for(lambda: not alive(service), what="the service to die")
        assert alive(worker)
        wait_for(lambda: jobs(onlooker_home).get("done") == 1, what="the review to finish")
        assert worker_pid(onlooker_home) == worker


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_two_starts_make_one_worker_which_exits_when_idle(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        store.enqueue("no.such.kind", {}, project="p")
    ensure_worker(onlooker_home)
    ensure_worker(onlooker_home)
    children = list(_started)
    wait_for(lambda: worker_pid(onlooker_home) not in (None, -1), what="a worker")
    holder = worker_pid(onlooker_home)
    assert holder in [child.pid for child in children]
    for child in children:
        if child.pid != holder:
            assert child.wait(timeout=20) == 0  # it found the lock held and left
    (survivor,) = [child for child in children if child.poll() is None]
    assert survivor.wait(timeout=20) == 0  # idle for 2 s: gone
    assert worker_pid(onlooker_home) is None
    with Store(onlooker_home) as store:
        assert store.jobs.counts() == {"failed": 1}  # an unknown kind is not retried


def test_a_starter_that_exits_at_once_leaves_the_worker_running(
    onlooker_home: Path, tmp_path: Path
) -> None:
    code = "import sys; from pathlib import Path; from onlooker.daemon.worker import ensure_worker; " \
           "ensure_worker(Path(sys.argv[1]))"  # fmt: skip
    subprocess.run([sys.executable, "-c", code, str(onlooker_home)], check=True, timeout=30)
    wait_for(lambda: worker_pid(onlooker_home) not in (None, -1), what="the detached worker")
    pid = worker_pid(onlooker_home)
    assert pid is not None and alive(pid)
    assert os.getsid(pid) == pid  # its own session: a signal to the starter's group misses it
    wait_for(lambda: not alive(pid), what="the idle worker to exit")
    log = (onlooker_home / "logs" / "worker.log").read_text()
    assert f"worker {pid} draining" in log


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_a_handler_that_raises_fails_the_attempt(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        job_id = store.enqueue("review.run", {"reviewer": {}}, project="p", session_id="s")
        job = store.jobs.claim("here")
        assert isinstance(job, Job)
        run_job(job, WorkerContext(store))
        found = store.jobs.get(job_id)
        assert found is not None and found.status == "queued"  # to be retried after a back-off
