"""Work for many sessions at once, each session's work in order: one lane per key over a shared
pool of threads, so a slow hook of one session never holds up another's.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger("onlooker.hook")

Work = Callable[[], None]


class Lanes:
    """Runs submitted work at once unless work of the same key is running; that waits its turn."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="onlooker-hook")
        self._lock = threading.Lock()
        self._waiting: dict[str, deque[Work]] = {}
        """Keys with work running -> their work waiting, in arrival order."""
        self._pending = 0
        self._idle = threading.Condition(self._lock)

    def submit(self, key: str, work: Work, *, here: bool = False) -> None:
        """Run `work` after the work already submitted for `key`. With `here` (called from one of
        the pool's threads), work whose lane is free runs in this thread: no hand-off."""
        with self._lock:
            self._pending += 1
            queue = self._waiting.get(key)
            if queue is not None:
                queue.append(work)
                return
            self._waiting[key] = deque()
        if here:
            self._drain(key, work)
        else:
            self._pool.submit(self._drain, key, work)

    def run(self, work: Work) -> None:
        """Run `work` on the pool, in no lane (reading a connection before its key is known)."""
        with self._lock:
            self._pending += 1
        self._pool.submit(self._one, work)

    @property
    def pending(self) -> int:
        """Work submitted and not yet finished."""
        with self._lock:
            return self._pending

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no work is pending; False when `timeout` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)

    def _drain(self, key: str, work: Work) -> None:
        while True:
            self._one(work)
            with self._lock:
                queue = self._waiting[key]
                if not queue:
                    del self._waiting[key]
                    return
                work = queue.popleft()

    def _one(self, work: Work) -> None:
        try:
            work()
        except Exception:
            log.error("hook work failed: %s", traceback.format_exc())
        finally:
            with self._lock:
                self._pending -= 1
                if not self._pending:
                    self._idle.notify_all()
