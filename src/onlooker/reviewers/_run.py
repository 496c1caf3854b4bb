"""Running a project's reviewers: which are due (their targets changed), the parallel run, and
what each run leaves behind (findings, resolutions, an observer_runs row, a failure record).

The hook uses `due_reviewers` and `run_parallel`; the worker's `review.run` handler uses
`review_one` and `finish_review` for one queued reviewer.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.assessment import ObserverFailure
from ..core.feedback import Telling
from ..core.message import messages_of
from ..core.session import Session
from ..llm.model import Model, Usage
from ..store import Created, Store
from ._material import review_material
from .config import ReviewerConfig, ReviewSetup
from .execution import Execution, run_bounded
from .reviewer import ReviewObserver, ReviewOutcome
from .watch import WatchState, watch_state

ModelFor = Callable[[str], Model]
"""Builds the model for a model string (`onlooker.llm.model_from_string`, or a test's)."""


class ModelCache:
    """Models built once per model string (by `build`, default `model_from_string`)."""

    def __init__(self, build: ModelFor | None = None) -> None:
        self.build = build
        self._built: dict[str, Model] = {}
        self._lock = threading.Lock()

    def __call__(self, spec: str) -> Model:
        with self._lock:
            found = self._built.get(spec)
            if found is None:
                if self.build is None:
                    from ..llm import model_from_string

                    self.build = model_from_string
                found = self._built[spec] = self.build(spec)
            return found


@dataclass(frozen=True, slots=True)
class ReviewRun:
    """What one reviewer run left: its outcome, the findings stored, the text for the agent."""

    outcome: ReviewOutcome
    created: tuple[Created, ...] = ()
    report: str = ""
    """The rendered assessment of what is new ('' when nothing is)."""


def due_reviewers(
    setup: ReviewSetup, session: Session, root: Path | None
) -> tuple[list[tuple[ReviewerConfig, str]], list[ReviewerConfig]]:
    """(reviewers whose targets changed since they last ran, with the new hash; the unchanged)."""
    state = session[WatchState].latest() or WatchState()
    due: list[tuple[ReviewerConfig, str]] = []
    unchanged: list[ReviewerConfig] = []
    for reviewer in setup.reviewers:
        if not reviewer.enabled:
            continue
        digest = watch_state(reviewer.watch, root, session)
        if state.changed(reviewer.name, digest):
            due.append((reviewer, digest))
        else:
            unchanged.append(reviewer)
    return due, unchanged


def remember(session: Session, due: Sequence[tuple[ReviewerConfig, str]]) -> None:
    """Keep the hashes the due reviewers run on, so the same state is not reviewed again."""
    state = session[WatchState].latest() or WatchState()
    for reviewer, digest in due:
        state = state.seen(reviewer.name, digest)
    session[WatchState].seed(state)


async def review_one(
    reviewer: ReviewerConfig,
    *,
    store: Store,
    project: str,
    session: Session,
    root: Path | None,
    model_for: ModelFor,
    timeout: float | None = None,
) -> ReviewOutcome:
    """Build the material, then review it with the reviewer's model; never raises."""
    started = time.monotonic()
    try:
        model = model_for(reviewer.model)
        content = review_material(reviewer.watch, root, session)
        open_findings = store.open_findings(project, reviewer.name)
    except Exception as exc:
        return ReviewOutcome(
            reviewer.name,
            "error",
            error=f"{type(exc).__name__}: {exc}",
            model=reviewer.model,
            duration=time.monotonic() - started,
        )
    return await ReviewObserver(reviewer, model).review(content, open_findings, timeout=timeout)


def run_parallel(
    due: Sequence[ReviewerConfig],
    execution: Execution,
    *,
    store: Store,
    project: str,
    session: Session,
    root: Path | None,
    model_for: ModelFor,
    deliver: bool = False,
    call_index: int = 0,
    budget: float | None = None,
) -> list[ReviewRun]:
    """Run the due reviewers at once (the `parallel` mode) and keep what they found; with
    `deliver`, their reports wait for the session's next delivery point (background runs).
    `budget`: seconds for them all (a hook's time limit); one still running then timed out."""
    calls = [
        (
            reviewer.name,
            reviewer.timeout,
            lambda r=reviewer: review_one(
                r, store=store, project=project, session=session, root=root, model_for=model_for
            ),
        )
        for reviewer in due
    ]
    runs = []
    for reviewer, ended in zip(due, run_bounded(calls, execution, budget), strict=True):
        if ended.value is not None:
            outcome = ended.value
        elif ended.timed_out:
            limit = min(reviewer.timeout, execution.timeout_per_observer, budget or math.inf)
            outcome = ReviewOutcome(
                reviewer.name, "timeout", error=f"ModelTimeout: no answer within {limit:g}s",
                model=reviewer.model, duration=ended.duration,
            )  # fmt: skip
        else:
            outcome = ReviewOutcome(
                reviewer.name, "error", error=f"{type(ended.error).__name__}: {ended.error}",
                model=reviewer.model, duration=ended.duration,
            )  # fmt: skip
        run = finish_review(
            store, outcome, project=project, session_id=session.id, deliver=deliver,
            call_index=call_index,
        )  # fmt: skip
        runs.append(run)
    return runs


def finish_review(
    store: Store,
    outcome: ReviewOutcome,
    *,
    project: str,
    session_id: str,
    deliver: bool,
    call_index: int = 0,
) -> ReviewRun:
    """Store the findings (deduplicated), resolve what the reviewer found fixed, journal a failure,
    and record the run with its usage; with `deliver`, its report waits for the next delivery."""
    created = store.create(outcome.findings, project=project, session_id=session_id)
    resolved = []
    for finding_id in outcome.resolved:
        try:
            store.resolve(
                finding_id, f"{outcome.observer}: fixed, per its review",
                project=project, session_id=session_id,
            )  # fmt: skip
            resolved.append(finding_id)
        except Exception:  # resolved or cleared meanwhile
            continue
    if outcome.status != "ok":
        failure = ObserverFailure(
            observer=outcome.observer,
            error=outcome.error or outcome.status,
            at=store.clock.now(),
            call_index=call_index,
            timed_out=outcome.status == "timeout",
        )
        store.append((failure,), project=project, session_id=session_id)
    new = tuple(c.observation.finding for c in created if c.new)
    shown = ReviewOutcome(outcome.observer, outcome.status, new, tuple(resolved))
    assessment = shown.assessment()
    # one message, each finding under its stored id with where it points (specs/engine.md)
    report = Telling(tuple(messages_of([assessment]))).render() if assessment is not None else ""
    store.record_observer_run(
        outcome.observer,
        session_id=session_id,
        project=project,
        status=outcome.status,
        error=outcome.error,
        duration=outcome.duration,
        model=outcome.model,
        input_tokens=outcome.usage.input_tokens,
        output_tokens=outcome.usage.output_tokens,
        cost_usd=estimated_cost(outcome.model, outcome.usage),
        report=report if deliver else "",
    )
    return ReviewRun(outcome, created, report)


def estimated_cost(model: str, usage: Usage) -> float | None:
    """The provider's cost, else the price list's estimate, else None (unknown)."""
    if usage.cost_usd is not None:
        return usage.cost_usd
    from ..llm.pricing import estimate_cost

    return estimate_cost(model, usage)
