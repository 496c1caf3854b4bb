"""Deadline: time left until the session's deadline, every 30 s; a warning in the last 2 minutes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..core.assessment import Assessment, Severity
from ..core.observer import ObserverContext
from ..core.triggers import Trigger


@dataclass(frozen=True, slots=True)
class DeadlineObserver:
    """Report remaining time until the deadline; warn under `warning_threshold_seconds`."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""

    warning_threshold_seconds: float = 120
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_seconds=30))

    @property
    def name(self) -> str:
        return "Deadline"

    def should_run(self, ctx: ObserverContext) -> bool:
        return ctx.deadline is not None

    def observe(self, ctx: ObserverContext) -> Assessment:
        if ctx.deadline is None:
            return Assessment(observer_name=self.name, summary="No deadline configured.")
        remaining = ctx.deadline.remaining().total_seconds()
        if remaining <= 0:
            return Assessment(
                observer_name=self.name,
                summary="You have reached the time deadline.",
                suggestions=("Wrap up immediately.",),
                severity="high",
            )
        summary = f"You have {format_duration(remaining)} remaining."
        suggestions: tuple[str, ...] = ()
        level: Severity = "info"
        if remaining <= self.warning_threshold_seconds:
            level = "high"
            suggestions = (
                "Prioritize completing critical remaining work.",
                "Consider summarizing progress and remaining tasks.",
            )
        return Assessment(
            observer_name=self.name, summary=summary, suggestions=suggestions, severity=level
        )


def format_duration(seconds: float) -> str:
    """A duration as the agent reads it: `90 seconds`, `8 minutes`, `1.5 hours`.

    Under two minutes the count stays in seconds ("You have 90 seconds remaining.", not
    "1 minute"): near the deadline, every second counts.
    """
    if seconds < 120:
        return f"{int(seconds)} seconds"
    if seconds < 3600:
        minutes = int(seconds / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds / 3600:.1f} hours"
