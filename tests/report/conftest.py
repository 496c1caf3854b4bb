"""The report tests' store: two sessions of one project, findings, a reviewer run."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from report_data import START, fill

from onlooker import FixedClock
from onlooker.store import Store


@pytest.fixture
def filled_store(tmp_path: Path) -> Store:
    return fill(Store(tmp_path / "home", clock=FixedClock(START + timedelta(days=2))))
