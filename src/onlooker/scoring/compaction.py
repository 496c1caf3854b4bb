"""What a session is told about its scores after its context was compacted: the average score with
its badge and trend, the top weaknesses, and each agent's stats, within a character budget."""

from __future__ import annotations

from ._scores import Scores
from .aggregate import aggregate, percent, score_emoji, trend_arrow

BUDGET = 1200
"""Characters the compaction context may take."""


def compaction_context(scores: Scores, project: str, budget: int = BUDGET) -> str:
    """The context to add after a compaction ('' when the project has no scores)."""
    found = scores.all(project)
    if not found:
        return ""
    summary = aggregate(found)
    average = summary.avg_score or 0.0
    values = [s.score for s in found]
    lines = [
        f"onlooker observer: {summary.total_sessions} scored sessions in this project, average "
        f"adherence {score_emoji(average)} {percent(average)} (trend {trend_arrow(values)})."
    ]
    if summary.top_weaknesses:
        lines.append("Recurring weaknesses seen by the observer:")
        lines += [f"- {p.pattern} (×{p.count})" for p in summary.top_weaknesses[:3]]
    for name, one in summary.by_agent.items():
        lines.append(f"- agent {name}: {one.total_sessions} sessions, {percent(one.avg_score)}")
    text = ""
    for line in lines:
        if len(text) + len(line) + 1 > budget:
            break
        text += line + "\n"
    return text.rstrip()
