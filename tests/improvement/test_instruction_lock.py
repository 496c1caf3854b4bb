"""The cross-process lock: exclusive creation, waiting, and taking over a stale lock."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from onlooker.errors import ImprovementError, LockTimeout
from onlooker.improvement._lock import FileLock


def age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_a_held_lock_makes_the_next_writer_wait_then_time_out(tmp_path: Path) -> None:
    lock_path = tmp_path / "locks" / "AGENTS.md.lock"
    with FileLock(lock_path) as first:
        held = json.loads(lock_path.read_text())
        assert held["pid"] == os.getpid() and held["token"] == first.token
        began = time.monotonic()
        with pytest.raises(LockTimeout, match=rf"AGENTS\.md\.lock: held by pid {os.getpid()}"):
            FileLock(lock_path, timeout=0.2).acquire()
        assert time.monotonic() - began >= 0.2
    assert not lock_path.exists()
    with FileLock(lock_path, timeout=0.2):
        assert lock_path.exists()


def test_a_stale_lock_is_taken_over_and_its_old_holder_may_not_write(tmp_path: Path) -> None:
    lock_path = tmp_path / "AGENTS.md.lock"
    crashed = FileLock(lock_path)
    crashed.acquire()
    age(lock_path, 31)
    with FileLock(lock_path, timeout=5) as taker:
        assert taker.still_held() and not crashed.still_held()
        with pytest.raises(ImprovementError, match="the lock was taken over while held"):
            crashed.check()
        crashed.release()  # the old holder letting go must not free the new holder's lock
        assert lock_path.exists() and taker.still_held()
    assert not lock_path.exists()


def test_staleness_is_configurable(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    FileLock(lock_path).acquire()
    age(lock_path, 3)
    with pytest.raises(LockTimeout):
        FileLock(lock_path, timeout=0.1).acquire()
    with FileLock(lock_path, stale_after=2.0, timeout=1.0) as taker:
        assert taker.still_held()


def test_a_takeover_left_behind_by_a_dead_waiter_is_cleared(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    FileLock(lock_path).acquire()
    guard = tmp_path / "x.lock.takeover"
    guard.write_text("{}")
    age(lock_path, 40)
    age(guard, 40)
    with FileLock(lock_path, timeout=5) as taker:
        assert taker.still_held()
    assert not guard.exists()


def test_an_empty_lock_file_from_a_writer_killed_at_creation_goes_stale(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    lock_path.write_text("")
    with pytest.raises(LockTimeout, match="held by another process"):
        FileLock(lock_path, timeout=0.1).acquire()
    age(lock_path, 31)
    with FileLock(lock_path, timeout=5) as taker:
        assert taker.still_held()
