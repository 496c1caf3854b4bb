"""Memory search: text (FTS5), vectors (the local MiniLM embeddings), and both fused by reciprocal
rank; every filter applies inside each half."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.memory import SearchError, fuse, get_memories, search
from onlooker.memory._memories import Extracted, Memories
from onlooker.memory._vector_search import MemoryVectors
from onlooker.store import Store
from onlooker.vectors import embeddings

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

FACTS = [
    ("shop", "Login returns 401 after token expiry", "The auth middleware rejects expired JWTs; the client must refresh the session first.", "/shop/auth.py"),
    ("shop", "Checkout total rounding", "Prices are summed in cents to avoid floating point rounding errors in the cart.", "/shop/cart.py"),
    ("shop", "Run the test suite with make test", "make test runs ruff, mypy and pytest; plain pytest misses the lint step.", ""),
    ("blog", "Deploys use the staging branch", "Every deploy goes through staging and a manual release tag.", "/blog/deploy.sh"),
    ("blog", "Images are resized on upload", "Uploaded pictures are shrunk to 1600 pixels wide by a background job.", "/blog/media.py"),
]  # fmt: skip

needs_embeddings = pytest.mark.skipif(
    not embeddings.available(), reason="the embeddings extra is not installed"
)


@pytest.fixture
def store(tmp_path: Path, clock: FixedClock) -> Store:
    store = Store(tmp_path / "home", clock=clock)
    memories = Memories(store)
    for project, title, content, path in FACTS:
        clock.advance(minutes=10)
        memories.remember([Extracted(title, content, clock.now(), (path,) if path else ())],
                          project=project, session_id=f"{project}-s")  # fmt: skip
    return store


def titles(found: list) -> list[str]:  # type: ignore[type-arg]
    return [m.title for m in found]


def test_text_search_and_filters(store: Store, clock: FixedClock) -> None:
    assert (
        titles(search(store, "expired token", "text"))[0] == "Login returns 401 after token expiry"
    )
    assert titles(search(store, "deploy staging", "text", projects=["shop"])) == []
    assert titles(search(store, "make test deploy", "text", files=["deploy.sh"])) == [
        "Deploys use the staging branch"
    ]
    start = clock.now() - timedelta(minutes=50)
    window = search(
        store,
        "the",
        "text",
        after=start + timedelta(minutes=15),
        before=start + timedelta(minutes=35),
    )
    assert set(titles(window)) == {"Checkout total rounding", "Run the test suite with make test"}


def test_bad_arguments_are_named(store: Store) -> None:
    with pytest.raises(SearchError, match="mode"):
        search(store, "x", "fuzzy")  # type: ignore[arg-type]
    with pytest.raises(SearchError, match="limit"):
        search(store, "x", limit=0)
    with pytest.raises(SearchError, match="embeddings"):
        search(store, "x", "vector", vectors=None)
    assert search(store, "x", "both", vectors=None) == []  # both without vectors: text only


def test_fusion_rewards_agreement() -> None:
    assert fuse([[1, 2, 3], [3, 1, 4]], 3) == [1, 3, 2]
    assert fuse([[], [5, 6]], 10) == [5, 6]


@needs_embeddings
def test_vectors_find_meaning_the_words_miss(store: Store) -> None:
    vectors = MemoryVectors(store)
    assert vectors.embed(list(range(1, 6))) == 5
    query = "why does authentication fail for users"
    assert search(store, query, "text", vectors=vectors) == []  # no shared word
    assert titles(search(store, query, "vector", limit=1, vectors=vectors)) == [
        "Login returns 401 after token expiry"
    ]
    assert titles(search(store, "shrinking photos", "vector", limit=1, vectors=vectors)) == [
        "Images are resized on upload"
    ]
    only_blog = titles(search(store, query, "vector", projects=["blog"], vectors=vectors))
    assert only_blog and "Login returns 401 after token expiry" not in only_blog
    both = titles(search(store, "deploy release", "both", limit=2, vectors=vectors))
    assert both[0] == "Deploys use the staging branch"
    assert titles(search(store, "shrinking photos", "both", limit=1)) == [
        "Images are resized on upload"
    ]  # auto
    vectors.remove([5])
    assert 5 not in [m.id for m in search(store, "shrinking photos", "vector", vectors=vectors)]


def test_get_memories_by_id(store: Store) -> None:
    found = get_memories(store, [3, 99, 1])
    assert [m.id for m in found] == [3, 1]
    assert found[0].to_dict()["content"].startswith("make test runs")
    assert set(found[0].compact()) == {"id", "title", "project", "timestamp"}


def test_text_search_ranks_the_newest_matches_when_there_are_many(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onlooker.store import _memory_text_search as memory_index

    monkeypatch.setattr(memory_index, "RANK_WINDOW", 3)
    with Store(tmp_path / "home", clock=clock) as store:
        memories = Memories(store)
        for n in range(8):
            clock.advance(minutes=1)
            project = "shop" if n % 2 else "blog"
            body = "cache " * (8 - n) + "flush"  # older memories say "cache" more: bm25 likes them
            memories.remember([Extracted(f"note {n}", body, clock.now())],
                              project=project, session_id="s")  # fmt: skip
        assert titles(search(store, "cache", "text", limit=5)) == ["note 5", "note 6", "note 7"]
        assert titles(search(store, "cache", "text", projects=["shop"], limit=5)) == [
            "note 3", "note 5", "note 7",
        ]  # fmt: skip
        monkeypatch.setattr(memory_index, "RANK_WINDOW", 100)
        assert titles(search(store, "cache", "text", limit=3)) == ["note 0", "note 1", "note 2"]
