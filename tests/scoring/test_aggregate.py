"""Aggregation: similarity matching, recurring patterns, the trend sparkline and arrow."""

from __future__ import annotations

from onlooker.scoring import sparkline, trend_arrow, weakness_similarity
from onlooker.scoring.aggregate import patterns


def test_similarity_is_exact_then_substring_then_word_overlap() -> None:
    assert weakness_similarity("Runs no tests.", "runs  no tests") == 1.0
    assert weakness_similarity("runs no tests", "often runs no tests after edits") == 0.9
    assert weakness_similarity("skips the tests after edits", "skips tests after edits") == 0.8
    assert weakness_similarity("verbose answers", "runs no tests") == 0.0


def test_patterns_count_sessions_once_and_rank_by_count() -> None:
    found = patterns([
        ("a", ["runs no tests", "often runs no tests"]),
        ("b", ["Runs no tests."]),
        ("c", ["verbose answers"]),
    ])  # fmt: skip
    assert [(p.pattern, p.count) for p in found] == [("runs no tests", 2), ("verbose answers", 1)]


def test_sparkline_and_trend_cover_the_last_seven() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert len(sparkline([0.5] * 20)) == 7
    assert trend_arrow([0.2, 0.3, 0.8, 0.9]) == "↑"
    assert trend_arrow([0.9, 0.8, 0.3]) == "↓"
    assert trend_arrow([0.5, 0.5]) == "→"
