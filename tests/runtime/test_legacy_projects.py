"""A data home written before project identities (journals under the bare folder name) upgraded
by the real `onlooker reindex`: two checkouts called `api` end up under two keys, memories and
findings follow their sessions, what cannot be attributed stays under the name, nothing is lost."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from onlooker.core.assessment import Finding
from onlooker.core.events import SessionStarted, ToolCall
from onlooker.memory import search
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for
from onlooker.store._legacy import adopt_legacy_journals, legacy_moves
from onlooker.store.query import FindingQuery

ONLOOKER = Path(sys.executable).with_name("onlooker")
AT = datetime(2026, 3, 1, tzinfo=UTC)


def checkout(parent: Path) -> Path:
    root = parent / "api"
    (root / ".git").mkdir(parents=True)
    return root


def old_home(home: Path, roots: dict[str, Path]) -> None:
    """What the old version wrote: every row and journal of both checkouts under `api`."""
    with Store(home) as store:
        for session, root in roots.items():
            store.append([SessionStarted(session_id=session, seq=1, at=AT, cwd=str(root / "src")),
                          ToolCall(session_id=session, seq=2, at=AT, tool="Bash", index=1)],
                         project="api", session_id=session)  # fmt: skip
            store.create([Finding(content=f"flaky test in {session}", observer="Stall",
                                  severity="high")], project="api", session_id=session)  # fmt: skip
            Memories(store).remember(
                [Extracted(f"Deploy notes of {session}", "Deploys go through staging.", AT)],
                project="api",
                session_id=session,
            )
        store.create([Finding(content="noted by hand", observer="me", severity="medium")],
                     project="api")  # fmt: skip


def reindex(home: Path) -> None:
    done = subprocess.run([ONLOOKER, "reindex"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ONLOOKER_HOME": str(home)})  # fmt: skip
    assert done.returncode == 0, done.stderr


def contents(store: Store, project: str) -> list[str]:
    found = store.query(FindingQuery(project=project, limit=100)).observations
    return sorted(o.finding.content for o in found)


def test_two_checkouts_of_one_name_are_split_by_their_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a, b = checkout(tmp_path / "a"), checkout(tmp_path / "b")
    old_home(home, {"s-a": a, "s-b": b})
    before = sorted(p.read_bytes() for p in (home / "journals").rglob("*.jsonl"))
    reindex(home)
    key_a, key_b = project_for(a), project_for(b)
    assert key_a != key_b
    journals = home / "journals"
    assert (journals / key_a / "s-a.jsonl").is_file() and (journals / key_b / "s-b.jsonl").is_file()
    assert sorted(p.name for p in (journals / "api").iterdir()) == ["_manual.jsonl"]
    after = sorted(p.read_bytes() for p in journals.rglob("*.jsonl"))
    assert after == before  # moved, never rewritten, nothing lost
    with Store(home) as store:
        assert contents(store, key_a) == ["flaky test in s-a"]
        assert contents(store, key_b) == ["flaky test in s-b"]
        assert contents(store, "api") == ["noted by hand"]  # no session: stays under the name
        for session, key in (("s-a", key_a), ("s-b", key_b)):
            found = search(store, "deploy notes", "text", projects=[key], vectors=None)
            assert [m.title for m in found] == [f"Deploy notes of {session}"]
        assert store.load_session("s-a") is not None
    reindex(home)  # again: nothing moves, the same rows
    with Store(home) as store:
        assert contents(store, key_a) == ["flaky test in s-a"]
        assert contents(store, "api") == ["noted by hand"]


def test_a_session_whose_root_is_gone_stays_under_the_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    gone = tmp_path / "gone" / "api"
    old_home(home, {"s-gone": gone})  # the folder never existed here
    reindex(home)
    assert (home / "journals" / "api" / "s-gone.jsonl").is_file()
    with Store(home) as store:
        assert contents(store, "api") == ["flaky test in s-gone", "noted by hand"]


def test_a_move_interrupted_after_the_copy_is_finished_by_the_next_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = checkout(tmp_path / "a")
    old_home(home, {"s-a": a})
    (move,) = legacy_moves(home)
    move.target.parent.mkdir(parents=True)
    move.target.write_bytes(move.source.read_bytes())  # renamed, then the process died
    (move.target.parent / "s-a.jsonl.moving").write_bytes(b"{")  # an older, partial copy
    original = move.source.read_bytes()
    assert [m.target for m in adopt_legacy_journals(home)] == [move.target]
    assert not move.source.exists() and move.target.read_bytes() == original
    assert adopt_legacy_journals(home) == []
