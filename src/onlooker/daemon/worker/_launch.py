"""Start the worker for a data home on demand: detached, in its own session, logging to a file.

It survives the process that started it (a hook, the hook service). A second start while one runs
is cheap: the lock file says so, and a worker started in a race exits at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .._lock import holder
from ._process import LOCK

LOG_DIR = "logs"
LOG_NAME = "worker.log"

_started: list[subprocess.Popen[bytes]] = []


def ensure_worker(home: Path) -> None:
    """Start `python -m onlooker.daemon.worker` for `home` unless one already runs."""
    _reap()
    if worker_pid(home) is not None:
        return
    logs = home / LOG_DIR
    logs.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {**os.environ, "ONLOOKER_HOME": str(home)}
    with open(logs / LOG_NAME, "ab") as log:
        _started.append(
            subprocess.Popen(
                [sys.executable, "-m", "onlooker.daemon.worker", "--home", str(home)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=home,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        )


def worker_pid(home: Path) -> int | None:
    """The pid of the worker running for `home` (-1: starting, pid not written yet), or None."""
    return holder(home, LOCK)


def _reap() -> None:
    """Collect workers this process started that have exited (no zombies in a long-lived host)."""
    _started[:] = [child for child in _started if child.poll() is None]
