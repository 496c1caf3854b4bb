"""One viewer per data home: an exclusive lock on `run/serve.lock`, and `run/serve.json` naming
where it listens, so a second `onlooker serve` can say where the first one is."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..daemon._lock import single_instance
from ..errors import AlreadyRunning

NAME = "serve"
RUN_DIR = "run"


def address_file(home: Path) -> Path:
    return home / RUN_DIR / f"{NAME}.json"


@contextlib.contextmanager
def the_only_viewer(home: Path) -> Iterator[None]:
    """Hold the data home's viewer lock, or raise AlreadyRunning naming the running viewer's URL."""
    try:
        with single_instance(home, NAME):
            yield
    except AlreadyRunning:
        running = running_viewer(home)
        where = f" at {running['url']} (pid {running.get('pid')})" if running else ""
        raise AlreadyRunning(f"onlooker serve already runs for {home}{where}") from None


def announce(home: Path, url: str) -> None:
    """Write where this viewer listens (the lock is held)."""
    path = address_file(home)
    data = json.dumps({"url": url, "pid": os.getpid()})
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(data)


def withdraw(home: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        address_file(home).unlink()


def running_viewer(home: Path) -> dict[str, Any]:
    """The running viewer's {url, pid}, or {} when none announced itself."""
    try:
        found = json.loads(address_file(home).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
