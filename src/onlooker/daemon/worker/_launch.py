"""Start the worker for a data home on demand: detached, in its own session, logging to a file.

It survives the process that started it (a hook, the hook service). A second start while one runs
is cheap: the lock file says so, and a worker started in a race exits at once.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from ._process import LOCK_NAME, PID_NAME, RUN_DIR

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
    """The pid of the worker running for `home`, or None when none holds the lock."""
    run_dir = home / RUN_DIR
    try:
        fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            return int((run_dir / PID_NAME).read_text().strip())
        except (OSError, ValueError):
            return -1  # held, pid not written yet
    finally:
        os.close(fd)
    return None


def _reap() -> None:
    """Collect workers this process started that have exited (no zombies in a long-lived host)."""
    _started[:] = [child for child in _started if child.poll() is None]
