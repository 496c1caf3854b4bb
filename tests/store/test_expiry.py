"""Expired findings: closed because their session or episode ended before anyone acted, kept
apart from resolved ones (someone's act with its note) in the store, the tool and its listings."""

from __future__ import annotations

import json

import pytest

from onlooker import Finding, FixedClock
from onlooker.store import FindingQuery, LifecycleError, ObservationsTool, Store


def finding(content: str, **fields: object) -> Finding:
    return Finding(content=content, observer="Stall", **fields)  # type: ignore[arg-type]


def test_expiring_closes_open_and_acknowledged_findings_with_what_ended(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        made = store.create(
            [finding("a"), finding("b"), finding("c")], project="p", session_id="s1"
        )
        a, b, c = (x.observation.id for x in made)
        store.acknowledge(b, project="p")
        store.resolve(c, "fixed the fixture", project="p")
        clock.advance(5)
        notes = {a: "the session ended", b: "the session ended", c: "the session ended"}
        assert store.expire(notes, project="p", session_id="s1") == (a, b)  # c was resolved
        first, second, third = store.get((a, b, c))
        assert (first.finding.status, second.finding.status) == ("expired", "expired")
        assert first.finding.resolution_note == "the session ended"
        assert first.finding.resolved_at == clock.now()  # when it closed
        assert (third.finding.status, third.finding.resolution_note) == (
            "resolved", "fixed the fixture",
        )  # fmt: skip
        assert store.expire({a: "again"}, project="p", session_id="s1") == ()  # unchanged
        journal = store.journal("p", "s1").path.read_text().splitlines()
        expired = [json.loads(line) for line in journal if '"finding_expired"' in line]
        assert [(r["finding_id"], r["note"]) for r in expired] == [
            (a, "the session ended"), (b, "the session ended"),
        ]  # fmt: skip


def test_an_expired_finding_is_no_longer_acknowledged_but_may_still_be_resolved(
    clock: FixedClock,
) -> None:
    with Store(clock=clock) as store:
        (made,) = store.create([finding("loop")], project="p")
        store.expire({made.observation.id: "call 9 succeeded"}, project="p")
        with pytest.raises(LifecycleError, match="is expired"):
            store.acknowledge(made.observation.id, project="p")
        resolved = store.resolve(made.observation.id, "read the log", project="p")
        assert (resolved.finding.status, resolved.finding.resolution_note) == (
            "resolved", "read the log",
        )  # fmt: skip


def test_an_expired_finding_never_absorbs_a_new_report(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        (old,) = store.create([finding("Same command 3 times")], project="p")
        store.expire({old.observation.id: "the session ended"}, project="p")
        (new,) = store.create([finding("Same command 3 times")], project="p")
        assert new.new and new.observation.id != old.observation.id
        (again,) = store.create([finding("Same command 4 times")], project="p")
        assert not again.new and again.observation.id == new.observation.id


def test_reopening_brings_back_only_expired_findings(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        one, two = (
            x.observation.id for x in store.create([finding("a"), finding("b")], project="p")
        )
        store.expire({one: "the session ended"}, project="p")
        store.reopen([one, two], project="p")
        reopened, untouched = store.get((one, two))
        assert reopened.finding.status == "open" and reopened.finding.resolution_note is None
        assert reopened.finding.resolved_at is None
        assert untouched.finding.status == "open"


def test_the_tool_lists_expired_apart_and_clear_resolved_clears_them(clock: FixedClock) -> None:
    with Store(clock=clock) as store:
        tool = ObservationsTool(store, project="p", session_id="s1")
        made = tool({"operation": "create_batch", "observations": [
            {"observer": "Stall", "content": c, "severity": "high"} for c in ("a", "b", "c")
        ]})["observations"]  # fmt: skip
        ids = [o["id"] for o in made]
        store.expire({ids[0]: "the session ended"}, project="p", session_id="s1")
        tool({"operation": "resolve", "observation_id": ids[1], "resolution_note": "done"})
        listed = tool({"operation": "list", "filters": {"status": "expired"}})
        assert [o["id"] for o in listed["observations"]] == [ids[0]]
        assert listed["observations"][0]["resolution_note"] == "the session ended"
        everything = tool({"operation": "list"})
        assert everything["by_status"] == {"expired": 1, "open": 1, "resolved": 1}
        assert store.query(FindingQuery(project="p", statuses=("expired",))).count == 1
        cleared = tool({"operation": "clear_resolved"})
        assert sorted(cleared["ids"]) == sorted(ids[:2])
        assert [o["id"] for o in tool({"operation": "list"})["observations"]] == [ids[2]]
