"""Reviewer observers on the hook path: deliver background results, run or queue due reviewers.

At each hook: reports of background runs not yet delivered to this session go into the answer
(PostToolUse, UserPromptSubmit), once. When the project's review trigger fires, reviewers whose
targets changed are due: `parallel` (and `inline`) runs them now, within their bounds, and
delivers what they found; `background` queues one `review.run` job each and makes sure a
detached worker runs. With `on_timeout: fail`, a timed-out reviewer blocks with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..events import Event
from ..llm.model import Model
from ..observers.review_config import ReviewSetup, reviewer_to_dict
from ..observers.review_run import due_reviewers, remember, run_parallel
from ..session import Session
from ..store import Store

log = logging.getLogger("onlooker.hook")

REVIEW_JOB = "review.run"
#: Hook events whose answer can carry background results.
DELIVERY_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "UserPromptSubmit"})

ReviewSetupFor = Callable[[str], ReviewSetup | None]
"""Project root -> its reviewers and execution settings (None: no reviewers)."""


def no_reviewers(root: str) -> ReviewSetup | None:
    """The default: no project has reviewers until a config loader is plugged in."""
    return None


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
) -> ReviewAnswer:
    """Deliver waiting background results and run or queue the reviewers this event makes due."""
    parts: list[str] = []
    if event_name in DELIVERY_EVENTS:
        parts.extend(store.runs.take_undelivered(session.id))
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
        from ..worker import ensure_worker

        ensure_worker(store.home)
    else:
        runs = run_parallel(
            [reviewer for reviewer, _ in due], execution, store=store, project=project,
            session=session, root=root, model_for=model_for,
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
