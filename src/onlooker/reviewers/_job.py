"""The `review.run` job: one reviewer over its watched targets, its report kept for delivery."""

from __future__ import annotations

from pathlib import Path

from ..core.session import Session
from ..store._jobs import Job
from ..store._store import JobContext
from ._run import run_parallel
from .config import reviewer_from_dict
from .execution import Execution


def handle(job: Job, ctx: JobContext) -> None:
    """Review, store findings, record the run; the report waits for the session's next hook."""
    payload = job.payload
    reviewer = reviewer_from_dict(payload["reviewer"])
    root = Path(payload["root"]) if payload.get("root") else None
    session = ctx.store.load_session(job.session_id) or Session(job.session_id)
    timeout = float(payload.get("timeout", reviewer.timeout))
    run_parallel(
        [reviewer],
        Execution(mode="background", max_concurrent=1, timeout_per_observer=timeout),
        store=ctx.store, project=job.project, session=session, root=root,
        model_for=ctx.model, deliver=True, call_index=int(payload.get("call_index", 0)),
    )  # fmt: skip
