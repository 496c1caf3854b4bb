"""The hook service: one per data home, started on demand by a hook, gone when idle.

It listens on `<home>/run/hookd.sock`, answers each hook in turn with a warm HookHandler, holds an
exclusive lock so it never runs twice for one data home, and exits after `ONLOOKER_HOOKD_IDLE`
seconds without a hook (default 900).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from types import FrameType

from ..errors import AlreadyRunning
from ..hosts.claude_code.hook import HookHandler
from ..store import Store
from ..store.home import data_home
from ._lock import holder, single_instance
from .client import ANSWER_TIMEOUT, RUN_DIR, SOCKET_NAME, frame, read_frame

log = logging.getLogger("onlooker.hook")

IDLE_SECONDS = 900.0
#: Seconds the service waits for one hook to send its input.
READ_TIMEOUT = 5.0
LOCK = "hookd"
"""The service's single-instance lock (`run/hookd.lock`, its pid in `run/hookd.pid`)."""
HOOK_MARGIN = 3.0
"""Seconds of a hook's wait kept for the rest of its work (storing, answering) after reviewers."""


def parallel_budget() -> float:
    """Seconds parallel reviewers may take in one hook: the hook client's wait for an answer
    ($ONLOOKER_HOOK_TIMEOUT, 20 s) less HOOK_MARGIN. A reviewer still running then has timed out,
    so `on_timeout: fail` can still block before the client gives up."""
    return max(1.0, ANSWER_TIMEOUT - HOOK_MARGIN)


def running_pid(home: Path) -> int | None:
    """The pid of the service running for `home`, if one is (-1: starting, pid not written yet)."""
    return holder(home, LOCK)


def serve(home: Path, *, idle_seconds: float = IDLE_SECONDS) -> int:
    """Answer hooks until idle for `idle_seconds` or SIGTERM; 0 also if one already runs."""
    run_dir = home / RUN_DIR
    try:
        with single_instance(home, LOCK):
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
    stopping: list[int] = []

    def stop(signum: int, frame_: FrameType | None) -> None:
        stopping.append(signum)
        listener.close()

    signal.signal(signal.SIGTERM, stop)
    log.info("hook service %d listening for %s", os.getpid(), home)
    store = Store(home)
    from ..reviewers.handoff import configured_reviewers

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
