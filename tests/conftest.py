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
    """Every test gets its own data home and Claude Code config folder, so nothing is written
    outside tmp."""
    home = tmp_path / "onlooker-home"
    monkeypatch.setenv("ONLOOKER_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    return home


@pytest.fixture
def claude_config(onlooker_home: Path) -> Path:
    """Claude Code's config folder for this test ($CLAUDE_CONFIG_DIR, under tmp)."""
    return onlooker_home.parent / "claude-config"
