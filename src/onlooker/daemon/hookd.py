"""The hook service: one per data home, started on demand by a hook, gone when idle.

It listens on `<home>/run/hookd.sock`, answers each hook in turn with a warm HookHandler, holds an
exclusive lock so it never runs twice for one data home, and exits after `ONLOOKER_HOOKD_IDLE`
seconds without a hook (default 900).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from ..store import Store
from ..store.home import data_home
from .client import RUN_DIR, SOCKET_NAME, frame, read_frame
from ..hosts.claude_code.hook import HookHandler

log = logging.getLogger("onlooker.hook")

IDLE_SECONDS = 900.0
#: Seconds the service waits for one hook to send its input.
READ_TIMEOUT = 5.0
LOCK_NAME = "hookd.lock"
PID_NAME = "hookd.pid"


class AlreadyRunning(Exception):
    """Another service holds this data home's lock."""


@contextlib.contextmanager
def service_lock(run_dir: Path) -> Iterator[int]:
    """Hold the data home's service lock, or raise AlreadyRunning."""
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(run_dir / LOCK_NAME, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(str(run_dir)) from None
        yield fd
    finally:
        os.close(fd)


def running_pid(home: Path) -> int | None:
    """The pid of the service running for `home`, if one is."""
    run_dir = home / RUN_DIR
    try:
        pid = int((run_dir / PID_NAME).read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        with service_lock(run_dir):
            return None  # nobody holds the lock: the pid file is stale
    except AlreadyRunning:
        return pid


def serve(home: Path, *, idle_seconds: float = IDLE_SECONDS) -> int:
    """Answer hooks until idle for `idle_seconds` or SIGTERM; 0 also if one already runs."""
    run_dir = home / RUN_DIR
    try:
        with service_lock(run_dir):
            return _serve_locked(home, run_dir, idle_seconds)
    except AlreadyRunning:
        log.info("a hook service already runs for %s", home)
        return 0


def _serve_locked(home: Path, run_dir: Path, idle_seconds: float) -> int:
    os.chdir(run_dir)  # bind a relative address: long data-home paths stay within AF_UNIX limits
    with contextlib.suppress(FileNotFoundError):
        os.unlink(SOCKET_NAME)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(SOCKET_NAME)
    os.chmod(SOCKET_NAME, 0o600)
    listener.listen(128)
    listener.settimeout(idle_seconds)
    (run_dir / PID_NAME).write_text(str(os.getpid()))
    stopping: list[int] = []

    def stop(signum: int, frame_: FrameType | None) -> None:
        stopping.append(signum)
        listener.close()

    signal.signal(signal.SIGTERM, stop)
    log.info("hook service %d listening for %s", os.getpid(), home)
    store = Store(home)
    from ..reviewers.handoff import configured_reviewers, parallel_budget

    handler = HookHandler(store, reviewers=configured_reviewers(), review_budget=parallel_budget())
    try:
        while not stopping:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                log.info("idle for %ss: stopping", idle_seconds)
                break
            except OSError:
                break  # closed by SIGTERM
            with conn:
                _answer_one(conn, handler)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(SOCKET_NAME)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(PID_NAME)
        listener.close()
        handler.close()
        store.close()
    return 0


def _answer_one(conn: socket.socket, handler: HookHandler) -> None:
    try:
        conn.settimeout(READ_TIMEOUT)
        payload = read_frame(conn)
    except (OSError, ConnectionError) as exc:
        log.warning("dropped a hook connection: %s", exc)
        return
    reply = handler.handle(payload)
    with contextlib.suppress(OSError):
        conn.sendall(frame(reply))


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(process)d %(levelname)s %(message)s"
    )
    idle = float(os.environ.get("ONLOOKER_HOOKD_IDLE", IDLE_SECONDS))
    return serve(data_home(), idle_seconds=idle)


if __name__ == "__main__":
    sys.exit(main())
