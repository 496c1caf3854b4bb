"""Memory without junk, through real hook processes and the detached worker: with no model named,
memories are made by rule; a model's junk (numbered titles, digits) is dropped and counted; an
extraction whose model cannot be built fails at once, visibly in `onlooker doctor`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, answer

from onlooker.daemon.worker import worker_pid
from onlooker.memory._memories import Memories
from onlooker.store import Store, project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint

JUNK = {"memories": [{"title": str(n), "content": f"{n}{n + 1}{n + 2}"} for n in range(1, 6)]}


@pytest.fixture(autouse=True)
def worker(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    monkeypatch.delenv("ONLOOKER_MEMORY_MODEL", raising=False)
    monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
    yield
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


def hook(event: str, cwd: Path, session: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                   "cwd": str(cwd), "hook_event_name": event, **fields})  # fmt: skip


def hash_switch_session(app: Path, session: str) -> None:
    """Switch a token hash from sha256 to sha512: the tests fail, an edit, the tests pass."""
    hook("SessionStart", app, session, source="startup")
    test = {"command": "pytest tests/test_tokens.py -q"}
    hook("PostToolUse", app, session, tool_name="Read", tool_use_id="r1",
         tool_input={"file_path": f"{app}/tokens.py"}, tool_response={"type": "text"})  # fmt: skip
    hook("PostToolUse", app, session, tool_name="Edit", tool_use_id="e1",
         tool_input={"file_path": f"{app}/tokens.py", "old_string": "sha256", "new_string": "sha512"},
         tool_response={"filePath": f"{app}/tokens.py"})  # fmt: skip
    hook("PostToolUseFailure", app, session, tool_name="Bash", tool_use_id="b1", tool_input=test,
         error="Exit code 1\nAssertionError: digest length 64 != 128\n1 failed",
         is_interrupt=False)  # fmt: skip
    hook("PostToolUse", app, session, tool_name="Edit", tool_use_id="e2",
         tool_input={"file_path": f"{app}/tests/test_tokens.py", "old_string": "64",
                     "new_string": "128"},
         tool_response={"filePath": f"{app}/tests/test_tokens.py"})  # fmt: skip
    hook("PostToolUse", app, session, tool_name="Bash", tool_use_id="b2", tool_input=test,
         tool_response={"stdout": "5 passed", "stderr": "", "interrupted": False})  # fmt: skip
    hook("SessionEnd", app, session, reason="prompt_input_exit")


def settled(home: Path, project: str, session: str, timeout: float = 60) -> None:
    """Wait until the session's pending events are consumed and its job has finished."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Store(home) as store:
            jobs = store.jobs.counts()
            if not Memories(store).pending(project, session) and not (
                jobs.get("queued") or jobs.get("running")
            ):
                return
        time.sleep(0.1)
    log = home / "logs" / "worker.log"
    raise AssertionError(log.read_text() if log.exists() else "no worker log")


def app_folder(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    return app


def test_with_no_model_named_memory_is_a_rule_based_digest(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = app_folder(tmp_path)
    hash_switch_session(app, "rules")
    settled(onlooker_home, project_for(app), "rules")
    with Store(onlooker_home) as store:
        kept = {m.title: m.content for m in Memories(store).latest_of_session("rules", 10)}
    assert kept == {
        "`pytest tests/test_tokens.py -q`": "failed 1× (AssertionError: digest length 64 != 128), "
        "passes since",
        "Files changed": "tokens.py (edited), tests/test_tokens.py (edited).",
    }
    text = hook("SessionStart", app, "next", source="startup")["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "# [app] recent context" in text and "passes since" in text


def test_a_models_junk_is_dropped_and_counted(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_folder(tmp_path)
    with ScriptedEndpoint(reply=lambda body: JUNK) as served:
        monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", served.spec())
        hash_switch_session(app, "junk")
        settled(onlooker_home, project_for(app), "junk")
        assert len(served.requests) == 1
    with Store(onlooker_home) as store:
        assert Memories(store).latest_of_session("junk", 10) == []
        assert Memories(store).dropped() == 5
    start = hook("SessionStart", app, "after-junk", source="startup")
    assert "567" not in json.dumps(start)
    doctor = subprocess.run([ONLOOKER, "doctor"], capture_output=True, text=True, timeout=60)
    assert "5 extracted memories dropped by the quality gate" in doctor.stdout, doctor.stdout


def test_an_extraction_whose_model_cannot_be_built_shows_in_doctor(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_folder(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", "anthropic:claude-haiku-4-5")
    hash_switch_session(app, "no-key")
    settled_jobs = time.monotonic() + 60
    while time.monotonic() < settled_jobs:
        with Store(onlooker_home) as store:
            if store.jobs.counts().get("failed"):
                break
        time.sleep(0.1)
    done = subprocess.run(
        [ONLOOKER, "doctor", "--json"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and json.loads(done.stdout)["healthy"] is False
    failures = json.loads(done.stdout)["store"]["jobs"]["latest_failures"]
    assert failures and failures[0]["kind"] == "memory.extract", failures
    message = failures[0]["error"]
    assert "cannot use its model anthropic:claude-haiku-4-5" in message
    assert "ANTHROPIC_API_KEY" in message
