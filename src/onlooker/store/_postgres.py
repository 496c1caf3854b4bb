"""PostgreSQL under the index, for a store a team shares (specs/store.md, "A shared store").

`PostgresConnection` takes the place of the SQLite connection under `Index`: a psycopg connection
pool kept warm, write transactions that take one advisory lock (store-wide serials and dedup stay
decided by one writer at a time, as with SQLite), queue transactions that only lock their rows
(`exclusive=False`: jobs claimed with FOR UPDATE SKIP LOCKED), reads on one snapshot, and the named
migrations in their PostgreSQL dialect. Statements are written once, for SQLite; `postgres_sql`
translates the few spellings that differ.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

from ..errors import StoreError
from ._migrations import MIGRATIONS
from ._migrations_postgres import POSTGRES_MIGRATIONS

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

T = TypeVar("T")

WRITE_LOCK = 0x6F6E6C6B
"""The advisory lock a store-wide write transaction holds (one writer numbers serials)."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a connection from the pool (the server down: a StoreError after this)."""
_INSTALL = "pip install 'onlooker[postgres]'"

# SQLite spellings -> PostgreSQL ones, applied in order by `postgres_sql`.
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bmax\(([\w.]+|\?), ([\w.]+|\?)\)"), r"GREATEST(\1, \2)"),
    (re.compile(r"\binstr\("), "strpos("),
    (re.compile(r"\bchar\(10\)"), "chr(10)"),
    (re.compile(r"\bgroup_concat\(DISTINCT (\w+)\)"), r"string_agg(DISTINCT \1, ',')"),
    (re.compile(r"\+project = "), "project = "),
    (re.compile(r"%"), "%%"),
    (re.compile(r"\?"), "%s"),
)


@functools.lru_cache(maxsize=4096)
def postgres_sql(statement: str) -> str:
    """A statement written for SQLite, as PostgreSQL takes it: `?` placeholders become `%s`,
    scalar `max(a, b)` GREATEST, `instr` strpos, `char(10)` chr(10), `group_concat(DISTINCT c)`
    string_agg, and SQLite's index hint `+column` goes."""
    for pattern, replacement in _REWRITES:
        statement = pattern.sub(replacement, statement)
    return statement


def redacted_url(url: str) -> str:
    """The URL without its password, for messages and cache keys."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class _Statements:
    """A pooled psycopg connection speaking the sqlite3 connection's subset the index uses:
    `execute` and `executemany` of SQLite-spelled statements, returning cursors with `fetchone`,
    `fetchall`, `rowcount` and iteration."""

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.raw.execute(postgres_sql(sql), tuple(params) if params else None)

    def executemany(self, sql: str, rows: Any) -> psycopg.Cursor[Any]:
        cursor = self.raw.cursor()
        cursor.executemany(postgres_sql(sql), list(rows))
        return cursor


class _Held(threading.local):
    conn: _Statements | None = None
    depth: int = 0
    locked: bool = False


class PostgresConnection:
    """The index's connection methods over a PostgreSQL pool; mixed in before `Database`."""

    dialect = "postgres"

    def __init__(self, path: Path, *, url: str) -> None:
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StoreError(f"a PostgreSQL store ({redacted_url(url)}) needs {_INSTALL}") from None
        self.path = path
        """Beside this (never created) go local caches: vector snapshots."""
        self.url = url
        self.name = redacted_url(url)
        self._identity: tuple[object, ...] | None = ("postgresql", self.name)
        self._held = _Held()
        self._pool: ConnectionPool[Any] = ConnectionPool(
            url, min_size=1, max_size=8, open=False, kwargs={"autocommit": True},
            timeout=CONNECT_TIMEOUT, name="onlooker",
        )  # fmt: skip
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except Exception as exc:
            self._pool.close()
            raise StoreError(
                f"{self.name}: cannot connect to the PostgreSQL store ({exc})"
            ) from exc
        self._migrate()

    @property
    def _conn(self) -> sqlite3.Connection:
        """The connection of this thread's open transaction (typed as the sqlite3 subset the
        index's statements use; see `_Statements`)."""
        if self._held.conn is None:
            raise StoreError(f"{self.name}: a statement outside a transaction")
        return cast(sqlite3.Connection, self._held.conn)

    def close(self) -> None:
        self._pool.close()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as raw:
                yield raw
        except PoolTimeout as exc:
            raise StoreError(f"{self.name}: no connection to the PostgreSQL store ({exc})") from exc
        except psycopg.OperationalError as exc:
            raise StoreError(f"{self.name}: {exc}") from exc

    @contextmanager
    def _opened(self, begin: str, *, exclusive: bool) -> Iterator[_Statements]:
        held = self._held
        lock = f"; SELECT pg_advisory_xact_lock({WRITE_LOCK})" if exclusive else ""
        with self._connection() as raw:
            raw.execute(begin + lock)  # one round trip (no parameters: the simple protocol)
            held.conn, held.depth, held.locked = _Statements(raw), 1, exclusive
            try:
                yield held.conn
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            else:
                raw.execute("COMMIT")
            finally:
                held.conn, held.depth, held.locked = None, 0, False

    @contextmanager
    def transaction(self, *, exclusive: bool = True) -> Iterator[None]:
        """A write transaction; nested calls join it. `exclusive` (the default) holds the store's
        write lock, as every SQLite write does; queue writes (jobs, runs, pending events) pass
        False and rely on row locks, so they never wait on a finding being written."""
        held = self._held
        if held.depth:
            if exclusive and not held.locked:
                self._conn.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                held.locked = True
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
            return
        with self._opened("BEGIN", exclusive=exclusive):
            yield

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run read statements on one consistent snapshot."""
        if self._held.depth:
            return query(self._conn)
        with self._opened("BEGIN ISOLATION LEVEL REPEATABLE READ", exclusive=False):
            return query(self._conn)

    def _migrate(self) -> None:
        missing = [name for name, _ in MIGRATIONS if name not in POSTGRES_MIGRATIONS]
        if missing:
            raise StoreError(f"{self.name}: no PostgreSQL dialect of migration {missing[0]}")
        if {name for name, _ in MIGRATIONS} <= set(self.migrations()):
            return
        with self.transaction():
            conn = self._conn
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations (n BIGSERIAL, name TEXT PRIMARY KEY, "
                "applied_at TEXT NOT NULL)"
            )
            done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
            for name, _ in MIGRATIONS:
                if name in done:
                    continue
                self._held.conn.raw.execute(POSTGRES_MIGRATIONS[name])  # type: ignore[union-attr]
                conn.execute(
                    "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat(timespec="microseconds")),
                )

    def migrations(self) -> list[str]:
        """Names of the applied migrations, in order."""

        def read(c: sqlite3.Connection) -> list[str]:
            if c.execute("SELECT to_regclass('migrations')").fetchone()[0] is None:
                return []
            return [r[0] for r in c.execute("SELECT name FROM migrations ORDER BY n")]

        return self._read(read)

    def has_table(self, table: str) -> bool:
        return bool(
            self._read(lambda c: c.execute("SELECT to_regclass(?)", (table,)).fetchone()[0])
        )
