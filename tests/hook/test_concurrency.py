"""The hook service answers sessions at once: a session waiting on a slow reviewer holds up no
other session, while its own later hooks wait their turn. Through the real `onlooker hook`."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from hook_runner import answer, make_project

from onlooker.testing import ScriptedEndpoint

SLOW_REVIEWER = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: message:received
      execution:
        mode: parallel
        timeout_per_observer: 15
        on_timeout: skip
      observers:
        - name: Slow Reviewer
          role: Logic review
          focus: Mistakes
          model: "{model}"
          watch:
            - type: conversation
"""
LATENCY = 6.0


def prompt(session: str, root: Path) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "/t.jsonl", "cwd": str(root),
            "hook_event_name": "UserPromptSubmit", "prompt": "fix the bug"}  # fmt: skip


def tool_call(session: str, root: Path, n: int) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "/t.jsonl", "cwd": str(root),
            "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": f"t{n}",
            "tool_input": {"file_path": f"{root}/m{n}.py"}, "tool_response": f"x = {n}"}  # fmt: skip


def in_thread(payload: dict[str, Any], done: dict[str, float]) -> threading.Thread:
    def run() -> None:
        answer(payload)
        done[payload["hook_event_name"]] = time.monotonic()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_slow_session_holds_up_no_other_and_its_own_hooks_keep_their_order(
    tmp_path: Path,
) -> None:
    answer(tool_call("warm-up", tmp_path, 0))  # the service runs before the clock starts
    with ScriptedEndpoint(latency=LATENCY) as endpoint:
        slow_root = make_project(tmp_path / "a", {"onlooker.yaml": SLOW_REVIEWER.format(
            model=endpoint.spec())})  # fmt: skip
        fast_root = make_project(tmp_path / "b", {})
        done: dict[str, float] = {}
        slow = in_thread(prompt("slow", slow_root), done)
        deadline = time.monotonic() + LATENCY
        while not endpoint.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert endpoint.requests, "the reviewer was never asked"
        asked = time.monotonic()
        behind = in_thread(tool_call("slow", slow_root, 1), done)  # same session: waits
        for n in range(1, 6):  # another project's session is answered meanwhile
            assert answer(tool_call("fast", fast_root, n)) == {}
        assert slow.is_alive() and behind.is_alive()
        slow.join(30)
        behind.join(30)
    assert done["PostToolUse"] - asked >= LATENCY - 1  # it waited for the reviewer's answer
