"""How the observer commands show scores, improvements and failed scorings: a line of text for a
person and a row of data for `--json` and the MCP tools (specs/scoring.md)."""

from __future__ import annotations

from typing import Any

from ..core.records import encode
from ..store.score_records import Improvement, SessionScore
from ._scores import ScoringFailure
from .aggregate import percent


def label(improvement: Improvement) -> str:
    if improvement.target == "agents_md":
        return "AGENTS.md"
    what = "description" if improvement.target == "agent_description" else "prompt"
    return f"{improvement.agent_name} {what}"


def score_row(score: SessionScore, *, full: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "session_id": score.session_id,
        "score": score.score,
        "agent_name": score.agent_name,
        "agent_type": score.agent_type,
        "parent_session_id": score.parent_session_id,
        "title": score.title,
        "timestamp": score.card.timestamp,
    }
    if full:
        row["score_card"] = score.card.to_dict()
        row["model"] = score.model
    return row


def improvement_row(improvement: Improvement) -> dict[str, Any]:
    data: dict[str, Any] = encode(improvement)
    return data


def failure_row(failure: ScoringFailure) -> dict[str, Any]:
    return {
        "session_id": failure.session_id,
        "at": failure.at.isoformat(),
        "reason": failure.reason,
    }


def failure_line(failure: ScoringFailure) -> str:
    return f"  {failure.session_id}: scoring failed (no score): {failure.reason}"


def card_text(score: SessionScore) -> str:
    card = score.card
    lines = [
        f"Session {score.session_id} [{score.agent_name or '-'}]: {percent(card.overall_score)}"
    ]
    lines += [f"  {k}: {v:.2f}" for k, v in encode(card.categories).items()]
    lines += [f"  + {s}" for s in card.strengths] + [f"  - {w}" for w in card.weaknesses]
    return "\n".join(lines)
