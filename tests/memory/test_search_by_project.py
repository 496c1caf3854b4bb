"""A search limited to one project narrows before it ranks (issue 31) and returns exactly what
ranking that project's memories alone returns: text search against bm25 over every match kept
to the project's rows, vector search against every one of the project's vectors scored in
numpy, for large projects and for one with a few memories among many others."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from onlooker import FixedClock
from onlooker.memory import search
from onlooker.memory._memories import Extracted, Memories
from onlooker.memory._vector_search import MemoryVectors
from onlooker.store import Store
from onlooker.store import _memory_text_search as text_sql
from onlooker.store.memory_records import MemoryFilter
from onlooker.vectors import embeddings

WORDS = ("cache", "token", "deploy", "flaky", "timeout", "schema", "worker", "retry", "login",
         "queue", "parser", "branch", "config", "backup", "upload", "index")  # fmt: skip
PROJECTS = ("shop", "blog", "wiki", "tiny")
DIMENSIONS = 384
QUERIES = ("cache token", "deploy", "flaky timeout worker", "retry login queue", "nothing here",
           "schema", "backup upload index cache")  # fmt: skip


def project_of(n: int) -> str:
    return "tiny" if n % 97 == 5 else PROJECTS[n % 3]


@pytest.fixture
def filled(tmp_path: Path, clock: FixedClock) -> Store:
    """1,200 memories of random words over three large projects and a tiny one (13 memories)."""
    rng = np.random.default_rng(5)
    store = Store(tmp_path / "home", clock=clock)
    memories = Memories(store)
    for batch in range(12):
        by_project: dict[str, list[Extracted]] = {}
        for n in range(batch * 100, batch * 100 + 100):
            clock.advance(seconds=30)
            words = [WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(2, 9))]
            by_project.setdefault(project_of(n), []).append(
                Extracted(" ".join(words[:2]), " ".join(words), clock.now())
            )
        for project, found in by_project.items():
            memories.remember(found, project=project, session_id=f"s{batch}")
    ids = Memories(store).matching(MemoryFilter())
    MemoryVectors(store).index.add_array(ids, rng.standard_normal((len(ids), DIMENSIONS)))
    return store


def brute_force_text(store: Store, match: str, project: str, wanted: int) -> list[int]:
    """bm25 of every match over all memories, then kept to the project's newest RANK_WINDOW."""
    conn = sqlite3.connect(store.index.path)
    scored = conn.execute(
        "SELECT m.id, m.project, bm25(memories_fts) FROM memories_fts "
        "JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ?",
        (match,),
    ).fetchall()
    conn.close()
    mine = sorted(((i, score) for i, p, score in scored if p == project), reverse=True)
    window = mine[: text_sql.RANK_WINDOW]
    return [i for i, _ in sorted(window, key=lambda hit: (hit[1], -hit[0]))][:wanted]


def brute_force_vectors(store: Store, query: np.ndarray, project: str, k: int) -> list[int]:
    conn = sqlite3.connect(store.index.path)
    rows = conn.execute(
        "SELECT v.id, v.vector FROM vectors v JOIN memories m ON m.id = v.id "
        "WHERE v.kind = 'memory' AND m.project = ?",
        (project,),
    ).fetchall()
    conn.close()
    ids = np.array([r[0] for r in rows])
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    unit = (query / np.linalg.norm(query)).astype(np.float32)
    scores = np.einsum("ij,j->i", matrix, unit)
    return [int(ids[i]) for i in np.lexsort((ids, -scores))[:k]]


@pytest.mark.parametrize("window", [2_000, 40])
def test_text_search_in_a_project_is_the_project_s_own_ranking(
    filled: Store, window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text_sql, "RANK_WINDOW", window)
    conn = filled.index._conn
    for project in PROJECTS:
        for words in (["cache"], ["cache", "token"], ["retry", "queue", "login"], ["absent"]):
            for match in (" AND ".join(f'"{w}"' for w in words),
                          " OR ".join(f'"{w}"' for w in words)):  # fmt: skip
                narrowed = text_sql._fts5_ranking(conn, MemoryFilter(projects=(project,)))
                assert narrowed(match, 15) == brute_force_text(filled, match, project, 15)
        for query in QUERIES:
            one = Memories(filled).text_search(query, MemoryFilter(projects=(project,)), 12)
            joined = Memories(filled).text_search(  # two projects: the filter joined per match
                query, MemoryFilter(projects=(project, "no such project")), 12
            )
            assert one == joined
            assert all(m.project == project for m in Memories(filled).get(one))
    tiny = Memories(filled).text_search("cache token", MemoryFilter(projects=("tiny",)), 20)
    assert tiny and len(tiny) <= 13


