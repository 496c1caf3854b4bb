"""The session-start digest: its format and defaults (specs/memory.md), never over budget, and no memory
given twice to a session that continues (compact, resume)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.memory import MemorySettings, MemorySettingsError, render_digest, session_start_digest
from onlooker.memory._memories import Extracted, Memories
from onlooker.memory.inject import estimate_tokens
from onlooker.store import Store
from onlooker.store.memory_records import MemoryFilter

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike


def remember(
    memories: Memories, project: str, count: int, clock: FixedClock, size: int = 40
) -> None:
    for n in range(count):
        clock.advance(60)
        memories.remember(
            [Extracted(f"{project} fact {n}", f"detail {n} " + "x" * size, clock.now())],
            project=project, session_id=f"{project}-old",
        )  # fmt: skip


def test_memory_defaults() -> None:
    s = MemorySettings()
    assert (s.max_observations, s.max_tokens, s.recency_days, s.project_only) == (20, 500, 7, True)


def test_format_newest_first_project_only_and_recent(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "shop", 1, clock, size=0)
        clock.advance(minutes=60 * 24 * 8)  # older than recencyDays
        remember(memories, "shop", 2, clock, size=0)
        remember(memories, "blog", 1, clock, size=0)
        text = session_start_digest(memories, project="shop", session_id="new", source="startup",
                                    settings=MemorySettings(), now=clock.now())  # fmt: skip
        assert text == (
            "# [shop] recent context (conversation-memory)\n\n"
            "- shop fact 1: detail 1\n- shop fact 0: detail 0"  # the older fact 0 is past 7 days
        )
        wide = session_start_digest(memories, project="shop", session_id="new2", source="startup",
                                    settings=MemorySettings(project_only=False), now=clock.now())  # fmt: skip
        assert "blog fact 0" in wide


def test_never_over_budget_and_count(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "shop", 60, clock, size=150)
        for budget in (20, 60, 100, 500, 501, 2000):
            found = memories.recent(MemoryFilter(), 60)
            text, shown = render_digest(found, "shop", budget)
            assert estimate_tokens(text) <= budget
            assert len(text.splitlines()) - 2 == len(shown) or not shown
        text = session_start_digest(memories, project="shop", session_id="s", source="startup",
                                    settings=MemorySettings(max_tokens=10_000), now=clock.now())  # fmt: skip
        assert text.count("\n- ") == 20  # maxObservations
        assert render_digest(found, "shop", 10) == ("", [])


def test_compact_and_resume_add_only_what_the_session_has_not_seen(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "shop", 3, clock)
        settings = MemorySettings()

        def start(source: str) -> str:
            return session_start_digest(memories, project="shop", session_id="s1", source=source,
                                        settings=settings, now=clock.now())  # fmt: skip

        first = start("startup")
        assert first.count("\n- ") == 3
        assert start("compact") == "" and start("resume") == ""
        remember(memories, "shop", 1, clock)  # a new memory arrives meanwhile
        again = start("compact")
        assert again.count("\n- ") == 1 and "shop fact 0" in again
        assert start("clear").count("\n- ") == 4  # a cleared context gets everything again


def test_budget_cut_items_come_back_later(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "shop", 10, clock, size=300)
        small = MemorySettings(max_tokens=200)
        one = session_start_digest(memories, project="shop", session_id="s", source="startup",
                                   settings=small, now=clock.now())  # fmt: skip
        two = session_start_digest(memories, project="shop", session_id="s", source="compact",
                                   settings=small, now=clock.now() + timedelta(seconds=1))  # fmt: skip
        assert one and two and set(one.splitlines()[2:]).isdisjoint(two.splitlines()[2:])


def test_settings_from_a_config_mapping_name_the_key_and_file() -> None:
    found = MemorySettings.from_mapping(
        {"enabled": False, "maxObservations": 5, "maxTokens": 200, "recencyDays": 3,
         "projectOnly": False, "model": "openai:gpt-4o-mini"}, ".onlooker/config.yaml"
    )  # fmt: skip
    assert found == MemorySettings(False, 5, 200, 3, False, "openai:gpt-4o-mini")
    with pytest.raises(
        MemorySettingsError,
        match=r"\.onlooker/config.yaml: memory.maxTokens must be a non-negative integer",
    ):
        MemorySettings.from_mapping({"maxTokens": "500"}, ".onlooker/config.yaml")
    with pytest.raises(
        MemorySettingsError, match=r"unknown key memory\.max_tokens; allowed: dailyTokens, enabled"
    ):
        MemorySettings.from_mapping({"max_tokens": 5}, "onlooker.yaml")


def test_a_session_is_never_told_its_own_memories(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "shop", 1, clock)
        memories.remember([Extracted("made here", "in this very session", clock.now())],
                          project="shop", session_id="s1")  # fmt: skip
        for source in ("resume", "compact", "startup"):
            text = session_start_digest(memories, project="shop", session_id="s1",
                                        source=source, settings=MemorySettings(),
                                        now=clock.now())  # fmt: skip
            assert "made here" not in text
        assert "made here" in session_start_digest(
            memories, project="shop", session_id="s2", source="startup",
            settings=MemorySettings(), now=clock.now(),
        )  # fmt: skip


def test_beyond_the_project_others_are_labeled_and_opted_out_ones_left_out(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        for project in ("shop-1a2b3c4d", "blog-5e6f7a8b", "quiet-9c0d1e2f"):
            remember(memories, project, 1, clock, size=0)
        memories.set_opted_out("quiet-9c0d1e2f", True)
        text = session_start_digest(
            memories, project="shop-1a2b3c4d", session_id="s1", source="startup",
            settings=MemorySettings(project_only=False), now=clock.now(),
        )  # fmt: skip
        assert text.splitlines()[2:] == [
            "- [blog] blog-5e6f7a8b fact 0: detail 0",
            "- shop-1a2b3c4d fact 0: detail 0",
        ]


def test_pinned_memories_follow_the_same_rules(clock: FixedClock, tmp_path: Path) -> None:
    """A pin puts a memory first, whatever its age, but never in the session that made it nor
    beyond the project when that project turned memory off."""
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        remember(memories, "quiet-9c0d1e2f", 1, clock, size=0)
        memories.remember([Extracted("made here", "pinned in this session", clock.now())],
                          project="shop-1a2b3c4d", session_id="s1")  # fmt: skip
        for memory in memories.recent(MemoryFilter(), 10):
            memories.pin(memory)
        memories.set_opted_out("quiet-9c0d1e2f", True)
        clock.advance(timedelta(days=30).total_seconds())
        wide = MemorySettings(project_only=False)

        def digest(session_id: str, settings: MemorySettings) -> str:
            return session_start_digest(memories, project="shop-1a2b3c4d", session_id=session_id,
                                        source="resume", settings=settings, now=clock.now())  # fmt: skip

        assert digest("s1", wide) == ""
        assert "made here" in digest("s2", wide) and "quiet" not in digest("s2", wide)
        memories.set_opted_out("quiet-9c0d1e2f", False)
        assert "- [quiet] quiet-9c0d1e2f fact 0: detail 0" in digest("s3", wide)
