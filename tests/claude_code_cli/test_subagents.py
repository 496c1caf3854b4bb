"""Subagents in the real Claude Code: an Agent (Task) tool call runs a subagent, and onlooker keeps
the subagent's calls as a session of their own, with its parent and its agent type."""

from __future__ import annotations

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, Text, ToolUse

DELEGATE = ToolUse(
    "Agent",
    {
        "description": "Find the config",
        "prompt": "List the files in the project and say where the config is.",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    },
)


@pytest.mark.slow
def test_a_subagents_calls_are_tracked_with_parent_and_agent_type(agent: Agent) -> None:
    agent.write("settings/app.toml", "debug = true\n")
    agent.install()
    subagent = [
        ToolUse("Bash", {"command": "ls settings", "description": "List the settings folder"}),
        Text("The config is settings/app.toml."),
    ]
    with AnthropicEndpoint([DELEGATE], subagent_script=subagent) as api:
        run = agent.run(api, "Where is the config?")

    assert len(api.subagent_turns) == 2
    assert "app.toml" in list(api.subagent_turns[1].tool_results())[-1][1]
    assert "The config is settings/app.toml." in api.turns[-1].text  # the Agent tool's result

    main = agent.journal(run.session_id)
    started = [r for r in main if r["kind"] == "subagent_started"]
    stopped = [r for r in main if r["kind"] == "subagent_stopped"]
    assert [r["agent_type"] for r in started] == ["general-purpose"]
    assert [r["agent_id"] for r in stopped] == [started[0]["agent_id"]]
    assert stopped[0]["agent_type"] == "general-purpose"
    assert [r["tool"] for r in main if r["kind"] == "tool_call"] == ["Agent"]

    agent_id = started[0]["agent_id"]
    child = agent.journal(f"{run.session_id}/{agent_id}")
    head = child[0]
    assert head["kind"] == "session_started"
    assert head["parent_session_id"] == run.session_id
    assert head["agent_type"] == "general-purpose" and head["agent_name"] == agent_id
    calls = [r for r in child if r["kind"] == "tool_call"]
    assert [(c["tool"], c["input"]["command"]) for c in calls] == [("Bash", "ls settings")]
    assert "app.toml" in calls[0]["output"]
