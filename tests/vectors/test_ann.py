"""The approximate graph (vectors/_ann.py): above its threshold a search over every row takes its
candidates from a usearch graph saved beside the index, plus the rows written since, and scores
them exactly; removed rows never come back; a searching process has a child process make or
extend the graph; reindex makes it; without usearch the exact scan answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from onlooker.store import Store
from onlooker.vectors import _ann
from onlooker.vectors import index as vector_index
from onlooker.vectors.index import VectorIndex

ROWS = 3_000
DIMENSIONS = 48


@pytest.fixture(autouse=True)
def small_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ann, "ANN_FROM", 1_000)
    monkeypatch.setattr(_ann, "TAIL_MIN", 100)
    monkeypatch.setattr(vector_index, "_CACHES", {})


def clustered(count: int, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((60, DIMENSIONS))
    rows = centres[rng.integers(0, 60, count)] + rng.normal(0, 0.3, (count, DIMENSIONS))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def queries(count: int = 40, seed: int = 9) -> np.ndarray:
    return clustered(count, seed) + np.random.default_rng(seed).normal(0, 0.1, (count, DIMENSIONS))


def filled(home: Path, count: int = ROWS) -> tuple[Store, VectorIndex, np.ndarray]:
    store = Store(home)
    matrix = clustered(count)
    index = VectorIndex(store.index, "memory", model="test", backend="numpy")
    index.add_array(list(range(1, count + 1)), matrix)
    return store, index, matrix


def exact(index: VectorIndex, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    plain = VectorIndex(index.database, index.kind, model=index.model, approximate=False)
    return plain.search(query.tolist(), k)


def test_usearch_is_installed_with_the_embeddings_extra() -> None:
    assert _ann.available()


def test_the_graph_answers_as_the_exact_scan_does(tmp_path: Path) -> None:
    store, index, _ = filled(tmp_path)
    assert index.build_graph()
    assert len(list((tmp_path / "vectors").glob("*.ann.usearch"))) == 1
    found = same = 0
    for query in queries():
        hits = index.search(query.tolist(), 10)
        truth = exact(index, query, 10)
        same += len({i for i, _ in hits} & {i for i, _ in truth})
        found += 10
        scores = dict(truth)
        for memory_id, score in hits:  # scored exactly, as the full scan scores them
            assert memory_id not in scores or score == scores[memory_id]
    assert index._cached().graphs is not None and index._cached().graphs.graph is not None
    assert same / found >= 0.95
    store.close()


def test_rows_written_after_the_graph_and_removed_rows(tmp_path: Path) -> None:
    store, index, matrix = filled(tmp_path)
    assert index.build_graph()
    newcomer = queries(1, seed=3)[0]
    index.add_array([ROWS + 1], newcomer[None, :])  # after the graph: in its tail
    assert index.search(newcomer.tolist(), 1)[0][0] == ROWS + 1
    index.add_array([5], newcomer[None, :] * -1)  # row 5 now points the other way
    assert 5 not in {i for i, _ in index.search(matrix[4].tolist(), 10)}
    index.remove([7])
    assert 7 not in {i for i, _ in index.search(matrix[6].tolist(), 10)}
    assert index.search(matrix[6].tolist(), 10) == exact(index, matrix[6], 10)
    assert index._cached().graphs.graph.upto == ROWS  # still the first graph
    store.close()


def test_extending_the_graph_takes_the_tail_and_drops_the_removed(tmp_path: Path) -> None:
    store, index, _ = filled(tmp_path)
    assert index.build_graph()
    more = clustered(500, seed=8)
    index.add_array(list(range(ROWS + 1, ROWS + 501)), more)
    index.remove([1, 2, 3])
    assert index.build_graph(only_if_due=True)  # 500 new rows: past the share
    assert not index.build_graph(only_if_due=True)  # nothing due any more
    graphs = index._cached().graphs
    index.search(more[0].tolist(), 1)
    assert graphs is not None and graphs.graph is not None
    assert len(graphs.tail) == 0
    keys = set(np.asarray(graphs.graph.index.keys).tolist())
    assert keys == set(range(4, ROWS + 501))
    assert len(list((tmp_path / "vectors").glob("*.ann.usearch"))) == 1  # the old file is gone
    store.close()


def test_a_searching_process_has_a_child_make_the_graph(tmp_path: Path) -> None:
    store, index, matrix = filled(tmp_path)
    first = index.search(matrix[0].tolist(), 5)  # a one-shot search starts nothing
    graphs = index._cached().graphs
    assert graphs is not None and graphs.wait() is None and graphs.graph is None
    assert index.search(matrix[0].tolist(), 5) == first  # exact while the child works
    assert graphs.wait(timeout=300) == 0  # the second search started it
    assert len(list((tmp_path / "vectors").glob("*.ann.usearch"))) == 1
    assert index.search(matrix[0].tolist(), 5) == first
    assert graphs.graph is not None and graphs.graph.upto == ROWS  # mapped from the child's file
    index.search(matrix[0].tolist(), 5)
    assert graphs.wait() == 0  # nothing due: no other child
    store.close()


def test_reindex_makes_the_graph_and_fresh_drops_it(tmp_path: Path) -> None:
    from onlooker.runtime import remove_index
    from onlooker.vectors.embeddings import MODEL
    from onlooker.vectors.sources import MEMORY, sync_vectors

    store = Store(tmp_path)
    with store.index.transaction():
        store.index._conn.executemany(
            "INSERT INTO memories (id, title, content, project, session_id, timestamp, "
            "created_at, serial) VALUES (?, ?, 'c', 'p', 's', 0, 0, 0)",
            [(n, f"t{n}") for n in range(1, 1_201)],
        )
    index = VectorIndex(store.index, "memory", model=MODEL)
    rows = np.random.default_rng(2).standard_normal((1_200, 384)).astype(np.float32)
    index.add_array(list(range(1, 1_201)), rows)
    with store.index.transaction():  # as if embedded from these texts: nothing to re-embed
        from onlooker.vectors.index import text_digest

        store.index._conn.executemany(
            "UPDATE vectors SET digest = ? WHERE kind = 'memory' AND id = ?",
            [(text_digest(f"t{n}\nc"), n) for n in range(1, 1_201)],
        )
    assert sync_vectors(store.index, [MEMORY])[0][1].embedded == 0
    assert len(list((tmp_path / "vectors").glob("memory-*.ann.usearch"))) == 1
    store.close()
    remove_index(tmp_path)  # reindex --fresh
    assert not (tmp_path / "vectors").exists()


def test_without_usearch_the_exact_scan_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "usearch", None)
    _ann.available.cache_clear()
    try:
        store, index, matrix = filled(tmp_path)
        assert not index.approximate
        assert not index.build_graph()
        index.search(matrix[0].tolist(), 5)
        assert index.search(matrix[0].tolist(), 5) == exact(index, matrix[0], 5)
        assert index._cached().graphs is None
        store.close()
    finally:
        _ann.available.cache_clear()


def test_usearch_and_the_embedding_model_load_in_either_order() -> None:
    """usearch 2.24 and later crash the process if onnxruntime is imported after them."""
    pytest.importorskip("onnxruntime")
    script = (
        "from onlooker.vectors import _ann, embeddings\n"
        "_ann.usearch_index()\n"
        "import onnxruntime\n"
        "print(len(embeddings.shared_embedder().embed_one('a flaky test')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "384"


def test_a_search_limited_to_ids_ranks_them_all_exactly(tmp_path: Path) -> None:
    """A filter narrows before anything is ranked: the graph is for searches over every row."""
    store, index, _ = filled(tmp_path)
    assert index.build_graph()
    allowed = list(range(1, ROWS + 1, 7))
    plain = VectorIndex(store.index, "memory", model="test", approximate=False)
    for query in queries(10):
        want = plain.search(query.tolist(), 10, ids=allowed)
        assert index.search(query.tolist(), 10, ids=allowed) == want
        assert {i for i, _ in want} <= set(allowed)
    store.close()
