"""The hook service: one per data home, started on demand by a hook, gone when idle.

It listens on `<home>/run/hookd.sock` and answers hooks with a warm HookHandler: sessions at once,
each session's hooks in order (daemon/_lanes.py), each hook on the thread that accepted it. It
holds an exclusive lock so it never runs twice for one data home, and exits after
`ONLOOKER_HOOKD_IDLE` seconds (900) with no hook and no work.

It takes its lock and listens before it imports what answers hooks (about a second): hooks that
come meanwhile connect at once and wait in the listen queue, and are taken in the order they came
before its threads start, so a session's start handed over unanswered (daemon/client.py) comes
before the session's next hook (specs/hook-service.md, "A cold start").
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from ..errors import AlreadyRunning
from ._lanes import Lanes
from ._lock import holder, single_instance
from .client import ANSWER_TIMEOUT, HOME_VARIABLE, RUN_DIR, SOCKET_NAME, frame, read_frame
from .hook_times import HookTimes

if TYPE_CHECKING:  # imported once the service listens (_serve_locked): they take about a second
    from ..hosts.claude_code.hook import HookHandler, HostAnswer

log = logging.getLogger("onlooker.hook")

IDLE_SECONDS = 900.0
#: Seconds the service waits for one hook to send its input.
READ_TIMEOUT = 5.0
THREADS = 32
"""Hooks answered at once ($ONLOOKER_HOOKD_THREADS); a session's own hooks wait their turn."""
LOCK = "hookd"
"""The service's single-instance lock (`run/hookd.lock`, its pid in `run/hookd.pid`)."""
SPOOL_EVERY = 30.0
"""Seconds between replays of the spool while the service is idle (the first comes at once)."""
HOOK_MARGIN = 3.0
"""Seconds of a hook's wait kept for the rest of its work (storing, answering) after reviewers."""


def other_hosts() -> dict[str, HostAnswer]:
    """Plugins of other hosts that forward their hooks here (`{"host": ...}` inputs)."""
    from ..hosts.opencode.hook_input import HOST as OPENCODE
    from ..hosts.opencode.hook_input import answer as opencode_answer

    return {OPENCODE: opencode_answer}


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
    stopping: list[int] = []

    def stop(signum: int, frame_: FrameType | None) -> None:
        stopping.append(signum)
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the threads waiting in accept

    signal.signal(signal.SIGTERM, stop)
    log.info("hook service %d listening for %s", os.getpid(), home)
    from ..hosts.claude_code.hook import HookHandler
    from ..reviewers.handoff import configured_reviewers
    from ..store import Store

    store = Store(home)
    handler = HookHandler(
        store, reviewers=configured_reviewers(), review_budget=parallel_budget(),
        hosts=other_hosts(),
    )  # fmt: skip
    threads = int(os.environ.get("ONLOOKER_HOOKD_THREADS", THREADS))
    lanes = Lanes(threads)
    log.info("hook service %d ready", os.getpid())
    last = [time.monotonic()]
    times = HookTimes(home)
    _take_waiting(listener, handler, lanes, times)
    for n in range(threads):
        threading.Thread(
            target=_accept, args=(listener, handler, lanes, last, times), name=f"onlooker-hook-{n}",
            daemon=True,
        ).start()  # fmt: skip
    drained = 0.0
    warmed = False
    try:
        while not stopping:
            time.sleep(min(idle_seconds, 1.0))
            now = time.monotonic()
            if lanes.pending:
                last[0] = now
            elif now - last[0] >= idle_seconds:
                log.info("idle for %ss: stopping", idle_seconds)
                break
            elif now - last[0] >= 1.0 and not warmed:
                warmed = True  # idle for a second: what redaction compiles on first use, now
                lanes.run(_warm_redaction)
            elif now - last[0] >= 1.0 and now - drained >= SPOOL_EVERY:
                drained = now  # healthy and idle for a second: replay what was spooled
                lanes.run(functools.partial(_drain_spool, handler, home, lanes))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(SOCKET_NAME)
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        lanes.wait_idle(READ_TIMEOUT + parallel_budget() + HOOK_MARGIN)
        lanes.shutdown()
        handler.close()
        store.close()
        times.close()
    return 0


def _accept(
    listener: socket.socket, handler: HookHandler, lanes: Lanes, last: list[float], times: HookTimes
) -> None:
    """One of the service's threads: take a connection, answer it here when its session's lane
    is free (no hand-off to another thread), and wait for the next. Each waits in a blocking
    accept, so the kernel wakes one thread per connection."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return  # the listener was shut down: the service is stopping
        last[0] = time.monotonic()
        try:
            _take(conn, handler, lanes, times)
        except Exception:
            log.error("a hook connection failed: %s", traceback.format_exc())


def _take(conn: socket.socket, handler: HookHandler, lanes: Lanes, times: HookTimes) -> None:
    """Read one hook's input, then answer it in its session's lane."""
    try:
        conn.settimeout(READ_TIMEOUT)
        payload = read_frame(conn)
    except (OSError, ConnectionError) as exc:
        log.warning("dropped a hook connection: %s", exc)
        conn.close()
        return
    began = time.perf_counter()
    lanes.submit(session_of(payload), lambda: _answer(conn, handler, payload, times, began),
                 here=True)  # fmt: skip


def _answer(
    conn: socket.socket, handler: HookHandler, payload: bytes, times: HookTimes, began: float
) -> None:
    answered = False
    try:
        with conn:
            reply = handler.handle(payload)
            with contextlib.suppress(OSError):
                conn.sendall(frame(reply))
                answered = True
    finally:
        times.record(time.perf_counter() - began, answered)


def _take_waiting(
    listener: socket.socket, handler: HookHandler, lanes: Lanes, times: HookTimes
) -> None:
    """Take the hooks that connected while the service started, one by one in the order they
    came, each answered here or queued in its session's lane: so a session's start comes before
    its prompt however the threads are scheduled after."""
    listener.setblocking(False)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # none waiting (or the service is stopping)
                return
            conn.setblocking(True)
            _take(conn, handler, lanes, times)
    finally:
        listener.setblocking(True)


def _warm_redaction() -> None:
    from ..text.redact import warm

    warm()
    log.info("redaction warmed")


def _drain_spool(handler: HookHandler, home: Path, lanes: Lanes) -> None:
    """Replay the spooled inputs, each in its session's lane (so in order with live hooks)."""
    from .spool import replay, spool_entries

    waiting = len(spool_entries(home))
    if waiting:
        log.info("replaying the spool: %d input(s)", waiting)
        replay(handler, home, lambda payload, work: lanes.submit(session_of(payload), work))


def session_of(payload: bytes) -> str:
    """The session a hook input belongs to ('' when it cannot be told: the handler refuses it)."""
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return ""
    value = data.get("session_id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(process)d %(levelname)s %(message)s"
    )
    idle = float(os.environ.get("ONLOOKER_HOOKD_IDLE", IDLE_SECONDS))
    chosen = os.environ.get(HOME_VARIABLE, "")  # what a hook that starts the service sets
    if chosen.startswith("/"):
        home = Path(chosen)
    else:
        from ..store.home import data_home

        home = data_home()
    return serve(home, idle_seconds=idle)


if __name__ == "__main__":
    sys.exit(main())
