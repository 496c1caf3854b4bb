"""Compliance rules: what an agent of a given type must have done before it may stop (specs/
side-effects.md): artifacts, tool calls, a check command; and how many times it is sent back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store.effect_records import VerdictKind

MAIN = "main"
"""The agent type whose rule applies when the main agent stops (Claude Code's Stop)."""
MAX_RETRIES = 2
CHECK_TIMEOUT = 10.0
MAX_CHECK_TIMEOUT = 15.0
"""A check runs inside the stop hook, which must answer within the hook client's 20 s."""


@dataclass(frozen=True, slots=True)
class Artifact:
    """A file the agent must leave: matching `glob` (relative to the project), written since the
    agent started, at least `min_size` bytes, containing `pattern` when one is given."""

    glob: str
    min_size: int = 1
    pattern: str = ""
    """A regular expression (multi-line) the file must contain."""


@dataclass(frozen=True, slots=True)
class ComplianceRule:
    """What one agent type must have done."""

    agent: str
    artifacts: tuple[Artifact, ...] = ()
    tools: tuple[str, ...] = ()
    """Tool-name patterns each of which some successful call of the agent must match."""
    check: str = ""
    """A shell command run in the project folder; it must exit 0."""
    timeout: float = CHECK_TIMEOUT
    """Seconds the check may take (at most MAX_CHECK_TIMEOUT)."""


@dataclass(frozen=True, slots=True)
class ComplianceSettings:
    """The `compliance` section: rules by agent type and the retry bound."""

    rules: tuple[ComplianceRule, ...] = ()
    max_retries: int = MAX_RETRIES
    """Stops sent back per agent before it is let go (and a high finding recorded)."""

    def rule_for(self, agent_type: str) -> ComplianceRule | None:
        return next((r for r in self.rules if r.agent == agent_type), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_retries": self.max_retries,
            "agents": {
                r.agent: {
                    "artifacts": [
                        {"glob": a.glob, "min_size": a.min_size, "pattern": a.pattern}
                        for a in r.artifacts
                    ],
                    "tools": list(r.tools),
                    "check": r.check,
                    "timeout": r.timeout,
                }
                for r in self.rules
            },
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verifier's answer to one stop."""

    verdict: VerdictKind
    missing: tuple[str, ...] = ()
    attempt: int = 1
    reason: str = field(default="")
    """The block reason to give the agent ('' unless `retry`)."""
