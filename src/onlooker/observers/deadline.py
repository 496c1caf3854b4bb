"""Deadline: a status line with the time left, at thresholds of the session's time (half, 75 %,
90 %, overdue), computed from the clock when it is said; never a finding (specs/observers.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

from ..core.assessment import Assessment
from ..core.events import EPOCH
from ..core.observer import ObserverContext
from ..core.session import SessionInfo
from ..core.triggers import Trigger

THRESHOLDS = (0.5, 0.75, 0.9, 1.0)


@dataclass(frozen=True, slots=True)
class DeadlineObserver:
    """Tell the time left when the session crosses a share of its time (or, given a trigger with
    `every_n_seconds`, each time that trigger fires)."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""
    needs_deadline: ClassVar[bool] = True
    """`should_run` says no while the session has no deadline: the engine does not ask."""

    thresholds: tuple[float, ...] = THRESHOLDS
    """Shares of the session's time (start to deadline) at which the time left is told; 1.0 is
    the deadline itself (overdue)."""
    warning_threshold_seconds: float = 120
    """Under this much time left, the line adds that the remaining work is best wrapped up."""
    trigger: Trigger = field(default_factory=lambda: Trigger.on("tool_call", "user_prompt"))
    """Tool calls and prompts: where every host can deliver, so the time told is the time then."""

    def __post_init__(self) -> None:
        shares = tuple(float(share) for share in self.thresholds)
        if not shares or list(shares) != sorted(set(shares)) or shares[0] <= 0:
            raise ValueError(f"thresholds must be increasing shares above 0, got {self.thresholds}")
        object.__setattr__(self, "thresholds", shares)

    @property
    def name(self) -> str:
        return "Deadline"

    def should_run(self, ctx: ObserverContext) -> bool:
        return ctx.deadline is not None

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        if ctx.deadline is None:
            return None
        info = ctx.session[SessionInfo].latest()
        began = info.began if info is not None and info.began > EPOCH else None
        deadline, now = ctx.deadline.expires_at, ctx.now
        if self.trigger.every_n_seconds is None:
            crossed = self._crossed(began, deadline, now)
            if crossed is None:
                return None
            told = self._told(ctx, began, deadline)
            if told is not None and crossed <= told:
                return None
        return self._status(deadline, now, began)

    def _crossed(self, began: datetime | None, deadline: datetime, when: datetime) -> float | None:
        """The highest threshold crossed at `when`. Without a known start (a deadline handed to
        the engine), the last `warning_threshold_seconds` count as the last share before 1."""
        left = (deadline - when).total_seconds()
        if began is None:
            if left <= 0:
                return 1.0
            return 0.99 if left <= self.warning_threshold_seconds else None
        total = (deadline - began).total_seconds()
        used = 1 - left / total if total > 0 else 1.0
        crossed = [share for share in self.thresholds if used >= share]
        return crossed[-1] if crossed else None

    def _told(
        self, ctx: ObserverContext, began: datetime | None, deadline: datetime
    ) -> float | None:
        """The threshold last told (from this observer's newest status in the session)."""
        for assessment in ctx.session[Assessment].newest_first():
            if assessment.observer_name == ctx.observer_name:
                return self._crossed(began, deadline, assessment.timestamp)
        return None

    def _status(self, deadline: datetime, now: datetime, began: datetime | None) -> Assessment:
        remaining = (deadline - now).total_seconds()
        if remaining <= 0:
            over = format_duration(-remaining) if remaining < 0 else "0 seconds"
            return Assessment(
                observer_name=self.name,
                summary=f"The deadline has passed: overdue by {over}.",
                severity="high",
                status=True,
            )
        summary = f"{format_duration(remaining)} remaining"
        if began is not None:
            total = (deadline - began).total_seconds()
            if total > 0:
                summary += f" ({1 - remaining / total:.0%} of the time used)"
        urgent = remaining <= self.warning_threshold_seconds
        suffix = " The remaining work is best wrapped up." if urgent else ""
        return Assessment(
            observer_name=self.name,
            summary=f"{summary}.{suffix}",
            severity="high" if urgent else "info",
            status=True,
        )


def format_duration(seconds: float) -> str:
    """A duration as the agent reads it: `90 seconds`, `8 minutes`, `1.5 hours`.

    Under two minutes the count stays in seconds ("90 seconds remaining", not "1 minute"): near
    the deadline, every second counts.
    """
    if seconds < 120:
        return f"{int(seconds)} seconds"
    if seconds < 3600:
        minutes = int(seconds / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds / 3600:.1f} hours"
