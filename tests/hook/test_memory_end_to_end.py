"""Memory end to end: real hook processes queue tool events, Stop and SessionEnd queue extraction,
the detached worker asks the model (a real OpenAI-compatible endpoint on localhost, scripted) and
stores memories, and the next session starts with them.

Slow (about 20 s on 2 cores) because everything is real: 30 hook processes, the hook service and
the worker started on demand, HTTP model calls."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hook_runner import answer

from onlooker.daemon.worker import worker_pid
from onlooker.memory._memories import Memories
from onlooker.store import Store, project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint


def extracted(body: dict[str, Any]) -> dict[str, Any]:
    """One memory per batch, naming how many events the batch had."""
    events = body["messages"][-1]["content"].split("Events:\n", 1)[1].splitlines()
    return {"memories": [{"title": f"Batch of {len(events)} edits",
                          "content": f"Last: {events[-1].split('. ', 1)[1]}"}]}  # fmt: skip


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(reply=extracted) as served:
        monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", served.spec())
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
        yield served
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


def hook(event: str, cwd: Path, session: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                   "cwd": str(cwd), "hook_event_name": event, **fields})  # fmt: skip


def settled(
    home: Path, session: str, memories: int, pending: int = 0, timeout: float = 60
) -> list[str]:
    """Titles of the session's memories once there are `memories` and `pending` events left."""
    deadline = time.monotonic() + timeout
    while True:
        with Store(home) as store:
            found = Memories(store)
            titles = [m.title for m in found.latest_of_session(session, 100)]
            if (
                len(titles) >= memories
                and len(found.pending(project_for(home.parent / "app"), session)) == pending
            ):
                return titles
        if time.monotonic() > deadline:
            log = home / "logs" / "worker.log"
            raise AssertionError(
                f"memories: {titles}; worker log: {log.read_text() if log.exists() else '-'}"
            )
        time.sleep(0.05)


def test_hooks_to_worker_to_memories_to_the_next_session(
    tmp_path: Path, onlooker_home: Path, endpoint: ScriptedEndpoint
) -> None:
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    hook("SessionStart", app, "e1", source="startup")
    for n in range(35):
        hook("PostToolUse", app, "e1", tool_name="Edit", tool_use_id=f"toolu_{n}",
             tool_input={"file_path": f"{app}/m{n}.py", "old_string": f"a{n}", "new_string": f"b{n}"},
             tool_response={"filePath": f"{app}/m{n}.py"})  # fmt: skip
    hook("PostToolUse", app, "e1", tool_name="TodoWrite", tool_input={"todos": []}, tool_use_id="t")
    assert hook("Stop", app, "e1", stop_hook_active=False, last_assistant_message="Done.") == {}
    assert settled(onlooker_home, "e1", 1, pending=15) == ["Batch of 20 edits"]  # 15 wait
    hook("SessionEnd", app, "e1", reason="prompt_input_exit")
    assert settled(onlooker_home, "e1", 2) == ["Batch of 20 edits", "Batch of 15 edits"]
    assert len(endpoint.requests) == 2
    sent = json.dumps(endpoint.requests[0], ensure_ascii=False)
    assert "Edited m19.py: a19 → b19" in sent and str(app) not in sent  # project-relative
    assert "Batch of 20 edits" in endpoint.requests[1]["messages"][-1]["content"]  # context
    start = hook("SessionStart", app, "e2", source="startup")
    text = start["hookSpecificOutput"]["additionalContext"]
    assert "# [app] recent context (conversation-memory)" in text
    assert "- Batch of 15 edits: Last: Edited m34.py: a34 → b34" in text
