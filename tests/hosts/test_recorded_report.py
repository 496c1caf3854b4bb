"""A replayed session's report lists each episode once, as the store keeps it: the demo's
episodes (a test loop told at 4 and again at 6 failures, a failure streak growing) are one
finding each, at their newest severity and text, counted once in every total."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from onlooker.hosts.recorded.replay import replay_session
from onlooker.hosts.recorded.report import report_from_transcripts
from onlooker.hosts.recorded.transcripts import read_transcript
from onlooker.report import SessionBuilder
from onlooker.store import FindingQuery, Store, trajectory_findings

DEMO = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "flaky-tests.jsonl"


def stored_as_the_hook_would(home: Path) -> list[tuple[str, str, str, str]]:
    """The demo's assessments stored as a live session stores them: (observer, episode,
    severity, text) of every finding kept."""
    (transcript,) = read_transcript(DEMO).sessions()
    builder = SessionBuilder(transcript.session_id, "taskq", keep_assessments=True)
    replay_session(transcript, None, deadline_minutes=20, on_dispatch=builder.dispatched)
    with Store(home) as store:
        for assessment in builder.assessment_records:
            found = trajectory_findings(assessment, transcript.session_id)
            store.create(found, project="taskq", session_id=transcript.session_id)
        page = store.query(FindingQuery(project="taskq", limit=None))
    return sorted(
        (f.observer, f.source_ref or "", f.severity, f.content)
        for f in (o.finding for o in page.observations)
    )


def test_each_episode_is_listed_once_as_the_store_keeps_it(tmp_path: Path) -> None:
    (project,) = report_from_transcripts([DEMO], deadline_minutes=20).projects
    listed = [(f.observer, f.source_ref) for f in project.open_findings]
    assert len(listed) == len(set(listed)), Counter(listed).most_common(3)
    kept = stored_as_the_hook_would(tmp_path / "home")
    assert sorted((f.observer, f.source_ref, f.severity, f.content)
                  for f in project.open_findings) == kept  # fmt: skip
    stall = next(f for f in project.open_findings if f.observer == "Stall")
    assert stall.severity == "high" and "6 times" in stall.content and stall.occurrences == 2
    assert project.open_total == project.findings_total == len(kept)
    assert sum(project.findings_by_severity.values()) == len(kept)
    assert sum(project.findings_by_observer.values()) == len(kept)
    assert sum(s.findings for s in project.sessions) == len(kept)
    charted = sum(sum(counts) for counts in project.activity.findings_by_observer.values())
    assert charted == len(kept)
