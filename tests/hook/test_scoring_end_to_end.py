"""Session scoring end to end: the installed hook command (`python -I -S …/entry.py`) records a
session; Stop queues one debounced score job, the session's end makes it due, the detached worker
asks the judge (a real OpenAI-compatible endpoint on localhost, scripted) and the score lands in the
store, where `onlooker observer status --json` shows it and the next prompt's hook tells the user.
"""

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
from hook_runner import ONLOOKER

from onlooker.daemon.worker import worker_pid
from onlooker.scoring import Scores
from onlooker.store import Store, project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

NAMES = ("instruction_following", "completeness", "proactiveness", "code_quality", "communication")
CARD = {"overall_score": 0.35, "categories": dict.fromkeys(NAMES, 0.35),
        "strengths": ["clear summary"], "weaknesses": ["runs no tests after editing"]}  # fmt: skip


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(reply=CARD) as served:
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
        yield served
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


def installed_command(project: Path) -> str:
    subprocess.run([ONLOOKER, "install", "claude-code", "--project", str(project)], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    [command] = {h["command"] for g in local["hooks"]["Stop"] for h in g["hooks"]}
    launcher = Path(command.split()[0])  # the data home's launcher runs the stdlib client by path
    assert command.endswith(" hook || true") and " -I -S " in launcher.read_text()
    return str(command)


def hook(command: str, project: Path, event: str, session: str, **fields: Any) -> dict[str, Any]:
    payload = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
               "cwd": str(project), "hook_event_name": event, **fields}  # fmt: skip
    done = subprocess.run(command, shell=True, input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def scored(home: Path, project: str, timeout: float = 60) -> list[Any]:
    deadline = time.monotonic() + timeout
    while True:
        with Store(home) as store:
            found = Scores(store).all(project)
        if found:
            return found
        if time.monotonic() > deadline:
            log = home / "logs" / "worker.log"
            raise AssertionError(
                f"no score; worker log: {log.read_text() if log.exists() else '-'}"
            )
        time.sleep(0.1)


def test_stop_queues_a_debounced_score_the_worker_judges_and_status_shows(
    tmp_path: Path, onlooker_home: Path, endpoint: ScriptedEndpoint
) -> None:
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    (project / ".onlooker").mkdir()
    (project / ".onlooker" / "config.yaml").write_text(f"scoring:\n  model: {endpoint.spec()}\n")
    (project / "AGENTS.md").write_text("# Rules\nRun the tests after every edit.\n")
    command = installed_command(project)
    hook(command, project, "SessionStart", "e1", source="startup")
    hook(command, project, "UserPromptSubmit", "e1", prompt="Add a unit test for parse()")
    hook(command, project, "PostToolUse", "e1", tool_name="Edit", tool_use_id="toolu_1",
         tool_input={"file_path": f"{project}/test_parse.py", "old_string": "", "new_string": "x"},
         tool_response={"filePath": f"{project}/test_parse.py"})  # fmt: skip
    hook(command, project, "Stop", "e1", stop_hook_active=False, last_assistant_message="Added.")
    hook(command, project, "UserPromptSubmit", "e1", prompt="And a docstring")
    hook(command, project, "Stop", "e1", stop_hook_active=False, last_assistant_message="Done.")
    with Store(onlooker_home) as store:
        assert store.jobs.counts() == {"queued": 1}  # two turns, one waiting job
        assert not store.jobs.has_ready()  # debounced: due 30 s after the first Stop
    assert endpoint.requests == []
    hook(command, project, "SessionEnd", "e1", reason="prompt_input_exit")

    [score] = scored(onlooker_home, project_for(project))
    assert (score.session_id, score.score, score.agent_name) == ("e1", 0.35, "main")
    [request] = endpoint.requests
    sent = json.dumps(request, ensure_ascii=False)
    assert "Add a unit test for parse()" in sent and "Run the tests after every edit." in sent
    assert "test_parse.py" in sent

    status = subprocess.run([ONLOOKER, "observer", "status", "--json"], cwd=project,
                            capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    data = json.loads(status.stdout)
    assert data["aggregate"]["total_sessions"] == 1 and data["aggregate"]["avg_score"] == 0.35
    assert data["recent"][0]["title"] == "Add a unit test for parse()"
    notice = hook(command, project, "UserPromptSubmit", "e2", prompt="next")
    assert "⚠ low adherence score 35%" in notice["systemMessage"]
