"""The rule digest tells the truth with no model: one line per command with its latest state, a
later batch supersedes the earlier one's memories (gone from search and injection, kept in the
journal), no two lines about one command, and paths relative to the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.core.events import ToolCall
from onlooker.memory import MemoryFilter, MemorySettings, session_start_digest
from onlooker.memory._memories import Memories
from onlooker.memory.compress import compress
from onlooker.memory.digest import CommandState
from onlooker.memory.extract import extract_session
from onlooker.runtime import reindex
from onlooker.store import Store

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

TEST = "pytest tests/test_invoice.py -q"
FAILED = f"Ran `{TEST}` → exit 1: AssertionError: total is 11, not 12"
PASSED = f"Ran `{TEST}` → exit 0"


def add(memories: Memories, clock: FixedClock, session: str, *lines: str) -> None:
    for line in lines:
        clock.advance(1)
        memories.add_pending(session_id=session, project="shop", tool_name="Bash",
                             compressed=line, at=clock.now())  # fmt: skip


def shown(memories: Memories) -> list[str]:
    return [f"{m.title}: {m.content}" for m in memories.recent(MemoryFilter(), 50)]


def test_a_fix_in_a_later_batch_supersedes_still_failing(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        add(memories, clock, "s1", "Read src/invoice.py (80 lines)", *[FAILED] * 12)
        first = extract_session(memories, None, project="shop", session_id="s1")
        assert [m.content for m in first.memories] == [
            "fails (12×): AssertionError: total is 11, not 12"
        ]
        add(memories, clock, "s1", "Edited src/invoice.py: round(t) → t", PASSED, PASSED)
        extract_session(memories, None, project="shop", session_id="s1")
        assert sorted(shown(memories)) == [
            "Files changed: src/invoice.py (edited).",
            f"`{TEST}`: failed 12× (AssertionError: total is 11, not 12), passes since",
        ]
        (gone,) = first.memories
        found = memories.text_search("fails AssertionError", MemoryFilter(), 10)
        assert found and gone.id not in found and memories.get([gone.id]) == []  # left search
        text = session_start_digest(memories, project="shop", session_id="next", source="startup",
                                    settings=MemorySettings(), now=clock.now())  # fmt: skip
        assert "passes since" in text and "fails (12×)" not in text
        journal = b"".join(p.read_bytes() for p in (tmp_path / "h").rglob("*.jsonl"))
        assert journal.count(b'"memory_created"') == 3  # the superseded one stays in the journal
        assert b'"memories_superseded"' in journal
        reindex(store, ())
        assert len(shown(memories)) == 2


def test_a_commands_newer_state_supersedes_another_sessions(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        add(memories, clock, "s1", "Ran `make lint` → exit 2: E501 line too long", FAILED, PASSED)
        extract_session(memories, None, project="shop", session_id="s1")
        add(memories, clock, "s2", "Ran `make lint` → exit 0", "Ran `make lint` → exit 0", PASSED)
        extract_session(memories, None, project="shop", session_id="s2")
        lines = shown(memories)
        assert [line for line in lines if line.startswith("`make lint`")] == [
            "`make lint`: passes (2×)"
        ]
        about_tests = [line for line in lines if line.startswith(f"`{TEST}`")]
        assert len(about_tests) == 1, lines  # never "failed, passes since" and "passes" at once


def test_every_state_reads_back_as_it_was_written() -> None:
    runs = [(False, "E1"), (False, "E2"), (True, ""), (True, ""), (False, "E3"), (True, "")]
    for end in range(1, len(runs) + 1):
        state = CommandState("make")
        for ok, error in runs[:end]:
            state = state.ran(ok, error)
        again = CommandState.read("make", state.line())
        assert again is not None and again.line() == state.line(), state
        assert again.last_ok == state.last_ok


def test_paths_in_the_project_are_relative(tmp_path: Path) -> None:
    root = "/w/shop"
    edit = ToolCall(session_id="s", seq=1, tool="Edit", call_id="e",
                    input={"file_path": f"{root}/src/a.py", "old_string": "x", "new_string": "y"})  # fmt: skip
    found = compress(edit, root)
    assert found is not None
    assert found.line == "Edited src/a.py: x → y" and found.files == (f"{root}/src/a.py",)
    run = ToolCall(session_id="s", seq=2, tool="Bash", call_id="b",
                   input={"command": f"ls {root} {root}-old /etc"})  # fmt: skip
    said = compress(run, root)
    assert said is not None and said.line == f"Ran `ls . {root}-old /etc` → exit 0"


def test_pinned_and_edited_memories_on_every_backend(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        add(memories, clock, "s1", FAILED, FAILED, PASSED)
        extract_session(memories, None, project="shop", session_id="s1")
        (old,) = memories.recent(MemoryFilter(), 5)
        clock.advance(30 * 86_400)
        add(
            memories,
            clock,
            "s2",
            "Ran `make lint` → exit 0",
            "Ran `make lint` → exit 0",
            "Ran `ls` → exit 0",
        )
        extract_session(memories, None, project="shop", session_id="s2")
        memories.pin(old)
        memories.edit(old, title=old.title, content=old.content + " Run it before each commit.")
        settings = MemorySettings(recency_days=7)
        text = session_start_digest(memories, project="shop", session_id="n", source="startup",
                                    settings=settings, now=clock.now())  # fmt: skip
        lines = [line for line in text.splitlines() if line.startswith("- ")]
        assert lines[0].startswith(f"- `{TEST}`: failed 2×") and "before each commit" in lines[0]
        assert len(lines) == 3  # the pinned one, though a month old, then s2's two
        assert memories.text_search("commit", MemoryFilter(), 5) == [old.id]


def test_a_file_a_later_session_changed_is_marked_stale(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        for session, more in (("s1", PASSED), ("s2", "Created src/tax.py (12 lines)")):
            for line in ("Edited src/invoice.py: round(t) → t", more, PASSED):
                clock.advance(60)
                memories.add_pending(session_id=session, project="shop", tool_name="Edit",
                                     compressed=line, files=["/w/shop/src/invoice.py"] if "Edited" in line else [],
                                     at=clock.now())  # fmt: skip
            extract_session(memories, None, project="shop", session_id=session)
            if session == "s1":
                (first,) = [m for m in memories.recent(MemoryFilter(), 5) if m.files]
                assert first.files == ("/w/shop/src/invoice.py",)  # whole, for search by file
        text = session_start_digest(memories, project="shop", session_id="n", source="startup",
                                    settings=MemorySettings(), now=clock.now())  # fmt: skip
        files = [line for line in text.splitlines() if line.startswith("- Files changed")]
        assert files == [
            "- Files changed: src/invoice.py (edited), src/tax.py (created).",
            "- Files changed: src/invoice.py (edited). (may be stale: invoice.py changed in a later session)",
        ]
