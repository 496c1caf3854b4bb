"""Hook tests run the real `onlooker hook` command and stop any hook service they started."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hook_runner import stop_service


@pytest.fixture(autouse=True)
def short_lived_service(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    """A service started by a test exits soon on its own, and is stopped when the test ends."""
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "30")
    yield
    stop_service(onlooker_home)
