"""Shared fixtures: a fixed clock, an isolated data home, the fixtures folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import FixedClock

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def onlooker_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data home, so nothing is written outside tmp."""
    home = tmp_path / "onlooker-home"
    monkeypatch.setenv("ONLOOKER_HOME", str(home))
    return home
