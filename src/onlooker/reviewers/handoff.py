"""Reviewers at a delivery point: deliver background results, run or queue the due reviewers.

At each event: reports of background runs not yet delivered to this session go into the answer
(after a tool call, at a prompt), once. When the project's review trigger fires, reviewers whose
targets changed are due: `parallel` (and `inline`) runs them now, within their bounds, and
delivers what they found; `background` queues one `review.run` job each and makes sure a
detached worker runs. A reviewer whose model starts the user's agent CLI (`claude-code:`,
`opencode:`, seconds a call) is queued in every mode: the hook never waits for one. With
`on_timeout: fail`, a timed-out reviewer blocks with the reason, but not a stop that goes on after
a block.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.events import Event, ToolCall, TurnEnded, UserPrompt
from ..core.session import Session
from ..llm.model import Model
from ..llm.providers import starts_a_cli
from ..store import Store
from ._run import due_reviewers, remember, run_parallel
from .config import ReviewSetup, reviewer_to_dict

log = logging.getLogger("onlooker.hook")

REVIEW_JOB = "review.run"

ReviewSetupFor = Callable[[str], ReviewSetup | None]
"""Project root -> its reviewers and execution settings (None: no reviewers)."""


SETUP_VARIABLE = "ONLOOKER_REVIEW_SETUP"
"""`module:function` of a Python function (project root -> ReviewSetup | None) that supplies the
reviewers, for embedding onlooker in a harness (and for tests)."""


def no_reviewers(root: str) -> ReviewSetup | None:
    """No project has reviewers (what a $ONLOOKER_REVIEW_SETUP that cannot be used gives)."""
    return None


def configured_reviewers() -> ReviewSetupFor | None:
    """The function named by $ONLOOKER_REVIEW_SETUP; None when it is not set, so the project
    config's reviewers apply; `no_reviewers` when the name cannot be imported (that is logged,
    and the hooks go on without reviewers)."""
    named = os.environ.get(SETUP_VARIABLE, "").strip()
    if not named:
        return None
    module, _, function = named.partition(":")
    try:
        found: ReviewSetupFor = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError, ValueError) as exc:
        log.error("%s=%s cannot be used: %s", SETUP_VARIABLE, named, exc)
        return no_reviewers
    return found


@dataclass(frozen=True, slots=True)
class ReviewAnswer:
    """What reviewers add to a hook's answer."""

    context: str = ""
    block: str = ""
    """A reason to block with ('' for none): a reviewer timed out under `on_timeout: fail`."""
    changed: bool = False
    """The session's watch state changed (save it)."""


def review_at(
    store: Store,
    *,
    event: Event,
    session: Session,
    project: str,
    root: Path | None,
    setup: ReviewSetup | None,
    model_for: Callable[[str], Model],
    budget: float | None = None,
    wake_worker: Callable[[Path], None] | None = None,
) -> ReviewAnswer:
    """Deliver waiting background results and run or queue the reviewers this event makes due;
    parallel reviewers get `budget` seconds in all (a hook's time limit). Waiting results are
    taken last, once the rest has worked: a failure here leaves them for the next delivery point
    (a tool call or a prompt). `wake_worker` makes sure a worker runs the queued jobs."""
    answer = _due_reviews(
        store, event=event, session=session, project=project, root=root, setup=setup,
        model_for=model_for, budget=budget, wake_worker=wake_worker,
    )  # fmt: skip
    if not delivers_results(event):
        return answer
    waiting = store.runs.take_undelivered(session.id)
    if not waiting:
        return answer
    context = "\n\n".join(p for p in (*waiting, answer.context) if p)
    return ReviewAnswer(context, answer.block, answer.changed)


def delivers_results(event: Event) -> bool:
    """Whether background results are delivered at this event: after a tool call, at a prompt."""
    return isinstance(event, ToolCall | UserPrompt)


def _due_reviews(
    store: Store,
    *,
    event: Event,
    session: Session,
    project: str,
    root: Path | None,
    setup: ReviewSetup | None,
    model_for: Callable[[str], Model],
    budget: float | None,
    wake_worker: Callable[[Path], None] | None,
) -> ReviewAnswer:
    """Run or queue the reviewers this event makes due; their reports when they ran here."""
    parts: list[str] = []
    if setup is None or not setup.reviewers or not setup.trigger.matches(event):
        return ReviewAnswer("\n\n".join(parts))
    due, unchanged = due_reviewers(setup, session, root)
    for reviewer in unchanged:
        store.record_observer_run(
            reviewer.name, session_id=session.id, project=project, status="skipped",
            model=reviewer.model, error="targets unchanged since the last review",
        )  # fmt: skip
    if not due:
        return ReviewAnswer("\n\n".join(parts))
    remember(session, due)
    execution = setup.execution
    block = ""
    background = execution.mode == "background"
    queued = [pair for pair in due if background or starts_a_cli(pair[0].model)]
    due = [pair for pair in due if pair not in queued]  # what the hook waits for
    if queued:
        for reviewer, _ in queued:
            payload = {
                "reviewer": reviewer_to_dict(reviewer),
                "root": str(root) if root is not None else "",
                "timeout": min(reviewer.timeout, execution.timeout_per_observer),
                "call_index": session.tool_call_count,
            }
            store.enqueue(REVIEW_JOB, payload, project=project, session_id=session.id)
        if wake_worker is not None:
            wake_worker(store.home)
    if due:
        runs = run_parallel(
            [reviewer for reviewer, _ in due], execution, store=store, project=project,
            session=session, root=root, model_for=model_for, budget=budget,
        )  # fmt: skip
        parts.extend(run.report for run in runs if run.report)
        late = [run.outcome for run in runs if run.outcome.status == "timeout"]
        if late and execution.on_timeout == "fail" and not _continued(event):
            names = ", ".join(o.observer for o in late)
            block = (
                f"onlooker: reviewer {names} timed out ({late[0].error}); the review is "
                "configured with on_timeout: fail, so this step is blocked until it can run."
            )
    return ReviewAnswer("\n\n".join(parts), block, changed=True)


def _continued(event: Event) -> bool:
    """A stop that comes after a Stop hook blocked the turn: a reviewer that times out again is
    not a reason to block again (the agent would never stop while the model is down)."""
    return isinstance(event, TurnEnded) and event.continued
