"""The SQLite file under the index: WAL, a busy timeout, retries with backoff, transactions,
the named migrations, and reopening when the file is replaced.

`Database` is the base of `Index`; together they are the only code that speaks to SQLite.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from ..core.clock import utc
from ..errors import StoreError
from ._migrations import MIGRATIONS

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")

BUSY_TIMEOUT = 5.0
"""Seconds SQLite itself waits for a lock before reporting it busy."""
RETRY_FOR = 120.0
"""Seconds onlooker keeps retrying a busy index before giving up with a StoreError."""


class Database:
    """One SQLite file, opened for many processes at once."""

    dialect = "sqlite"
    """Which SQL the connection speaks: sqlite here, postgres under `PostgresConnection`."""

    def __init__(self, path: Path, *, busy_timeout: float | None = None) -> None:
        self.path = path
        self.name = str(path)
        """What messages call the index: its file (a PostgreSQL store: its URL)."""
        self._busy_timeout = BUSY_TIMEOUT if busy_timeout is None else busy_timeout
        self._lock = threading.RLock()
        self._depth = 0
        self._sqlite = self._connect()
        self._identity: tuple[object, ...] | None = _identity(self.path)
        self._migrate()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            with file_lock(self.path.with_name(self.path.name + ".lock")):
                if not self.path.exists():
                    for suffix in ("-wal", "-shm"):  # left by a deleted index: never reuse them
                        Path(f"{self.path}{suffix}").unlink(missing_ok=True)
                    return self._open()
        return self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            self._sqlite = conn
            self._retry(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path}: cannot open the index ({exc}); "
                "`onlooker reindex --fresh` rebuilds it"
            ) from exc
        return conn

    @property
    def _conn(self) -> sqlite3.Connection:
        """The connection the index's statements run on."""
        return self._sqlite

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _follow_replacement(self) -> None:
        """Reopen when the file was deleted or replaced (`onlooker reindex --fresh` elsewhere)."""
        if _identity(self.path) == self._identity:
            return
        self._conn.close()
        self._sqlite = self._connect()
        self._identity = _identity(self.path)
        self._migrate()

    def _retry(self, action: Callable[[], T]) -> T:
        delay = 0.002
        give_up = time.monotonic() + RETRY_FOR
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                text = str(exc)
                if "locked" not in text and "busy" not in text:
                    raise StoreError(f"{self.path}: {text}") from exc
                if time.monotonic() > give_up:
                    raise StoreError(
                        f"{self.path}: still busy after {RETRY_FOR:g}s of retries"
                    ) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.1)

    @contextmanager
    def transaction(self, *, exclusive: bool = True) -> Iterator[None]:
        """A write transaction (BEGIN IMMEDIATE, retried while busy); nested calls join it.
        SQLite has one writer at a time whatever `exclusive` says (see `PostgresConnection`)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._follow_replacement()
            self._retry(lambda: self._conn.execute("BEGIN IMMEDIATE"))
            self._depth = 1
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._retry(lambda: self._conn.execute("COMMIT"))
            finally:
                self._depth = 0

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run read statements on one consistent snapshot."""
        with self._lock:
            if self._depth:
                return query(self._conn)
            self._follow_replacement()

            def attempt() -> T:
                self._conn.execute("BEGIN")
                try:
                    return query(self._conn)
                finally:
                    self._conn.execute("COMMIT")

            return self._retry(attempt)

    def _migrate(self) -> None:
        if {name for name, _ in MIGRATIONS} <= self._read(_applied):
            return
        with self.transaction():
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
            )
            done = _applied(self._conn)
            for name, sql in MIGRATIONS:
                if name in done:
                    continue
                for statement in _statements(sql):
                    self._conn.execute(statement)
                self._conn.execute(
                    "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                    (name, stamp(datetime.now(UTC))),
                )

    def migrations(self) -> list[str]:
        """Names of the applied migrations, in order."""
        return self._read(
            lambda c: [r[0] for r in c.execute("SELECT name FROM migrations ORDER BY rowid")]
        )

    def has_table(self, table: str) -> bool:
        return bool(
            self._read(
                lambda c: c.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
                ).fetchone()
            )
        )


def stamp(when: datetime) -> str:
    """A time as stored: UTC, ISO 8601 with microseconds (so text order is time order)."""
    return utc(when).isoformat(timespec="microseconds")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def _applied(conn: sqlite3.Connection) -> set[str]:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if found is None:
        return set()
    return {row[0] for row in conn.execute("SELECT name FROM migrations")}


def _statements(script: str) -> Iterator[str]:
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""


@contextmanager
def file_lock(path: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created when missing) for the block. With `wait`, give
    up after that many seconds with BlockingIOError, for callers (hooks) that must not wait on
    whoever holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        if fcntl is not None:
            _acquire(fd, wait)
        yield
    finally:
        os.close(fd)


def _acquire(fd: int, wait: float | None) -> None:
    if wait is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    give_up = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= give_up:
                raise
        time.sleep(0.01)
