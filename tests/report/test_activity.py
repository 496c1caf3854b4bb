"""Time buckets: a readable number of bars whatever the span."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from onlooker.report import Buckets

START = datetime(2026, 3, 1, 12, 7, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("span", "width"),
    [(timedelta(minutes=18), 60), (timedelta(hours=20), 3600),
     (timedelta(days=40), 86400), (timedelta(days=1000), 30 * 86400)],
)  # fmt: skip
def test_a_span_gets_the_smallest_width_under_sixty_buckets(span: timedelta, width: int) -> None:
    buckets = Buckets(START, START + span)
    assert buckets.width == width and buckets.count <= 61
    assert buckets.origin <= START and buckets.index(START + span) == buckets.count - 1


def test_times_are_counted_in_their_bucket() -> None:
    buckets = Buckets(START, START + timedelta(minutes=5))
    times = [START, START + timedelta(seconds=20), START + timedelta(minutes=4, seconds=50)]
    assert buckets.counts(times) == (2, 0, 0, 0, 0, 1)  # minutes from 12:07
