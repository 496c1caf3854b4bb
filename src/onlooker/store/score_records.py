"""Session scores as stored (specs/scoring.md): the judge's ScoreCard, a scored session with its
agent, the improvements proposed from repeated weaknesses, and the journal changes that keep
them, so `onlooker reindex` restores every score, improvement, rejection and setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..core.events import EPOCH
from ..core.records import encode, record
from .changes import Change

AgentType = Literal["primary", "subagent"]
ImprovementTarget = Literal["agents_md", "agent_prompt", "agent_description"]
ImprovementStatus = Literal["pending", "applied", "rejected", "rolled_back", "present", "removed"]
"""`present`: applying found its line already in the file, so nothing was written; `removed`: an
applied line is no longer in the file (taken out by hand)."""
CATEGORY_NAMES = (
    "instruction_following",
    "completeness",
    "proactiveness",
    "code_quality",
    "communication",
)


@dataclass(frozen=True, slots=True)
class ScoreCategories:
    """The five dimensions a session is scored on, each 0.0-1.0."""

    instruction_following: float = 0.5
    """Did the agent do what was asked?"""
    completeness: float = 0.5
    """Did it finish the task?"""
    proactiveness: float = 0.5
    """Did it over-step or under-step?"""
    code_quality: float = 0.5
    """Quality of generated code."""
    communication: float = 0.5
    """Clarity of explanations."""


@dataclass(frozen=True, slots=True)
class ScoreCard:
    """The judge's verdict on one session."""

    session_id: str
    timestamp: int
    """When it was scored, in milliseconds since the epoch."""
    overall_score: float
    categories: ScoreCategories = field(default_factory=ScoreCategories)
    strengths: tuple[str, ...] = ()
    weaknesses: tuple[str, ...] = ()
    message_id: str | None = None
    suggested_agents_md_update: str | None = None
    """A suggested addition to the project's instructions file."""
    suggested_agent_prompt_update: str | None = None
    """A suggested addition to the agent's own prompt."""
    suggested_agent_description_update: str | None = None
    """A subagent's suggested description (when its parent should delegate to it)."""

    def to_dict(self) -> dict[str, Any]:
        """The card as JSON data, optional fields left out when unset."""
        data: dict[str, Any] = encode(self)
        return {k: v for k, v in data.items() if v is not None}


@dataclass(frozen=True, slots=True)
class SessionScore:
    """A scored session: its card, which agent ran it, and how much of it the judge saw."""

    card: ScoreCard
    project: str
    agent_name: str = ""
    agent_type: AgentType = "primary"
    parent_session_id: str = ""
    title: str = ""
    """The session's first instruction, shortened."""
    seen_seq: int = 0
    """The session's last event seq when it was scored: newer messages make it due again."""
    model: str = ""
    failed: bool = False
    """The judge failed and the card is the fallback one (kept by older versions only: a failed
    judge call is no longer recorded as a score)."""
    host: str = ""
    """The host the session ran in when it is not Claude Code (`opencode`): it says which file
    an agent's prompt is."""

    @property
    def session_id(self) -> str:
        return self.card.session_id

    @property
    def score(self) -> float:
        return self.card.overall_score


@dataclass(frozen=True, slots=True)
class Improvement:
    """A change to an instructions or agent prompt file, proposed from a repeated weakness."""

    id: str
    project: str
    target: ImprovementTarget
    pattern: str
    """The weakness it answers."""
    text: str
    """The instruction line it adds to the managed section."""
    agent_name: str = ""
    reason: str = ""
    status: ImprovementStatus = "pending"
    created_at: datetime = EPOCH
    applied_at: datetime | None = None
    score_before: float | None = None
    """The relevant average score when it was applied."""
    outcome_score_delta: float | None = None
    """The next evaluation's score minus `score_before`."""
    rolled_back_at: datetime | None = None
    path: str = ""
    """The file it changed."""
    backup_path: str = ""
    host: str = ""
    """For an agent's prompt: the host whose agent it is (`opencode`; '' for Claude Code)."""


@record("session_scored")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionScored(Change):
    """A session was scored (again): its score replaces the earlier one."""

    score: SessionScore


@record("scores_pruned")
@dataclass(frozen=True, slots=True, kw_only=True)
class ScoresPruned(Change):
    """The oldest scores of a project past `max_history`."""

    project: str
    session_ids: tuple[str, ...] = ()


@record("improvement_recorded")
@dataclass(frozen=True, slots=True, kw_only=True)
class ImprovementRecorded(Change):
    """An improvement as it now stands (proposed, applied, rejected, rolled back)."""

    improvement: Improvement


@record("pattern_rejected")
@dataclass(frozen=True, slots=True, kw_only=True)
class PatternRejected(Change):
    """A weakness pattern the user rejected (`rejected`), or took the rejection back."""

    project: str
    pattern: str
    rejected: bool = True


@record("observer_setting")
@dataclass(frozen=True, slots=True, kw_only=True)
class ObserverSettingSet(Change):
    """A per-project scoring setting (steering guidance, auto-update toggles); '' clears it."""

    project: str
    name: str
    value: str = ""
