"""A reviewer observer's configuration: seed 000's ObserverConfig, field for field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..watch import WatchTarget


@dataclass(frozen=True, slots=True)
class ReviewerConfig:
    name: str
    """Display name; findings carry it as their observer."""
    role: str
    """One line: what this reviewer is."""
    focus: str
    """What to look for, in detail."""
    model: str
    """A model string, e.g. `openai:gpt-4o-mini` or `local:smollm2`."""
    watch: tuple[WatchTarget, ...]
    timeout: float = 30.0
    enabled: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)
