"""Observers with time limits off the main thread, where SIGALRM cannot interrupt them.

A calling thread hands a dispatch's due observers to its helper thread all at once and waits: two
thread hand-offs per dispatch, whatever the number of observers (a thread per call cost a thread
start and two hand-offs per call, and under a busy GIL each hand-off waits its turn). When one
runs past its time limit, the caller stops waiting, counts it timed out and hands the rest to a
fresh helper; the stuck helper is left to finish on its own, and its late outcome is dropped.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence

Commit = Callable[[], bool]
"""Stores a job's outcome where the caller reads it; True stops the batch (a first match)."""
Job = Callable[[], Commit]
"""Runs one observer (in the helper) and returns how to commit its outcome."""

IDLE = 60.0
"""Seconds a helper waits for work before it ends (its calling thread may be gone)."""


class _Batch:
    def __init__(self, jobs: Sequence[Job], limits: Sequence[float | None]) -> None:
        self.jobs = jobs
        self.limits = limits
        self.lock = threading.Condition(threading.Lock())
        self.current = 0
        self.started = time.monotonic()
        self.finished = False
        self.abandoned = False
        self.parked = False
        """The caller waits with no deadline: tell it when a job with a time limit starts."""

    def run(self) -> None:
        for index, job in enumerate(self.jobs):
            commit = job()
            with self.lock:
                if self.abandoned:
                    return
                if commit() or index + 1 == len(self.jobs):
                    self.finished = True
                    self.lock.notify()
                    return
                self.current, self.started = index + 1, time.monotonic()
                if self.parked and self.limits[index + 1] is not None:
                    self.lock.notify()

    def wait(self) -> int | None:
        """Wait until every job ran (None), or the index of the one past its time limit."""
        with self.lock:
            while not self.finished:
                limit = self.limits[self.current]
                self.parked = limit is None
                if limit is None:
                    self.lock.wait()
                    continue
                left = self.started + limit - time.monotonic()
                if left <= 0:
                    self.abandoned = True
                    return self.current
                self.lock.wait(left)
            return None


class _Helper(threading.Thread):
    def __init__(self) -> None:
        super().__init__(name="onlooker-observer", daemon=True)
        self.inbox: queue.SimpleQueue[_Batch] = queue.SimpleQueue()
        self.gate = threading.Lock()
        self.closed = False

    def give(self, batch: _Batch) -> bool:
        """Queue `batch`; False when this helper has ended (idle) and takes no more."""
        with self.gate:
            if self.closed:
                return False
            self.inbox.put(batch)
            return True

    def run(self) -> None:
        while True:
            try:
                batch = self.inbox.get(timeout=IDLE)
            except queue.Empty:
                with self.gate:
                    if self.inbox.empty():
                        self.closed = True
                        return
                continue
            batch.run()
            if batch.abandoned:
                return  # its caller has a fresh helper by now


_helpers = threading.local()


def run_jobs(jobs: Sequence[Job], limits: Sequence[float | None]) -> int | None:
    """Run `jobs` in order on this thread's helper, each within its limit in seconds (None: no
    limit). None when all ran (or one stopped the batch); else the index of the job that ran past
    its limit: its outcome is never committed and the jobs after it did not run."""
    if not jobs:
        return None
    batch = _Batch(jobs, limits)
    helper: _Helper | None = getattr(_helpers, "helper", None)
    if helper is None or not helper.give(batch):
        helper = _helpers.helper = _Helper()
        helper.give(batch)
        helper.start()
    stuck = batch.wait()
    if stuck is not None:
        _helpers.helper = None
    return stuck
