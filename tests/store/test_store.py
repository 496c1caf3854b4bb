"""The store: findings with a lifecycle, dedup, journals per session, snapshots, the engine hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onlooker import (
    Assessment,
    Engine,
    Finding,
    FixedClock,
    ObserverContext,
    Session,
    SessionStarted,
    ToolCall,
    observer,
)
from onlooker.runtime.recording import record_dispatch
from onlooker.store import FindingAcknowledged, FindingQuery, Store, StoreError, UnknownFinding


def finding(content: str = "SQL injection in query builder", **fields: object) -> Finding:
    return Finding(content=content, observer=str(fields.pop("observer", "Security")), **fields)  # type: ignore[arg-type]


def kinds(path: Path) -> list[str]:
    return [json.loads(line)["kind"] for line in path.read_text().splitlines()]


def test_created_findings_are_open_with_their_project_session_and_time(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        created = store.create([finding(severity="high")], project="demo", session_id="s1")
        stored = created[0].observation
        assert created[0].new
        assert stored.finding.status == "open"
        assert (stored.finding.project, stored.finding.session_id) == ("demo", "s1")
        assert stored.finding.created_at == clock.now() == stored.last_seen_at
        assert stored.occurrences == 1
        assert store.get([stored.id]) == [stored]


def test_an_equal_unresolved_finding_counts_an_occurrence(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        first = store.create([finding("Retry loop at line 12", source_ref="a.py")], project="p")
        clock.advance(60)
        again = store.create(
            [finding("  retry LOOP at line 13. ", source_ref="a.py")], project="p", session_id="s2"
        )
        assert not again[0].new
        assert again[0].observation.id == first[0].observation.id
        assert again[0].observation.occurrences == 2
        assert again[0].observation.last_seen_at == clock.now()
        store.acknowledge(first[0].observation.id, project="p")
        assert not store.create([finding("retry loop at line 9", source_ref="a.py")], project="p")[
            0
        ].new


def test_what_makes_findings_different(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        base = store.create([finding(source_ref="a.py:1")], project="p")[0].observation
        others = [
            finding(source_ref="a.py:2"),
            finding(source_ref="a.py:1", observer="Quality"),
            finding("Another problem entirely", source_ref="a.py:1"),
        ]
        assert all(c.new for c in store.create(others, project="p"))
        assert store.create([finding(source_ref="a.py:1")], project="elsewhere")[0].new
        store.resolve(base.id, project="p")
        assert store.create([finding(source_ref="a.py:1")], project="p")[0].new


def test_duplicates_inside_one_batch_collapse(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        created = store.create([finding(), finding(), finding("other")], project="p")
        assert [c.new for c in created] == [True, False, True]
        assert created[1].observation.occurrences == 2
        assert store.query(FindingQuery(project="p")).count == 2


def test_lifecycle_acknowledge_resolve_clear(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        one, two = (
            c.observation.id for c in store.create([finding("a"), finding("b")], project="p")
        )
        clock.advance(5)
        acked = store.acknowledge(one, project="p")
        assert acked.finding.status == "acknowledged"
        assert acked.finding.acknowledged_at == clock.now()
        clock.advance(5)
        resolved = store.resolve(one, "Fixed in commit abc123", project="p")
        assert resolved.finding.status == "resolved"
        assert resolved.finding.resolution_note == "Fixed in commit abc123"
        assert resolved.finding.acknowledged_at is not None
        assert store.resolve(one, "again", project="p") == resolved  # unchanged
        assert store.clear_resolved(project="p") == (one,)
        assert [o.id for o in store.query(FindingQuery(project="p")).observations] == [two]
        assert store.clear_resolved(project="p") == ()


def test_changes_go_to_the_acting_sessions_journal_or_the_manual_one(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        made = store.create([finding()], project="p", session_id="s1")[0].observation
        store.acknowledge(made.id, project="p", session_id="s2")
        store.resolve(made.id, "done", project="p")
        home = store.home / "journals" / "p"
        assert kinds(home / "s1.jsonl") == ["finding_created"]
        assert kinds(home / "s2.jsonl") == ["finding_acknowledged"]
        assert kinds(home / "_manual.jsonl") == ["finding_resolved"]


def test_ids_can_be_shortened_to_a_unique_prefix(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        made = store.create([finding(id="abcd1234" + "0" * 24)], project="p")[0].observation
        store.create([finding("x", id="abcd9999" + "0" * 24)], project="p")
        assert store.find_id("abcd1", "p") == made.id
        assert store.find_id(made.id, "p") == made.id
        for bad in ("abcd", "abc", "zzzz"):
            with pytest.raises(UnknownFinding, match=repr(bad)):
                store.find_id(bad, "p")


def test_a_change_journaled_by_a_writer_that_died_before_commit_is_caught_up(
    clock: FixedClock,
) -> None:
    with Store(clock=clock) as store:
        made = store.create([finding()], project="p", session_id="s1")[0].observation
        # A writer died after its journal append and before its commit:
        store.journal("p", "s1").append(
            [FindingAcknowledged(serial=2, at=clock.now(), finding_id=made.id)]
        )
        assert store.get([made.id])[0].finding.status == "open"
        store.create([finding("next")], project="p", session_id="s1")
        assert store.get([made.id])[0].finding.status == "acknowledged"


def test_full_text_search(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        store.create(
            [
                finding("Hardcoded credentials in settings"),
                finding("Slow query", evidence="SELECT *"),
            ],
            project="p",
        )
        assert [o.finding.content for o in store.search("credentials", "p")] == [
            "Hardcoded credentials in settings"
        ]
        assert store.search("select", "p")[0].finding.content == "Slow query"
        assert store.search('"quote (unbalanced', "p") == []
        made = store.search("slow", "p")[0]
        store.resolve(made.id, "added an index on orders", project="p")
        assert store.search("orders index", "p")[0].id == made.id


def test_sessions_resume_from_their_snapshot_plus_newer_journaled_events(
    clock: FixedClock,
) -> None:
    with Store(clock=clock) as store:
        session = Session("s1")
        session.append(SessionStarted(cwd="/work/demo", project="demo"))
        session.append(ToolCall(tool="Bash", input={"command": "ls"}))
        store.save_session(session, project="demo")
        later = ToolCall(session_id="s1", seq=3, tool="Read", input={"file_path": "a.py"}, index=2)
        store.append([later], project="demo", session_id="s1")

    with Store(clock=clock) as store:
        resumed = store.load_session("s1")
        assert resumed is not None
        assert resumed.seq == 3 and resumed.tool_call_count == 2
        latest = resumed[ToolCall].latest()
        assert latest is not None and latest.tool == "Read"
        assert store.load_session("nobody") is None


def test_a_session_journaled_but_never_saved_is_rebuilt_from_its_journal(
    clock: FixedClock,
) -> None:
    """A hook service killed before the session's first checkpoint left only the journal."""
    events = [
        SessionStarted(session_id="s2", seq=1, cwd="/work/demo", project="demo"),
        ToolCall(session_id="s2", seq=2, tool="Bash", input={"command": "ls"}, index=1),
        ToolCall(session_id="s2", seq=3, tool="Bash", input={"command": "ls"}, index=2),
    ]
    with Store(clock=clock) as store:
        store.append(events, project="demo", session_id="s2")

    with Store(clock=clock) as store:
        resumed = store.load_session("s2")
        assert resumed is not None
        assert resumed.seq == 3 and resumed.tool_call_count == 2
        assert resumed[SessionStarted].latest() is not None
        assert store.load_session("s3") is None


