"""Counts over time: a bucket width that gives a chart a readable number of bars, and the series
of tool calls, warnings and findings (by severity, by observer) in those buckets.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from ..core.assessment import SEVERITIES
from .model import Activity

WIDTHS = (60, 300, 900, 3600, 3 * 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400)
"""Bucket widths in seconds, from a minute to a month."""
MAX_BUCKETS = 60


def bucket_width(start: datetime, end: datetime) -> int:
    """The smallest width that splits start..end into at most MAX_BUCKETS buckets."""
    span = max((end - start).total_seconds(), 1.0)
    return next((w for w in WIDTHS if span / w < MAX_BUCKETS), WIDTHS[-1])


def origin_of(start: datetime, width: int) -> datetime:
    """`start` rounded down to a multiple of `width` since the epoch (UTC)."""
    seconds = int(start.timestamp()) // width * width
    return datetime.fromtimestamp(seconds, UTC)


class Buckets:
    """The buckets of one chart's time axis: which bucket a time falls in, and their starts."""

    def __init__(self, start: datetime, end: datetime) -> None:
        self.width = bucket_width(start, end)
        self.origin = origin_of(start, self.width)
        self.count = int((end - self.origin).total_seconds()) // self.width + 1

    def index(self, at: datetime) -> int:
        number = int((at - self.origin).total_seconds()) // self.width
        return min(max(number, 0), self.count - 1)

    def counts(self, times: Iterable[datetime]) -> tuple[int, ...]:
        found = [0] * self.count
        for at in times:
            found[self.index(at)] += 1
        return tuple(found)

    def starts(self) -> tuple[datetime, ...]:
        return tuple(self.origin + timedelta(seconds=i * self.width) for i in range(self.count))


def activity(
    buckets: Buckets,
    tool_times: Iterable[datetime],
    warning_times: Iterable[datetime],
    findings: Iterable[tuple[int, str, str, int]],
) -> Activity:
    """The series of one project; `findings` are (bucket, observer, severity, count)."""
    by_severity: dict[str, list[int]] = {}
    by_observer: dict[str, list[int]] = {}
    for number, observer, severity, n in findings:
        number = min(max(number, 0), buckets.count - 1)
        by_severity.setdefault(severity, [0] * buckets.count)[number] += n
        by_observer.setdefault(observer, [0] * buckets.count)[number] += n
    ranked: dict[str, tuple[int, ...]] = {
        s: tuple(by_severity[s]) for s in SEVERITIES if s in by_severity
    }
    return Activity(
        starts=buckets.starts(),
        width_seconds=buckets.width,
        tool_calls=buckets.counts(tool_times),
        warnings=buckets.counts(warning_times),
        findings_by_severity=ranked,
        findings_by_observer={o: tuple(v) for o, v in sorted(by_observer.items())},
    )
