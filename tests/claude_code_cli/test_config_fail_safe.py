"""A typo in the project's config in the real Claude Code: the observers still run, and the person
is told where and what, once, as Claude Code shows a hook's notice to its user."""

from __future__ import annotations

import json

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, ClaudeCode, ToolUse

STALL = "[Trajectory Assessment - Stall"  # with Error Cascade: one voice
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})


@pytest.mark.slow
def test_a_typod_key_leaves_the_observers_running_and_the_user_is_told(agent: Agent) -> None:
    installed = agent.install()
    config = agent.write(".onlooker/config.yaml", "memory: {enabeld: true}\n")
    assert installed.returncode == 0
    with AnthropicEndpoint([FAILING] * 5) as api:
        cli = ClaudeCode(api, agent.home, executable=agent.claude)
        done = cli.run(
            "Read the plan and follow it.", cwd=agent.project,
            args=("--output-format", "stream-json", "--verbose"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]

    shown = [json.loads(line) for line in done.stdout.splitlines() if '"informational"' in line]
    notices = [m["content"] for m in shown if "onlooker" in m["content"]]
    assert len(notices) == 1, notices  # once in the session
    (notice,) = notices
    assert notice.startswith("UserPromptSubmit says: onlooker: the project's config has 1 problem")
    assert f"{config}:1: memory.enabeld: unknown key (did you mean 'enabled'?)" in notice
    assert "allowed: enabled, maxObservations, maxTokens" in notice
    assert "memory.enabeld" not in api.turns[0].text  # for the person, not the model

    # the trajectory observers ran as if the file were right
    delivered = [turn.hook_context("PostToolUseFailure") for turn in api.turns[1:6]]
    assert [sum(STALL in c for c in contexts) for contexts in delivered][3] == 1
