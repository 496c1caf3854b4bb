"""Session scores in the store: each score, improvement, rejection and setting is journaled (the
project's manual journal, or the scored session's) and indexed, so `onlooker reindex` restores it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..store import Store
from ..store._score_index import (
    read_improvements,
    read_rejections,
    read_score,
    read_scores,
    read_settings,
)
from ..store.score_records import (
    Improvement,
    ImprovementRecorded,
    ObserverSettingSet,
    PatternRejected,
    ScoresPruned,
    SessionScore,
    SessionScored,
)

STEERING = "steering"
FAILURE_OBSERVER = "scoring"
"""The observer name each judge call is recorded under; a failed call is a failed scoring."""
AUTO_AGENTS_MD = "auto_update_agents_md"
AUTO_AGENT_PROMPTS = "auto_update_agent_prompts"


@dataclass(frozen=True, slots=True)
class ScoringFailure:
    """A session the judge could not score: no score was recorded (an earlier one stays)."""

    session_id: str
    at: datetime
    reason: str


class Scores:
    """The scores of one data home."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- scores -----------------------------------------------------------------------------------

    def record(self, score: SessionScore, *, max_history: int) -> None:
        """Keep a session's score (replacing an earlier one) and prune the oldest past
        `max_history`, in one transaction."""
        with self.store._changing(score.project, score.session_id) as pending:
            pending.add(SessionScored(score=score))
            kept = self.all(score.project)
            extra = len(kept) - max(1, max_history)
            if extra > 0:
                gone = tuple(s.session_id for s in kept[:extra])
                pending.add(ScoresPruned(project=score.project, session_ids=gone))

    def all(self, project: str, agent_name: str | None = None) -> list[SessionScore]:
        """A project's real scores, oldest first (of one agent when `agent_name` is given). A
        card kept from a failed judge call (stores written before failures stopped being scores)
        is no score and is left out."""
        found = [
            s for s in self.store.index._read(lambda c: read_scores(c, project)) if not s.failed
        ]
        return found if agent_name is None else [s for s in found if s.agent_name == agent_name]

    def failures(self, project: str) -> list[ScoringFailure]:
        """The sessions whose latest judge call failed (no later one succeeded), newest first."""
        rows = self.store.runs.unresolved_errors(FAILURE_OBSERVER, project)
        return [ScoringFailure(sid, at, error) for sid, at, error in rows]

    def of(self, project: str, session_id: str) -> SessionScore | None:
        found = self.store.index._read(lambda c: read_score(c, project, session_id))
        return None if found is None or found.failed else found

    # -- improvements -----------------------------------------------------------------------------

    def improvements(self, project: str) -> list[Improvement]:
        return self.store.index._read(lambda c: read_improvements(c, project))

    def save(self, improvement: Improvement) -> None:
        with self.store._changing(improvement.project, "") as pending:
            pending.add(ImprovementRecorded(improvement=improvement))

    # -- rejections and settings ------------------------------------------------------------------

    def rejections(self, project: str) -> list[str]:
        return self.store.index._read(lambda c: read_rejections(c, project))

    def reject(self, project: str, pattern: str, *, rejected: bool = True) -> None:
        with self.store._changing(project, "") as pending:
            pending.add(PatternRejected(project=project, pattern=pattern, rejected=rejected))

    def settings(self, project: str) -> dict[str, str]:
        return self.store.index._read(lambda c: read_settings(c, project))

    def set(self, project: str, name: str, value: str) -> None:
        """Set a per-project setting ('' clears it)."""
        with self.store._changing(project, "") as pending:
            pending.add(ObserverSettingSet(project=project, name=name, value=value))
