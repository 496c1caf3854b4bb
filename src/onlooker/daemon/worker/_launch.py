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
NICE = 10
"""How much lower than its starter the worker runs ($ONLOOKER_WORKER_NICE; 0 keeps its starter's
priority): its jobs (memory extraction, background reviewers, scores) yield the CPU to the agent
and to the hook service, which answer the agent. A worker started as one session ends starts up
(its imports, about half a second of CPU) while the next session may start: niced from its first
instruction, it takes only what they leave (specs/hook-service.md)."""
BOOT = (
    "import os, sys; nice = int(sys.argv.pop(1)); nice and hasattr(os, 'nice') and os.nice(nice); "
    "import runpy; runpy.run_module('onlooker.daemon.worker', run_name='__main__', alter_sys=True)"
)
"""`python -m onlooker.daemon.worker`, niced before anything is imported."""

_started: list[subprocess.Popen[bytes]] = []


def ensure_worker(home: Path) -> None:
    """Start `python -m onlooker.daemon.worker` for `home`, niced (NICE), unless one already
    runs."""
    _reap()
    if worker_pid(home) is not None:
        return
    logs = home / LOG_DIR
    logs.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {**os.environ, "ONLOOKER_HOME": str(home)}
    with open(logs / LOG_NAME, "ab") as log:
        _started.append(
            subprocess.Popen(
                [sys.executable, "-c", BOOT, str(_nice()), "--home", str(home)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=home,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        )


def _nice() -> int:
    try:
        return max(0, int(os.environ.get("ONLOOKER_WORKER_NICE", NICE)))
    except ValueError:
        return NICE


def worker_pid(home: Path) -> int | None:
    """The pid of the worker running for `home` (-1: starting, pid not written yet), or None."""
    return holder(home, LOCK)


def _reap() -> None:
    """Collect workers this process started that have exited (no zombies in a long-lived host)."""
    _started[:] = [child for child in _started if child.poll() is None]
