"""The report of a real data home: counts, timelines, reviewer costs, filters, and HTML that keeps
agent text as text."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from report_data import HOSTILE, START, session

from onlooker import FixedClock
from onlooker.report import MemoryCounts, render_html, report_from_store, scores_section
from onlooker.store import FindingQuery, Store, project_for


def test_a_project_s_sessions_findings_and_reviewer_runs_are_counted(filled_store: Store) -> None:
    report = report_from_store(filled_store)
    (shop,) = report.projects
    assert shop.name == "shop"
    assert [s.session_id for s in shop.sessions] == ["s-new", "s-old"]  # newest first
    new = shop.sessions[0]
    assert (new.tool_calls, new.failed_calls, new.assessments, new.warnings) == (6, 2, 1, 1)
    assert new.agent == "coder" and new.findings == 2
    assert shop.findings_total == 4 and shop.open_total == 4
    assert shop.findings_by_severity == {"high": 2, "low": 2}
    (reviewer,) = shop.reviewers
    assert (reviewer.observer, reviewer.runs, reviewer.input_tokens) == (
        "Security Reviewer",
        1,
        1200,
    )
    assert reviewer.cost_usd == pytest.approx(0.0003)
    assert sum(shop.activity.tool_calls) == 10 and sum(shop.activity.warnings) == 2
    assert sum(map(sum, shop.activity.findings_by_observer.values())) == 4


def test_the_timeline_says_where_each_assessment_was_delivered(filled_store: Store) -> None:
    (shop,) = report_from_store(filled_store).projects
    labels = [(e.kind, e.label) for e in shop.sessions[0].timeline]
    assert ("tool", "call 3 · Bash failed") in labels
    assert ("assessment", "stall · after call 6 · Bash") in labels
    assert ("report", "Security Reviewer · ok, not delivered yet") in labels
    stall = next(e for e in shop.sessions[0].timeline if e.kind == "assessment")
    assert stall.text.startswith("[Trajectory Assessment - stall]") and stall.severity == "high"
    assert len(shop.sessions[0].tool_times) == 6


def test_since_and_project_narrow_the_report(filled_store: Store) -> None:
    (shop,) = report_from_store(filled_store, since=START + timedelta(hours=12)).projects
    assert [s.session_id for s in shop.sessions] == ["s-new"]
    assert shop.findings_total == 2
    assert report_from_store(filled_store, project="elsewhere").projects == ()


def test_only_the_newest_sessions_keep_a_timeline(filled_store: Store) -> None:
    report = report_from_store(filled_store, detailed=1)
    (shop,) = report.projects
    assert shop.sessions[0].timeline and not shop.sessions[1].timeline
    assert any("timelines of the 1 most recently active sessions of 2" in n for n in report.notes)


def test_agent_text_stays_text_in_the_page(filled_store: Store) -> None:
    html = render_html(report_from_store(filled_store))
    assert HOSTILE not in html
    assert "&lt;script&gt;console.error(&#34;xss&#34;)&lt;/script&gt;" in html
    assert html.count("<script>") == 1  # the page's own, allowed by its hash in the CSP
    assert "default-src 'none'" in html and "http://" not in html.replace("&#34;http://", "")


def test_memory_counts_come_from_the_store(filled_store: Store) -> None:
    (shop,) = report_from_store(filled_store).projects
    assert shop.memory == MemoryCounts(memories=2, new_since=2, pending_events=1, injections=1)
    (later,) = report_from_store(filled_store, since=START + timedelta(hours=12)).projects
    assert later.memory == MemoryCounts(memories=2, new_since=2, pending_events=1, injections=1)
    html = render_html(report_from_store(filled_store))
    assert "memories<b>2</b>" in html and "2 new, 1 shown, 1 pending" in html


def test_scores_per_agent_carry_the_improvement_markers(filled_store: Store) -> None:
    section = report_from_store(filled_store).scores
    assert [a.agent for a in section.agents] == ["coder", "reviewer"]
    coder, reviewer = section.agents
    assert [(p.session_id, p.overall_score) for p in coder.points] == [
        ("s-old", 0.55),
        ("s-new", 0.825),
    ]
    assert [p.session_id for p in reviewer.points] == ["r-1", "r-2"]
    applied, delta = coder.points[1].markers
    assert (applied.kind, delta.kind, delta.delta) == ("applied", "delta", 0.15)
    assert applied.label.startswith("instructions: Run one test first")
    assert [m.kind for m in reviewer.points[1].markers] == ["rolled_back"]
    assert not coder.points[0].markers and not reviewer.points[0].markers
    html = render_html(report_from_store(filled_store))
    assert "No scores yet." not in html and 'data-chart="scores"' in html
    assert "▲" in html and "▼" in html and "(+0.15)" in html and HOSTILE not in html


def test_since_narrows_the_scores_and_an_empty_store_has_none(
    filled_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = report_from_store(filled_store, since=START + timedelta(days=1)).scores
    assert [[p.session_id for p in a.points] for a in later.agents] == [["s-new"], ["r-2"]]
    monkeypatch.delenv("ONLOOKER_STORE_URL", raising=False)  # a data home of its own: empty
    with Store(tmp_path / "empty") as empty:
        assert "No scores yet." in render_html(report_from_store(empty))


def test_a_score_with_an_unknown_marker_kind_is_refused_naming_the_field() -> None:
    bad = {"session_id": "s", "timestamp": "2026-03-01T12:30:00Z", "overall_score": 0.5,
           "markers": [{"kind": "improved"}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"markers.kind 'improved'"):
        scores_section([bad])


def test_two_folders_of_one_name_are_two_projects_shown_by_their_name(tmp_path: Path) -> None:
    store = Store(tmp_path / "home", clock=FixedClock(START + timedelta(days=2)))
    keys = [project_for(tmp_path / where / "api") for where in ("a", "b")]
    for n, key in enumerate(keys):
        store.append(session(f"s{n}", START, 2, set()), project=key, session_id=f"s{n}")
    report = report_from_store(store)
    assert sorted(p.key for p in report.projects) == sorted(keys)
    assert [p.name for p in report.projects] == ["api", "api"]
    assert all(p.key in render_html(report) for p in report.projects)


def test_expired_findings_are_not_reported_as_addressed(filled_store: Store) -> None:
    (shop,) = report_from_store(filled_store).projects
    page = filled_store.query(FindingQuery(project=shop.key))
    first, second = (o.id for o in page.observations[:2])
    filled_store.expire({first: "the session ended"}, project=shop.key)
    filled_store.resolve(second, "fixed the query", project=shop.key)
    (shop,) = report_from_store(filled_store).projects
    assert (shop.open_total, shop.expired, shop.resolved) == (2, 1, 1)
    html = render_html(report_from_store(filled_store))
    assert "of 4: 1 resolved, 1 expired" in html
    assert 'data-expired="1"' in html and "with nobody acting on them (not resolved)" in html
