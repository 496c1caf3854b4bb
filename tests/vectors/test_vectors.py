"""VectorIndex: top-k by cosine over the index's `vectors` table, with each backend."""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from onlooker.store import Store, StoreError
from onlooker.store.home import MIRROR_FILE
from onlooker.vectors._sqlite_vec import unavailable
from onlooker.vectors.index import VectorIndex

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

NO_SQLITE_VEC = unavailable()
BACKENDS = [
    "numpy",
    "python",
    pytest.param(
        "sqlite-vec",
        marks=pytest.mark.skipif(NO_SQLITE_VEC is not None, reason=str(NO_SQLITE_VEC)),
    ),
]


def random_vectors(
    count: int, dimensions: int = 16, seed: int = 7
) -> list[tuple[int, list[float]]]:
    rng = random.Random(seed)
    return [(i * 3 + 1, [rng.gauss(0, 1) for _ in range(dimensions)]) for i in range(count)]


def nearest(
    vectors: list[tuple[int, list[float]]], query: list[float], k: int, ids: set[int] | None = None
) -> list[int]:
    """The expected answer, by brute force in float64."""

    def cos(v: list[float]) -> float:
        return sum(a * b for a, b in zip(v, query, strict=True)) / (
            math.hypot(*v) * math.hypot(*query)
        )

    scored = sorted((-cos(v), i) for i, v in vectors if ids is None or i in ids)
    return [i for _, i in scored[:k]]


@pytest.fixture
def store(onlooker_home: Path) -> Store:
    return Store(onlooker_home)


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_returns_the_nearest_by_cosine(store: Store, backend: str) -> None:
    vectors = random_vectors(300)
    index = VectorIndex(store.index, "memory", backend=backend, model="test")  # type: ignore[arg-type]
    assert index.add(vectors) == 300
    rng = random.Random(1)
    for _ in range(5):
        query = [rng.gauss(0, 1) for _ in range(16)]
        hits = index.search(query, 10)
        assert [i for i, _ in hits] == nearest(vectors, query, 10)
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(hits))
    own_id, own = vectors[40]
    best_id, score = index.search([2 * x for x in own], 1)[0]  # cosine ignores length
    assert best_id == own_id and score == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_within_ids_filters_first(store: Store, backend: str) -> None:
    vectors = random_vectors(300)
    index = VectorIndex(store.index, "memory", backend=backend, model="test")  # type: ignore[arg-type]
    index.add(vectors)
    query = vectors[0][1]
    allowed = {i for i, _ in vectors[150:170]} | {999_999}  # an unknown id is ignored
    hits = index.search(query, 5, ids=allowed)
    assert [i for i, _ in hits] == nearest(vectors, query, 5, allowed)
    assert vectors[0][0] not in {i for i, _ in hits}
    assert index.search(query, 5, ids=set()) == []
    assert len(index.search(query, 50, ids={vectors[3][0], vectors[4][0]})) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_follows_adds_replacements_and_removals(store: Store, backend: str) -> None:
    vectors = random_vectors(50)
    searching = VectorIndex(store.index, "memory", backend=backend, model="test")  # type: ignore[arg-type]
    writing = VectorIndex(store.index, "memory", backend="numpy", model="test")
    writing.add(vectors[:25])
    target_id, target = vectors[30]
    assert searching.search(target, 1)[0][0] != target_id
    writing.add([vectors[30]])  # only added: the cache tops up
    assert searching.search(target, 1)[0][0] == target_id
    writing.add([(5000, target)])  # a new id with the same vector: a tie, the lower id first
    assert [i for i, _ in searching.search(target, 2)] == [target_id, 5000]
    assert writing.remove([target_id, 424242]) == 1
    assert searching.search(target, 1)[0][0] == 5000
    writing.add([(5000, vectors[0][1])])  # replaced
    assert searching.search(vectors[0][1], 1)[0][0] in {vectors[0][0], 5000}
    assert searching.search(target, 1)[0][0] != 5000
    assert searching.count() == 26


@pytest.mark.parametrize("backend", BACKENDS)
def test_vectors_written_by_another_process_are_found(
    store: Store, backend: str, onlooker_home: Path
) -> None:
    index = VectorIndex(store.index, "memory", backend=backend, model="test")  # type: ignore[arg-type]
    index.add(random_vectors(20))
    assert index.search([1.0] * 16, 1)[0][0] != 777
    script = (
        "import sys; from onlooker.store import Store; from onlooker.vectors.index import "
        "VectorIndex\nwith Store(sys.argv[1]) as s:\n"
        "    VectorIndex(s.index, 'memory', model='test').add([(777, [1.0] * 16)])"
    )
    subprocess.run([sys.executable, "-c", script, str(onlooker_home)], check=True, timeout=60)
    assert index.search([1.0] * 16, 1)[0][0] == 777


def test_kinds_and_models_are_kept_apart(store: Store) -> None:
    vectors = random_vectors(10)
    VectorIndex(store.index, "memory", model="a").add(vectors)
    VectorIndex(store.index, "finding", model="a").add([(1000, vectors[0][1])])
    VectorIndex(store.index, "memory", model="b").add([(2000, vectors[0][1])])
    hits = VectorIndex(store.index, "memory", model="a").search(vectors[0][1], 20)
    assert {i for i, _ in hits} == {i for i, _ in vectors}


