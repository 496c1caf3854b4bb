"""The sqlite-vec backend: `vec0` tables mirroring the `vectors` rows, in `onlooker-vec.db`.

Python's own sqlite3 often cannot load extensions (built without `enable_load_extension`); then
`pysqlite3` is used if installed. The mirror is a file of its own because two copies of SQLite in
one process must never open the same file (closing one drops the other's POSIX locks). It is
brought up to date before each search, from the index, and rebuilt whole when rows were removed.
"""

from __future__ import annotations

import importlib
import sqlite3
import threading
from collections.abc import Collection
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import StoreError
from ..store._database import Database
from ..store.home import MIRROR_FILE
from ._cosine import Hit

_INSTALL = "pip install sqlite-vec (and pysqlite3-binary where python's sqlite3 cannot load it)"
_STATE = """
CREATE TABLE IF NOT EXISTS mirrors (
    kind TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    upto INTEGER NOT NULL,
    dimensions INTEGER NOT NULL
)
"""


def extension_sqlite() -> ModuleType | None:
    """A DB-API sqlite3 module whose connections can load extensions, or None."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        return importlib.import_module("pysqlite3.dbapi2")
    except ImportError:
        return None


def unavailable() -> str | None:
    """Why sqlite-vec cannot be used here, or None when it can (it is loaded once to check)."""
    try:
        _connect(Path(":memory:")).close()
    except StoreError as exc:
        return str(exc)
    return None


class SqliteVecMirror:
    """KNN search of one kind's vectors with sqlite-vec, next to the index of `database`."""

    def __init__(self, database: Database, kind: str, model: str) -> None:
        self.database = database
        self.kind = kind
        self.model = model
        self.table = f"vec_{kind}"
        self.path = database.path.with_name(MIRROR_FILE)
        self._lock = threading.Lock()
        self._conn = _connect(self.path)
        self._conn.execute(_STATE)

    def close(self) -> None:
        self._conn.close()

    def search(self, query: bytes, limit: int, ids: Collection[int] | None) -> list[Hit]:
        with self._lock:
            dimensions = self._follow()
            if not dimensions:
                return []
            if len(query) != 4 * dimensions:
                raise StoreError(
                    f"{self.path}: query has {len(query) // 4} dimensions, the {self.kind} "
                    f"vectors have {dimensions}"
                )
            sql = f"SELECT rowid, distance FROM {self.table} WHERE embedding MATCH ? AND k = ?"
            params: list[Any] = [query, limit]
            if ids is not None:
                sql += " AND rowid IN (SELECT value FROM json_each(?))"
                params.append("[" + ",".join(str(int(i)) for i in ids) + "]")
            rows = self._conn.execute(sql, params).fetchall()
        hits = [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))

    def _follow(self) -> int:
        """Bring the vec0 table up to date with the index; returns its dimensions (0: empty)."""
        version = self.database._read(self._version)
        mirrored = self._mirrored()
        if mirrored is not None and mirrored[:3] == (self.model, *version):
            return int(mirrored[4])
        # Rebuilt whole when rows were removed (or replaced), or nothing is mirrored yet.
        rebuild = mirrored is None or mirrored[0] != self.model or mirrored[2] != version[1]
        rebuild = rebuild or not mirrored[4]  # type: ignore[index]
        upto = 0 if rebuild else int(mirrored[3])  # type: ignore[index]
        version, rows = self.database._read(lambda c: (self._version(c), self._rows_after(c, upto)))
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self._mirrored() != mirrored:  # another process followed meanwhile: start again
                conn.execute("ROLLBACK")
                return self._follow()
            if rebuild:
                dimensions = len(rows[0][1]) // 4 if rows else 0
                conn.execute(f"DROP TABLE IF EXISTS {self.table}")
                if dimensions:
                    conn.execute(
                        f"CREATE VIRTUAL TABLE {self.table} USING vec0("
                        f"embedding float[{dimensions}] distance_metric=cosine)"
                    )
            else:
                dimensions = int(mirrored[4])  # type: ignore[index]
            conn.executemany(
                f"INSERT INTO {self.table} (rowid, embedding) VALUES (?, ?)",
                [row[:2] for row in rows],
            )
            conn.execute(
                "INSERT OR REPLACE INTO mirrors (kind, model, added, removed, upto, dimensions) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (self.kind, self.model, *version, rows[-1][2] if rows else upto, dimensions),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return dimensions

    def _mirrored(self) -> tuple[Any, ...] | None:
        """(model, added, removed, upto, dimensions) of what the vec0 table holds, if anything."""
        row = self._conn.execute(
            "SELECT model, added, removed, upto, dimensions FROM mirrors WHERE kind = ?",
            (self.kind,),
        ).fetchone()
        return None if row is None else tuple(row)

    def _version(self, c: sqlite3.Connection) -> tuple[int, int]:
        row = c.execute(
            "SELECT added, removed FROM vector_versions WHERE kind = ?", (self.kind,)
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def _rows_after(self, c: sqlite3.Connection, upto: int) -> list[Any]:
        return c.execute(
            "SELECT id, vector, n FROM vectors WHERE kind = ? AND model = ? AND n > ? ORDER BY n",
            (self.kind, self.model, upto),
        ).fetchall()


def _connect(path: Path) -> Any:
    module = extension_sqlite()
    if module is None:
        raise StoreError(
            "sqlite-vec needs a sqlite3 module that can load extensions; this python's cannot "
            f"and pysqlite3 is not installed: {_INSTALL}"
        )
    try:
        import sqlite_vec
    except ImportError as exc:
        raise StoreError(f"sqlite-vec is not installed: {_INSTALL}") from exc
    try:
        conn = module.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode=WAL")
    except module.Error as exc:
        raise StoreError(f"{path}: cannot load sqlite-vec ({exc})") from exc
    return conn
