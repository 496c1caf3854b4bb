"""Time as a dependency: observers, triggers and the engine read the clock they are given.

Tests and replays pass a `FixedClock` or `ReplayClock`; nothing in onlooker sleeps on a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Anything that tells the current UTC time."""

    def now(self) -> datetime: ...


@dataclass(frozen=True, slots=True)
class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass(slots=True)
class FixedClock:
    """A clock that only moves when told to: `advance(seconds=30)`."""

    current: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float = 0.0, *, minutes: float = 0.0) -> datetime:
        self.current += timedelta(seconds=seconds, minutes=minutes)
        return self.current

    def set(self, when: datetime) -> None:
        self.current = when


@dataclass(slots=True)
class ReplayClock:
    """Follows the timestamps of replayed events, never going backwards."""

    current: datetime = field(default_factory=lambda: datetime(1970, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.current

    def follow(self, when: datetime) -> None:
        if when > self.current:
            self.current = when


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point in time the agent must finish by, read against a clock."""

    expires_at: datetime
    clock: Clock = field(default_factory=SystemClock, compare=False)

    def remaining(self) -> timedelta:
        return self.expires_at - self.clock.now()


def utc(when: datetime) -> datetime:
    """The same instant as an aware UTC datetime (naive input is taken as UTC)."""
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """Parse an ISO 8601 timestamp such as Claude Code's `2026-02-12T16:02:25.284Z`; ValueError
    when it is not one or falls outside years 1 to 9999 in UTC."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    try:
        return utc(parsed)
    except OverflowError:
        raise ValueError(f"{text!r} is out of range in UTC (years 1 to 9999)") from None
