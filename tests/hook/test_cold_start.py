"""A session's start does not wait for a hook service to start (specs/hook-service.md, "A cold
start"): the SessionStart hook sends its input to the starting service and returns at once; what
the service has to say about it (the memory digest) comes with the session's next hook, the
prompt; the start is recorded once, before the prompt, even when that service dies before
answering. Through the installed command (`python -I -S …/daemon/entry.py`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import onlooker
from onlooker.daemon.client import UNANSWERED, unanswered
from onlooker.daemon.hookd import running_pid
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
DIGEST = "# [shop] recent context (conversation-memory)\n\n- Login needs a fresh token: Refresh."


def hook(root: Path, session: str, event: str, **fields: Any) -> bytes:
    return json.dumps({"session_id": session, "transcript_path": "/t.jsonl", "cwd": str(root),
                       "hook_event_name": event, **fields}).encode()  # fmt: skip


def run_entry(payload: bytes, home: Path) -> tuple[int, bytes]:
    """The command `onlooker install` writes, run as Claude Code runs it: exit code, output."""
    env = {**os.environ, "ONLOOKER_HOME": str(home)}
    done = subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=payload,
                          capture_output=True, env=env, timeout=60)  # fmt: skip
    return done.returncode, done.stdout


def context(output: bytes) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"]) if output else ""


def journaled(home: Path, session: str) -> list[str]:
    """The kinds of the events recorded for `session`, in order."""
    paths = list(home.glob(f"journals/*/{session}.jsonl"))
    lines = paths[0].read_text().splitlines() if paths else []
    return [r["kind"] for r in map(json.loads, lines) if r["kind"] in ("session_started",
                                                                      "user_prompt")]  # fmt: skip


def wait_for(condition: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def shop_with_a_memory(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    with Store(home) as store:
        memory = Extracted("Login needs a fresh token", "Refresh.", store.clock.now())
        Memories(store).remember([memory], project=project_for(root), session_id="old")
    return root


def test_a_session_start_does_not_wait_for_the_service_and_its_context_comes_with_the_prompt(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = shop_with_a_memory(tmp_path, onlooker_home)
    started = hook(shop, "s1", "SessionStart", source="startup")
    assert run_entry(started, onlooker_home) == (0, b"")  # a service's answer would hold the digest
    code, output = run_entry(hook(shop, "s1", "UserPromptSubmit", prompt="go"), onlooker_home)
    assert code == 0 and context(output) == DIGEST
    assert journaled(onlooker_home, "s1") == ["session_started", "user_prompt"]
    # warm, a session's start is answered as it always was: the digest at once
    code, output = run_entry(hook(shop, "s2", "SessionStart", source="startup"), onlooker_home)
    assert code == 0 and context(output) == DIGEST
    assert not list((onlooker_home / "spool").rglob("*.hook"))


def test_a_handed_over_start_is_recorded_once_when_the_service_dies_before_answering(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = shop_with_a_memory(tmp_path, onlooker_home)
    assert run_entry(hook(shop, "s1", "SessionStart", source="startup"), onlooker_home) == (0, b"")
    wait_for(lambda: (running_pid(onlooker_home) or 0) > 0, "the starting service's pid")
    pid = running_pid(onlooker_home)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # while it imports: the start it was sent is not answered
    wait_for(lambda: running_pid(onlooker_home) != pid, "the killed service to let go")
    code, _ = run_entry(hook(shop, "s1", "UserPromptSubmit", prompt="go"), onlooker_home)
    assert code == 0
    wait_for(lambda: "session_started" in journaled(onlooker_home, "s1"), "the start, sent again")
    assert sorted(journaled(onlooker_home, "s1")) == ["session_started", "user_prompt"]
    assert not list((onlooker_home / "spool").rglob("*.hook"))


def test_the_next_hook_waits_for_a_start_that_a_dying_service_took(
    tmp_path: Path, onlooker_home: Path
) -> None:
    """The process left waiting for the start's answer is held (SIGSTOP) while the service dies
    and the prompt's hook starts another: the prompt waits for that process to send the start
    again, so the session starts once, before its prompt."""
    import threading

    from onlooker.daemon.client import RUN_DIR, WAITING

    shop = shop_with_a_memory(tmp_path, onlooker_home)
    assert run_entry(hook(shop, "s1", "SessionStart", source="startup"), onlooker_home) == (0, b"")
    run = onlooker_home / RUN_DIR
    (mark,) = run.glob(f"{WAITING}*")
    waiter = int(mark.name.removeprefix(WAITING))
    os.kill(waiter, signal.SIGSTOP)
    try:
        wait_for(lambda: (running_pid(onlooker_home) or 0) > 0, "the starting service's pid")
        pid = running_pid(onlooker_home)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: running_pid(onlooker_home) != pid, "the killed service to let go")
        prompt = threading.Thread(
            target=run_entry,
            args=(hook(shop, "s1", "UserPromptSubmit", prompt="go"), onlooker_home),
        )
        prompt.start()
        time.sleep(1.0)
        assert journaled(onlooker_home, "s1") == []  # the prompt waits for the start
    finally:
        os.kill(waiter, signal.SIGCONT)
    prompt.join(timeout=60)
    wait_for(lambda: "user_prompt" in journaled(onlooker_home, "s1"), "the prompt")
    assert journaled(onlooker_home, "s1") == ["session_started", "user_prompt"]
    assert not list(run.glob(f"{WAITING}*"))


@pytest.mark.parametrize(
    "payload",
    [
        b'{"hook_event_name": "UserPromptSubmit", "prompt": "SessionStart"}',
        b'{"hook_event_name": "Stop"}',
        b"SessionStart",
        b'["SessionStart"]',
        b'{"hook_event_name": "SessionStart", "pad": "' + b"x" * 40_000 + b'"}',
    ],
)
def test_only_a_session_start_is_handed_over(payload: bytes) -> None:
    assert unanswered(payload) is None


def test_a_handed_over_start_is_marked_unanswered() -> None:
    marked = unanswered(b' {"onlooker_input_id": "ab12", "hook_event_name": "SessionStart"}')
    assert marked is not None
    assert json.loads(marked) == {
        UNANSWERED: True,
        "onlooker_input_id": "ab12",
        "hook_event_name": "SessionStart",
    }
