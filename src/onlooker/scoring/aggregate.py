"""Scores across sessions (specs/scoring.md): averages overall and per agent, the weaknesses and
strengths that recur (matched by similarity: exact, substring, Jaccard word overlap), the trend of
the last sessions as a sparkline with an arrow, and what applied improvements did to the score.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..store.score_records import Improvement, SessionScore

SIMILAR = 0.5
"""Similarity at or above which two weakness texts are one pattern."""
TOP = 5
TREND_SESSIONS = 7
BARS = "▁▂▃▄▅▆▇█"
_WORD = re.compile(r"[a-z0-9_.`/-]+")


def weakness_similarity(a: str, b: str) -> float:
    """1.0 for the same text (case and spacing aside), 0.9 when one holds the other, else the
    Jaccard overlap of their words."""
    left, right = _normal(a), _normal(b)
    if not left or not right:
        return 0.0
    if left == right:
        return 1.0
    if left in right or right in left:
        return 0.9
    words_a, words_b = set(_WORD.findall(left)), set(_WORD.findall(right))
    if not words_a or not words_b:
        return 0.0
    return len(words_a & words_b) / len(words_a | words_b)


def similar(a: str, b: str) -> bool:
    return weakness_similarity(a, b) >= SIMILAR


@dataclass(frozen=True, slots=True)
class PatternCount:
    """A recurring weakness or strength: its first wording and the sessions it was seen in."""

    pattern: str
    count: int
    sessions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "count": self.count}


@dataclass(frozen=True, slots=True)
class Aggregate:
    """Scores of some sessions, summed up."""

    total_sessions: int = 0
    avg_score: float | None = None
    top_weaknesses: tuple[PatternCount, ...] = ()
    top_strengths: tuple[PatternCount, ...] = ()
    by_agent: dict[str, Aggregate] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "total_sessions": self.total_sessions,
            "avg_score": self.avg_score,
            "top_weaknesses": [p.to_dict() for p in self.top_weaknesses],
            "top_strengths": [p.to_dict() for p in self.top_strengths],
        }
        if self.by_agent:
            data["by_agent"] = {name: a.to_dict() for name, a in self.by_agent.items()}
        return data


def aggregate(scores: Sequence[SessionScore], *, per_agent: bool = True) -> Aggregate:
    """The aggregate of `scores`, with one per agent name when `per_agent`."""
    if not scores:
        return Aggregate()
    by_agent: dict[str, Aggregate] = {}
    if per_agent:
        names = sorted({s.agent_name for s in scores if s.agent_name})
        by_agent = {
            name: aggregate([s for s in scores if s.agent_name == name], per_agent=False)
            for name in names
        }
    return Aggregate(
        total_sessions=len(scores),
        avg_score=round(sum(s.score for s in scores) / len(scores), 4),
        top_weaknesses=tuple(patterns((s.session_id, s.card.weaknesses) for s in scores)[:TOP]),
        top_strengths=tuple(patterns((s.session_id, s.card.strengths) for s in scores)[:TOP]),
        by_agent=by_agent,
    )


def patterns(items: Iterable[tuple[str, Sequence[str]]]) -> list[PatternCount]:
    """Texts grouped by similarity, counted once per session, most frequent first."""
    groups: list[tuple[str, list[str]]] = []
    for session_id, texts in items:
        for text in texts:
            if text.startswith("Scoring failed:"):
                continue
            for pattern, sessions in groups:
                if similar(pattern, text):
                    if session_id not in sessions:
                        sessions.append(session_id)
                    break
            else:
                groups.append((text, [session_id]))
    ranked = sorted(enumerate(groups), key=lambda item: (-len(item[1][1]), item[0]))
    return [PatternCount(p, len(sessions), tuple(sessions)) for _, (p, sessions) in ranked]


def sparkline(scores: Sequence[float]) -> str:
    """The last TREND_SESSIONS scores as bars (0.0 is the lowest bar, 1.0 the highest)."""
    last = scores[-TREND_SESSIONS:]
    return "".join(BARS[min(len(BARS) - 1, int(max(0.0, s) * len(BARS)))] for s in last)


def trend_arrow(scores: Sequence[float]) -> str:
    """↑, ↓ or → : the latest sessions against the ones before them (within the last 7)."""
    last = list(scores[-TREND_SESSIONS:])
    if len(last) < 2:
        return "→"
    half = len(last) // 2
    before, after = last[:half], last[half:]
    change = sum(after) / len(after) - sum(before) / len(before)
    return "↑" if change > 0.05 else "↓" if change < -0.05 else "→"


def score_emoji(score: float) -> str:
    """🟢 at 80% and above, 🟡 at 60% and above, 🔴 below."""
    return "🟢" if score >= 0.8 else "🟡" if score >= 0.6 else "🔴"


def percent(score: float | None) -> str:
    return "n/a" if score is None else f"{score * 100:.0f}%"


@dataclass(frozen=True, slots=True)
class Deltas:
    """What applied improvements did: the average change in score after them, helped and hurt."""

    measured: int = 0
    avg_delta: float | None = None
    helped: int = 0
    hurt: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "measured": self.measured,
            "avg_delta": self.avg_delta,
            "helped": self.helped,
            "hurt": self.hurt,
        }


def improvement_deltas(improvements: Iterable[Improvement]) -> Deltas:
    found = [i.outcome_score_delta for i in improvements if i.outcome_score_delta is not None]
    if not found:
        return Deltas()
    return Deltas(
        len(found),
        round(sum(found) / len(found), 4),
        sum(1 for d in found if d > 0),
        sum(1 for d in found if d < 0),
    )


def _normal(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(".").split())
