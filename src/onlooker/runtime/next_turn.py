"""The next-turn injection: the open-observations summary (specs/store.md) inside `<observations>`.

Delivered to a session only when its text changed since the last delivery there; the store keeps
the digest of what was delivered (journaled, so a reindex remembers it too).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..core.feedback import FEEDBACK_LIMIT
from ..core.message import SHORT_ID
from ..store._store import Store
from ..store.query import FindingQuery

NOTE = "These observations stay open until resolved with the observations tool."
CLIPPED = "\n…[clipped]"


def format_observations_summary(result: dict[str, Any]) -> str:
    """Format observations for context injection, in the summary format of specs/store.md."""
    by_severity = result.get("by_severity", {})
    observations = result.get("observations", [])

    lines = [
        f"Active Observations: {result['count']} open",
        f"By Severity: {', '.join(f'{sev}: {count}' for sev, count in by_severity.items())}",
    ]

    # Group by observer
    by_observer: dict[str, list[dict[str, Any]]] = {}
    for obs in observations:
        observer = obs["observer"]
        if observer not in by_observer:
            by_observer[observer] = []
        by_observer[observer].append(obs)

    for observer, obs_list in by_observer.items():
        lines.append(f"\n**{observer}** ({len(obs_list)} observations):")
        for obs in obs_list[:3]:  # Limit to top 3
            lines.append(f"  [{obs['severity']}] [id {obs['id'][:SHORT_ID]}] {obs['content']}")
        if len(obs_list) > 3:
            lines.append(f"  ... and {len(obs_list) - 3} more")

    return "\n".join(lines)


def observations_injection(summary: str, limit: int = FEEDBACK_LIMIT) -> str:
    """The summary wrapped for the agent's context, within `limit` characters."""
    head, tail = "<observations>\n", f"\n</observations>\n\n{NOTE}"
    room = limit - len(head) - len(tail)
    if len(summary) > room:
        summary = summary[: room - len(CLIPPED)] + CLIPPED
    return f"{head}{summary}{tail}"


def open_observations_text(
    store: Store, project: str, limit: int = FEEDBACK_LIMIT, *, session_id: str | None = None
) -> str:
    """The injection text for a project's open observations ('' when none is open). Given a
    session, the trajectory findings of other sessions are left out: an episode belongs to the
    session it happened in (specs/store.md)."""
    page = store.query(FindingQuery(project=project, statuses=("open",), episodes_of=session_id))
    if not page.count:
        return ""
    result = {
        "count": page.count,
        "by_severity": page.by("severity"),
        "observations": [o.to_dict() for o in page.observations],
    }
    return observations_injection(format_observations_summary(result), limit)


def next_turn_observations(
    store: Store, *, project: str, session_id: str, limit: int = FEEDBACK_LIMIT
) -> str:
    """What to inject at the session's next turn: the open-observations text if it changed since
    the last delivery to this session, else ''. Delivering it is recorded."""
    text = open_observations_text(store, project, limit, session_id=session_id)
    if not store.mark_delivered(session_id, _digest(text), project=project):
        return ""
    return text


def mark_summary_delivered(
    store: Store, *, project: str, session_id: str, limit: int = FEEDBACK_LIMIT
) -> None:
    """Record the summary the next turn would inject as delivered (the session was just told
    the same observations another way: after compaction, on resume)."""
    text = open_observations_text(store, project, limit, session_id=session_id)
    store.mark_delivered(session_id, _digest(text), project=project)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest() if text else ""
