"""onlooker inside the real opencode: installed with `onlooker install opencode`, a loop of
failing bash calls shows the Stall assessment in the next tool result the model reads, and a
compaction through `opencode serve` carries onlooker's open observations."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from opencode import MODEL, Opencode, tool_messages

from onlooker.testing import FunctionCall, ScriptedEndpoint

pytestmark = pytest.mark.slow

FAILING = FunctionCall("bash", {"command": "cat tests/test_app.py", "description": "Show the test"})
STALL = "[Trajectory Assessment - Stall"


def failing_then_done(calls: int) -> Any:
    def reply(body: dict[str, Any]) -> Any:
        if not body.get("tools"):  # the title of the session, asked of the small model
            return "Fixing the tests"
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        return FAILING if done < calls else "I could not find the tests."

    return reply


def test_a_loop_of_failing_bash_calls_shows_the_stall_in_the_next_tool_result(
    opencode: Opencode,
) -> None:
    installed = opencode.onlooker("install", "opencode")
    assert ".opencode/plugins/onlooker.ts" in installed.stdout
    with ScriptedEndpoint(reply=failing_then_done(5)) as endpoint:
        opencode.prepare(endpoint)
        opencode.run("make the tests pass")
    agent_requests = [r for r in endpoint.requests if r.get("tools")]
    assert len(agent_requests) == 6
    results = [tool_messages(r) for r in agent_requests]
    assert [len(r) for r in results] == [0, 1, 2, 3, 4, 5]
    assert not any(STALL in text for text in results[3])  # three failures: no stall yet
    fourth = results[4][3]
    assert "No such file or directory" in fourth and STALL in fourth
    assert "bash `cat tests/test_app.py` failed with the same error 4 times" in fourth
    assert STALL in results[5][3] and results[5][4].count(STALL) == 0  # said once, kept


def test_a_compaction_carries_the_open_observations(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    port = _free_port()
    with ScriptedEndpoint(reply=failing_then_done(4)) as endpoint:
        opencode.prepare(endpoint)
        server = opencode.serve(port)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_for(base)
            session = _post(f"{base}/session", {})
            provider, model = MODEL.split("/")
            message = {"parts": [{"type": "text", "text": "make the tests pass"}],
                       "model": {"providerID": provider, "modelID": model}}  # fmt: skip
            _post(f"{base}/session/{session['id']}/message", message)
            before = len(endpoint.requests)
            _post(f"{base}/session/{session['id']}/summarize",
                  {"providerID": provider, "modelID": model})  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=30)
    compaction = json.dumps(endpoint.requests[before:])
    assert "Active Observations" in compaction and "Stall" in compaction


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/config", timeout=5) as answer:
                answer.read()
            return
        except OSError as error:
            if isinstance(error, urllib.error.HTTPError):
                error.close()  # an answer while opencode starts holds its socket open
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=240) as answer:
        text = answer.read()
    return json.loads(text) if text else None
