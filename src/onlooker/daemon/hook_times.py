"""How long the hook service took to answer each hook, kept for the live viewer's latency figures
(specs/serve.md): one line per hook in `logs/hook-times.log` (`<unix time> <ms> <1|0 answered>`),
appended with one write; past 256 KiB the file becomes `hook-times.log.1` and a new one starts.

The time is the service's own (input read to answer sent); the hook process's start-up is the
client's and is not in it.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

TIMES_FILE = Path("logs") / "hook-times.log"
ROTATE_AT = 256 * 1024
READ_BACK = 64 * 1024
"""Bytes of the newest times read for the figures (a few thousand hooks)."""


class HookTimes:
    """Appends one line per answered hook; never raises (timing must not fail a hook)."""

    def __init__(self, home: Path) -> None:
        self.path = home / TIMES_FILE
        self._lock = threading.Lock()
        self._fd = -1

    def record(self, seconds: float, answered: bool = True) -> None:
        line = f"{time.time():.3f} {seconds * 1000:.2f} {int(answered)}\n".encode()
        with self._lock, contextlib.suppress(OSError):
            if self._fd < 0:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.write(self._fd, line)
            if os.fstat(self._fd).st_size > ROTATE_AT:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                os.close(self._fd)
                self._fd = -1

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def hook_latency(home: Path, limit: int = 1000) -> dict[str, Any]:
    """p50 and p95 in ms over the newest `limit` hooks, how many, and how many failed."""
    path = home / TIMES_FILE
    data = b""
    for one in (path.with_name(path.name + ".1"), path):
        with contextlib.suppress(OSError), open(one, "rb") as file:
            file.seek(max(os.fstat(file.fileno()).st_size - READ_BACK, 0))
            data += file.read()
    rows = []
    for line in data.splitlines()[-limit:]:
        parts = line.split()
        with contextlib.suppress(ValueError, IndexError):
            rows.append((float(parts[0]), float(parts[1]), parts[2] == b"1"))
    if not rows:
        return {"hooks": 0, "failed": 0, "p50_ms": None, "p95_ms": None, "since": None}
    times = sorted(ms for _, ms, _ in rows)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return {"hooks": len(rows), "failed": sum(not ok for *_, ok in rows),
            "p50_ms": round(statistics.median(times), 2), "p95_ms": round(p95, 2),
            "since": rows[0][0]}  # fmt: skip
