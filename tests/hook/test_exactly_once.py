"""An input without a tool_use_id (a prompt, a Stop) is recorded once when the service dies after
journaling it and before answering: whether the client sends it again at once (the connection
was reset) or gave up and spooled it, replayed by the next service. Through the installed command
(`python -I -S …/daemon/entry.py`), with a reviewer that keeps the service between the two."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hook_runner import make_project

import onlooker
from onlooker.daemon.client import with_input_id
from onlooker.daemon.hookd import running_pid
from onlooker.testing import ScriptedEndpoint

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
REVIEWER = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: {trigger}
      execution:
        mode: parallel
        timeout_per_observer: 60
        on_timeout: skip
      observers:
        - name: Slow Reviewer
          role: Logic review
          focus: Mistakes
          model: "{model}"
          watch:
            - type: conversation
"""


def hook(root: Path, session: str, event: str, **fields: Any) -> bytes:
    return json.dumps({"session_id": session, "transcript_path": "/t.jsonl", "cwd": str(root),
                       "hook_event_name": event, **fields}).encode()  # fmt: skip


def start_entry(payload: bytes, home: Path, timeout: float = 30) -> subprocess.Popen[bytes]:
    """The command `onlooker install` writes, run as Claude Code runs it."""
    env = {**os.environ, "ONLOOKER_HOME": str(home), "ONLOOKER_HOOK_TIMEOUT": str(timeout)}
    read, write = os.pipe()  # the whole input waits in the pipe, as Claude Code writes it
    os.write(write, payload)
    os.close(write)
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", str(ENTRY)], stdin=read, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
    finally:
        os.close(read)


def finished(entry: subprocess.Popen[bytes]) -> tuple[int, bytes]:
    """The hook's exit code and what it printed, once it exits."""
    out, _ = entry.communicate(timeout=30)
    return entry.returncode, out


def run_entry(payload: bytes, home: Path, timeout: float = 30) -> int:
    return finished(start_entry(payload, home, timeout))[0]


def wait_for(condition: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def journaled(home: Path, session: str, kind: str) -> list[dict[str, Any]]:
    paths = list(home.glob(f"journals/*/{session}.jsonl"))  # the project's key names the folder
    lines = paths[0].read_text().splitlines() if paths else []
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def kill_service(home: Path) -> None:
    pid = running_pid(home)
    assert pid and pid > 0
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: running_pid(home) != pid, "the killed service to let go of its lock")


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(latency=60) as slow:  # never answers while the test runs
        yield slow


@pytest.mark.parametrize(
    ("trigger", "event", "kind", "fields"),
    [
        ("message:received", "UserPromptSubmit", "user_prompt", {"prompt": "go on"}),
        ("response:complete", "Stop", "turn_ended", {"stop_hook_active": False}),
    ],
)
def test_an_input_sent_again_after_a_reset_is_recorded_once(
    tmp_path: Path,
    onlooker_home: Path,
    endpoint: ScriptedEndpoint,
    trigger: str,
    event: str,
    kind: str,
    fields: dict[str, Any],
) -> None:
    setup = REVIEWER.format(model=endpoint.spec(), trigger=trigger)
    root = make_project(tmp_path, {"onlooker.yaml": setup})
    if event == "Stop":  # a turn to review
        prompt = hook(root, "s1", "UserPromptSubmit", prompt="go on")
        assert run_entry(prompt, onlooker_home) == 0
    entry = start_entry(hook(root, "s1", event, **fields), onlooker_home)
    wait_for(lambda: endpoint.requests, "the reviewer to be asked (the input is journaled)")
    (first,) = journaled(onlooker_home, "s1", kind)
    assert len(first["input_id"]) == 24
    kill_service(onlooker_home)  # journaled, not answered: the client sees the connection end
    assert finished(entry) == (0, b"")
    assert journaled(onlooker_home, "s1", kind) == [first]  # the resend recorded nothing
    assert len(endpoint.requests) == 1  # and asked no reviewer again
    assert not list((onlooker_home / "spool").rglob("*.hook"))


def test_a_prompt_spooled_by_a_client_that_gave_up_is_recorded_once_when_replayed(
    tmp_path: Path, onlooker_home: Path, endpoint: ScriptedEndpoint
) -> None:
    setup = REVIEWER.format(model=endpoint.spec(), trigger="message:received")
    root = make_project(tmp_path, {"onlooker.yaml": setup})
    other = hook(tmp_path, "other", "PostToolUse", tool_name="Read", tool_use_id="t1",
                 tool_input={"file_path": "a.py"}, tool_response="x")  # fmt: skip
    assert run_entry(other, onlooker_home) == 0  # the service waits on reviewers 27 s
    prompt = hook(root, "s2", "UserPromptSubmit", prompt="fix it")
    assert run_entry(prompt, onlooker_home, timeout=1) == 0  # gave up after 1 s
    wait_for(lambda: endpoint.requests, "the reviewer to be asked")
    (first,) = journaled(onlooker_home, "s2", "user_prompt")
    (spooled,) = (onlooker_home / "spool").glob("*.hook")
    assert first["input_id"].encode() in spooled.read_bytes()
    kill_service(onlooker_home)
    assert run_entry(other, onlooker_home) == 0  # a new service, which replays
    wait_for(lambda: not spooled.exists(), "the spool to drain")
    assert journaled(onlooker_home, "s2", "user_prompt") == [first]
    assert not list((onlooker_home / "spool").rglob("*.hook"))


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b'{"a": 1}', {"onlooker_input_id": "ab12", "a": 1}),
        (b"  {  }\n", {"onlooker_input_id": "ab12"}),
        (b'\n{\n"a": {"b": []}}', {"onlooker_input_id": "ab12", "a": {"b": []}}),
    ],
)
def test_the_client_writes_the_id_first_in_any_json_object(
    payload: bytes, expected: dict[str, Any]
) -> None:
    assert json.loads(with_input_id(payload, "ab12")) == expected


@pytest.mark.parametrize("payload", [b"", b"[1]", b"not json", b"\xff{"])
def test_input_that_is_no_object_goes_as_it_came(payload: bytes) -> None:
    assert with_input_id(payload, "ab12") == payload
