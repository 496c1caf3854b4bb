"""The next-turn injection: the open observations summary, delivered only when it changed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.runtime.next_turn import (
    format_observations_summary,
    next_turn_observations,
    observations_injection,
)
from onlooker.store import ObservationsTool, Store


def obs(observer: str, severity: str, content: str) -> dict[str, Any]:
    return {"observer": observer, "severity": severity, "content": content}


def listed(observer: str, severity: str, content: str) -> dict[str, Any]:
    """An observation as the summary gets it: with its id."""
    return {**obs(observer, severity, content), "id": f"{content}0123456789abcdef"}


def test_the_summary_text_line_for_line() -> None:
    result = {
        "count": 6,
        "by_severity": {"critical": 1, "high": 4, "low": 1},
        "observations": [
            listed("Security Reviewer", "critical", "SQL injection in query builder"),
            listed("Code Quality", "high", "a"),
            listed("Code Quality", "high", "b"),
            listed("Code Quality", "high", "c"),
            listed("Code Quality", "high", "d"),
            listed("Code Quality", "low", "e"),
        ],
    }
    assert format_observations_summary(result) == (
        "Active Observations: 6 open\n"
        "By Severity: critical: 1, high: 4, low: 1\n"
        "\n"
        "**Security Reviewer** (1 observations):\n"
        "  [critical] [id SQL inje] SQL injection in query builder\n"
        "\n"
        "**Code Quality** (5 observations):\n"
        "  [high] [id a0123456] a\n"
        "  [high] [id b0123456] b\n"
        "  [high] [id c0123456] c\n"
        "  ... and 2 more"
    )


def test_the_injection_wraps_the_summary_and_stays_within_the_limit() -> None:
    text = observations_injection("Active Observations: 1 open")
    assert text.startswith("<observations>\nActive Observations: 1 open\n</observations>\n\n")
    clipped = observations_injection("x" * 20_000, limit=500)
    assert len(clipped) <= 500 and "…[clipped]\n</observations>" in clipped


@pytest.fixture
def store(clock: FixedClock) -> Any:
    with Store(clock=clock) as opened:
        yield opened


def add(store: Store, content: str, severity: str = "high") -> str:
    tool = ObservationsTool(store, project="demo")
    request = {"operation": "create_batch", "observations": [obs("Quality", severity, content)]}
    return str(tool(request)["observations"][0]["id"])


def test_delivered_once_then_again_only_when_it_changed(store: Store) -> None:
    def deliver(session: str = "s1") -> str:
        return next_turn_observations(store, project="demo", session_id=session)

    assert deliver() == ""
    first = add(store, "Retry loop in the HTTP client", "critical")
    text = deliver()
    assert re.search(r"  \[critical\] \[id [0-9a-f]{8}\] Retry loop in the HTTP client", text)
    assert text.startswith("<observations>\nActive Observations: 1 open\nBy Severity: critical: 1")
    assert deliver() == ""
    assert deliver("s2") == text  # every session gets it once
    add(store, "Retry loop in the HTTP client", "critical")  # a repeat changes nothing shown
    assert deliver() == ""
    add(store, "No tests for the parser", "medium")
    assert "Active Observations: 2 open" in deliver()
    ObservationsTool(store, project="demo")({"operation": "acknowledge", "observation_id": first})
    assert "Active Observations: 1 open" in deliver()
    store.resolve(store.find_id(add(store, "No tests for the parser", "medium")), project="demo")
    assert deliver() == ""  # nothing open any more
    add(store, "No tests for the parser", "medium")
    assert "Active Observations: 1 open" in deliver()  # open again after an empty spell


def test_what_was_delivered_survives_a_new_process(store: Store, clock: FixedClock) -> None:
    add(store, "Retry loop")
    assert next_turn_observations(store, project="demo", session_id="s1")
    with Store(clock=clock) as again:
        assert next_turn_observations(again, project="demo", session_id="s1") == ""
