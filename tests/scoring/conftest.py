"""The scoring tests' store: a real store (SQLite and PostgreSQL) whose clock ticks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from scored_sessions import START

from onlooker.core.clock import FixedClock
from onlooker.store import Store


class Ticking(FixedClock):
    """A fixed clock that moves a minute each time it is read (scores get distinct times)."""

    def now(self) -> datetime:
        return self.advance(minutes=1)


@pytest.fixture
def store(tmp_path: Path, store_backend: str) -> Iterator[Store]:
    """A store on SQLite and on PostgreSQL alike (tests/conftest.py: `store_backend`)."""
    with Store(tmp_path / "home", clock=Ticking(START)) as opened:
        yield opened
