"""Every store test runs on both backends, SQLite (onlooker.db) and a real PostgreSQL server (a
fresh database per test), except those about SQLite's file itself."""

from __future__ import annotations

import pytest

SQLITE_ONLY = {
    "test_home",  # the data home's paths, no index
    "test_journal",  # journal files, no index
    "test_reliability",  # onlooker.db itself: its WAL, its deletion; PostgreSQL: test_shared_store
    "test_bench_store",
}
SQLITE_FILE = {
    # about onlooker.db itself (its migrations table's rowids, busy retries, a damaged or
    # deleted file), or emptying the index by deleting it: a shared store is never emptied,
    # its reindex loads journals past their offsets (test_shared_store)
    "test_migrations_are_named_recorded_and_run_once",
    "test_an_older_index_is_migrated_forward_with_its_data",
    "test_after_the_retries_the_error_names_the_file",
    "test_a_damaged_index_is_an_error_naming_the_file",
    "test_stale_wal_files_of_a_deleted_index_are_not_reused",
    "test_delete_the_index_and_reindex_gives_identical_findings",
    "test_snapshots_are_kept_when_current_and_rebuilt_when_missing",
    "test_reindex_finds_journals_only_under_the_data_home",
}


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py parametrizes by `backends`
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.module.__name__.rpartition(".")[2]
    if name in SQLITE_ONLY or metafunc.function.__name__ in SQLITE_FILE:
        metafunc.function.backends = ("sqlite",)


@pytest.fixture(autouse=True)
def every_store_test(store_backend: str) -> str:
    return store_backend
