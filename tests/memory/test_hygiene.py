"""Near-duplicate memories across sessions merge: the newer takes the older's place (and its
files); memories that say other things stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.memory import MemoryFilter
from onlooker.memory._memories import Memories
from onlooker.memory.extract import extract_session
from onlooker.memory.hygiene import similarity
from onlooker.store import Store
from onlooker.testing import ScriptedModel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike


def memory(title: str, content: str) -> dict[str, list[dict[str, str]]]:
    return {"memories": [{"title": title, "content": content}]}


def session(memories: Memories, clock: FixedClock, name: str, path: str, answer: object) -> None:
    for n in range(3):
        clock.advance(60)
        memories.add_pending(session_id=name, project="shop", tool_name="Edit",
                             compressed=f"Edited {path}: a{n} → b{n}", files=[f"/w/shop/{path}"],
                             at=clock.now())  # fmt: skip
    extract_session(memories, ScriptedModel([answer]), project="shop", session_id=name)


def test_a_near_duplicate_replaces_the_older_memory(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        session(memories, clock, "s1", "tests/conftest.py", memory(
            "Integration tests need Postgres",
            "The integration tests in tests/conftest.py need the Postgres container running."))  # fmt: skip
        session(memories, clock, "s2", "src/api.py", memory(
            "API uses cursor pagination", "List endpoints in src/api.py page by cursor, not offset."))  # fmt: skip
        session(memories, clock, "s3", "docker-compose.yml", memory(
            "Integration tests need the Postgres container",
            "The integration tests need the Postgres container running: docker compose up db."))  # fmt: skip
        kept = memories.recent(MemoryFilter(), 10)
        assert [m.title for m in kept] == [
            "Integration tests need the Postgres container",
            "API uses cursor pagination",
        ]
        assert kept[0].files == ("/w/shop/tests/conftest.py",)  # carried over from the older


def test_similarity_is_shared_words() -> None:
    assert similarity("Run tests with pytest", "run TESTS with pytest!") == 1.0
    assert similarity("Run tests with pytest", "Deploy with fly") < 0.2
    assert similarity("", "anything") == 0.0