def test_vector_search_in_a_project_is_the_project_s_own_ranking(filled: Store) -> None:
    vectors = MemoryVectors(filled)
    rng = np.random.default_rng(9)
    for _ in range(5):
        query = rng.standard_normal(DIMENSIONS)
        for project in PROJECTS:
            for k in (1, 10, 500):
                assert vectors.nearest_to(query.tolist(), MemoryFilter(projects=(project,)), k) == (
                    brute_force_vectors(filled, query, project, k)
                )
    both = vectors.nearest_to(query.tolist(), MemoryFilter(projects=("tiny", "wiki")), 30)
    wiki = brute_force_vectors(filled, query, "wiki", 30)
    tiny = brute_force_vectors(filled, query, "tiny", 30)
    assert set(both) <= set(wiki) | set(tiny) and len(both) == 30


def test_project_ranking_follows_new_and_forgotten_memories(
    filled: Store, clock: FixedClock
) -> None:
    vectors = MemoryVectors(filled)
    query = np.random.default_rng(3).standard_normal(DIMENSIONS)
    before = vectors.nearest_to(query.tolist(), MemoryFilter(projects=("tiny",)), 5)
    clock.advance(minutes=5)
    new = Memories(filled).remember([Extracted("cache cache", "cache", clock.now())],
                                    project="tiny", session_id="later")  # fmt: skip
    assert vectors.nearest_to(query.tolist(), MemoryFilter(projects=("tiny",)), 5) == before
    vectors.index.add([(new[0].id, query.tolist())])  # embedded later, as reindex does
    after = vectors.nearest_to(query.tolist(), MemoryFilter(projects=("tiny",)), 5)
    assert after == [new[0].id, *before[:4]]
    assert Memories(filled).text_search("cache", MemoryFilter(projects=("tiny",)), 1) == [new[0].id]
    Memories(filled).forget([new[0].id, before[0]])
    assert vectors.nearest_to(query.tolist(), MemoryFilter(projects=("tiny",)), 3) == before[1:4]
    assert new[0].id not in Memories(filled).text_search(
        "cache", MemoryFilter(projects=("tiny",)), 20
    )
    assert brute_force_vectors(filled, query, "tiny", 3) == before[1:4]


@pytest.mark.skipif(not embeddings.available(), reason="the embeddings extra is not installed")
def test_hybrid_search_in_a_project_keeps_to_it(filled: Store) -> None:
    found = search(filled, "cache token deploy", "both", projects=["tiny"], limit=10)
    assert found and {m.project for m in found} == {"tiny"}


def test_selective_words_are_those_full_counts_pick(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts stop early (at the common share, then at the fewest so far) yet pick the words
    that counting every match picks."""
    conn = filled.index._conn
    total = text_sql.last_memory_id(conn)

    def full(word: str) -> int:
        return int(
            conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (f'"{word}"',)
            ).fetchone()[0]
        )

    for share in (0.05, 0.2, 0.5):
        monkeypatch.setattr(text_sql, "COMMON_SHARE", share)
        for words in (["cache", "token", "absent"], ["absent", "missing"], ["cache", "deploy"],
                      ["login", "queue", "retry", "nothing"], ["parser", "absent", "index"]):  # fmt: skip
            counts = {w: full(w) for w in words}
            kept = [w for w in words if 0 < counts[w] <= share * total]
            expected = kept or [min(words, key=lambda w: counts[w] or total + 1)]
            assert text_sql._selective(conn, words, "sqlite") == expected


def test_words_are_counted_among_the_newest_memories(
    filled: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From SAMPLE memories up, a word's share is that among the newest SAMPLE (counting costs the
    same at any size), and a word none of them holds but an older one does is rare."""
    conn = filled.index._conn
    total = text_sql.last_memory_id(conn)
    sample = 400
    monkeypatch.setattr(text_sql, "SAMPLE", sample)
    memories = Memories(filled)
    oldest = memories.get([1])[0]  # outside the sample; the one memory that says fjord
    memories.edit(oldest, title=oldest.title, content=oldest.content + " fjord")

    def newest(word: str) -> int:
        return int(
            conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ? AND rowid > ?",
                (f'"{word}"', total - sample),
            ).fetchone()[0]
        )

    fjord = conn.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'fjord'"
    ).fetchall()
    assert fjord == [(1,)]
    for share in (0.05, 0.2, 0.5):
        monkeypatch.setattr(text_sql, "COMMON_SHARE", share)
        for words in (["cache", "token", "absent"], ["cache", "deploy"], ["fjord", "cache"],
                      ["login", "queue", "retry", "nothing"]):  # fmt: skip
            counts = {w: newest(w) for w in words}
            kept = [w for w in words if 0 < counts[w] <= share * sample or w == "fjord"]
            expected = kept or [min(words, key=lambda w: counts[w] or sample + 1)]
            assert text_sql._selective(conn, words, "sqlite") == expected
