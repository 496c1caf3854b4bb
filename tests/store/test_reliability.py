"""Real processes against one data home: racing writers lose nothing; killed writers never break
the store, and reindex recovers every record they wrote whole."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from onlooker.core.assessment import Finding
from onlooker.runtime import reindex, remove_index
from onlooker.store import (
    Change,
    FindingAcknowledged,
    FindingCreated,
    FindingQuery,
    FindingResolved,
    FindingsCleared,
    FindingSeen,
    Journal,
    Store,
)
from onlooker.store.home import journal_paths

WRITER = Path(__file__).with_name("writer.py")
PROJECT = "reliability"
WRITERS = 16
EACH = 500
SHARED_EVERY = 50
KILLS = 50
AT_ONCE = 4


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def journals(home: Path) -> list[Journal]:
    return [Journal(p, p.relative_to(home).as_posix()) for p in journal_paths(home)]


def findings(store: Store) -> list[tuple[Any, ...]]:
    """Every finding row without the internal row number."""
    return [row[1:] for row in store.index.table_rows("findings")]


def expected_from_journals(home: Path) -> dict[str, tuple[str, int, str | None]]:
    """An independent model of what the journals say: id -> (status, occurrences, note)."""
    changes: list[tuple[int, str, int, Change]] = []
    for journal in journals(home):
        for entry in journal.read().entries:
            if isinstance(entry.record, Change):
                changes.append((entry.record.serial, journal.key, entry.line, entry.record))
    state: dict[str, list[Any]] = {}
    for *_, change in sorted(changes, key=lambda c: c[:3]):
        if isinstance(change, FindingCreated):
            state.setdefault(change.finding.id, ["open", 1, None])
        elif isinstance(change, FindingSeen) and change.finding_id in state:
            state[change.finding_id][1] += 1
        elif isinstance(change, FindingAcknowledged) and change.finding_id in state:
            if state[change.finding_id][0] == "open":
                state[change.finding_id][0] = "acknowledged"
        elif isinstance(change, FindingResolved) and change.finding_id in state:
            if state[change.finding_id][0] != "resolved":
                state[change.finding_id][0::2] = ["resolved", change.note]
        elif isinstance(change, FindingsCleared):
            for gone in change.finding_ids:
                state.pop(gone, None)
    return {k: (v[0], v[1], v[2]) for k, v in state.items()}


def indexed(store: Store) -> dict[str, tuple[str, int, str | None]]:
    page = store.query(FindingQuery())
    return {
        o.id: (o.finding.status, o.occurrences, o.finding.resolution_note)
        for o in page.observations
    }


def test_sixteen_racing_writers_lose_nothing(onlooker_home: Path) -> None:
    writers = [
        spawn("race", str(onlooker_home), f"w{i}", f"s{i // 2}", str(EACH)) for i in range(WRITERS)
    ]  # two writers share each session journal
    for writer in writers:
        _, err = writer.communicate(timeout=240)
        assert writer.returncode == 0, err
        assert err == ""  # no "database is locked", no warning of any kind

    markers: Counter[str] = Counter()
    created = seen = 0
    for journal in journals(onlooker_home):
        read = journal.read()
        assert not read.skipped, read.skipped
        for record in read.records:
            kind = record.kind
            if kind == "marker":
                markers[record.name] += 1  # type: ignore[attr-defined]
            created += kind == "finding_created"
            seen += kind == "finding_seen"
    assert markers == Counter(f"w{w}:{i}" for w in range(WRITERS) for i in range(EACH))
    shared_reports = WRITERS * (EACH // SHARED_EVERY)
    assert created == WRITERS * EACH + 1
    assert seen == shared_reports - 1

    with Store() as store:
        assert store.query(FindingQuery(project=PROJECT)).count == WRITERS * EACH + 1
        [shared] = store.query(FindingQuery(project=PROJECT, observers=("shared",))).observations
        assert shared.occurrences == shared_reports
        serials = store.index.last_serial()
        assert serials == WRITERS * EACH + shared_reports
        before = findings(store)
        assert expected_from_journals(onlooker_home) == indexed(store)
    remove_index(onlooker_home)
    with Store() as store:
        reindex(store)
        assert findings(store) == before


def test_writers_killed_at_random_moments_never_break_the_store(onlooker_home: Path) -> None:
    rng = random.Random(2026)
    confirmed: list[tuple[str, str]] = []
    started = kills = 0
    alive: list[tuple[subprocess.Popen[str], int]] = []
    sessions = ["k1", "k2", "k3", ""]  # "" is the project's manual journal
    while kills < KILLS:
        while len(alive) < AT_ONCE and started < KILLS:
            session = sessions[started % len(sessions)]
            process = spawn("chaos", str(onlooker_home), f"k{started}", session, str(started))
            alive.append((process, rng.randint(1, 30)))
            started += 1
        process, wanted = alive.pop(0)
        assert process.stdout is not None
        for _ in range(wanted):
            line = process.stdout.readline()
            assert line.startswith("ok "), process.stderr.read() if process.stderr else line
            _, operation, target = line.split()
            confirmed.append((operation, target))
        os.kill(process.pid, signal.SIGKILL)  # mid-way through its next operation
        process.wait()
        for rest in process.stdout.read().splitlines():  # confirmed just before the kill
            _, operation, target = rest.split()
            confirmed.append((operation, target))
        process.stdout.close()
        assert process.stderr is not None
        process.stderr.close()
        kills += 1

    # The store opens and every journal parses (damaged lines are skipped, never fatal).
    with Store() as store:
        live = indexed(store)
    skipped = [line for j in journals(onlooker_home) for line in j.read().skipped]
    assert len(skipped) <= KILLS
    check_confirmed(live, confirmed)

    # Reindex recovers every record written whole, whether or not its writer lived to commit.
    with Store() as store:
        reindex(store)
        recovered = indexed(store)
    check_confirmed(recovered, confirmed)
    assert recovered == expected_from_journals(onlooker_home)
    whole = {
        entry.record.finding.id
        for journal in journals(onlooker_home)
        for entry in journal.read().entries
        if isinstance(entry.record, FindingCreated)
    }
    assert set(recovered) == whole
    assert set(live) <= whole


def check_confirmed(index: dict[str, tuple[str, int, str | None]], confirmed: list[Any]) -> None:
    """Every operation a writer saw return is in the index."""
    assert confirmed
    for operation, target in confirmed:
        if operation in ("create", "repeat"):
            assert target in index
        elif operation == "ack":
            assert index[target][0] in ("acknowledged", "resolved")
        elif operation == "resolve":
            assert index[target][0] == "resolved"
            assert (index[target][2] or "").startswith("fixed at step")


def test_a_writer_killed_inside_its_write_leaves_a_torn_line_that_is_skipped(
    onlooker_home: Path,
) -> None:
    journal = onlooker_home / "journals" / PROJECT / "big.jsonl"
    for megabytes in (8, 32, 128):  # larger until the kill lands inside the write
        # Each try is a finding of its own: a try whose write ended whole left its finding in
        # the index, and the same one again would be journaled as a short `finding_seen`.
        observer = f"big-{megabytes}"
        writer = spawn("big", str(onlooker_home), observer, "big", str(megabytes))
        while writer.poll() is None and not (journal.exists() and journal.stat().st_size):
            pass  # the write has begun once the file grows
        os.kill(writer.pid, signal.SIGKILL)
        writer.communicate()
        if journal.exists() and not journal.read_bytes().endswith(b"\n"):
            break  # torn: the line's end never made it
        journal.unlink(missing_ok=True)
    else:
        raise AssertionError("no kill landed inside a write")

    with Store() as store:  # opens; the next append is not swallowed by the fragment
        made = store.create([Finding(observer="after", content="kept")], project=PROJECT,
                            session_id="big")  # fmt: skip
        read = Journal(journal, "big").read()
        assert len(read.skipped) == 1 and read.skipped[0].line == 1
        assert [r.kind for r in read.records] == ["finding_created"]
        reindex(store)
        assert indexed(store) == {made[0].observation.id: ("open", 1, None)}
