"""Timestamps as onlooker reads them: ISO 8601, always UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from onlooker.core.clock import parse_time


def test_parses_claude_code_timestamps_as_utc() -> None:
    assert parse_time("2026-02-12T16:02:25Z") == datetime(2026, 2, 12, 16, 2, 25, tzinfo=UTC)
    assert parse_time("2026-02-12T18:02:25+02:00") == datetime(2026, 2, 12, 16, 2, 25, tzinfo=UTC)


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_time_out_of_range_in_utc_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="out of range"):
        parse_time(text)
