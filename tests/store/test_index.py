"""The SQLite index: named migrations, WAL, retries while another writer holds the lock."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from onlooker import Finding
from onlooker.store import FindingQuery, Store, StoreError, reindex, remove_index
from onlooker.store import _database as database
from onlooker.store._migrations import MIGRATIONS


def test_migrations_are_named_recorded_and_run_once(onlooker_home: Path) -> None:
    with Store() as store:
        assert store.index.migrations()[:3] == ["m001_initial", "m002_fts", "m003_counts"]
        assert "m005_memory" in store.index.migrations()
        assert [name for name, _ in MIGRATIONS] == store.index.migrations()
    with sqlite3.connect(onlooker_home / "onlooker.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"findings", "findings_fts", "sessions", "journals", "deliveries", "migrations"} <= names
    with Store() as again:  # reopening applies nothing twice
        assert again.index.migrations() == [name for name, _ in MIGRATIONS]


def test_an_older_index_is_migrated_forward_with_its_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS[:2])
    with Store() as old:
        made = old.create(
            [Finding(observer="x", content=c, severity="high") for c in ("one", "two")],
            project="p",
        )
        old.resolve(made[0].observation.id, project="p")
        assert old.index.migrations() == ["m001_initial", "m002_fts"]
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    with Store() as new:
        assert new.index.migrations() == [name for name, _ in MIGRATIONS]
        page = new.query(FindingQuery(project="p", limit=0))
        assert page.by("status") == {"open": 1, "resolved": 1}
        new.clear_resolved(project="p")
        assert new.query(FindingQuery(project="p", limit=0)).by("status") == {"open": 1}


def test_a_writer_waits_for_a_held_lock_instead_of_failing(
    onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.01)  # force onlooker's own retries
    monkeypatch.setattr(database, "RETRY_FOR", 10.0)
    with Store() as store:
        holder = sqlite3.connect(
            onlooker_home / "onlooker.db", isolation_level=None, check_same_thread=False
        )
        holder.execute("BEGIN IMMEDIATE")
        released = threading.Event()

        def release() -> None:
            holder.execute("COMMIT")
            released.set()

        timer = threading.Timer(0.3, release)
        timer.start()
        try:
            store.create([Finding(observer="x", content="waited")], project="p")
        finally:
            timer.join()
            holder.close()
        assert released.is_set()
        assert store.search("waited", "p")


def test_after_the_retries_the_error_names_the_file(
    onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.01)
    monkeypatch.setattr(database, "RETRY_FOR", 0.05)
    with Store() as store:
        holder = sqlite3.connect(onlooker_home / "onlooker.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreError, match=r"onlooker\.db: still busy"):
                store.create([Finding(observer="x", content="never")], project="p")
        finally:
            holder.close()


def test_a_damaged_index_is_an_error_naming_the_file(onlooker_home: Path) -> None:
    onlooker_home.mkdir(parents=True)
    (onlooker_home / "onlooker.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=r"onlooker\.db: cannot open the index.*reindex --fresh"):
        Store()


def test_stale_wal_files_of_a_deleted_index_are_not_reused(onlooker_home: Path) -> None:
    with Store() as store:
        store.create([Finding(observer="x", content="old")], project="p")
    (onlooker_home / "onlooker.db").unlink()
    (onlooker_home / "onlooker.db-wal").write_bytes(b"stale")
    with Store() as store:
        assert store.index.count_findings() == 0


def test_a_long_lived_store_follows_an_index_rebuilt_under_it(onlooker_home: Path) -> None:
    with Store() as service:  # e.g. the hook service, running while `reindex --fresh` runs
        made = service.create([Finding(observer="x", content="before")], project="p")
        remove_index(onlooker_home)
        with Store() as rebuilder:
            reindex(rebuilder)
        service.acknowledge(made[0].observation.id, project="p")
        with Store() as reader:
            [seen] = reader.get([made[0].observation.id])
            assert seen.finding.status == "acknowledged"
