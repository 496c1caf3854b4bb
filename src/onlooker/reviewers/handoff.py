"""Reviewer observers on the hook path: deliver background results, run or queue due reviewers.

At each hook: reports of background runs not yet delivered to this session go into the answer
(PostToolUse, UserPromptSubmit), once. When the project's review trigger fires, reviewers whose
targets changed are due: `parallel` (and `inline`) runs them now, within their bounds, and
delivers what they found; `background` queues one `review.run` job each and makes sure a
detached worker runs. With `on_timeout: fail`, a timed-out reviewer blocks with the reason.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.events import Event
from ..llm.model import Model
from .config import ReviewSetup, reviewer_to_dict
from ._run import due_reviewers, remember, run_parallel
from ..core.session import Session
from ..store import Store

log = logging.getLogger("onlooker.hook")

REVIEW_JOB = "review.run"
#: Hook events whose answer can carry background results.
DELIVERY_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "UserPromptSubmit"})

ReviewSetupFor = Callable[[str], ReviewSetup | None]
"""Project root -> its reviewers and execution settings (None: no reviewers)."""


SETUP_VARIABLE = "ONLOOKER_REVIEW_SETUP"
"""`module:function` of a Python function (project root -> ReviewSetup | None) that supplies the
reviewers, for embedding onlooker in a harness (and for tests)."""


HOOK_MARGIN = 3.0
"""Seconds of a hook's wait kept for the rest of its work (storing, answering) after reviewers."""


def parallel_budget() -> float:
    """Seconds parallel reviewers may take in one hook: the hook client's wait for an answer
    ($ONLOOKER_HOOK_TIMEOUT, 20 s) less HOOK_MARGIN. A reviewer still running then has timed out,
    so `on_timeout: fail` can still block before the client gives up."""
    from ..daemon.client import ANSWER_TIMEOUT

    return max(1.0, ANSWER_TIMEOUT - HOOK_MARGIN)


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


def review_at_hook(
    store: Store,
    *,
    event_name: str,
    event: Event,
    session: Session,
    project: str,
    root: Path | None,
    setup: ReviewSetup | None,
    model_for: Callable[[str], Model],
    budget: float | None = None,
) -> ReviewAnswer:
    """Deliver waiting background results and run or queue the reviewers this event makes due;
    parallel reviewers get `budget` seconds in all (see `parallel_budget`). Waiting results are
    taken last, once the rest has worked: a failure here leaves them for the next hook."""
    answer = _due_reviews(
        store, event=event, session=session, project=project, root=root, setup=setup,
        model_for=model_for, budget=budget,
    )  # fmt: skip
    if event_name not in DELIVERY_EVENTS:
        return answer
    waiting = store.runs.take_undelivered(session.id)
    if not waiting:
        return answer
    context = "\n\n".join(p for p in (*waiting, answer.context) if p)
    return ReviewAnswer(context, answer.block, answer.changed)


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
    if execution.mode == "background":
        for reviewer, _ in due:
            payload = {
                "reviewer": reviewer_to_dict(reviewer),
                "root": str(root) if root is not None else "",
                "timeout": min(reviewer.timeout, execution.timeout_per_observer),
                "call_index": session.tool_call_count,
            }
            store.enqueue(REVIEW_JOB, payload, project=project, session_id=session.id)
        from ..daemon.worker import ensure_worker

        ensure_worker(store.home)
    else:
        runs = run_parallel(
            [reviewer for reviewer, _ in due], execution, store=store, project=project,
            session=session, root=root, model_for=model_for, budget=budget,
        )  # fmt: skip
        parts.extend(run.report for run in runs if run.report)
        late = [run.outcome for run in runs if run.outcome.status == "timeout"]
        if late and execution.on_timeout == "fail":
            names = ", ".join(o.observer for o in late)
            block = (
                f"onlooker: reviewer {names} timed out ({late[0].error}); the review is "
                "configured with on_timeout: fail, so this step is blocked until it can run."
            )
    return ReviewAnswer("\n\n".join(parts), block, changed=True)
