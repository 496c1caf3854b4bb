"""A cross-process lock on one file: the exclusive creation of `<file>.lock`.

Whoever creates the lock file holds the lock; it writes its pid and a token into it. A lock file
older than `stale_after` seconds (30 by default) belongs to a holder that crashed and is taken
over; a waiter backs off exponentially (10 ms to 500 ms, with jitter) up to `timeout`.
Taking over goes through a second exclusive file, so two waiters never both take the same
stale lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from ..errors import ImprovementError, LockTimeout

STALE_AFTER = 30.0
"""Seconds after which a lock file is taken to belong to a crashed holder."""
TIMEOUT = 60.0
"""Seconds a writer waits for the lock; longer than STALE_AFTER so a crashed holder's lock is
taken over rather than failing the write."""
FIRST_BACKOFF = 0.01
LAST_BACKOFF = 0.5


class FileLock:
    """The lock at `path`; use `with FileLock(path):` or `acquire()` / `release()`."""

    def __init__(
        self, path: Path, *, stale_after: float = STALE_AFTER, timeout: float = TIMEOUT
    ) -> None:
        self.path = path
        self.stale_after = stale_after
        self.timeout = timeout
        self.token = uuid.uuid4().hex
        self.held = False

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()

    def acquire(self) -> None:
        """Create the lock file, waiting and taking over a stale one; LockTimeout past
        `timeout`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.timeout
        backoff = FIRST_BACKOFF
        while True:
            if self._create(self.path, self._content()):
                self.held = True
                return
            self._take_over_if_stale()
            now = time.monotonic()
            if now >= deadline:
                raise LockTimeout(
                    f"{self.path}: held by {self._holder()} for more than {self.timeout:g} s "
                    f"(taken over once older than {self.stale_after:g} s)"
                )
            time.sleep(min(backoff * random.uniform(0.5, 1.5), deadline - now))
            backoff = min(backoff * 2, LAST_BACKOFF)

    def release(self) -> None:
        """Remove the lock file if it is still this holder's."""
        if self.held and self.still_held():
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self.held = False

    def still_held(self) -> bool:
        """Whether the lock file is still this holder's (not taken over as stale)."""
        try:
            return bool(json.loads(self.path.read_text())["token"] == self.token)
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def check(self) -> None:
        """ImprovementError when the lock was taken over: the caller must not write."""
        if not self.still_held():
            raise ImprovementError(
                f"{self.path}: the lock was taken over while held (older than "
                f"{self.stale_after:g} s); nothing was written"
            )

    def _content(self) -> str:
        return json.dumps(
            {"pid": os.getpid(), "host": socket.gethostname(), "token": self.token,
             "time": time.time()}
        )  # fmt: skip

    @staticmethod
    def _create(path: Path, content: str) -> bool:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as handle:
            handle.write(content)
        return True

    def _take_over_if_stale(self) -> None:
        seen = _age_and_identity(self.path)
        if seen is None or seen[0] < self.stale_after:
            return
        guard = self.path.with_name(self.path.name + ".takeover")
        if not self._create(guard, self._content()):
            guarded = _age_and_identity(guard)
            if guarded is not None and guarded[0] >= self.stale_after:
                with contextlib.suppress(FileNotFoundError):
                    guard.unlink()  # a waiter died while taking over
            return
        try:
            again = _age_and_identity(self.path)
            if again is not None and again[1] == seen[1] and again[0] >= self.stale_after:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
        finally:
            with contextlib.suppress(FileNotFoundError):
                guard.unlink()

    def _holder(self) -> str:
        try:
            held = json.loads(self.path.read_text())
            return f"pid {held['pid']} on {held['host']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process"


def _age_and_identity(path: Path) -> tuple[float, tuple[int, int, int]] | None:
    """Seconds since the file was last written, and what tells this file from a newer one."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return time.time() - info.st_mtime, (info.st_ino, info.st_dev, info.st_mtime_ns)


@contextlib.contextmanager
def locked(path: Path, *, stale_after: float, timeout: float) -> Iterator[FileLock]:
    """Hold the lock at `path` for the block."""
    lock = FileLock(path, stale_after=stale_after, timeout=timeout)
    with lock:
        yield lock