def test_a_query_of_other_dimensions_is_refused(store: Store) -> None:
    index = VectorIndex(store.index, "memory", model="test")
    index.add(random_vectors(3))
    with pytest.raises(
        StoreError, match="query has 8 dimensions, the memory vectors of test have 16"
    ):
        index.search([1.0] * 8)


def test_bad_kinds_backends_and_vectors_are_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="vector kind must be"):
        VectorIndex(store.index, "Memory; DROP TABLE")
    with pytest.raises(ValueError, match="vector backend must be one of auto, numpy"):
        VectorIndex(store.index, "memory", backend="faiss")  # type: ignore[arg-type]
    index = VectorIndex(store.index, "memory")
    with pytest.raises(ValueError, match="finite"):
        index.add([(1, [math.nan, 1.0])])
    with pytest.raises(ValueError, match="at least one dimension"):
        index.add([(1, [])])


def test_without_numpy_auto_means_sqlite_vec_where_it_loads_else_pure_python(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onlooker.vectors import index as module

    monkeypatch.setitem(sys.modules, "numpy", None)  # what `import` sees when it is absent
    expected = "sqlite-vec" if NO_SQLITE_VEC is None else "python"
    assert VectorIndex(store.index, "memory", model="test").backend == expected
    monkeypatch.setattr(module, "_sqlite_vec_loads", lambda: False)
    index = VectorIndex(store.index, "memory", model="test")
    assert index.backend == "python"
    vectors = random_vectors(40)
    index.add(vectors)
    assert [i for i, _ in index.search(vectors[7][1], 3)] == nearest(vectors, vectors[7][1], 3)
    with pytest.raises(StoreError, match="numpy vector backend needs numpy"):
        VectorIndex(store.index, "memory", backend="numpy")


@pytest.mark.skipif(NO_SQLITE_VEC is not None, reason=str(NO_SQLITE_VEC))
def test_the_sqlite_vec_mirror_is_its_own_file_and_goes_with_the_index(
    store: Store, onlooker_home: Path
) -> None:
    from onlooker.runtime import remove_index

    index = VectorIndex(store.index, "memory", backend="sqlite-vec", model="test")
    index.add(random_vectors(5))
    assert index.search([1.0] * 16, 1)
    index.close()
    assert (onlooker_home / MIRROR_FILE).exists()
    store.close()
    remove_index(onlooker_home)
    assert not (onlooker_home / MIRROR_FILE).exists()


def test_a_new_process_starts_from_the_saved_matrix(
    store: Store, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onlooker.runtime import remove_index
    from onlooker.vectors import _snapshot as vector_snapshot
    from onlooker.vectors import index as vectors

    monkeypatch.setattr(vector_snapshot, "MIN_ROWS", 50)
    saved = random_vectors(120)
    writing = VectorIndex(store.index, "memory", model="test")
    writing.add(saved[:100])
    query = saved[110][1]
    writing.search(query, 1)  # reads 100 rows from SQLite: saves them
    assert len(list((onlooker_home / "vectors").glob("*.npy"))) == 2

    def state() -> tuple[object, ...]:
        version = store.index._read(
            lambda c: c.execute("SELECT added, removed FROM vector_versions").fetchone()
        )
        return (store.index._identity, *version)

    writing.add(saved[100:])
    monkeypatch.setattr(vectors, "_CACHES", {})  # as in a new process
    snapshot = vector_snapshot.load(store.index.path, "memory", "test", state())
    assert snapshot is not None and len(snapshot.ids) == 100
    fresh = VectorIndex(store.index, "memory", model="test")
    assert [i for i, _ in fresh.search(query, 5)] == nearest(saved, query, 5)

    writing.remove([saved[110][0]])  # a removal: the snapshot no longer holds
    assert vector_snapshot.load(store.index.path, "memory", "test", state()) is None
    monkeypatch.setattr(vectors, "_CACHES", {})
    kept = [v for v in saved if v[0] != saved[110][0]]
    assert [i for i, _ in fresh.search(query, 5)] == nearest(kept, query, 5)
    assert vector_snapshot.load(store.index.path, "memory", "test", state()) is not None
    assert len(list((onlooker_home / "vectors").glob("*.npy"))) == 2  # the old files are gone
    store.close()
    remove_index(onlooker_home)
    assert not (onlooker_home / "vectors").exists()


def test_scores_split_between_two_threads_equal_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    np = pytest.importorskip("numpy")
    from onlooker.vectors import _cosine as vector_search

    rows = np.random.default_rng(3).standard_normal((1001, 16)).astype(np.float32)
    q = rows[7].copy()
    monkeypatch.setattr(vector_search, "SPLIT_ROWS", 100)
    split = vector_search._scores(rows, q)
    assert split.dtype == np.float32 and len(split) == 1001
    assert np.allclose(split, np.einsum("ij,j->i", rows, q))
