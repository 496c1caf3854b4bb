"""Trajectory findings end with their episode: expired when the same call succeeds, the file
settles, or the session ends, unless someone resolved them first (specs/store.md, Trajectory
findings). Resolving stays an agent's, a person's or a reviewer's act with its note."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..core.assessment import Assessment, severity_rank
from ..core.events import Event, SessionEnded, ToolCall
from ..core.session import Session
from ..observers.episodes import WRITE_TOOLS, call_key, is_cancelled
from ..store import Store
from ..store.changes import EPISODE_REF, Observation
from ..store.query import UNRESOLVED, FindingQuery

SETTLED_AFTER = 8
"""Calls without a write to a file after which its thrashing or undoing episode is over."""
SESSION_ENDED = "the session ended"
"""Why a session's episode findings expire at its end (a resume opens them again)."""


def end_episodes(
    store: Store, session: Session, event: Event, *, project: str, keep: Collection[str] = ()
) -> int:
    """Expire the session's open episode findings that `event` ends (but those in `keep`, just
    reported); how many expired."""
    if not isinstance(event, SessionEnded | ToolCall) or not _warned(session):
        return 0
    query = FindingQuery(project=project, statuses=UNRESOLVED, session_id=session.id)
    open_ = [
        o for o in store.query(query).observations
        if (o.finding.source_ref or "").startswith(EPISODE_REF) and o.id not in keep
    ]  # fmt: skip
    if not open_:
        return 0
    calls = session[ToolCall].all()
    notes = {o.id: why for o in open_ if (why := _why_ended(o, event, calls))}
    if not notes:
        return 0
    return len(store.expire(notes, project=project, session_id=session.id))


def _warned(session: Session) -> bool:
    return any(severity_rank(a.severity) > 1 for a in session[Assessment].all())


def _why_ended(observation: Observation, event: Event, calls: Sequence[ToolCall]) -> str:
    """Why `event` ends the finding's episode ('' when it goes on)."""
    if isinstance(event, SessionEnded):
        return SESSION_ENDED
    assert isinstance(event, ToolCall)
    if not event.ok or is_cancelled(event):
        return ""
    metadata = observation.finding.metadata
    episode = str(metadata.get("episode") or "")
    kind, _, subject = episode.partition(":")
    if kind == "streak":
        return f"call {event.index} succeeded"
    if kind in ("repeat", "error"):  # a failing call that now succeeds
        at = metadata.get("index")
        failed = next((c for c in calls if c.index == at), None)
        if failed is not None and not failed.ok and call_key(failed) == call_key(event):
            return f"the same call succeeded (call {event.index})"
    if kind in ("thrash", "undo"):
        at = metadata.get("index")
        if isinstance(at, int) and event.index - at >= SETTLED_AFTER:
            touched = any(
                c.index > at and c.tool in WRITE_TOOLS and c.input.get("file_path") == subject
                for c in calls
            )
            if not touched:
                return f"{subject} settled: no edit in {event.index - at} calls"
    return ""
