"""The repository as a Claude Code plugin marketplace, through the real CLI: `claude plugin
validate` passes, `claude plugin marketplace add` + `claude plugin install onlooker@onlooker` wire
onlooker's hooks and MCP server into a session, and with no onlooker installed the plugin says
once how to install it and never blocks (specs/install.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from agent import Agent

from onlooker.hosts.claude_code.marketplace import EXECUTABLE, marketplace_files
from onlooker.testing import AnthropicEndpoint, ClaudeCode, ToolUse

REPO = Path(__file__).resolve().parents[2]
STALL = "[Trajectory Assessment - Stall"  # with Error Cascade: one voice
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
BARE_PATH = "/usr/bin:/bin"


def test_the_committed_marketplace_is_current_and_moves_with_the_package_version() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    for relative, text in marketplace_files().items():
        path = REPO / relative
        assert path.read_text() == text, (
            f"{relative} is stale: python -m onlooker.hosts.claude_code.marketplace"
        )
        assert os.access(path, os.X_OK) == (relative in EXECUTABLE)
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    plugin = json.loads((REPO / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    assert market["plugins"][0]["version"] == plugin["version"] == version
    for path in (REPO / "plugin").rglob("*"):  # no path of a machine in what is committed
        assert not path.is_file() or (
            "/root/" not in path.read_text() and "/home/" not in path.read_text()
        )


def claude(agent: Agent, *args: str) -> subprocess.CompletedProcess[str]:
    with AnthropicEndpoint([]) as api:
        env = ClaudeCode(api, agent.home, executable=agent.claude).environment()
    return subprocess.run([str(agent.claude), *args], cwd=agent.project, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip


@pytest.mark.slow
def test_claude_plugin_validate_passes(agent: Agent) -> None:
    for target in (REPO, REPO / "plugin"):
        done = claude(agent, "plugin", "validate", str(target))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Validation passed" in done.stdout


@pytest.mark.slow
def test_the_marketplace_install_wires_onlooker_into_the_session(agent: Agent) -> None:
    added = claude(agent, "plugin", "marketplace", "add", str(REPO))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude(agent, "plugin", "install", "onlooker@onlooker")
    assert installed.returncode == 0, installed.stdout + installed.stderr

    on_path = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{BARE_PATH}"}  # as pipx puts it
    with AnthropicEndpoint([FAILING] * 4) as api:
        run = agent.run(api, "Read the plan and follow it.", env=on_path)
    delivered = [c for turn in api.turns for c in turn.hook_context("PostToolUseFailure")]
    assert sum(STALL in c for c in delivered) >= 1
    records = agent.journal(run.session_id)
    assert len([r for r in records if r["kind"] == "tool_call"]) == 4
    started = [r.get("host") for r in records if r["kind"] == "session_started"]
    assert started and set(started) == {"claude-code"}  # what the viewer shows and filters by
    served = set(re.findall(r"mcp__plugin_onlooker_onlooker__\w+", api.turns[-1].text))
    assert {"observations", "search"} <= {name.rsplit("__", 1)[1] for name in served}

    # No onlooker on this machine: the session goes on, and the user is told once how to get it.
    nowhere = {"PATH": BARE_PATH, "ONLOOKER_HOME": str(agent.home / "no-onlooker")}
    with AnthropicEndpoint([FAILING] * 3) as api:
        done = ClaudeCode(api, agent.home, executable=agent.claude, env=nowhere).run(
            "Read the plan and follow it.", cwd=agent.project,
            args=("--output-format", "stream-json", "--verbose"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(api.turns) == 4 and not any(STALL in t.text for t in api.turns)
    said = [line for line in done.stdout.splitlines() if "pipx install onlooker" in line]
    assert len(said) == 1, said
