"""One instance per data home: an exclusive lock on `run/<name>.lock`, the holder's pid beside it
in `run/<name>.pid`. The hook service and the worker both run under one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import AlreadyRunning

RUN_DIR = "run"


@contextlib.contextmanager
def single_instance(home: Path, name: str) -> Iterator[None]:
    """Hold `home`'s lock `name` with this process's pid written beside it, or raise
    AlreadyRunning. The pid file goes when the lock is let go."""
    run_dir = home / RUN_DIR
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(run_dir / f"{name}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(f"a {name} already runs for {home}") from None
        pid_file = run_dir / f"{name}.pid"
        pid_file.write_text(str(os.getpid()))
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                pid_file.unlink()
    finally:
        os.close(fd)


def holder(home: Path, name: str) -> int | None:
    """The pid holding `home`'s lock `name`: None when nobody holds it, -1 when it is held but
    the holder has not written its pid yet."""
    run_dir = home / RUN_DIR
    try:
        fd = os.open(run_dir / f"{name}.lock", os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            return int((run_dir / f"{name}.pid").read_text().strip())
        except (OSError, ValueError):
            return -1
    finally:
        os.close(fd)
    return None
