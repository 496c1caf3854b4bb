"""What the real Claude Code reads of what `onlooker install claude-code` writes: the hooks in
`.claude/settings.local.json` beside a team's committed settings, and a plugin of the team's own
with onlooker merged in, run through `${CLAUDE_PLUGIN_ROOT}`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agent import Agent

from onlooker.mcp.observer_specs import OBSERVER_TOOLS
from onlooker.testing import AnthropicEndpoint, ToolUse

LIST = ToolUse("Bash", {"command": "ls", "description": "List the project"})


def team_hook(marker: Path, event: str = "PostToolUse") -> dict[str, object]:
    command = f"echo team-hook >> {marker}"
    return {event: [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}


@pytest.mark.slow
def test_local_settings_run_beside_the_teams_committed_hooks(agent: Agent, tmp_path: Path) -> None:
    marker = tmp_path / "team-hook.log"
    committed = json.dumps({"hooks": team_hook(marker)}, indent=2) + "\n"
    agent.write(".claude/settings.json", committed)
    agent.install()
    assert (agent.project / ".claude/settings.json").read_text() == committed
    with AnthropicEndpoint([LIST]) as api:
        run = agent.run(api, "Look around.")
    assert marker.read_text() == "team-hook\n"  # the team's hook ran
    calls = [r for r in agent.journal(run.session_id) if r["kind"] == "tool_call"]
    assert [c["input"]["command"] for c in calls] == ["ls"]  # and onlooker's


@pytest.mark.slow
def test_a_team_plugin_with_onlooker_merged_in_runs_both(agent: Agent, tmp_path: Path) -> None:
    marker = tmp_path / "team-hook.log"
    plugin = tmp_path / "team-tools"
    files = {
        ".claude-plugin/plugin.json": '{"name": "team-tools", "version": "1.0.0"}\n',
        "hooks/hooks.json": json.dumps({"hooks": team_hook(marker, "PostToolUseFailure")}, indent=2)
        + "\n",
    }
    for relative, text in files.items():
        (plugin / relative).parent.mkdir(parents=True, exist_ok=True)
        (plugin / relative).write_text(text)
    agent.onlooker("install", "claude-code", "--plugin", str(plugin))

    failing = ToolUse("Bash", {"command": "cat missing.txt", "description": "Read it"})
    with AnthropicEndpoint([failing] * 4) as api:
        run = agent.run(api, "Read missing.txt.", args=["--plugin-dir", str(plugin)])
    assert marker.read_text().count("team-hook") == 4
    calls = [r for r in agent.journal(run.session_id) if r["kind"] == "tool_call"]
    assert len(calls) == 4  # onlooker's hooks ran, through ${CLAUDE_PLUGIN_ROOT}/scripts/onlooker
    assert any("[Trajectory Assessment - Stall" in c for c in api.turns[-1].hook_context())
    # The plugin's MCP server started and listed its tools (deferred, named in the context).
    served = set(re.findall(r"mcp__plugin_team-tools_onlooker__\w+", api.turns[-1].text))
    assert {name.rsplit("__", 1)[1] for name in served} == {
        "search",
        "get_observations",
        "read",
        "observations",
        *(spec.name for spec in OBSERVER_TOOLS),
    }

    agent.onlooker("uninstall", "claude-code", "--plugin", str(plugin))
    assert {
        str(p.relative_to(plugin)): p.read_text() for p in plugin.rglob("*") if p.is_file()
    } == files
