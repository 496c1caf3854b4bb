"""The worker process: hold the data home's worker lock, claim jobs, run their handlers, exit idle.

Jobs run on a few threads at once, their leases renewed by a heartbeat while they run. A handler
that raises fails the attempt (retried later by the queue); a worker that dies leaves its leases to
expire, and the jobs are claimed again.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ...core.clock import Clock, SystemClock
from ...errors import AlreadyRunning, ProviderSetupError
from ...llm.model import Model
from ...reviewers._run import ModelCache
from ...store import Store
from ...store._jobs import LEASE, Job
from .._lock import single_instance
from ._handlers import HANDLERS, Handler, handler_for, known_kinds
from ._heartbeat import Heartbeat

log = logging.getLogger("onlooker.daemon.worker")

RUN_DIR = "run"
LOCK = "worker"
"""The worker's single-instance lock (`run/worker.lock`, its pid in `run/worker.pid`)."""
IDLE_SECONDS = 60.0
"""Seconds without a job after which the worker exits ($ONLOOKER_WORKER_IDLE)."""
POLL_SECONDS = 0.2
THREADS = 4
"""Jobs run at once ($ONLOOKER_WORKER_THREADS)."""


@dataclass
class WorkerContext:
    """What a job handler gets: the store, the clock, and models built once per model string."""

    store: Store
    clock: Clock = field(default_factory=SystemClock)
    models: Callable[[str], Model] | None = None
    """Model string -> Model; default `onlooker.llm.model_from_string`."""

    def __post_init__(self) -> None:
        self._models = ModelCache(self.models)

    def model(self, spec: str) -> Model:
        """The model for a model string, built once."""
        return self._models(spec)


def _setup_error(exc: BaseException) -> bool:
    return isinstance(exc, ProviderSetupError) or isinstance(exc.__cause__, ProviderSetupError)


def run_job(job: Job, ctx: WorkerContext) -> None:
    """Run one claimed job with its handler; done, or a failed attempt with the error."""
    handler: Handler | None = None
    try:
        handler = handler_for(job.kind)
        if handler is None:
            raise LookupError(f"no handler for job kind {job.kind!r}; known: {known_kinds()}")
        handler(job, ctx)
    except Exception as exc:
        log.error("job %d (%s) failed: %s", job.id, job.kind, traceback.format_exc())
        # an unknown kind, or a model that cannot be built (a package or key missing), fails the
        # same way every time: not tried again, so doctor shows it at once
        retry = (handler is not None or job.kind in HANDLERS) and not _setup_error(exc)
        status = ctx.store.jobs.fail(job, f"{type(exc).__name__}: {exc}", retry=retry)
        if status is None:
            log.warning(
                "job %d (%s): claimed again meanwhile, failure not recorded", job.id, job.kind
            )
        return
    if not ctx.store.jobs.complete(job):
        log.warning("job %d (%s): claimed again meanwhile, not marked done", job.id, job.kind)


def serve(
    home: Path,
    *,
    idle_seconds: float | None = None,
    threads: int | None = None,
    models: Callable[[str], Model] | None = None,
) -> int:
    """Drain the queue until idle; 0 at once if another worker runs for `home`."""
    idle = idle_seconds if idle_seconds is not None else _env("ONLOOKER_WORKER_IDLE", IDLE_SECONDS)
    count = threads or int(_env("ONLOOKER_WORKER_THREADS", THREADS))
    store = Store(home)
    try:
        while True:
            try:
                with single_instance(home, LOCK):
                    log.info("worker %d draining %s", os.getpid(), home)
                    released = store.jobs.release(socket.gethostname())
                    if released:  # their worker died holding them (killed, out of memory)
                        log.warning("took up %d job(s) a dead worker held", released)
                    _drain(WorkerContext(store, models=models), idle, count)
            except AlreadyRunning:
                log.info("a worker already runs for %s", home)
                return 0
            # A job queued while this worker was giving up its lock found it still held and
            # started nobody: look once more now that the lock is free.
            if not store.jobs.has_ready():
                return 0
    finally:
        store.close()


def _drain(ctx: WorkerContext, idle: float, threads: int) -> None:
    name = f"{socket.gethostname()}:{os.getpid()}"
    lease = LEASE
    last_ended = time.monotonic()

    with (
        Heartbeat(ctx.store.jobs, lease) as running,
        ThreadPoolExecutor(threads, thread_name_prefix="onlooker-job") as pool,
    ):

        def work(job: Job) -> None:
            nonlocal last_ended
            try:
                run_job(job, ctx)
            finally:
                last_ended = time.monotonic()  # before the release: the loop reads both
                running.release(job)

        while True:
            job = ctx.store.jobs.claim(name, lease=lease) if len(running) < threads else None
            if job is not None:
                running.hold(job)
                pool.submit(work, job)
                continue
            if len(running) == 0 and time.monotonic() - last_ended >= idle:
                return
            time.sleep(POLL_SECONDS)


def _env(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default
