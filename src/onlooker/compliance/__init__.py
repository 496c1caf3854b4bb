"""The compliance verifier: rules per agent type checked when an agent stops; a failing rule
sends the agent back with a reason naming what is missing, a bounded number of times
(specs/side-effects.md)."""

from .rules import (
    CHECK_TIMEOUT,
    MAIN,
    MAX_CHECK_TIMEOUT,
    MAX_RETRIES,
    Artifact,
    ComplianceRule,
    ComplianceSettings,
    Verdict,
)
from .verify import decide, missing

__all__ = [
    "CHECK_TIMEOUT",
    "MAIN",
    "MAX_CHECK_TIMEOUT",
    "MAX_RETRIES",
    "Artifact",
    "ComplianceRule",
    "ComplianceSettings",
    "Verdict",
    "decide",
    "missing",
]
