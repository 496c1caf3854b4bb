"""What reaches the agent right after an event: rendered assessments, capped and never repeated.

Claude Code cuts hook output at 10,000 characters, so feedback is capped there; an assessment whose
text was already delivered in this session is not delivered again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .assessment import Assessment, severity_rank
from .records import Record, record
from .session import Session

FEEDBACK_LIMIT = 10_000
REMEMBERED = 200
SEPARATOR = "\n\n"


@record("delivered")
@dataclass(frozen=True, slots=True, kw_only=True)
class Delivered(Record):
    """Fingerprints of texts already delivered in the session (newest last, bounded)."""

    fingerprints: tuple[str, ...] = ()


def fingerprint(assessment: Assessment) -> str:
    text = f"{assessment.observer_name}\x00{assessment.render()}"
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def compose(assessments: Sequence[Assessment], limit: int = FEEDBACK_LIMIT) -> str:
    """Join rendered assessments within `limit` characters, keeping the most severe first."""
    texts = [a.render() for a in assessments]
    if sum(map(len, texts)) + len(SEPARATOR) * max(len(texts) - 1, 0) <= limit:
        return SEPARATOR.join(texts)
    order = sorted(range(len(texts)), key=lambda i: -severity_rank(assessments[i].severity))
    kept: set[int] = set()
    used = 0
    for i in order:
        cost = len(texts[i]) + (len(SEPARATOR) if kept else 0)
        if used + cost <= limit - 80:
            kept.add(i)
            used += cost
    if not kept:
        note = "\n…[clipped]"
        return texts[order[0]][: limit - len(note)] + note
    omitted = len(texts) - len(kept)
    body = SEPARATOR.join(texts[i] for i in range(len(texts)) if i in kept)
    return f"{body}{SEPARATOR}[{omitted} more assessment{'s' if omitted != 1 else ''} omitted]"


def immediate_feedback(
    session: Session, assessments: Sequence[Assessment], limit: int = FEEDBACK_LIMIT
) -> str:
    """The text to inject now: assessments not delivered before, capped; marks them delivered."""
    delivered = session[Delivered].latest() or Delivered()
    seen = set(delivered.fingerprints)
    fresh: list[Assessment] = []
    marks: list[str] = []
    for assessment in assessments:
        mark = fingerprint(assessment)
        if mark not in seen:
            seen.add(mark)
            fresh.append(assessment)
            marks.append(mark)
    if not fresh:
        return ""
    session[Delivered].seed(Delivered(fingerprints=(*delivered.fingerprints, *marks)[-REMEMBERED:]))
    return compose(fresh, limit)
