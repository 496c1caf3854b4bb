"""Helpers for hook tests: run the real `onlooker hook` command; stop the service it started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from onlooker.daemon.client import start_service
from onlooker.daemon.hookd import running_pid

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


def stop_service(home: Path) -> None:
    pid = running_pid(home)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while running_pid(home) is not None and time.monotonic() < deadline:
        time.sleep(0.02)


def warm_service(home: Path) -> None:
    """Start the hook service for `home` (if none runs) and wait until it answers hooks."""
    if running_pid(home) is None:
        start_service(str(home))
    log = home / "logs" / "hookd.log"
    deadline = time.monotonic() + 60
    while True:
        pid = running_pid(home)
        if pid and pid > 0 and log.exists() and f"hook service {pid} ready" in log.read_text():
            return
        assert time.monotonic() < deadline, "the hook service did not start"
        time.sleep(0.02)


def run_hook(payload: Any, *, raw: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `onlooker hook` with `payload` (JSON) or `raw` bytes on stdin. A SessionStart goes to
    a warm service, as when a session starts while the service runs: a cold start hands its
    input over and answers nothing, its context coming with the prompt (test_cold_start.py)."""
    data = raw if raw is not None else json.dumps(payload).encode()
    if isinstance(payload, dict) and payload.get("hook_event_name") == "SessionStart":
        warm_service(Path(os.environ["ONLOOKER_HOME"]))
    return subprocess.run([ONLOOKER, "hook"], input=data, capture_output=True, timeout=60)


def answer(payload: Any) -> dict[str, Any]:
    """The parsed stdout of a hook ({} when it printed nothing); asserts exit 0."""
    done = run_hook(payload)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def make_project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A project folder `app` (a git root) holding `files` (relative path -> text)."""
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
