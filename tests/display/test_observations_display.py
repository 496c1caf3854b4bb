"""The display styles: progress_bar, table, compact; notices on create and resolve; expired
findings shown apart from addressed ones."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from onlooker import ConfigError, Finding, FixedClock
from onlooker.display.observations import (
    DisplayOptions,
    ObservationsDisplay,
    render_text,
    status_counts,
)
from onlooker.store import FindingPage, FindingQuery, ObservationsTool, Store


@pytest.fixture
def store(clock: FixedClock) -> Any:
    with Store(clock=clock) as opened:
        tool = ObservationsTool(opened, project="shop")
        items = [
            ("Security Reviewer", "critical", "SQL injection in query builder"),
            ("Security Reviewer", "high", "Hardcoded token in settings.py"),
            ("Quality", "medium", "No tests for the parser"),
            ("Quality", "low", "Function parse() is 140 lines long"),
        ]
        response = tool(
            {
                "operation": "create_batch",
                "observations": [{"observer": o, "severity": s, "content": c} for o, s, c in items],
            }
        )
        ids = [o["id"] for o in response["observations"]]
        tool({"operation": "acknowledge", "observation_id": ids[1]})
        tool({"operation": "resolve", "observation_id": ids[3], "resolution_note": "split it"})
        yield opened


def counts(store: Store) -> FindingPage:
    return store.query(FindingQuery(project="shop", limit=0))


def test_acknowledgment_counts_by_severity_and_observer(store: Store) -> None:
    page = counts(store)
    assert status_counts(page, "severity") == {
        "critical": {"open": 1, "acknowledged": 0, "resolved": 0, "expired": 0},
        "high": {"open": 0, "acknowledged": 1, "resolved": 0, "expired": 0},
        "medium": {"open": 1, "acknowledged": 0, "resolved": 0, "expired": 0},
        "low": {"open": 0, "acknowledged": 0, "resolved": 1, "expired": 0},
    }
    assert status_counts(page, "observer") == {
        "Quality": {"open": 1, "acknowledged": 0, "resolved": 1, "expired": 0},
        "Security Reviewer": {"open": 1, "acknowledged": 1, "resolved": 0, "expired": 0},
    }


def test_progress_bar_style(store: Store) -> None:
    text = render_text("progress_bar", "shop", counts(store), width=80)
    lines = text.splitlines()
    assert lines[0] == "Observations · shop  " + "█" * 12 + "░" * 12 + "  2/4 addressed"
    assert "critical     ░░░░░░░░░░░░  0/1     1    0         0        0" in lines
    assert "high         ████████████  1/1     0    1         0        0" in lines
    assert any(line.startswith("Security Reviewer  ██████░░░░░░  1/2") for line in lines)


def test_table_style_lists_the_rows_and_ends_with_the_counts(store: Store) -> None:
    rows = store.query(FindingQuery(project="shop", statuses=("open", "acknowledged"), limit=2))
    text = render_text("table", "shop", counts(store), rows.observations, width=120)
    assert "SQL injection in query builder" in text
    assert "Hardcoded token in settings.py" in text
    assert "No tests for the parser" not in text  # beyond the limit ...
    assert "… and 1 more unresolved" in text  # ... and said so
    assert text.rstrip().endswith(
        "shop: 2 open (1 critical, 1 medium) · 1 acknowledged · 1 resolved"
    )


def test_compact_style_is_one_line(store: Store) -> None:
    text = render_text("compact", "shop", counts(store))
    assert text == "shop: 2 open (1 critical, 1 medium) · 1 acknowledged · 1 resolved\n"
    empty = store.query(FindingQuery(project="nothing-here", limit=0))
    assert render_text("compact", "nothing-here", empty) == "nothing-here: no observations\n"
    assert render_text("progress_bar", "nothing-here", empty).endswith("0/0 addressed\n")


def test_notices_on_create_and_resolve_follow_the_options(store: Store) -> None:
    [critical] = store.query(FindingQuery(project="shop", severities=("critical",))).observations
    fresh = Finding(observer="Quality", content="Unused import os", severity="low")
    created = store.create([critical.finding, fresh], project="shop")  # one repeat, one new
    resolved = store.resolve(created[1].observation.id, "done", project="shop")

    def shown(options: DisplayOptions) -> str:
        out = io.StringIO()
        display = ObservationsDisplay(options, Console(file=out, width=100, color_system=None))
        display.created(created)
        display.resolved(resolved)
        return out.getvalue()

    assert shown(DisplayOptions()).splitlines() == [
        "+ 1 new observation, 1 seen again",
        "  [critical] Security Reviewer: SQL injection in query builder (×2)",
        "  [low] Quality: Unused import os",
        "✓ resolved [low] Quality: Unused import os — done",
    ]
    assert shown(DisplayOptions(show_on_create=False, show_on_resolve=False)) == ""


def test_an_unknown_style_is_a_config_error_naming_the_field() -> None:
    with pytest.raises(ConfigError, match=r"display\.style: 'fancy' is not one of: progress_bar"):
        DisplayOptions(style="fancy")


def test_expired_findings_are_counted_apart_and_never_as_addressed(store: Store) -> None:
    [medium] = store.query(FindingQuery(project="shop", severities=("medium",))).observations
    assert store.expire({medium.id: "the session ended"}, project="shop") == (medium.id,)
    page = counts(store)
    assert status_counts(page, "severity")["medium"] == {
        "open": 0, "acknowledged": 0, "resolved": 0, "expired": 1
    }  # fmt: skip
    head = render_text("progress_bar", "shop", page, width=100).splitlines()[0]
    assert head.endswith("2/4 addressed · 1 expired unaddressed")
    assert render_text("compact", "shop", page) == (
        "shop: 1 open (1 critical) · 1 acknowledged · 1 resolved · 1 expired\n"
    )
    rows = store.query(FindingQuery(project="shop", statuses=("open", "acknowledged")))
    table = render_text("table", "shop", page, rows.observations, width=120)
    assert "No tests for the parser" not in table and "more unresolved" not in table