def test_the_engine_reads_open_findings_and_dispatches_are_stored(clock: FixedClock) -> None:
    seen: list[tuple[str, ...]] = []

    @observer(name="loops")
    def loops(ctx: ObserverContext) -> Assessment | None:
        seen.append(tuple(f.content for f in ctx.findings))
        return Assessment(summary="Bash ran 3 times in a row.", severity="high")

    with Store(clock=clock) as store:
        engine = Engine(
            [loops], session=Session("s1"), clock=clock, findings=store.findings_for("demo")
        )
        for _ in range(2):
            dispatch = engine.dispatch(ToolCall(tool="Bash", input={"command": "pytest"}))
            record_dispatch(store, dispatch, project="demo")
        assert seen == [(), ("Bash ran 3 times in a row.",)]
        stored = store.query(FindingQuery(project="demo")).observations
        assert len(stored) == 1 and stored[0].occurrences == 2
        assert stored[0].finding.observer == "loops"
        assert stored[0].finding.severity == "high"
        assert stored[0].finding.metadata["call_index"] == 2  # the episode's latest report
        journal = store.home / "journals" / "demo" / "s1.jsonl"
        assert kinds(journal) == [
            "tool_call", "assessment", "finding_created", "tool_call", "assessment", "finding_seen",
        ]  # fmt: skip


def test_metadata_json_cannot_hold_is_kept_as_text(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        odd = finding(metadata={"path": Path("a.py"), "when": clock.now(), "n": 3})
        [made] = store.create([odd], project="p")
        assert made.observation.finding.metadata == {
            "path": "a.py", "when": "2026-01-01 00:00:00+00:00", "n": 3,
        }  # fmt: skip


def test_an_unwritable_journal_is_a_store_error_naming_it(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        store.journal("p", "s1").path.parent.mkdir(parents=True)
        store.journal("p", "s1").path.mkdir()  # a folder where the journal should be
        with pytest.raises(StoreError, match=r"s1\.jsonl: cannot (read|open) the journal"):
            store.create([finding()], project="p", session_id="s1")
        assert store.query(FindingQuery(project="p")).count == 0  # rolled back


def test_the_same_finding_value_stored_again_after_resolving_gets_a_new_id(
    clock: FixedClock,
) -> None:
    with Store(clock=clock) as store:
        value = finding()
        [first] = store.create([value], project="p")
        store.resolve(first.observation.id, project="p")
        [second] = store.create([value], project="p")
        assert second.new and second.observation.id != first.observation.id
        assert store.get([first.observation.id])[0].finding.status == "resolved"


def test_a_resolution_note_is_redacted_before_it_is_stored(clock: FixedClock) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4
    with Store(clock=clock) as store:
        (created,) = store.create([finding("a")], project="p")
        resolved = store.resolve(created.observation.id, f"rotated {key}", project="p")
        assert resolved.finding.resolution_note == "rotated [REDACTED:anthropic_key]"
        journals = "".join(p.read_text() for p in store.home.rglob("*.jsonl"))
        assert key[:20] not in journals
