"""Choosing the backend (ONLOOKER_STORE_URL, store.url in the user config), the PostgreSQL
dialect of every migration, and what each backend must answer alike."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from onlooker.core.assessment import Finding
from onlooker.store import FindingQuery, Store, StoreError
from onlooker.store import _postgres as postgres
from onlooker.store._migrations import MIGRATIONS
from onlooker.store._migrations_postgres import POSTGRES_MIGRATIONS
from onlooker.store._postgres import postgres_sql, redacted_url


def test_every_migration_has_its_postgresql_dialect() -> None:
    assert list(POSTGRES_MIGRATIONS) == [name for name, _ in MIGRATIONS]


def test_sqlite_statements_are_translated_for_postgresql() -> None:
    assert postgres_sql("SET v = max(counters.value, excluded.value) WHERE a = ?") == (
        "SET v = GREATEST(counters.value, excluded.value) WHERE a = %s"
    )
    assert postgres_sql("instr(content, ?) > 0 AND x LIKE '%a'") == (
        "strpos(content, %s) > 0 AND x LIKE '%%a'"
    )
    assert postgres_sql("SELECT max(created_at), group_concat(DISTINCT model)") == (
        "SELECT max(created_at), string_agg(DISTINCT model, ',')"
    )
    assert redacted_url("postgresql://me:s3cret@db:5433/x") == "postgresql://me:***@db:5433/x"


def test_the_backend_follows_the_setting(
    store_backend: str, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store() as store:
        assert store.shared == (store_backend == "postgres")
        assert store.index.dialect == store_backend
        assert (onlooker_home / "onlooker.db").exists() == (store_backend == "sqlite")


def test_store_url_in_the_user_config(
    onlooker_home: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ONLOOKER_STORE_URL", raising=False)
    onlooker_home.mkdir(parents=True, exist_ok=True)
    (onlooker_home / "config.yaml").write_text(f"store:\n  url: {postgres_url}\n")
    with Store() as store:
        assert store.shared and store.url == postgres_url
    (onlooker_home / "config.yaml").write_text("store:\n  url: [1]\n")
    with pytest.raises(StoreError, match=r"config\.yaml: store\.url must be"):
        Store()
    monkeypatch.setenv("ONLOOKER_STORE_URL", "mysql://me:pw@db/x")
    with pytest.raises(StoreError, match=r"only postgresql:// URLs") as refused:
        Store()
    assert "pw" not in str(refused.value)


def test_an_unreachable_server_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT", 1.0)
    url = "postgresql://me:hunter2@127.0.0.1:9/onlooker"
    with pytest.raises(StoreError, match=r"127\.0\.0\.1:9/onlooker: cannot connect") as failed:
        Store(url=url)
    assert "hunter2" not in str(failed.value)


def test_postgresql_migrations_are_recorded_and_run_once(
    postgres_server: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    name = f"migrating_{os.urandom(4).hex()}"
    postgres_server.execute(f"CREATE DATABASE {name}")  # type: ignore[attr-defined]
    url = postgres_server.url(name)  # type: ignore[attr-defined]
    monkeypatch.setattr(postgres, "MIGRATIONS", MIGRATIONS[:2])
    with Store(tmp_path / "a", url=url) as old:
        old.create([Finding(observer="x", content="kept through migrations")], project="p")
        assert old.index.migrations() == ["m001_initial", "m002_fts"]
    monkeypatch.setattr(postgres, "MIGRATIONS", MIGRATIONS)
    stores: list[Store] = []

    def open_one(name: str) -> None:
        stores.append(Store(tmp_path / name, url=url))

    machines = [threading.Thread(target=open_one, args=(f"m{i}",)) for i in range(4)]
    for machine in machines:  # several machines start on the old database at once
        machine.start()
    for machine in machines:
        machine.join()
    assert len(stores) == 4
    for store in stores:
        assert store.index.migrations() == [name for name, _ in MIGRATIONS]
        assert store.query(FindingQuery(project="p")).count == 1
        store.close()


def test_search_matches_words_inside_paths_and_punctuation(store_backend: str) -> None:
    with Store() as store:
        store.create(
            [
                Finding(observer="sec", content="SQL injection", source_ref="src/db/query.py:45"),
                Finding(observer="style", content="Long line in the_query_builder"),
            ],
            project="p",
        )
        assert [o.finding.observer for o in store.search("query", "p")] == ["style", "sec"]
        assert [o.finding.observer for o in store.search("db/query.py", "p")] == ["sec"]
        assert [o.finding.observer for o in store.search("INJECTION sql", "p")] == ["sec"]
        assert store.search("injection missing", "p") == []
