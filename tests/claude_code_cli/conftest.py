"""Tests that run the real Claude Code CLI against a scripted Anthropic endpoint, offline.

Each test gets a project with `onlooker install claude-code` done in it, its own data home and
agent home; the hook service and worker it started are stopped when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent import Agent, stop_processes

from onlooker.testing import ClaudeCodeMissing, find_claude

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def claude() -> Path:
    """The pinned CLI `make` installs into .claude-code/ (or $ONLOOKER_CLAUDE_CLI)."""
    try:
        return find_claude(REPO)
    except ClaudeCodeMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture
def agent(
    claude: Path, tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Agent]:
    """A project `shop` (a git root) where `onlooker install claude-code` was run."""
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "60")
    monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "5")
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    agent = Agent(claude, project, tmp_path / "agent-home", onlooker_home)
    try:
        yield agent
    finally:
        stop_processes(onlooker_home)
