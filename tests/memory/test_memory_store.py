"""Memory in the store: pending events queue, memories journaled (reindex restores them, forget is
a tombstone that survives reindex), full-text search with every filter, secrets redacted."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.memory._memories import Extracted, Memories
from onlooker.runtime import reindex, remove_index
from onlooker.store import Store
from onlooker.store.memory_records import MemoryFilter

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike


def fill(store: Store, clock: FixedClock) -> Memories:
    memories = Memories(store)
    t0 = clock.now()
    memories.remember(
        [Extracted("Login test fails on 401", "The auth middleware rejects expired tokens; refresh first.", t0, ("/app/src/auth.py",)),
         Extracted("Build command", "Use make build; npm run build is stale.", t0)],
        project="shop", session_id="s1",
    )  # fmt: skip
    clock.advance(minutes=60)
    memories.remember(
        [Extracted("Blog deploy", "Deploys go through the staging branch and a manual tag.", clock.now())],
        project="blog", session_id="s2",
    )  # fmt: skip
    return memories


def test_pending_events_are_queued_and_consumed_with_the_memories(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        memories = Memories(store)
        ids = [
            memories.add_pending(session_id="s1", project="shop", tool_name="Read",
                                 compressed=f"Read /a{n}.py (3 lines)", files=[f"/a{n}.py"], at=clock.now())
            for n in range(4)
        ]  # fmt: skip
        memories.add_pending(
            session_id="s9",
            project="shop",
            tool_name="Bash",
            compressed="Ran `ls` → exit 0",
            at=clock.now(),
        )
        pending = memories.pending("shop", "s1")
        assert [p.id for p in pending] == ids and pending[2].files == ("/a2.py",)
        stored = memories.remember(
            [Extracted("t", "c", clock.now())], project="shop", session_id="s1", consumed=ids[:2]
        )
        assert [p.id for p in memories.pending("shop", "s1")] == ids[2:]
        assert stored[0].id == 1 and stored[0].title == "t"
        assert len(memories.pending("shop", "s9")) == 1


def test_secrets_are_redacted_before_anything_is_stored(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        memories = Memories(store)
        memories.add_pending(session_id="s", project="p", tool_name="Bash",
                             compressed="Ran `curl -H 'Authorization: Bearer abcdefghijklmnop1234'` → exit 0",
                             at=clock.now())  # fmt: skip
        assert "abcdefghijklmnop1234" not in memories.pending("p", "s")[0].compressed
        memories.add_pending(session_id="s", project="p", tool_name="Bash",
                             compressed="Ran `echo <private>my home address</private>` → exit 0", at=clock.now())  # fmt: skip
        assert memories.pending("p", "s")[1].compressed == "Ran `echo [private]` → exit 0"
        (m,) = memories.remember([Extracted("key", "OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx", clock.now())],
                                 project="p", session_id="s")  # fmt: skip
        assert "sk-proj" not in m.content
        journal = (store.home / "journals" / "p" / "s.jsonl").read_text()
        assert "sk-proj-AbCd" not in journal and "memory_created" in journal


def test_reindex_restores_memories_and_keeps_forgotten_ones_gone(
    clock: FixedClock, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with Store(home, clock=clock) as store:
        memories = fill(store, clock)
        memories.mark_shown("s3", [1, 3], project="shop")
        forgotten = memories.forget([2, 99])
        assert [m.id for m in forgotten] == [2]
        memories.set_opted_out("blog", True, session_id="b1")
        memories.set_opted_out("quiet", True, session_id="q1")
        memories.set_opted_out("quiet", False, session_id="q1")  # back on
        assert (memories.opted_out("blog"), memories.opted_out("quiet")) == (True, False)
        tables = ("memories", "memory_files", "memory_injections", "memory_opt_outs")
        before = {t: store.index.table_rows(t) for t in tables}
        assert [r[0] for r in before["memory_opt_outs"]] == ["blog"]
        assert [r[0] for r in before["memories"]] == [1, 3]
    remove_index(home)
    with Store(home, clock=clock) as store:
        reindex(store)
        after = {t: store.index.table_rows(t) for t in before}
        assert after == before
        memories = Memories(store)
        assert memories.get([2]) == []
        # ids keep counting after the highest ever given, even once forgotten
        (new,) = memories.remember(
            [Extracted("n", "c", clock.now())], project="shop", session_id="s4"
        )
        assert new.id == 4
        assert memories.text_search("Build", MemoryFilter(), 10) == []


def test_text_search_ranks_and_filters_inside_sql(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        memories = fill(store, clock)
        t0 = clock.now() - timedelta(minutes=60)
        assert memories.text_search("expired tokens", MemoryFilter(), 10) == [1]
        assert set(memories.text_search("build deploy", MemoryFilter(), 10)) == {2, 3}
        assert memories.text_search("build deploy", MemoryFilter(projects=("blog",)), 10) == [3]
        assert memories.text_search(
            "build deploy", MemoryFilter(after=t0 + timedelta(minutes=1)), 10
        ) == [3]
        assert memories.text_search(
            "build deploy", MemoryFilter(before=t0 + timedelta(minutes=1)), 10
        ) == [2]
        assert memories.text_search("tokens build", MemoryFilter(files=("auth.py",)), 10) == [1]
        assert memories.text_search("tokens", MemoryFilter(files=("/app/src/auth.py",)), 10) == [1]
        assert memories.text_search("tokens", MemoryFilter(files=("th.py",)), 10) == []
        assert memories.text_search('" OR * NEAR(', MemoryFilter(), 10) == []  # operators are data


def test_recent_skips_what_a_session_was_shown(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        memories = fill(store, clock)
        assert [m.id for m in memories.recent(MemoryFilter(), 10)] == [3, 2, 1]
        memories.mark_shown("s5", [3], project="shop")
        assert [m.id for m in memories.recent(MemoryFilter(), 10, not_shown_to="s5")] == [2, 1]
        memories.mark_shown("s5", [], project="shop", reset=True)
        assert [m.id for m in memories.recent(MemoryFilter(), 10, not_shown_to="s5")] == [3, 2, 1]
        assert [m.title for m in memories.latest_of_session("s1", 3)] == [
            "Login test fails on 401",
            "Build command",
        ]


def test_words_in_most_memories_do_not_flood_the_ranking(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        memories = Memories(store)
        items = [
            Extracted(f"Deploy note {n}", "The deploy script runs on staging.", clock.now())
            for n in range(1200)
        ]
        items[7] = Extracted(
            "Deploy rollback", "Rollbacks use the previous release tag.", clock.now()
        )
        items[9] = Extracted(
            "Failing deploys", "A failed deploy needs a rollback first.", clock.now()
        )
        memories.remember(items, project="p", session_id="s")
        assert memories.text_search("deploy rollback", MemoryFilter(), 1) == [8]  # every word, best
        assert set(memories.text_search("deploy rollback", MemoryFilter(), 10)) == {8, 10}
        assert set(memories.text_search("rollbacks failing", MemoryFilter(), 10)) == {
            8,
            10,
        }  # stems
        assert len(memories.text_search("deploy", MemoryFilter(), 50)) == 50  # one word: kept
