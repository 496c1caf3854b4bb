"""What a trajectory Assessment becomes in the store."""

from __future__ import annotations

from datetime import UTC, datetime

from onlooker import Assessment, Finding
from onlooker.core.message import summary_finding
from onlooker.store import trajectory_findings

AT = datetime(2026, 1, 1, tzinfo=UTC)


def test_info_and_status_lines_are_never_stored() -> None:
    assessment = Assessment(observer_name="stall", summary="All fine.", severity="info")
    assert trajectory_findings(assessment, "s1") == []
    status = Assessment(observer_name="Deadline", summary="Overdue.", severity="high", status=True)
    assert trajectory_findings(status, "s1") == []


def test_a_low_assessment_is_stored_under_the_id_its_message_shows() -> None:
    assessment = Assessment(observer_name="stall", summary="Once undone.", severity="low")
    [stored] = trajectory_findings(assessment, "s1")
    assert stored.severity == "low" and stored.id == summary_finding(assessment).id


def test_an_assessment_without_findings_stores_its_summary() -> None:
    assessment = Assessment(
        observer_name="deadline", summary="10 minutes left.", severity="high",
        suggestions=("Wrap up.",), call_index=7, timestamp=AT,
    )  # fmt: skip
    [stored] = trajectory_findings(assessment, "s1")
    assert (stored.observer, stored.content, stored.severity) == (
        "deadline",
        "10 minutes left.",
        "high",
    )
    assert (stored.source_type, stored.source_ref, stored.session_id) == (
        "conversation",
        "episode s1/deadline",  # the session's episode: its later reports update this finding
        "s1",
    )
    assert stored.created_at == AT
    assert stored.metadata == {"call_index": 7, "suggestions": ["Wrap up."]}


def test_findings_at_info_take_the_assessments_severity_and_low_ones_are_kept() -> None:
    assessment = Assessment(
        observer_name="cascade",
        summary="Errors pile up.",
        severity="medium",
        findings=(
            Finding(content="3 of the last 5 calls failed", category="error_rate"),
            Finding(content="a critical one", severity="critical", metadata={"tool": "Bash"}),
            Finding(content="a low one", severity="low"),
        ),
    )
    stored = trajectory_findings(assessment)
    assert [(f.content, f.severity) for f in stored] == [
        ("3 of the last 5 calls failed", "medium"),
        ("a critical one", "critical"),
        ("a low one", "low"),  # told to the agent, so kept with an id
    ]
    assert stored[0].category == "error_rate"
    assert stored[1].metadata == {"call_index": 0, "tool": "Bash"}
    assert stored[0].created_at is None  # no timestamp: the store stamps it
