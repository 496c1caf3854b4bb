"""Reindex: the index is rebuilt from the journals with every finding as it was."""

from __future__ import annotations

from pathlib import Path

from onlooker import Finding, FixedClock, Session, SessionStarted, ToolCall
from onlooker.runtime import reindex, remove_index
from onlooker.runtime.next_turn import next_turn_observations
from onlooker.store import FindingQuery, ObservationsTool, Store


def busy_history(store: Store, clock: FixedClock) -> None:
    """Findings in two projects, from sessions and from the command line, in every state
    (expired and reopened ones included)."""
    for project in ("shop", "blog"):
        tool = ObservationsTool(store, project=project, session_id=f"{project}-1")
        items = [
            {"observer": "Security", "content": f"Secret in settings {n}", "severity": sev,
             "source_ref": f"settings.py:{n}"}
            for n, sev in enumerate(["critical", "high", "medium", "low", "info", "high"])
        ]  # fmt: skip
        ids = [
            o["id"]
            for o in tool({"operation": "create_batch", "observations": items})["observations"]
        ]
        clock.advance(10)
        tool({"operation": "create_batch", "observations": items[:2]})  # occurrences
        next_turn_observations(store, project=project, session_id=f"{project}-1")
        clock.advance(10)
        manual = ObservationsTool(store, project=project)
        manual({"operation": "acknowledge", "observation_id": ids[0]})
        manual({"operation": "resolve", "observation_id": ids[1], "resolution_note": "rotated"})
        tool({"operation": "acknowledge", "observation_id": ids[2]})
        tool({"operation": "resolve", "observation_id": ids[2], "resolution_note": "moved to env"})
        clock.advance(10)
        other = ObservationsTool(store, project=project, session_id=f"{project}-2")
        other({"operation": "resolve", "observation_id": ids[3]})
        other({"operation": "clear_resolved"})
        other({"operation": "resolve", "observation_id": ids[4], "resolution_note": "kept"})
        (stall,) = store.create([Finding(observer="Stall", content="Same command 3 times")],
                                project=project, session_id=f"{project}-2")  # fmt: skip
        clock.advance(10)  # closed because sessions ended: expired, one of them resumed
        ended = {ids[5]: "the session ended", stall.observation.id: "the session ended"}
        store.expire(ended, project=project, session_id=f"{project}-2")
        store.reopen([stall.observation.id], project=project, session_id=f"{project}-2")


def counts_agree(store: Store) -> bool:
    """The kept counts (finding_counts) equal counting the rows themselves."""
    for project in ("shop", "blog"):
        kept = store.query(FindingQuery(project=project, limit=0)).groups
        ids = tuple(o.id for o in store.query(FindingQuery(project=project)).observations)
        counted = store.query(FindingQuery(project=project, ids=ids, limit=0)).groups
        if sorted(kept) != sorted(counted):
            return False
    return True


def state(store: Store) -> tuple[object, ...]:
    return (
        store.index.table_rows("findings"),
        store.index.table_rows("deliveries"),
        [o.id for o in store.search("settings")],
        store.index.last_serial(),
    )


def test_delete_the_index_and_reindex_gives_identical_findings(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        busy_history(store, clock)
        assert next_turn_observations(store, project="shop", session_id="shop-1")
        assert counts_agree(store)
        before = state(store)
        home = store.home
    assert len(before[0]) == 2 * 4  # type: ignore[arg-type]
    remove_index(home)
    with Store(clock=clock) as store:
        assert store.index.table_rows("findings") == []
        report = reindex(store)
        assert state(store) == before
        assert counts_agree(store)
        assert report.journals == 6 and report.findings == 8 and not report.skipped
        # the delivery memory came back too: nothing new to deliver
        assert next_turn_observations(store, project="shop", session_id="shop-1") == ""


def test_reindex_in_place_gives_identical_findings(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        busy_history(store, clock)
        before = state(store)
        reindex(store)
        assert state(store) == before
        store.create([Finding(observer="x", content="after the reindex")], project="shop")
        assert store.index.last_serial() == before[3] + 1  # type: ignore[operator]


def test_snapshots_are_kept_when_current_and_rebuilt_when_missing(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        session = Session("s1")
        session.append(SessionStarted(cwd="/work/shop", project="shop"))
        for command in ("ls", "pytest"):
            event = session.append(ToolCall(tool="Bash", input={"command": command}))
            store.append([event], project="shop", session_id="s1")
        store.save_session(session, project="shop")
        saved = store.index.table_rows("sessions")
        assert reindex(store).sessions == 0
        assert store.index.table_rows("sessions") == saved
        home = store.home
    remove_index(home)
    with Store(clock=clock) as store:
        assert reindex(store).sessions == 1
        resumed = store.load_session("s1")
        assert resumed is not None and resumed.tool_call_count == 2
        last = resumed[ToolCall].latest()
        assert last is not None and last.input == {"command": "pytest"}


def test_damaged_lines_are_reported_and_the_rest_recovered(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        made = store.create([Finding(observer="x", content="kept")], project="p", session_id="s")
        journal = store.journal("p", "s")
        with open(journal.path, "ab") as file:
            file.write(b"\x00\x00 garbage\n")
        store.acknowledge(made[0].observation.id, project="p", session_id="s")
        with open(journal.path, "ab") as file:
            file.write(b'{"kind":"finding_resolved","serial":9,"finding_id":"')
        report = reindex(store)
        assert [s.line for s in report.skipped] == [2]  # the torn tail is not a whole line yet
        [kept] = store.get([made[0].observation.id])
        assert kept.finding.status == "acknowledged"


def test_reindex_finds_journals_only_under_the_data_home(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path / "a", clock=clock) as a, Store(tmp_path / "b", clock=clock) as b:
        a.create([Finding(observer="x", content="in a")], project="p")
        assert reindex(b).findings == 0
        assert reindex(a).findings == 1
