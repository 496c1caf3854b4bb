"""The report tests' store: two sessions of one project, findings, a reviewer run, memories and
session scores."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from report_data import START, fill

from onlooker import FixedClock
from onlooker.store import Store


@pytest.fixture
def filled_store(tmp_path: Path, store_backend: str) -> Iterator[Store]:
    """On SQLite and on PostgreSQL alike (tests/conftest.py: `store_backend`)."""
    clock = FixedClock(START + timedelta(days=2))
    with fill(Store(tmp_path / "home", clock=clock), tmp_path / "shop") as store:
        yield store
