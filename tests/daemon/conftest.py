"""Worker tests run real processes: the `onlooker hook` command, its service, detached workers.
Every process a test started is stopped when it ends."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker.daemon.worker import worker_pid

sys.path.insert(0, str(Path(__file__).parents[1] / "hook"))
from hook_runner import stop_service


@pytest.fixture(autouse=True)
def processes(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "30")
    monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    monkeypatch.setenv("ONLOOKER_REVIEW_SETUP", "review_setup:setup")
    yield
    stop_service(onlooker_home)
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)
