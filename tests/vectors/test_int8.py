"""The int8 first pass of a large search (vectors/_int8.py) is exact: the same hits, in the same
order with the same scores, as scoring every row in float32, on clustered vectors where many rows
are close, with duplicates (ties broken by id) and for every k."""

from __future__ import annotations

import numpy as np
import pytest

from onlooker.vectors import _cosine, _int8

ROWS = 30_000


@pytest.fixture(scope="module")
def matrix() -> np.ndarray:
    rng = np.random.default_rng(4)
    centres = rng.standard_normal((300, 384)).astype(np.float32)
    rows = centres[rng.integers(0, 300, ROWS)] + rng.normal(0, 0.03, (ROWS, 384))
    rows[100:140] = rows[40]  # forty copies of one vector: ties the top k must break by id
    rows = rows.astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def hits(matrix: np.ndarray, query: np.ndarray, k: int, *, coded: bool) -> list[tuple[int, float]]:
    rows = _cosine.NumpyRows(np.arange(7, 7 + ROWS, dtype=np.int64), matrix)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_cosine, "CODED_FROM", 1_000 if coded else 10**9)
        first = rows.search(query.astype(np.float32).tobytes(), k, None)
        found = rows.search(query.astype(np.float32).tobytes(), k, None)
    assert (rows._codes is not None) == coded  # the second search reads the codes
    assert found == first
    return found


def test_simsimd_is_installed_with_the_embeddings_extra() -> None:
    assert _int8.available()


def test_int8_dot_products_are_exact_integers() -> None:
    import simsimd

    rng = np.random.default_rng(1)
    codes = rng.integers(-127, 128, (500, 384)).astype(np.int8)
    query = codes[:1]
    got = np.asarray(simsimd.cdist(query, codes, metric="dot"))[0]
    assert np.array_equal(got, codes.astype(np.int64) @ query[0].astype(np.int64))


@pytest.mark.parametrize("k", [1, 5, 30, 200])
def test_the_coded_search_is_the_full_scan(matrix: np.ndarray, k: int) -> None:
    rng = np.random.default_rng(k)
    queries = [matrix[40], matrix[5] + rng.normal(0, 0.05, 384), rng.standard_normal(384)]
    for query in queries:
        query = query / np.linalg.norm(query)
        assert hits(matrix, query, k, coded=True) == hits(matrix, query, k, coded=False)


def test_candidates_are_few_and_hold_the_top(matrix: np.ndarray) -> None:
    codes = _int8.Codes()
    codes.cover(matrix, 10_000)
    codes.cover(matrix, ROWS)  # rows coded as they are added, as the index grows
    query = (matrix[5] / np.linalg.norm(matrix[5])).astype(np.float32)
    found = codes.candidates(query, 10)
    best = np.argsort(-(matrix @ query), kind="stable")[:10]
    assert set(best) <= set(found.tolist())
    assert len(found) < ROWS // 50


@pytest.mark.parametrize("k", [1, 10, 200])
def test_a_filter_of_many_rows_reads_codes_and_answers_as_the_full_scan(
    matrix: np.ndarray, k: int
) -> None:
    """A filter's rows (a project of a large store) are coded first too: the same hits."""
    ids = np.arange(7, 7 + ROWS, dtype=np.int64)
    allowed = ids[(ids % 3 == 1) | (ids < 200)]  # ~10,000 rows, the forty copies among them
    query = (matrix[40] + np.random.default_rng(k).normal(0, 0.05, 384)).astype(np.float32)
    query /= np.linalg.norm(query)

    def found(coded: bool) -> list[tuple[int, float]]:
        rows = _cosine.NumpyRows(ids, matrix)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_cosine, "CODED_FROM", 1_000 if coded else 10**9)
            first = rows.search(query.tobytes(), k, allowed)
            second = rows.search(query.tobytes(), k, allowed)
        assert (rows._codes is not None) == coded  # the second search reads the codes
        assert first == second
        return second

    assert found(coded=True) == found(coded=False)
    codes = _int8.Codes()
    codes.cover(matrix, ROWS)
    among = np.flatnonzero((ids % 3 == 1) | (ids < 200))
    assert len(codes.candidates(query, k, among)) < len(among) // 10
    assert set(codes.candidates(query, k, among).tolist()) <= set(among.tolist())
