"""A real PostgreSQL server for tests and benchmarks of the shared store: started in a temporary
folder (`start_postgres()`), a fresh migrated database per test (`fresh_database()`, cloned from a
template the migrations ran on once; `drop_database()` at the test's end, so a run's hundreds of
databases do not pile up on disk), stopped and removed at the end (`stop()`).

Uses the server binaries in $ONLOOKER_PG_BIN (default Debian's /usr/lib/postgresql/15/bin). As
root, initdb and the server run as the `postgres` user (initdb refuses root).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(os.environ.get("ONLOOKER_PG_BIN", "/usr/lib/postgresql/15/bin"))
TEMPLATE = "onlooker_template"


@dataclass
class PostgresServer:
    """One running server: its folder, port and socket folder."""

    base: Path
    port: int
    _names: itertools.count[int] = field(default_factory=itertools.count)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str) -> None:
        import psycopg
        from psycopg import sql as psql

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(psql.SQL(sql))

    def fresh_database(self) -> str:
        """A new database with the store's tables (migrated once, into the template); its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database `fresh_database()` made, closing what is still connected to it (a
        process the test started, a store it left open)."""
        name = url.rsplit("/", 1)[1]
        self.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        _run(["pg_ctl", "-D", str(self.base / "data"), "-m", "immediate", "stop"])
        shutil.rmtree(self.base, ignore_errors=True)


def start_postgres() -> PostgresServer:
    """initdb into a new temporary folder and start a server on a free port of 127.0.0.1."""
    base = Path(tempfile.mkdtemp(prefix="onlooker-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(base, user.pw_uid, user.pw_gid)
    data, sockets = base / "data", base / "sockets"
    _run(["initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
          "--locale=C.UTF-8"])  # fmt: skip
    _run(["mkdir", "-p", str(sockets)])
    port = _free_port()
    options = (
        f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c max_connections=200 "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    )
    _run(["pg_ctl", "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start"])
    server = PostgresServer(base, port)
    server.execute(f"CREATE DATABASE {TEMPLATE}")
    from ..store._index import open_index

    open_index(base / "unused.db", server.url(TEMPLATE)).close()  # the migrations, once
    return server


def _run(command: list[str]) -> None:
    program = [str(BIN / command[0]), *command[1:]] if command[0] != "mkdir" else command
    if os.geteuid() == 0:
        program = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(map(_quoted, program))]
    done = subprocess.run(program, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stdout}{done.stderr}")


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
