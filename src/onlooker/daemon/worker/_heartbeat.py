"""The worker's heartbeat: renew the leases of the jobs its handlers are running.

Without it a handler that outlives its lease sees its job claimed again, and run twice at once.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from ...store._jobs import Job, JobQueue

log = logging.getLogger("onlooker.daemon.worker")

RENEWALS_PER_LEASE = 3
"""Renewals within one lease, so one slow or missed renewal does not let the lease run out."""


class Heartbeat:
    """The claims this worker holds; while entered, a thread renews their leases."""

    def __init__(self, jobs: JobQueue, lease: float) -> None:
        self.jobs = jobs
        self.lease = lease
        self._held: dict[int, Job] = {}
        self._lost: set[int] = set()
        """Held jobs another claim took over: their handlers still run, but not under our lease."""
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="onlooker-lease", daemon=True)

    def hold(self, job: Job) -> None:
        """Keep renewing this claim until `release`."""
        with self._guard:
            self._held[job.id] = job

    def release(self, job: Job) -> None:
        with self._guard:
            self._held.pop(job.id, None)
            self._lost.discard(job.id)

    def __len__(self) -> int:
        with self._guard:
            return len(self._held)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.lease / RENEWALS_PER_LEASE):
            with self._guard:
                held = [job for job in self._held.values() if job.id not in self._lost]
            for job in held:
                try:
                    renewed = self.jobs.renew(job, lease=self.lease)
                except Exception:  # a busy index: the next beat tries again
                    log.exception("renewing the lease of job %d failed", job.id)
                    continue
                if not renewed:
                    log.warning("job %d (%s) was claimed by another worker", job.id, job.kind)
                    with self._guard:
                        self._lost.add(job.id)
