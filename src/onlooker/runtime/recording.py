"""What a dispatched event leaves in the store: the event, its assessments and failures in the
session's journal, and the findings of assessments at low severity or above; and the feedback
rendered with the ids the store gave those findings.
"""

from __future__ import annotations

from ..core.engine import Dispatch
from ..core.feedback import FEEDBACK_LIMIT
from ..core.session import Session
from ..store import Created, Store, trajectory_findings
from .episode_end import end_episodes


def record_dispatch(
    store: Store, dispatch: Dispatch, *, project: str, session: Session | None = None
) -> tuple[Created, ...]:
    """Journal a dispatched event with its assessments and failures; store the findings of
    assessments at low or above (see `trajectory_findings`). Given the session, the episodes
    the event ends have their findings expired (`end_episodes`)."""
    return _record(store, dispatch, project=project, session=session)[0]


def recorded_feedback(
    store: Store,
    dispatch: Dispatch,
    *,
    project: str,
    session: Session | None = None,
    limit: int = FEEDBACK_LIMIT,
) -> str:
    """`record_dispatch`, then the event's feedback with every finding under its stored id (an
    episode's later report is the finding first stored for it)."""
    ids = _record(store, dispatch, project=project, session=session)[1]
    if not dispatch.telling.messages:
        return dispatch.feedback
    return dispatch.telling.render(limit, ids)


def _record(
    store: Store, dispatch: Dispatch, *, project: str, session: Session | None
) -> tuple[tuple[Created, ...], dict[str, str]]:
    session_id = dispatch.event.session_id
    records = (dispatch.event, *dispatch.assessments, *dispatch.failures)
    store.append(records, project=project, session_id=session_id)
    findings = [f for a in dispatch.assessments for f in trajectory_findings(a, session_id)]
    created = store.create(findings, project=project, session_id=session_id) if findings else ()
    if session is not None:
        reported = {c.observation.id for c in created}
        end_episodes(store, session, dispatch.event, project=project, keep=reported)
    ids = {f.id: c.observation.id for f, c in zip(findings, created, strict=True)}
    return created, ids
