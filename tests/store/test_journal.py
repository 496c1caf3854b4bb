"""The journal: one line a record, whole appends, damaged lines skipped with a warning."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from onlooker import Assessment, Finding, ObserverFailure, ToolCall
from onlooker.store import (
    FindingAcknowledged,
    FindingCreated,
    FindingExpired,
    FindingReopened,
    FindingResolved,
    FindingsCleared,
    FindingSeen,
    Journal,
    SummaryDelivered,
)

AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journals" / "demo" / "s1.jsonl", "journals/demo/s1.jsonl")


def every_kind() -> list[object]:
    """One record of each kind a session journal holds, with fixed ids and times."""
    finding = Finding(
        id="f" * 32,
        observer="Security Reviewer",
        content="Found potential SQL injection in query builder",
        category="security",
        severity="critical",
        created_at=AT,
        source_type="file",
        source_ref="src/database/query.py:45",
        metadata={"cwe": "CWE-89"},
        session_id="s1",
        project="demo",
    )
    return [
        ToolCall(session_id="s1", seq=3, at=AT, call_id="toolu_1", tool="Bash",
                 input={"command": "pytest"}, output="1 failed", ok=False, error="exit 1",
                 index=1),
        Assessment(observer_name="stall", summary="Same command three times.", severity="high",
                   findings=(Finding(id="a" * 32, content="pytest ran 3 times", category="loop"),),
                   suggestions=("Read the failure first.",), timestamp=AT, call_index=1),
        ObserverFailure(observer="review", error="ObserverTimeout: ran past its 5s timeout",
                        at=AT, call_index=1, timed_out=True),
        FindingCreated(serial=1, at=AT, finding=finding),
        FindingSeen(serial=2, at=AT, finding_id=finding.id, session_id="s1"),
        FindingAcknowledged(serial=3, at=AT, finding_id=finding.id),
        FindingResolved(serial=4, at=AT, finding_id=finding.id, note="Fixed in commit abc123"),
        FindingsCleared(serial=5, at=AT, project="demo", finding_ids=(finding.id,)),
        SummaryDelivered(serial=6, at=AT, session_id="s1", digest="0" * 32),
        FindingExpired(serial=7, at=AT, finding_id=finding.id, note="the session ended"),
        FindingReopened(serial=8, at=AT, finding_id=finding.id),
    ]  # fmt: skip


def test_every_record_kind_is_one_line_as_in_the_golden_file(
    tmp_path: Path, fixtures: Path
) -> None:
    target = journal(tmp_path)
    records = every_kind()
    target.append(records[:3])
    for record in records[3:]:
        target.append([record])
    golden = fixtures / "store" / "journal.jsonl"
    assert target.path.read_text(encoding="utf-8") == golden.read_text(encoding="utf-8")
    assert [r.kind for r in target] == [r.kind for r in records]  # type: ignore[attr-defined]


def test_the_golden_journal_still_decodes(fixtures: Path) -> None:
    golden = Journal(fixtures / "store" / "journal.jsonl", "golden")
    read = golden.read()
    assert not read.skipped
    assert read.records == every_kind()


def test_append_returns_where_the_records_landed(tmp_path: Path) -> None:
    target = journal(tmp_path)
    first = target.append([FindingAcknowledged(finding_id="a")])
    second = target.append(
        [FindingAcknowledged(finding_id="b"), FindingAcknowledged(finding_id="c")]
    )
    data = target.path.read_bytes()
    assert first == (0, second[0])
    assert second[1] == len(data)
    assert data[second[0] :].count(b"\n") == 2


def test_a_torn_last_line_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    target = journal(tmp_path)
    target.append([FindingAcknowledged(finding_id="a")])
    whole = target.path.read_bytes()
    with open(target.path, "ab") as file:
        file.write(b'{"kind":"finding_acknowledged","finding_id":"torn-in-the-midd')
    read = target.read()
    assert [r.finding_id for r in read.records] == ["a"]  # type: ignore[attr-defined]
    assert read.end == len(whole)  # the unfinished line is not consumed
    assert not read.skipped  # ... nor reported until it is ended

    with caplog.at_level(logging.WARNING, logger="onlooker.store"):
        start, _ = target.append([FindingAcknowledged(finding_id="b")])
        read = target.read()
    assert [r.finding_id for r in read.records] == ["a", "b"]  # type: ignore[attr-defined]
    assert start > len(whole)
    assert len(read.skipped) == 1 and read.skipped[0].line == 2
    assert "s1.jsonl:2: skipped" in caplog.text


def test_garbage_lines_anywhere_are_skipped_never_fatal(tmp_path: Path) -> None:
    target = journal(tmp_path)
    target.append([FindingAcknowledged(finding_id="a")])
    with open(target.path, "ab") as file:
        file.write(b"not json at all\n[1, 2]\n\xff\xfe\n")
        file.write(b'{"kind":"no_such_kind"}\n{"kind":"finding_seen"}\n\n')
    target.append([FindingAcknowledged(finding_id="b")])
    read = target.read()
    assert [r.finding_id for r in read.records] == ["a", "b"]  # type: ignore[attr-defined]
    assert [s.line for s in read.skipped] == [2, 3, 4, 5, 6]


def test_a_missing_journal_reads_as_empty(tmp_path: Path) -> None:
    read = journal(tmp_path).read()
    assert read.entries == () and read.end == 0
    assert journal(tmp_path).size() == 0


def test_reading_only_some_kinds_skips_the_others_undecoded(tmp_path: Path) -> None:
    target = journal(tmp_path)
    records = every_kind()
    target.append(records)
    read = target.read(kinds=frozenset({"finding_resolved", "tool_call"}))
    assert [r.kind for r in read.records] == ["tool_call", "finding_resolved"]  # type: ignore[attr-defined]
