"""The viewer's tests run the real `onlooker serve` and `onlooker hook` commands, and stop any hook
service a test started."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker.daemon.hookd import running_pid


@pytest.fixture(autouse=True)
def short_lived_service(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    """A hook service started by a test exits soon on its own, and is stopped when it ends."""
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "30")
    yield
    pid = running_pid(onlooker_home)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while running_pid(onlooker_home) is not None and time.monotonic() < deadline:
            time.sleep(0.02)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (a git root) for the agent's hooks."""
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    return root
