"""Tests that run the real opencode binary against a scripted endpoint, offline (opencode.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opencode import BINARY, Opencode


@pytest.fixture
def opencode(tmp_path: Path, onlooker_home: Path) -> Iterator[Opencode]:
    """A project `shop` (a git root, memory off) with opencode's home under tmp."""
    if not BINARY.is_file():
        pytest.skip(f"{BINARY} is missing: run `make opencode`")
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".onlooker").mkdir()
    (project / ".onlooker" / "no-memory").touch()
    agent = Opencode(project, tmp_path / "opencode-home", onlooker_home)
    try:
        yield agent
    finally:
        agent.stop()
