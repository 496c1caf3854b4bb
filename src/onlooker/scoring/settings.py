"""The scoring settings: the config file's `scoring` section (specs/scoring.md), defaults filled in.

No `model`, no scoring: sessions are recorded as always and `onlooker observer status` says how to
turn it on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

DetailLevel = Literal["minimal", "standard", "thorough"]
DETAIL_LEVELS: tuple[DetailLevel, ...] = ("minimal", "standard", "thorough")
RESULT_LIMITS: dict[str, int] = {"minimal": 0, "standard": 500, "thorough": 2000}
"""Characters of each tool result the judge sees, by detail level (minimal: tool names only)."""
MANAGED_SECTION = "Observer Inferred Instructions"


@dataclass(frozen=True, slots=True)
class ScoringSettings:
    """How sessions are scored and what a repeated weakness may change."""

    model: str = ""
    """The judge's model string (`anthropic:claude-haiku-4-5`); '' turns scoring off."""
    enabled: bool = True
    detail_level: DetailLevel = "standard"
    scoring_threshold: float = 0.6
    """Sessions scoring below this count towards an improvement."""
    min_observations_for_update: int = 3
    """Sessions below the threshold a weakness must be seen in before it becomes an improvement."""
    auto_update_agents_md: bool = False
    """Apply project-wide improvements without asking."""
    auto_update_agent_prompts: bool = False
    """Apply agent prompt improvements without asking."""
    max_history: int = 100
    """Scores kept per project (the oldest go first)."""
    backup_enabled: bool = True
    backup_max_versions: int = 20
    sections_managed: tuple[str, ...] = (MANAGED_SECTION,)
    agents_observed: tuple[str, ...] = ()
    """Agents whose sessions are scored; () for all."""
    instructions_file: str = ""
    """The project's instructions file; '' for AGENTS.md when present, else CLAUDE.md."""
    retries: int = 2
    """Further attempts after the judge's answer fails or does not fit the schema."""
    timeout: float = 120.0
    """Seconds one judge call may take."""
    turn_interval: int = 1
    """Score a running session every this many turns (1: after each turn, or burst of turns);
    0: only when it ends. A subagent is scored when it stops either way."""
    notify_on_evaluation: bool = False
    """Tell the user when an automatic evaluation of a session starts (opt-in)."""

    @property
    def active(self) -> bool:
        """Whether sessions are scored: enabled, with a model."""
        return self.enabled and bool(self.model)

    @property
    def section(self) -> str:
        return self.sections_managed[0] if self.sections_managed else MANAGED_SECTION

    def observes(self, agent_name: str) -> bool:
        return not self.agents_observed or not agent_name or agent_name in self.agents_observed

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sections_managed"] = list(self.sections_managed)
        data["agents_observed"] = list(self.agents_observed)
        return data


HOW_TO_TURN_ON = (
    "Session scoring is off: no judge model is set. Turn it on with a model string in the "
    "project's .onlooker/config.yaml:\n  scoring:\n    model: anthropic:claude-haiku-4-5\n"
    "(any model onlooker takes: openai:…, anthropic:…, ollama:…, local:…)."
)
