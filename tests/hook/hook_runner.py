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


def run_hook(payload: Any, *, raw: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `onlooker hook` with `payload` (JSON) or `raw` bytes on stdin."""
    data = raw if raw is not None else json.dumps(payload).encode()
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
