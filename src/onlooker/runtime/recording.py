"""What a dispatched event leaves in the store: the event, its assessments and failures in the
session's journal, and the findings of assessments at medium severity or above.
"""

from __future__ import annotations

from ..core.engine import Dispatch
from ..core.session import Session
from ..store import Created, Store, trajectory_findings
from .episode_end import end_episodes


def record_dispatch(
    store: Store, dispatch: Dispatch, *, project: str, session: Session | None = None
) -> tuple[Created, ...]:
    """Journal a dispatched event with its assessments and failures; store the findings of
    assessments at medium or above (see `trajectory_findings`). Given the session, the episodes
    the event ends have their findings expired (`end_episodes`)."""
    session_id = dispatch.event.session_id
    records = (dispatch.event, *dispatch.assessments, *dispatch.failures)
    store.append(records, project=project, session_id=session_id)
    findings = [f for a in dispatch.assessments for f in trajectory_findings(a, session_id)]
    created = store.create(findings, project=project, session_id=session_id) if findings else ()
    if session is not None:
        reported = {c.observation.id for c in created}
        end_episodes(store, session, dispatch.event, project=project, keep=reported)
    return created
