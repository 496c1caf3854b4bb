"""The store tests run on both backends: SQLite (onlooker.db) and a real PostgreSQL server (a
fresh database per test, through $ONLOOKER_STORE_URL as a user would set it)."""

from __future__ import annotations

import pytest

SQLITE_ONLY = {
    "test_home",  # the data home's paths, no index
    "test_journal",  # journal files, no index
    "test_reliability",  # onlooker.db itself: its WAL, its deletion; PostgreSQL: test_shared_store
    "test_bench_store",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_backend" in metafunc.fixturenames:
        name = metafunc.module.__name__.rpartition(".")[2]
        backends = ["sqlite"] if name in SQLITE_ONLY else ["sqlite", "postgres"]
        metafunc.parametrize("store_backend", backends, indirect=True)


@pytest.fixture(autouse=True)
def store_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which backend this test's stores use."""
    backend: str = getattr(request, "param", "sqlite")
    if backend == "postgres":
        monkeypatch.setenv("ONLOOKER_STORE_URL", request.getfixturevalue("postgres_url"))
    return backend
