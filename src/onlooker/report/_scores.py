"""Session scores of a data home as the report charts them: each scored session a point on its
agent's line, and each improvement to the agent's instructions a marker where it took effect.

An improvement is marked at the first score of its sessions (the agent's, or every agent's for the
project's instructions file) after it was applied: ▲ applied, with Δ its measured delta (which the
scorer takes from that same score); ▼ at the first score after it was rolled back. A change with no
score after it yet is marked at the latest score before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from ..scoring import Improvement, Scores, SessionScore
from .model import ImprovementMarker, ScoreRow

LABEL_LIMIT = 120


def scores_from_store(
    scores: Scores, projects: Sequence[str], since: datetime | None
) -> list[ScoreRow]:
    """The score rows of `projects` from `since` on, with their improvement markers; agents are
    named with their project when more than one project has scores."""
    found = {project: scores.all(project) for project in projects}
    found = {project: rows for project, rows in found.items() if rows}
    rows: list[ScoreRow] = []
    for project, kept in found.items():
        prefix = f"{project} · " if len(found) > 1 else ""
        markers = _markers(kept, scores.improvements(project))
        rows.extend(
            ScoreRow(
                session_id=s.session_id,
                agent_name=prefix + _agent(s),
                timestamp=_when(s),
                overall_score=s.score,
                markers=tuple(markers.get(s.session_id, ())),
            )
            for s in kept
        )
    return [r for r in rows if since is None or r.timestamp >= since]


def _markers(
    kept: Sequence[SessionScore], improvements: Iterable[Improvement]
) -> dict[str, list[ImprovementMarker]]:
    """Markers by the session id of the score they stand at."""
    at: dict[str, list[ImprovementMarker]] = {}
    for improvement in improvements:
        if improvement.status not in ("applied", "rolled_back") or improvement.applied_at is None:
            continue
        relevant = [
            s for s in kept if improvement.target == "agents_md" or
            s.agent_name == improvement.agent_name
        ]  # fmt: skip
        if not relevant:
            continue
        label = _label(improvement)
        applied = _first_after(relevant, improvement.applied_at)
        at.setdefault(applied, []).append(ImprovementMarker("applied", label))
        if improvement.outcome_score_delta is not None:
            delta = improvement.outcome_score_delta
            at[applied].append(ImprovementMarker("delta", label, delta))
        if improvement.status == "rolled_back":
            undone = _first_after(relevant, improvement.rolled_back_at or improvement.applied_at)
            at.setdefault(undone, []).append(ImprovementMarker("rolled_back", label))
    return at


def _first_after(relevant: Sequence[SessionScore], moment: datetime) -> str:
    """The session id of the first score at or after `moment`, else of the latest before it."""
    later = [s for s in relevant if _when(s) >= moment]
    return (later[0] if later else relevant[-1]).session_id


def _label(improvement: Improvement) -> str:
    where = "instructions" if improvement.target == "agents_md" else improvement.agent_name
    text = " ".join(improvement.text.split())
    if len(text) > LABEL_LIMIT:
        text = text[: LABEL_LIMIT - 1] + "…"
    return f"{where}: {text}"


def _agent(score: SessionScore) -> str:
    return score.agent_name or score.agent_type


def _when(score: SessionScore) -> datetime:
    return datetime.fromtimestamp(score.card.timestamp / 1000, UTC)
