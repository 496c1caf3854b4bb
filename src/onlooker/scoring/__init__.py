"""Session scores and the improvement loop (specs/scoring.md): a judge scores each session on five
dimensions, scores are aggregated overall and per agent, and a weakness that keeps coming back
becomes a reviewed, reversible change to the project's instructions or an agent's prompt.
"""

from ..store.score_records import Improvement, ScoreCard, ScoreCategories, SessionScore
from ._scores import Scores
from .aggregate import (
    Aggregate,
    PatternCount,
    aggregate,
    sparkline,
    trend_arrow,
    weakness_similarity,
)
from .commands import HELP, Answer, ObserverCommands
from .compaction import compaction_context
from .judge import (
    SCHEMA,
    SCORE_PROMPT,
    ScorerInput,
    ToolUse,
    Verdict,
    eval_messages,
    fallback_card,
    judge,
)
from .run import JOB_KIND, Scored, score_job, score_session, take_notice
from .settings import DETAIL_LEVELS, HOW_TO_TURN_ON, ScoringSettings

__all__ = [
    "DETAIL_LEVELS",
    "HELP",
    "HOW_TO_TURN_ON",
    "JOB_KIND",
    "SCHEMA",
    "SCORE_PROMPT",
    "Aggregate",
    "Answer",
    "Improvement",
    "ObserverCommands",
    "PatternCount",
    "ScoreCard",
    "ScoreCategories",
    "Scored",
    "ScorerInput",
    "Scores",
    "ScoringSettings",
    "SessionScore",
    "ToolUse",
    "Verdict",
    "aggregate",
    "compaction_context",
    "eval_messages",
    "fallback_card",
    "judge",
    "score_job",
    "score_session",
    "sparkline",
    "take_notice",
    "trend_arrow",
    "weakness_similarity",
]
