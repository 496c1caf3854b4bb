"""Continuity: after compaction and on resume, the session's open observations come back once,
with their short ids and where they point, within a budget (specs/runtime.md, Continuity).

Compaction drops what hooks injected earlier; a resumed session (`claude --resume`, also after a
`claude -p` run that already ended) starts from a transcript the agent may not have in context.
A resume first reopens the episode findings the session's end expired: the episode goes on.
Delivering the list also records the open-observations summary as delivered, so the next prompt
does not repeat it. A resume keeps the transcript since the last compaction, so a list already
delivered there is not said again while it is unchanged (its digest is journaled like the
summary's, under the session's continuity channel).
"""

from __future__ import annotations

import hashlib

from ..core.events import Event, SessionStarted
from ..core.message import INTRODUCTION
from ..store import UNRESOLVED, FindingQuery, Observation, Store, short_id
from ..store.changes import EPISODE_REF, SummaryDelivered
from .episode_end import SESSION_ENDED
from .next_turn import mark_summary_delivered

CONTINUED = frozenset({"compact", "resume"})
"""Session-start sources whose context lost what onlooker injected before."""
CONTINUITY_LIMIT = 4_000
"""Characters the list may take: Claude Code cuts a hook's output at 10,000, and the session
start also carries the memory digest and the scores' context."""
LISTED = 12
"""Observations listed one by one, most severe first; the rest are counted."""
HEAD = "<observations>\nStill open in this session ({n}), said again after {why}:"
TAIL = f"</observations>\n\n{INTRODUCTION}"
"""The same line on acting by id as the first message of a session says (core/message.py)."""
MORE = "… and {n} more (observations tool, operation list)"
WHY = {"compact": "compaction", "resume": "resuming"}


def continued_observations(
    store: Store, event: Event, *, project: str, session_id: str, limit: int = CONTINUITY_LIMIT
) -> str:
    """At a session start after compaction or on resume: its open observations ('' otherwise or
    when none is open)."""
    if not isinstance(event, SessionStarted) or event.source not in CONTINUED:
        return ""
    if event.source == "resume":
        reopen_ended_episodes(store, project=project, session_id=session_id)
    query = FindingQuery(project=project, statuses=UNRESOLVED, episodes_of=session_id, limit=LISTED)
    page = store.query(query)
    if not page.count:
        return ""
    listed = continuity_text(page.observations, page.count, "", limit)
    digest = hashlib.blake2b(listed.encode(), digest_size=16).hexdigest()
    channel = continuity_channel(session_id)
    if event.source == "resume" and store.index.delivered_digest(channel) == digest:
        return ""  # the transcript the session resumes with holds this very list
    text = continuity_text(page.observations, page.count, WHY[event.source], limit)
    store.record_changes([SummaryDelivered(session_id=channel, digest=digest)], project=project,
                         session_id=session_id)  # fmt: skip
    mark_summary_delivered(store, project=project, session_id=session_id)
    return text


def continuity_channel(session_id: str) -> str:
    """Where the digest of the last list delivered to a session is kept (`deliveries`)."""
    return f"{session_id}#continued"


def reopen_ended_episodes(store: Store, *, project: str, session_id: str) -> int:
    """Open again the session's episode findings that expired because the session ended; how
    many."""
    query = FindingQuery(project=project, statuses=("expired",), session_id=session_id)
    ended = [
        o.id
        for o in store.query(query).observations
        if o.finding.resolution_note == SESSION_ENDED
        and (o.finding.source_ref or "").startswith(EPISODE_REF)
    ]
    if ended:
        store.reopen(ended, project=project, session_id=session_id)
    return len(ended)


def continuity_text(
    observations: tuple[Observation, ...], count: int, why: str, limit: int = CONTINUITY_LIMIT
) -> str:
    """The list: one line per observation (severity, short id, observer, content, where it
    points) while they fit, the rest counted, the whole within `limit` characters."""
    head = HEAD.format(n=count, why=why)
    room = limit - len(head) - len(TAIL) - len(MORE.format(n=count)) - 3
    lines: list[str] = []
    for observation in observations:
        line = observation_line(observation)
        if len(line) + 1 > room:
            break
        lines.append(line)
        room -= len(line) + 1
    if count > len(lines):
        lines.append(MORE.format(n=count - len(lines)))
    return "\n".join((head, *lines, TAIL))


def observation_line(observation: Observation, width: int = 300) -> str:
    """`- [high] 1a2b3c4d Stall: <content> (at call 4)`, or `(src/db.py:45)` for code."""
    f = observation.finding
    content = " ".join(f.content.split())
    if len(content) > width:
        content = content[: width - 1] + "…"
    status = " (acknowledged)" if f.status == "acknowledged" else ""
    return f"- [{f.severity}] {short_id(f.id)}{status} {f.observer}: {content}{_where(observation)}"


def _where(observation: Observation) -> str:
    """Where a finding points: the call of a trajectory episode, the file:line of a review."""
    f = observation.finding
    ref = f.source_ref or ""
    if ref.startswith(EPISODE_REF):
        at = f.metadata.get("call_index")
        return f" (at call {at})" if isinstance(at, int) and at else ""
    return f" ({ref})" if ref else ""
